#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
#
# Device pointers in device memory on a CPU (doc/gpumix-replay.md,
# "Addresses"): the corpus bundle pointer-table (recon-emitter, tables of
# device pointers copied from the host, a kernel reading its slices
# through them, as batched cuBLAS does) keeps a PTR_STORE per pointer word
# of its tables, and the mock driver (which hands out the same device
# addresses in every process, first fit, and honours a reservation's
# address only where nothing is mapped in the process, as under unified
# addressing) replays it verified both ways: at its captured addresses
# (the default; the reservation made before the runtime's own memory,
# which would otherwise take the range, and the range held from the
# replay's start, so that the driver's own memory at cuInit goes around
# it), and relocated, for each reason a program is (--addresses
# relocated, the range mapped by something before the replay started,
# named, a failing VMM call, another program of the workload placed there
# first: the one with pointers to relocate wins). The manifest says which
# and why; process variants place every program, each in its process.
. "$(dirname "$0")/../lib.sh"
. "$GPUMIX_TOP/tests/replay_check.sh"
cd "$GPUMIX_TOP" || exit 1
export LD_LIBRARY_PATH=$GPUMIX_BUILD/tests/mock${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
scratch_dir
tmp=$_scratch
R=tests/data/reconstruct/bundles

"$GPUMIX" -v reconstruct --variant cuda -o "$tmp/pt" "$R/pointer-table" \
	>/dev/null 2>"$tmp/rec"; rc=$?
check_eq "pointer-table: reconstruct exits 0" 0 "$rc"
c=$tmp/pt/replay.c
check_eq "a PTR_STORE per pointer of the tables (4 outputs, 4 inputs)" 8 \
	"$(grep -c 'GM_PTR_STORE([0-9]*, 0, GM_F_SYNC, GM_A(2), [0-9]*, GM_A([01]), [0-9]*)' "$c")"
check_match "... said by the report" \
	"8 device pointers copied into device memory are relocated" "$(cat "$tmp/rec")"
check_match "every allocation carries its captured address" \
	'GM_ALLOC\([0-9]+, 0, 16384, 0x200000000000\),
.*GM_ALLOC\([0-9]+, 1, 16384, 0x200000010000\),
.*GM_ALLOC\([0-9]+, 2, 64, 0x200000020000\),' "$(cat "$c")"

# Two programs captured at the same addresses (as two processes are),
# replayed below.
"$GPUMIX" -q reconstruct --variant cuda -o "$tmp/pair" "$R/vmm" \
	"$R/pointer-table" 2>/dev/null

# replay NAME WORKLOAD [ARGS...]: replay, check it verified
replay() {
	local name=$1 dir=$2
	shift 2
	out=$("$GPUMIX" replay --min-replays 2 --watchdog 30 -o "$tmp/run-$name" \
		"$@" "$dir" 2>&1); rc=$?
	check_eq "$name: replay exits 0" 0 "$rc"
	[ "$rc" = 0 ] || printf '%s\n' "$out" | sed 's/^/#   /'
	check_eq "$name: status ok (results verified)" ok \
		"$(field "$tmp/run-$name/manifest" status)"
}

replay captured "$tmp/pt" --variant single
m=$tmp/run-captured/manifest
check_eq "at its captured addresses" captured "$(field "$m" program.0.addresses)"
check_eq "... one range of one granule" "1 2097152" \
	"$(field "$m" program.0.address_ranges) $(field "$m" program.0.address_bytes)"
check_eq "... no reason given" "" "$(field "$m" program.0.addresses_why)"
check_match "... said in the log" \
	"program 'pointer-table': allocations at their captured addresses \(1 ranges, 2097152 bytes\)" \
	"$(cat "$tmp/run-captured/log")"

replay nss "$tmp/pt" --variant nss
check_eq "nss: at its captured addresses too" captured \
	"$(field "$tmp/run-nss/manifest" program.0.addresses)"

replay relocated "$tmp/pt" --variant single --addresses relocated
m=$tmp/run-relocated/manifest
check_eq "--addresses relocated: relocated" "relocated 0 0" \
	"$(field "$m" program.0.addresses) $(field "$m" program.0.address_ranges) $(field "$m" program.0.address_bytes)"
check_eq "... saying why" "--addresses relocated" "$(field "$m" program.0.addresses_why)"
replay nss-relocated "$tmp/pt" --variant nss --addresses relocated

# The driver's own memory at cuInit where the captured range is (issue
# 25: on a GPU with 141 GB the driver's reservations covered it): the
# range is held from the replay's start, and the driver goes around it.
MOCK_CUDA_DRIVER_BYTES=4096 replay driver-first "$tmp/pt" --variant single
check_eq "the driver's first device memory at cuInit: still captured" \
	captured "$(field "$tmp/run-driver-first/manifest" program.0.addresses)"
occupy=0x200000000000:1073741824	# 1 GiB over the captured range
MOCK_CUDA_OCCUPY=init:$occupy replay occupied-init "$tmp/pt" --variant single
check_eq "the driver's reservation at cuInit over the range: still captured" \
	captured "$(field "$tmp/run-occupied-init/manifest" program.0.addresses)"
check_match "... the range held since the start, says the log" \
	"replay: 1 captured ranges held since the replay started" \
	"$(cat "$tmp/run-occupied-init/log")"
MOCK_CUDA_OCCUPY=init:$occupy replay occupied-procs "$tmp/pair" --variant procs
check_eq "... in each replay process of procs too" "captured captured" \
	"$(field "$tmp/run-occupied-procs/manifest" program.0.addresses) $(field "$tmp/run-occupied-procs/manifest" program.1.addresses)"

# Something mapped there before the replay's main (a library): the
# reservation lands elsewhere, and the reason names what is there.
MOCK_CUDA_OCCUPY=load:$occupy replay taken "$tmp/pt" --variant single
m=$tmp/run-taken/manifest
check_eq "the range mapped before the replay started: relocated" relocated \
	"$(field "$m" program.0.addresses)"
lib='0x200000000000-0x200040000000 ---s /memfd:mock-cuda-library \(deleted\)'
check_match "... the reservation landed elsewhere: where, and what is in the range, there since before the start" \
	"^cannot reserve its captured range 0x200000000000-0x200000200000: the driver placed it at 0x[0-9a-f]+ \(the range is in use in this process: $lib, there before the replay started\)$" \
	"$(field "$m" program.0.addresses_why)"
check_match "... in the log too" \
	"program 'pointer-table': allocations relocated: cannot reserve .* in use in this process: $lib" \
	"$(cat "$tmp/run-taken/log")"

for f in cuMemAddressReserve:reserve cuMemCreate:back; do
	MOCK_CUDA_FAIL=${f%%:*} replay "fail-${f%%:*}" "$tmp/pt" --variant single
	check_match "${f%%:*} fails: relocated, naming the call" \
		"^cannot ${f#*:} its captured range 0x200000000000.*${f%%:*}" \
		"$(field "$tmp/run-fail-${f%%:*}/manifest" program.0.addresses_why)"
done

# The pair in one process.
replay pair "$tmp/pair" --variant cuda
m=$tmp/run-pair/manifest
check_eq "a pair: the program with pointers in device memory is placed" \
	"relocated captured" \
	"$(field "$m" program.0.addresses) $(field "$m" program.1.addresses)"
check_eq "... the other relocated, naming the collision" \
	"its captured addresses overlap those of program 'pointer-table' (0x200000000000-0x200000200000), placed there first" \
	"$(field "$m" program.0.addresses_why)"
"$GPUMIX" -q reconstruct --variant cuda -o "$tmp/twice" "$R/pointer-table" \
	"$R/pointer-table" 2>/dev/null
replay twice "$tmp/twice" --variant cuda
m=$tmp/run-twice/manifest
check_eq "the same program twice: the first placed, the second relocated" \
	"captured relocated" \
	"$(field "$m" program.0.addresses) $(field "$m" program.1.addresses)"
replay procs "$tmp/pair" --variant procs
m=$tmp/run-procs/manifest
check_eq "procs: each process places its program" "captured captured" \
	"$(field "$m" program.0.addresses) $(field "$m" program.1.addresses)"

out=$("$GPUMIX" replay --addresses nowhere "$tmp/pt" 2>&1); rc=$?
check_eq "--addresses nowhere: a usage error" 2 "$rc"
check_match "... naming the values" "--addresses takes 'captured' or 'relocated', not 'nowhere'" "$out"
check_match "gpumix replay --help lists --addresses" "--addresses M" \
	"$("$GPUMIX" replay --help)"

done_testing
