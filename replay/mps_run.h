/* SPDX-License-Identifier: MIT */
/*
 * The mps variant: one replay process per program under a private MPS
 * control daemon (mps_run.c; doc/mps.md).
 */
#ifndef GM_MPS_RUN_H
#define GM_MPS_RUN_H

struct gm_run;

/*
 * Run @run's workload as one process per program (this program again,
 * with @argv plus --mps-child), under a daemon started and always
 * stopped here, and write the merged run directory. @run has its
 * options, its run directory prepared and its log open; CUDA is never
 * initialised in this process. Returns the exit status: 0 ok, 1 failed
 * (or refused: no MPS, the run directory removed), 3 hung, 130
 * interrupted.
 */
int gm_mps_run(struct gm_run *run, int argc, char **argv);

#endif
