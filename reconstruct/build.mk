# SPDX-License-Identifier: MIT
# reconstruct/: three rooms and the command that joins them.
#   trace/  the bundle reader (trace_reader.c) and the feed of its calls
#           into the model (bundle_feed.c);
#   model/  the replay model (handle maps, pointer relocation) and the C
#           generator (codegen.c);
#   ptx/    the PTX side of the elastic variant (fatbin reader, PTX parser,
#           analysis, transformation, ptxas runner);
#   *.c     the reconstruct command itself and its output directory writer.
# Direction (tests/cli/layering.sh): ptx/ and model/ include nothing of the
# other rooms, trace/ includes model/ (the feed), never ptx/. Every .c goes
# into libgpumix-reconstruct.a. The generator also reads
# replay/gpumix_replay.h, header only, for the table structs.

RECONSTRUCT_DIRS := reconstruct reconstruct/trace reconstruct/model reconstruct/ptx
$(foreach d,$(RECONSTRUCT_DIRS),$(eval EXTRA_CFLAGS_$(d) := \
	$$(call pkg_cflags,babeltrace2) $$(CUDA_INC)))
RECONSTRUCT_SRCS := $(foreach d,$(RECONSTRUCT_DIRS),$(wildcard $(d)/*.c))
RECONSTRUCT_LIB := $(B)/libgpumix-reconstruct.a
# Before capture's library in link order: the reader uses its API table.
LIBS := $(RECONSTRUCT_LIB) $(LIBS)
CLI_LDLIBS += $(call pkg_libs,babeltrace2)

$(RECONSTRUCT_LIB): $(RECONSTRUCT_SRCS:%.c=$(B)/%.o)
	$(QUIET) AR $@
	$(Q)rm -f $@ && ar rcs $@ $^

# ---- replay helper's section: a test tool and two benchmarks ----
# gen-workload builds models by hand and writes them as reconstruct output
# (the replay tests and benchmarks use it until captured bundles exist).
GEN_WORKLOAD := $(B)/tests/gen-workload
CHECK_DEPS += $(GEN_WORKLOAD)
BENCHES += bench/reconstruct_bench.sh bench/replay_overhead.sh

$(GEN_WORKLOAD): $(B)/tests/tools/gen_workload.o $(RECONSTRUCT_LIB) $(COMMON_LIB)
	$(QUIET) LINK $@
	$(Q)$(CC) $(LDFLAGS) -o $@ $^ $(COMMON_LDLIBS) \
		$(call pkg_libs,libzstd) -lm
# ---- end of the replay helper's section ----
# ---- elastic helper's section: the PTX side of the elastic variant ----
# (fatbin reader, PTX parser, kernel analysis, elastic transformation,
# ptxas runner: reconstruct/ptx/, which the wildcard above puts into
# libgpumix-reconstruct.a), the GPU check and
# benchmark driver, and the corpus regeneration rule.
CLI_LDLIBS += $(call pkg_libs,libzstd)

# The GPU check and benchmark driver of the elastic transformation
# (tests/gpu/elastic.sh, bench/elastic.sh). Linked against the driver
# stub so that it builds without a GPU; it loads libcuda.so.1 at run time.
ELASTIC_RUN := $(B)/tests/elastic-run
CHECK_DEPS += $(ELASTIC_RUN)
BENCHES += bench/elastic.sh bench/elastic_replay.sh

$(ELASTIC_RUN): tests/gpu/elastic_run.c common/elastic_abi.h
	$(QUIET) CC $@
	$(Q)mkdir -p $(@D)
	$(Q)$(CC) $(BASE_CFLAGS) $(CFLAGS) $(CUDA_INC) $(LDFLAGS) -o $@ $< \
		-L$(CUDA_LIBDIR)/stubs -lcuda

# Regenerate the corpus PTX (committed) from its CUDA sources.
elastic-corpus:
	$(Q)for f in tests/data/ptx/*.cu; do \
		flags=; case $$f in *devrt.cu) flags=-rdc=true;; esac; \
		echo "  NVCC     $${f%.cu}.ptx"; \
		$(NVCC) -arch=sm_$(SM) $$flags -ptx -o $${f%.cu}.ptx $$f || exit 1; \
	done
.PHONY: elastic-corpus
# ---- end of the elastic helper's section ----
# ---- reconstruct command's section: the test stand-in program ----
# recon-emitter emits the driver calls of small programs (and of a
# synthetic million-call one) through the real capture library, for the
# reconstruct corpus (tests/data/reconstruct) and benchmark.
RECON_EMITTER := $(B)/tests/recon-emitter
CHECK_DEPS += $(RECON_EMITTER)
BENCHES += bench/reconstruct_speed.sh bench/replay_fidelity.sh
EXTRA_CFLAGS_tests/tools += $(CUDA_INC)

$(RECON_EMITTER): $(B)/tests/tools/recon_emitter.o $(CAPTURE_SO) \
		$(CAPTURE_LIB) $(COMMON_LIB)
	$(QUIET) LINK $@
	$(Q)$(CC) $(LDFLAGS) -o $@ $< $(CAPTURE_LIB) $(COMMON_LIB) -L$(B) \
		-Wl,-rpath,'$$ORIGIN/..' -l:libgpumix-capture.so \
		$(COMMON_LDLIBS) -lpthread
# ---- end of the reconstruct command's section ----
