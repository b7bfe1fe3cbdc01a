// SPDX-License-Identifier: GPL-2.0
/*
 * UML's own: a console whose host input reaches end of file.  UML finds
 * that in its SIGIO handler, hangs the tty up, closes the channel and
 * leaves the channel's IRQs to be freed later, because free_irq() must
 * not run in an interrupt handler.  "Later" was the end of that same
 * SIGIO handler, with preemption disabled on top of whatever it had
 * interrupted: free_irq() takes a mutex there ("BUG: sleeping function
 * called from invalid context"), and lockdep may see the channel list's
 * spinlock_t taken inside the interrupted task's RCU-sched section
 * ("Invalid wait context").  The fuzzer met the second under fault
 * injection.  The kernel log is the verdict: the harness fails the test
 * on either report.
 *
 * The runner (uml/run-linux.sh) gives /dev/tty1 such an input: con1=fd:N
 * with N a pipe whose writer closes it once the guest has written a byte
 * to the tty (so that the end of file comes after UML polls the pipe).
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <string.h>
#include <unistd.h>
#include <CUnit/CUnit.h>

#include "harness.h"
#include "requirements.h"
#include "test_util.h"

#define EOF_TTY		"/dev/tty1"
#define EOF_TTY_PARAM	"con1=fd:"
#define CMDLINE_MAX	4096
#define HANGUP_WAIT_MS	5000

static const char *requires_eof_console(void)
{
	static char cmdline[CMDLINE_MAX];

	if (harness_requires_uml())
		return "UML's own: its con1 channel to a host file descriptor";
	if (!harness_is_init())
		return "needs to run as init in UML";
	if (harness_read_file("/proc/cmdline", cmdline, sizeof(cmdline)) < 0)
		return "cannot read /proc/cmdline";
	if (!strstr(cmdline, " " EOF_TTY_PARAM))
		return "no " EOF_TTY_PARAM " on the kernel command line (uml/run-linux.sh gives one)";
	return harness_requires_kmsg_watch();
}

/*
 * Opening the tty registers its channel's IRQs; the byte written makes the
 * host close the input, which raises the read IRQ.  The tty is hung up
 * then: poll() says POLLHUP and read() returns 0 (or EIO), never data and
 * never a hang.
 */
static void test_input_at_end_of_file(void)
{
	struct pollfd pfd = { .events = POLLIN };
	char c = '\n';
	ssize_t n;

	pfd.fd = open(EOF_TTY, O_RDWR | O_NOCTTY | O_NONBLOCK | O_CLOEXEC);
	CU_ASSERT_TRUE_FATAL(pfd.fd >= 0);
	CU_ASSERT_EQUAL(write(pfd.fd, &c, 1), 1);
	CU_ASSERT_EQUAL(poll(&pfd, 1, HANGUP_WAIT_MS), 1);
	CU_ASSERT_TRUE(pfd.revents & POLLHUP);
	n = read(pfd.fd, &c, 1);
	CU_ASSERT_TRUE(n == 0 || (n < 0 && errno == EIO));
	CU_ASSERT_EQUAL(close(pfd.fd), 0);
}

static const struct harness_test uml_console_tests[] = {
	{ "input_at_end_of_file", test_input_at_end_of_file },
	{ NULL, NULL },
};

HARNESS_SUITE(uml_console_suite, .name = "uml_console",
	      .tests = uml_console_tests,
	      .requires = requires_eof_console);
