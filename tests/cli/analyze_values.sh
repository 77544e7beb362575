#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
#
# The paper's metrics on the hand-computed study tests/data/runs/good/study
# (doc/database.md, "Worked example"): every number below was computed by
# hand from the run directories, and gpumix report must print exactly it.
. "${GPUMIX_TOP:-$(cd "$(dirname "$0")/../.." && pwd)}/tests/lib.sh"
scratch_dir >/dev/null
tmp=${_scratch:?}
cd "$GPUMIX_TOP" || exit 1
db=$tmp/study.db
"$GPUMIX" -q analyze tests/data/runs/good/study -o "$db"
check_eq "load the study" 0 "$?"

table() { "$GPUMIX" -q report "$db" --format csv --table "$1"; }
expect() { check_eq "$1" "$(cat)" "$(table "$1")"; }

# STP = 100/200 + 200/250 = 1.3; ANTT = (2 + 1.25)/2 = 1.625 (cuda);
# STP = 100/125 + 200/200 = 1.8; ANTT = (1.25 + 1)/2 = 1.125 (nss).
expect summary <<'CSV'
programs,variant,workloads,stp_geomean,stp_best,antt_geomean,antt_worst,repetitions,stp_geomean_lo,stp_geomean_hi,stp_best_lo,stp_best_hi,antt_geomean_lo,antt_geomean_hi,antt_worst_lo,antt_worst_hi
2,cuda,1,1.3,1.3,1.625,1.625,1,,,,,,,,
2,nss,1,1.8,1.8,1.125,1.125,1,,,,,,,,
CSV
# 1.8/1.3 = 1.38461538; 1.625/1.125 = 1.44444444; MTSpeedup: workload
# time 250 (cuda) / 200 (nss) = 1.25; a+c has only cuda (1.0).
expect improvement <<'CSV'
programs,variant,workloads,stp,antt,mtspeedup_workloads,mtspeedup,stp_vs_cuda,antt_vs_cuda,mtspeedup_vs_cuda,stp_lo,stp_hi,antt_lo,antt_hi,mtspeedup_lo,mtspeedup_hi
2,cuda,1,1,1,2,1,n/a,n/a,n/a,,,,,,
2,nss,1,1.38461538,1.44444444,1,1.25,n/a,n/a,n/a,,,,,,
CSV
# a+c has no single run of c: no STP/ANTT, the rest is there.
expect workloads <<'CSV'
workload,programs,variant,stp,antt,workload_time_ms,mtspeedup,repetitions,stp_lo,stp_hi,antt_lo,antt_hi,workload_time_ms_lo,workload_time_ms_hi,mtspeedup_lo,mtspeedup_hi
a+b,2,cuda,1.3,1.625,0.25,1,1,,,,,,,,
a+b,2,nss,1.8,1.125,0.2,1.25,1,,,,,,,,
a+c,2,cuda,,,0.3,1,1,,,,,,,,
CSV
# Alone times come from a+b.single, also for a in a+c (same bundle).
expect programs <<'CSV'
workload,variant,program,kept_replays,t_mp_ms,t_sp_ms,t_sp_t_mp,alone_time_from,repetitions,t_mp_ms_lo,t_mp_ms_hi,t_sp_ms_lo,t_sp_ms_hi,t_sp_t_mp_lo,t_sp_t_mp_hi
a+b,single,a,2,0.1,0.1,1,a+b.single,1,,,,,,
a+b,single,b,2,0.2,0.2,1,a+b.single,1,,,,,,
a+b,cuda,a,2,0.2,0.1,0.5,a+b.single,1,,,,,,
a+b,cuda,b,2,0.25,0.2,0.8,a+b.single,1,,,,,,
a+b,nss,a,2,0.125,0.1,0.8,a+b.single,1,,,,,,
a+b,nss,b,2,0.2,0.2,1,a+b.single,1,,,,,,
a+c,cuda,a,2,0.3,0.1,0.333333333,a+b.single,1,,,,,,
a+c,cuda,c,2,0.1,,,,1,,,,,,
CSV
# a+b.cuda waits 10, 20, ..., 100 us: mean 55, median (50+60)/2 = 55,
# p95 = 90 + 0.55 (100 - 90) = 95.5 us; kernel 1 alone has queued and
# submitted: splits 2, 3, 5 us.
expect waiting <<'CSV'
variant,kernels,mean_ms,median_ms,p95_ms,kernels_with_split,api_queued_ms,queued_submitted_ms,submitted_start_ms
single,4,0.005,0.005,0.005,0,,,
cuda,12,0.0483333333,0.045,0.0945,1,0.002,0.003,0.005
nss,0,,,,0,,,
elastic+median,0,,,,0,,,
CSV
expect waiting-runs <<'CSV'
workload,variant,kernels,mean_ms,median_ms,p95_ms,repetition
a+b,single,4,0.005,0.005,0.005,0
a+b,cuda,10,0.055,0.055,0.0955,0
a+b,nss,0,,,,0
a+c,cuda,2,0.015,0.015,0.0195,0
CSV
# The split at the end of the work before each kernel in its stream:
# a+b.cuda's a waits 10, 30, 50, 70, 90 us, its stream idle each time (0
# queued); b waits 20, 40, 60, 80, 100 us, and K6 (launched at 340 us)
# queued behind K4 until 400 us, when it started: 60 us of its 60, the
# mean 12 of 60. a+b.single: each kernel's copy or memset ended before its
# launch call (a's copy ends exactly at it): 5 us waiting for SMs each.
expect waiting-split <<'CSV'
workload,variant,program,kernels,waiting_ms,queued_behind_its_own_stream_ms,waiting_for_sms_ms
a+b,single,a,2,0.005,0,0.005
a+b,single,b,2,0.005,0,0.005
a+b,cuda,a,5,0.05,0,0.05
a+b,cuda,b,5,0.06,0.012,0.048
a+b,nss,a,0,,,
a+b,nss,b,0,,,
a+c,cuda,a,1,0.01,0,0.01
a+c,cuda,c,1,0.02,0,0.02
CSV
# a+b.cuda: EXCLUSIVE 200 us (K3, K4 and the zero-length K11), FULL 300
# (K1, K9), RESTRICTED 300 (K6, K7, K8, K10), PARTIAL 200 (K2, K5) of
# 1000 us; ties: K5/K6 and K7/K8 start together, K3 ends when K4 starts.
expect overlap-runs <<'CSV'
workload,variant,exclusive_pct,shared_full_pct,shared_restricted_pct,shared_partial_pct,exclusive_n,full_n,restricted_n,partial_n,repetition
a+b,single,100,0,0,0,4,0,0,0,0
a+b,cuda,20,30,30,20,3,2,4,2,0
a+b,nss,,,,,0,0,0,0,0
a+c,cuda,0,33.3333333,0,66.6666667,0,1,0,1,0
CSV
expect overlap <<'CSV'
variant,exclusive_pct,shared_full_pct,shared_restricted_pct,shared_partial_pct,exclusive_n,full_n,restricted_n,partial_n
single,100,0,0,0,4,0,0,0
cuda,15.3846154,30.7692308,23.0769231,30.7692308,3,3,4,3
nss,,,,,0,0,0,0
elastic+median,,,,,0,0,0,0
CSV
# a+b.cuda: 1000 us of kernels over a 1250 us span: 0.8 running kernels;
# each kernel holds 132 blocks x 256 threads = 12.5% of the threads and
# registers and 1/32 of the block slots: 10%, 10%, 2.5%.
expect utilization-runs <<'CSV'
workload,variant,span_ms,kernels,running_kernels,threads_pct,registers_pct,shared_memory_pct,blocks_pct,repetition
a+b,single,1,4,0.3,11.25,21.25,4.21052632,0.9375,0
a+b,cuda,1.25,11,0.8,10,10,0,2.5,0
a+b,nss,0.45,0,0,0,0,0,0,0
a+c,cuda,0.8,2,0.375,4.6875,4.6875,0,1.171875,0
CSV
expect utilization <<'CSV'
variant,runs,running_kernels,threads_pct,registers_pct,shared_memory_pct,blocks_pct
single,1,0.3,11.25,21.25,4.21052632,0.9375
cuda,2,0.5875,7.34375,7.34375,0,1.8359375
nss,1,0,0,0,0,0
elastic+median,0,,,,,
CSV
# kernel_b: 1024 threads x 64 registers -> 1 block per SM (registers);
# 132 of 2000 blocks resident: T 50%, R 100%, S 49152/233472 = 21.05%,
# B 1/32. kernelA: 8 blocks per SM (threads and registers tie).
expect resources <<'CSV'
device,program,kernel,tb,tpb,regs,smem_b,instances,t_pct,r_pct,s_pct,b_pct,limited_by
NVIDIA H100 80GB HBM3,a,kernelA,132,256,32,0,2,12.5,12.5,0,3.125,registers+threads
NVIDIA H100 80GB HBM3,b,kernel_b,2000,1024,64,49152,2,50,100,21.0526316,3.125,registers
Average,,,,,,,,31.25,56.25,10.5263158,3.125,
CSV

