# SPDX-License-Identifier: MIT
# reconstruct/: the replay model (handle maps, pointer relocation), the C
# generator and the output directory writer: libgpumix-reconstruct.a
# (depends on common/; it also reads replay/gpumix_replay.h, header only,
# for the table structs and opcodes the generated code uses).

RECONSTRUCT_SRCS := reconstruct/handle_map.c reconstruct/intern.c \
	reconstruct/id_pool.c reconstruct/addr_map.c reconstruct/reloc.c \
	reconstruct/model.c reconstruct/codegen.c reconstruct/recon_dir.c
RECONSTRUCT_LIB := $(B)/libgpumix-reconstruct.a
LIBS += $(RECONSTRUCT_LIB)

$(RECONSTRUCT_LIB): $(RECONSTRUCT_SRCS:%.c=$(B)/%.o)
	$(QUIET) AR $@
	$(Q)rm -f $@ && ar rcs $@ $^

# A test tool: hand-built models written as reconstruct output (the replay
# tests and the reconstruct benchmark use it until real bundles exist).
GEN_WORKLOAD := $(B)/tests/gen-workload
CHECK_DEPS += $(GEN_WORKLOAD)

$(GEN_WORKLOAD): $(B)/tests/tools/gen_workload.o $(RECONSTRUCT_LIB) $(COMMON_LIB)
	$(QUIET) LINK $@
	$(Q)$(CC) $(LDFLAGS) -o $@ $^ $(COMMON_LDLIBS) -lm

BENCHES += bench/reconstruct_bench.sh
BENCHES += bench/replay_overhead.sh
