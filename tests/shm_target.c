// SPDX-License-Identifier: GPL-2.0
/*
 * A region or a memfd at the same address.  See shm_target.h.
 */
#include <errno.h>
#include <fcntl.h>
#include <unistd.h>
#include <sys/mman.h>

#include "mshare_util.h"
#include "shm_target.h"

#define CREATOR_TIMEOUT	30

const char *shm_kind_name(enum shm_kind kind)
{
	return kind == SHM_REGION ? "region" : "memfd";
}

/* The region's creator: the first mapping of a region decides its range. */
static int region_creator(void *arg)
{
	const struct shm_target *t = arg;
	unsigned long *p = shm_target_map(t, PROT_READ | PROT_WRITE);

	if (!p)
		return 1;
	p[0] = 1;
	return 0;
}

static int region_setup(struct shm_target *t)
{
	struct harness_child_result res;
	int fd, err;

	fd = mshare_create(t->name);
	if (fd < 0)
		return fd;
	close(fd);
	err = harness_run_child_timeout(region_creator, t, CREATOR_TIMEOUT,
					&res);
	if (err)
		return err;
	return res.exited && !res.status ? 0 : -EIO;
}

unsigned long shm_target_len(const struct shm_target *t)
{
	return t->kind == SHM_MEMFD && t->memfd_size ? t->memfd_size :
						       mshare_unit();
}

static int memfd_setup(struct shm_target *t)
{
	unsigned long one = 1;

	t->memfd = memfd_create(t->name, MFD_CLOEXEC);
	if (t->memfd < 0)
		return -errno;
	if (ftruncate(t->memfd, shm_target_len(t)) ||
	    pwrite(t->memfd, &one, sizeof(one), 0) != sizeof(one)) {
		close(t->memfd);
		t->memfd = -1;
		return -errno;
	}
	return 0;
}

int shm_target_setup(struct shm_target *t)
{
	t->memfd = -1;
	return t->kind == SHM_REGION ? region_setup(t) : memfd_setup(t);
}

void *shm_target_map(const struct shm_target *t, int prot)
{
	char path[256];
	void *p;
	int fd = t->memfd;

	if (t->kind == SHM_REGION) {
		mshare_path(path, sizeof(path), t->name);
		fd = open(path, (prot & PROT_WRITE ? O_RDWR : O_RDONLY) |
			  O_CLOEXEC);
		if (fd < 0)
			return NULL;
	}
	p = mmap((void *)t->addr, shm_target_len(t), prot,
		 MAP_SHARED | MAP_FIXED, fd, 0);
	if (t->kind == SHM_REGION)
		close(fd);
	return p == MAP_FAILED ? NULL : p;
}

void *shm_target_map_step(const struct shm_target *t, int prot,
			  struct mshare_report *r, const char *step)
{
	void *p;

	mshare_report_step(r, step);
	p = shm_target_map(t, prot);
	if (!p)
		mshare_report_fail(r, errno);
	return p;
}

int shm_target_start_agent(struct mshare_agent *a,
			   const struct shm_target *t, int tag)
{
	int err;

	if (t->kind == SHM_REGION)
		err = mshare_agent_start(a, t->name, t->addr, tag);
	else
		err = mshare_agent_start_memfd(a, t->memfd, t->addr, tag);
	if (err)
		return err;
	return mshare_agent_do(a, t->kind == SHM_REGION ? AGENT_MAP_FOLLOW :
			       AGENT_MAP_MEMFD, shm_target_len(t));
}

int shm_target_teardown(struct shm_target *t)
{
	if (t->kind == SHM_MEMFD)
		return close(t->memfd) ? -errno : 0;
	if (mshare_unlink(t->name))
		return -errno;
	return mshare_dbg_wait_gone(t->name) ? 0 : -EBUSY;
}

long shm_child_outcome(const struct harness_child_result *res)
{
	if (res->timed_out)
		return SHM_CHILD_TIMEOUT;
	if (res->signaled)
		return res->signo;
	return SHM_CHILD_EXIT + res->status;
}
