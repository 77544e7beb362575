# SPDX-License-Identifier: MIT
#
# gpumix: one plain GNU Makefile. Each component adds its objects, programs
# and tests from its own <dir>/build.mk, so this file holds only the rules
# they share. Quiet by default; V=1 shows the commands; DEVELOPER=1 adds
# -Werror. Objects go to build/.

CUDA_HOME ?= /usr/local/cuda
SM ?= 90
PREFIX ?= /usr/local
CC ?= cc
NVCC ?= $(CUDA_HOME)/bin/nvcc
PTXAS ?= $(CUDA_HOME)/bin/ptxas
PKG_CONFIG ?= pkg-config
B := build

VERSION := $(shell cat VERSION)
GIT_DESCRIBE := $(shell git describe --always --dirty 2>/dev/null)
FULL_VERSION := $(VERSION)$(if $(GIT_DESCRIBE), ($(GIT_DESCRIBE)))

CFLAGS ?= -O2 -g

# SANITIZE=1: everything (the CLI, the libraries, the capture library, the
# CUDA mock, the tests and the replay programs gpumix replay builds) under
# AddressSanitizer, UndefinedBehaviorSanitizer and LeakSanitizer, in its
# own build directory so that it never mixes with a plain build. make
# check then fails on any sanitizer report, even one from a process whose
# failure a test expected (tests/run).
ifeq ($(SANITIZE),1)
B := build-san
# clang (Debian's clang and libclang-rt-14-dev): its runtimes are one
# library linked into each executable, which writes every report, UBSan's
# included, where log_path says (gcc 12's separate libubsan ignores it).
ifeq ($(origin CC),default)
CC := clang
endif
SANITIZE_FLAGS := -fsanitize=address,undefined -fno-sanitize-recover=all \
	-fno-omit-frame-pointer
override CFLAGS += $(SANITIZE_FLAGS)
override LDFLAGS += $(SANITIZE_FLAGS)
endif

# FUZZ=1 (what `make fuzz` runs, tests/fuzz/build.mk): the libraries and
# the fuzz harnesses with clang's libFuzzer instrumentation, ASan and
# UBSan, in build-fuzz/.
ifeq ($(FUZZ),1)
B := build-fuzz
ifeq ($(origin CC),default)
CC := clang
endif
override CFLAGS += -fsanitize=fuzzer-no-link,address,undefined \
	-fno-sanitize-recover=all -fno-omit-frame-pointer
override LDFLAGS += -fsanitize=address,undefined
endif
BASE_CFLAGS := -std=c11 -Wall -Wextra -Wno-unused-parameter -D_GNU_SOURCE \
	-MMD -MP -I. -Icommon
ifeq ($(DEVELOPER),1)
BASE_CFLAGS += -Werror
endif
NVCCFLAGS ?= -O3
CUDA_INC := -I$(CUDA_HOME)/include
CUDA_LIBDIR := $(CUDA_HOME)/lib64

ifeq ($(V),1)
Q :=
QUIET = @:
else
Q := @
QUIET = @printf '  %-8s %s\n'
endif

# What each component contributes.
LIBS :=          # static libraries built here (in link order)
PROGRAMS :=      # programs installed to $(PREFIX)/bin
SHLIBS :=        # shared libraries installed to $(PREFIX)/lib/gpumix
UNIT_TESTS :=    # C test programs (TAP), run by make check
TEST_SCRIPTS :=  # shell tests (TAP), run by make check
GPU_TESTS :=     # shell tests that need a GPU (skip visibly without one)
BENCHES :=       # benchmark scripts run by make bench
CHECK_DEPS :=    # other things make check must build first

.SECONDEXPANSION:

pkg_cflags = $(shell $(PKG_CONFIG) --cflags $(1))
pkg_libs = $(shell $(PKG_CONFIG) --libs $(1))

