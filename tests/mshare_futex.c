// SPDX-License-Identifier: GPL-2.0
/*
 * Process-shared futexes in a region connect the processes that map it,
 * as in a MAP_SHARED memfd mapping: a FUTEX_WAKE in one wakes a waiter in
 * another, pthread process-shared mutexes hand over between them (and a
 * robust one reports its holder's death), and a read-only sharer may
 * wait.  A region's pages are anonymous pages of the region's mm, and a
 * futex key made of one sharer's own mm (the key of a futex in private
 * anonymous memory) connects no two processes.
 */
#include <errno.h>
#include <limits.h>
#include <pthread.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <linux/futex.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/wait.h>

#include "mshare_util.h"
#include "shm_target.h"

#define FUTEX_ADDR(slot)	MSHARE_ADDR(94 + (slot))
#define CHILD_TIMEOUT		30
/* How long a waiter waits, and a waker keeps trying, before failing */
#define WAIT_SECONDS		10
/* Words used: offset 0 holds 1 (shm_target_setup()), the rest 0. */
#define WORD_WRITTEN		0
#define WORD_FUTEX		(3 * PAGE / sizeof(long))
#define WORD_UNTOUCHED		(5 * PT_SPAN / sizeof(long))

struct futex_case {
	struct shm_target target;
	struct mshare_report *report;
};

static long futex(void *uaddr, int op, unsigned int val,
		  const struct timespec *timeout)
{
	return syscall(SYS_futex, uaddr, op, val, timeout, NULL, 0);
}

/* FUTEX_WAIT (shared) on a word that holds 0, until woken */
static int futex_waiter(void *arg)
{
	struct futex_case *c = arg;
	struct mshare_report *r = c->report;
	struct timespec ts = { .tv_sec = WAIT_SECONDS };
	unsigned long *p;

	p = shm_target_map_step(&c->target, PROT_READ | PROT_WRITE, r,
				 "waiter: map");
	if (!p)
		return 1;
	mshare_report_step(r, "waiter: FUTEX_WAIT");
	if (futex(&p[WORD_FUTEX], FUTEX_WAIT, 0, &ts))
		return mshare_report_fail(r, errno);
	return mshare_report_done(r);
}

/* FUTEX_WAKE (shared) until it wakes someone: the count, or -errno */
static long futex_waker(const struct shm_target *t)
{
	unsigned long *p = shm_target_map(t, PROT_READ | PROT_WRITE);
	long woken = 0;
	int tries;

	if (!p)
		return -errno;
	for (tries = 0; tries < WAIT_SECONDS * 20 && !woken; tries++) {
		usleep(50000);
		woken = futex(&p[WORD_FUTEX], FUTEX_WAKE, INT_MAX, NULL);
		if (woken < 0)
			woken = -errno;
	}
	munmap(p, mshare_unit());
	return woken;
}

static int waker_child(void *arg)
{
	return futex_waker(arg) == 1 ? 0 : 1;
}

/* One sharer waits, another wakes it: exactly one woken, waiter done. */
static void run_wake_case(struct futex_case *c)
{
	struct harness_child_result wres, kres;
	pid_t waiter;

	c->report = mshare_report_new();
	CU_ASSERT_PTR_NOT_NULL_FATAL(c->report);
	CU_ASSERT_EQUAL_FATAL(shm_target_setup(&c->target), 0);
	waiter = harness_start_child(futex_waiter, c);
	CU_ASSERT_FATAL(waiter > 0);
	CU_ASSERT_EQUAL(harness_run_child_timeout(waker_child, &c->target,
						 CHILD_TIMEOUT, &kres), 0);
	MSHARE_ASSERT_EQ(shm_child_outcome(&kres), SHM_CHILD_EXIT + 0);
	CU_ASSERT_EQUAL(harness_wait_child_timeout(waiter, CHILD_TIMEOUT,
						  &wres), 0);
	MSHARE_ASSERT_CHILD(&wres, c->report, NULL, 0);
	CU_ASSERT_EQUAL(shm_target_teardown(&c->target), 0);
	mshare_report_free(c->report);
}

