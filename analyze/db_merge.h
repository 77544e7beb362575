/* SPDX-License-Identifier: MIT */
/*
 * Merging results databases (`gpumix analyze --merge`): the runs of
 * several databases, from several studies or machines, into one, as if
 * their run directories had been loaded together. A run is identified as
 * the loader identifies it, by runs.hash (its manifest and replays.tsv):
 * a run present in several inputs is copied once. The rules of one
 * database hold for the result: one run per (workload, variant, policy,
 * repetition), and a workload's programCount agrees, so inputs that break them are
 * refused, naming both runs.
 *
 * The output is built under a temporary name next to it (starting from a
 * copy of the output when it exists, so merging adds to it) and renamed
 * into place only when every input is in: on any error the output is as
 * it was, and no half-merged file appears. The output's lock (db.h) is
 * held from before the copy until after the rename, so that a gpumix
 * analyze of the same output waits rather than adding a run to the copy
 * that the rename then throws away.
 */
#ifndef GM_DB_MERGE_H
#define GM_DB_MERGE_H

#include <stddef.h>

struct gm_db;

struct gm_merge_info {
	/* In: polled during the copy; non-zero stops the merge (then
	 * @interrupted is set and the output is left as it was). May be NULL. */
	int (*stop)(void);
	/* In: called on the merged database before it replaces the output
	 * (a derived table is refreshed there); non-zero fails the merge.
	 * May be NULL. */
	int (*finish)(struct gm_db *db);
	/* In: called once when the merge must wait for another writer of the
	 * output (db.h); may be NULL. */
	void (*waiting)(void *arg, const char *lock_path);
	void *waiting_arg;
	/* Out: */
	size_t runs;		/* runs copied into the output */
	size_t duplicates;	/* runs of inputs the output already held */
	size_t kept;		/* runs the output held before */
	int interrupted;
};

/*
 * Merge the @n databases @inputs into the database @out (created when
 * missing or empty, added to otherwise) and describe it in @info. Every
 * input must be a gpumix database of this schema version that passes
 * SQLite's quick_check. Fails, with a cause naming the input and @out
 * unchanged, when an input cannot be read or is damaged, has another
 * schema version, holds a different run of a (workload, variant, policy,
 * repetition)
 * that the output or an earlier input holds, a workload with another
 * program count, or a run with the same identity but other records.
 * Set @info->stop before (the rest of @info is filled). Returns 0 or -1.
 */
int gm_db_merge(const char *out, const char *const *inputs, size_t n,
		struct gm_merge_info *info);

#endif
