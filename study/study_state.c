/* SPDX-License-Identifier: MIT */
/*
 * The study state file (see study_state.h). Records are numbered in the
 * file ("stage.<i>.id = replay a+b.cuda") because workload names hold
 * characters that manifest keys do not; the numbering is rewritten on
 * every save and means nothing else.
 */
#include "study_state.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "atomic_file.h"
#include "error.h"
#include "file_lock.h"
#include "fs.h"
#include "kvfile.h"
#include "strbuf.h"

static void record_clear(struct state_record *r)
{
	free(r->id);
	free(r->status);
	free(r->key);
	free(r->reason);
	memset(r, 0, sizeof(*r));
}

static void exe_clear(struct exe_record *e)
{
	free(e->path);
	free(e->hash);
	memset(e, 0, sizeof(*e));
}

struct state_record *study_state_find(struct study_state *st, const char *id)
{
	for (size_t i = 0; i < st->nr; i++) {
		if (!strcmp(st->records[i].id, id)) {
			return &st->records[i];
		}
	}
	return NULL;
}

void study_state_set(struct study_state *st, const char *id,
		     const char *status, const char *key, const char *reason,
		     double seconds)
{
	struct state_record *r = study_state_find(st, id);

	if (r) {
		record_clear(r);
	} else {
		GM_ALLOC_GROW(st->records, st->nr + 1, st->alloc);
		r = &st->records[st->nr++];
	}
	r->id = gm_xstrdup(id);
	r->status = gm_xstrdup(status);
	r->key = gm_xstrdup(key);
	r->reason = reason ? gm_xstrdup(reason) : NULL;
	r->seconds = seconds;
}

void study_state_forget(struct study_state *st, const char *id)
{
	struct state_record *r = study_state_find(st, id);

	if (!r) {
		return;
	}
	record_clear(r);
	size_t i = (size_t)(r - st->records);
	memmove(r, r + 1, (st->nr - i - 1) * sizeof(*r));
	st->nr--;
}

struct exe_record *study_state_exe(struct study_state *st, const char *path)
{
	for (size_t i = 0; i < st->nr_exes; i++) {
		if (!strcmp(st->exes[i].path, path)) {
			return &st->exes[i];
		}
	}
	return NULL;
}

void study_state_set_exe(struct study_state *st, const char *path,
			 uint64_t size, int64_t mtime_ns, const char *hash)
{
	struct exe_record *e = study_state_exe(st, path);

	if (e) {
		exe_clear(e);
	} else {
		GM_ALLOC_GROW(st->exes, st->nr_exes + 1, st->alloc_exes);
		e = &st->exes[st->nr_exes++];
	}
	e->path = gm_xstrdup(path);
	e->size = size;
	e->mtime_ns = mtime_ns;
	e->hash = gm_xstrdup(hash);
}

static const char *need(const struct kvfile *kv, const char *key,
			const char *path)
{
	const char *v = kvfile_get(kv, key);

	if (!v) {
		gm_error("%s: missing key '%s'", path, key);
	}
	return v;
}

static int load_records(struct study_state *st, const struct kvfile *kv)
{
	for (size_t i = 0;; i++) {
		char key[64];
		double secs;

		snprintf(key, sizeof(key), "stage.%zu.id", i);
		const char *id = kvfile_get(kv, key);
		if (!id) {
			return 0;
		}
#define FIELD(name) (snprintf(key, sizeof(key), "stage.%zu." name, i), key)
		const char *status = need(kv, FIELD("status"), st->path);
		const char *hash = status ? need(kv, FIELD("key"), st->path) : NULL;
		if (!hash || kvfile_get_double(kv, FIELD("seconds"), &secs, st->path)) {
			return -1;
		}
		const char *reason = kvfile_get(kv, FIELD("reason"));
#undef FIELD
		if (study_state_find(st, id)) {
			return gm_error("%s: stage '%s' is recorded twice", st->path, id);
		}
		study_state_set(st, id, status, hash, reason, secs);
	}
}

static int load_exes(struct study_state *st, const struct kvfile *kv)
{
	for (size_t i = 0;; i++) {
		char key[64];
		uint64_t size, mtime;

		snprintf(key, sizeof(key), "exe.%zu.path", i);
		const char *path = kvfile_get(kv, key);
		if (!path) {
			return 0;
		}
#define FIELD(name) (snprintf(key, sizeof(key), "exe.%zu." name, i), key)
		if (kvfile_get_u64(kv, FIELD("size"), &size, st->path) ||
		    kvfile_get_u64(kv, FIELD("mtime_ns"), &mtime, st->path)) {
			return -1;
		}
		const char *hash = need(kv, FIELD("hash"), st->path);
#undef FIELD
		if (!hash) {
			return -1;
		}
		study_state_set_exe(st, path, size, (int64_t)mtime, hash);
	}
}

static char *tasks_dir(const struct study_state *st)
{
	return gm_xasprintf("%s.tasks", st->path);
}