/* A process-shared mutex in the memory, initialised by the test */
struct shared_lock {
	pthread_mutex_t mutex;
	unsigned long handed_over;
};

#define LOCK_WORD	(7 * PAGE / sizeof(long))

static struct shared_lock *lock_in(unsigned long *p)
{
	return (struct shared_lock *)&p[LOCK_WORD];
}

static int mutex_init_child(void *arg)
{
	unsigned long *p = shm_target_map(arg, PROT_READ | PROT_WRITE);
	pthread_mutexattr_t attr;

	if (!p || pthread_mutexattr_init(&attr) ||
	    pthread_mutexattr_setpshared(&attr, PTHREAD_PROCESS_SHARED) ||
	    pthread_mutex_init(&lock_in(p)->mutex, &attr))
		return 1;
	return 0;
}

/*
 * The holder takes the mutex, lets the contender block on it, and
 * unlocks: the unlock's FUTEX_WAKE must reach the contender's FUTEX_WAIT.
 */
static int mutex_holder(void *arg)
{
	struct futex_case *c = arg;
	struct mshare_report *r = c->report;
	unsigned long *p = shm_target_map(&c->target, PROT_READ | PROT_WRITE);
	struct shared_lock *l;
	pid_t contender;
	struct harness_child_result res;

	mshare_report_step(r, "holder: map and lock");
	if (!p || pthread_mutex_lock(&lock_in(p)->mutex))
		return mshare_report_fail(r, errno);
	l = lock_in(p);
	mshare_report_step(r, "holder: start the contender");
	contender = fork();
	if (contender < 0)
		return mshare_report_fail(r, errno);
	if (contender == 0) {
		/* The contender: blocks, then takes it over. */
		if (pthread_mutex_lock(&l->mutex))
			_exit(2);
		l->handed_over = 1;
		pthread_mutex_unlock(&l->mutex);
		_exit(0);
	}
	usleep(300000);	/* long enough for the contender to block */
	mshare_report_step(r, "holder: unlock");
	if (pthread_mutex_unlock(&l->mutex))
		return mshare_report_fail(r, errno);
	mshare_report_step(r, "holder: contender took it over");
	if (harness_wait_child_timeout(contender, WAIT_SECONDS, &res) ||
	    !res.exited || res.status || !l->handed_over)
		return mshare_report_fail(r, res.timed_out ? ETIMEDOUT :
					  MSHARE_ERR_VALUE);
	return mshare_report_done(r);
}

static void run_mutex_case(struct futex_case *c)
{
	struct harness_child_result res;

	c->report = mshare_report_new();
	CU_ASSERT_PTR_NOT_NULL_FATAL(c->report);
	CU_ASSERT_EQUAL_FATAL(shm_target_setup(&c->target), 0);
	CU_ASSERT_EQUAL(harness_run_child_timeout(mutex_init_child, &c->target,
						 CHILD_TIMEOUT, &res), 0);
	MSHARE_ASSERT_EQ(shm_child_outcome(&res), SHM_CHILD_EXIT + 0);
	CU_ASSERT_EQUAL(harness_run_child_timeout(mutex_holder, c,
						 CHILD_TIMEOUT, &res), 0);
	MSHARE_ASSERT_CHILD(&res, c->report, NULL, 0);
	CU_ASSERT_EQUAL(shm_target_teardown(&c->target), 0);
	mshare_report_free(c->report);
}

/*
 * A robust process-shared mutex: its holder exits holding it, while
 * another process is blocked on it.  The kernel's robust-list walk at the
 * holder's exit marks it OWNER_DIED and wakes that waiter (a FUTEX_WAKE
 * keyed from the dying process), which gets EOWNERDEAD.
 */
