/* SPDX-License-Identifier: MIT */
/*
 * The files of a corun directory (see corun_dir.h).
 */
#include "corun_dir.h"

#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "atomic_file.h"
#include "error.h"
#include "fs.h"
#include "kvfile.h"
#include "replay/mps_daemon.h"
#include "strbuf.h"

static int write_sections(const char *dir, const struct corun_dir_info *in)
{
	const struct corun_results *r = in->r;
	struct strbuf sb = STRBUF_INIT;
	char *path = gm_path_join(dir, "sections.tsv");
	int ret;

	strbuf_addstr(&sb, CORUN_SECTIONS_HEADER "\n");
	for (size_t i = 0; i < r->nr; i++) {
		const struct corun_measure *m = &r->m[i];
		const struct corun_step *s = &in->plan->steps[m->step];
		strbuf_addf(&sb, "%s\t%u\t%s\t%llu\t%llu\t%llu\t%u\t%s\t%s\n",
			    corun_step_mode(s), s->repeat,
			    in->progs[m->program].name,
			    (unsigned long long)m->start_ns,
			    (unsigned long long)m->end_ns,
			    (unsigned long long)m->ops, m->processes,
			    m->first_op, m->last_op);
	}
	ret = gm_write_file_atomic(path, sb.buf, sb.len, 1);
	strbuf_release(&sb);
	free(path);
	return ret;
}

/* The device the programs ran on, as their interposers named it. */
static const char *device(const struct corun_results *r)
{
	for (size_t i = 0; i < r->nr; i++) {
		if (r->m[i].device[0]) {
			return r->m[i].device;
		}
	}
	return "unknown";
}

static void manifest(struct kvfile *kv, const struct corun_dir_info *in)
{
	const struct corun_plan *p = in->plan;
	struct strbuf mechs = STRBUF_INIT;
	char host[256] = "";
	const char *vis = gm_visible_devices();

	kvfile_set(kv, "format", CORUN_FORMAT);
	kvfile_set(kv, "workload", in->workload);
	kvfile_set_u64(kv, "programs", p->nr_programs);
	for (size_t i = 0; i < p->nr_programs; i++) {
		const struct corun_program *g = &in->progs[i];
		char key[64];
		snprintf(key, sizeof(key), "program.%zu.name", i);
		kvfile_set(kv, key, g->name);
		snprintf(key, sizeof(key), "program.%zu.bundle", i);
		kvfile_set(kv, key, g->bundle ? g->bundle : "");
		snprintf(key, sizeof(key), "program.%zu.command", i);
		kvfile_set(kv, key, g->command);
		snprintf(key, sizeof(key), "program.%zu.cwd", i);
		kvfile_set(kv, key, g->cwd);
	}
	for (size_t i = 0; i < p->nr_mechs; i++) {
		strbuf_addf(&mechs, "%s%s", i ? "," : "", p->mechs[i]->name);
	}
	kvfile_set(kv, "mechanisms", mechs.buf);
	strbuf_release(&mechs);
	for (size_t i = 0; in->skipped && in->skipped[i]; i++) {
		const char *colon = strchr(in->skipped[i], ':');
		char key[64];
		if (!colon) {
			continue;
		}
		snprintf(key, sizeof(key), "skipped.%.*s",
			 (int)(colon - in->skipped[i]), in->skipped[i]);
		kvfile_set(kv, key, colon + 1 + (colon[1] == ' '));
	}
	kvfile_set_u64(kv, "repeats", p->repeats);
	if (in->repetition) {
		kvfile_set_u64(kv, "run.repetition", in->repetition);
	}
	kvfile_setf(kv, "barrier_timeout_s", "%g", in->barrier_timeout_s);
	kvfile_set(kv, "device.name", device(in->r));
	if (vis && *vis) {
		kvfile_set(kv, "device.visible", vis);
	}
	if (!gethostname(host, sizeof(host) - 1)) {
		kvfile_set(kv, "hostname", host);
	}
	kvfile_set(kv, "gpumix_version", in->version);
	kvfile_set(kv, "started_at", in->started_at);
	kvfile_set(kv, "finished_at", in->finished_at);
	kvfile_set_u64(kv, "steps", p->nr_steps);
	kvfile_set_u64(kv, "steps_done", in->r->steps_done);
	if (in->r->daemon_trouble) {
		kvfile_set(kv, "mps.daemon", "killed (it did not stop after "
					     "quit)");
	}
	kvfile_set(kv, "status", in->r->failure ? "failed" : "ok");
	if (in->r->failure) {
		kvfile_set(kv, "failure", in->r->failure);
	}
}

int corun_dir_write(const char *dir, const struct corun_dir_info *in)
{
	struct kvfile kv = KVFILE_INIT;
	char *path = gm_path_join(dir, "manifest");
	int ret = -1;

	if (write_sections(dir, in)) {
		goto out;
	}
	manifest(&kv, in);
	ret = kvfile_write(&kv, path, "gpumix corun: native co-run of a "
				      "workload (doc/gpumix-corun.md)");
out:
	if (ret) {
		gm_error("cannot write the corun directory '%s'", dir);
	}
	kvfile_release(&kv);
	free(path);
	return ret;
}
