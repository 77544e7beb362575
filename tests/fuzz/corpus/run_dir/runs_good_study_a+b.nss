# hand-written run for the analyze tests (see tests/data/runs/README.md)
format = gpumix-run 1
workload = a+b
variant = nss
policy = none
programs = 2
program.0.name = a
program.0.bundle = traces/a
program.0.deterministic = 1
program.1.name = b
program.1.bundle = traces/b
program.1.deterministic = 1
device.name = NVIDIA H100 80GB HBM3
device.cc = 9.0
device.sm_count = 132
device.max_threads_per_sm = 2048
device.max_blocks_per_sm = 32
device.regs_per_sm = 65536
device.smem_per_sm = 233472
driver_version = 13000
runtime_version = 13000
cuda_device_max_connections = 8
streams = 2
min_replays = 2
gpumix_version = test
started_at = 2025-01-01T00:00:00Z
finished_at = 2025-01-01T00:00:01Z
status = ok
cupti.dropped_records = 0

==gpumix-fuzz-file==
program	replay	start_ns	end_ns	io_ns	kept
a	0	1000000000000	1000000125000	0	1
a	1	1000000125000	1000000250000	0	1
a	2	1000000250000	1000000300000	0	0
b	0	1000000000000	1000000200000	0	1
b	1	1000000200000	1000000400000	0	1
b	2	1000000400000	1000000450000	0	0

==gpumix-fuzz-file==
END	0