static int robust_init_child(void *arg)
{
	unsigned long *p = shm_target_map(arg, PROT_READ | PROT_WRITE);
	pthread_mutexattr_t attr;

	if (!p || pthread_mutexattr_init(&attr) ||
	    pthread_mutexattr_setpshared(&attr, PTHREAD_PROCESS_SHARED) ||
	    pthread_mutexattr_setrobust(&attr, PTHREAD_MUTEX_ROBUST) ||
	    pthread_mutex_init(&lock_in(p)->mutex, &attr))
		return 1;
	return 0;
}

#define HOLD_US		600000	/* the holder's life with the mutex */
#define BLOCK_US	200000	/* when the contender starts to wait */

static int dying_holder(void *arg)
{
	unsigned long *p = shm_target_map(arg, PROT_READ | PROT_WRITE);

	if (!p || pthread_mutex_lock(&lock_in(p)->mutex))
		return 1;
	usleep(HOLD_US);
	return 0;	/* exits holding the mutex */
}

static int robust_contender(void *arg)
{
	struct futex_case *c = arg;
	struct mshare_report *r = c->report;
	unsigned long *p;
	int err;

	p = shm_target_map_step(&c->target, PROT_READ | PROT_WRITE, r,
				 "contender: map");
	if (!p)
		return 1;
	mshare_report_step(r, "contender: lock, owner dies");
	err = pthread_mutex_lock(&lock_in(p)->mutex);
	if (err != EOWNERDEAD)
		return mshare_report_fail(r, err ? err : MSHARE_ERR_VALUE);
	mshare_report_step(r, "contender: make it consistent");
	if (pthread_mutex_consistent(&lock_in(p)->mutex) ||
	    pthread_mutex_unlock(&lock_in(p)->mutex))
		return mshare_report_fail(r, errno);
	return mshare_report_done(r);
}

static void run_robust_case(struct futex_case *c)
{
	struct harness_child_result res;
	pid_t holder;

	c->report = mshare_report_new();
	CU_ASSERT_PTR_NOT_NULL_FATAL(c->report);
	CU_ASSERT_EQUAL_FATAL(shm_target_setup(&c->target), 0);
	CU_ASSERT_EQUAL(harness_run_child_timeout(robust_init_child,
						 &c->target, CHILD_TIMEOUT,
						 &res), 0);
	MSHARE_ASSERT_EQ(shm_child_outcome(&res), SHM_CHILD_EXIT + 0);
	holder = harness_start_child(dying_holder, &c->target);
	CU_ASSERT_FATAL(holder > 0);
	usleep(BLOCK_US);
	CU_ASSERT_EQUAL(harness_run_child_timeout(robust_contender, c,
						 CHILD_TIMEOUT, &res), 0);
	MSHARE_ASSERT_CHILD(&res, c->report, NULL, 0);
	CU_ASSERT_EQUAL(harness_wait_child_timeout(holder, CHILD_TIMEOUT,
						  &res), 0);
	MSHARE_ASSERT_EQ(shm_child_outcome(&res), SHM_CHILD_EXIT + 0);
	CU_ASSERT_EQUAL(shm_target_teardown(&c->target), 0);
	mshare_report_free(c->report);
}

/*
 * A read-only sharer's FUTEX_WAIT: EAGAIN on a word that holds another
 * value, ETIMEDOUT on an untouched word that holds the value (read as
 * the zero page in a region): the futex has a key, as in shmem.
 */
static int read_only_waiter(void *arg)
{
	struct futex_case *c = arg;
	struct mshare_report *r = c->report;
	struct timespec ts = { .tv_nsec = 100 * 1000 * 1000 };
	unsigned long *p;

	p = shm_target_map_step(&c->target, PROT_READ, r, "map read-only");
	if (!p)
		return 1;
	mshare_report_step(r, "FUTEX_WAIT, the word changed");
	if (!futex(&p[WORD_WRITTEN], FUTEX_WAIT, 0, &ts) || errno != EAGAIN)
		return mshare_report_fail(r, errno);
	mshare_report_step(r, "FUTEX_WAIT on an untouched word");
	if (!futex(&p[WORD_UNTOUCHED], FUTEX_WAIT, 0, &ts) ||
	    errno != ETIMEDOUT)
		return mshare_report_fail(r, errno);
	mshare_report_step(r, "FUTEX_WAKE");
	if (futex(&p[WORD_UNTOUCHED], FUTEX_WAKE, 1, NULL))
		return mshare_report_fail(r, errno ? errno : MSHARE_ERR_VALUE);
	return mshare_report_done(r);
}

