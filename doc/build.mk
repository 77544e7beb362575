# SPDX-License-Identifier: MIT
# doc/: the pages as man pages, generated at build time by go-md2man
# (build-aux/packages) in build-aux/man-page: the command pages
# (doc/gpumix*.md) in section 1 under their own names (gpumix-capture(1)),
# the others in section 7 as gpumix-PAGE (gpumix-bundle-format(7)). The
# NAME line of a command is its line of `gpumix --help`; of another page,
# its title. A command's page gets its OPTIONS and EXIT STATUS from its
# --help where the page has no such section (build-aux/man-page). make
# install puts them under $(PREFIX)/share/man.

MAN_CMD_PAGES := $(patsubst doc/%.md,$(B)/man/man1/%.1,$(wildcard doc/gpumix*.md))
MAN_OTHER_PAGES := $(patsubst doc/%.md,$(B)/man/man7/gpumix-%.7,\
	$(filter-out doc/gpumix%,$(wildcard doc/*.md)))
MAN_PAGES := $(MAN_CMD_PAGES) $(MAN_OTHER_PAGES)
GO_MD2MAN ?= go-md2man
all: $(MAN_PAGES)

# (gpumix --help of a sanitizer build must not fail on a leak report)
$(B)/man/man1/%.1: doc/%.md build-aux/man-page $(B)/gpumix VERSION
	$(QUIET) MAN $@
	$(Q)mkdir -p $(@D)
	$(Q)c='$*'; if [ "$$c" = gpumix ]; then \
		s='record, replay and compare CUDA programs sharing one GPU'; \
		ASAN_OPTIONS=detect_leaks=0 $(B)/gpumix --help >$@.help; \
	else \
		s=$$(ASAN_OPTIONS=detect_leaks=0 $(B)/gpumix --help | \
		     sed -n "s/^   $${c#gpumix-}  *//p"); \
		ASAN_OPTIONS=detect_leaks=0 $(B)/gpumix $${c#gpumix-} --help \
			>$@.help 2>/dev/null || :; \
	fi; \
	[ -n "$$s" ] || { echo "$@: '$${c#gpumix-}' is not in gpumix --help" >&2; exit 1; }; \
	GO_MD2MAN='$(GO_MD2MAN)' build-aux/man-page "$$c" 1 "$$s" '$(VERSION)' \
		$@.help <$< >$@.tmp
	$(Q)rm -f $@.help
	$(Q)mv $@.tmp $@

$(B)/man/man7/gpumix-%.7: doc/%.md build-aux/man-page VERSION
	$(QUIET) MAN $@
	$(Q)mkdir -p $(@D)
	$(Q)GO_MD2MAN='$(GO_MD2MAN)' build-aux/man-page 'gpumix-$*' 7 \
		"$$(sed -n '1s/^# //p' $<)" '$(VERSION)' <$< >$@.tmp
	$(Q)mv $@.tmp $@
