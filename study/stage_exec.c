/* SPDX-License-Identifier: MIT */
/*
 * Child processes for study stages (see stage_exec.h), started and
 * watched by common/run_command.h. Each stage is the leader of its own
 * process group, and the study signals the group, so a stage's own
 * children (a replay program under gpumix replay) stop with it. Signal
 * handlers only record the signal; forwarding happens in the wait loop.
 */
#include "stage_exec.h"

#include <signal.h>
#include <string.h>
#include <time.h>

#include "clock.h"
#include "error.h"
#include "run_command.h"

#define GRACE_S 10.0		/* default from SIGTERM to SIGKILL */
#define TICK_S 0.1

/* The only process-wide state: what a signal handler may write. */
static volatile sig_atomic_t interrupted_by;

static void on_signal(int sig)
{
	if (!interrupted_by) {
		interrupted_by = sig;
	}
}

static const int caught[] = { SIGINT, SIGTERM, SIGHUP };

void stage_exec_catch_signals(void)
{
	struct sigaction sa;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_signal;
	sigemptyset(&sa.sa_mask);
	for (size_t i = 0; i < sizeof(caught) / sizeof(caught[0]); i++) {
		sigaction(caught[i], &sa, NULL);
	}
}

void stage_exec_restore_signals(void)
{
	for (size_t i = 0; i < sizeof(caught) / sizeof(caught[0]); i++) {
		signal(caught[i], SIG_DFL);
	}
}

int stage_exec_interrupted(void)
{
	return interrupted_by;
}

void stage_exec_clear_interrupt(void)
{
	interrupted_by = 0;
}

/* The child's description for run_command.h: a group of its own, told
 * to stop when the study dies (even by SIGKILL). */
static void to_command(const struct stage_cmd *c, struct gm_run_command *cmd)
{
	memset(cmd, 0, sizeof(*cmd));
	cmd->argv = c->argv;
	cmd->path = c->path;
	cmd->cwd = c->cwd;
	cmd->env = c->env;
	cmd->output = c->log_path;
	cmd->own_group = 1;
	cmd->death_signal = SIGTERM;
	cmd->timeout_s = c->timeout_s;
	cmd->grace_s = c->grace_s > 0 ? c->grace_s : GRACE_S;
}

int stage_exec_poll(struct stage_proc *p)
{
	const struct gm_run_result *g = &p->ch.r;

	p->ch.c = &p->cmd;	/* the slot holding @p may have moved */
	if (!gm_run_command_poll(&p->ch, interrupted_by)) {
		return 0;
	}
	p->r.exit_code = g->exit_code;
	p->r.signal = g->signal;
	p->r.timed_out = g->timed_out;
	p->r.interrupted = g->interrupted;
	p->r.seconds = g->seconds;
	return 1;
}

int stage_exec_start(const struct stage_cmd *c, struct stage_proc *p)
{
	memset(p, 0, sizeof(*p));
	p->c = c;
	to_command(c, &p->cmd);
	if (gm_run_command_start(&p->cmd, &p->ch)) {
		return -1;
	}
	p->pid = p->ch.pid;
	if (c->spawned) {
		c->spawned(c->arg);
	}
	return 0;
}

int stage_exec_run(const struct stage_cmd *c, struct stage_result *r)
{
	struct stage_proc p;
	double sleep_s = 0.001, last_tick;

	memset(r, 0, sizeof(*r));
	if (stage_exec_start(c, &p)) {
		return -1;
	}
	last_tick = p.ch.start;
	while (!stage_exec_poll(&p)) {
		double t = gm_now_s();
		if (c->tick && t - last_tick >= TICK_S) {
			c->tick(c->arg);
			last_tick = t;
		}
		struct timespec ts = { 0, (long)(sleep_s * 1e9) };
		nanosleep(&ts, NULL);
		if (sleep_s < TICK_S) {
			sleep_s *= 2;
		}
	}
	*r = p.r;
	return 0;
}
