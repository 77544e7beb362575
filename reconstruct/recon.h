/* SPDX-License-Identifier: MIT */
/*
 * Reconstructing a workload: the bundles of n programs, read one after
 * another with the strict bundle reader (trace_reader.h) and fed into one
 * replay model (bundle_feed.h, model.h), which is then finished. What
 * `gpumix reconstruct` does before it writes the output directory
 * (recon_dir.h).
 *
 * Each bundle is one program, named after the bundle directory's base
 * name (the manifest's program name when the path has none); a name
 * that N > 1 bundles share (the same bundle given N times: N copies of
 * one program) names their instances NAME#1 ... NAME#N in order
 * (common/instance_name.h).
 */
#ifndef GM_RECON_H
#define GM_RECON_H

#include <stddef.h>
#include <stdint.h>

struct model;
struct strbuf;

struct recon_opts {
	/*
	 * The generated program's default variant (a name of the variant
	 * table, common/variant.h); NULL: recon_default_variant(). Only a
	 * default: `gpumix replay --variant` chooses again, the program is
	 * the same for every variant.
	 */
	const char *variant;
	int allow_unsupported;		/* skip calls the model cannot replay */
	int allow_failed_calls;		/* a program whose calls failed with
					 * errors (common/cu_result.h) */
	const char *const *nondeterministic;	/* program names */
	size_t nr_nondeterministic;
	/*
	 * Called now and then while bundle @index (0-based) is read: its
	 * program name, events read so far and the manifest's total (0 when
	 * unknown). Returning non-zero stops the reconstruct ("interrupted").
	 * May be NULL.
	 */
	int (*progress)(void *ctx, size_t index, const char *prog,
			uint64_t done, uint64_t total);
	void *progress_ctx;
};

struct recon_stats {
	size_t programs;
	uint64_t events;	/* events read, all bundles */
	uint64_t calls;		/* driver calls */
	uint64_t failed;	/* calls that returned an error (skipped) */
	uint64_t unsupported;
	uint64_t ops;		/* operations in the model */
	uint64_t launches;
	double read_s;		/* reading and feeding the bundles */
	double finish_s;	/* model_finish() */
};

/* The default variant of a generated program when none is given: the
 * table's comparison baseline (GM_VARIANT_REFERENCE, cuda). */
const char *recon_default_variant(void);

/*
 * Check that @variant can be a generated program's default variant: an
 * implemented variant of the table. Returns 0, or -1 with a cause naming
 * the implemented variants.
 */
int recon_variant_check(const char *variant);

/*
 * Build the finished model of the workload of bundles @bundles[0..@nr)
 * into *@out (free with model_free()). Warnings (one line each, for
 * stderr) are appended to @report. Fails, with a cause and *@out NULL,
 * when @o->variant fails recon_variant_check(), a bundle cannot be read
 * (unknown format, incomplete, lossy,
 * corrupt), a program's own calls failed with an error a working program
 * does not meet and @o->allow_failed_calls is off, a call cannot be replayed faithfully, a --nondeterministic
 * name is not a program, or the bundles hold unsupported calls and
 * @o->allow_unsupported is off (they are then listed in @report as
 * "unsupported: program 'P': event N: NAME" lines). @st may be NULL.
 */
int recon_build(struct model **out, const char *const *bundles, size_t nr,
		const struct recon_opts *o, struct strbuf *report,
		struct recon_stats *st);

/*
 * The program name for bundle directory @bundle: its base name without
 * trailing slashes, or @manifest_program's base name when that is empty
 * or "." or "..", or "program". Newly allocated.
 */
char *recon_program_name(const char *bundle, const char *manifest_program);

#endif
