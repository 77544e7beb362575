/* SPDX-License-Identifier: MIT */
/*
 * What the study executor prints (see exec_priv.h): the plan of a dry run
 * (programs, builds, the profile, runs, what is to do) and the summary of
 * an invocation (stdout and paths.summary), every run with its status and
 * reason.
 */
#include "exec_priv.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "atomic_file.h"
#include "fs.h"
#include "gpu_list.h"
#include "kvfile.h"
#include "strbuf.h"
#include "study_path.h"

static const char *capture_label(const struct prog_info *pi)
{
	switch (pi->cap) {
	case CAP_UNUSED:
		return "unused";
	case CAP_BUNDLE:
		return "bundle";
	case CAP_UP_TO_DATE:
		return "captured";
	case CAP_TODO:
		return !pi->needed ? "not needed" : pi->changed ? "recapture"
								: "capture";
	case CAP_FAILED:
		return "failed";
	case CAP_NOT_FOUND:
		return "not found";
	}
	return "?";
}

/* A command word as the user would type it (quoted when needed). */
static void print_word(FILE *f, const char *w)
{
	struct strbuf sb = STRBUF_INIT;

	strbuf_add_shell_word(&sb, w);
	fputs(sb.buf, f);
	strbuf_release(&sb);
}

/*
 * One line per workload that has runs, in the order its build is first
 * needed: whether it is reconstructed, to do, failed or not needed (its
 * runs are done). Adds the reconstructs to do to *@todo.
 */
static void print_builds(struct exec_ctx *x, FILE *f, size_t *todo)
{
	const struct study_plan *plan = x->plan;
	char *seen = gm_xcalloc(plan->nr_workloads + 1, 1);

	fputs("\nbuilds (one reconstruct per workload, replayed by each of "
	      "its runs):\n", f);
	for (size_t i = 0; i < plan->nr_runs; i++) {
		size_t w = plan->runs[i].workload;
		const struct wl_info *wi = &x->wls[w];
		const char *name = plan->workloads[w].name;
		if (seen[w]) {
			continue;
		}
		seen[w] = 1;
		fprintf(f, "  %-36s ", name);
		const struct state_record *r;
		switch (wi->state) {
		case BUILD_UNDECIDED:
			r = exec_current_record(x, STUDY_STAGE_RECONSTRUCT,
						name, wi->rkey);
			fputs(r && !strcmp(r->status, "done") &&
			      gm_is_dir(wi->build) ? "reconstructed\n"
						   : "not needed\n", f);
			break;
		case BUILD_UP_TO_DATE:
			fputs("reconstructed\n", f);
			break;
		case BUILD_TODO:
			fputs("to do: reconstruct\n", f);
			(*todo)++;
			break;
		case BUILD_FAILED:
			fprintf(f, "%s: %s\n", wi->hung ? "hung" : "failed",
				wi->reason);
			break;
		case BUILD_SKIPPED:
			fprintf(f, "skipped: %s\n", wi->reason);
			break;
		}
	}
	free(seen);
}

/* What the corun key adds to the plan (study_corun.c), in one line. */
static void print_coruns(const struct exec_ctx *x, FILE *f)
{
	const struct study *s = x->s;
	size_t n = 0, shots = 0;

	for (size_t i = 0; i < x->plan->nr_runs; i++) {
		n += x->plan->runs[i].kind == PLAN_CORUN;
		shots += x->plan->runs[i].kind == PLAN_ONE_SHOT;
	}
	if (!s->corun_repeats) {
		return;
	}
	fprintf(f, "co-runs: %zu (the original programs of each workload of two "
		"or more, %u times alone and %u together under %s; gpumix "
		"corun), beside %zu one-shot replays\n", n, s->corun_repeats,
		s->corun_repeats, study_corun_mechanisms(s), shots);
}

/*
 * Which kernels the replays run, when some variant runs the transformed
 * ones (the study reconstructs with --elastic): all of them under
 * same_kernels, else only those variants.
 */
static void print_kernels(const struct study *s, FILE *f)
{
	if (!study_needs_elastic(s)) {
		return;
	}
	fputs("kernels: every build is reconstructed with --elastic; ", f);
	if (study_same_kernels(s)) {
		size_t n = 0;
		fputs("every variant replays the transformed kernels, with "
		      "elasticity off (--elastic identity)", f);
		for (size_t i = 0; i < s->nr_variants; i++) {
			const struct gm_variant *v = s->variants[i];
			if (!(v->knobs & GM_KNOB_ELASTIC)) {
				fprintf(f, "%s %s", n++ ? "," : " except in",
					v->name);
			}
		}
		fputs(" (same_kernels)\n", f);
		return;
	}
	fputs("the transformed kernels in", f);
	for (size_t i = 0, n = 0; i < s->nr_variants; i++) {
		const struct gm_variant *v = s->variants[i];
		if (!(v->knobs & GM_KNOB_ELASTIC) ||
		    ((v->knobs & GM_KNOB_COMPLETION) &&
		     s->completion == GM_COMPLETION_POLL)) {
			fprintf(f, "%s %s", n++ ? "," : "", v->name);
		}
	}
	fputs(", the captured ones in the others (same_kernels: false)\n", f);
}