notes=$("$GPUMIX" report "$db" --table summary 2>&1 >/dev/null)
check_eq "notes: missing baseline, missing launch call, empty run, failed run" \
"note: run 'a+c.cuda': no \`single\` run of 'c': STP and ANTT not computed for it (the other metrics are)
note: run 'a+b.cuda': 1 kernel has no launch call record (left out of waiting time)
note: run 'a+b.nss' has no kernel records
note: run 'a+c.elastic.median' failed (program c, cuLaunchKernel, event 12: watchdog): left out of every metric" "$notes"

# Markdown rounds like printf: 1.625 is exactly halfway, ties go to even.
md=$("$GPUMIX" -q report "$db" --table summary)
check_eq "Markdown table (one repetition: no interval)" "## Summary (paper Table 4)

STP = sum of T_SP/T_MP over a workload's programs (higher is better); ANTT = mean of T_MP/T_SP (lower is better). Geometric means over the workloads that have a \`single\` baseline in every repetition, per workload size, with their 95% interval over the repetitions [lo, hi] (doc/database.md, \"Intervals\"); best and worst: the workload with the highest mean.

| programs | variant | workloads | STP geomean | STP best | ANTT geomean | ANTT worst | repetitions |
| ---: | --- | ---: | ---: | ---: | ---: | ---: | ---: |
| 2 | cuda | 1 | 1.30 [n/a] | 1.30 [n/a] | 1.62 [n/a] | 1.62 [n/a] | 1 |
| 2 | nss | 1 | 1.80 [n/a] | 1.80 [n/a] | 1.12 [n/a] | 1.12 [n/a] | 1 |" "$md"

