// SPDX-License-Identifier: GPL-2.0
/*
 * mshare-run: run an unmodified program with its large shared anonymous
 * mappings and SysV shm segments in mshare regions, the way hugectl --shm
 * puts them in huge pages: set the variables of settings.h from the
 * options, preload libmshare-run.so, exec the program.
 *
 * Exit status, as env(1) and hugectl: the program's own, or 125 when
 * mshare-run cannot set up, 126 when the program cannot be run (or
 * cannot be reached: a static binary has no dynamic linker to preload
 * into), 127 when it is not found.
 */
#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <libgen.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "settings.h"
#include "size.h"

#define EXIT_SETUP	125
#define EXIT_CANNOT_RUN	126
#define EXIT_NOT_FOUND	127

static void usage(FILE *out)
{
	const struct mshare_run_setting *s;
	char opt[64];

	fprintf(out, "usage: mshare-run [OPTION...] [--] COMMAND [ARG...]\n"
		"Run COMMAND with its shared anonymous mappings and SysV shm segments\n"
		"in mshare regions.  Each option sets the variable beside it, which\n"
		"the preloaded %s reads in COMMAND and its children.\n\n",
		MSHARE_RUN_LIBRARY);
	for (s = mshare_run_settings; s < mshare_run_settings + SETTING_COUNT; s++) {
		snprintf(opt, sizeof(opt), "--%s%s%s", s->option,
			 s->arg ? "=" : "", s->arg ? s->arg : "");
		fprintf(out, "  %-28s %s\n  %-28s [%s=%s, default %s]\n", opt,
			s->help, "", s->env, s->arg ? s->arg : s->set,
			s->dflt[0] ? s->dflt : "none");
	}
	fprintf(out, "  %-28s verbose level 2\n  %-28s verbose level 0\n"
		"  %-28s this help\n", "-v", "-q", "-h, --help");
}

static void die(int status, const char *fmt, ...)
	__attribute__((format(printf, 2, 3), noreturn));