void exec_print_plan(struct exec_ctx *x)
{
	const struct study *s = x->s;
	const struct study_plan *plan = x->plan;
	FILE *f = x->o->out;
	size_t todo[STUDY_NR_STAGES] = { 0 };
	struct strbuf missing = STRBUF_INIT;
	char *file = exec_disp(s->path);

	fprintf(f, "study '%s' (%s): %zu workload%s", s->name, file,
		plan->nr_user_workloads, plan->nr_user_workloads == 1 ? "" : "s");
	free(file);
	fputs(", variants", f);
	for (size_t i = 0; i < s->nr_variants; i++) {
		fprintf(f, "%s %s", i ? "," : "", s->variants[i]->name);
	}
	if (s->nr_policies) {
		fputs(", policies", f);
		for (size_t i = 0; i < s->nr_policies; i++) {
			fprintf(f, "%s %s", i ? "," : "", s->policies[i]);
		}
	}
	if (plan->nr_repetitions > 1) {
		fprintf(f, ": %s%zu runs, %u repetitions of %zu",
			s->precision > 0 ? "up to " : "", plan->nr_runs,
			plan->nr_repetitions, plan->nr_configs);
	} else {
		fprintf(f, ": %zu runs", plan->nr_runs);
	}
	if (plan->nr_baselines) {
		fprintf(f, " (%zu %s baselines, one per program)",
			plan->nr_baselines,
			gm_variant_with(GM_VARIANT_ALONE)->name);
	}
	fputc('\n', f);
	print_coruns(x, f);
	if (plan->nr_repetitions > 1) {
		fprintf(f, "order: repetition by repetition; in each, the alone "
			"runs, then workload by workload, each one's runs "
			"shuffled with seed %" PRIu64 "\n", s->seed);
	}
	exec_precision_print_plan(x, f);
	print_kernels(s, f);
	fputs("\nprograms:\n", f);
	for (size_t i = 0; i < s->nr_programs; i++) {
		const struct study_program *p = &s->programs[i];
		const struct prog_info *pi = &x->progs[i];
		fprintf(f, "  %-12s %-10s ", p->name, capture_label(pi));
		if (p->argv) {
			for (size_t j = 0; j < p->argc; j++) {
				fputs(j ? " " : "", f);
				print_word(f, p->argv[j]);
			}
		} else {
			char *b = exec_disp(p->bundle);
			fputs(b, f);
			free(b);
		}
		if (pi->reason) {
			fprintf(f, " (%s)", pi->reason);
		}
		fputc('\n', f);
		if (pi->needed && (pi->cap == CAP_TODO || pi->cap == CAP_NOT_FOUND)) {
			todo[STUDY_STAGE_CAPTURE]++;
			strbuf_addf(&missing, "%s%s", missing.len ? ", " : "", p->name);
		}
	}
	print_builds(x, f, &todo[STUDY_STAGE_RECONSTRUCT]);
	exec_profile_print_plan(x, f, &todo[STUDY_STAGE_PROFILE]);
	fputs("\nruns:\n", f);
	for (size_t i = 0; i < plan->nr_runs; i++) {
		const struct run_info *ri = &x->runs[i];
		fprintf(f, "  %-36s ", plan->runs[i].id);
		if (ri->status == RUN_OK) {
			fputs("done\n", f);
		} else if (ri->status != RUN_PENDING) {
			fprintf(f, "%s: %s\n", exec_run_status_names[ri->status],
				ri->reason ? ri->reason : "");
		} else {
			fprintf(f, "to do%s:%s%s%s\n",
				ri->conditional ? " if needed" : "",
				ri->do_replay ? " " : "",
				ri->do_replay ? study_stage_name(plan_run_stage(
							&plan->runs[i])) : "",
				ri->do_analyze ? " analyze" : "");
		}
		if (!ri->conditional) {
			todo[plan_run_stage(&plan->runs[i])] += ri->do_replay;
			todo[STUDY_STAGE_ANALYZE] += ri->do_analyze;
		}
	}
	todo[STUDY_STAGE_REPORT] = x->report_planned;
	fprintf(f, "\ncaptures missing: %s\n", missing.len ? missing.buf : "none");
	fprintf(f, "to do: %zu captures, %zu reconstructs, ",
		todo[STUDY_STAGE_CAPTURE], todo[STUDY_STAGE_RECONSTRUCT]);
	if (study_profiles(s)) {
		fprintf(f, "%zu profile, ", todo[STUDY_STAGE_PROFILE]);
	}
	fprintf(f, "%zu replays, ", todo[STUDY_STAGE_REPLAY]);
	if (s->corun_repeats) {
		fprintf(f, "%zu co-runs, ", todo[STUDY_STAGE_CORUN]);
	}
	fprintf(f, "%zu analyses, %zu report\n", todo[STUDY_STAGE_ANALYZE],
		todo[STUDY_STAGE_REPORT]);
	if (x->nr_stale) {
		fprintf(f, "runs of an earlier version of the study, to leave the"
			" database: %zu (", x->nr_stale);
		for (size_t i = 0; i < x->nr_stale; i++) {
			fprintf(f, "%s%s", i ? ", " : "", x->stale[i]);
		}
		fputs(")\n", f);
	}
	size_t kept = 0;
	for (size_t i = 0; i < plan->nr_runs; i++) {
		kept += x->runs[i].status == RUN_FAILED ||
			x->runs[i].status == RUN_HUNG;
	}
	if (kept) {
		fprintf(f, "note: %zu failed or hung run%s kept as recorded; "
			"--retry-failed runs %s again\n", kept, kept == 1 ? " is" :
			"s are", kept == 1 ? "it" : "them");
	}
	if (!study_has_variant_flags(s, GM_VARIANT_ALONE)) {
		fprintf(f, "note: no '%s' variant: STP and ANTT cannot be "
			"computed\n", gm_variant_with(GM_VARIANT_ALONE)->name);
	}
	strbuf_release(&missing);
}

