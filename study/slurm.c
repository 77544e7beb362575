/* SPDX-License-Identifier: MIT */
/*
 * Submitting a study to SLURM and showing its jobs (see slurm.h).
 */
#include "exec_priv.h"
#include "slurm.h"

#include <ctype.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>

#include "atomic_file.h"
#include "error.h"
#include "fs.h"
#include "kvfile.h"
#include "run_output.h"
#include "strbuf.h"
#include "study_path.h"

#define NR_ROLES 5
static const char *const roles[NR_ROLES] = { "prep", "runs", "profile",
					     "runs2", "finish" };

static const char *cmd(const char *env, const char *def)
{
	const char *v = getenv(env);
	return v && *v ? v : def;
}

static char *jobs_file(const struct study *s)
{
	return gm_xasprintf("%s.slurm", s->paths.state);
}

/*
 * Run @argv, its output into @out; 0 when it exited 0, else -1 with an
 * error quoting its output.
 */
static int run_tool(char *const argv[], struct strbuf *out)
{
	int status;

	if (gm_run_output(argv, out, &status)) {
		return -1;
	}
	if (!WIFEXITED(status) || WEXITSTATUS(status)) {
		strbuf_rtrim(out);
		return gm_error("%s failed: %s", argv[0],
				out->len ? out->buf : "no message");
	}
	return 0;
}

/* The job ids of the last submission, from STATE.slurm; 0 or -1. */
static int read_jobs(const struct study *s, struct kvfile *kv)
{
	char *f = jobs_file(s);
	int ret = gm_path_exists(f) ? kvfile_read(kv, f) : 1;

	free(f);
	return ret;
}

/* 1 when a job id of @kv is in squeue's list (queued, running), 0 when
 * none, -1 when squeue fails. */
static int jobs_active(const struct kvfile *kv, struct strbuf *which)
{
	struct strbuf out = STRBUF_INIT;
	char *argv[] = { (char *)cmd(SLURM_SQUEUE_ENV, "squeue"), "-h", "-o",
			 "%i", NULL };
	int any = 0;

	if (run_tool(argv, &out)) {
		strbuf_release(&out);
		return -1;
	}
	for (int r = 0; r < NR_ROLES; r++) {
		const char *id = kvfile_get(kv, roles[r]);
		size_t n = id ? strlen(id) : 0;
		if (!n) {
			continue;
		}
		/* "12", or an array's "12_3" and "12_[4-7]". */
		for (const char *p = out.buf; *p;) {
			const char *e = strchr(p, '\n');
			size_t len = e ? (size_t)(e - p) : strlen(p);
			if (len >= n && !strncmp(p, id, n) &&
			    (len == n || p[n] == '_')) {
				strbuf_addf(which, "%s%s %s", any ? ", " : "",
					    roles[r], id);
				any = 1;
				break;
			}
			p += len + (e ? 1 : 0);
		}
	}
	strbuf_release(&out);
	return any;
}

/* The job id sbatch --parsable printed ("12" or "12;cluster"). */
static char *parse_job_id(const char *out)
{
	const char *last = NULL;

	/* The last line that starts with a digit: sbatch may warn first. */
	for (const char *p = out; *p;) {
		const char *e = strchr(p, '\n');
		if (isdigit((unsigned char)*p)) {
			last = p;
		}
		p = e ? e + 1 : p + strlen(p);
	}
	if (!last) {
		return NULL;
	}
	size_t n = 0;
	while (isdigit((unsigned char)last[n])) {
		n++;
	}
	return gm_xasprintf("%.*s", (int)n, last);
}

struct submission {
	struct exec_ctx *x;
	const struct slurm_opts *so;
	char *ids[NR_ROLES];
};

/* The part of a job's command line that every job shares. */
static void job_cmd(struct submission *sub, struct strbuf *sb,
		    const char *task)
{
	const struct study *s = sub->x->s;

	strbuf_addstr(sb, "exec ");
	strbuf_add_shell_word(sb, sub->so->self);
	strbuf_addstr(sb, " run --task ");
	strbuf_addstr(sb, task);
	if (sub->x->o->retry_failed) {
		strbuf_addstr(sb, " --retry-failed");
	}
	strbuf_addstr(sb, " -o ");
	strbuf_add_shell_word(sb, s->paths.output);
	strbuf_addch(sb, ' ');
	strbuf_add_shell_word(sb, sub->so->file);
}

/*
 * sbatch one job of @role running `gpumix run --task TASK` (@array: that
 * many tasks, or 0), after the jobs of @after (roles, or -1) with @dep
 * ("afterok"); its id into sub->ids[role]. 0 or -1.
 */
