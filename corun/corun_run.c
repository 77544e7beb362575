/* SPDX-License-Identifier: MIT */
/*
 * Running the steps of a native co-run (see corun_run.h).
 */
#include "corun_run.h"

#include <dirent.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "corun/section.h"
#include "error.h"
#include "fs.h"
#include "replay/mps_daemon.h"
#include "start_barrier.h"
#include "strbuf.h"
#include "study/stage_exec.h"

struct runner {
	const struct corun_plan *plan;
	const struct corun_program *progs;
	const struct corun_opts *o;
	struct corun_results *r;
	char *no_mps_dir;		/* an MPS pipe directory, no daemon */
	struct gm_mps_daemon daemon;
	const struct gm_variant *daemon_for; /* NULL: none runs */
};

/* One program's processes in one step. */
struct slot {
	size_t program;
	char *log;		/* its stdout and stderr */
	char *log_rel;		/* the same, in the corun directory */
	char *sections;		/* its section files' directory */
	char **env;
	struct stage_cmd cmd;
	struct stage_proc proc;
	int started, ended;
	int early;		/* ended while the barrier waited for it */
};

static void strv_free(char **v)
{
	for (size_t i = 0; v && v[i]; i++) {
		free(v[i]);
	}
	free(v);
}

static char **strv_add(char **v, size_t *n, char *s)
{
	v = gm_xrealloc(v, (*n + 2) * sizeof(*v));
	v[(*n)++] = s;
	v[*n] = NULL;
	return v;
}

/* "MODE.REPEAT[.PROGRAM]": the step's name in file names. */
static char *step_file(const struct runner *x, const struct corun_step *s,
		       const char *program)
{
	(void)x;
	return program ? gm_xasprintf("%s.%u.%s", corun_step_mode(s), s->repeat,
				      program)
		       : gm_xasprintf("%s.%u", corun_step_mode(s), s->repeat);
}

/* "procs, repeat 2": the step in messages. */
static char *step_words(const struct corun_step *s)
{
	return gm_xasprintf("%s%s, repeat %u", s->mech ? "together under " : "",
			    corun_step_mode(s), s->repeat);
}

static void set_failure(struct runner *x, char *msg)
{
	if (!x->r->failure) {
		x->r->failure = msg;
	} else {
		free(msg);
	}
}

/* The MPS set-up a step needs: its mechanism's daemon, or none at all. */
static int mps_for(struct runner *x, const struct corun_step *s)
{
	const struct gm_variant *want = s->mech && corun_mechanism_mps(s->mech) ?
						     s->mech : NULL;

	if (x->daemon_for && x->daemon_for != want) {
		gm_mps_daemon_leave_env(&x->daemon);
		if (gm_mps_daemon_stop(&x->daemon)) {
			x->r->daemon_trouble = 1;
			gm_error_clear();
		}
		x->daemon_for = NULL;
	}
	if (want && !x->daemon_for) {
		char *logs = gm_xasprintf("%s/mps/%s", x->o->dir, want->name);
		int rc = gm_mps_daemon_start(&x->daemon, logs,
					     gm_mps_daemon_timeout_s());
		free(logs);
		if (rc) {
			return gm_error("cannot start the MPS daemon of '%s'",
					want->name);
		}
		x->daemon_for = want;
		gm_mps_daemon_env(&x->daemon);
	}
	if (!want) {
		setenv("CUDA_MPS_PIPE_DIRECTORY", x->no_mps_dir, 1);
	}
	return 0;
}

static void prepare(struct runner *x, const struct corun_step *s,
		    struct slot *sl, size_t program, int slot_no,
		    const char *barrier_dir)
{
	const struct corun_program *p = &x->progs[program];
	char *name = step_file(x, s, p->name);
	size_t n = 0;

	sl->program = program;
	sl->log_rel = gm_xasprintf("logs/%s.log", name);
	sl->log = gm_path_join(x->o->dir, sl->log_rel);
	sl->sections = gm_xasprintf("%s/sections/%s", x->o->dir, name);
	for (size_t i = 0; p->env && p->env[i]; i++) {
		sl->env = strv_add(sl->env, &n, gm_xstrdup(p->env[i]));
	}
	sl->env = strv_add(sl->env, &n, gm_xasprintf("CUDA_INJECTION64_PATH=%s",
						     x->o->lib));
	sl->env = strv_add(sl->env, &n, gm_xasprintf(GM_CORUN_ENV_OUT "=%s",
						     sl->sections));
	sl->env = strv_add(sl->env, &n, gm_xasprintf(GM_CORUN_ENV_TIMEOUT "=%g",
						     x->o->barrier_timeout_s));
	if (barrier_dir) {
		sl->env = strv_add(sl->env, &n,
				   gm_xasprintf(GM_CORUN_ENV_BARRIER "=%s",
						barrier_dir));
		sl->env = strv_add(sl->env, &n,
				   gm_xasprintf(GM_CORUN_ENV_SLOT "=%d", slot_no));
	}
	sl->cmd.argv = p->argv;
	sl->cmd.path = p->path;
	sl->cmd.cwd = p->cwd;
	sl->cmd.log_path = sl->log;
	sl->cmd.timeout_s = x->o->time_limit_s;
	sl->cmd.env = sl->env;
	free(name);
}