static void die(int status, const char *fmt, ...)
{
	va_list ap;

	fputs("mshare-run: ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	exit(status);
}

/* Check @value for setting @id, as the library will read it. */
static void set(enum mshare_run_setting_id id, const char *value)
{
	const struct mshare_run_setting *s = &mshare_run_settings[id];
	unsigned long bytes;

	if (id == SETTING_MIN_SIZE && !mshare_run_parse_size(value, &bytes))
		die(EXIT_SETUP, "--%s=%s: not a size (BYTES, or with K, M or G)",
		    s->option, value);
	if (id == SETTING_VERBOSE && (strlen(value) != 1 || value[0] < '0' || value[0] > '2'))
		die(EXIT_SETUP, "--%s=%s: want a level 0, 1 or 2", s->option, value);
	if (id == SETTING_DIR && value[0] != '/')
		die(EXIT_SETUP, "--%s=%s: want an absolute path", s->option, value);
	if (setenv(s->env, value, 1))
		die(EXIT_SETUP, "setenv %s: %s", s->env, strerror(errno));
}

static int parse_options(int argc, char **argv)
{
	struct option longopts[SETTING_COUNT + 2] = { 0 };
	int c, i;

	for (i = 0; i < SETTING_COUNT; i++) {
		longopts[i].name = mshare_run_settings[i].option;
		longopts[i].has_arg = mshare_run_settings[i].arg ?
			required_argument : no_argument;
		longopts[i].val = 256 + i;
	}
	longopts[i].name = "help";
	longopts[i].val = 'h';
	/* "+": options end at the command, whose own options are its own. */
	while ((c = getopt_long(argc, argv, "+hvq", longopts, NULL)) != -1) {
		if (c >= 256) {
			const struct mshare_run_setting *s = &mshare_run_settings[c - 256];

			set(c - 256, s->arg ? optarg : s->set);
		} else if (c == 'v') {
			set(SETTING_VERBOSE, "2");
		} else if (c == 'q') {
			set(SETTING_VERBOSE, "0");
		} else if (c == 'h') {
			usage(stdout);
			exit(0);
		} else {
			usage(stderr);
			exit(EXIT_SETUP);
		}
	}
	return optind;
}

/* @cmd as execvp() would find it, into @path. */
static void find_command(const char *cmd, char *path, size_t size)
{
	const char *dirs = getenv("PATH");
	size_t len;

	if (strchr(cmd, '/')) {
		snprintf(path, size, "%s", cmd);
		return;
	}
	for (dirs = dirs ? dirs : "/usr/bin:/bin"; *dirs; dirs += len + !!dirs[len]) {
		len = strcspn(dirs, ":");
		snprintf(path, size, "%.*s/%s", (int)len, len ? dirs : ".", cmd);
		if (!access(path, X_OK))
			return;
	}
	die(EXIT_NOT_FOUND, "%s: not found in PATH", cmd);
}

/*
 * A static executable has no dynamic linker, so no LD_PRELOAD: say so
 * instead of running it with its memory where it always was.  A script's
 * interpreter is what runs; it is checked when it execs (not here).
 */
static void check_reachable(const char *path)
{
	Elf64_Ehdr eh;
	Elf64_Phdr ph;
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	ssize_t n;

	if (fd < 0)
		die(errno == ENOENT ? EXIT_NOT_FOUND : EXIT_CANNOT_RUN, "%s: %s",
		    path, strerror(errno));
	n = pread(fd, &eh, sizeof(eh), 0);
	if (n >= 2 && !memcmp(&eh, "#!", 2)) {
		close(fd);
		return;
	}
	if (n != sizeof(eh) || memcmp(eh.e_ident, ELFMAG, SELFMAG) ||
	    eh.e_ident[EI_CLASS] != ELFCLASS64)
		die(EXIT_CANNOT_RUN, "%s: not a 64-bit ELF executable or a script", path);
	for (int i = 0; i < eh.e_phnum; i++) {
		if (pread(fd, &ph, sizeof(ph), eh.e_phoff + i * eh.e_phentsize) != sizeof(ph))
			break;
		if (ph.p_type == PT_INTERP) {
			close(fd);
			return;
		}
	}
	close(fd);
	die(EXIT_CANNOT_RUN,
	    "%s is statically linked: %s cannot be preloaded into it, so its memory would stay where it is",
	    path, MSHARE_RUN_LIBRARY);
}

static void check_msharefs(void)
{
	const char *dir = mshare_run_setting(SETTING_DIR);
	char info[PATH_MAX];

	snprintf(info, sizeof(info), "%s/mshare_info", dir);
	if (!access(info, R_OK))
		return;
	if (!strcmp(mshare_run_setting(SETTING_STRICT), "1"))
		die(EXIT_SETUP, "%s: %s: is msharefs mounted there? (mount -t msharefs none %s)",
		    info, strerror(errno), dir);
	fprintf(stderr, "mshare-run: %s: %s: nothing will be taken (is msharefs mounted?)\n",
		info, strerror(errno));
}

/* LD_PRELOAD with the library, found next to this executable, first. */
static void preload_library(void)
{
	char self[PATH_MAX], lib[PATH_MAX + 32], *old = getenv("LD_PRELOAD");
	char *value;
	ssize_t n = readlink("/proc/self/exe", self, sizeof(self) - 1);

	if (n <= 0)
		die(EXIT_SETUP, "/proc/self/exe: %s (is /proc mounted?)", strerror(errno));
	self[n] = '\0';
	snprintf(lib, sizeof(lib), "%s/%s", dirname(self), MSHARE_RUN_LIBRARY);
	if (access(lib, R_OK))
		die(EXIT_SETUP, "%s: %s (it is built beside mshare-run)", lib, strerror(errno));
	if (old && *old) {
		if (asprintf(&value, "%s %s", lib, old) < 0)
			die(EXIT_SETUP, "out of memory");
	} else {
		value = lib;
	}
	if (setenv("LD_PRELOAD", value, 1))
		die(EXIT_SETUP, "setenv LD_PRELOAD: %s", strerror(errno));
}

int main(int argc, char **argv)
{
	char path[PATH_MAX];
	int first = parse_options(argc, argv);

	if (first >= argc) {
		usage(stderr);
		return EXIT_SETUP;
	}
	find_command(argv[first], path, sizeof(path));
	check_reachable(path);
	check_msharefs();
	preload_library();
	execv(path, argv + first);
	die(errno == ENOENT ? EXIT_NOT_FOUND : EXIT_CANNOT_RUN, "%s: %s", path,
	    strerror(errno));
}
