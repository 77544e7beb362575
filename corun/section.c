/* SPDX-License-Identifier: MIT */
/*
 * The section file of one process of a co-run program (see section.h):
 * written by the interposer at the process's exit, read by the command.
 */
#include "section.h"

#include <stdio.h>
#include <string.h>

#include "error.h"
#include "kvfile.h"

static const char *const barrier_names[] = {
	[CORUN_BARRIER_NONE] = "none",	     [CORUN_BARRIER_GO] = "go",
	[CORUN_BARRIER_TIMEOUT] = "timeout", [CORUN_BARRIER_GAVE_UP] = "gave-up",
	[CORUN_BARRIER_ERROR] = "error",
};

#define NR_BARRIER (sizeof(barrier_names) / sizeof(barrier_names[0]))

const char *corun_barrier_name(enum corun_barrier b)
{
	return (unsigned)b < NR_BARRIER ? barrier_names[b] : "?";
}

int corun_section_write(const struct corun_section *s, const char *path)
{
	struct kvfile kv = KVFILE_INIT;
	int ret;

	kvfile_set(&kv, "format", GM_CORUN_SECTION_FORMAT);
	kvfile_set_u64(&kv, "pid", s->pid);
	kvfile_set_u64(&kv, "ops", s->ops);
	if (s->ops) {
		kvfile_set(&kv, "first_op", s->first_op);
		kvfile_set(&kv, "last_op", s->last_op);
		if (s->device[0]) {
			kvfile_set(&kv, "device", s->device);
		}
		kvfile_set_u64(&kv, "arrive_ns", s->arrive_ns);
		kvfile_set_u64(&kv, "start_ns", s->start_ns);
		kvfile_set_u64(&kv, "end_ns", s->end_ns);
	}
	kvfile_set(&kv, "barrier", corun_barrier_name(s->barrier));
	if (s->barrier == CORUN_BARRIER_TIMEOUT ||
	    s->barrier == CORUN_BARRIER_GAVE_UP) {
		kvfile_set_u64(&kv, "barrier.arrived", s->arrived);
		kvfile_set(&kv, "barrier.missing", s->missing);
	}
	if (s->error[0]) {
		kvfile_set(&kv, "error", s->error);
	}
	ret = kvfile_write(&kv, path, "gpumix corun: one process's GPU section");
	kvfile_release(&kv);
	return ret;
}

static void copy_key(const struct kvfile *kv, const char *key, char *out,
		     size_t len)
{
	const char *v = kvfile_get(kv, key);

	snprintf(out, len, "%s", v ? v : "");
}

int corun_section_read(struct corun_section *s, const char *path)
{
	struct kvfile kv = KVFILE_INIT;
	const char *v;
	uint64_t n = 0;
	int ret = -1;

	memset(s, 0, sizeof(*s));
	if (kvfile_read(&kv, path)) {
		goto out;
	}
	v = kvfile_get(&kv, "format");
	if (!v || strcmp(v, GM_CORUN_SECTION_FORMAT)) {
		gm_error("'%s' is not a section file of format '%s'", path,
			 GM_CORUN_SECTION_FORMAT);
		goto out;
	}
	if (kvfile_get_u64(&kv, "pid", &s->pid, path) ||
	    kvfile_get_u64(&kv, "ops", &s->ops, path)) {
		goto out;
	}
	if (s->ops && (kvfile_get_u64(&kv, "arrive_ns", &s->arrive_ns, path) ||
		       kvfile_get_u64(&kv, "start_ns", &s->start_ns, path) ||
		       kvfile_get_u64(&kv, "end_ns", &s->end_ns, path))) {
		goto out;
	}
	copy_key(&kv, "first_op", s->first_op, sizeof(s->first_op));
	copy_key(&kv, "last_op", s->last_op, sizeof(s->last_op));
	copy_key(&kv, "device", s->device, sizeof(s->device));
	copy_key(&kv, "barrier.missing", s->missing, sizeof(s->missing));
	copy_key(&kv, "error", s->error, sizeof(s->error));
	v = kvfile_get(&kv, "barrier");
	for (s->barrier = 0; v && (unsigned)s->barrier < NR_BARRIER; s->barrier++) {
		if (!strcmp(barrier_names[s->barrier], v)) {
			break;
		}
	}
	if (!v || (unsigned)s->barrier == NR_BARRIER) {
		gm_error("%s: bad barrier '%s'", path, v ? v : "(missing)");
		goto out;
	}
	if (kvfile_get(&kv, "barrier.arrived")) {
		if (kvfile_get_u64(&kv, "barrier.arrived", &n, path)) {
			goto out;
		}
		s->arrived = (unsigned)n;
	}
	if (s->ops && !(s->arrive_ns <= s->start_ns && s->start_ns <= s->end_ns)) {
		gm_error("%s: times out of order (arrive %llu, start %llu, end "
			 "%llu)", path, (unsigned long long)s->arrive_ns,
			 (unsigned long long)s->start_ns,
			 (unsigned long long)s->end_ns);
		goto out;
	}
	ret = 0;
out:
	kvfile_release(&kv);
	return ret;
}
