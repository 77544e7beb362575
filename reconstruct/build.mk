# SPDX-License-Identifier: MIT
# reconstruct/: the bundle reader (trace_reader.c) and, later, the code
# generator; every reconstruct/*.c goes into libgpumix-reconstruct.a.

PKG_DEPS += babeltrace2:libbabeltrace2-dev

EXTRA_CFLAGS_reconstruct := $(call pkg_cflags,babeltrace2) $(CUDA_INC)
RECONSTRUCT_SRCS := $(wildcard reconstruct/*.c)
RECONSTRUCT_LIB := $(B)/libgpumix-reconstruct.a
# Before capture's library in link order: the reader uses its API table.
LIBS := $(RECONSTRUCT_LIB) $(LIBS)
CLI_LDLIBS += $(call pkg_libs,babeltrace2)

$(RECONSTRUCT_LIB): $(RECONSTRUCT_SRCS:%.c=$(B)/%.o)
	$(QUIET) AR $@
	$(Q)rm -f $@ && ar rcs $@ $^
