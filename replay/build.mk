# SPDX-License-Identifier: MIT
# replay/: resource control of the elastic variant -- block usage,
# GETPHYGRID/REDUCEBLOCKS, the MEDIAN/MPMAX/EQUAL/QUEUEMOLD policies and
# timeslice planning -- pure functions built into libgpumix-resource.a
# (part of libgpumix-replay later; the runtime library adds its own
# sources and rules here).

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
