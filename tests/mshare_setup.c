// SPDX-License-Identifier: GPL-2.0
/*
 * Setting a region up: the creator maps an msharefs file at an address
 * aligned to mshare_unit(), read() then tells where; another process maps
 * it there.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <sys/mman.h>

#include "mshare_util.h"

#define SETUP_ADDR	MSHARE_ADDR(0)
#define SETUP_SIZE	mshare_unit()

static int child_create_and_read(void *arg)
{
	struct mshare_region_info info = { 0, 0 };
	char path[256];
	void *p;
	int fd;

	mshare_path(path, sizeof(path), arg);
	fd = open(path, O_RDWR | O_CLOEXEC);
	if (fd < 0)
		return AGENT_ERR_OPEN;
	p = mmap((void *)SETUP_ADDR, SETUP_SIZE, PROT_READ | PROT_WRITE,
		 MAP_SHARED | MAP_FIXED, fd, 0);
	if (p != (void *)SETUP_ADDR)
		return AGENT_ERR_MMAP;
	if (mshare_read_info(fd, &info))
		return AGENT_ERR_READ;
	close(fd);
	if (info.start != SETUP_ADDR || info.size != SETUP_SIZE)
		return AGENT_ERR_INFO;
	*(volatile unsigned long *)p = 0x1234;
	if (*(volatile unsigned long *)p != 0x1234)
		return AGENT_ERR_CHECK;
	return 0;
}

/* The creator maps, read() returns {start, size}, the memory works. */
static void test_creator_maps(void)
{
	struct harness_child_result res;
	struct mshare_region_info info;
	int fd = mshare_create("setup_creator");

	CU_ASSERT_FATAL(fd >= 0);
	CU_ASSERT_EQUAL(harness_run_child(child_create_and_read,
					  "setup_creator", &res), 0);
	CU_ASSERT_TRUE(res.exited);
	CU_ASSERT_EQUAL(res.status, 0);
	/* The region outlives its creator's mapping: same answer here. */
	CU_ASSERT_EQUAL(mshare_read_info(fd, &info), 0);
	CU_ASSERT_EQUAL(info.start, SETUP_ADDR);
	CU_ASSERT_EQUAL(info.size, SETUP_SIZE);
	close(fd);
	CU_ASSERT_EQUAL(mshare_unlink("setup_creator"), 0);
	CU_ASSERT_TRUE(mshare_dbg_wait_gone("setup_creator"));
}

/*
 * A second process reads {start, size} and maps there, and sees what the
 * creator wrote; the creator sees what it writes.
 */
static void test_second_process_maps(void)
{
	struct mshare_agent creator, second;
	int fd = mshare_create("setup_second");

	CU_ASSERT_FATAL(fd >= 0);
	close(fd);
	CU_ASSERT_EQUAL_FATAL(mshare_agent_start(&creator, "setup_second",
						 SETUP_ADDR, 1), 0);
	CU_ASSERT_EQUAL(mshare_agent_do(&creator, AGENT_MAP_CREATE,
					SETUP_SIZE), 0);
	CU_ASSERT_EQUAL(mshare_agent_do(&creator, AGENT_WRITE, 0), 0);
	CU_ASSERT_EQUAL_FATAL(mshare_agent_start(&second, "setup_second",
						 SETUP_ADDR, 1), 0);
	CU_ASSERT_EQUAL(mshare_agent_do(&second, AGENT_MAP_FOLLOW, 0), 0);
	/* Tag 1 for both: each checks the other's writes. */
	CU_ASSERT_EQUAL(mshare_agent_do(&second, AGENT_CHECK, 0), 0);
	CU_ASSERT_EQUAL(mshare_agent_do(&second, AGENT_WRITE, 64 * PAGE), 0);
	CU_ASSERT_EQUAL(mshare_agent_do(&creator, AGENT_CHECK, 64 * PAGE), 0);
	CU_ASSERT_EQUAL(mshare_agent_stop(&second), 0);
	CU_ASSERT_EQUAL(mshare_agent_stop(&creator), 0);
	CU_ASSERT_EQUAL(mshare_unlink("setup_second"), 0);
	CU_ASSERT_TRUE(mshare_dbg_wait_gone("setup_second"));
}

static const struct harness_test mshare_setup_tests[] = {
	{ "creator_maps", test_creator_maps },
	{ "second_process_maps", test_second_process_maps },
	{ NULL, NULL },
};

HARNESS_SUITE(mshare_setup_suite, .name = "mshare_setup",
	      .tests = mshare_setup_tests,
	      .requires = harness_requires_msharefs);
