#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# The dependency direction of STYLE.md, as the compiler saw it (the .d
# files of the build): common/ includes nothing of the components, and the
# bundle reader (reconstruct/) reads the bundle format from common/, never
# from capture/'s headers.
. "$GPUMIX_TOP/tests/lib.sh"
deps_of() { # deps_of DIR: project headers the objects of DIR include
	cat "$GPUMIX_BUILD/$1"/*.d | tr ' \\' '\n\n' | grep -E '\.(h|def):?$' |
		sed 's/:$//' | grep -vE '^/' | sort -u
}
n=$(ls "$GPUMIX_BUILD"/reconstruct/*.d "$GPUMIX_BUILD"/common/*.d | wc -l)
check "the build's dependency files are there ($n)" test "$n" -ge 20
check_eq "reconstruct/ includes no capture/ header" "" \
	"$(deps_of reconstruct | grep '^capture/')"
check_eq "common/ includes only common/" "" \
	"$(deps_of common | grep -v '^common/')"
check "... and reads the API table from there" \
	grep -q 'common/cuda_api.def' "$GPUMIX_BUILD/reconstruct/trace_reader.d"
done_testing
