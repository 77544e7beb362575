# SPDX-License-Identifier: MIT
# tests/fuzz/: libFuzzer harnesses for every parser of user input (one
# fuzz_<name>.c each), their seed corpora (corpus/<name>/, made from
# tests/data by make-seeds.sh and committed) and the inputs that once
# crashed or hung them (regress/<name>/).
#
# Every build links each harness with driver.c (a plain main()) as
# $(B)/tests/fuzz/replay_<name>; make check replays the corpus and the
# regressions through them (tests/cli/fuzz_corpus.sh), sanitized under
# SANITIZE=1. `make fuzz` builds the harnesses with clang's libFuzzer,
# ASan and UBSan in build-fuzz/ (a make of its own: FUZZ=1) and runs each
# for FUZZ_SECONDS (tests/fuzz/run.sh).

FUZZ_NAMES := $(sort $(patsubst tests/fuzz/fuzz_%.c,%,$(wildcard tests/fuzz/fuzz_*.c)))
FUZZ_REPLAYERS := $(FUZZ_NAMES:%=$(B)/tests/fuzz/replay_%)
FUZZ_TARGETS := $(FUZZ_NAMES:%=$(B)/tests/fuzz/fuzz_%)
FUZZ_COMMON := $(B)/tests/fuzz/harness.o
FUZZ_SECONDS ?= 20
# Harnesses with a known crash still to fix, left out of `make fuzz` (run
# them by hand: tests/fuzz/run.sh NAME); none now.
FUZZ_KNOWN_CRASHES :=
CHECK_DEPS += $(FUZZ_REPLAYERS)
EXTRA_CFLAGS_tests/fuzz := $(call pkg_cflags,sqlite3 babeltrace2 yaml-0.1) \
	$(CUDA_INC)

$(FUZZ_REPLAYERS): $(B)/tests/fuzz/replay_%: $(B)/tests/fuzz/fuzz_%.o \
		$(B)/tests/fuzz/driver.o $(FUZZ_COMMON) $$(LIBS) $$(COMMON_LIB)
	$(QUIET) LINK $@
	$(Q)$(CC) $(LDFLAGS) -o $@ $(filter %.o,$^) $(LIBS) $(COMMON_LIB) \
		$(CLI_LDLIBS) $(COMMON_LDLIBS) -lm -lpthread

# (FUZZ=1 only: libFuzzer brings main())
$(FUZZ_TARGETS): $(B)/tests/fuzz/fuzz_%: $(B)/tests/fuzz/fuzz_%.o \
		$(FUZZ_COMMON) $$(LIBS) $$(COMMON_LIB)
	$(QUIET) LINK $@
	$(Q)$(CC) $(LDFLAGS) -fsanitize=fuzzer -o $@ $(filter %.o,$^) $(LIBS) \
		$(COMMON_LIB) $(CLI_LDLIBS) $(COMMON_LDLIBS) -lm -lpthread

fuzz-build: $(FUZZ_TARGETS)

ifeq ($(FUZZ),1)
fuzz: fuzz-build
	$(Q)FUZZ_BUILD=$(CURDIR)/$(B) FUZZ_SECONDS=$(FUZZ_SECONDS) \
		tests/fuzz/run.sh $(filter-out $(FUZZ_KNOWN_CRASHES),$(FUZZ_NAMES))
else
fuzz:
	$(Q)$(MAKE) --no-print-directory FUZZ=1 fuzz
endif

.PHONY: fuzz fuzz-build
