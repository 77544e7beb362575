# SPDX-License-Identifier: MIT
# workloads/parboil/: the Parboil-style suite. Each program lives in
# workloads/parboil/<name>/ as <name>.cu (kernels and the Parboil-style
# host code) plus <name>_ref.c/.h (deterministic input generator and CPU
# reference, also unit-tested with gcc by tests/unit/test_parboil_*.c).
# Built with plain nvcc: static cudart, -arch=sm_$(SM) (SASS and PTX).

PARBOIL_PROGS := bfs cutcp fft histo lbm mri-q mm sad spmv stencil tpacf
PARBOIL_DIR := workloads/parboil
PARBOIL_PRESENT := $(foreach p,$(PARBOIL_PROGS),$(if $(wildcard $(PARBOIL_DIR)/$(p)/$(p).cu),$(p)))
PARBOIL_BINS := $(PARBOIL_PRESENT:%=$(B)/$(PARBOIL_DIR)/%)
PARBOIL_NVCCFLAGS := $(NVCCFLAGS) -arch=sm_$(SM) -I$(PARBOIL_DIR)/common -Icommon
PARBOIL_REF_SRCS := $(wildcard $(PARBOIL_DIR)/*/*_ref.c)
PARBOIL_REF_LIB := $(B)/libparboil-ref.a
EXTRA_CFLAGS_$(PARBOIL_DIR)/common := -I$(PARBOIL_DIR)/common
$(foreach p,$(PARBOIL_PROGS),$(eval EXTRA_CFLAGS_$(PARBOIL_DIR)/$(p) := -I$(PARBOIL_DIR)/common -I$(PARBOIL_DIR)/$(p)))

CHECK_DEPS += $(PARBOIL_BINS)
TEST_LIBS += $(PARBOIL_REF_LIB)

parboil: $(PARBOIL_BINS)
.PHONY: parboil

# Each program: its .cu, its reference and the shared occupancy code.
$(PARBOIL_BINS): $(B)/$(PARBOIL_DIR)/%: $$(wildcard $(PARBOIL_DIR)/$$*/*.cu $(PARBOIL_DIR)/$$*/*.c $(PARBOIL_DIR)/$$*/*.h) \
		$(wildcard $(PARBOIL_DIR)/common/*.h) common/occupancy.c common/occupancy.h
	$(QUIET) NVCC $@
	$(Q)mkdir -p $(@D)
	$(Q)$(NVCC) $(PARBOIL_NVCCFLAGS) -I$(PARBOIL_DIR)/$* -o $@ \
		$(filter %.cu %.c,$^)

# The gcc-built reference objects live under $(B)/parboil-ref/: under
# $(B)/workloads/parboil/P/ they would need a directory where the program
# binary $(B)/workloads/parboil/P is.
PARBOIL_REF_OBJS := $(PARBOIL_REF_SRCS:%.c=$(B)/parboil-ref/%.o)

$(B)/parboil-ref/%.o: %.c
	$(QUIET) CC $@
	$(Q)mkdir -p $(@D)
	$(Q)$(CC) $(BASE_CFLAGS) $(EXTRA_CFLAGS_$(<D)) $(CFLAGS) -c -o $@ $<

$(PARBOIL_REF_LIB): $(PARBOIL_REF_OBJS)
	$(QUIET) AR $@
	$(Q)rm -f $@ && ar rcs $@ $^
