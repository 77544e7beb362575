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

# The GPU check and benchmark driver of the elastic transformation
# (tests/gpu/elastic.sh, bench/elastic.sh). Linked against the driver
# stub so that it builds without a GPU; it loads libcuda.so.1 at run time.
ELASTIC_RUN := $(B)/tests/elastic-run
CHECK_DEPS += $(ELASTIC_RUN)
BENCHES += bench/elastic.sh

$(ELASTIC_RUN): tests/gpu/elastic_run.c common/elastic_abi.h
	$(QUIET) CC $@
	$(Q)mkdir -p $(@D)
	$(Q)$(CC) $(BASE_CFLAGS) $(CFLAGS) $(CUDA_INC) -o $@ $< \
		-L$(CUDA_LIBDIR)/stubs -lcuda

# Regenerate the corpus PTX (committed) from its CUDA sources.
elastic-corpus:
	$(Q)for f in tests/data/ptx/*.cu; do \
		flags=; case $$f in *devrt.cu) flags=-rdc=true;; esac; \
		echo "  NVCC     $${f%.cu}.ptx"; \
		$(NVCC) -arch=sm_$(SM) $$flags -ptx -o $${f%.cu}.ptx $$f || exit 1; \
	done
.PHONY: elastic-corpus
