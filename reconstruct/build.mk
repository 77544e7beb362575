# SPDX-License-Identifier: MIT
# reconstruct/: the replay model (handle maps, pointer relocation), the C
# generator and the output directory writer; every reconstruct/*.c goes
# into libgpumix-reconstruct.a. (The bundle reader, from the capture
# branch, adds its babeltrace2 flags here when merged.) The generator also
# reads replay/gpumix_replay.h, header only, for the table structs.

RECONSTRUCT_SRCS := $(wildcard reconstruct/*.c)
RECONSTRUCT_LIB := $(B)/libgpumix-reconstruct.a
LIBS := $(RECONSTRUCT_LIB) $(LIBS)

$(RECONSTRUCT_LIB): $(RECONSTRUCT_SRCS:%.c=$(B)/%.o)
	$(QUIET) AR $@
	$(Q)rm -f $@ && ar rcs $@ $^

# ---- replay helper's section: a test tool and two benchmarks ----
# gen-workload builds models by hand and writes them as reconstruct output
# (the replay tests and benchmarks use it until captured bundles exist).
GEN_WORKLOAD := $(B)/tests/gen-workload
CHECK_DEPS += $(GEN_WORKLOAD)
BENCHES += bench/reconstruct_bench.sh bench/replay_overhead.sh

$(GEN_WORKLOAD): $(B)/tests/tools/gen_workload.o $(RECONSTRUCT_LIB) $(COMMON_LIB)
	$(QUIET) LINK $@
	$(Q)$(CC) $(LDFLAGS) -o $@ $^ $(COMMON_LDLIBS) -lm
# ---- end of the replay helper's section ----
