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

# Dependencies, as "pkg-config-name:debian-package". Components append.
PKG_DEPS :=

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

all:

# common/ first (others use its variables), cli/ last (it links them all).
include common/build.mk
include $(filter-out common/build.mk cli/build.mk,$(sort $(wildcard */build.mk */*/build.mk)))
include cli/build.mk

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
	LSAN_OPTIONS=suppressions=$(CURDIR)/tests/lsan.supp:print_suppressions=0 \
	LIBBABELTRACE2_NO_DLCLOSE=1
endif

# Stop early, naming the Debian package, when a library is missing.
NO_DEP_GOALS := clean help
ifneq ($(filter-out $(NO_DEP_GOALS),$(or $(MAKECMDGOALS),all)),)
MISSING_DEPS := $(foreach d,$(sort $(PKG_DEPS)),$(if $(shell $(PKG_CONFIG) --exists $(word 1,$(subst :, ,$(d))) && echo y),,$(word 2,$(subst :, ,$(d)))))
ifneq ($(strip $(MISSING_DEPS)),)
$(error missing build dependencies; install them with: apt-get install $(strip $(MISSING_DEPS)))
endif
# Every component sees every dependency's headers: header-only users
# (xxhash through common/hash.h) and installs outside /usr/include.
BASE_CFLAGS += $(call pkg_cflags,$(foreach d,$(sort $(PKG_DEPS)),$(word 1,$(subst :, ,$(d)))))
ifeq ($(wildcard $(NVCC)),)
$(error nvcc not found at $(NVCC); install the CUDA 13 toolkit or set CUDA_HOME)
endif
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

# Everything the tests need, without running them (e.g. before running one
# test script by hand: GPUMIX_TOP=. GPUMIX_BUILD=build tests/run FILE).
tests: all $(UNIT_TESTS) $(CHECK_DEPS)

bench: all $(CHECK_DEPS)
	$(Q)set -e; for b in $(BENCHES); do \
		GPUMIX_TOP=$(CURDIR) GPUMIX_BUILD=$(CURDIR)/$(B) sh $$b; done

demo: all $(CHECK_DEPS)
	$(Q)GPUMIX_TOP=$(CURDIR) GPUMIX_BUILD=$(CURDIR)/$(B) sh bench/demo.sh

install: all
	$(Q)install -d $(DESTDIR)$(PREFIX)/bin $(DESTDIR)$(PREFIX)/lib/gpumix
	$(Q)for p in $(PROGRAMS); do install -m 755 $$p $(DESTDIR)$(PREFIX)/bin/; done
	$(Q)for l in $(SHLIBS); do install -m 755 $$l $(DESTDIR)$(PREFIX)/lib/gpumix/; done

clean:
	$(Q)rm -rf $(B)

help:
	@echo 'targets: all check check-gpu tests bench demo install clean fuzz'
	@echo 'variables: V=1 DEVELOPER=1 SANITIZE=1 FUZZ_SECONDS=20 CUDA_HOME=$(CUDA_HOME) SM=$(SM) PREFIX=$(PREFIX)'

.PHONY: all check check-gpu tests bench demo install clean help FORCE

.SECONDARY:

-include $(shell find $(B) -name '*.d' 2>/dev/null)
