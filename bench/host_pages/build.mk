# SPDX-License-Identifier: MIT
# bench/host_pages/: how fast a large pageable copy runs by where its
# host pages come from (host_pages.c); run by bench/host_pages.sh.

HOST_PAGES := $(B)/bench/host-pages
CHECK_DEPS += $(HOST_PAGES)
EXTRA_CFLAGS_bench/host_pages := $(CUDA_INC)

$(HOST_PAGES): $(B)/bench/host_pages/host_pages.o
	$(QUIET) LINK $@
	$(Q)$(CC) $(LDFLAGS) -o $@ $< -L$(CUDA_LIBDIR)/stubs -lcuda
