# SPDX-License-Identifier: MIT
# capture/: libgpumix-capture.so (the CUPTI injection library with the
# gpumix_capture LTTng provider, loaded into captured programs) and
# libgpumix-capture.a (session control, bundle finalisation: linked into
# the gpumix CLI). The API table and the event and blob formats they share
# with the bundle reader live in common/.


EXTRA_CFLAGS_capture := $(CUDA_INC) -fvisibility=hidden -I$(B)

# The provider's enumeration of call names, generated from cuda_api.def by
# the preprocessor (capture/tp_api_enum.in): one macro, one entry a line.
CAPTURE_TP_ENUM := $(B)/capture/tp_api_enum.h

$(CAPTURE_TP_ENUM): capture/tp_api_enum.in common/cuda_api.def
	$(QUIET) GEN $@
	$(Q)mkdir -p $(@D)
	$(Q){ echo '/* generated from common/cuda_api.def by capture/build.mk */'; \
	  echo '#define GM_TP_API_ENUM_VALUES \\'; \
	  $(CC) -E -P -I. -x c capture/tp_api_enum.in | tr '@' '\n' | \
	  sed -n 's/^\(lttng_ust_field_enum_value(.*)\) *$$/\t\1 \\/p'; \
	  echo; } > $@.tmp && mv $@.tmp $@

$(B)/pic/capture/provider.o $(B)/pic/capture/emit.o: $(CAPTURE_TP_ENUM)

# Everything that runs inside the captured program.
CAPTURE_SO_SRCS := capture/emit.c capture/tracking.c capture/hostmem.c \
	capture/graph_track.c capture/graph_host.c capture/host_resident.c \
	capture/inject.c capture/inject_activity.c capture/inject_code.c \
	capture/inject_copy.c capture/inject_graph.c \
	capture/inject_graph_launch.c capture/inject_host_func.c \
	capture/inject_launch.c capture/inject_objects.c \
	capture/inject_results.c capture/inject_runtime.c \
	capture/inject_state.c capture/provider.c
CAPTURE_SO := $(B)/libgpumix-capture.so
# Every symbol the library uses must be defined, except in a sanitizer
# build: there the executable holds the sanitizer runtime the library calls.
CAPTURE_SO_DEFS := $(if $(filter 1,$(SANITIZE)),,-Wl,--no-undefined)
SHLIBS += $(CAPTURE_SO)

# What the CLI links (no CUPTI, no LTTng-UST).
CAPTURE_LIB_SRCS := capture/counts.c capture/session.c capture/bundle.c \
	capture/bundle_streams.c \
	capture/capture_run.c capture/descendants.c
CAPTURE_LIB := $(B)/libgpumix-capture.a
LIBS += $(CAPTURE_LIB)

$(CAPTURE_SO): $(CAPTURE_SO_SRCS:%.c=$(B)/pic/%.o) $(COMMON_PIC_LIB) \
		capture/libgpumix-capture.map
	$(QUIET) LINK $@
	$(Q)$(CC) $(LDFLAGS) -shared -o $@ $(filter %.o,$^) $(COMMON_PIC_LIB) \
		-Wl,--version-script=capture/libgpumix-capture.map \
		$(CAPTURE_SO_DEFS) -L$(CUDA_LIBDIR) -Wl,-rpath,$(CUDA_LIBDIR) \
		-lcupti $(call pkg_libs,lttng-ust) $(COMMON_LDLIBS) -ldl -lpthread

$(CAPTURE_LIB): $(CAPTURE_LIB_SRCS:%.c=$(B)/%.o)
	$(QUIET) AR $@
	$(Q)rm -f $@ && ar rcs $@ $^

# The capture command records the tool version in each manifest.
$(B)/cli/cmd_capture.o: $(B)/version.h

# The test stand-in for a CUDA program: drives the synthetic event sequence
# through the real emit layer and provider (tests/unit/capture_emitter.c).
CAPTURE_EMITTER := $(B)/tests/capture_emitter
CAPTURE_CUPTI_EMITTER := $(B)/tests/capture_cupti_emitter
CAPTURE_HOSTTIME_EMITTER := $(B)/tests/capture_hosttime_emitter
CHECK_DEPS += $(CAPTURE_EMITTER) $(CAPTURE_CUPTI_EMITTER) \
	$(CAPTURE_HOSTTIME_EMITTER) $(CAPTURE_SO)
EXTRA_CFLAGS_tests/unit += $(CUDA_INC)

$(CAPTURE_EMITTER) $(CAPTURE_CUPTI_EMITTER) $(CAPTURE_HOSTTIME_EMITTER): \
		$(B)/tests/%: $(B)/tests/unit/%.o $(CAPTURE_SO) \
		$(CAPTURE_LIB) $(COMMON_LIB)
	$(QUIET) LINK $@
	$(Q)$(CC) $(LDFLAGS) -o $@ $< $(CAPTURE_LIB) $(COMMON_LIB) -L$(B) \
		-Wl,-rpath,'$$ORIGIN/..' -l:libgpumix-capture.so \
		$(COMMON_LDLIBS) -lpthread

