// SPDX-License-Identifier: GPL-2.0
/*
 * A program of a user's own, the kind `make prog` runs inside ./linux: it
 * uses only the mshare v2 API (a file in msharefs, mmap() at an address
 * aligned to what /sys/fs/mshare/mshare_info says) and standard calls.
 * Built on the host like any program (cc -O2 -o region_tour region_tour.c)
 * and run with `make prog PROG=build/examples/region_tour`.
 *
 * Each step prints what it did; the exit status is 0 only if every step
 * saw what a MAP_SHARED memfd would give.  The steps: a second process
 * maps the region and sees the first one's data; a shared futex wakes a
 * waiter in the other process; MADV_PAGEOUT sends the pages to swap and
 * both processes read them back; O_DIRECT writes region memory to the
 * scratch disk and reads it back into another page; unlink, and the
 * region goes with the last mapping.
 */
#define _GNU_SOURCE	/* O_DIRECT */
#include <errno.h>
#include <fcntl.h>
#include <linux/futex.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#define REGION_FILE	"/sys/fs/mshare/region_tour"
#define INFO_FILE	"/sys/fs/mshare/mshare_info"
/* The scratch disk the runner attaches: ./linux's ubd, or qemu's virtio. */
static const char *const scratch_disks[] = { "/dev/ubdb", "/dev/vdb" };
#define PAGES		256
#define PAGE		4096UL

static int failed;

static void check(int ok, const char *what)
{
	printf("%s: %s\n", ok ? "ok" : "FAIL", what);
	if (!ok)
		failed = 1;
}

static long futex(uint32_t *word, int op, uint32_t val)
{
	return syscall(SYS_futex, word, op, val, NULL, NULL, 0);
}

/* The region's alignment, from mshare_info: its addresses must be on it. */
static unsigned long region_alignment(void)
{
	char text[64] = "";
	int fd = open(INFO_FILE, O_RDONLY);

	if (fd < 0 || read(fd, text, sizeof(text) - 1) <= 0) {
		perror(INFO_FILE);
		exit(1);
	}
	close(fd);
	return strtoul(text, NULL, 10);
}

static char *map_region(int fd, unsigned long addr, unsigned long size)
{
	char *p = mmap((void *)addr, size, PROT_READ | PROT_WRITE,
		       MAP_SHARED | MAP_FIXED, fd, 0);

	if (p == MAP_FAILED) {
		perror("mmap of the region");
		exit(1);
	}
	return p;
}

/* The other process: wait on the futex word, then check the pages. */
static int sharer(char *p, uint32_t *word)
{
	unsigned long i;

	while (__atomic_load_n(word, __ATOMIC_ACQUIRE) == 0)
		futex(word, FUTEX_WAIT, 0);
	for (i = 1; i < PAGES; i++)
		if (p[i * PAGE] != (char)i)
			return 1;
	p[0] = 'B';	/* seen by the first process */
	return 0;
}

static void round_trip_through_disk(char *p)
{
	const char *disk = scratch_disks[0];
	int fd;

	if (access(disk, F_OK))
		disk = scratch_disks[1];
	fd = open(disk, O_RDWR | O_DIRECT);
	if (fd < 0) {
		check(0, "open the scratch disk (/dev/ubdb or /dev/vdb) with O_DIRECT");
		return;
	}
	memset(p + 8 * PAGE, 0x5a, PAGE);
	check(pwrite(fd, p + 8 * PAGE, PAGE, 0) == (ssize_t)PAGE,
	      "O_DIRECT write of a region page to the scratch disk");
	memset(p + 9 * PAGE, 0, PAGE);
	check(pread(fd, p + 9 * PAGE, PAGE, 0) == (ssize_t)PAGE &&
	      !memcmp(p + 8 * PAGE, p + 9 * PAGE, PAGE),
	      "O_DIRECT read back into another region page");
	close(fd);
}

int main(void)
{
	unsigned long align = region_alignment(), size = align, i;
	unsigned long addr = 64 * align;
	uint32_t *word;
	int fd, status;
	pid_t pid;
	char *p;

	printf("alignment %lu MiB; region at 0x%lx\n", align >> 20, addr);
	fd = open(REGION_FILE, O_RDWR | O_CREAT | O_EXCL, 0600);
	if (fd < 0) {
		perror(REGION_FILE);
		return 1;
	}
	p = map_region(fd, addr, size);
	word = (uint32_t *)(p + 64);	/* in page 0, next to the reply */
	for (i = 1; i < PAGES; i++)
		p[i * PAGE] = (char)i;
	*word = 0;

	pid = fork();
	if (pid == 0) {
		munmap(p, size);	/* map it afresh, as a stranger would */
		_exit(sharer(map_region(fd, addr, size), word));
	}
	usleep(100000);
	__atomic_store_n(word, 1, __ATOMIC_RELEASE);
	check(futex(word, FUTEX_WAKE, 1) >= 0, "FUTEX_WAKE");
	check(waitpid(pid, &status, 0) == pid && WIFEXITED(status) &&
	      !WEXITSTATUS(status),
	      "the other process mapped the region, woke and saw our pages");
	check(p[0] == 'B', "we see what the other process wrote");

	check(!madvise(p, PAGES * PAGE, MADV_PAGEOUT), "MADV_PAGEOUT");
	for (i = 1; i < PAGES; i++)
		if (p[i * PAGE] != (char)i)
			break;
	check(i == PAGES, "every page reads back after the page-out");

	round_trip_through_disk(p);

	check(!unlink(REGION_FILE), "unlink of the region file");
	close(fd);
	check(!munmap(p, size), "munmap of the last mapping");
	printf("%s\n", failed ? "region_tour: FAIL" : "region_tour: PASS");
	return failed;
}
