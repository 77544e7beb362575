# SPDX-License-Identifier: MIT
# study/: studies described in YAML (gpumix run): the libyaml loader, the
# study model and plan, the persistent state and the stage executor
# (libgpumix-study.a, linked into the CLI and the unit tests).


STUDY_SRCS := $(wildcard study/*.c)
STUDY_LIB := $(B)/libgpumix-study.a
# First: it uses analyze/ (run directories, STP, intervals), which the
# sorted includes list before it, and no library here uses it.
LIBS := $(STUDY_LIB) $(LIBS)
CLI_LDLIBS += $(call pkg_libs,yaml-0.1)
EXTRA_CFLAGS_study := $(call pkg_cflags,yaml-0.1)

$(STUDY_LIB): $(STUDY_SRCS:%.c=$(B)/%.o)
	$(QUIET) AR $@
	$(Q)rm -f $@ && ar rcs $@ $^
# Files outside study/ that include study headers (and so <yaml.h>).
EXTRA_CFLAGS_cli += $(call pkg_cflags,yaml-0.1)
EXTRA_CFLAGS_tests/unit += $(call pkg_cflags,yaml-0.1)