static void release_slot(struct slot *sl)
{
	free(sl->log);
	free(sl->log_rel);
	free(sl->sections);
	strv_free(sl->env);
}

static void nap(double *s)
{
	struct timespec ts = { 0, (long)(*s * 1e9) };

	nanosleep(&ts, NULL);
	if (*s < 0.01) {
		*s *= 2;
	}
}

/*
 * Wait for every started process of @sl; break @b (when given) as soon as
 * one ends before it arrived. On an interruption stage_exec_poll()
 * forwards the signal to each, and they are still waited for.
 */
static void wait_all(struct slot *sl, size_t n, struct gm_start_barrier *b)
{
	size_t left = 0;
	double s = 0.0005;

	for (size_t i = 0; i < n; i++) {
		left += sl[i].started && !sl[i].ended;
	}
	while (left) {
		for (size_t i = 0; i < n; i++) {
			if (!sl[i].started || sl[i].ended ||
			    !stage_exec_poll(&sl[i].proc)) {
				continue;
			}
			sl[i].ended = 1;
			left--;
			if (b && b->shm && !gm_barrier_arrived(b, (unsigned)i) &&
			    gm_barrier_state(b) == GM_BARRIER_WAITING) {
				sl[i].early = 1;
				gm_barrier_break(b);
			}
		}
		if (left) {
			nap(&s);
		}
	}
}

/* "exit status 3", "signal 9", "the time limit of 60 s". */
static char *how_ended(const struct slot *sl, const struct runner *x)
{
	const struct stage_result *r = &sl->proc.r;

	if (r->timed_out) {
		return gm_xasprintf("it ran past the time limit of %g s",
				    x->o->time_limit_s);
	}
	if (r->signal) {
		return gm_xasprintf("signal %d (%s)", r->signal,
				    strsignal(r->signal));
	}
	return gm_xasprintf("exit status %d", r->exit_code);
}

/*
 * Read the section files of @sl's processes into @m (the merged section)
 * and @worst (the barrier outcome and error that matter most). Returns
 * the number of section files.
 */
static size_t read_sections(const struct slot *sl, struct corun_measure *m,
			    struct corun_section *worst)
{
	DIR *d = opendir(sl->sections);
	struct dirent *e;
	size_t n = 0;
	uint64_t first = UINT64_MAX;

	memset(worst, 0, sizeof(*worst));
	if (!d) {
		return 0;
	}
	while ((e = readdir(d))) {
		struct corun_section s;
		char *path;
		/* (a writer killed before its rename leaves NAME.tmp.XXXXXX) */
		if (strncmp(e->d_name, "section.", 8) ||
		    strstr(e->d_name, ".tmp.")) {
			continue;
		}
		path = gm_path_join(sl->sections, e->d_name);
		if (corun_section_read(&s, path)) {
			snprintf(worst->error, sizeof(worst->error), "%s",
				 gm_error_message());
			gm_error_clear();
			free(path);
			n++;
			continue;
		}
		free(path);
		n++;
		if (s.error[0] && !worst->error[0]) {
			snprintf(worst->error, sizeof(worst->error), "%s", s.error);
		}
		if (s.barrier > worst->barrier) {
			worst->barrier = s.barrier;
			snprintf(worst->missing, sizeof(worst->missing), "%s",
				 s.missing);
		}
		if (!s.ops) {
			continue;
		}
		m->processes++;
		m->ops += s.ops;
		if (s.arrive_ns < first) {
			first = s.arrive_ns;
			snprintf(m->first_op, sizeof(m->first_op), "%s", s.first_op);
			snprintf(m->device, sizeof(m->device), "%s", s.device);
		}
		if (!m->start_ns || s.start_ns < m->start_ns) {
			m->start_ns = s.start_ns;
		}
		if (s.end_ns >= m->end_ns) {
			m->end_ns = s.end_ns;
			snprintf(m->last_op, sizeof(m->last_op), "%s", s.last_op);
		}
	}
	closedir(d);
	return n;
}

