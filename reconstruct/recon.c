/* SPDX-License-Identifier: MIT */
/*
 * Reconstructing a workload from its bundles (see recon.h).
 */
#include "recon.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "reconstruct/trace/bundle_feed.h"
#include "clock.h"
#include "cu_result.h"
#include "error.h"
#include "fs.h"
#include "instance_name.h"
#include "kvfile.h"
#include "reconstruct/model/model_int.h"
#include "strbuf.h"
#include "reconstruct/trace/trace_reader.h"
#include "variant.h"

/* Events between two progress calls. */
#define PROGRESS_EVERY 65536

const char *recon_default_variant(void)
{
	return gm_variant_with(GM_VARIANT_REFERENCE)->name;
}

int recon_variant_check(const char *variant)
{
	const struct gm_variant *v = gm_variant_find(variant);

	if (!v) {
		return gm_error("unknown variant '%s' (variants: %s)",
				variant ? variant : "",
				gm_variant_implemented_list());
	}
	if (!v->implemented) {
		return gm_error("variant '%s' is not implemented yet "
				"(implemented: %s)", v->name,
				gm_variant_implemented_list());
	}
	return 0;
}

/* The last path component of @path, without trailing slashes. */
static char *base_name(const char *path)
{
	size_t end = strlen(path), start;

	while (end > 0 && path[end - 1] == '/') {
		end--;
	}
	start = end;
	while (start > 0 && path[start - 1] != '/') {
		start--;
	}
	return gm_xasprintf("%.*s", (int)(end - start), path + start);
}

static int usable(const char *name)
{
	return *name && strcmp(name, ".") && strcmp(name, "..");
}

char *recon_program_name(const char *bundle, const char *manifest_program)
{
	char *n = base_name(bundle);

	if (usable(n)) {
		return n;
	}
	free(n);
	if (manifest_program) {
		n = base_name(manifest_program);
		if (usable(n)) {
			return n;
		}
		free(n);
	}
	return gm_xstrdup("program");
}

/*
 * The program name of bundle @path before it is read: its directory's
 * base name, or the manifest's `program` when that is not usable.
 */
static char *bundle_program_name(const char *path)
{
	struct kvfile kv = KVFILE_INIT;
	char *manifest, *name;

	name = base_name(path);
	if (usable(name)) {
		return name;
	}
	free(name);
	manifest = gm_path_join(path, "manifest");
	/* An unreadable manifest is the reader's error to give. */
	if (kvfile_read(&kv, manifest) < 0) {
		gm_error_clear();
	}
	name = recon_program_name(path, kvfile_get(&kv, "program"));
	kvfile_release(&kv);
	free(manifest);
	return name;
}

/*
 * Program names a --nondeterministic option may use: the final name, or
 * the base name that a duplicate was derived from (both copies then).
 */
static int is_nondeterministic(const struct recon_opts *o, const char *name,
			       const char *base)
{
	for (size_t i = 0; i < o->nr_nondeterministic; i++) {
		if (!strcmp(o->nondeterministic[i], name) ||
		    !strcmp(o->nondeterministic[i], base)) {
			return 1;
		}
	}
	return 0;
}

/* Read bundle @path into a new program of @m. */
static int read_bundle(struct model *m, size_t index, const char *path,
		       const char *name, const char *base,
		       const struct recon_opts *o, struct recon_stats *st)
{
	struct trace_reader *r = NULL;
	struct bundle_feed *f = NULL;
	struct bundle_feed_stats fs;
	struct model_prog *p;
	const struct gm_event *ev;
	uint64_t total = 0;
	int ret = -1, got;

	if (trace_reader_open(&r, path, GM_READER_ALLOW_UNSUPPORTED) < 0) {
		goto fail;
	}
	p = model_add_program(m, name, path,
			      !is_nondeterministic(o, name, base));
	if (!p) {
		goto fail;
	}
	if (kvfile_get(trace_reader_manifest(r), "events.found")) {
		kvfile_get_u64(trace_reader_manifest(r), "events.found", &total,
			       "manifest");
	}
	f = bundle_feed_new(m, p, r);
	if (o->progress && o->progress(o->progress_ctx, index, name, 0, total)) {
		gm_error("interrupted");
		goto fail;
	}
	while ((got = trace_reader_next(r, &ev)) > 0) {
		if (bundle_feed_event(f, ev) < 0) {
			goto fail;
		}
		if (o->progress && ev->index % PROGRESS_EVERY == 0 &&
		    o->progress(o->progress_ctx, index, name, ev->index, total)) {
			gm_error("interrupted after event %" PRIu64, ev->index);
			goto fail;
		}
	}
	if (got < 0 || bundle_feed_finish(f) < 0) {
		goto fail;
	}
	bundle_feed_stats(f, &fs);
	if (o->progress &&
	    o->progress(o->progress_ctx, index, name, fs.events, total)) {
		gm_error("interrupted");
		goto fail;
	}
	if (fs.errors && !o->allow_failed_calls) {
		gm_error("program '%s' failed: %" PRIu64 " of its CUDA calls "
			 "returned an error, the first at event %" PRIu64
			 " (%s returned %" PRId32 " %s): its results are not "
			 "what it meant to compute", name, fs.errors,
			 fs.first_error, gm_api_table[fs.first_error_api].name,
			 fs.first_error_status,
			 gm_cu_result_name(fs.first_error_status));
		gm_error_hint("--allow-failed-calls reconstructs it anyway "
			      "(failed calls are not replayed)");
		goto fail;
	}
	st->events += fs.events;
	st->calls += fs.calls;
	st->failed += fs.failed;
	ret = 0;
	goto out;
fail:
	gm_error("cannot reconstruct '%s'", path);
out:
	bundle_feed_free(f);
	trace_reader_free(r);
	return ret;
}

