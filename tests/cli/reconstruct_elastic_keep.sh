#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
#
# Modules that cannot be made elastic never stop `gpumix reconstruct
# --elastic` (bundles made by the real capture path from recon-emitter,
# each with one crafted PTX module): PTX that targets an architecture
# above the device, PTX of a .version newer than the installed ptxas
# accepts, PTX the transformer cannot parse. Each reconstruct exits 0, the
# module keeps its original code, and the reason is in the reconstruct's
# output and in elastic/kernels.tsv; the replay program builds.
. "$(dirname "$0")/../lib.sh"
scratch_dir
tmp=$_scratch
export PATH=/usr/local/cuda/bin:$PATH
if ! command -v ptxas >/dev/null; then
	skip "without ptxas"
	done_testing
fi

head='.address_size 64
.visible .entry _Z5scalePjPKjjj(.param .u64 a, .param .u64 b,
	.param .u32 c, .param .u32 d)
{
	ret;
}'
printf '.version 8.0\n.target sm_100\n%s\n' "$head" >"$tmp/above.ptx"
printf '.version 9.9\n.target sm_90\n%s\n' "$head" >"$tmp/newer.ptx"
printf '.version 8.0\n.target sm_90\n.address_size 64\n.visible .entry _Z5scalePjPKjjj(\n' \
	>"$tmp/broken.ptx"

case_of() { # case_of NAME REASON_REGEX
	local name=$1 why=$2 out rc
	"$GPUMIX" -q capture -o "$tmp/b-$name" -- \
		"$GPUMIX_BUILD/tests/recon-emitter" basic --fatbin "$tmp/$name.ptx" \
		>/dev/null 2>&1
	check "$name: captured" test -f "$tmp/b-$name/manifest"
	out=$("$GPUMIX" reconstruct --elastic -o "$tmp/r-$name" "$tmp/b-$name" 2>&1); rc=$?
	check_eq "$name: reconstruct --elastic exits 0" 0 "$rc"
	[ "$rc" = 0 ] || printf '%s\n' "$out" | tail -5 | sed 's/^/#   /'
	check_match "$name: the output says why the module keeps its code" \
		"^elastic: program 'b-$name': module [0-9a-f]+(\.ptx)?: .*$why.*; its kernels run unmodified$" "$out"
	check_match "$name: and counts it" "1 code images keep their code" "$out"
	check_match "$name: the kernel table gives the reason" \
		"	not-elastic	.*$why" "$(cat "$tmp/r-$name/elastic/kernels.tsv" 2>/dev/null)"
	check_eq "$name: no elastic module" 0 \
		"$(sed -n 's/^modules = //p' "$tmp/r-$name/elastic/index" 2>/dev/null)"
	check "$name: the replay program builds" \
		"$GPUMIX" replay --build-only "$tmp/r-$name"
}
case_of above "its PTX targets sm_100, above the device's sm_90"
case_of newer "does not assemble"
case_of broken "cannot parse the PTX"
done_testing
