#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
#
# Regenerate the committed seed corpora of the fuzz harnesses
# (tests/fuzz/corpus/<harness>/) from the good and bad corpora of
# tests/data, so that fuzzing starts from every input the tests already
# know (and every error they check). Files are named after where they
# came from; identical inputs are kept once. Multi-file inputs join their
# files with the separator of tests/fuzz/harness.h.
#
# usage (from the repository root): tests/fuzz/make-seeds.sh
# (nvcc makes the fatbin seeds: a plain, a compressed and an ELF object)
set -eu
cd "$(dirname "$0")/../.."
C=tests/fuzz/corpus
SEP=$'\n==gpumix-fuzz-file==\n'
NVCC=${NVCC:-${CUDA_HOME:-/usr/local/cuda}/bin/nvcc}
rm -rf "$C"
mkdir -p "$C"/{kvfile,study_yaml,run_dir,bundle,ptx,fatbin,ctf}

name() { echo "$1" | sed 's|^tests/data/||; s|/|_|g'; }
put() { # put HARNESS NAME < data: keep one copy of each content
	local f="$C/$1/$2" h
	cat >"$f"
	h=$(md5sum <"$f" | cut -c1-32)
	if grep -qx "$h" "$C/$1/.seen" 2>/dev/null; then
		rm "$f"
	else
		echo "$h" >>"$C/$1/.seen"
	fi
}
# join FILE...: the files with the separator; a missing one ends the input
join() {
	local first=1 f
	for f in "$@"; do
		[ -f "$f" ] || break
		[ "$first" = 1 ] || printf '%s' "$SEP"
		cat "$f"
		first=0
	done
}

for m in $(find tests/data -name manifest -type f | sort); do
	put kvfile "$(name "$m")" <"$m"
done
for y in tests/data/study/good/*.yaml tests/data/study/bad/*.yaml; do
	put study_yaml "$(name "$y")" <"$y"
done
for d in tests/data/runs/good/study/*/ tests/data/runs/good/probe/*/ \
	 tests/data/runs/bad/*/; do
	d=${d%/}
	join "$d/manifest" "$d/replays.tsv" "$d/activity.tsv" "$d/probe.tsv" \
		"$d/probe.bin" "$d/drivercalls.tsv" | put run_dir "$(name "$d")"
done
# corun directories: their manifest and sections.tsv, the parts between
# empty
for d in tests/data/runs/good/corun/*.corun/ tests/data/runs/bad/corun-*/; do
	d=${d%/}
	{ cat "$d/manifest"; for _ in 1 2 3 4 5 6; do printf '%s' "$SEP"; done
	  cat "$d/sections.tsv"; } | put run_dir "$(name "$d")"
done
for b in tests/data/bundles/*/ tests/data/reconstruct/bundles/*/; do
	b=${b%/}
	c=$(ls "$b"/procs/*.counts 2>/dev/null | head -1)
	n=${c%.counts}.names
	join "$b/manifest" "$b/api-table" "$c" "$n" | put bundle "$(name "$b")"
done
# ctf: each traced process of each bundle (fuzz_ctf.c: the api-table,
# then the metadata, streams and indexes of one trace directory)
for m in $(find tests/data/bundles tests/data/reconstruct/bundles \
	-path '*/ctf/*' -name metadata | sort); do
	t=$(dirname "$m")
	b=${t%%/ctf/*}
	join "$b/api-table" "$m" "$t/gpumix_0" "$t/index/gpumix_0.idx" \
		"$t/gpumix_1" "$t/index/gpumix_1.idx" |
		put ctf "$(name "$b")-$(basename "$t")"
done
for p in $(find tests/data -name '*.ptx' | sort); do
	put ptx "$(name "$p")" <"$p"
done
for f in $(find tests/data -name '*.fatbin' | sort); do
	put fatbin "$(name "$f")" <"$f"
done
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
for cu in tests/data/ptx/basic.cu tests/data/ptx/shared.cu; do
	b=$(basename "$cu" .cu)
	"$NVCC" -arch=sm_90 -fatbin -o "$tmp/$b.fatbin" "$cu"
	"$NVCC" -arch=sm_90 -fatbin -Xfatbin -compress-all -o "$tmp/$b.z.fatbin" "$cu"
	"$NVCC" -arch=sm_90 -c -o "$tmp/$b.o" "$cu"
	put fatbin "nvcc-$b.fatbin" <"$tmp/$b.fatbin"
	put fatbin "nvcc-$b-compressed.fatbin" <"$tmp/$b.z.fatbin"
	put fatbin "nvcc-$b.o" <"$tmp/$b.o"
done
rm -f "$C"/*/.seen
for h in "$C"/*/; do
	echo "$(basename "$h"): $(ls "$h" | wc -l) seeds, $(du -sh "$h" | cut -f1)"
done