/* The names of the slots in @missing ("1,3") as "'mm', 'spmv'". */
static char *slot_names(const struct runner *x, const struct slot *sl,
			size_t n, const char *missing)
{
	struct strbuf sb = STRBUF_INIT;
	const char *p = missing;

	while (*p) {
		char *end;
		unsigned long i = strtoul(p, &end, 10);
		if (end == p) {
			break;
		}
		if (i < n) {
			strbuf_addf(&sb, "%s'%s'", sb.len ? ", " : "",
				    x->progs[sl[i].program].name);
		}
		p = *end == ',' ? end + 1 : end;
	}
	if (!sb.len) {
		strbuf_addstr(&sb, "a partner");
	}
	return strbuf_detach(&sb, NULL);
}

/*
 * The measures of a finished step, or its first failure: a program that
 * ended before the barrier (the cause of its partners' trouble) first,
 * then waits that timed out, exits that were not 0, sections missing.
 */
static void collect(struct runner *x, size_t si, struct slot *sl, size_t n)
{
	const struct corun_step *s = &x->plan->steps[si];
	struct corun_measure *m = gm_xcalloc(n, sizeof(*m));
	struct corun_section *worst = gm_xcalloc(n, sizeof(*worst));
	size_t *files = gm_xcalloc(n, sizeof(*files));
	char *where = step_words(s);
	int failed = 0;

	for (size_t i = 0; i < n; i++) {
		m[i].step = si;
		m[i].program = sl[i].program;
		files[i] = read_sections(&sl[i], &m[i], &worst[i]);
	}
	for (size_t i = 0; i < n && !failed; i++) {
		if (sl[i].early) {
			char *how = how_ended(&sl[i], x);
			set_failure(x, gm_xasprintf(
				"program '%s' never reached the start barrier "
				"(%s): it ended (%s) before its first GPU "
				"operation; its output is in %s",
				x->progs[sl[i].program].name, where, how,
				sl[i].log_rel));
			free(how);
			failed = 1;
		}
	}
	for (size_t i = 0; i < n && !failed; i++) {
		if (worst[i].barrier == CORUN_BARRIER_TIMEOUT ||
		    worst[i].barrier == CORUN_BARRIER_GAVE_UP) {
			char *who = slot_names(x, sl, n, worst[i].missing);
			set_failure(x, gm_xasprintf(
				"%s never reached the start barrier (%s): program "
				"'%s' waited %g s for it there", who, where,
				x->progs[sl[i].program].name,
				x->o->barrier_timeout_s));
			free(who);
			failed = 1;
		}
	}
	for (size_t i = 0; i < n && !failed; i++) {
		const char *name = x->progs[sl[i].program].name;
		const struct stage_result *r = &sl[i].proc.r;
		if (r->timed_out || r->signal || r->exit_code) {
			char *how = how_ended(&sl[i], x);
			set_failure(x, gm_xasprintf("program '%s' failed (%s): %s; "
						    "its output is in %s", name,
						    where, how, sl[i].log_rel));
			free(how);
			failed = 1;
		} else if (!files[i]) {
			set_failure(x, gm_xasprintf(
				"program '%s' wrote no GPU section (%s): the "
				"co-run interposer never ran in it (it does not "
				"initialise CUDA, or its environment drops "
				"CUDA_INJECTION64_PATH)", name, where));
			failed = 1;
		} else if (worst[i].error[0]) {
			set_failure(x, gm_xasprintf("program '%s' could not be "
						    "measured (%s): %s", name,
						    where, worst[i].error));
			failed = 1;
		} else if (!m[i].ops) {
			set_failure(x, gm_xasprintf("program '%s' made no GPU "
						    "operation (%s)", name, where));
			failed = 1;
		}
	}
	for (size_t i = 0; i < n && !failed; i++) {
		GM_ALLOC_GROW(x->r->m, x->r->nr + 1, x->r->alloc);
		x->r->m[x->r->nr++] = m[i];
	}
	free(m);
	free(worst);
	free(files);
	free(where);
}

