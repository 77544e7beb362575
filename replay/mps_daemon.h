/* SPDX-License-Identifier: MIT */
/*
 * A private MPS control daemon for one replay of the mps variant
 * (doc/mps.md): started with `nvidia-cuda-mps-control -d` under a pipe
 * directory of its own (a fresh temporary directory: the control socket's
 * path must stay short) and a log directory the caller chooses, and always
 * stopped with `quit`, whatever happens to the replay.
 *
 * "Always" is the job of a reaper: a small process forked before the
 * daemon starts, in a session of its own and deaf to SIGINT, SIGTERM and
 * SIGHUP, that waits for the end of a pipe from the replay. When the
 * replay closes it (gm_mps_daemon_stop) or dies in any way (even
 * SIGKILL), the reaper sends `quit`, waits for every process of this
 * daemon (nvidia-cuda-mps-control and -server whose environment names our
 * pipe directory) to end, kills those that do not, and removes the pipe
 * directory. Every command has a time limit: no step can hang the replay.
 */
#ifndef GM_MPS_DAEMON_H
#define GM_MPS_DAEMON_H

#include <sys/types.h>

#include "variant.h"	/* GM_MPS_CONTROL */

struct gm_mps_daemon {
	char *pipe_dir;		/* CUDA_MPS_PIPE_DIRECTORY (owned) */
	char *server_devices;	/* CUDA_VISIBLE_DEVICES it started with
				 * (owned; NULL: unset) */
	char *log_dir;		/* CUDA_MPS_LOG_DIRECTORY (owned) */
	pid_t reaper;		/* 0: none */
	int reaper_fd;		/* our end of its pipe, -1: none */
	double timeout_s;	/* per step: start, query, quit */
};

/* Seconds each step of a daemon may take: GPUMIX_MPS_TIMEOUT, or 20. */
double gm_mps_daemon_timeout_s(void);

/*
 * Start a daemon whose logs go to @log_dir (created). Fails, with a cause
 * that says why and nothing left behind, when nvidia-cuda-mps-control is
 * not in PATH, exits non-zero, does not return within @timeout_s, or does
 * not answer a query within @timeout_s. On success the caller sets
 * @d->pipe_dir and @d->log_dir in the environment of every client
 * (gm_mps_daemon_env) and must call gm_mps_daemon_stop().
 */
int gm_mps_daemon_start(struct gm_mps_daemon *d, const char *log_dir,
			double timeout_s);

/* Put CUDA_MPS_PIPE_DIRECTORY and CUDA_MPS_LOG_DIRECTORY of @d into this
 * process's environment (for the clients it starts), and the clients'
 * CUDA_VISIBLE_DEVICES (gm_mps_client_devices), keeping the daemon's in
 * GPUMIX_MPS_SERVER_DEVICES. */
void gm_mps_daemon_env(const struct gm_mps_daemon *d);

/* Undo gm_mps_daemon_env(): no MPS variables, CUDA_VISIBLE_DEVICES as
 * the daemon started with it (before gm_mps_daemon_stop). */
void gm_mps_daemon_leave_env(const struct gm_mps_daemon *d);

/*
 * MPS remaps the devices its daemon was started with: a client sees them
 * as devices 0 .. n-1, so an index the daemon understood names another
 * device, or none ("no CUDA-capable device"), in a client (the NVIDIA MPS
 * guide, appendix "CUDA_VISIBLE_DEVICES"); a UUID means the same on both
 * sides. For the daemon's @server list (NULL: unset), the list its
 * clients must use: NULL when theirs can stay as it is (unset, or UUIDs
 * only), else "0,1,...,n-1" for its n entries (allocated).
 */
char *gm_mps_client_devices(const char *server);

/* The devices this process was given (for manifests): the daemon's list
 * while gm_mps_daemon_env() is in force, else CUDA_VISIBLE_DEVICES;
 * NULL or "" when unset. */
const char *gm_visible_devices(void);

/*
 * Stop the daemon (through the reaper) and wait for it. Returns 0 when
 * it ended after `quit`, -1 with a cause when it had to be killed or the
 * reaper did not finish in time. Frees @d's strings either way; calling
 * it again, or on a daemon that never started, does nothing.
 */
int gm_mps_daemon_stop(struct gm_mps_daemon *d);

#endif
