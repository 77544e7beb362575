/* SPDX-License-Identifier: MIT */
/*
 * The helpers every part of the study executor shares (exec_priv.h):
 * argument vectors, paths as printed, the stages' log paths and record
 * ids, failure reasons from a stage's log, and the kill hook the fault
 * tests use (STUDY_KILL_ENV). They call no other executor file, so the
 * executor's files depend on this one and never the other way round.
 */
#include "exec_priv.h"

#include <signal.h>
#include <stdlib.h>
#include <string.h>

#include "error.h"
#include "fs.h"
#include "stage_exec.h"
#include "strbuf.h"
#include "study_path.h"
#include "study_progress.h"
#include "study_state.h"

const char *const exec_run_status_names[] = {
	"not run yet", "ok", "failed", "hung", "skipped", "not needed",
};

static const char *const kill_points[KILL_NR] = { "started", "finished",
						  "saved" };

/* ---- small helpers ---- */

void exec_argv_push(struct exec_argv *a, const char *s)
{
	GM_ALLOC_GROW(a->v, a->nr + 2, a->alloc);
	a->v[a->nr++] = gm_xstrdup(s);
	a->v[a->nr] = NULL;
}

void exec_argv_release(struct exec_argv *a)
{
	for (size_t i = 0; i < a->nr; i++) {
		free(a->v[i]);
	}
	free(a->v);
	memset(a, 0, sizeof(*a));
}

char *exec_disp(const char *abs)
{
	return study_path_display(abs);
}

char *exec_with_manifest(const char *dir)
{
	return gm_path_join(dir, "manifest");
}

int exec_has_manifest(const char *dir)
{
	char *m = exec_with_manifest(dir);
	int r = gm_path_exists(m);
	free(m);
	return r;
}

/* Truncate a reason to one line of a sensible length. */
char *exec_tidy_reason(const char *s)
{
	struct strbuf sb = STRBUF_INIT;

	for (; *s && sb.len < REASON_MAX; s++) {
		strbuf_addch(&sb, (*s == '\n' || *s == '\t' || *s == '\r') ? ' ' : *s);
	}
	if (*s) {
		strbuf_addstr(&sb, "...");
	}
	strbuf_rtrim(&sb);
	return strbuf_detach(&sb, NULL);
}

/*
 * What a stage's log says went wrong: its first "error: " line, else its
 * last non-empty line, else NULL.
 */
static char *log_reason(const char *log)
{
	struct strbuf sb = STRBUF_INIT;
	char *ret = NULL;

	if (gm_read_file(log, &sb)) {
		gm_error_clear();
		strbuf_release(&sb);
		return NULL;
	}
	const char *last = NULL;
	size_t last_len = 0;
	for (const char *p = sb.buf; *p;) {
		const char *e = strchr(p, '\n');
		size_t n = e ? (size_t)(e - p) : strlen(p);
		if (n > 7 && !strncmp(p, "error: ", 7)) {
			char *line = gm_xasprintf("%.*s", (int)(n - 7), p + 7);
			ret = exec_tidy_reason(line);
			free(line);
			break;
		}
		if (n) {
			last = p;
			last_len = n;
		}
		p += n + (e ? 1 : 0);
	}
	if (!ret && last) {
		char *line = gm_xasprintf("%.*s", (int)last_len, last);
		ret = exec_tidy_reason(line);
		free(line);
	}
	strbuf_release(&sb);
	return ret;
}

/* Why a stage failed, or NULL when it succeeded (exit 0). */
char *exec_stage_failure(const struct exec_ctx *x, const struct stage_result *r,
			 const char *log)
{
	struct strbuf sb = STRBUF_INIT;
	char *why;

	if (r->timed_out) {
		char t[32];
		study_progress_format_duration(t, sizeof(t), x->s->stage_timeout_s);
		strbuf_addf(&sb, "stopped after the stage time limit of %s", t);
	} else if (r->signal) {
		strbuf_addf(&sb, "killed by signal %d (%s)", r->signal,
			    strsignal(r->signal));
	} else if (r->exit_code != 0) {
		strbuf_addf(&sb, "exited with status %d", r->exit_code);
	} else {
		return NULL;
	}
	why = log_reason(log);
	if (why) {
		strbuf_addf(&sb, ": %s", why);
		free(why);
	}
	return strbuf_detach(&sb, NULL);
}

char *exec_log_path(const struct exec_ctx *x, enum study_stage kind,
		    const char *name)
{
	char *file = name ? gm_xasprintf("%s-%s.log", study_stage_name(kind), name)
			  : gm_xasprintf("%s.log", study_stage_name(kind));
	char *p = gm_path_join(x->s->paths.logs, file);
	free(file);
	return p;
}

char *exec_record_id(enum study_stage kind, const char *name)
{
	return name ? gm_xasprintf("%s %s", study_stage_name(kind), name)
		    : gm_xstrdup(study_stage_name(kind));
}

/* The record of stage @kind of @name when its inputs are @key. */
struct state_record *exec_current_record(struct exec_ctx *x,
					 enum study_stage kind,
					 const char *name, const char *key)
{
	char *id = exec_record_id(kind, name);
	struct state_record *r = study_state_find(&x->st, id);

	free(id);
	return r && !strcmp(r->key, key) ? r : NULL;
}

int exec_is_failure(const struct state_record *r)
{
	return !strcmp(r->status, "failed") || !strcmp(r->status, "hung");
}

/* ---- test hook ---- */

/* Read STUDY_KILL_ENV into @x's kill_* fields; -1 with an error when
 * it is not STAGE-POINT:N. */
int exec_parse_kill_hook(struct exec_ctx *x)
{
	const char *v = getenv(STUDY_KILL_ENV);

	x->kill_stage = -1;
	if (!v || !*v) {
		return 0;
	}
	for (int k = 0; k < STUDY_NR_STAGES; k++) {
		const char *name = study_stage_name(k);
		size_t n = strlen(name);
		if (strncmp(v, name, n) || v[n] != '-') {
			continue;
		}
		for (int p = 0; p < KILL_NR; p++) {
			size_t m = strlen(kill_points[p]);
			char *end;
			if (strncmp(v + n + 1, kill_points[p], m) ||
			    v[n + 1 + m] != ':') {
				continue;
			}
			unsigned long c = strtoul(v + n + 2 + m, &end, 10);
			if (*end || !c) {
				break;
			}
			x->kill_stage = k;
			x->kill_point = p;
			x->kill_n = (unsigned)c;
			return 0;
		}
	}
	struct strbuf sb = STRBUF_INIT;
	for (int k = 0; k < STUDY_NR_STAGES; k++) {
		strbuf_addf(&sb, "%s%s", k ? (k + 1 < STUDY_NR_STAGES ? ", " :
					      " or ") : "",
			    study_stage_name(k));
	}
	gm_error("%s='%s': expected STAGE-POINT:N (STAGE %s; POINT started, "
		 "finished or saved; N >= 1)", STUDY_KILL_ENV, v, sb.buf);
	strbuf_release(&sb);
	return -1;
}

void exec_kill_hook(struct exec_ctx *x, enum study_stage kind,
		      enum kill_point point)
{
	if (x->kill_stage != (int)kind || x->kill_point != (int)point) {
		return;
	}
	if (++x->kill_seen == x->kill_n) {
		fflush(NULL);
		raise(SIGKILL);
	}
}

void exec_on_spawned(void *arg)
{
	struct exec_ctx *x = arg;
	exec_kill_hook(x, x->current, KILL_STARTED);
}

void exec_on_tick(void *arg)
{
	struct exec_ctx *x = arg;
	study_progress_tick(&x->pr);
}
