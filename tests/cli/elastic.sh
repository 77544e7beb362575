#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
#
# gpumix elastic: usage errors, real nvcc output (executables in every
# fatbin compression mode, a cubin, a fatbin), a capture-style bundle,
# output files, and the transformed PTX assembling with ptxas.
. "${GPUMIX_TOP:-.}/tests/lib.sh"
set -u
# (not scratch_dir: its trap would fire in the $(...) subshell)
tmp=$(mktemp -d "${TMPDIR:-/tmp}/gpumix-test.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
NVCC=${NVCC:-${CUDA_HOME:-/usr/local/cuda}/bin/nvcc}
PTXAS=${PTXAS:-${CUDA_HOME:-/usr/local/cuda}/bin/ptxas}

out=$("$GPUMIX" elastic --help); rc=$?
check_eq "--help exits 0" 0 "$rc"
check_match "--help shows the usage" '^usage: gpumix elastic' "$out"
"$GPUMIX" elastic >/dev/null 2>&1; rc=$?
check_eq "no input is a usage error" 2 "$rc"
"$GPUMIX" elastic --bogus x >/dev/null 2>&1; rc=$?
check_eq "an unknown option is a usage error" 2 "$rc"
"$GPUMIX" elastic --arch 90 x >/dev/null 2>&1; rc=$?
check_eq "a bad --arch is a usage error" 2 "$rc"
err=$("$GPUMIX" elastic "$tmp/missing.ptx" 2>&1); rc=$?
check_eq "a missing file fails" 1 "$rc"
check_match "... naming it" "cannot open '$tmp/missing.ptx'" "$err"

cat >"$tmp/k.cu" <<'CU'
__global__ void scale(float *a, float s, int n)
{
	int i = blockIdx.x * blockDim.x + threadIdx.x;
	if (i < n)
		a[i] *= s;
}
__global__ void sum(float *a, int n)
{
	__shared__ float t[128];
	t[threadIdx.x] = a[blockIdx.x * 128 + threadIdx.x];
	__syncthreads();
	if (threadIdx.x == 0) {
		float s = 0;
		for (int k = 0; k < 128; k++)
			s += t[k];
		a[blockIdx.x] = s;
	}
}
int main(void)
{
	float *a;
	cudaMalloc(&a, 1024);
	scale<<<1, 128>>>(a, 2.0f, 128);
	sum<<<1, 128>>>(a, 128);
	return 0;
}
CU

for mode in default size speed none; do
	if ! "$NVCC" -arch=sm_90 --compress-mode=$mode -o "$tmp/k-$mode" "$tmp/k.cu" 2>"$tmp/nvcc.log"; then
		not_ok "nvcc builds the test program (--compress-mode=$mode)"
		sed 's/^/#   /' "$tmp/nvcc.log"
		continue
	fi
	list=$("$GPUMIX" elastic --list "$tmp/k-$mode")
	check_match "$mode: the reader finds the compute_90 PTX" ' ptx +compute_90 ' "$list"
	check_match "$mode: ... and the sm_90 cubin" ' elf +sm_90 ' "$list"
	out=$("$GPUMIX" elastic -o "$tmp/k-$mode.ptx" "$tmp/k-$mode" 2>"$tmp/err"); rc=$?
	check_eq "$mode: gpumix elastic succeeds" 0 "$rc"
	check_match "$mode: scale is thread-elastic" '^_Z5scalePffi +thread-elastic' "$out"
	check_match "$mode: sum is block-elastic" '^_Z3sumPfi +block-elastic .*uses shared memory' "$out"
	check "$mode: the written PTX assembles" "$PTXAS" -arch=sm_90 "$tmp/k-$mode.ptx" -o /dev/null
done
check_match "nvcc 13 compresses PTX with zstd by default" \
	' ptx +compute_90 +zstd ' "$("$GPUMIX" elastic --list "$tmp/k-default")"
check_match "--compress-mode=speed uses LZ4" \
	' ptx +compute_90 +lz4 ' "$("$GPUMIX" elastic --list "$tmp/k-speed")"
check "every compression mode gives the same PTX" \
	cmp -s "$tmp/k-default.ptx" "$tmp/k-speed.ptx"

err=$("$GPUMIX" elastic -o "$tmp/k-default.ptx" "$tmp/k-default" 2>&1 >/dev/null); rc=$?
check_eq "an existing output is not overwritten" 1 "$rc"
check_match "... and the error says so" 'already exists' "$err"
"$GPUMIX" elastic -f -o "$tmp/k-default.ptx" "$tmp/k-default" >/dev/null 2>&1; rc=$?
check_eq "-f overwrites" 0 "$rc"

"$GPUMIX" elastic --no-register-cap --block-only -o - "$tmp/k-default" >"$tmp/stdout.ptx" 2>/dev/null
check_match "--block-only: no kernel is thread-elastic" '^// gpumix-elastic-kernel: _Z5scalePffi block-elastic' \
	"$(cat "$tmp/stdout.ptx")"
"$GPUMIX" elastic -o - "$tmp/k-default" >"$tmp/stdout.ptx" 2>/dev/null
check_match "-o - writes the PTX to stdout" 'gm_el_args' "$(cat "$tmp/stdout.ptx")"

"$NVCC" -arch=sm_90 -cubin -o "$tmp/k.cubin" "$tmp/k.cu"
err=$("$GPUMIX" elastic "$tmp/k.cubin" 2>&1); rc=$?
check_eq "a cubin fails" 1 "$rc"
check_match "... because it has no PTX" 'cubin .*no PTX' "$err"
"$NVCC" -arch=sm_90 -fatbin -o "$tmp/k.fatbin" "$tmp/k.cu"
out=$("$GPUMIX" elastic --no-assemble "$tmp/k.fatbin" 2>/dev/null); rc=$?
check_eq "a fatbin file works" 0 "$rc"
check_match "... with the register columns left out" '^_Z5scalePffi +thread-elastic +- +-' "$out"
"$NVCC" -arch=sm_90 -ptx -o "$tmp/k.ptx" "$tmp/k.cu"
printf '\0\0\0\0' >"$tmp/junk.bin"
err=$("$GPUMIX" elastic "$tmp/junk.bin" 2>&1); rc=$?
check_eq "a file that is neither PTX nor a fatbin fails" 1 "$rc"

# a capture bundle: modules/ holds fatbins and PTX by content hash
mkdir -p "$tmp/bundle/modules"
cp "$tmp/k.fatbin" "$tmp/bundle/modules/aaaa"
cp "$tmp/k.ptx" "$tmp/bundle/modules/bbbb"
out=$("$GPUMIX" elastic -o "$tmp/bundle-out" "$tmp/bundle" 2>/dev/null); rc=$?
check_eq "a bundle works" 0 "$rc"
check_eq "... two modules, two tables" 2 "$(printf '%s\n' "$out" | grep -c '^# ')"
check "... one transformed file per module" test -f "$tmp/bundle-out/aaaa.ptx" -a -f "$tmp/bundle-out/bbbb.ptx"
check "... which assembles" "$PTXAS" -arch=sm_90 "$tmp/bundle-out/bbbb.ptx" -o /dev/null
# several modules are written all or nothing
mkdir -p "$tmp/partial"
echo keep >"$tmp/partial/bbbb.ptx"
err=$("$GPUMIX" elastic --no-assemble -o "$tmp/partial" "$tmp/bundle" 2>&1 >/dev/null); rc=$?
check_eq "-o DIR where one module's file exists: exit 1" 1 "$rc"
check_match "... naming it" "'$tmp/partial/bbbb.ptx' already exists" "$err"
check_eq "... and nothing else is written (no partial output)" "bbbb.ptx" "$(ls -A "$tmp/partial")"
check_eq "... the existing file is untouched" keep "$(cat "$tmp/partial/bbbb.ptx")"
"$GPUMIX" elastic --no-assemble -f -o "$tmp/partial" "$tmp/bundle" >/dev/null 2>&1
check "... with -f both are written" test -f "$tmp/partial/aaaa.ptx" -a "$(head -c 4 "$tmp/partial/bbbb.ptx")" != keep
mkdir -p "$tmp/empty/modules"
err=$("$GPUMIX" elastic "$tmp/empty" 2>&1); rc=$?
check_eq "a bundle without modules fails" 1 "$rc"
check_match "... saying so" 'no PTX in the modules' "$err"
err=$("$GPUMIX" elastic "$tmp" 2>&1); rc=$?
check_eq "a directory that is not a bundle fails" 1 "$rc"

# a PTX file the transformation cannot parse
printf '.version 8.0\n.target sm_90\n.entry k() { ret; \n' >"$tmp/bad.ptx"
err=$("$GPUMIX" elastic "$tmp/bad.ptx" 2>&1); rc=$?
check_eq "malformed PTX fails" 1 "$rc"
check_match "... with the line" 'line 3: unbalanced' "$err"

# an empty file, or one without .version, is no module without kernels
: >"$tmp/empty.ptx"
err=$("$GPUMIX" elastic --no-assemble -o "$tmp/empty-out.ptx" "$tmp/empty.ptx" 2>&1); rc=$?
check_eq "an empty PTX file fails (even without ptxas)" 1 "$rc"
check_match "... saying it is empty" 'caused by: empty PTX module \(no .version directive\)' "$err"
check "... and writes nothing" test ! -e "$tmp/empty-out.ptx"
printf '.target sm_90\n.entry k() { ret; }\n' >"$tmp/nover.ptx"
err=$("$GPUMIX" elastic --no-assemble "$tmp/nover.ptx" 2>&1); rc=$?
check_eq "PTX without .version fails" 1 "$rc"
check_match "... saying so" 'not a PTX module: no .version directive' "$err"

done_testing
