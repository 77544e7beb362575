# SPDX-License-Identifier: MIT
# cli/: the gpumix dispatcher. Components add their libraries to LIBS and
# their link flags to CLI_LDLIBS; cmd_<name>.c files are picked up here.

GPUMIX := $(B)/gpumix
CLI_SRCS := $(wildcard cli/*.c)
CLI_OBJS := $(CLI_SRCS:%.c=$(B)/%.o)
PROGRAMS += $(GPUMIX)

$(B)/cli/cmd_version.o: $(B)/version.h

$(GPUMIX): $(CLI_OBJS) $(LIBS) $(COMMON_LIB)
	$(QUIET) LINK $@
	$(Q)$(CC) $(LDFLAGS) -o $@ $(CLI_OBJS) $(LIBS) $(COMMON_LIB) \
		$(CLI_LDLIBS) $(COMMON_LDLIBS) -lm -lpthread