static void md_cell(struct strbuf *sb, const char *s)
{
	for (; s && *s; s++) {
		if (*s == '|') {
			strbuf_addstr(sb, "\\|");
		} else {
			strbuf_addch(sb, *s);
		}
	}
}

/*
 * The GPU each run was replayed on, from its run manifest (device.visible,
 * the CUDA_VISIBLE_DEVICES it ran under, written by gpumix replay; with
 * the index and model of --gpus when it names one of them, else with the
 * manifest's hostname and device.name), or NULL
 * when no run was pinned to a GPU (the summary then has no gpu column).
 */
static char **run_gpus(const struct exec_ctx *x)
{
	char **v = gm_xcalloc(x->plan->nr_runs + 1, sizeof(*v));
	int any = 0;

	for (size_t i = 0; i < x->plan->nr_runs; i++) {
		struct kvfile kv = KVFILE_INIT;
		char *m = exec_with_manifest(x->runs[i].rundir);
		const char *vis = NULL, *name = NULL, *host = NULL;
		if (gm_path_exists(m) && !kvfile_read(&kv, m)) {
			vis = kvfile_get(&kv, "device.visible");
			name = kvfile_get(&kv, "device.name");
			host = kvfile_get(&kv, "hostname");
		}
		gm_error_clear();
		const struct gpu_list *l = x->o->gpus;
		for (size_t g = 0; vis && l && g < l->nr; g++) {
			char *want = gpu_info_visible(&l->v[g]);
			if (!v[i] && !strcmp(want, vis)) {
				v[i] = gpu_info_describe(&l->v[g]);
			}
			free(want);
		}
		/* Not one of --gpus (another node's, SLURM's): as recorded. */
		if (vis && !v[i]) {
			v[i] = gm_xasprintf("%s%s%s%s%s%s", host ? host : "",
					    host ? ": " : "", vis,
					    name ? " (" : "", name ? name : "",
					    name ? ")" : "");
		}
		any |= vis != NULL;
		kvfile_release(&kv);
		free(m);
	}
	if (!any) {
		for (size_t i = 0; i < x->plan->nr_runs; i++) {
			free(v[i]);
		}
		free(v);
		return NULL;
	}
	return v;
}

void exec_count_outcome(struct exec_ctx *x)
{
	struct study_outcome *o = x->out;

	o->runs = x->plan->nr_runs;
	o->ok = o->failed = o->hung = o->skipped = o->pending = 0;
	o->not_needed = 0;
	for (size_t i = 0; i < x->plan->nr_runs; i++) {
		switch (x->runs[i].status) {
		case RUN_OK:
			o->ok++;
			break;
		case RUN_FAILED:
			o->failed++;
			break;
		case RUN_HUNG:
			o->hung++;
			break;
		case RUN_SKIPPED:
			o->skipped++;
			break;
		case RUN_PENDING:
			o->pending++;
			break;
		case RUN_NOT_NEEDED:
			o->not_needed++;
			break;
		}
	}
	o->report_failed = x->report_state < 0;
}

