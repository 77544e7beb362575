#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
#
# GPU: the good bundles of the reconstruct corpus (tests/data/reconstruct,
# captured from recon-emitter, whose calls drive the kernels of
# tests/gpu/replay_kernels.cu on real data and whose result hashes are
# what those kernels produce) reconstruct and replay on the real GPU with
# every result verified: a symbol copy to a global, an async result
# checked at a stream synchronization, a texture object, a cluster launch
# through cuLaunchKernelEx, a function alias with an attribute, two host
# threads, a context reset, mapped page-locked and managed memory written
# and read by the host between launches (hostmem: the replay's own
# cuMemHostAlloc and cuMemAllocManaged), pool allocations and host
# functions (hostfunc, timed), virtual memory management (vmm), tables
# of device pointers in device memory (pointer-table, at its captured
# addresses where the driver gives them, relocated otherwise: the log
# says which); 2-D and 3-D copies with CUDA arrays read through a
# texture (copies2d), graphs with host nodes (graph-host), copies
# overwritten before their synchronization (streams), kernel handles
# named before the calls that take them (kernel-paths); single and cuda
# variants, and two bundles at once. (tests/cli/reconstruct_mock.sh and replay_hostfunc.sh do the
# same on the mock driver.)
. "$(dirname "$0")/../lib.sh"
require_gpu
. "$GPUMIX_TOP/tests/replay_check.sh"
cd "$GPUMIX_TOP" || exit 1
scratch_dir
tmp=$_scratch
R=tests/data/reconstruct/bundles

for w in "basic:$R/basic" "threads:$R/threads" "reset:$R/reset" \
	"untraced:$R/untraced" "pointer-global:$R/pointer-global" "graphs:$R/graphs" \
	"basic+threads:$R/basic $R/threads" "hostmem:$R/hostmem" \
	"hostmem+basic:$R/hostmem $R/basic" "hostfunc:$R/hostfunc" \
	"vmm:$R/vmm" "pointer-table:$R/pointer-table" \
	"pointer-table+vmm:$R/pointer-table $R/vmm" "copies2d:$R/copies2d" \
	"graph-host:$R/graph-host" "streams:$R/streams" \
	"copies2d+streams:$R/copies2d $R/streams" \
	"kernel-paths:$R/kernel-paths"; do
	name=${w%%:*}
	for v in single cuda; do
		# shellcheck disable=SC2086
		"$GPUMIX" -q reconstruct --variant $v -o "$tmp/$name.$v" ${w#*:} 2>/dev/null
		out=$("$GPUMIX" replay --min-replays 3 --watchdog 30 \
			--host-callbacks timed \
			-o "$tmp/run-$name.$v" "$tmp/$name.$v" 2>&1); rc=$?
		check_eq "$name $v: replay exits 0" 0 "$rc"
		[ "$rc" = 0 ] || printf '%s\n' "$out" | tail -5 | sed 's/^/#   /'
		check_eq "$name $v: status ok (results verified)" ok \
			"$(field "$tmp/run-$name.$v/manifest" status)"
	done
done
check_run "$tmp/run-basic+threads.cuda" 2 3
done_testing
