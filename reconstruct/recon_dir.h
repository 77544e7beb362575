/* SPDX-License-Identifier: MIT */
/*
 * The reconstruct output directory: everything `gpumix replay` needs to
 * build and run a workload, and nothing else.
 *
 *   DIR/manifest   format "gpumix-replay-src 1", workload, variant (the
 *                  default; `gpumix replay --variant` chooses), programs,
 *                  program.<i>.{name,bundle,deterministic,ops}
 *   DIR/replay.c   the generated program (codegen.h)
 *   DIR/blobs/     host-to-device data, by content hash
 *   DIR/modules/   code images (fatbins, cubins, PTX), by content hash
 *   DIR/elastic/   with --elastic: the elastic modules (recon_elastic.h);
 *                  the manifest then says "elastic = 1"
 *
 * It is written under a temporary name next to DIR and renamed into
 * place, so a half-written directory never appears as DIR.
 */
#ifndef GM_RECON_DIR_H
#define GM_RECON_DIR_H

#define RECON_FORMAT "gpumix-replay-src 1"

struct model;
struct strbuf;
struct recon_elastic_opts;
struct recon_elastic_stats;

struct recon_dir_opts {
	int force;		/* replace an existing directory */
	/* Non-NULL: also write elastic/ (recon_elastic.h); its report
	 * lines go to @report, its counts to @elastic_stats (may be NULL). */
	const struct recon_elastic_opts *elastic;
	struct strbuf *report;
	struct recon_elastic_stats *elastic_stats;
};

/*
 * Write finished model @m to @dir. An existing @dir is replaced only with
 * @o->force (@o may be NULL: no force, no elastic modules). Blob and module files are hard-linked from their source when
 * possible, copied otherwise (sizes are checked here, content hashes when
 * the replay loads them). Returns
 * 0 or -1 (cause recorded).
 */
int recon_dir_write(const struct model *m, const char *dir,
		    const struct recon_dir_opts *o);

#endif
