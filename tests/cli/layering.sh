#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# The dependency direction of STYLE.md, as the compiler saw it (the .d
# files of the build): common/ includes nothing of the components, and the
# bundle reader (reconstruct/) reads the bundle format from common/, never
# from capture/'s headers. Inside reconstruct/ (reconstruct/build.mk):
# ptx/ and model/ include nothing of the other rooms, trace/ includes
# model/ (the feed) but never ptx/, and no two files include each other's
# headers round a circle.
. "$GPUMIX_TOP/tests/lib.sh"
deps_of() { # deps_of DIR: project headers the objects of DIR include
	cat "$GPUMIX_BUILD/$1"/*.d | tr ' \\' '\n\n' | grep -E '\.(h|def):?$' |
		sed 's/:$//' | grep -vE '^/' | sort -u
}
n=$(ls "$GPUMIX_BUILD"/reconstruct/*.d "$GPUMIX_BUILD"/reconstruct/*/*.d \
	"$GPUMIX_BUILD"/common/*.d | wc -l)
check "the build's dependency files are there ($n)" test "$n" -ge 20
for d in reconstruct reconstruct/trace reconstruct/model reconstruct/ptx; do
	check_eq "$d/ includes no capture/ header" "" \
		"$(deps_of $d | grep '^capture/')"
done
check_eq "reconstruct/ptx/ includes nothing of reconstruct/'s other rooms" "" \
	"$(deps_of reconstruct/ptx | grep '^reconstruct/' | grep -v '^reconstruct/ptx/')"
check_eq "reconstruct/model/ includes nothing of reconstruct/'s other rooms" "" \
	"$(deps_of reconstruct/model | grep '^reconstruct/' | grep -v '^reconstruct/model/')"
check_eq "reconstruct/trace/ includes only itself and reconstruct/model/" "" \
	"$(deps_of reconstruct/trace | grep '^reconstruct/' |
		grep -vE '^reconstruct/(trace|model)/')"
check_eq "common/ includes only common/" "" \
	"$(deps_of common | grep -v '^common/')"
check "... and reads the API table from there" \
	grep -q 'common/cuda_api.def' "$GPUMIX_BUILD/reconstruct/trace/trace_reader.d"
done_testing
