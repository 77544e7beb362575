# SPDX-License-Identifier: MIT
#
# replay/: the replay runtime. This file may hold several components'
# rules; each keeps to its own section and its own variables.

# ---- resource control of the elastic variant (elastic helper): block
# usage, GETPHYGRID/REDUCEBLOCKS, the MEDIAN/MPMAX/EQUAL/QUEUEMOLD policies
# and timeslice planning. Pure functions (common/ only), built into
# libgpumix-resource.a (linked by the CLI and the unit tests) and a -fPIC
# copy; libgpumix-replay may take RESOURCE_SRCS into its own archive.

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