static int submit(struct submission *sub, int role, const char *task,
		  size_t array, const char *dep, const int *after, int nr_after)
{
	const struct study *s = sub->x->s;
	struct exec_argv a = { 0 };
	struct strbuf sb = STRBUF_INIT, out = STRBUF_INIT;
	int ret = -1;

	exec_argv_push(&a, cmd(SLURM_SBATCH_ENV, "sbatch"));
	exec_argv_push(&a, "--parsable");
	/* A job whose dependency can never be met is cancelled, not kept. */
	exec_argv_push(&a, "--kill-on-invalid-dep=yes");
	strbuf_addf(&sb, "--job-name=gpumix-%s-%s", s->name, roles[role]);
	exec_argv_push(&a, sb.buf);
	strbuf_reset(&sb);
	strbuf_addf(&sb, "--chdir=%s", s->root);
	exec_argv_push(&a, sb.buf);
	strbuf_reset(&sb);
	strbuf_addf(&sb, "--output=%s/slurm-%s-%s.out", s->paths.logs,
		    roles[role], array ? "%A_%a" : "%j");
	exec_argv_push(&a, sb.buf);
	strbuf_reset(&sb);
	if (sub->so->partition) {
		strbuf_addf(&sb, "--partition=%s", sub->so->partition);
		exec_argv_push(&a, sb.buf);
		strbuf_reset(&sb);
	}
	/* The finish job (analyze, report) uses no GPU: asking it for one
	 * would only keep it waiting for a GPU. */
	if (sub->so->gres && role != NR_ROLES - 1) {
		strbuf_addf(&sb, "--gres=%s", sub->so->gres);
		exec_argv_push(&a, sb.buf);
		strbuf_reset(&sb);
	}
	if (array) {
		strbuf_addf(&sb, "--array=0-%zu", array - 1);
		exec_argv_push(&a, sb.buf);
		strbuf_reset(&sb);
	}
	int deps = 0;
	for (int i = 0; i < nr_after; i++) {
		if (after[i] >= 0 && sub->ids[after[i]]) {
			strbuf_addf(&sb, "%s%s:%s", deps++ ? "," : "--dependency=",
				    dep, sub->ids[after[i]]);
		}
	}
	if (deps) {
		exec_argv_push(&a, sb.buf);
	}
	strbuf_reset(&sb);
	strbuf_addstr(&sb, "--wrap=");
	job_cmd(sub, &sb, task);
	exec_argv_push(&a, sb.buf);
	if (run_tool(a.v, &out)) {
		goto out;
	}
	sub->ids[role] = parse_job_id(out.buf);
	if (!sub->ids[role]) {
		strbuf_rtrim(&out);
		gm_error("sbatch printed no job id: '%s'", out.buf);
		goto out;
	}
	ret = 0;
out:
	strbuf_release(&sb);
	strbuf_release(&out);
	exec_argv_release(&a);
	return ret;
}

/* The list of runs of an array, one id a line: its task N runs line N. */
static char *write_list(struct exec_ctx *x, const char *name, int profiled,
			size_t *nr)
{
	struct strbuf sb = STRBUF_INIT;
	char *path = gm_xasprintf("%s.%s", x->s->paths.state, name);

	*nr = 0;
	for (size_t i = 0; i < x->plan->nr_runs; i++) {
		/* A repetition the precision target has not decided yet
		 * waits for the next submission. */
		if (x->runs[i].do_replay && !x->runs[i].conditional &&
		    exec_profile_needed_by(x, i) == profiled) {
			strbuf_addf(&sb, "%s\n", x->plan->runs[i].id);
			(*nr)++;
		}
	}
	if (*nr && gm_write_file_atomic(path, sb.buf, sb.len, 1)) {
		free(path);
		path = NULL;
	}
	strbuf_release(&sb);
	return path;
}

static void cancel(struct submission *sub)
{
	struct exec_argv a = { 0 };
	struct strbuf out = STRBUF_INIT;
	int status;

	exec_argv_push(&a, "scancel");
	for (int r = 0; r < NR_ROLES; r++) {
		if (sub->ids[r]) {
			exec_argv_push(&a, sub->ids[r]);
		}
	}
	if (a.nr > 1 && gm_run_output(a.v, &out, &status)) {
		gm_error_clear();
	}
	exec_argv_release(&a);
	strbuf_release(&out);
}

