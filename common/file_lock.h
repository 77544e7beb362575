/* SPDX-License-Identifier: MIT */
/*
 * The lock of a file that several processes write: an advisory flock(2)
 * on a sidecar file "PATH.lock", held by a writer for its whole
 * read-modify-write of PATH (the results database in every gpumix
 * analyze and analyze --merge, a study's state in gpumix run). A sidecar
 * and not PATH itself, because a writer that puts a new PATH in place by
 * renaming a temporary copy over it would leave the others locking an
 * inode that later openers no longer see. The lock dies with its holder,
 * so a killed writer never leaves PATH locked.
 *
 * An exclusive lock's file is removed when it is released, so that it
 * exists only while a writer works (or after a crash, harmlessly): a
 * taker that finds, once it holds the lock, that the file it locked is no
 * longer the one under the name (its holder removed it meanwhile) takes
 * the lock again. A lock whose descriptor other processes inherit, or
 * that is shared, keeps its file (GM_FILE_LOCK_KEEP): removing it under
 * a holder would let a new taker lock a fresh file beside it.
 */
#ifndef GM_FILE_LOCK_H
#define GM_FILE_LOCK_H

struct gm_file_lock {
	int fd;			/* the lock file, -1 when not held */
	char *path;		/* "PATH.lock" (owned), NULL when not held */
	int keep;		/* leave the file at release */
};

#define GM_FILE_LOCK_INIT { -1, NULL, 0 }

/* Flags of gm_file_lock_take(); exclusive unless SHARED. */
#define GM_FILE_LOCK_SHARED	1u	/* many holders, no exclusive one (implies KEEP) */
#define GM_FILE_LOCK_KEEP	2u	/* the lock file stays after release */

/* What gm_file_lock_take() does when another process holds the lock. */
struct gm_file_lock_wait {
	/* 0: return 1 at once; 1: wait until the lock is free. */
	int wait;
	/* Called once, before waiting, with the lock file's path (may be
	 * NULL): the CLI says what it waits for. */
	void (*waiting)(void *arg, const char *lock_path);
	void *arg;
};

/*
 * Take the lock of @path: open (create, mode 0644) "@path.lock" and
 * flock it, exclusively unless @flags has GM_FILE_LOCK_SHARED. @w NULL or
 * w->wait 0: when another process holds it, returns 1 and records no
 * cause (the caller says who holds it); otherwise waits. Returns 0 (held:
 * @l owns the descriptor, which is close-on-exec), 1 (busy, not waiting)
 * or -1 (the lock file cannot be created or locked, or a signal
 * interrupted the wait; cause recorded, naming the lock file). @l is left
 * not held unless 0 is returned.
 */
int gm_file_lock_take(struct gm_file_lock *l, const char *path,
		      unsigned flags, const struct gm_file_lock_wait *w);

/* The lock file's name for @path ("@path.lock"; caller frees). */
char *gm_file_lock_path(const char *path);

/*
 * Release the lock (harmless when not held), removing its file first
 * unless it is kept.
 */
void gm_file_lock_release(struct gm_file_lock *l);

#endif
