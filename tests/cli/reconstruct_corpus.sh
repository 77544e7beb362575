#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
#
# gpumix reconstruct on the committed bundles: the good ones of
# tests/data/bundles and tests/data/reconstruct/bundles (made through the
# real capture path by make-bundles.sh) reconstruct in both variants to
# their golden C and manifest (tests/data/reconstruct/golden; device
# addresses appear only as each allocation's captured one), a second run
# gives the same bytes, the C compiles without warnings and links against
# libgpumix-replay with the real CUDA headers (gpumix replay
# --build-only), and every bad bundle gives its exact error
# (tests/data/reconstruct/errors). GPUMIX_UPDATE_GOLDEN=1 rewrites the
# golden files and expected errors.
. "$(dirname "$0")/../lib.sh"
cd "$GPUMIX_TOP" || exit 1
scratch_dir
tmp=$_scratch
B=tests/data/bundles
R=tests/data/reconstruct/bundles
GOLD=tests/data/reconstruct/golden
ERR=tests/data/reconstruct/errors
update=${GPUMIX_UPDATE_GOLDEN:-0}
[ "$update" = 1 ] && mkdir -p "$GOLD" "$ERR"

golden() { # golden NAME FILE: compare FILE with $GOLD/NAME (or update it)
	if [ "$update" = 1 ]; then
		cp "$2" "$GOLD/$1"
	fi
	if diff -u "$GOLD/$1" "$2" >"$tmp/diff"; then
		ok "$1 matches its golden file"
	else
		not_ok "$1 matches its golden file"
		head -40 "$tmp/diff" | sed 's/^/#   /'
	fi
}

