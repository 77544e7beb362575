# SPDX-License-Identifier: MIT
# bench/drivercalls/: the cost of timing the replay's driver calls
# (drivercalls_cost.c, replay/drvcalls.h); run by bench/drivercalls_cost.sh.

DRIVERCALLS_COST := $(B)/bench/drivercalls-cost
CHECK_DEPS += $(DRIVERCALLS_COST)

$(DRIVERCALLS_COST): $(B)/bench/drivercalls/drivercalls_cost.o $(REPLAY_PURE_LIB) $(COMMON_LIB)
	$(QUIET) LINK $@
	$(Q)$(CC) $(LDFLAGS) -o $@ $< $(REPLAY_PURE_LIB) $(COMMON_LIB) $(COMMON_LDLIBS) -lpthread -lm
