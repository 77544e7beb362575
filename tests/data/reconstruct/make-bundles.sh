#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
#
# Regenerate the reconstruct corpus (tests/data/reconstruct/bundles): each
# bundle is made by the real capture path (gpumix capture of
# build/tests/recon-emitter, through the real LTTng session and provider,
# on a CPU) from the kernels of tests/gpu/replay_kernels.cu, so that the
# good ones also replay verified on a GPU (tests/gpu/reconstruct_corpus.sh).
# Then regenerate the golden files: GPUMIX_UPDATE_GOLDEN=1 tests/run
# tests/cli/reconstruct_corpus.sh.
#
#   good:  basic threads reset untraced (a kernel no traced call names)
#          pointer-global (a device pointer stored into a module global)
#          pointer-table (tables of device pointers in device memory)
#          vmm (virtual memory management: a reservation, two mappings)
#          cooperative (a cooperative launch of 128 blocks, for gpumix scale)
#          hostmem (zero-copy and managed memory,
#          build/tests/hostmem-emitter on the mock driver)
#          graphs (stream capture and explicit graphs)
#          hostfunc (host functions, memory pools)
#          copies2d (2-D and 3-D copies, CUDA arrays, a texture over one),
#          graph-host (graphs with host nodes, a free during a capture,
#          kernel node arguments changed per launch), streams (copies into
#          one page-locked buffer overwritten before a synchronization),
#          kernel-paths (kernel handles got where CUPTI does not see,
#          named before the recorded calls that take them),
#          each by its program on the mock driver (tests/tools/*_emitter.c)
#   bad:   fork (two processes) arrays (unsupported calls) bad-copy
#          unnamed (a kernel whose library the capture could not name)
#
# usage (from the repository root, after make): tests/data/reconstruct/make-bundles.sh
set -eu
cd "$(dirname "$0")/../../.."
G=build/gpumix
E=build/tests/recon-emitter
D=tests/data/reconstruct/bundles
NVCC=${NVCC:-${CUDA_HOME:-/usr/local/cuda}/bin/nvcc}
[ -x "$G" ] && [ -x "$E" ] || { echo "build first (make)" >&2; exit 1; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
"$NVCC" -fatbin -arch=sm_${SM:-90} -o "$tmp/k.fatbin" tests/gpu/replay_kernels.cu
mkdir -p "$D"
for m in basic threads reset untraced pointer-global pointer-table vmm \
	cooperative fork unsupported:arrays bad-copy unnamed graphs hostfunc; do
	n=${m#*:}
	rm -rf "${D:?}/$n"
	# The bad ones may fail their capture (a loss): that is the point.
	"$G" -q capture -o "$D/$n" -- "$E" "${m%%:*}" --fatbin "$tmp/k.fatbin" \
		>/dev/null || case $n in fork|arrays|bad-copy|unnamed) ;; *) exit 1 ;; esac
done
for m in hostmem:hostmem arrays:copies2d graph:graph-host streams:streams \
	kernels:kernel-paths; do
	n=${m#*:}
	rm -rf "${D:?}/$n"
	"$G" -q capture -o "$D/$n" -- "build/tests/${m%%:*}-emitter" \
		--fatbin "$tmp/k.fatbin" >/dev/null
	rm -f "$D/$n/.gpumix"
done
echo "corpus: $(du -sh "$D" | cut -f1)"