static void run_read_only_case(struct futex_case *c)
{
	struct harness_child_result res;

	c->report = mshare_report_new();
	CU_ASSERT_PTR_NOT_NULL_FATAL(c->report);
	CU_ASSERT_EQUAL_FATAL(shm_target_setup(&c->target), 0);
	CU_ASSERT_EQUAL(harness_run_child_timeout(read_only_waiter, c,
						 CHILD_TIMEOUT, &res), 0);
	MSHARE_ASSERT_CHILD(&res, c->report, NULL, 0);
	CU_ASSERT_EQUAL(shm_target_teardown(&c->target), 0);
	mshare_report_free(c->report);
}

#define FUTEX_TEST(fn, k, slot, run)					\
static void fn(void)							\
{									\
	struct futex_case c = {						\
		.target = { .kind = k, .name = #fn,			\
			    .addr = FUTEX_ADDR(slot) },		\
	};								\
	run(&c);							\
}

FUTEX_TEST(wake_between_sharers_region, SHM_REGION, 0, run_wake_case)
FUTEX_TEST(wake_between_sharers_memfd, SHM_MEMFD, 1, run_wake_case)
FUTEX_TEST(pshared_mutex_region, SHM_REGION, 2, run_mutex_case)
FUTEX_TEST(pshared_mutex_memfd, SHM_MEMFD, 3, run_mutex_case)
FUTEX_TEST(read_only_wait_region, SHM_REGION, 4, run_read_only_case)
FUTEX_TEST(read_only_wait_memfd, SHM_MEMFD, 5, run_read_only_case)
FUTEX_TEST(robust_owner_dies_region, SHM_REGION, 0, run_robust_case)
FUTEX_TEST(robust_owner_dies_memfd, SHM_MEMFD, 1, run_robust_case)

/*
 * A waiter whose mapping goes away while it sleeps in FUTEX_WAIT: its own
 * process munmaps the mapping, unlinks the region (the memfd control: the
 * waiter's process closes its descriptor; a memfd has no name), or the
 * process that created the memory and mapped it first exits.  The futex
 * key was taken when the waiter queued (the region's mm and address; the
 * memfd's inode and offset), so the waiter still wakes as it would have:
 * by a FUTEX_WAKE of another sharer, by a signal (EINTR) or at its
 * timeout (ETIMEDOUT).  The teardown's wait for the region to be freed,
 * and kmemleak at the end of the run, see a reference left behind.
 *
 * The processes: the creator C makes the memory and maps it; it forks the
 * waiting process P, which forks the waker K (a sharer through the
 * mapping it inherits) and starts the waiting thread W.
 */
/* GONE_ALL: all three, and the waker exits: the region is freed under W */
enum gone_event { GONE_MUNMAP, GONE_UNLINK, GONE_CREATOR_EXIT, GONE_ALL };
enum gone_end { END_WAKE, END_SIGNAL, END_TIMEOUT };

struct gone_case {
	struct shm_target target;
	enum gone_event event;
	enum gone_end end;
	struct gone_shared {
		struct mshare_report report;
		pid_t waiter_pid;	/* P, reaped by the test */
		long wait_ret;		/* W's FUTEX_WAIT: 0 or -errno */
		int creator_go;		/* futex: C may exit */
	} *sh;
};

#define GONE_TIMEOUT_MS	3000

struct gone_wait {
	unsigned long *word;
	struct timespec ts;
	long ret;
	pid_t tid;
	int started;
};

static void *gone_wait_thread(void *arg)
{
	struct gone_wait *w = arg;

	w->tid = gettid();
	__atomic_store_n(&w->started, 1, __ATOMIC_SEQ_CST);
	w->ret = futex(w->word, FUTEX_WAIT, 0, &w->ts) ? -errno : 0;
	return NULL;
}

