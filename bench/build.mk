# SPDX-License-Identifier: MIT
# bench/: benchmark scripts run by `make bench`.
BENCHES += bench/parboil_bench.sh
BENCHES += bench/nss.sh
BENCHES += bench/nss_completion.sh
BENCHES += bench/elastic_policy.sh
BENCHES += bench/slurm_overhead.sh
BENCHES += bench/driver_lock.sh
BENCHES += bench/probe_overhead.sh
BENCHES += bench/drivercalls_cost.sh
BENCHES += bench/placement.sh
BENCHES += bench/corun_fidelity.sh
BENCHES += bench/host_time_loop.sh
BENCHES += bench/host_pages.sh
BENCHES += bench/arrivals.sh
