# SPDX-License-Identifier: MIT
# bench/gputime/: the CUPTI injection library the benchmarks use to measure
# a program's GPU time, launches and bytes moved (see gputime_inject.c).

GPUTIME_LIB := $(B)/libgpumix-gputime.so
CHECK_DEPS += $(GPUTIME_LIB)
EXTRA_CFLAGS_bench/gputime := $(CUDA_INC)

$(GPUTIME_LIB): $(B)/pic/bench/gputime/gputime_inject.o
	$(QUIET) LINK $@
	$(Q)$(CC) $(LDFLAGS) -shared -o $@ $< -L$(CUDA_LIBDIR) -Wl,-rpath,$(CUDA_LIBDIR) \
		-lcupti -lpthread
