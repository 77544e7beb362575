# SPDX-License-Identifier: MIT
# common/: helpers every component links (libgpumix-common.a, plus a -fPIC
# copy for shared libraries such as the capture library). Besides the
# helpers, the bundle format that capture writes and reconstruct reads:
# the API table (cuda_api.def, api.h), the event model (record.h), the
# blob store and module images.

# The API table (api.c) names CUPTI's callback ids: a header, no library.
EXTRA_CFLAGS_common = $(call pkg_cflags,libxxhash) $(CUDA_INC)

COMMON_SRCS := $(wildcard common/*.c)
COMMON_LIB := $(B)/libgpumix-common.a
COMMON_PIC_LIB := $(B)/libgpumix-common-pic.a
# xxhash is used header-only (XXH_INLINE_ALL in hash.c): nothing to link.
COMMON_LDLIBS =

$(COMMON_LIB): $(COMMON_SRCS:%.c=$(B)/%.o)
	$(QUIET) AR $@
	$(Q)rm -f $@ && ar rcs $@ $^

$(COMMON_PIC_LIB): $(COMMON_SRCS:%.c=$(B)/pic/%.o)
	$(QUIET) AR $@
	$(Q)rm -f $@ && ar rcs $@ $^
