# SPDX-License-Identifier: MIT
# bench/placement/: the block scheduler's placement experiments
# (placement.cu, doc/placement.md), built with nvcc; run by
# bench/placement.sh.

PLACEMENT := $(B)/bench/placement
CHECK_DEPS += $(PLACEMENT)

$(PLACEMENT): bench/placement/placement.cu
	$(QUIET) NVCC $@
	$(Q)mkdir -p $(@D)
	$(Q)$(NVCC) $(NVCCFLAGS) -arch=sm_$(SM) -o $@ $<
