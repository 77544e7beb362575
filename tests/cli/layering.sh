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

# replay/: small files with one job (under 1000 lines, no function over
# 150) and no circle of files: the symbols each object of the build
# takes from the others (nm) never lead back to it.
check_eq "replay/: no file of 1000 lines or more" "" \
	"$(wc -l "$GPUMIX_TOP"/replay/*.[ch] | awk '$2 != "total" && $1 >= 1000')"
check_eq "replay/: no function over 150 lines" "" \
	"$(awk '/^[a-z].*\(/ { name = $0 } /^\{/ { s = FNR }
		/^\}/ && s { if (FNR - s + 1 > 150) print FILENAME ": " name; s = 0 }' \
		"$GPUMIX_TOP"/replay/*.c)"
file_edges() { # file_edges DIR: "A B" where A.o uses a symbol B.o defines
	for c in "$GPUMIX_TOP/$1"/*.c; do
		o=$GPUMIX_BUILD/$1/$(basename "$c" .c).o
		nm "$o" | awk -v f="$(basename "$c" .c)" \
			'NF == 3 && $2 ~ /^[TDBRC]$/ { print "D", f, $3 }
			 $1 == "U" { print "U", f, $2 }'
	done | awk '$1 == "D" { def[$3] = $2; next } { use[$3] = use[$3] " " $2 }
		END { for (s in use) if (s in def) { n = split(use[s], u, " ")
			for (i = 1; i <= n; i++) if (u[i] != def[s])
				print u[i], def[s] } }' | sort -u
}
circles() { # circles: the edges on stdin that lie on a circle
	awk '{ e[$1, $2] = 1; r[$1, $2] = 1; n[$1] = n[$2] = 1 }
	END { for (k in n) for (i in n) if (r[i, k]) for (j in n)
		if (r[k, j]) r[i, j] = 1
		for (ij in e) { split(ij, p, SUBSEP)
			if (r[p[2], p[1]]) print p[1] " -> " p[2] } }' | sort
}
edges=$(file_edges replay)
check "replay/: the objects' symbol uses are there" test -n "$edges"
check_eq "replay/: no circle of files" "" "$(printf '%s\n' "$edges" | circles)"
done_testing