# Set-up: what the goals need comes from the one list of Debian packages,
# build-aux/packages. build-aux/deps probes it on every run (pkg-config
# modules and tools on PATH, so that a library found another way counts:
# a GPU host's private prefix) and installs what is missing with apt-get,
# through sudo when not root; INSTALL_DEPS=no only names the packages.
# It runs before the components' build.mk files ask pkg-config for flags.
NO_DEP_GOALS := clean help uninstall
DEP_GOALS := $(filter-out $(NO_DEP_GOALS),$(or $(MAKECMDGOALS),all))
ifneq ($(DEP_GOALS),)
DEP_GROUPS := build \
	$(if $(filter check check-gpu check-gpu-sanitize tests bench,$(DEP_GOALS)),test) \
	$(if $(filter demo,$(DEP_GOALS)),demo) \
	$(if $(filter 1,$(SANITIZE) $(FUZZ))$(filter fuzz,$(DEP_GOALS)),sanitize)
ifneq ($(shell GPUMIX_INSTALL_DEPS='$(INSTALL_DEPS)' PKG_CONFIG='$(PKG_CONFIG)' \
	build-aux/deps $(DEP_GROUPS) >&2 && echo ok),ok)
$(error cannot make '$(DEP_GOALS)' without the packages named above)
endif
# Every component sees every library's headers: header-only users
# (xxhash through common/hash.h) and installs outside /usr/include.
PKG_MODULES := $(shell awk '$$1 == "lib" { print $$2 }' build-aux/packages)
BASE_CFLAGS += $(call pkg_cflags,$(PKG_MODULES))
ifeq ($(wildcard $(NVCC)),)
$(error nvcc not found at $(NVCC); install the CUDA 13 toolkit or set CUDA_HOME)
endif
endif

all:

