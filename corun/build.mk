# SPDX-License-Identifier: MIT
# corun/: native co-runs of the original programs (gpumix corun,
# doc/gpumix-corun.md): libgpumix-corun.so, the light interposer loaded
# into each program through CUDA_INJECTION64_PATH (inject.c, with the
# section file format it shares with the command), and libgpumix-corun.a,
# the command's plan, runner and output (linked into the CLI).

EXTRA_CFLAGS_corun := $(CUDA_INC) -fvisibility=hidden

CORUN_SO_SRCS := corun/inject.c corun/section.c
CORUN_SO := $(B)/libgpumix-corun.so
SHLIBS += $(CORUN_SO)
# Every symbol must be defined (but in a sanitizer build, as capture/).
CORUN_SO_DEFS := $(if $(filter 1,$(SANITIZE)),,-Wl,--no-undefined)

CORUN_LIB_SRCS := $(filter-out corun/inject.c,$(wildcard corun/*.c))
CORUN_LIB := $(B)/libgpumix-corun.a
LIBS += $(CORUN_LIB)

# Only the entry point is exported: the helpers of common/ inside it must
# never bind to, or be bound by, the program's own symbols.
$(CORUN_SO): $(CORUN_SO_SRCS:%.c=$(B)/pic/%.o) $(COMMON_PIC_LIB) \
		corun/libgpumix-corun.map
	$(QUIET) LINK $@
	$(Q)$(CC) $(LDFLAGS) -shared -o $@ $(filter %.o,$^) $(COMMON_PIC_LIB) \
		-Wl,--version-script=corun/libgpumix-corun.map $(CORUN_SO_DEFS) \
		-L$(CUDA_LIBDIR) -Wl,-rpath,$(CUDA_LIBDIR) -lcupti $(COMMON_LDLIBS) \
		-lpthread

$(CORUN_LIB): $(CORUN_LIB_SRCS:%.c=$(B)/%.o)
	$(QUIET) AR $@
	$(Q)rm -f $@ && ar rcs $@ $^

# A program for the co-run tests on the mock driver (tests/tools/
# corun_standin.c): the interposer reaches it through the mock's cuInit.
CORUN_STANDIN := $(B)/tests/corun-standin
CHECK_DEPS += $(CORUN_STANDIN) $(CORUN_SO)

$(CORUN_STANDIN): $(B)/tests/tools/corun_standin.o $(B)/tests/mock/libcuda.so.1
	$(QUIET) LINK $@
	$(Q)$(CC) $(LDFLAGS) -o $@ $< -L$(B)/tests/mock -Wl,-rpath,'$$ORIGIN/mock' \
		-l:libcuda.so.1 -lpthread