/* The file name of a task record: the id with '/' and ' ' replaced (ids
 * are "STAGE NAME", names hold no '/' but may in principle). */
static char *task_file(const struct study_state *st, const char *id)
{
	char *dir = tasks_dir(st), *name = gm_xstrdup(id);

	for (char *c = name; *c; c++) {
		if (*c == '/' || *c == ' ') {
			*c = '_';
		}
	}
	char *p = gm_path_join(dir, name);
	free(dir);
	free(name);
	return p;
}

int study_state_write_task(const struct study_state *st, const char *id,
			   const char *status, const char *key,
			   const char *reason, double seconds)
{
	struct kvfile kv = KVFILE_INIT;
	char *dir = tasks_dir(st), *path = task_file(st, id);
	int ret = -1;

	if (gm_mkdir_p(dir, 0755)) {
		goto out;
	}
	kvfile_append(&kv, "format", STUDY_STATE_FORMAT);
	kvfile_append(&kv, "id", id);
	kvfile_append(&kv, "status", status);
	kvfile_append(&kv, "key", key);
	kvfile_setf(&kv, "seconds", "%.3f", seconds);
	if (reason) {
		kvfile_append(&kv, "reason", reason);
	}
	ret = kvfile_write(&kv, path, "gpumix study task record: read into the "
			   "study state by the next gpumix run");
	if (ret) {
		gm_error("cannot save the task record '%s'", path);
	}
out:
	kvfile_release(&kv);
	free(dir);
	free(path);
	return ret;
}

/* Read the task records under PATH.tasks/ into the state. */
static int merge_tasks(struct study_state *st)
{
	char *dir = tasks_dir(st);
	DIR *d = opendir(dir);
	struct dirent *e;
	int ret = 0;

	if (!d) {
		free(dir);
		return 0;
	}
	while (!ret && (e = readdir(d))) {
		struct kvfile kv = KVFILE_INIT;
		double secs;
		/* Skip a task's write in progress ("ID.tmp.XXXXXX"). */
		if (e->d_name[0] == '.' || strstr(e->d_name, ".tmp.")) {
			continue;
		}
		char *path = gm_path_join(dir, e->d_name);
		const char *id, *status, *key, *fmt;
		if (kvfile_read(&kv, path) ||
		    !(fmt = kvfile_get(&kv, "format")) ||
		    strcmp(fmt, STUDY_STATE_FORMAT) ||
		    !(id = need(&kv, "id", path)) ||
		    !(status = need(&kv, "status", path)) ||
		    !(key = need(&kv, "key", path)) ||
		    kvfile_get_double(&kv, "seconds", &secs, path)) {
			ret = gm_error("cannot read the task record '%s'", path);
			gm_error_hint("delete it: its stage runs again");
		} else {
			study_state_set(st, id, status, key,
					kvfile_get(&kv, "reason"), secs);
			GM_ALLOC_GROW(st->merged, st->nr_merged + 1,
				      st->alloc_merged);
			st->merged[st->nr_merged++] = path;
			path = NULL;
		}
		free(path);
		kvfile_release(&kv);
	}
	closedir(d);
	free(dir);
	return ret;
}

int study_state_load(struct study_state *st, const char *path,
		     const char *study)
{
	struct kvfile kv = KVFILE_INIT;
	int ret = 0;

	memset(st, 0, sizeof(*st));
	st->lock_fd = -1;
	st->path = gm_xstrdup(path);
	st->study = gm_xstrdup(study);
	if (!gm_path_exists(path)) {
		return merge_tasks(st);
	}
	if (kvfile_read(&kv, path)) {
		ret = -1;
		goto out;
	}
	const char *format = kvfile_get(&kv, "format");
	if (!format || strcmp(format, STUDY_STATE_FORMAT)) {
		ret = gm_error("%s: not a study state file of format '%s'", path,
			       STUDY_STATE_FORMAT);
		goto out;
	}
	ret = load_records(st, &kv);
	if (!ret) {
		ret = load_exes(st, &kv);
	}
	if (!ret && kvfile_get(&kv, "seed")) {
		ret = kvfile_get_u64(&kv, "seed", &st->seed, path);
		st->have_seed = !ret;
	}
	if (!ret) {
		ret = merge_tasks(st);
	}
out:
	kvfile_release(&kv);
	if (ret) {
		gm_error("cannot read the study state '%s'", path);
		gm_error_hint("delete it to start the study over");
	}
	return ret;
}

static void append_u64(struct kvfile *kv, const char *key, uint64_t v)
{
	char buf[32];

	snprintf(buf, sizeof(buf), "%" PRIu64, v);
	kvfile_append(kv, key, buf);
}

