/* SPDX-License-Identifier: MIT */
/*
 * The persistent state of a study: what each stage produced, from which
 * inputs, so that `gpumix run` started again continues where it stopped.
 * One record per stage ("capture mm", "reconstruct mm+spmv.cuda",
 * "replay mm+spmv.cuda", "analyze mm+spmv.cuda", "report") holds its
 * status, the hash of its inputs (a changed input makes the stage stale),
 * the reason of a failure and its duration. A small cache of executable
 * fingerprints (size, mtime, content hash) avoids rehashing unchanged
 * binaries. The file is in kvfile format, written atomically after every
 * stage; a stage that was running when the study died has no record and
 * is run again.
 */
#ifndef GM_STUDY_STATE_H
#define GM_STUDY_STATE_H

#include <stddef.h>
#include <stdint.h>

#define STUDY_STATE_FORMAT "gpumix-study-state 1"

struct state_record {
	char *id;		/* "<stage> <name>", or "report" */
	char *status;		/* done, ok, failed, hung */
	char *key;		/* hash of the stage's inputs */
	char *reason;		/* why it failed, or NULL */
	double seconds;		/* how long it ran */
};

struct exe_record {
	char *path;		/* absolute path of the executable */
	uint64_t size;
	int64_t mtime_ns;
	char *hash;		/* content hash (hash.h) */
};

struct study_state {
	char *path;		/* the state file */
	char *study;		/* study name recorded in it */
	/* The seed of the run order (`seed`), recorded on save when
	 * @have_seed: the order the study's runs were given. */
	uint64_t seed;
	int have_seed;
	struct state_record *records;
	size_t nr, alloc;
	struct exe_record *exes;
	size_t nr_exes, alloc_exes;
	int lock_fd;		/* -1 when not locked */
	int shared;		/* the lock is shared (a task's) */
	int wait_lock;		/* wait for the lock instead of failing (a
				 * SLURM job, which may start while its
				 * submitter still holds it) */
	char **merged;		/* task record files read in (owned) */
	size_t nr_merged, alloc_merged;
};

/*
 * Read the state file @path into @st; a missing file gives an empty
 * state. A malformed file is an error naming it (delete it to start the
 * study over). @study is recorded on the next save.
 */
int study_state_load(struct study_state *st, const char *path,
		     const char *study);

/* Write the state atomically (temporary file, fsync, rename). */
int study_state_save(struct study_state *st);

/*
 * Take the study's lock (PATH.lock, flock), so that two `gpumix run` of
 * the same study cannot interleave; released by study_state_release() or
 * when the process dies.
 */
int study_state_lock(struct study_state *st);

/*
 * The environment variable that tells a stage which inherited descriptor
 * holds the study lock (study_state_lock() lets stages inherit it).
 */
#define GM_STUDY_LOCK_FD_ENV "GPUMIX_STUDY_LOCK_FD"

/*
 * Take the lock shared instead (a task of a study spread over GPUs or
 * SLURM nodes: tasks run side by side, never beside a `gpumix run`
 * that holds it exclusively). A task writes no state: it leaves its
 * record to study_state_write_task().
 */
int study_state_lock_shared(struct study_state *st);

/*
 * Tasks that run without the exclusive lock (SLURM array tasks) write
 * their stage's record into a file of its own under PATH.tasks/, written
 * atomically, so that any number can finish at once. study_state_load()
 * reads them in (a task's record replaces the state's); the next
 * study_state_save() by the exclusive holder of the lock, which has then
 * written them into the state, removes them.
 */
int study_state_write_task(const struct study_state *st, const char *id,
			   const char *status, const char *key,
			   const char *reason, double seconds);

void study_state_release(struct study_state *st);

/* The record called @id, or NULL (borrowed). */
struct state_record *study_state_find(struct study_state *st, const char *id);

/* Create or replace the record @id; strings are copied, @reason may be
 * NULL. */
void study_state_set(struct study_state *st, const char *id,
		     const char *status, const char *key, const char *reason,
		     double seconds);

/* Remove the record @id if present. */
void study_state_forget(struct study_state *st, const char *id);

/* The cached fingerprint of @path, or NULL (borrowed). */
struct exe_record *study_state_exe(struct study_state *st, const char *path);

/* Create or replace the fingerprint of @path. */
void study_state_set_exe(struct study_state *st, const char *path,
			 uint64_t size, int64_t mtime_ns, const char *hash);

#endif
