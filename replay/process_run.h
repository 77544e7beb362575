/* SPDX-License-Identifier: MIT */
/*
 * The process variants (GM_VARIANT_PROCESSES: procs, mps): one replay
 * process per program, time-sliced by the driver or under a private MPS
 * control daemon (process_run.c; doc/mps.md).
 */
#ifndef GM_PROCESS_RUN_H
#define GM_PROCESS_RUN_H

struct gm_run;

/*
 * Run @run's workload as one process per program (this program again,
 * with @argv plus --process-child), and write the merged run directory.
 * A GM_VARIANT_MPS_DAEMON variant's processes are clients of a daemon
 * started and always stopped here; the others' get no MPS variable in
 * their environment. @run has its options, its run directory prepared
 * and its log open; CUDA is never initialised in this process. Returns
 * the exit status: 0 ok, 1 failed (or refused: no MPS, the run directory
 * removed), 3 hung, 130 interrupted.
 */
int gm_process_run(struct gm_run *run, int argc, char **argv);

#endif