int study_state_save(struct study_state *st)
{
	struct kvfile kv = KVFILE_INIT;
	char key[64], when[32];
	time_t now = time(NULL);
	struct tm tm;
	int ret;

	gmtime_r(&now, &tm);
	strftime(when, sizeof(when), "%Y-%m-%dT%H:%M:%SZ", &tm);
	kvfile_append(&kv, "format", STUDY_STATE_FORMAT);
	kvfile_append(&kv, "study", st->study);
	kvfile_append(&kv, "updated_at", when);
	if (st->have_seed) {
		append_u64(&kv, "seed", st->seed);
	}
	for (size_t i = 0; i < st->nr_exes; i++) {
		const struct exe_record *e = &st->exes[i];
		snprintf(key, sizeof(key), "exe.%zu.path", i);
		kvfile_append(&kv, key, e->path);
		snprintf(key, sizeof(key), "exe.%zu.size", i);
		append_u64(&kv, key, e->size);
		snprintf(key, sizeof(key), "exe.%zu.mtime_ns", i);
		/* Stored as its two's complement: read back unchanged. */
		append_u64(&kv, key, (uint64_t)e->mtime_ns);
		snprintf(key, sizeof(key), "exe.%zu.hash", i);
		kvfile_append(&kv, key, e->hash);
	}
	for (size_t i = 0; i < st->nr; i++) {
		const struct state_record *r = &st->records[i];
		snprintf(key, sizeof(key), "stage.%zu.id", i);
		kvfile_append(&kv, key, r->id);
		snprintf(key, sizeof(key), "stage.%zu.status", i);
		kvfile_append(&kv, key, r->status);
		snprintf(key, sizeof(key), "stage.%zu.key", i);
		kvfile_append(&kv, key, r->key);
		snprintf(key, sizeof(key), "stage.%zu.seconds", i);
		char secs[32];
		snprintf(secs, sizeof(secs), "%.3f", r->seconds);
		kvfile_append(&kv, key, secs);
		if (r->reason) {
			snprintf(key, sizeof(key), "stage.%zu.reason", i);
			kvfile_append(&kv, key, r->reason);
		}
	}
	ret = kvfile_write(&kv, st->path, "gpumix study state: written after "
			   "every stage; delete it to start the study over");
	kvfile_release(&kv);
	if (ret) {
		return gm_error("cannot save the study state '%s'", st->path);
	}
	/* Now in the state: the task records read in are done with. */
	if (st->lock_fd >= 0 && !st->shared) {
		for (size_t i = 0; i < st->nr_merged; i++) {
			unlink(st->merged[i]);
			free(st->merged[i]);
		}
		st->nr_merged = 0;
	}
	return 0;
}

static int lock(struct study_state *st, unsigned how)
{
	struct gm_file_lock l;
	struct gm_file_lock_wait w = { .wait = st->wait_lock };
	int fd, r = gm_file_lock_take(&l, st->path, how | GM_FILE_LOCK_KEEP, &w);

	if (r > 0) {
		char *name = gm_file_lock_path(st->path);
		gm_error("study '%s' is already running (lock '%s' is held)",
			 st->study, name);
		gm_error_hint("wait for it to finish, or stop it first");
		free(name);
		return -1;
	}
	if (r < 0) {
		return -1;
	}
	/* The descriptor is the state's now (study_state_release()). */
	fd = l.fd;
	free(l.path);
	st->lock_fd = fd;
	/*
	 * The stages inherit the lock (no close-on-exec): a stage that
	 * outlives a killed study keeps the study locked until it ends, so
	 * that a resumed study cannot run the same stage beside it. gpumix,
	 * run as a stage, keeps it from the programs it starts in turn
	 * (GPUMIX_STUDY_LOCK_FD, cli/gpumix.c).
	 */
	char num[16];
	snprintf(num, sizeof(num), "%d", fd);
	if (fcntl(fd, F_SETFD, 0) == 0) {
		setenv(GM_STUDY_LOCK_FD_ENV, num, 1);
	}
	if (how & GM_FILE_LOCK_SHARED) {
		st->shared = 1;
		return 0;
	}
	/* The lock makes us the state's only writer: what a killed study
	 * left half-written is garbage. */
	atomic_file_remove_stale(st->path);
	return 0;
}

int study_state_lock(struct study_state *st)
{
	return lock(st, 0);
}

int study_state_lock_shared(struct study_state *st)
{
	return lock(st, GM_FILE_LOCK_SHARED);
}

void study_state_release(struct study_state *st)
{
	for (size_t i = 0; i < st->nr; i++) {
		record_clear(&st->records[i]);
	}
	free(st->records);
	for (size_t i = 0; i < st->nr_exes; i++) {
		exe_clear(&st->exes[i]);
	}
	free(st->exes);
	for (size_t i = 0; i < st->nr_merged; i++) {
		free(st->merged[i]);
	}
	free(st->merged);
	if (st->lock_fd >= 0) {
		close(st->lock_fd);
	}
	free(st->path);
	free(st->study);
	memset(st, 0, sizeof(*st));
	st->lock_fd = -1;
}