/* Has thread @tid gone to sleep (state S in its stat)? */
static bool thread_sleeping(pid_t tid)
{
	char path[64], buf[256], *p;

	snprintf(path, sizeof(path), "/proc/self/task/%d/stat", tid);
	if (harness_read_file(path, buf, sizeof(buf)) <= 0)
		return false;
	p = strrchr(buf, ')');
	return p && p[1] == ' ' && p[2] == 'S';
}

static void gone_sigusr1(int sig)
{
	(void)sig;
}

/* K: wakes the word once P says so, through its own (inherited) mapping */
static int gone_waker(unsigned long *word, int go_fd)
{
	char cmd;
	long woken = 0;
	int tries;

	if (read(go_fd, &cmd, 1) != 1)
		return 2;
	if (cmd != 'w')
		return 0;
	for (tries = 0; tries < WAIT_SECONDS * 20 && woken != 1; tries++) {
		woken = futex(word, FUTEX_WAKE, INT_MAX, NULL);
		if (woken < 0)
			return 3;
		if (!woken)
			usleep(50000);
	}
	return woken == 1 ? 0 : 4;
}

/* P: the waiting process */
static int gone_waiter(struct gone_case *c, unsigned long *p)
{
	struct mshare_report *r = &c->sh->report;
	struct gone_wait w = { .word = &p[WORD_FUTEX] };
	struct sigaction sa = { .sa_handler = gone_sigusr1 };
	struct harness_child_result res;
	pid_t waker, creator = getppid();
	pthread_t thread;
	int go[2], i;
	char cmd;

	mshare_report_step(r, "start the waker");
	if (pipe(go))
		return mshare_report_fail(r, errno);
	waker = fork();
	if (waker < 0)
		return mshare_report_fail(r, errno);
	if (!waker) {
		close(go[1]);
		_exit(gone_waker(&p[WORD_FUTEX], go[0]));
	}
	close(go[0]);

	mshare_report_step(r, "FUTEX_WAIT in a thread");
	if (c->end == END_TIMEOUT) {
		w.ts.tv_sec = GONE_TIMEOUT_MS / 1000;
		w.ts.tv_nsec = GONE_TIMEOUT_MS % 1000 * 1000000L;
	} else
		w.ts.tv_sec = WAIT_SECONDS;
	if (sigaction(SIGUSR1, &sa, NULL) ||
	    pthread_create(&thread, NULL, gone_wait_thread, &w))
		return mshare_report_fail(r, errno);
	/* Until W sleeps in FUTEX_WAIT (its only blocking call) */
	for (i = 0; i < 1000; i++) {
		if (__atomic_load_n(&w.started, __ATOMIC_SEQ_CST) &&
		    thread_sleeping(w.tid))
			break;
		usleep(1000);
	}

	switch (c->event) {
	case GONE_MUNMAP:
		mshare_report_step(r, "munmap the waiter's mapping");
		if (munmap(p, mshare_unit()))
			return mshare_report_fail(r, errno);
		break;
	case GONE_UNLINK:
		mshare_report_step(r, "unlink (memfd: close)");
		if (c->target.kind == SHM_REGION ?
		    mshare_unlink(c->target.name) : close(c->target.memfd))
			return mshare_report_fail(r, errno);
		break;
	case GONE_ALL:
		mshare_report_step(r, "the waker exits");
		cmd = 'x';
		if (write(go[1], &cmd, 1) != 1 ||
		    harness_wait_child_timeout(waker, WAIT_SECONDS, &res) ||
		    !res.exited || res.status)
			return mshare_report_fail(r, MSHARE_ERR_VALUE);
		waker = 0;
		/* fall through */
	case GONE_CREATOR_EXIT:
		mshare_report_step(r, "the creator exits");
		__atomic_store_n(&c->sh->creator_go, 1, __ATOMIC_SEQ_CST);
		futex(&c->sh->creator_go, FUTEX_WAKE, 1, NULL);
		/* Reparented once C is gone */
		for (i = 0; i < 5000 && getppid() == creator; i++)
			usleep(1000);
		if (getppid() == creator)
			return mshare_report_fail(r, ETIMEDOUT);
		if (c->event != GONE_ALL)
			break;
		mshare_report_step(r, "unlink (memfd: close), munmap");
		if ((c->target.kind == SHM_REGION ?
		     mshare_unlink(c->target.name) : close(c->target.memfd)) ||
		    munmap(p, mshare_unit()))
			return mshare_report_fail(r, errno);
		mshare_report_step(r, "the region is freed");
		if (c->target.kind == SHM_REGION &&
		    !mshare_dbg_wait_gone(c->target.name))
			return mshare_report_fail(r, EBUSY);
		break;
	}
	if (!thread_sleeping(w.tid))
		return mshare_report_fail(r, MSHARE_ERR_VALUE);

	mshare_report_step(r, "the waiter wakes");
	cmd = c->end == END_WAKE ? 'w' : 'x';
	if (waker && write(go[1], &cmd, 1) != 1)
		return mshare_report_fail(r, errno);
	if (c->end == END_SIGNAL && pthread_kill(thread, SIGUSR1))
		return mshare_report_fail(r, errno);
	pthread_join(thread, NULL);
	c->sh->wait_ret = w.ret;
	mshare_report_step(r, "the waker");
	if (waker && (harness_wait_child_timeout(waker, WAIT_SECONDS * 2,
						 &res) ||
		      !res.exited || res.status))
		return mshare_report_fail(r, MSHARE_ERR_VALUE);
	return mshare_report_done(r);
}

