#!/usr/bin/env python3
"""Say whether this host can run a KVM guest: /dev/kvm opens, speaks API 12,
and creates a VM (KVM_CREATE_VM), which is where a /dev/kvm that exists but
cannot be used (nested virtualisation off, no permission) fails.

Prints one line, "kvm" or "tcg: <why>", and exits 0 for kvm, 1 for tcg.
"""
import errno
import fcntl
import os
import sys

KVM_GET_API_VERSION = 0xAE00	# _IO(KVMIO, 0x00)
KVM_CREATE_VM = 0xAE01		# _IO(KVMIO, 0x01)
KVM_API_VERSION = 12


def probe(path='/dev/kvm'):
	try:
		fd = os.open(path, os.O_RDWR | os.O_CLOEXEC)
	except OSError as e:
		return '%s: %s' % (path, os.strerror(e.errno))
	try:
		version = fcntl.ioctl(fd, KVM_GET_API_VERSION)
		if version != KVM_API_VERSION:
			return '%s speaks KVM API %d, not %d' % (path, version, KVM_API_VERSION)
		vm = fcntl.ioctl(fd, KVM_CREATE_VM, 0)
		os.close(vm)
	except OSError as e:
		return 'KVM_CREATE_VM on %s: %s' % (path, errno.errorcode.get(e.errno, str(e.errno)))
	finally:
		os.close(fd)
	return None


def main():
	why = probe()
	if why:
		print('tcg: ' + why)
		return 1
	print('kvm')
	return 0


if __name__ == '__main__':
	sys.exit(main())