# The comparison with the paper: STP geomean of cuda 1.3 against the
# paper's 1.03, nss's STP improvement 1.8/1.3 against its 1.15.
paper=$("$GPUMIX" -q report "$db" --table paper --format csv)
check_eq "paper: cuda's STP geomean beside the paper's, with the ratio" \
	"Table 4,2,cuda,STP geomean,higher,1.03,1.3,1.26213592,,," \
	"$(grep '^Table 4,2,cuda,STP geomean,' <<<"$paper")"
check_eq "paper: nss's STP improvement beside the paper's" \
	"Table 5,2,nss,STP improvement over cuda,higher,1.15,1.38461538,1.20401338,,," \
	"$(grep '^Table 5,2,nss,STP improvement' <<<"$paper")"
check_match "paper: the kernels (the failed elastic run does not count)" \
	"Kernels: all variants ran the captured kernels \(the paper: the same transformed kernels in every variant\)\. Copy chunks: off \(copy_chunk: 0; the paper: 4 MB\)\." \
	"$("$GPUMIX" -q report "$db" --table paper)"

all=$("$GPUMIX" -q report "$db" --format json)
# As many as `gpumix report --table` names (the registry's tables).
ntables=$("$GPUMIX" report --help | sed -n '/^ *--table <name>  /,/^ *--ci /p' | sed '$d' |
	sed 's/.*print only this table://' | tr ',' '\n' | grep -c '[a-z]')
check_eq "all tables in JSON: every table of the registry ($ntables)" "$ntables" \
	"$(printf '%s\n' "$all" | python3 -c 'import json, sys; print(len(json.load(sys.stdin)["tables"]))')"

done_testing
