# SPDX-License-Identifier: MIT
# tests/mock/: a mock CUDA driver (libcuda.so.1), CUPTI (libcupti.so.13)
# and NVML (libnvidia-ml.so.1) so that make check runs generated replay
# programs end to end on a CPU (tests/cli/replay_mock.sh puts them first
# with LD_LIBRARY_PATH).

MOCK_DIR := $(B)/tests/mock
MOCK_LIBS := $(MOCK_DIR)/libcuda.so.1 $(MOCK_DIR)/libcupti.so.13 \
	$(MOCK_DIR)/libnvidia-ml.so.1
CHECK_DEPS += $(MOCK_LIBS)
EXTRA_CFLAGS_tests/mock := $(CUDA_INC)

$(MOCK_DIR)/libcuda.so.1: $(B)/pic/tests/mock/mock_cuda.o \
		$(B)/pic/tests/mock/mock_device.o $(B)/pic/tests/mock/mock_green.o \
		$(B)/pic/tests/mock/mock_graph.o $(B)/pic/tests/mock/mock_array.o $(B)/pic/tests/mock/mock_vmm.o \
		$(B)/pic/tests/mock/mock_sleep.o
	$(QUIET) LINK $@
	$(Q)mkdir -p $(@D)
	$(Q)$(CC) $(LDFLAGS) -shared -Wl,-soname,libcuda.so.1 -o $@ $^ -ldl -lpthread

$(MOCK_DIR)/libcupti.so.13: $(B)/pic/tests/mock/mock_cupti.o $(MOCK_DIR)/libcuda.so.1 tests/mock/cupti.map
	$(QUIET) LINK $@
	$(Q)$(CC) $(LDFLAGS) -shared -Wl,-soname,libcupti.so.13 \
		-Wl,--version-script=tests/mock/cupti.map -o $@ \
		$(B)/pic/tests/mock/mock_cupti.o -L$(MOCK_DIR) -l:libcuda.so.1

$(MOCK_DIR)/libnvidia-ml.so.1: $(B)/pic/tests/mock/mock_nvml.o
	$(QUIET) LINK $@
	$(Q)mkdir -p $(@D)
	$(Q)$(CC) $(LDFLAGS) -shared -Wl,-soname,libnvidia-ml.so.1 -o $@ $^

# The mock's own unit test, linked against the mock driver it tests.
MOCK_TEST := $(MOCK_DIR)/test_mock_cuda
UNIT_TESTS += $(MOCK_TEST)

$(MOCK_TEST): $(B)/tests/mock/test_mock_cuda.o $(MOCK_DIR)/libcuda.so.1
	$(QUIET) LINK $@
	$(Q)$(CC) $(LDFLAGS) -o $@ $< -L$(MOCK_DIR) -l:libcuda.so.1 \
		-Wl,-rpath,'$$ORIGIN' -lpthread

# A stand-in for nvidia-cuda-mps-control (the mps variant's CPU tests put
# its directory first in PATH; see the file's comment).
FAKE_MPS := $(MOCK_DIR)/mps/nvidia-cuda-mps-control
CHECK_DEPS += $(FAKE_MPS)

$(FAKE_MPS): $(B)/tests/mock/fake_mps_control.o
	$(QUIET) LINK $@
	$(Q)mkdir -p $(@D)
	$(Q)$(CC) $(LDFLAGS) -o $@ $<