# ---- good bundles: golden output, determinism ----
for w in "good:$B/good" "basic:$R/basic" "threads:$R/threads" "graphs:$R/graphs" \
	"reset:$R/reset" "basic+threads:$R/basic $R/threads" \
	"hostmem:$R/hostmem" "hostfunc:$R/hostfunc" "vmm:$R/vmm" \
	"pointer-table:$R/pointer-table" "copies2d:$R/copies2d" \
	"graph-host:$R/graph-host" "streams:$R/streams" \
	"kernel-paths:$R/kernel-paths"; do
	name=${w%%:*}
	bundles=${w#*:}
	for v in single cuda; do
		out=$tmp/$name.$v
		# shellcheck disable=SC2086
		"$GPUMIX" reconstruct --variant $v -o "$out" $bundles \
			>"$tmp/stdout" 2>"$tmp/stderr"
		rc=$?
		check_eq "$name $v: reconstruct exits 0" 0 "$rc"
		[ "$rc" = 0 ] || sed 's/^/#   /' "$tmp/stderr"
		check_eq "$name $v: nothing on stdout" "" "$(cat "$tmp/stdout")"
		check_match "$name $v: one-line summary" \
			"^reconstruct: '$(sed 's/+/\\+/g' <<<"$name")' \($v\): [0-9]+ programs?, [0-9]+ operations \([0-9]+ launches\), [0-9]+ events read in [0-9.]+ s \([0-9]+ events/s\); wrote '.*' in [0-9.]+ s$" \
			"$(tail -1 "$tmp/stderr")"
		golden "$name.$v.c" "$out/replay.c"
		golden "$name.$v.manifest" "$out/manifest"
		# shellcheck disable=SC2086
		"$GPUMIX" -q reconstruct --variant $v -o "$out.2" $bundles 2>/dev/null
		check "$name $v: a second run gives the same C" \
			cmp "$out/replay.c" "$out.2/replay.c"
		check "$name $v: and the same manifest" \
			cmp "$out/manifest" "$out.2/manifest"
		check_eq "$name $v: and the same data files" \
			"$(cd "$out" && find blobs modules -type f | sort)" \
			"$(cd "$out.2" && find blobs modules -type f | sort)"
	done
done
check_match "no device address in any golden file but an allocation's captured one" '^0$' \
	"$(cat "$GOLD"/*.c | sed 's/GM_ALLOC([^)]*)//' | grep -ciE '0x(7[ef]|20)[0-9a-f]{10}')"
check_match "... which every allocation has" '^0$' \
	"$(cat "$GOLD"/*.c | grep 'GM_ALLOC(' | grep -cvE 'GM_ALLOC\([0-9]+, [0-9]+, [0-9]+, 0x[0-9a-f]+\)')"
check_match "every operation row names its trace event and call" '^0$' \
	"$(cat "$GOLD"/*.c | grep -cE '^	GM_')"

# ---- what the corpus covers ----
c=$GOLD/basic.cuda.c
check_match "basic: the symbol copy goes to the global" \
	'cuMemcpyHtoD_v2 \*/ GM_H2D\([0-9]+, 0, GM_F_SYNC, GM_G\(0\)' "$(cat "$c")"
check_match "basic: the global is resolved by name" '"c_add"' "$(cat "$c")"
check_match "basic: an async result is checked at the stream sync" \
	'cuMemcpyDtoHAsync_v2 \*/ GM_D2H\([0-9]+, 1, GM_F_PINNED, GM_A\(2\), 0, 0,' "$(cat "$c")"
check_match "basic: the texture object is relocated" 'GM_T\(0\)' "$(cat "$c")"
check_match "basic: the texture lies on an allocation" '\.res_type = 2, \.ref = GM_A\(1\)' "$(cat "$c")"
check_match "basic: the cluster launch keeps its cluster" '\{ 2, 1, 1 \}, 0 \},	/\* 1: _Z4incr4span' "$(cat "$c")"
check_match "basic: the function alias launches the kernel" 'cuLaunchKernel _Z5scalePjPKjjj' "$(cat "$c")"
check_match "basic: the attribute set on the function is kept" '_Z5scalePjPKjjj", 4, .*, 1, ' "$(cat "$c")"
check_match "basic: the fatbin is a module" 'gm_module_desc p0_basic_modules\[\] = \{' "$(cat "$c")"
check_match "threads: both threads' streams" 'stream 2: non-blocking' "$(cat "$GOLD/threads.cuda.c")"
# captured host time: a gap per operation from a bundle of format 2, the
# threads each operation came from when there are several, none from an
# older bundle
check_match "basic: one host gap per operation" \
	'static const uint32_t p0_basic_host_gap\[22\] = \{' "$(cat "$c")"
check_match "basic: a thread's first operation has no gap" \
	'host_gap\[22\] = \{'$'\n''	0,' "$(cat "$c")"
check_match "basic: one thread, no thread table" \
	'\.host_thread = NULL,'$'\n''	\.nr_host_threads = 1,' "$(cat "$c")"
check_match "basic: the manifest says so" \
	'^program\.0\.host_time = captured$' "$(cat "$GOLD/basic.cuda.manifest")"
check_match "threads: the operations' threads" \
	'static const uint16_t p0_threads_host_thread\[18\] = \{' \
	"$(cat "$GOLD/threads.cuda.c")"
check_match "threads: the main thread and two workers" \
	'\.nr_host_threads = 3,' "$(cat "$GOLD/threads.cuda.c")"
check_match "good (format 1): no host times" '^program\.0\.host_time = none$' \
	"$(cat "$GOLD/good.cuda.manifest")"
check_match "good (format 1): no host gap table" '^0$' \
	"$(grep -c host_gap "$GOLD/good.cuda.c")"
check_match "reset: allocations freed by the reset" \
	'cuDevicePrimaryCtxReset_v2 \*/ GM_FREE' "$(cat "$GOLD/reset.cuda.c")"
"$GPUMIX" reconstruct --variant cuda -o "$tmp/w" "$R/basic" 2>"$tmp/stderr"
check_match "basic: the skipped limit is a warning with its event" \
	"^warning: program 'basic': event [0-9]+: cuCtxSetLimit \(1 call\): context limits are not replayed" \
	"$(cat "$tmp/stderr")"
check_match "basic: the failed call is a warning with its event" \
	"^warning: program 'basic': event [0-9]+: cuMemAlloc_v2 \(1 call\) returned an error \(the first: 2\)" \
	"$(cat "$tmp/stderr")"

# ---- the generated C builds ----
CUDA_HOME=${CUDA_HOME:-/usr/local/cuda}
check "generated C compiles without warnings (-Wall -Wextra -Werror)" \
	cc -std=c11 -Wall -Wextra -Werror -I"$GPUMIX_TOP/replay" \
	-I"$CUDA_HOME/include" -c -o "$tmp/b.o" "$tmp/basic+threads.cuda/replay.c"
for w in good.single basic.cuda basic+threads.cuda; do
	out=$("$GPUMIX" replay --build-only "$tmp/$w" 2>&1); rc=$?
	check_eq "$w: gpumix replay --build-only exits 0" 0 "$rc"
	[ "$rc" = 0 ] || printf '%s\n' "$out" | sed 's/^/#   /'
	check "$w: the replay program is built" test -x "$tmp/$w/replay"
done

# ---- bad bundles: exact errors, no output ----
for e in "$B"/*.error "$R"/fork "$R"/arrays "$R"/bad-copy "$R"/unnamed; do
	case $e in
	# (counter files: what only `trace check` reads, not a reconstruct)
	*/counts-*.error) continue ;;
	*.error) [ -s "$e" ] || continue; n=$(basename "$e" .error); d=$B/$n ;;
	*) n=$(basename "$e"); d=$e ;;
	esac
	"$GPUMIX" reconstruct --variant single -o "$tmp/bad-$n" "$d" \
		>/dev/null 2>"$tmp/err"
	rc=$?
	sed -i "s|$GPUMIX_TOP/||g" "$tmp/err"	# babeltrace2's absolute paths
	check_eq "$n: reconstruct fails" 1 "$rc"
	[ "$update" = 1 ] && cp "$tmp/err" "$ERR/$n.error"
	if diff -u "$ERR/$n.error" "$tmp/err" >"$tmp/diff"; then
		ok "$n: the exact expected error"
	else
		not_ok "$n: the exact expected error"
		sed 's/^/#   /' "$tmp/diff"
	fi
	check "$n: no output directory" test ! -e "$tmp/bad-$n"
