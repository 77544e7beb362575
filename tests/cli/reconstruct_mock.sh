#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
#
# Capture -> reconstruct -> replay on a CPU: the good bundles of the
# reconstruct corpus (made by capturing recon-emitter, which drives the
# kernels of tests/gpu/replay_kernels.cu on real data) are reconstructed
# and replayed against the mock CUDA driver (tests/mock/, which runs those
# kernels on the host and checks every device range), in both variants;
# every device-to-host result is verified against the hash captured in
# the bundle. A changed expected hash must fail the run, naming the trace
# event of the copy.
. "$(dirname "$0")/../lib.sh"
. "$GPUMIX_TOP/tests/replay_check.sh"
cd "$GPUMIX_TOP" || exit 1
export LD_LIBRARY_PATH=$GPUMIX_BUILD/tests/mock${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
scratch_dir
tmp=$_scratch
R=tests/data/reconstruct/bundles

for w in "basic:$R/basic" "threads:$R/threads" "reset:$R/reset" "untraced:$R/untraced" "pointer-global:$R/pointer-global" \
	"basic+threads:$R/basic $R/threads" "hostmem:$R/hostmem" \
	"hostmem+basic:$R/hostmem $R/basic" "vmm:$R/vmm" "vmm+basic:$R/vmm $R/basic"; do
	name=${w%%:*}
	for v in single cuda; do
		# shellcheck disable=SC2086
		"$GPUMIX" -v reconstruct --variant $v -o "$tmp/$name.$v" ${w#*:} \
			>/dev/null 2>"$tmp/rec"
		check_eq "$name $v: every result has its captured hash" "" \
			"$(grep "^program '.* results not verifiable" "$tmp/rec" | grep -v ' 0 results not verifiable')"
		out=$("$GPUMIX" replay --min-replays 2 --watchdog 30 \
			-o "$tmp/run-$name.$v" "$tmp/$name.$v" 2>&1); rc=$?
		check_eq "$name $v: replay exits 0" 0 "$rc"
		[ "$rc" = 0 ] || printf '%s\n' "$out" | sed 's/^/#   /'
		check_eq "$name $v: status ok (results verified)" ok \
			"$(field "$tmp/run-$name.$v/manifest" status)"
	done
done
check_run "$tmp/run-basic+threads.cuda" 2 2

# A wrong expected hash (the async result of basic): the run fails and
# names the copy's trace event.
ev=$(sed -n 's|^	/\* \([0-9]*\) cuMemcpyDtoHAsync_v2 \*/.*|\1|p' "$tmp/basic.cuda/replay.c")
first=$(grep -m1 -o '^	"[0-9a-f]\{32\}",	/\* 0 \*/' "$tmp/basic.cuda/replay.c" | cut -d'"' -f2)
sed -i "s/\"$first\"/\"00000000000000000000000000000000\"/" "$tmp/basic.cuda/replay.c"
out=$("$GPUMIX" replay --min-replays 2 -o "$tmp/run-bad" "$tmp/basic.cuda" 2>&1); rc=$?
check_eq "a changed expected hash fails the run" 1 "$rc"
check_match "naming the captured event of the copy ($ev)" \
	"program 'basic': .*operation [0-9]+ \(device-to-host copy, trace event $ev\):? .*result differs" \
	"$(field "$tmp/run-bad/manifest" failure)"
check_match "... its size, and how to mark a nondeterministic program" \
	"the 16384-byte device-to-host result hashes to [0-9a-f]{32}, expected 0{32}; if program 'basic' computes it differently on every run .*mark it nondeterministic \(gpumix reconstruct --nondeterministic basic; deterministic: false in a study\)" \
	"$(field "$tmp/run-bad/manifest" failure)"

done_testing
