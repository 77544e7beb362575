# SPDX-License-Identifier: MIT
# bench/driver_lock/: the probe of whether one thread's device-to-host
# copy holds up another thread's driver calls (driver_lock.c,
# doc/results/cuda-starvation.md); run by bench/driver_lock.sh.

DRIVER_LOCK := $(B)/bench/driver-lock
CHECK_DEPS += $(DRIVER_LOCK)
EXTRA_CFLAGS_bench/driver_lock := $(CUDA_INC)

$(DRIVER_LOCK): $(B)/bench/driver_lock/driver_lock.o
	$(QUIET) LINK $@
	$(Q)$(CC) $(LDFLAGS) -o $@ $< -L$(CUDA_LIBDIR)/stubs -lcuda -lpthread