static void format_summary(struct exec_ctx *x, struct strbuf *sb)
{
	const struct study *s = x->s;
	const struct study_outcome *o = x->out;
	char t[32];
	char *file = exec_disp(s->path), *db = exec_disp(s->paths.database);
	char *rep = exec_disp(s->paths.report);
	char *state = exec_disp(s->paths.state);

	study_progress_format_duration(t, sizeof(t), o->seconds);
	strbuf_addf(sb, "# Study %s\n\n", s->name);
	strbuf_addf(sb, "- study file: %s\n", file);
	strbuf_addf(sb, "- runs: %zu: %zu ok, %zu failed, %zu hung, %zu skipped, "
		    "%zu not run yet", o->runs, o->ok, o->failed, o->hung,
		    o->skipped, o->pending);
	if (s->precision > 0) {
		strbuf_addf(sb, ", %zu not needed", o->not_needed);
	}
	strbuf_addch(sb, '\n');
	if (x->plan->nr_repetitions > 1) {
		strbuf_addf(sb, "- repetitions: %s%u of each run, in an order "
			    "shuffled with seed %" PRIu64 "\n",
			    s->precision > 0 ? "up to " : "",
			    x->plan->nr_repetitions, s->seed);
	}
	exec_precision_summary(x, sb);
	strbuf_addf(sb, "- this invocation: %zu stages run (%zu failed) in %s\n",
		    o->stages_run, o->stages_failed, t);
	if (o->interrupted) {
		strbuf_addf(sb, "- interrupted by %s: run the same command to "
			    "continue\n", strsignal(o->interrupted));
	}
	strbuf_addf(sb, "- database: %s", db);
	if (x->forgotten) {
		strbuf_addf(sb, " (%zu run%s of an earlier version of the study"
			    " left it)", x->forgotten,
			    x->forgotten == 1 ? "" : "s");
	}
	strbuf_addch(sb, '\n');
	if (x->report_state > 0) {
		strbuf_addf(sb, "- report: %s%s\n", rep,
			    x->figure_scripts ? " (figures not drawn: gnuplot "
						"was not found; 'gnuplot *.gp' in "
						"its figures/ draws them)" : "");
	} else if (x->report_state < 0) {
		strbuf_addf(sb, "- report: failed: %s\n", x->report_reason);
	} else if (o->interrupted) {
		strbuf_addstr(sb, "- report: not written yet\n");
	} else {
		strbuf_addstr(sb, "- report: not written (no run was analyzed)\n");
	}
	exec_profile_summary(x, sb);
	strbuf_addf(sb, "- state: %s\n\n", state);
	char **gpus = run_gpus(x);
	strbuf_addf(sb, "| run | workload | variant | status |%s reason |\n"
		    "| --- | --- | --- | --- |%s --- |\n", gpus ? " gpu |" : "",
		    gpus ? " --- |" : "");
	for (size_t i = 0; i < x->plan->nr_runs; i++) {
		const struct plan_run *run = &x->plan->runs[i];
		const struct run_info *ri = &x->runs[i];
		char *label = gm_variant_label(run->variant ? run->variant->name
							    : "corun", run->policy,
					       NULL, run->kind == PLAN_ONE_SHOT);
		strbuf_addf(sb, "| %s | %s | %s | %s | ", run->id,
			    x->plan->workloads[run->workload].name, label,
			    exec_run_status_names[ri->status]);
		free(label);
		if (gpus) {
			md_cell(sb, gpus[i]);
			strbuf_addstr(sb, " | ");
			free(gpus[i]);
		}
		md_cell(sb, ri->reason);
		strbuf_addstr(sb, " |\n");
	}
	free(gpus);
	int header = 0;
	for (size_t i = 0; i < x->plan->nr_runs; i++) {
		const struct run_info *ri = &x->runs[i];
		if (ri->status == RUN_OK || ri->status == RUN_PENDING ||
		    ri->status == RUN_NOT_NEEDED) {
			continue;
		}
		if (!header) {
			strbuf_addstr(sb, "\n## Failed, hung and skipped runs\n\n");
			header = 1;
		}
		strbuf_addf(sb, "- %s: %s: %s", x->plan->runs[i].id,
			    exec_run_status_names[ri->status], ri->reason);
		if (ri->log) {
			char *l = exec_disp(ri->log);
			strbuf_addf(sb, " (log: %s)", l);
			free(l);
		}
		strbuf_addch(sb, '\n');
	}
	free(file);
	free(db);
	free(rep);
	free(state);
}

int exec_write_summary(struct exec_ctx *x)
{
	struct strbuf sb = STRBUF_INIT;
	int ret;

	exec_count_outcome(x);
	format_summary(x, &sb);
	fputs(sb.buf, x->o->out);
	fflush(x->o->out);
	atomic_file_remove_stale(x->s->paths.summary);	/* (we hold the lock) */
	ret = gm_write_file_atomic(x->s->paths.summary, sb.buf, sb.len, 1);
	strbuf_release(&sb);
	return ret;
}