/* C: makes the memory, maps it first, forks P */
static int gone_creator(void *arg)
{
	struct gone_case *c = arg;
	struct mshare_report *r = &c->sh->report;
	struct shm_target *t = &c->target;
	unsigned long *p;
	int fd, status;
	pid_t waiter;

	mshare_report_step(r, "create");
	if (t->kind == SHM_REGION) {
		fd = mshare_create(t->name);
		if (fd < 0)
			return mshare_report_fail(r, -fd);
		close(fd);
	} else {
		t->memfd = memfd_create(t->name, MFD_CLOEXEC);
		if (t->memfd < 0 || ftruncate(t->memfd, mshare_unit()))
			return mshare_report_fail(r, errno);
	}
	p = shm_target_map_step(t, PROT_READ | PROT_WRITE, r, "first map");
	if (!p)
		return 1;
	p[0] = 1;
	waiter = fork();
	if (waiter < 0)
		return mshare_report_fail(r, errno);
	if (!waiter)
		_exit(gone_waiter(c, p));
	c->sh->waiter_pid = waiter;
	if (c->event == GONE_CREATOR_EXIT || c->event == GONE_ALL) {
		while (!__atomic_load_n(&c->sh->creator_go, __ATOMIC_SEQ_CST))
			futex(&c->sh->creator_go, FUTEX_WAIT, 0, NULL);
		return 0;
	}
	if (waitpid(waiter, &status, 0) != waiter)
		return 1;
	c->sh->waiter_pid = 0;
	return WIFEXITED(status) ? WEXITSTATUS(status) : 1;
}