done
check_eq "every bad bundle of both corpora has its expected error" \
	"$(( $(grep -l . "$B"/*.error | grep -vc /counts-) + 4 ))" "$(ls "$ERR"/*.error | wc -l)"

# ---- unsupported calls ----
out=$("$GPUMIX" reconstruct --variant cuda -o "$tmp/uns" "$R/arrays" 2>&1); rc=$?
check_eq "unsupported calls stop the reconstruct" 1 "$rc"
check_eq "each one is listed with its event" 3 \
	"$(grep -cE "^unsupported: program 'arrays': event [0-9]+: cu" <<<"$out")"
out=$("$GPUMIX" reconstruct --variant cuda --allow-unsupported -o "$tmp/uns" \
	"$R/arrays" 2>&1); rc=$?
check_eq "--allow-unsupported: exit 0" 0 "$rc"
check_eq "--allow-unsupported: each skipped call is a warning with its event" 3 \
	"$(grep -cE "^warning: program 'arrays': event [0-9]+: cu.*: unsupported, not replayed$" <<<"$out")"
check_match "--allow-unsupported: the array copy across rows is named" \
	"event [0-9]+: cuMemcpyHtoA_v2: unsupported" "$out"
check "--allow-unsupported: the program is written" test -f "$tmp/uns/replay.c"
out=$("$GPUMIX" reconstruct --variant cuda --allow-unsupported -o "$tmp/uns2" \
	"$B/unsupported" 2>&1); rc=$?
check_eq "a bundle whose only loss is an unsupported call: read with --allow-unsupported" 0 "$rc"
check_match "... the call is a warning" \
	"^warning: program 'unsupported': event 15: cuGraphLaunch: unsupported, not replayed$" "$out"

# ---- options ----
out=$("$GPUMIX" reconstruct --variant single --nondeterministic basic \
	-o "$tmp/nd" "$R/basic" "$R/threads" 2>&1); rc=$?
check_eq "--nondeterministic: exit 0" 0 "$rc"
check_eq "--nondeterministic: that program is not verified" \
	"0 1" "$(sed -n 's/^program\.[01]\.deterministic = //p' "$tmp/nd/manifest" | tr '\n' ' ' | sed 's/ $//')"
out=$("$GPUMIX" reconstruct --variant single --nondeterministic nosuch \
	-o "$tmp/nd2" "$R/basic" 2>&1); rc=$?