static void list_unsupported(const struct model *m, struct strbuf *report)
{
	const char *prog, *api;
	uint64_t ev;

	for (uint64_t i = 0; !model_unsupported_call(m, i, &prog, &ev, &api);
	     i++) {
		strbuf_addf(report, "unsupported: program '%s': event %" PRIu64
			    ": %s\n", prog, ev, api);
	}
}

int recon_build(struct model **out, const char *const *bundles, size_t nr,
		const struct recon_opts *o, struct strbuf *report,
		struct recon_stats *stp)
{
	struct recon_stats dummy, *st = stp ? stp : &dummy;
	struct model *m;
	char **bases, **names;
	double t0;
	uint64_t n;
	int failed = 0;

	*out = NULL;
	memset(st, 0, sizeof(*st));
	if (recon_variant_check(o->variant ? o->variant
					   : recon_default_variant()) < 0) {
		return -1;
	}
	if (!nr) {
		return gm_error("no bundles to reconstruct");
	}
	m = model_new(NULL, o->variant ? o->variant : recon_default_variant());
	t0 = gm_now_s();
	bases = gm_xcalloc(nr + 1, sizeof(*bases));
	for (size_t i = 0; i < nr; i++) {
		bases[i] = bundle_program_name(bundles[i]);
	}
	names = gm_instance_names((const char *const *)bases, nr);
	for (size_t i = 0; i < nr && !failed; i++) {
		failed = read_bundle(m, i, bundles[i], names[i], bases[i], o,
				     st) < 0;
	}
	for (size_t i = 0; i < nr; i++) {
		free(bases[i]);
		free(names[i]);
	}
	free(bases);
	free(names);
	if (failed) {
		model_free(m);
		return -1;
	}
	st->read_s = gm_now_s() - t0;
	for (size_t k = 0; k < o->nr_nondeterministic; k++) {
		const char *want = o->nondeterministic[k];
		size_t i;
		for (i = 0; i < m->nr_progs; i++) {
			char *base = recon_program_name(m->progs[i]->bundle, NULL);
			int hit = !strcmp(m->progs[i]->name, want) ||
				  !strcmp(base, want);
			free(base);
			if (hit) {
				break;
			}
		}
		if (i == m->nr_progs) {
			struct strbuf names = STRBUF_INIT;
			for (i = 0; i < m->nr_progs; i++) {
				strbuf_addf(&names, "%s%s", i ? ", " : "",
					    m->progs[i]->name);
			}
			gm_error("--nondeterministic '%s' is not a program of "
				 "the workload (%s)", want, names.buf);
			strbuf_release(&names);
			model_free(m);
			return -1;
		}
	}
	n = model_nr_unsupported(m);
	st->unsupported = n;
	if (n && !o->allow_unsupported) {
		struct strbuf wl = STRBUF_INIT;
		for (size_t i = 0; i < m->nr_progs; i++) {
			strbuf_addf(&wl, "%s%s", i ? "+" : "", m->progs[i]->name);
		}
		list_unsupported(m, report);
		gm_error("cannot reconstruct '%s': %" PRIu64 " call%s that "
			 "gpumix cannot replay (listed above)", wl.buf, n,
			 n == 1 ? "" : "s");
		strbuf_release(&wl);
		gm_error_hint("--allow-unsupported skips them; the replay then "
			      "does less than the captured program");
		model_free(m);
		return -1;
	}
	t0 = gm_now_s();
	if (model_finish(m) < 0) {
		model_free(m);
		return -1;
	}
	st->finish_s = gm_now_s() - t0;
	st->programs = m->nr_progs;
	for (size_t i = 0; i < m->nr_progs; i++) {
		const struct model_prog *p = m->progs[i];
		st->ops += p->nr_ops;
		for (size_t k = 0; k < p->nr_ops; k++) {
			st->launches += p->ops[k].code == GM_OP_LAUNCH;
		}
	}
	model_report(m, report);
	*out = m;
	return 0;
}