static int run_step(struct runner *x, size_t si)
{
	const struct corun_step *s = &x->plan->steps[si];
	size_t n = s->mech ? x->plan->nr_programs : 1;
	struct slot *sl = gm_xcalloc(n, sizeof(*sl));
	struct gm_start_barrier b = { 0 };
	char *bdir = NULL;
	int ret = -1;

	if (mps_for(x, s)) {
		goto out;
	}
	if (s->mech) {
		char *name = step_file(x, s, NULL), *bfile;
		bdir = gm_xasprintf("%s/barrier/%s", x->o->dir, name);
		free(name);
		bfile = gm_path_join(bdir, GM_BARRIER_FILE);
		if (gm_mkdir_p(bdir, 0755) ||
		    gm_barrier_create(bfile, (unsigned)n) ||
		    gm_barrier_open(&b, bfile)) {
			free(bfile);
			goto out;
		}
		free(bfile);
	}
	for (size_t i = 0; i < n; i++) {
		prepare(x, s, &sl[i], s->mech ? i : s->program, (int)i, bdir);
		if (gm_mkdir_p(sl[i].sections, 0755)) {
			goto stop;
		}
	}
	for (size_t i = 0; i < n; i++) {
		if (stage_exec_start(&sl[i].cmd, &sl[i].proc)) {
			gm_error("cannot start program '%s'",
				 x->progs[sl[i].program].name);
			goto stop;
		}
		sl[i].started = 1;
	}
	wait_all(sl, n, &b);
	if (stage_exec_interrupted()) {
		x->r->interrupted = stage_exec_interrupted();
		gm_error("interrupted by signal %d", x->r->interrupted);
		goto out;
	}
	collect(x, si, sl, n);
	ret = 0;
	goto out;
stop:
	/* A program could not start: the others must not wait for it. */
	if (b.shm) {
		gm_barrier_break(&b);
	}
	for (size_t i = 0; i < n; i++) {
		if (sl[i].started) {
			kill(-sl[i].proc.pid, SIGTERM);
		}
	}
	wait_all(sl, n, NULL);
out:
	gm_barrier_close(&b);
	for (size_t i = 0; i < n; i++) {
		release_slot(&sl[i]);
	}
	free(sl);
	free(bdir);
	return ret;
}

static void progress(const struct runner *x, size_t si)
{
	const struct corun_step *s = &x->plan->steps[si];

	if (!x->o->progress) {
		return;
	}
	fprintf(x->o->progress, "corun: [%zu/%zu] %s %u/%u %s\n", si + 1,
		x->plan->nr_steps, corun_step_mode(s), s->repeat + 1,
		x->plan->repeats,
		s->mech ? "all programs" : x->progs[s->program].name);
	fflush(x->o->progress);
}

int corun_execute(const struct corun_plan *plan,
		  const struct corun_program *progs,
		  const struct corun_opts *o, struct corun_results *r)
{
	struct runner x = { plan, progs, o, r, NULL, { 0 }, NULL };
	int ret = 0;

	memset(r, 0, sizeof(*r));
	x.no_mps_dir = gm_xasprintf("%s/mps/none", o->dir);
	{
		char *logs = gm_path_join(o->dir, "logs");
		int bad = gm_mkdir_p(logs, 0755) || gm_mkdir_p(x.no_mps_dir, 0755);
		free(logs);
		if (bad) {
			free(x.no_mps_dir);
			return -1;
		}
	}
	for (size_t si = 0; si < plan->nr_steps && !r->failure; si++) {
		progress(&x, si);
		if (run_step(&x, si)) {
			ret = -1;
			break;
		}
		r->steps_done = si + 1;
	}
	if (x.daemon_for) {
		gm_mps_daemon_leave_env(&x.daemon);
	}
	if (x.daemon_for && gm_mps_daemon_stop(&x.daemon)) {
		r->daemon_trouble = 1;
		if (!ret) {
			gm_error_clear();
		}
	}
	/* the empty pipe directory is no result; mps/ stays when a daemon
	 * left its logs there */
	gm_remove_tree(x.no_mps_dir);
	{
		char *mps = gm_path_join(o->dir, "mps");
		rmdir(mps);
		free(mps);
	}
	free(x.no_mps_dir);
	return ret;
}

void corun_results_release(struct corun_results *r)
{
	free(r->m);
	free(r->failure);
	memset(r, 0, sizeof(*r));
}