int study_slurm_check_idle(const struct study *s)
{
	struct kvfile kv = KVFILE_INIT;
	struct strbuf which = STRBUF_INIT;
	int ret = 0;

	if (read_jobs(s, &kv) == 0) {
		int active = jobs_active(&kv, &which);
		if (active < 0) {
			/* No SLURM here (another machine): nothing to check. */
			gm_error_clear();
		} else if (active) {
			ret = gm_error("study '%s' has SLURM jobs queued or running "
				       "(%s)", s->name, which.buf);
			gm_error_hint("see them with gpumix run --slurm --status; "
				      "run the study here once they have ended, "
				      "or cancel them with scancel");
		}
	}
	if (!ret) {
		gm_error_clear();	/* an unreadable STATE.slurm too */
	}
	strbuf_release(&which);
	kvfile_release(&kv);
	return ret;
}

int exec_slurm_submit(struct exec_ctx *x)
{
	const struct study *s = x->s;
	struct submission sub = { .x = x, .so = x->o->slurm };
	struct kvfile prev = KVFILE_INIT, kv = KVFILE_INIT;
	struct strbuf which = STRBUF_INIT;
	char *list1 = NULL, *list2 = NULL, *f = jobs_file(s);
	size_t n1, n2;
	int ret = -1, prep = 0;

	if (read_jobs(s, &prev) < 0) {
		goto out;
	}
	int active = jobs_active(&prev, &which);
	if (active < 0) {
		goto out;
	}
	if (active) {
		gm_error("study '%s' still has SLURM jobs queued or running (%s)",
			 s->name, which.buf);
		gm_error_hint("see them with gpumix run --slurm --status, or "
			      "cancel them with scancel");
		goto out;
	}
	for (size_t i = 0; i < s->nr_programs; i++) {
		prep |= x->progs[i].cap == CAP_TODO && x->progs[i].needed;
	}
	for (size_t w = 0; w < x->plan->nr_workloads; w++) {
		prep |= x->wls[w].state == BUILD_TODO;
	}
	if (!(list1 = write_list(x, "runs", 0, &n1)) && n1) {
		goto out;
	}
	if (!(list2 = write_list(x, "runs2", 1, &n2)) && n2) {
		goto out;
	}
	int analyze = 0;
	for (size_t i = 0; i < x->plan->nr_runs; i++) {
		analyze |= x->runs[i].do_analyze;
	}
	if (!prep && !n1 && !n2 && !analyze && exec_report_needed(x, 0) != 1) {
		fprintf(x->o->out, "study '%s': nothing to submit: every run is "
			"done and the report is up to date\n", s->name);
		ret = 0;
		goto out;
	}
	char task[PATH_MAX + 16];
	if (prep && submit(&sub, 0, "prep", 0, NULL, NULL, 0)) {
		goto fail;
	}
	int after_prep[] = { 0 };
	if (n1) {
		char *q = NULL;
		struct strbuf sb = STRBUF_INIT;
		strbuf_add_shell_word(&sb, list1);
		q = strbuf_detach(&sb, NULL);
		snprintf(task, sizeof(task), "list:%s", q);
		free(q);
		if (submit(&sub, 1, task, n1, "afterok", after_prep, 1)) {
			goto fail;
		}
	}
	if (n2) {
		int after_runs[] = { 1, 0 };
		int after_profile[] = { 2 };
		struct strbuf sb = STRBUF_INIT;
		/* The profile reads every alone run, whatever else failed. */
		if (submit(&sub, 2, "profile", 0, "afterany", after_runs, 2)) {
			goto fail;
		}
		strbuf_add_shell_word(&sb, list2);
		snprintf(task, sizeof(task), "list:%s", sb.buf);
		strbuf_release(&sb);
		if (submit(&sub, 3, task, n2, "afterok", after_profile, 1)) {
			goto fail;
		}
	}
	int after_all[] = { 0, 1, 2, 3 };
	if (submit(&sub, 4, "finish", 0, "afterany", after_all, 4)) {
		goto fail;
	}
	for (int r = 0; r < NR_ROLES; r++) {
		if (sub.ids[r]) {
			kvfile_append(&kv, roles[r], sub.ids[r]);
		}
	}
	kvfile_setf(&kv, "runs.tasks", "%zu", n1);
	kvfile_setf(&kv, "runs2.tasks", "%zu", n2);
	if (kvfile_write(&kv, f, "gpumix run --slurm: the jobs of the last "
			 "submission")) {
		goto fail;
	}
	fprintf(x->o->out, "study '%s': submitted ", s->name);
	if (sub.ids[0]) {
		fprintf(x->o->out, "prep job %s (captures, reconstructs), ",
			sub.ids[0]);
	}
	if (n1) {
		fprintf(x->o->out, "%zu run%s as array %s, ", n1, n1 == 1 ? "" : "s",
			sub.ids[1]);
	}
	if (n2) {
		fprintf(x->o->out, "profile job %s, %zu run%s as array %s, ",
			sub.ids[2], n2, n2 == 1 ? "" : "s", sub.ids[3]);
	}
	fprintf(x->o->out, "finish job %s (analyze, report)\n", sub.ids[4]);
	size_t waiting = 0;
	for (size_t i = 0; i < x->plan->nr_runs; i++) {
		waiting += x->runs[i].conditional;
	}
	if (waiting) {
		fprintf(x->o->out, "study '%s': %zu more run%s wait%s for the "
			"precision target, decided from these: submit again once "
			"they have ended\n", s->name, waiting,
			waiting == 1 ? "" : "s", waiting == 1 ? "s" : "");
	}
	ret = 0;
	goto out;
fail:
	cancel(&sub);
out:
	for (int r = 0; r < NR_ROLES; r++) {
		free(sub.ids[r]);
	}
	free(list1);
	free(list2);
	free(f);
	strbuf_release(&which);
	kvfile_release(&prev);
	kvfile_release(&kv);
	return ret;
}

