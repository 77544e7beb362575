# SPDX-License-Identifier: MIT
# analyze/: the run-directory reader, the SQLite loader, the paper's
# metrics and the report writer (libgpumix-analyze.a), used by
# `gpumix analyze` and `gpumix report`. Also builds the synthetic study
# generator used by the analyze tests and by `make bench`.


ANALYZE_SRCS := $(wildcard analyze/*.c)
ANALYZE_LIB := $(B)/libgpumix-analyze.a
EXTRA_CFLAGS_analyze := $(call pkg_cflags,sqlite3)
EXTRA_CFLAGS_cli += $(call pkg_cflags,sqlite3)
EXTRA_CFLAGS_tests/unit += $(call pkg_cflags,sqlite3)

LIBS += $(ANALYZE_LIB)
# libstdc++ provides __cxa_demangle (kernel names are C++ mangled).
CLI_LDLIBS += $(call pkg_libs,sqlite3) -lstdc++

$(ANALYZE_LIB): $(ANALYZE_SRCS:%.c=$(B)/%.o)
	$(QUIET) AR $@
	$(Q)rm -f $@ && ar rcs $@ $^

# The synthetic study generator (bench/gen_study.c): plain C, common/ only.
GEN_STUDY := $(B)/bench/gen_study
CHECK_DEPS += $(GEN_STUDY)
BENCHES += bench/analyze_bench.sh

$(GEN_STUDY): $(B)/bench/gen_study.o $(COMMON_LIB)
	$(QUIET) LINK $@
	$(Q)$(CC) $(LDFLAGS) -o $@ $^ $(COMMON_LDLIBS) -lm

# gpumix report writes the version into the report's index.
$(B)/cli/cmd_report.o: $(B)/version.h
