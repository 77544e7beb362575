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

# The calls between reconstruct/'s objects (who uses a symbol whom
# defines, from nm), and any circle among them (a pair of files calling
# each other, or a longer round): a file reaching itself.
calls() {
	for o in "$GPUMIX_BUILD"/reconstruct/*.o "$GPUMIX_BUILD"/reconstruct/*/*.o; do
		nm "$o" | awk -v f="${o#"$GPUMIX_BUILD"/}" \
			'$1 == "U" { print "U", f, $2 } $2 ~ /^[TDBR]$/ { print "D", f, $3 }'
	done | awk '$1 == "D" { def[$3] = $2; next }
		{ use[NR] = $2; sym[NR] = $3 }
		END { for (i in use) if ((sym[i] in def) && def[sym[i]] != use[i])
			print use[i], def[sym[i]] }' | sort -u
}
circles() { # the files that reach themselves through the calls on stdin
	awk '{ e[$1, $2] = 1; n[$1] = n[$2] = 1 }
		END { for (k in n) for (i in n) if (e[i, k]) for (j in n)
				if (e[k, j]) e[i, j] = 1
			for (i in n) if (e[i, i]) print i }' | sort
}
edges=$(calls)
check "reconstruct/'s objects call each other ($(echo "$edges" | wc -l) pairs)" \
	test "$(echo "$edges" | wc -l)" -ge 50
check_eq "no circle of calls among reconstruct/'s files" "" \
	"$(echo "$edges" | circles | tr '\n' ' ')"
check_eq "... which this check sees (a made-up circle)" "a.o b.o " \
	"$(printf 'a.o b.o\nb.o a.o\nb.o c.o\n' | circles | tr '\n' ' ')"
done_testing