/* Print @text's lines indented. */
static void indent(FILE *out, const char *text)
{
	for (const char *p = text; *p;) {
		const char *e = strchr(p, '\n');
		size_t n = e ? (size_t)(e - p) : strlen(p);
		if (n) {
			fprintf(out, "  %.*s\n", (int)n, p);
		}
		p += n + (e ? 1 : 0);
	}
}

int study_slurm_status(const struct study *s, FILE *out)
{
	struct kvfile kv = KVFILE_INIT;
	struct strbuf ids = STRBUF_INIT, o = STRBUF_INIT;
	char *f = jobs_file(s);
	int ret = -1, r;

	if ((r = read_jobs(s, &kv))) {
		if (r > 0) {
			gm_error("study '%s' was not submitted to SLURM ('%s' "
				 "does not exist)", s->name, f);
			gm_error_hint("submit it with gpumix run --slurm");
		}
		goto out;
	}
	fprintf(out, "study '%s', last submission:", s->name);
	for (int i = 0; i < NR_ROLES; i++) {
		const char *id = kvfile_get(&kv, roles[i]);
		if (id) {
			fprintf(out, " %s %s", roles[i], id);
			strbuf_addf(&ids, "%s%s", ids.len ? "," : "", id);
		}
	}
	fputc('\n', out);
	/* Queued and running jobs, and the recently finished ones that the
	 * controller still knows. */
	char *q[] = { (char *)cmd(SLURM_SQUEUE_ENV, "squeue"), "--states=all",
		      "-j", ids.buf, "-o", "%.18i %.24j %.10T %.10M %r", NULL };
	if (run_tool(q, &o)) {
		gm_warning("%s", gm_error_message());
		gm_error_clear();
		fprintf(out, "squeue: no job of this submission is known any more\n");
	} else {
		fprintf(out, "squeue:\n");
		indent(out, o.buf);
	}
	strbuf_reset(&o);
	char *a[] = { (char *)cmd(SLURM_SACCT_ENV, "sacct"), "-X", "-j", ids.buf,
		      "-o", "JobID%-18,JobName%-24,State,Elapsed,ExitCode", NULL };
	if (run_tool(a, &o)) {
		/* A cluster without accounting: squeue is all there is. */
		gm_error_clear();
	} else {
		fprintf(out, "sacct:\n");
		indent(out, o.buf);
	}
	/* Where the runs stand: the state with the tasks' records. */
	struct study_state st;
	if (!study_state_load(&st, s->paths.state, s->name)) {
		size_t n[4] = { 0 }, loaded = 0;
		static const char *const sts[] = { "ok", "failed", "hung" };
		for (size_t i = 0; i < st.nr; i++) {
			const struct state_record *rec = &st.records[i];
			if (!strncmp(rec->id, "analyze ", 8)) {
				loaded += !strcmp(rec->status, "done");
				continue;
			}
			if (strncmp(rec->id, "replay ", 7)) {
				continue;
			}
			for (size_t k = 0; k < 3; k++) {
				n[k] += !strcmp(rec->status, sts[k]);
			}
		}
		fprintf(out, "replays recorded: %zu ok, %zu failed, %zu hung; "
			"%zu runs loaded into the database\n", n[0], n[1], n[2],
			loaded);
	} else {
		gm_warning("%s", gm_error_message());
		gm_error_clear();
	}
	study_state_release(&st);
	ret = 0;
out:
	strbuf_release(&ids);
	strbuf_release(&o);
	kvfile_release(&kv);
	free(f);
	return ret;
}