check_eq "--nondeterministic of no program: error" 1 "$rc"
check_match "... naming the programs" "'nosuch' is not a program of the workload \(basic\)" "$out"
out=$("$GPUMIX" reconstruct --variant single -o "$tmp/dup" "$B/good" "$B/good/" 2>&1); rc=$?
check_eq "the same bundle twice: exit 0" 0 "$rc"
check_eq "... program names made unique: instances 1 and 2" "good#1 good#2" \
	"$(sed -n 's/^program\.[01]\.name = //p' "$tmp/dup/manifest" | tr '\n' ' ' | sed 's/ $//')"
check_eq "... the workload is named after them, the copies once" "good#1-2" \
	"$(sed -n 's/^workload = //p' "$tmp/dup/manifest")"
out=$("$GPUMIX" reconstruct --variant single -o "$tmp/dup" "$B/good" 2>&1); rc=$?
check_eq "an existing output directory: error" 1 "$rc"
check_match "... with a hint" "already exists|--force" "$out"
check_eq "... left alone" 2 "$(sed -n 's/^programs = //p' "$tmp/dup/manifest")"
out=$("$GPUMIX" reconstruct --force --variant single -o "$tmp/dup" "$B/good" 2>&1); rc=$?
check_eq "--force replaces it" "0 1" "$rc $(sed -n 's/^programs = //p' "$tmp/dup/manifest")"
"$GPUMIX" -q reconstruct --variant cuda -o - "$R/basic" >"$tmp/stdout.c" 2>"$tmp/stderr"
check "-o - prints the generated C" cmp "$tmp/stdout.c" "$GOLD/basic.cuda.c"
check_eq "-q: no summary" "" "$(grep -v '^warning' "$tmp/stderr")"
(cd "$tmp" && "$GPUMIX" -q reconstruct --variant single "$GPUMIX_TOP/$B/good" 2>/dev/null)
check "default output: build/<workload>.<variant>" test -f "$tmp/build/good.single/replay.c"
# the study runner's command line (study/executor.c): no --variant, the
# program is the same for every variant
out=$("$GPUMIX" reconstruct -o "$tmp/study" --nondeterministic threads \
	"$R/basic" "$R/threads" 2>&1); rc=$?
check_eq "the study runner's command line works" 0 "$rc"
check_eq "without --variant the default variant is cuda" cuda \
	"$(sed -n 's/^variant = //p' "$tmp/study/manifest")"
"$GPUMIX" -q reconstruct --variant nss -o "$tmp/nss" "$R/basic" 2>/dev/null
check_eq "any implemented variant can be the default (nss)" "0 nss" \
	"$? $(sed -n 's/^variant = //p' "$tmp/nss/manifest")"
check "  and only that word differs from the cuda program" \
	cmp <(sed '/variant/d' "$tmp/nss/replay.c") <(sed '/variant/d' "$GOLD/basic.cuda.c")
# (Every variant of the table is implemented: none to refuse as such.)
out=$("$GPUMIX" reconstruct --variant mps -o "$tmp/mps" "$R/basic" 2>&1)
check_eq "mps, the last variant of the table, can be the default too" "0 mps" \
	"$? $(sed -n 's/^variant = //p' "$tmp/mps/manifest")"
out=$("$GPUMIX" reconstruct --variant cdua -o "$tmp/x" "$B/good" 2>&1)
check_eq "an unknown variant is a usage error naming the implemented ones" \
	"2 error: unknown variant 'cdua' (variants: single, cuda, nss, elastic, priority, green, procs, mps)" \
	"$? $(head -n 1 <<<"$out")"
for args in "" "--variant" "--variant single" "--variant nope $B/good" \
	"--bogus --variant single $B/good" "--variant single -o"; do
	# shellcheck disable=SC2086
	"$GPUMIX" reconstruct $args >/dev/null 2>&1; rc=$?
	check_eq "usage error: 'reconstruct $args'" 2 "$rc"
done
help=$("$GPUMIX" reconstruct --help)
check_match "gpumix reconstruct --help" "^usage: gpumix reconstruct \[--variant V\]" "$help"
check_match "  says the variant is only a default, chosen at replay time" \
	"only the program's default variant, used by" "$help"
check_match "  and lists the implemented variants from the table" \
	"cuda\); one of: single, cuda, nss, elastic, priority, green, procs, mps$" "$help"
check_match "listed by gpumix help" "^   reconstruct  generate the replay program of an n-program workload$" \
	"$("$GPUMIX" help)"

done_testing
