// SPDX-License-Identifier: GPL-2.0
/*
 * A core dump of a process that maps a region, against a memfd mapping.
 *
 * The dump reads the memory through the dumping process's page tables
 * (get_dump_page()), which for a region are the region's.  Which shared
 * mappings are dumped is coredump_filter's choice: a region is a named
 * file mapped MAP_SHARED, dumped with bit 3 (file-backed shared), not by
 * default; a memfd has no name (i_nlink 0) and counts as anonymous shared
 * memory, bit 1, dumped by default.  That difference is pinned down here.
 */
#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <sys/mman.h>
#include <sys/resource.h>

#include "mshare_util.h"
#include "shm_target.h"

#define CORE_ADDR(slot)	MSHARE_ADDR(16 + (slot))
#define CHILD_TIMEOUT	60
#define CORE_PATTERN	"/proc/sys/kernel/core_pattern"
#define CORE_FILE	"/mshare-core"
#define MAGIC_WORD	(3 * PT_SPAN / sizeof(long))
#define MAGIC		0x65726f632d6d73UL	/* "sm-core" */
/* coredump_filter: the default, and the default plus file-backed shared */
#define FILTER_DEFAULT		"0x33"
#define FILTER_FILE_SHARED	"0x3b"

struct core_case {
	struct shm_target target;
	const char *filter;
	bool want_dumped;
};

/* Map, write the magic word, and dump core */
static int dumping_sharer(void *arg)
{
	struct core_case *c = arg;
	struct rlimit unlimited = { RLIM_INFINITY, RLIM_INFINITY };
	unsigned long *p = shm_target_map(&c->target, PROT_READ | PROT_WRITE);

	if (!p || harness_write_file("/proc/self/coredump_filter", c->filter) ||
	    setrlimit(RLIMIT_CORE, &unlimited))
		return 1;
	p[MAGIC_WORD] = MAGIC;
	signal(SIGABRT, SIG_DFL);
	raise(SIGABRT);
	return 2;
}

/*
 * The word the core file holds for @addr: 0 and *word, -ENOENT if the
 * dump has no bytes for it (not dumped), or -errno.
 */
static int core_word(const char *path, unsigned long addr,
		     unsigned long *word)
{
	Elf64_Ehdr eh;
	Elf64_Phdr ph;
	int fd = open(path, O_RDONLY | O_CLOEXEC), err = -ENOENT;
	unsigned int i;

	if (fd < 0)
		return -errno;
	if (pread(fd, &eh, sizeof(eh), 0) != sizeof(eh) ||
	    memcmp(eh.e_ident, ELFMAG, SELFMAG)) {
		err = -EINVAL;
		goto out;
	}
	for (i = 0; i < eh.e_phnum; i++) {
		if (pread(fd, &ph, sizeof(ph), eh.e_phoff + i * sizeof(ph)) !=
		    sizeof(ph)) {
			err = -EIO;
			break;
		}
		if (ph.p_type != PT_LOAD || addr < ph.p_vaddr ||
		    addr >= ph.p_vaddr + ph.p_memsz)
			continue;
		if (addr + sizeof(*word) > ph.p_vaddr + ph.p_filesz)
			break;	/* in the dump's layout, without its bytes */
		err = pread(fd, word, sizeof(*word),
			    ph.p_offset + addr - ph.p_vaddr) == sizeof(*word) ?
		      0 : -EIO;
		break;
	}
out:
	close(fd);
	return err;
}

static void run_core_case(struct core_case *c)
{
	struct harness_child_result res;
	char old_pattern[256] = "";
	unsigned long word = 0;
	int err;

	CU_ASSERT_EQUAL_FATAL(shm_target_setup(&c->target), 0);
	CU_ASSERT_FATAL(harness_read_file(CORE_PATTERN, old_pattern,
					  sizeof(old_pattern)) >= 0);
	CU_ASSERT_EQUAL_FATAL(harness_write_file(CORE_PATTERN, CORE_FILE), 0);
	unlink(CORE_FILE);
	CU_ASSERT_EQUAL(harness_run_child_timeout(dumping_sharer, c,
						 CHILD_TIMEOUT, &res), 0);
	MSHARE_ASSERT_EQ(shm_child_outcome(&res), SIGABRT);
	err = core_word(CORE_FILE, c->target.addr +
			MAGIC_WORD * sizeof(long), &word);
	if (c->want_dumped) {
		MSHARE_ASSERT_EQ(err, 0);
		MSHARE_ASSERT_EQ(word, MAGIC);
	} else {
		MSHARE_ASSERT_EQ(err, -ENOENT);
	}
	unlink(CORE_FILE);
	harness_write_file(CORE_PATTERN, old_pattern);
	CU_ASSERT_EQUAL(shm_target_teardown(&c->target), 0);
}

/*
 * A memfd of 8 MiB, mapped 8 MiB long: a dump of a shmem mapping faults
 * its holes in, and a GiB of them does not fit in the test kernel; a dump
 * asks every page of the mapping past the file's end too, which for
 * 512 GiB (x86-64) outlasts the child's timeout.  A region's holes are
 * skipped (its vma has no ->fault).
 */
#define MEMFD_SIZE	(4 * PT_SPAN)

#define CORE_TEST(fn, k, slot, filter_text, dumped)			\
static void fn(void)							\
{									\
	struct core_case c = {						\
		.target = { .kind = k, .name = #fn,			\
			    .addr = CORE_ADDR(slot),			\
			    .memfd_size = MEMFD_SIZE },			\
		.filter = filter_text,					\
		.want_dumped = dumped,					\
	};								\
	run_core_case(&c);						\
}

/* The difference: a region is a named shared file mapping */
CORE_TEST(default_filter_region, SHM_REGION, 0, FILTER_DEFAULT, false)
CORE_TEST(default_filter_memfd, SHM_MEMFD, 1, FILTER_DEFAULT, true)
CORE_TEST(file_shared_filter_region, SHM_REGION, 2, FILTER_FILE_SHARED, true)

static const struct harness_test mshare_coredump_tests[] = {
	{ "default_filter_region", default_filter_region },
	{ "default_filter_memfd", default_filter_memfd },
	{ "file_shared_filter_region", file_shared_filter_region },
	{ NULL, NULL },
};

HARNESS_SUITE(mshare_coredump_suite, .name = "mshare_coredump",
	      .tests = mshare_coredump_tests,
	      .requires = harness_requires_msharefs);
