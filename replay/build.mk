# SPDX-License-Identifier: MIT
#
# replay/: the replay runtime. This file may hold several components'
# rules; each keeps to its own section and its own variables.

# ---- resource control of the elastic variant (elastic helper): block
# usage, GETPHYGRID/REDUCEBLOCKS, the MEDIAN/MPMAX/EQUAL/QUEUEMOLD policies
# and timeslice planning. Pure functions (common/ only), built into
# libgpumix-resource.a (linked by the CLI and the unit tests) and a -fPIC
# copy; libgpumix-replay takes them into its own archive (the elastic
# variant's policy planner).

RESOURCE_SRCS := replay/block_usage.c replay/phygrid.c replay/policy.c \
	replay/timeslice.c
RESOURCE_LIB := $(B)/libgpumix-resource.a
RESOURCE_PIC_LIB := $(B)/libgpumix-resource-pic.a
LIBS += $(RESOURCE_LIB)

$(RESOURCE_LIB): $(RESOURCE_SRCS:%.c=$(B)/%.o)
	$(QUIET) AR $@
	$(Q)rm -f $@ && ar rcs $@ $^

$(RESOURCE_PIC_LIB): $(RESOURCE_SRCS:%.c=$(B)/pic/%.o)
	$(QUIET) AR $@
	$(Q)rm -f $@ && ar rcs $@ $^

# ---- end of the resource control

# ---- libgpumix-replay: the runtime linked into generated replay programs
# (depends on common/ and the CUDA driver API + CUPTI only). The pure parts
# (allocator bookkeeping, repetition, watchdog, run-directory writer) also
# form libgpumix-replay-pure.a, which the CPU unit tests link.

EXTRA_CFLAGS_replay += $(CUDA_INC)

REPLAY_PURE_SRCS := replay/bulk_alloc.c replay/repeat.c replay/watchdog.c \
	replay/run_writer.c replay/elastic_index.c replay/dep_tracker.c \
	replay/process_board.c replay/mps_daemon.c replay/gpu_state.c \
	replay/drvcalls.c \
	replay/host_gap.c replay/addr_hold.c replay/op_traits.c
REPLAY_CUDA_SRCS := replay/cu_check.c replay/runtime.c replay/profiler.c replay/ops.c \
	replay/hostmem.c \
	replay/sched.c replay/sched_serial.c replay/sched_nss.c replay/sched_priority.c replay/sched_green.c replay/launch_plan.c \
	replay/launch_policy.c replay/graph_ops.c replay/copy_nd.c \
	replay/prog.c replay/prog_check.c replay/kernel_knobs.c replay/run.c replay/run_manifest.c \
	replay/elastic_launch.c replay/process_run.c \
	replay/process_merge.c \
	replay/probe.c replay/addr_space.c replay/open_loop.c
REPLAY_LIB := $(B)/libgpumix-replay.a
REPLAY_PURE_LIB := $(B)/libgpumix-replay-pure.a
REPLAY_HEADER := replay/gpumix_replay.h
# How generated programs link (gpumix replay uses the same list).
REPLAY_LDLIBS = -L$(CUDA_LIBDIR) -L$(CUDA_LIBDIR)/stubs \
	-Wl,-rpath,$(CUDA_LIBDIR) -lcupti -lcuda $(COMMON_LDLIBS) -lpthread -lm

# (LIBS, not TEST_LIBS: tests/build.mk resets TEST_LIBS after us; a static
# library costs the CLI nothing it does not use.)
LIBS += $(REPLAY_PURE_LIB)
CHECK_DEPS += $(REPLAY_LIB) $(COMMON_LIB)
all: $(REPLAY_LIB)

$(B)/replay/run_manifest.o: $(B)/version.h

# One relocatable object in which only the gm_ symbols stay global: a
# library linked into users' programs exports nothing else (the helpers
# of replay/ and common/ become local to it).
REPLAY_OBJ := $(B)/replay/libgpumix-replay.o
$(REPLAY_OBJ): $(REPLAY_PURE_SRCS:%.c=$(B)/%.o) $(REPLAY_CUDA_SRCS:%.c=$(B)/%.o) \
		$(RESOURCE_SRCS:%.c=$(B)/%.o) $(COMMON_SRCS:%.c=$(B)/%.o)
	$(QUIET) LD $@
	$(Q)$(LD) -r -o $@.tmp $^
	$(Q)objcopy --wildcard --keep-global-symbol='gm_*' $@.tmp $@
	$(Q)rm -f $@.tmp

$(REPLAY_LIB): $(REPLAY_OBJ)
	$(QUIET) AR $@
	$(Q)rm -f $@ && ar rcs $@ $^

$(REPLAY_PURE_LIB): $(REPLAY_PURE_SRCS:%.c=$(B)/%.o)
	$(QUIET) AR $@
	$(Q)rm -f $@ && ar rcs $@ $^

# tests/unit/test_op_tables asks the executors' handler tables which codes
# they run: it links the whole runtime, and runs it on the mock driver.
OP_TABLES_TEST := $(B)/tests/unit/test_op_tables
$(OP_TABLES_TEST): TEST_LIBS += $(REPLAY_LIB)
$(OP_TABLES_TEST): CLI_LDLIBS += -L$(B)/tests/mock -l:libcuda.so.1 \
	-l:libcupti.so.13 -Wl,-rpath,'$$ORIGIN/../mock'
$(OP_TABLES_TEST): $(B)/tests/mock/libcuda.so.1 $(B)/tests/mock/libcupti.so.13

# gpumix replay links generated programs with the same libraries.
$(B)/cli/cmd_replay.o: CFLAGS += -DGM_CUDA_HOME='"$(CUDA_HOME)"' \
	-DGM_REPLAY_LIBS='"$(COMMON_LDLIBS)"'
$(B)/cli/cmd_replay.o: replay/build.mk

# Installed for `gpumix replay`: the header, the two static libraries.
install: install-replay
install-replay: $(REPLAY_LIB) $(COMMON_LIB)
	$(Q)install -d $(DESTDIR)$(PREFIX)/include/gpumix $(DESTDIR)$(PREFIX)/lib/gpumix
	$(Q)install -m 644 $(REPLAY_HEADER) $(DESTDIR)$(PREFIX)/include/gpumix/
	$(Q)install -m 644 $(REPLAY_LIB) $(COMMON_LIB) $(DESTDIR)$(PREFIX)/lib/gpumix/
.PHONY: install-replay

# ---- end of libgpumix-replay
