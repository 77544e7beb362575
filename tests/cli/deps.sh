#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
#
# The set-up check (build-aux/deps, which make runs before any goal): it
# probes what the build and the tests use (pkg-config modules, tools on
# PATH), not package names, so a library or tool found another way counts
# (a GPU host's private prefix) and one that cannot be found is named by
# its package from build-aux/packages, with the command that installs it.
# --check (INSTALL_DEPS=no for make) never installs. The install path
# itself runs on every fresh CI machine (.ci/run).
. "$(dirname "$0")/../lib.sh"
scratch_dir
tmp=$_scratch
D=$GPUMIX_TOP/build-aux/deps

out=$("$D" --check build test demo 2>&1); rc=$?
check_eq "everything this suite needs is found" 0 "$rc"
check_eq "... silently" "" "$out"

# A private prefix: the libraries' .pc files and the tools, nothing else.
mkdir -p "$tmp/pc" "$tmp/bin"
for m in $(awk '$1 == "lib" { print $2 }' "$GPUMIX_TOP/build-aux/packages"); do
	cp "$(pkg-config --variable=pcfiledir "$m")/$m.pc" "$tmp/pc/"
done
# (the tools of the list's cmd rows, whichever they are, and the shell's)
for t in sh bash awk sed tr mktemp dirname rm id cat ls grep env make git find \
	$(awk '$1 == "cmd" { print $2 }' "$GPUMIX_TOP/build-aux/packages"); do
	ln -s "$(command -v "$t")" "$tmp/bin/$t"
done
probe() { # probe CMD...: CMD in the private prefix (no make of ours around it)
	env -u MAKEFLAGS -u MFLAGS -u MAKELEVEL PATH="$tmp/bin" PKG_CONFIG_LIBDIR="$tmp/pc" PKG_CONFIG_PATH= "$@"
}
out=$(probe "$D" --check build test demo 2>&1); rc=$?
check_eq "found through PKG_CONFIG_LIBDIR and PATH alone: ok" 0 "$rc"
check_eq "... silently" "" "$out"

rm "$tmp/pc/yaml-0.1.pc" "$tmp/bin/gnuplot"
out=$(probe "$D" --check build 2>&1); rc=$?
check_eq "a library pkg-config cannot find: exit 1" 1 "$rc"
check_match "... names its package" "^error: missing packages: libyaml-dev$" "$out"
check_match "... and the command that installs it" \
	"hint: install them with: (sudo )?apt-get install libyaml-dev$" "$out"
out=$(probe "$D" --check build demo 2>&1)
check_match "a missing tool is named by its package for the goal that needs it" \
	"missing packages: libyaml-dev gnuplot-nox$" "$out"
rm "$tmp/bin/lttng" "$tmp/bin/lttng-sessiond"
out=$(probe "$D" --check build test 2>&1)
check_match "... each package once" \
	"missing packages: libyaml-dev lttng-tools gnuplot-nox$" "$out"
out=$(probe "$D" --check build 2>&1)
check_match "a goal that does not need a tool does not ask for it" \
	"missing packages: libyaml-dev$" "$out"

# make runs it for the goals it makes, and stops before building.
mk() { probe make -n -C "$GPUMIX_TOP" B="$tmp/b" INSTALL_DEPS=no "$@"; }
out=$(mk all 2>&1); rc=$?
check_eq "make with a library missing fails" 2 "$rc"
check_match "... naming the package" "missing packages: libyaml-dev$" "$out"
check_match "... and stopping" "cannot make 'all' without the packages named above" "$out"
check "... before building anything" test ! -e "$tmp/b"
out=$(mk demo 2>&1)
check_match "make demo asks for what the demo runs" \
	"missing packages: libyaml-dev lttng-tools gnuplot-nox$" "$out"
out=$(mk clean 2>&1); rc=$?
check_eq "make clean needs nothing" 0 "$rc"

done_testing
