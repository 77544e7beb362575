#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
#
# The GPU's state in the run manifest (doc/run-directory.md, gpu.start.*
# and gpu.end.*): the replay runtime reads the SM clock, temperature and
# clock-throttle reasons through NVML at the run's start and end, from the
# NVML stand-in (tests/mock/mock_nvml.c) here. Read-only: the stand-in
# logs every call, and no setter may appear. Without NVML the keys are
# absent and the log says why.
. "$(dirname "$0")/../lib.sh"

GEN=$GPUMIX_BUILD/tests/gen-workload
FATBIN=$GPUMIX_TOP/tests/data/codegen/dummy.fatbin
export LD_LIBRARY_PATH=$GPUMIX_BUILD/tests/mock${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
scratch_dir >/dev/null
tmp=$_scratch
export TMPDIR=$tmp	# the mps run's private pipe directories go here
. "$GPUMIX_TOP/tests/replay_check.sh"

"$GEN" tiny --fatbin "$FATBIN" -o "$tmp/wl" 2>/dev/null
export MOCK_NVML_LOG=$tmp/nvml.log
"$GPUMIX" -q replay --min-replays 2 -o "$tmp/run" "$tmp/wl" >/dev/null 2>&1
check_eq "replay: exit 0" 0 "$?"
m=$tmp/run/manifest
check_eq "start: SM clock" 1980 "$(field "$m" gpu.start.sm_clock_mhz)"
check_eq "start: temperature" 40 "$(field "$m" gpu.start.temp_c)"
check_eq "start: no throttle reason" none "$(field "$m" gpu.start.throttle)"
check_eq "end: SM clock" 1980 "$(field "$m" gpu.end.sm_clock_mhz)"
check_eq "end: no throttle reason" none "$(field "$m" gpu.end.throttle)"
check_eq "only queries reach NVML, nothing is set" \
	"nvmlDeviceGetClockInfo nvmlDeviceGetCurrentClocksEventReasons nvmlDeviceGetHandleByPciBusId_v2 nvmlDeviceGetTemperature nvmlInit_v2 nvmlShutdown" \
	"$(sort -u "$tmp/nvml.log" | tr '\n' ' ' | sed 's/ $//')"
check_eq "two readings: start and end" 2 "$(grep -c '^nvmlDeviceGetClockInfo$' "$tmp/nvml.log")"

# The clock drops and the GPU throttles between start and end.
MOCK_NVML_SM_CLOCK=1980,1410 MOCK_NVML_TEMP=45,87 MOCK_NVML_THROTTLE=0,0x24 \
	"$GPUMIX" -q replay --min-replays 2 -o "$tmp/hot" "$tmp/wl" >/dev/null 2>&1
m=$tmp/hot/manifest
check_eq "start as it was" "1980 45 none" "$(field "$m" gpu.start.sm_clock_mhz) $(field "$m" gpu.start.temp_c) $(field "$m" gpu.start.throttle)"
check_eq "end: the lower clock, the heat, the reasons by name" \
	"1410 87 sw_power_cap,sw_thermal" \
	"$(field "$m" gpu.end.sm_clock_mhz) $(field "$m" gpu.end.temp_c) $(field "$m" gpu.end.throttle)"
MOCK_NVML_THROTTLE=0x101,0x3000 \
	"$GPUMIX" -q replay --min-replays 2 -o "$tmp/odd" "$tmp/wl" >/dev/null 2>&1
check_eq "idle and display clocks" gpu_idle,display_clocks "$(field "$tmp/odd/manifest" gpu.start.throttle)"
check_eq "bits NVML does not name: in hex" 0x3000 "$(field "$tmp/odd/manifest" gpu.end.throttle)"

# NVML that cannot start: the run is as good, the keys are absent.
MOCK_NVML_INIT=fail "$GPUMIX" -q replay --min-replays 2 -o "$tmp/nonvml" "$tmp/wl" >/dev/null 2>&1
check_eq "no NVML: the replay still succeeds" 0 "$?"
check_eq "no NVML: status ok" ok "$(field "$tmp/nonvml/manifest" status)"
check_eq "no NVML: no gpu.* keys" "" "$(grep '^gpu\.' "$tmp/nonvml/manifest")"
check_match "no NVML: the log says why" \
	"no GPU clock, temperature or throttle reasons in the manifest: nvmlInit_v2 failed" \
	"$(cat "$tmp/nonvml/log")"

# The mps variant's processes each read it; the run's manifest has them.
PATH=$GPUMIX_BUILD/tests/mock/mps:$PATH "$GPUMIX" -q replay --variant mps \
	--min-replays 2 -o "$tmp/mps" "$tmp/wl" >/dev/null 2>&1
check_eq "mps: exit 0" 0 "$?"
check_eq "mps: the processes' GPU state" "1980 1980" \
	"$(field "$tmp/mps/manifest" gpu.start.sm_clock_mhz) $(field "$tmp/mps/manifest" gpu.end.sm_clock_mhz)"
done_testing
