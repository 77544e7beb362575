#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# The dependency direction of STYLE.md, as the compiler saw it (the .d
# files of the build): common/ includes nothing of the components, and the
# bundle reader (reconstruct/) reads the bundle format from common/, never
# from capture/'s headers. Within study/, no files call each other in a
# circle (nm of the objects: who uses a symbol whose definition is where).
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

# calls_of DIR: "CALLER CALLEE" for each file of DIR that uses a global
# symbol another file of DIR defines (objects of sources that exist only:
# a stale object of a removed file would invent edges).
calls_of() {
	local o f defs uses
	defs=$(mktemp) uses=$(mktemp)
	for o in "$GPUMIX_BUILD/$1"/*.o; do
		f=$(basename "$o" .o)
		test -f "$GPUMIX_TOP/$1/$f.c" || continue
		nm -g --defined-only "$o" | awk -v f="$f" 'NF == 3 {print $3, f}'
	done | sort >"$defs"
	for o in "$GPUMIX_BUILD/$1"/*.o; do
		f=$(basename "$o" .o)
		test -f "$GPUMIX_TOP/$1/$f.c" || continue
		nm -u "$o" | awk -v f="$f" '{print $2, f}'
	done | sort >"$uses"
	join "$uses" "$defs" | awk '$2 != $3 {print $2, $3}' | sort -u
	rm -f "$defs" "$uses"
}
# circled DIR: the files of DIR on a circle of calls (tsort names them).
circled() {
	calls_of "$1" | tsort 2>&1 >/dev/null | grep -v 'input contains a loop' |
		sed 's/^tsort: //' | sort -u
}
study_calls=$(calls_of study)
check "study/'s objects call each other ($(echo "$study_calls" | wc -l) pairs)" \
	test "$(echo "$study_calls" | wc -l)" -ge 20
check "... the loader's sections call only its helpers, not each other" \
	grep -q '^study_programs study_loader$' <<<"$study_calls"
# The executor's stages still recurse through each other (deciding a run
# decides its inputs, which runs their stages: issue 30 left it); any
# other file on a circle fails.
exec_circle='^(exec_decide|exec_stages|exec_stale|exec_pool|exec_precision|exec_profile)$'
check_eq "no study/ file outside the executor's stages is on a circle of calls" \
	"" "$(circled study | grep -vE "$exec_circle")"
# long_functions DIR: "FILE: LINES: NAME" for each function of DIR's .c
# files longer than 150 lines (from its first line to the closing brace
# in column 1).
long_functions() {
	awk '/^[a-z].*\(/ && !/;/ { name = $0; start = FNR }
	     /^}/ && start { n = FNR - start + 1
			     if (n > 150) print FILENAME ": " n ": " name
			     start = 0 }' "$GPUMIX_TOP/$1"/*.c
}
check_eq "no function of study/ is over 150 lines" "" "$(long_functions study)"
done_testing