# common/ first (others use its variables), cli/ last (it links them all).
include common/build.mk
include $(filter-out common/build.mk cli/build.mk,$(sort $(wildcard */build.mk */*/build.mk)))
include cli/build.mk
# (components once appended "module:package" here; the list is one file now)
ifneq ($(PKG_DEPS),)
$(error PKG_DEPS is gone: add '$(PKG_DEPS)' to build-aux/packages)
endif

ifeq ($(SANITIZE),1)
# Whatever links the instrumented static libraries needs the sanitizer
# runtimes, the replay programs gpumix replay links included (it passes
# COMMON_LDLIBS on, see replay/build.mk; make check hands it $(CC)).
COMMON_LDLIBS += $(SANITIZE_FLAGS)
# Every process writes its reports under $(SANITIZE_LOGS) (never onto a
# stderr that a test may swallow); tests/run fails the test that left one.
SANITIZE_LOGS := $(CURDIR)/$(B)/sanitizer-logs
CHECK_ENV := GPUMIX_SANITIZER_LOGS=$(SANITIZE_LOGS) CC='$(CC)' \
	ASAN_OPTIONS=log_path=$(SANITIZE_LOGS)/asan:detect_leaks=1:strict_string_checks=1:detect_stack_use_after_return=1:check_initialization_order=1 \
	UBSAN_OPTIONS=log_path=$(SANITIZE_LOGS)/ubsan:print_stacktrace=1:halt_on_error=1 \
	LSAN_OPTIONS=suppressions=$(CURDIR)/tests/lsan.supp:print_suppressions=0
endif

all: $(PROGRAMS) $(SHLIBS)

$(B)/%.o: %.c
	$(QUIET) CC $@
	$(Q)mkdir -p $(@D)
	$(Q)$(CC) $(BASE_CFLAGS) $(EXTRA_CFLAGS_$(<D)) $(CFLAGS) -c -o $@ $<

$(B)/pic/%.o: %.c
	$(QUIET) CC $@
	$(Q)mkdir -p $(@D)
	$(Q)$(CC) $(BASE_CFLAGS) $(EXTRA_CFLAGS_$(<D)) $(CFLAGS) -fPIC -c -o $@ $<

# Version string baked into the dispatcher only (keeps rebuilds small).
$(B)/version.h: VERSION FORCE
	$(Q)mkdir -p $(@D)
	$(Q)printf '#define GM_VERSION_STRING "%s"\n' '$(FULL_VERSION)' > $@.tmp
	$(Q)cmp -s $@.tmp $@ && rm -f $@.tmp || mv $@.tmp $@

check: all $(UNIT_TESTS) $(CHECK_DEPS)
	$(Q)$(CHECK_ENV) GPUMIX_TOP=$(CURDIR) GPUMIX_BUILD=$(CURDIR)/$(B) \
		tests/run $(UNIT_TESTS) $(TEST_SCRIPTS) $(GPU_TESTS)

check-gpu: all $(UNIT_TESTS) $(CHECK_DEPS)
	$(Q)$(CHECK_ENV) GPUMIX_TOP=$(CURDIR) GPUMIX_BUILD=$(CURDIR)/$(B) GPUMIX_REQUIRE_GPU=1 \
		tests/run $(UNIT_TESTS) $(TEST_SCRIPTS) $(GPU_TESTS)

# compute-sanitizer over the suite's replays, on a GPU (tests/compute_sanitizer.sh)
check-gpu-sanitize: all $(CHECK_DEPS)
	$(Q)GPUMIX_TOP=$(CURDIR) GPUMIX_BUILD=$(CURDIR)/$(B) bash tests/compute_sanitizer.sh

# Everything the tests need, without running them (e.g. before running one
# test script by hand: GPUMIX_TOP=. GPUMIX_BUILD=build tests/run FILE).
tests: all $(UNIT_TESTS) $(CHECK_DEPS)

bench: all $(CHECK_DEPS)
	$(Q)set -e; for b in $(BENCHES); do \
		GPUMIX_TOP=$(CURDIR) GPUMIX_BUILD=$(CURDIR)/$(B) sh $$b; done

demo: all $(CHECK_DEPS)
	$(Q)GPUMIX_TOP=$(CURDIR) GPUMIX_BUILD=$(CURDIR)/$(B) sh bench/demo.sh

# make demo-mock: the demo's kind of study without a GPU, on the tests' mock
# CUDA driver (workloads/demo-mock.yaml): every output, with the mock's times.
demo-mock: all $(CHECK_DEPS)
	$(Q)GPUMIX_TOP=$(CURDIR) GPUMIX_BUILD=$(CURDIR)/$(B) sh bench/demo.sh --mock

# make install [PREFIX=/usr/local] [DESTDIR=]: gpumix, the capture library
# (lib/gpumix, where gpumix looks for it), the replay header and libraries
# (replay/build.mk) with a pkg-config file, gpumix-replay.pc: `cc
# replay.c $$(pkg-config --cflags --libs gpumix-replay)` builds a generated
# replay program; the man pages (doc/build.mk); the study files and the
# suite they run (share/gpumix: workloads/*.yaml find the programs under
# build/workloads/parboil there, as in the source tree, so a copy of that
# directory is a place to run a study); the bash completion that `gpumix
# completion bash` prints (share/bash-completion/completions/gpumix).
# make uninstall removes them.
MAN1_DIR = $(DESTDIR)$(PREFIX)/share/man/man1
MAN7_DIR = $(DESTDIR)$(PREFIX)/share/man/man7
STUDY_DIR = $(DESTDIR)$(PREFIX)/share/gpumix
PC_DIR = $(DESTDIR)$(PREFIX)/lib/pkgconfig
BASH_COMPLETION_DIR = $(DESTDIR)$(PREFIX)/share/bash-completion/completions

# (gpumix of a sanitizer build must not fail on a leak report)
$(B)/gpumix.bash: $(GPUMIX)
	$(QUIET) GEN $@
	$(Q)ASAN_OPTIONS=detect_leaks=0 $(GPUMIX) completion bash >$@.tmp
	$(Q)mv $@.tmp $@
all: $(B)/gpumix.bash

install: all parboil
	$(QUIET) INSTALL $(DESTDIR)$(PREFIX)
	$(Q)install -d $(DESTDIR)$(PREFIX)/bin $(DESTDIR)$(PREFIX)/lib/gpumix \
		$(MAN1_DIR) $(MAN7_DIR) $(PC_DIR) $(BASH_COMPLETION_DIR) \
		$(STUDY_DIR)/workloads \
		$(STUDY_DIR)/build/workloads/parboil
	$(Q)install -m 755 $(PROGRAMS) $(DESTDIR)$(PREFIX)/bin/
	$(Q)install -m 755 $(SHLIBS) $(DESTDIR)$(PREFIX)/lib/gpumix/
	$(Q)install -m 644 $(MAN_CMD_PAGES) $(MAN1_DIR)/
	$(Q)install -m 644 $(MAN_OTHER_PAGES) $(MAN7_DIR)/
	$(Q)install -m 644 $(filter-out workloads/demo-mock.yaml,$(wildcard \
		workloads/*.yaml)) $(STUDY_DIR)/workloads/
	$(Q)install -m 644 $(B)/gpumix.bash $(BASH_COMPLETION_DIR)/gpumix
	$(Q)install -m 755 $(PARBOIL_BINS) $(STUDY_DIR)/build/workloads/parboil/
	$(Q){ echo 'prefix=$(PREFIX)'; \
	  echo 'includedir=$${prefix}/include/gpumix'; \
	  echo 'libdir=$${prefix}/lib/gpumix'; \
	  echo 'cudadir=$(CUDA_HOME)'; \
	  echo; \
	  echo 'Name: gpumix-replay'; \
	  echo 'Description: runtime of the replay programs gpumix reconstruct generates'; \
	  echo 'Version: $(VERSION)'; \
	  echo 'Cflags: -I$${includedir} -I$${cudadir}/include'; \
	  echo 'Libs: -L$${libdir} -lgpumix-replay -lgpumix-common -L$${cudadir}/lib64 -L$${cudadir}/lib64/stubs -Wl,-rpath,$${cudadir}/lib64 -lcupti -lcuda $(strip $(COMMON_LDLIBS)) -lpthread -lm'; \
	} >$(B)/gpumix-replay.pc
	$(Q)install -m 644 $(B)/gpumix-replay.pc $(PC_DIR)/

uninstall:
	$(QUIET) UNINSTALL $(DESTDIR)$(PREFIX)
	$(Q)rm -f $(addprefix $(DESTDIR)$(PREFIX)/bin/,$(notdir $(PROGRAMS))) \
		$(addprefix $(MAN1_DIR)/,$(notdir $(MAN_CMD_PAGES))) \
		$(addprefix $(MAN7_DIR)/,$(notdir $(MAN_OTHER_PAGES))) \
		$(PC_DIR)/gpumix-replay.pc $(BASH_COMPLETION_DIR)/gpumix
	$(Q)rm -rf $(DESTDIR)$(PREFIX)/lib/gpumix $(DESTDIR)$(PREFIX)/include/gpumix \
		$(STUDY_DIR)

clean:
	$(Q)rm -rf $(B)

help:
	@echo 'targets: all check check-gpu check-gpu-sanitize tests bench demo demo-mock install uninstall clean fuzz'
	@echo 'variables: V=1 DEVELOPER=1 SANITIZE=1 FUZZ_SECONDS=20 CUDA_HOME=$(CUDA_HOME) SM=$(SM) PREFIX=$(PREFIX) DESTDIR= INSTALL_DEPS=no'

.PHONY: all check check-gpu check-gpu-sanitize tests bench demo demo-mock install uninstall clean help FORCE

.SECONDARY:

-include $(shell find $(B) -name '*.d' 2>/dev/null)
