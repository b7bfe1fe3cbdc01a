#!/usr/bin/env python3
"""Say whether this host can run a KVM guest, in two steps:

1. /dev/kvm opens, speaks API 12 and creates a VM (KVM_CREATE_VM): where a
   /dev/kvm that cannot be used (no permission, KVM off) fails;
2. with --kernel, qemu boots that kernel with the accelerator and CPU
   options given after "--" until it prints "Linux version" (start_kernel,
   after the decompressor), within --seconds: where a /dev/kvm that creates
   VMs still cannot run one fails.  Seen on a nested host (AMD EPYC, no
   svm flag in the guest): "-cpu host" made qemu abort setting MSR 0x10a,
   and without that MSR the decompressor had not finished after 120 s,
   where TCG boots to /init in 11 s.

The boot takes a second where KVM works; its verdict is kept in --cache
for this boot of the host (/proc/sys/kernel/random/boot_id) and this qemu,
so that the runs of one `make test` probe once.

Prints one line, "kvm: <how>" or "tcg: <why>", and exits 0 for kvm, 1 for
tcg.

usage: kvm-probe.py [--kernel BZIMAGE [--seconds N] [--cache FILE]
                    -- QEMU_ACCEL_OPTIONS...]
"""
import argparse
import errno
import fcntl
import os
import selectors
import signal
import subprocess
import sys
import time

KVM_GET_API_VERSION = 0xAE00	# _IO(KVMIO, 0x00)
KVM_CREATE_VM = 0xAE01		# _IO(KVMIO, 0x01)
KVM_API_VERSION = 12
QEMU = 'qemu-system-x86_64'
# The first line start_kernel() prints: the guest ran the decompressor.
BOOTED = b'Linux version'


def probe_device(path='/dev/kvm'):
	"""None if PATH can create a VM, else why not."""
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


def last_line(data):
	lines = data.decode(errors='replace').strip().splitlines()
	return lines[-1] if lines else 'nothing'


def how_it_ended(returncode):
	if returncode < 0:
		return 'was killed by %s' % signal.Signals(-returncode).name
	return 'exited %d' % returncode


def probe_boot(kernel, accel, seconds):
	"""(True, how) if KERNEL under qemu ACCEL reached start_kernel in time."""
	cmd = [QEMU] + accel + ['-smp', '1', '-m', '256', '-kernel', kernel,
				'-display', 'none', '-monitor', 'none', '-serial', 'stdio',
				'-nic', 'none', '-no-reboot',
				'-append', 'console=ttyS0 panic=-1']
	start = time.monotonic()
	qemu = subprocess.Popen(cmd, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
				stderr=subprocess.STDOUT)
	sel = selectors.DefaultSelector()
	sel.register(qemu.stdout, selectors.EVENT_READ)
	out = b''
	try:
		while BOOTED not in out:
			left = start + seconds - time.monotonic()
			if left <= 0 or not sel.select(left):
				return False, ('a KVM guest (%s) did not reach start_kernel in %d s '
					       '(last output: %s)' % (' '.join(accel), seconds,
								 last_line(out)))
			chunk = os.read(qemu.stdout.fileno(), 4096)
			if not chunk:
				return False, ('qemu %s %s before start_kernel: %s' %
					       (' '.join(accel), how_it_ended(qemu.wait()),
						last_line(out)))
			out += chunk
	finally:
		qemu.kill()
		qemu.wait()
	return True, 'a guest reached start_kernel in %.1f s' % (time.monotonic() - start)


def cache_key(accel):
	"""The host's boot, qemu's version and the accelerator options: a
	verdict for -cpu host,la57=off says nothing of la57=on."""
	with open('/proc/sys/kernel/random/boot_id') as f:
		boot_id = f.read().strip()
	version = subprocess.run([QEMU, '--version'], capture_output=True,
				 text=True).stdout.splitlines()
	return '%s %s %s' % (boot_id, version[0] if version else QEMU,
			     ' '.join(accel))


def cached_boot_probe(args):
	"""probe_boot(), through the cache when one is named."""
	key = cache_key(args.accel) if args.cache else None
	if key:
		try:
			with open(args.cache) as f:
				saved_key, ok, how = f.read().rstrip('\n').split('\t')
			if saved_key == key:
				return ok == 'kvm', how + ' (probed earlier in this boot)'
		except (OSError, ValueError):
			pass
	ok, how = probe_boot(args.kernel, args.accel, args.seconds)
	if key:
		os.makedirs(os.path.dirname(os.path.abspath(args.cache)), exist_ok=True)
		with open(args.cache, 'w') as f:
			f.write('%s\t%s\t%s\n' % (key, 'kvm' if ok else 'tcg', how))
	return ok, how


def main():
	parser = argparse.ArgumentParser(description='Can this host run a KVM guest?')
	parser.add_argument('--kernel', help='boot this bzImage to start_kernel under KVM')
	parser.add_argument('--seconds', type=int, default=15,
			    help='how long the boot may take (default 15)')
	parser.add_argument('--cache', help='keep the boot probe\'s verdict here')
	parser.add_argument('accel', nargs='*', help='qemu options after "--"')
	args = parser.parse_args()
	if args.kernel and not args.accel:
		parser.error('--kernel wants the accelerator options after "--"')

	why = probe_device()
	if why:
		print('tcg: ' + why)
		return 1
	if not args.kernel:
		print('kvm: /dev/kvm creates VMs')
		return 0
	ok, how = cached_boot_probe(args)
	print(('kvm: ' if ok else 'tcg: ') + how)
	return 0 if ok else 1


if __name__ == '__main__':
	sys.exit(main())
