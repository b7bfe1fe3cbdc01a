# mshare-uml: build Linux 6.12 for ARCH=um with the mm-patches series and the
# CUnit harness as /init, and run it.  `make help` lists the targets.

ROOT := $(CURDIR)
BUILD := $(ROOT)/build

# ARCH=x86_64: the same series for x86-64 under qemu (uml/run-qemu.sh), built
# from the same build/linux into build/x86_64/ (build/seed/x86_64/ for the
# seed).  Only from the command line: a kernel developer's shell often
# exports ARCH for other trees.
KARCH := $(if $(filter command line,$(origin ARCH)),$(ARCH),um)
ifeq ($(filter um x86_64,$(KARCH)),)
$(error ARCH=$(KARCH): the targets are ARCH=um (./linux, the default) and ARCH=x86_64 (qemu))
endif
HARNESS_OUT := $(BUILD)/harness
TARBALL ?= /usr/src/linux-source-6.12.tar.xz
SERIES ?= $(ROOT)/mm-patches/series

# SERIES=seed: the faithful port alone, the patches of mm-patches/series above
# its "# seed ends here" line, in a tree and objects of its own (build/linux
# and ./linux stay untouched).  build/seed/{linux,obj} mirror build/{linux,obj}
# so that ccache sees the same relative paths and reuses the main build's
# objects.  Otherwise SERIES is the series file.
ifeq ($(SERIES),seed)
SEED_BUILD := 1
SERIES_FILE := $(ROOT)/mm-patches/series
SRC := $(BUILD)/seed/linux
OBJ := $(BUILD)/seed/obj
PREPARE_FLAGS := --seed
else ifeq ($(SERIES),base)
# SERIES=base: Debian's 6.12 with only the patches of the series before its
# first mm/mshare patch (the um: platform patches), in build/base/{linux,obj}
# like the seed: the kernel the mm selftests are compared with.
BASE_BUILD := 1
SERIES_FILE := $(ROOT)/mm-patches/series
SRC := $(BUILD)/base/linux
OBJ := $(BUILD)/base/obj
PREPARE_FLAGS := --base
else
SEED_BUILD :=
SERIES_FILE := $(SERIES)
SRC := $(BUILD)/linux
OBJ := $(BUILD)/obj
PREPARE_FLAGS :=
endif
# The shared fragments, then the target's own (uml/config/um/ or x86_64/).
FRAGMENTS := $(wildcard $(ROOT)/uml/config/*.config) $(wildcard $(ROOT)/uml/config/$(KARCH)/*.config)
ifneq ($(BASE_BUILD),)
# The base kernel has no CONFIG_MSHARE for check-config.sh to find.
FRAGMENTS := $(filter-out %/mshare.config,$(FRAGMENTS))
endif
INITRAMFS_LIST := $(BUILD)/initramfs.list
INITRAMFS_CONFIG := $(BUILD)/initramfs.config
JOBS ?= $(shell nproc)

# What differs between the targets: the objects, kbuild's ARCH, the config's
# starting point, what kbuild makes, and where the /init goes.  ./linux
# carries its initramfs inside; the x86_64 kernel boots with the harness
# in a separate cpio (qemu -initrd), so that a harness change relinks
# nothing.
ifeq ($(KARCH),x86_64)
ARCH_OUT := $(dir $(OBJ))x86_64
OBJ := $(ARCH_OUT)/obj
KBUILD_ARCH := ARCH=x86_64
KERNEL_IMAGE := $(OBJ)/arch/x86/boot/bzImage
KERNEL_TARGETS := bzImage scripts_gdb
CONFIG_START = cp /dev/null $(OBJ)/.config
ARCH_CONFIG :=
INITRD := $(ARCH_OUT)/initramfs.cpio
KBUILD_WATCH :=
# make test SERIES=seed: the seed under qemu, the "x86_64:" claims.
SEED_COMPARE = $(QEMU_ENV) bash $(ROOT)/uml/seed-compare.sh --qemu
else
ARCH_OUT := $(dir $(OBJ))
KBUILD_ARCH := ARCH=um SUBARCH=x86_64
KERNEL_IMAGE := $(OBJ)/linux
KERNEL_TARGETS := linux scripts_gdb
SEED_COMPARE = bash $(ROOT)/uml/seed-compare.sh
CONFIG_START = $(KMAKE) -s defconfig
ARCH_CONFIG := $(INITRAMFS_CONFIG)
INITRD :=
# What kbuild reads besides the tree and .config: the built-in initramfs
# and UML's user-space half's host headers.
KBUILD_WATCH := --watch $(INITRAMFS_LIST) --watch $(HARNESS_OUT)/init \
	--watch /usr/include --watch /usr/lib/gcc
endif

# ccache outside the checkout, keyed on paths relative to it, so a fresh
# clone (CI) reuses the objects of an earlier build on this machine.
export CCACHE_DIR ?= $(HOME)/.cache/mshare-uml-ccache
export CCACHE_BASEDIR := $(ROOT)
export CCACHE_NOHASHDIR := true
export CCACHE_MAXSIZE ?= 8G

# One kernel build at a time on this machine (2 cores), whichever checkout
# it is for: builds queue on a lock.
export KBUILD_LOCK ?= /tmp/mshare-uml-kbuild.lock
KMAKE := flock $(KBUILD_LOCK) $(MAKE) -C $(SRC) O=$(OBJ) $(KBUILD_ARCH) \
	CC="ccache gcc" HOSTCC="ccache gcc" -j$(JOBS)

# make test: JOBS boots at once (each suite in JOBS parts); SHARD=K/N: the
# K-th of N runners' share (docs/running-tests.md, "A CI matrix").
SHARD ?=
TEST_FLAGS = --jobs $(JOBS) $(if $(SHARD),--shard $(SHARD))

# Kernel command line for `make run` / `make test`, and a boot timeout.
T ?=
RUN_ARGS ?=
TIMEOUT ?= 900
# make prog: how long the program may run (the boot gets a minute more).
PROG_TIMEOUT ?= 600
# Per-boot timeouts of `make test SERIES=seed` (one boot per suite, and one
# per test of a suite whose boot crashed or hung).  The x86_64 target's
# boots get more: under TCG its slowest suite, mshare_run, took 96 s of
# tests, and the kernel's clock read 16 s as /init started (2026-12-07).
SEED_SUITE_TIMEOUT ?= $(if $(filter x86_64,$(KARCH)),300,120)
SEED_TEST_TIMEOUT ?= $(if $(filter x86_64,$(KARCH)),120,60)
# SEED_BOOT_PER_TEST=1: a boot for every test (lockdep reports once a boot).
SEED_BOOT_PER_TEST ?=

# Targets that only make sense for the full series in build/linux.
ifneq ($(SEED_BUILD),)
ifneq ($(filter bench bench-loop gdb check-series export-patches,$(MAKECMDGOALS)),)
$(error SERIES=seed: not for $(filter bench bench-loop gdb check-series export-patches,$(MAKECMDGOALS)), \
	which work on the full series in build/linux)
endif
endif

# SERIES=base is for building the base kernel and its mm selftests only.
BASE_NOT_GOALS := run test fuzz bench bench-loop gdb valgrind check-series export-patches \
	selftests-record-base
ifneq ($(BASE_BUILD),)
ifneq ($(filter $(BASE_NOT_GOALS),$(MAKECMDGOALS)),)
$(error SERIES=base: not for $(filter $(BASE_NOT_GOALS),$(MAKECMDGOALS)); it builds \
	the base kernel (make SERIES=base) and runs the mm selftests (make selftests SERIES=base))
endif
endif

.PHONY: all linux deps source config kernel harness mshare-run run prog test merge-results fuzz bench bench-loop pgbench pgbench-deps valgrind gdb \
	check-series export-patches clean distclean help selftests selftests-record-base coverage docs

all: linux

help:
	@echo 'mshare-uml targets:'
	@echo '  make              install missing packages, build ./linux (UML with the harness as /init)'
	@echo '  make run [T=suite[/test]]  boot ./linux and run the suite (or the selected tests)'
	@echo '  make test         everything CI checks; non-zero exit on any failure'
	@echo '  make prog PROG=path [ARGS="a b"]  your own program inside ./linux, swap and scratch disks attached -> build/program.log'
	@echo '  build/mshare-run/mshare-run [--strict] -- COMMAND  a program with its shared memory in regions (docs/mshare-run.md)'
	@echo '  make SERIES=seed  build the seed (series up to "# seed ends here") -> build/seed/obj/linux'
	@echo '  make test SHARD=k/N  the k-th of N runners'"'"' share of make test (a CI matrix; the same JOBS on each)'
	@echo '  make merge-results RESULTS="dirs"  the runners'"'"' build/test/results (SERIES=seed: build/seed) merged -> build/test/merged'
	@echo '  make test SERIES=seed  every test on the seed kernel, a verdict each, and the claims of uml/seed-defects.tsv -> build/seed/'
	@echo '  make test SERIES=seed ARCH=x86_64  the same on the x86_64 target'"'"'s seed under qemu, its "x86_64:" claims -> build/seed/x86_64/'
	@echo '  make test SERIES=seed [ARCH=x86_64] T=suite,...  those suites alone, and the claims about their tests'
	@echo '  make run SERIES=seed [T=...]  boot the seed kernel'
	@echo '  make fuzz [SECONDS=60] [SEED=n]  the lifecycle fuzzer (default seed: the clock) -> build/fuzz.log'
	@echo '  make fuzz FAULTS=1 [FAULT_PERCENT=20]  the same with fail-nth fault injection on that share of its ops'
	@echo '  make selftests [SERIES=base]  the mm selftests inside ./linux (or the base kernel), side by side -> build/selftests/table.md'
	@echo '  make selftests-record-base  run them on the base kernel, write uml/selftests/base-results.tsv'
	@echo '  make bench        page tables of N=1..512 processes, mshare vs memfd -> build/bench/'
	@echo '  make pgbench [CLIENTS="1 8 32 64 128"] [SCALE=16] [SECONDS=30] [SHARED_MEMORY_TYPE=sysv]  PostgreSQL under pgbench in ./linux, plain and under mshare-run -> build/pgbench/'
	@echo '  make bench-loop [ROUNDS=3] [T=suite] [EDIT=comment]  edit mm/ -> make -> one suite, ours vs kunit.py run, medians and ratio -> build/bench-loop/'
	@echo '  make coverage     gcov kernel in build/coverage/obj, suite + fuzz on it -> build/coverage/html'
	@echo '  make gdb [T=suite[/test]]  boot ./linux under gdb, stopped in find_shared_vma'
	@echo '  make ARCH=x86_64  the same series for x86-64 -> build/x86_64/ (bzImage, initramfs.cpio)'
	@echo '  make run ARCH=x86_64 [T=...] [CPUS=2] [ACCEL=tcg] [LA57=on]  boot it under qemu (KVM if it works, else TCG; LA57=on: 5-level paging)'
	@echo '  make test ARCH=x86_64  the x86_64 stages of make test alone'
	@echo '  make gdb ARCH=x86_64 [T=...]  qemu gdb stub, gdb on vmlinux, stopped in find_shared_vma'
	@echo '  make bench ARCH=x86_64  the page-table benchmark under qemu, beside ./linux'"'"'s last run'
	@echo '  make valgrind     run the host build of the harness under memcheck'
	@echo '  make check-series build every prefix of mm-patches/series'
	@echo '  make export-patches  write the commits of build/linux back to mm-patches/'
	@echo '  make docs         write the generated tables of README.md and docs/ again, then check the docs'
	@echo '  make config       (re)generate build/obj/.config from uml/config/*.config'
	@echo '  make harness      build the harness only (build/harness/init, host-harness)'
	@echo '  make deps         install the Debian packages in uml/packages.txt'
	@echo '  make clean        remove build/obj, build/seed/obj and ./linux (keeps build/linux, your workspace)'
	@echo '  make distclean    remove build/ entirely'
	@echo 'Variables: T=suite[/test],...  TIMEOUT=seconds  RUN_ARGS="kernel args"  JOBS=n  ARCH=um|x86_64'
	@echo '  PROG=path ARGS="args" PROG_TIMEOUT=seconds (make prog; default timeout 600)'
	@echo '  SERIES=seed  SEED_SUITE_TIMEOUT=seconds  SEED_TEST_TIMEOUT=seconds (per boot)'
	@echo '  SEED_BOOT_PER_TEST=1 (make test SERIES=seed: every test in a boot of its own)'
	@echo '  ROUNDS=n EDIT=code|comment LOOP_BOOT_ARGS="kernel args" (bench-loop; default: 3, code, none)'

deps:
	@sh $(ROOT)/uml/install-deps.sh

# Re-applies only the patches that changed; never discards local commits.
source: deps
	@bash $(ROOT)/uml/prepare-source.sh $(PREPARE_FLAGS) $(TARBALL) $(SRC) $(SERIES_FILE)

harness: deps
	@$(MAKE) --no-print-directory -C $(ROOT)/harness O=$(HARNESS_OUT)

# The launcher, its library and its test program (tests/mshare_run.c runs
# them from the host's root, so they are the host's programs).
mshare-run: deps
	@$(MAKE) --no-print-directory -C $(ROOT)/mshare-run O=$(BUILD)/mshare-run

$(INITRAMFS_LIST): $(ROOT)/uml/initramfs.list.in | $(BUILD)
	sed 's|@HARNESS_INIT@|$(HARNESS_OUT)/init|' $< >$@

$(INITRAMFS_CONFIG): | $(BUILD)
	echo 'CONFIG_INITRAMFS_SOURCE="$(INITRAMFS_LIST)"' >$@

$(BUILD):
	mkdir -p $@

# defconfig (ARCH=um) or nothing (x86_64) + fragments, then a check that
# every requested option survived.
$(OBJ)/.config: $(FRAGMENTS) $(ARCH_CONFIG) $(SRC)/Makefile
	@mkdir -p $(OBJ)
	$(CONFIG_START)
	cd $(SRC) && $(KBUILD_ARCH) scripts/kconfig/merge_config.sh -m \
		-O $(OBJ) $(OBJ)/.config $(FRAGMENTS) $(ARCH_CONFIG) >/dev/null
	$(KMAKE) -s olddefconfig
	sh $(ROOT)/uml/check-config.sh $@ $(FRAGMENTS) $(ARCH_CONFIG)

config: source
	@$(MAKE) --no-print-directory $(OBJ)/.config

# The check again only when .config or a fragment changed since it passed.
$(OBJ)/.config-checked: $(OBJ)/.config $(FRAGMENTS) $(ARCH_CONFIG)
	@sh $(ROOT)/uml/check-config.sh $(OBJ)/.config $(FRAGMENTS) $(ARCH_CONFIG)
	@touch $@

# The kernel's version string: the tarball's version (the kernel's own
# Makefile) and -mshareN, N the patches of the series applied (-mshare-seedN,
# -mshare-baseN for the other kernels); not build/linux's git state
# (uml/config/loop.config turns LOCALVERSION_AUTO off).
KERNEL_LOCALVERSION = -mshare$(if $(SEED_BUILD),-seed)$(if $(BASE_BUILD),-base)$(shell \
	wc -l <$(SRC)/.git/mshare-uml-applied)

# uml/kbuild.sh skips kbuild when nothing it reads changed since it last
# succeeded (what that covers: the script's header).
kernel: source harness $(INITRAMFS_LIST)
	@$(MAKE) --no-print-directory $(OBJ)/.config-checked
	@bash $(ROOT)/uml/kbuild.sh --stamp $(OBJ)/.mshare-uml-kbuild --src $(SRC) \
		--watch $(OBJ)/.config $(KBUILD_WATCH) \
		--output $(KERNEL_IMAGE) --output $(OBJ)/vmlinux-gdb.py -- \
		$(KMAKE) LOCALVERSION=$(KERNEL_LOCALVERSION) $(KERNEL_TARGETS)
ifeq ($(KARCH),x86_64)
	@$(MAKE) --no-print-directory $(INITRD)
	@echo '$(SERIES) x86_64 kernel: $(KERNEL_IMAGE), /init in $(INITRD)'
else
	$(if $(SEED_BUILD)$(BASE_BUILD),@echo '$(SERIES) kernel: $(OBJ)/linux',@ln -sfn build/obj/linux $(ROOT)/linux)
endif

# The x86_64 target's initramfs: the same list and /init as ./linux's,
# written by the kernel's own gen_init_cpio (built with the kernel).
$(INITRD): $(INITRAMFS_LIST) $(HARNESS_OUT)/init $(OBJ)/usr/gen_init_cpio
	$(OBJ)/usr/gen_init_cpio $(INITRAMFS_LIST) >$@.tmp
	mv $@.tmp $@

linux: kernel mshare-run

# CPUS: the x86_64 guest's CPUs; ACCEL=tcg: no KVM even where it works;
# LA57=on: 5-level paging (a region is 256 TiB).
# Without T, a TCG run leaves out the suites of uml/qemu/tcg-skip.txt
# (run-qemu.sh prints them); T runs what it names.
CPUS ?= 2
ACCEL ?=
LA57 ?=
# What uml/run-qemu.sh, and the scripts that call it, take from make.
QEMU_ENV = KERNEL=$(KERNEL_IMAGE) INITRD=$(INITRD) ACCEL='$(ACCEL)' LA57='$(LA57)'
ifeq ($(KARCH),x86_64)
run: linux
	@$(QEMU_ENV) bash $(ROOT)/uml/run-qemu.sh --timeout $(TIMEOUT) \
		--cpus $(CPUS) --log $(ARCH_OUT)/run.log $(if $(T),--tests '$(T)') -- $(RUN_ARGS)
else
run: linux
	@$(if $(SEED_BUILD),LINUX=$(OBJ)/linux )bash $(ROOT)/uml/run-linux.sh --timeout $(TIMEOUT) \
		--log $(if $(SEED_BUILD),$(BUILD)/seed/run.log,$(BUILD)/run.log) \
		$(if $(T),--tests '$(T)') -- $(RUN_ARGS)
endif

# PROG relative to the checkout, or absolute; see uml/run-program.sh.
prog: linux
	$(if $(PROG),,$(error make prog wants PROG=path/to/program (and ARGS="its arguments")))
	@$(if $(filter x86_64,$(KARCH)),$(QEMU_ENV) )bash \
		$(ROOT)/uml/run-program.sh --timeout $(PROG_TIMEOUT) \
		$(if $(filter x86_64,$(KARCH)),--cpus $(CPUS) --log $(ARCH_OUT)/program.log) '$(PROG)' $(ARGS)

ifeq ($(SEED_BUILD),)
# make test: ./linux's stages, then the x86_64 target's (its kernel built
# first); make test ARCH=x86_64: the x86_64 target's alone.
ifeq ($(KARCH),x86_64)
test: linux
	@bash $(ROOT)/uml/test.sh --arch x86_64 $(TEST_FLAGS)
else
test: linux pgbench-deps
	@$(MAKE) --no-print-directory ARCH=x86_64 linux
	@bash $(ROOT)/uml/test.sh --arch all $(TEST_FLAGS)
endif
else
# make test SERIES=seed ARCH=x86_64: the x86_64 target's seed under qemu,
# its claims ("x86_64:fail"), results in build/seed/x86_64.  T=suite,...:
# those suites alone, and the claims about their tests.
test: linux
	@$(SEED_COMPARE) --suite-timeout $(SEED_SUITE_TIMEOUT) \
		--test-timeout $(SEED_TEST_TIMEOUT) $(if $(SEED_BOOT_PER_TEST),--boot-per-test) \
		$(if $(SHARD),--shard $(SHARD)) $(if $(T),--suites $(T)) $(KERNEL_IMAGE) $(SEED_OUT)
endif

# The results of a CI matrix's runners (make test SHARD=K/N, each runner's
# build/test/results; SERIES=seed: each runner's build/seed) merged into
# one, against the plan of the whole run: build/test/merged (or
# build/seed/merged), one verdict.
# The seed comparison's results: build/seed, or build/seed/x86_64.
SEED_OUT := $(patsubst %/,%,$(ARCH_OUT))
MERGE_OUT := $(if $(SEED_BUILD),$(SEED_OUT)/merged,$(BUILD)/test/merged)
merge-results: harness
	$(if $(RESULTS),,$(error make merge-results wants RESULTS="the runners' result directories"))
ifneq ($(SEED_BUILD),)
	@$(SEED_COMPARE) --merge $(MERGE_OUT) $(RESULTS)
else
	@mkdir -p $(MERGE_OUT)
	@$(HARNESS_OUT)/host-harness --list_tests >$(MERGE_OUT)/plan.txt
	@python3 $(ROOT)/uml/merge-results.py --out $(MERGE_OUT) --plan $(MERGE_OUT)/plan.txt $(RESULTS)
endif

# The lifecycle fuzzer, SECONDS long, from SEED (default: the clock's, which
# it prints).  Both only from the command line: bash keeps its own SECONDS,
# and SEED must not come in from an environment by accident.
FUZZ_SECONDS := $(if $(filter command line,$(origin SECONDS)),$(SECONDS),60)
FUZZ_SEED := $(if $(filter command line,$(origin SEED)),$(SEED))
# FAULTS=1: fail-nth fault injection on FAULT_PERCENT of the ops.
FAULTS ?=
FAULT_PERCENT ?= 20
ifeq ($(KARCH),x86_64)
fuzz: linux
	@$(QEMU_ENV) bash $(ROOT)/uml/fuzz.sh \
		--cpus $(CPUS) --seconds $(FUZZ_SECONDS) $(if $(FUZZ_SEED),--seed $(FUZZ_SEED)) $(if $(SHARD),--shard $(SHARD)) \
		$(if $(filter-out 0,$(FAULTS)),--faults $(FAULT_PERCENT)) --log $(ARCH_OUT)/fuzz.log
else
fuzz: linux
	@$(if $(SEED_BUILD),LINUX=$(OBJ)/linux )bash $(ROOT)/uml/fuzz.sh \
		--seconds $(FUZZ_SECONDS) $(if $(FUZZ_SEED),--seed $(FUZZ_SEED)) $(if $(SHARD),--shard $(SHARD)) \
		$(if $(filter-out 0,$(FAULTS)),--faults $(FAULT_PERCENT)) \
		--log $(if $(SEED_BUILD),$(BUILD)/seed/fuzz.log,$(BUILD)/fuzz.log)
endif

# The kernel's mm selftests inside this kernel (build/selftests, or
# build/SERIES/selftests), side by side with the base kernel's: the committed
# uml/selftests/base-results.tsv, or with SERIES=base, this run against the
# full series' last run.  selftests-record-base regenerates the committed file.
SELFTESTS_OUT := $(dir $(OBJ))selftests
SELFTESTS_BASE := $(if $(BASE_BUILD),$(SELFTESTS_OUT)/results.tsv,$(ROOT)/uml/selftests/base-results.tsv)
SELFTESTS_FULL := $(if $(BASE_BUILD),$(BUILD)/selftests/results.tsv,$(SELFTESTS_OUT)/results.tsv)
selftests: linux
	@bash $(ROOT)/uml/selftests.sh --src $(SRC) --linux $(OBJ)/linux --out $(SELFTESTS_OUT) \
		--base $(SELFTESTS_BASE) --full $(SELFTESTS_FULL)

selftests-record-base:
	@$(MAKE) --no-print-directory selftests SERIES=base
	cp $(BUILD)/base/selftests/results.tsv $(ROOT)/uml/selftests/base-results.tsv

# Not part of test: ~6 minutes, and its figures are read, not asserted.
bench: linux
	@$(if $(filter x86_64,$(KARCH)),$(QEMU_ENV) )bash \
		$(ROOT)/uml/bench.sh --arch $(KARCH) --cpus $(CPUS)

# PostgreSQL 15 under pgbench inside ./linux, the server plain and under
# mshare-run, with the TPC-B invariants and a kill -9 recovery checked
# (uml/pgbench/pgbench.sh; --short is the version for make test).
# CLIENTS, SCALE, SECONDS and SHARED_MEMORY_TYPE (PostgreSQL's setting:
# mmap, its default, or sysv) only from the command line, as for fuzz.
PGBENCH_OPTS := $(if $(filter command line,$(origin CLIENTS)),--clients '$(CLIENTS)') \
	$(if $(filter command line,$(origin SCALE)),--scale '$(SCALE)') \
	$(if $(filter command line,$(origin SECONDS)),--seconds '$(SECONDS)') \
	$(if $(filter command line,$(origin SHARED_MEMORY_TYPE)),--shared-memory-type '$(SHARED_MEMORY_TYPE)')
pgbench: linux pgbench-deps
	$(if $(filter x86_64,$(KARCH)),$(error make pgbench boots ./linux only; drop ARCH=x86_64))
	@bash $(ROOT)/uml/pgbench/pgbench.sh $(PGBENCH_OPTS)

# PostgreSQL, for make pgbench and make test's pgbench stage only.
pgbench-deps:
	@sh $(ROOT)/uml/install-deps.sh $(ROOT)/uml/packages-pgbench.txt

# The edit-to-verdict loop against kunit.py's (uml/bench-loop.sh): ROUNDS
# rounds, the suite T (default mshare_refcount), booted as `./linux T` is,
# plus LOOP_BOOT_ARGS (none by default: a lever such as time-travel is
# measured only when asked, as the user's own command has none);
# EDIT=comment appends a comment instead of a definition (see the script).
ROUNDS ?= 3
LOOP_BOOT_ARGS ?=
EDIT ?= code
bench-loop: linux
	@LOOP_BOOT_ARGS='$(LOOP_BOOT_ARGS)' bash $(ROOT)/uml/bench-loop.sh --rounds $(ROUNDS) \
		--suite '$(or $(T),mshare_refcount)' --edit $(EDIT)

# The test kernel with UML's gcov in objects of its own, the suite and a
# short fuzz run on it, lcov's HTML and a summary (uml/coverage.sh).
COVERAGE_FUZZ_SECONDS ?= 30
coverage: source harness $(INITRAMFS_LIST) $(INITRAMFS_CONFIG)
	@bash $(ROOT)/uml/coverage.sh $(SRC) $(COVERAGE_FUZZ_SECONDS) $(FRAGMENTS) $(INITRAMFS_CONFIG)

# Boot under gdb, stopped at find_shared_vma when the selected test faults
# into an mshare region (T=suite[/test]).
ifeq ($(KARCH),x86_64)
gdb: linux
	@bash $(ROOT)/uml/qemu/gdb.sh '$(T)'
else
gdb: linux
	gdb -q -x $(ROOT)/gdbinit -ex mshare-break -ex run --args $(ROOT)/linux \
		$(shell grep -v '^#' $(ROOT)/uml/boot.args) uml_dir=$(BUILD)/uml \
		$(if $(T),'harness.run=$(T)')
endif

# The harness and tests on the host under memcheck (mshare suites skip there).
valgrind: harness
	@bash $(ROOT)/uml/valgrind-harness.sh $(HARNESS_OUT)/host-harness $(BUILD)/valgrind.log

# The tables of README.md and docs/ that are data (the seed table, the
# suites, the map), written again from their sources (uml/docs_tables.py),
# then the check that make test runs (uml/check-docs.py).  The suites come
# from the host build of the harness.
docs: harness
	@python3 $(ROOT)/uml/docs_tables.py --write --host-harness $(HARNESS_OUT)/host-harness
	@python3 $(ROOT)/uml/check-docs.py --host-harness $(HARNESS_OUT)/host-harness

check-series: source
	@bash $(ROOT)/uml/check-series.sh $(SRC) $(OBJ)-series $(SERIES_FILE) $(FRAGMENTS)

export-patches:
	@bash $(ROOT)/uml/export-patches.sh $(SRC) $(SERIES_FILE)

# build/seed/linux, the seed's tree, is kept too: extracting it again takes
# a minute.
clean:
	rm -rf $(BUILD)/obj $(BUILD)/obj-series $(HARNESS_OUT) $(BUILD)/run*.log $(ROOT)/linux \
		$(BUILD)/seed/obj $(BUILD)/seed/run.log $(BUILD)/seed/boots \
		$(BUILD)/seed/results.txt $(BUILD)/seed/results.tsv
	rm -rf $(BUILD)/base/obj $(BUILD)/selftests $(BUILD)/base/selftests $(BUILD)/seed/selftests

distclean:
	rm -rf $(BUILD) $(ROOT)/linux