# A zero-copy and managed-memory program on the mock driver, captured
# through the real subscriber (tests/cli/capture_hostmem.sh).
HOSTMEM_EMITTER := $(B)/tests/hostmem-emitter
CHECK_DEPS += $(HOSTMEM_EMITTER)

$(HOSTMEM_EMITTER): $(B)/tests/tools/hostmem_emitter.o $(CAPTURE_SO) \
		$(B)/tests/mock/libcuda.so.1
	$(QUIET) LINK $@
	$(Q)$(CC) $(LDFLAGS) -o $@ $< -L$(B) -L$(B)/tests/mock \
		-Wl,-rpath,'$$ORIGIN/..' -Wl,-rpath,'$$ORIGIN/mock' \
		-l:libgpumix-capture.so -l:libcuda.so.1 -lpthread

# More such programs, one per feature of real programs (each
# tests/tools/NAME_emitter.c, with tests/tools/mock_call.h): the program
# NAME-emitter.
MOCK_EMITTERS := graph cmdbuf streams kernels arrays
CHECK_DEPS += $(MOCK_EMITTERS:%=$(B)/tests/%-emitter)

define mock_emitter_rule
$(B)/tests/$(1)-emitter: $(B)/tests/tools/$(1)_emitter.o $(CAPTURE_SO) \
		$(B)/tests/mock/libcuda.so.1
	$$(QUIET) LINK $$@
	$$(Q)$$(CC) $$(LDFLAGS) -o $$@ $$< -L$(B) -L$(B)/tests/mock \
		-Wl,-rpath,'$$$$ORIGIN/..' -Wl,-rpath,'$$$$ORIGIN/mock' \
		-l:libgpumix-capture.so -l:libcuda.so.1 -lpthread
endef
$(foreach e,$(MOCK_EMITTERS),$(eval $(call mock_emitter_rule,$(e))))

# Small programs for the GPU tests and the benchmark (tests/gpu/progs):
# built by make check everywhere (nvcc needs no GPU), run on a GPU host.
CAPTURE_PROGS_DIR := $(B)/tests/gpu/progs
CAPTURE_PROGS := $(addprefix $(CAPTURE_PROGS_DIR)/,vecadd_shared driver_api \
	coverage cublas_sgemm spin launch_loop h2d_big event_reuse fault \
	clock_result cufft_c2c curand_gen cusparse_spmv zerocopy_managed graphs \
	streams_reuse graph_host arrays2d \
	hostfunc_pools ptr_table vmm_alloc cublas_batched cmdbuf)
CHECK_DEPS += $(CAPTURE_PROGS)
CAPTURE_NVCC := $(NVCC) $(NVCCFLAGS) -arch=sm_$(SM)

$(CAPTURE_PROGS_DIR)/vecadd_shared: tests/gpu/progs/vecadd_shared.cu
	$(QUIET) NVCC $@
	$(Q)mkdir -p $(@D)
	$(Q)$(CAPTURE_NVCC) -cudart shared -o $@ $<

$(CAPTURE_PROGS_DIR)/driver_api: tests/gpu/progs/driver_api.c
	$(QUIET) CC $@
	$(Q)mkdir -p $(@D)
	$(Q)$(CC) $(BASE_CFLAGS) $(CFLAGS) $(CUDA_INC) $(LDFLAGS) -o $@ $< \
		-L$(CUDA_LIBDIR)/stubs -lcuda

# The driver API's virtual memory management besides the runtime.
$(CAPTURE_PROGS_DIR)/vmm_alloc: tests/gpu/progs/vmm_alloc.cu
	$(QUIET) NVCC $@
	$(Q)mkdir -p $(@D)
	$(Q)$(CAPTURE_NVCC) -o $@ $< -L$(CUDA_LIBDIR)/stubs -lcuda

# Programs whose kernels a CUDA library launches (the real-library set).
CAPTURE_LIB_cublas_sgemm := -lcublas
CAPTURE_LIB_cublas_batched := -lcublas
CAPTURE_LIB_cufft_c2c := -lcufft
CAPTURE_LIB_curand_gen := -lcurand
CAPTURE_LIB_cusparse_spmv := -lcusparse
$(foreach p,cublas_sgemm cublas_batched cufft_c2c curand_gen cusparse_spmv,$(CAPTURE_PROGS_DIR)/$(p)): $(CAPTURE_PROGS_DIR)/%: tests/gpu/progs/%.cu
	$(QUIET) NVCC $@
	$(Q)mkdir -p $(@D)
	$(Q)$(CAPTURE_NVCC) -o $@ $< $(CAPTURE_LIB_$*)

$(CAPTURE_PROGS_DIR)/%: tests/gpu/progs/%.cu
	$(QUIET) NVCC $@
	$(Q)mkdir -p $(@D)
	$(Q)$(CAPTURE_NVCC) -o $@ $< -lpthread

BENCHES += bench/capture_bench.sh bench/real_libraries.sh

# capture_run.c loads the library once in a child to check it.
CLI_LDLIBS += -ldl

# The pending-copy rules, linked into their unit test.
$(B)/tests/unit/test_capture_tracking: TEST_LIBS += $(B)/pic/capture/tracking.o
