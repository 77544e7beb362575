# SPDX-License-Identifier: MIT
# tests/: C unit tests (tests/unit/test_*.c, one program each, linked with
# every component library), shell tests (tests/cli/*.sh, tests/gpu/*.sh)
# and the GPU detector used by tests/lib.sh.

UNIT_TEST_SRCS := $(sort $(wildcard tests/unit/test_*.c))
UNIT_TESTS += $(UNIT_TEST_SRCS:tests/unit/%.c=$(B)/tests/unit/%)
TEST_SCRIPTS += $(sort $(wildcard tests/cli/*.sh))
GPU_TESTS += $(sort $(wildcard tests/gpu/*.sh))
CHECK_DEPS += $(B)/tests/has-gpu
TEST_LIBS :=     # extra libraries only tests link (components append)

$(B)/tests/unit/%: $(B)/tests/unit/%.o $$(TEST_LIBS) $$(LIBS) $$(COMMON_LIB)
	$(QUIET) LINK $@
	$(Q)$(CC) $(LDFLAGS) -o $@ $< $(TEST_LIBS) $(LIBS) $(COMMON_LIB) \
		$(CLI_LDLIBS) $(COMMON_LDLIBS) -lm -lpthread

$(B)/tests/has-gpu: $(B)/tests/has_gpu.o
	$(QUIET) LINK $@
	$(Q)$(CC) $(LDFLAGS) -o $@ $< -ldl