static void run_gone_case(struct gone_case *c)
{
	static const long want[] = {
		[END_WAKE] = 0, [END_SIGNAL] = -EINTR,
		[END_TIMEOUT] = -ETIMEDOUT,
	};
	struct harness_child_result res;
	int subreaper = 0;

	c->sh = mmap(NULL, sizeof(*c->sh), PROT_READ | PROT_WRITE,
		     MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	CU_ASSERT_FATAL(c->sh != MAP_FAILED);
	c->sh->wait_ret = 1;
	/* P outlives C when the creator exits: reap it here */
	CU_ASSERT_EQUAL_FATAL(prctl(PR_GET_CHILD_SUBREAPER, &subreaper), 0);
	CU_ASSERT_EQUAL_FATAL(prctl(PR_SET_CHILD_SUBREAPER, 1), 0);
	CU_ASSERT_EQUAL(harness_run_child_timeout(gone_creator, c,
						 CHILD_TIMEOUT, &res), 0);
	MSHARE_ASSERT_EQ(shm_child_outcome(&res), SHM_CHILD_EXIT + 0);
	if (c->sh->waiter_pid > 0) {
		CU_ASSERT_EQUAL(harness_wait_child_timeout(c->sh->waiter_pid,
							  CHILD_TIMEOUT,
							  &res), 0);
		MSHARE_ASSERT_EQ(shm_child_outcome(&res), SHM_CHILD_EXIT + 0);
	}
	MSHARE_ASSERT_CHILD(&res, &c->sh->report, NULL, 0);
	MSHARE_ASSERT_EQ(c->sh->wait_ret, want[c->end]);
	prctl(PR_SET_CHILD_SUBREAPER, subreaper);
	if (c->target.kind == SHM_REGION) {
		if (c->event != GONE_UNLINK && c->event != GONE_ALL)
			MSHARE_ASSERT_ERRNO(mshare_unlink(c->target.name), 0);
		CU_ASSERT(mshare_dbg_wait_gone(c->target.name));
	}
	munmap(c->sh, sizeof(*c->sh));
}

#define GONE_TEST(test, slot, ev, e)					\
static void run_##test(struct gone_case *c)				\
{									\
	c->event = ev;							\
	c->end = e;							\
	run_gone_case(c);						\
}									\
SHM_TEST_PAIR(struct gone_case, test, run_##test, FUTEX_ADDR(slot),	\
	      FUTEX_ADDR(slot + 1))

GONE_TEST(munmap_then_wake, 6, GONE_MUNMAP, END_WAKE)
GONE_TEST(munmap_then_signal, 8, GONE_MUNMAP, END_SIGNAL)
GONE_TEST(munmap_then_timeout, 10, GONE_MUNMAP, END_TIMEOUT)
GONE_TEST(unlink_then_wake, 12, GONE_UNLINK, END_WAKE)
GONE_TEST(creator_exit_then_wake, 14, GONE_CREATOR_EXIT, END_WAKE)
GONE_TEST(region_freed_then_timeout, 16, GONE_ALL, END_TIMEOUT)

static const struct harness_test mshare_futex_tests[] = {
	{ "wake_between_sharers_region", wake_between_sharers_region },
	{ "wake_between_sharers_memfd", wake_between_sharers_memfd },
	{ "pshared_mutex_region", pshared_mutex_region },
	{ "pshared_mutex_memfd", pshared_mutex_memfd },
	{ "read_only_wait_region", read_only_wait_region },
	{ "read_only_wait_memfd", read_only_wait_memfd },
	{ "robust_owner_dies_region", robust_owner_dies_region },
	{ "robust_owner_dies_memfd", robust_owner_dies_memfd },
	{ "munmap_then_wake_region", munmap_then_wake_region },
	{ "munmap_then_wake_memfd", munmap_then_wake_memfd },
	{ "munmap_then_signal_region", munmap_then_signal_region },
	{ "munmap_then_signal_memfd", munmap_then_signal_memfd },
	{ "munmap_then_timeout_region", munmap_then_timeout_region },
	{ "munmap_then_timeout_memfd", munmap_then_timeout_memfd },
	{ "unlink_then_wake_region", unlink_then_wake_region },
	{ "unlink_then_wake_memfd", unlink_then_wake_memfd },
	{ "creator_exit_then_wake_region", creator_exit_then_wake_region },
	{ "creator_exit_then_wake_memfd", creator_exit_then_wake_memfd },
	{ "region_freed_then_timeout_region",
	  region_freed_then_timeout_region },
	{ "region_freed_then_timeout_memfd", region_freed_then_timeout_memfd },
	{ NULL, NULL },
};

HARNESS_SUITE(mshare_futex_suite, .name = "mshare_futex",
	      .tests = mshare_futex_tests,
	      .requires = harness_requires_msharefs);
