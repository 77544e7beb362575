# SPDX-License-Identifier: MIT
# reconstruct/: the PTX side of the elastic variant -- fatbin reader, PTX
# parser, kernel analysis, elastic transformation, ptxas runner -- built
# into libgpumix-ptx.a. (Other reconstruct/ sources add their own library.)

PKG_DEPS += libzstd:libzstd-dev

PTX_SRCS := $(sort $(wildcard reconstruct/ptx_*.c) reconstruct/fatbin.c)
PTX_LIB := $(B)/libgpumix-ptx.a
LIBS += $(PTX_LIB)
CLI_LDLIBS += $(call pkg_libs,libzstd)

$(PTX_LIB): $(PTX_SRCS:%.c=$(B)/%.o)
	$(QUIET) AR $@
	$(Q)rm -f $@ && ar rcs $@ $^
