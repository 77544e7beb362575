#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# The dependency direction of STYLE.md, as the compiler saw it (the .d
# files of the build): common/ includes nothing of the components, and the
# bundle reader (reconstruct/) reads the bundle format from common/, never
# from capture/'s headers. Inside reconstruct/ (reconstruct/build.mk):
# ptx/ and model/ include nothing of the other rooms, trace/ includes
# model/ (the feed) but never ptx/. No files of a product folder call
# each other round a circle (nm of the objects: who uses a symbol whose
# definition is where).
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

# calls_of DIR...: "CALLER CALLEE" (file names without .o) for each file
# of the DIRs that uses a global symbol another file of them defines
# (objects of sources that exist only: a stale object of a removed file
# would invent edges).
objects_of() {
	local d o
	for d; do
		for o in "$GPUMIX_BUILD/$d"/*.o; do
			test -f "$GPUMIX_TOP/$d/$(basename "$o" .o).c" && echo "$o"
		done
	done
}
calls_of() {
	local o defs uses
	defs=$(mktemp) uses=$(mktemp)
	for o in $(objects_of "$@"); do
		nm -g --defined-only "$o" | awk -v f="$(basename "$o" .o)" 'NF == 3 {print $3, f}'
	done | sort >"$defs"
	for o in $(objects_of "$@"); do
		nm -u "$o" | awk -v f="$(basename "$o" .o)" '{print $2, f}'
	done | sort >"$uses"
	join "$uses" "$defs" | awk '$2 != $3 {print $2, $3}' | sort -u
	rm -f "$defs" "$uses"
}
# circled: the files on a circle of the calls on stdin (tsort names them)
circled() {
	tsort 2>&1 >/dev/null | grep -v 'input contains a loop' |
		sed 's/^tsort: //' | sort -u
}
check_eq "the circle check sees a made-up circle" "a b " \
	"$(printf 'a b\nb a\nb c\n' | circled | tr '\n' ' ')"
edges=$(calls_of reconstruct reconstruct/trace reconstruct/model reconstruct/ptx)
check "reconstruct/'s objects call each other ($(echo "$edges" | wc -l) pairs)" \
	test "$(echo "$edges" | wc -l)" -ge 50
check_eq "no circle of calls among reconstruct/'s files" "" \
	"$(echo "$edges" | circled | tr '\n' ' ')"
study_calls=$(calls_of study)
check "study/'s objects call each other ($(echo "$study_calls" | wc -l) pairs)" \
	test "$(echo "$study_calls" | wc -l)" -ge 20
check "... the loader's sections call only its helpers, not each other" \
	grep -q '^study_programs study_loader$' <<<"$study_calls"
check_eq "no circle of calls among study/'s files" "" \
	"$(echo "$study_calls" | circled | tr '\n' ' ')"
# long_functions DIR: "FILE: LINES: NAME" for each function of DIR's .c
# files longer than 150 lines (from its first line to the closing brace
# in column 1).
long_functions() {
	awk '/^[a-z].*\(/ && !/;/ { name = $0; start = FNR }
	     /^}/ && start { n = FNR - start + 1
			     if (n > 150) print FILENAME ": " n ": " name
			     start = 0 }' "$GPUMIX_TOP/$1"/*.c
}
for d in study analyze capture common corun; do
	check_eq "no function of $d/ is over 150 lines" "" "$(long_functions $d)"
done
# Small files with one job: under 1000 lines, no function over 150 (cli/:
# a command parses, checks and works in functions of their own).
for d in reconstruct reconstruct/trace reconstruct/model reconstruct/ptx replay cli; do
	check_eq "$d/: no file of 1000 lines or more" "" \
		"$(wc -l "$GPUMIX_TOP/$d"/*.[ch] | awk '$2 != "total" && $1 >= 1000')"
	check_eq "no function of $d/ is over 150 lines" "" "$(long_functions $d)"
done
# replay/: no circle of files.
replay_calls=$(calls_of replay)
check "replay/'s objects call each other ($(echo "$replay_calls" | wc -l) pairs)" \
	test "$(echo "$replay_calls" | wc -l)" -ge 20
check_eq "no circle of calls among replay/'s files" "" \
	"$(echo "$replay_calls" | circled | tr '\n' ' ')"
# analyze/, capture/, cli/, common/ and corun/: no circle of files either,
# each folder on its own. capture/ and corun/ build two sets of objects,
# those the CLI links (build/DIR) and those of the library loaded into
# programs (build/pic/DIR): their calls go into one graph of the folder's
# files. Each folder's files do call each other (at least MIN pairs), so
# that a build without objects cannot pass.
for d in analyze:100 capture:40 cli:30 common:50 corun:3; do
	min=${d#*:} d=${d%:*}
	calls=$( (calls_of $d; GPUMIX_BUILD=$GPUMIX_BUILD/pic calls_of $d) |
		sort -u)
	n=$(printf '%s\n' "$calls" | grep -c .)
	check "$d/'s objects call each other ($n pairs)" test "$n" -ge "$min"
	check_eq "no circle of calls among $d/'s files" "" \
		"$(printf '%s\n' "$calls" | grep . | circled | tr '\n' ' ')"
done
done_testing
