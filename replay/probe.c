/* SPDX-License-Identifier: MIT */
/*
 * The block probe in the replay (see probe.h): per program a device
 * buffer of records and the list of one replay's launches, per run the
 * records written so far (probe.bin, streamed) and every launch (written
 * as probe.tsv at the end, once CUPTI's correlation ids are known).
 */
#include "probe.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include <cupti.h>

#include "atomic_file.h"
#include "cu_check.h"
#include "error.h"
#include "fs.h"
#include "kvfile.h"
#include "profiler.h"
#include "replay_int.h"
#include "run_writer.h"
#include "strbuf.h"

/* One physical launch, a line of probe.tsv. */
struct probe_launch {
	unsigned program;
	unsigned replay;
	uint32_t launch;	/* launch id of the program's descriptor */
	uint64_t ext;		/* external correlation id */
	uint64_t host_ns;	/* gm_now() before the call */
	uint32_t phys[3], block[3];
	uint32_t offset, blocks;	/* the range of logical blocks */
	uint32_t records;	/* its records in probe.bin */
	uint64_t first;		/* its first record in the program's buffer */
	const char *why;	/* not probed: why (borrowed), NULL: probed */
	uint32_t corr;		/* CUPTI's, once known */
};

struct gm_probe_prog {
	CUdeviceptr dev;
	struct gm_probe_rec *host;	/* page-locked, the buffer's copy */
	uint64_t cap, used;	/* records */
	uint64_t need;		/* records one replay asks for */
	struct probe_launch *l;	/* this replay's */
	size_t nr, alloc;
	uint64_t seq;		/* launches so far (external ids) */
};

struct gm_probe_run {
	pthread_mutex_t lock;	/* everything below */
	struct atomic_file bin;
	int bin_open;
	struct probe_launch *l;	/* every launch, in probe.bin's order */
	size_t nr, alloc;
	uint64_t records, launches, probed, full, failed_copy;
	uint64_t back_ns;	/* copying back and writing */
	struct gm_elastic_reasons reasons;
};

/* Why a launch is not probed (static strings, or the reasons table's). */
static const char not_transformed[] = "not transformed (its code image has "
				      "no elastic version)";
static const char buffer_full[] = "the probe's buffer was full for this "
				  "replay";
static const char too_large[] = "a grid of 2^32 blocks or more";
static const char launch_failed[] = "the launch failed";

int gm_probe_run_init(struct gm_run *run)
{
	struct gm_probe_run *r;
	char *path;
	char head[GM_PROBE_HEADER_SIZE];
	uint32_t v = GM_PROBE_VERSION, size = GM_PROBE_REC_SIZE;

	if (run->opt.probe != GM_PROBE_BLOCKS) {
		return 0;
	}
	r = gm_xcalloc(1, sizeof(*r));
	run->probe = r;
	pthread_mutex_init(&r->lock, NULL);
	if (gm_elastic_reasons_read(&r->reasons, run->opt.data_dir) < 0 ||
	    gm_profiler_enable_external(&run->prof) < 0) {
		return -1;
	}
	path = gm_path_join(run->opt.run_dir, "probe.bin");
	if (atomic_file_open(&r->bin, path, 1) < 0) {
		free(path);
		return -1;
	}
	free(path);
	r->bin_open = 1;
	memcpy(head, GM_PROBE_MAGIC, 8);
	memcpy(head + 8, &v, 4);
	memcpy(head + 12, &size, 4);
	return atomic_file_write(&r->bin, head, sizeof(head));
}

/* Logical blocks of launch @l, 0 for a grid too large to probe. */
static uint64_t grid_blocks(const struct gm_launch_desc *l)
{
	uint64_t n = (uint64_t)l->grid[0] * l->grid[1] * l->grid[2];

	return n < UINT32_MAX ? n : 0;
}

int gm_probe_prog_init(struct gm_prog *p)
{
	const struct gm_program_desc *d = p->d;
	struct gm_probe_prog *pp;
	uint64_t need = 0;

	if (!p->run->probe) {
		return 0;
	}
	pp = gm_xcalloc(1, sizeof(*pp));
	p->probe = pp;
	for (uint64_t i = 0; i < d->nr_ops; i++) {
		const struct gm_op *op = &d->ops[i];
		const struct gm_launch_desc *l;
		if (op->code != GM_OP_LAUNCH || op->a >= d->nr_launches) {
			continue;
		}
		l = &d->launches[op->a];
		if (p->el_class && p->el_class[l->kernel] != GM_ELASTIC_NONE) {
			need += grid_blocks(l);
		}
	}
	pp->need = need;
	pp->cap = need < GM_PROBE_MAX_RECORDS ? need : GM_PROBE_MAX_RECORDS;
	if (!pp->cap) {
		return 0;
	}
	if (CU_CHECK(cuMemAlloc(&pp->dev, pp->cap * GM_PROBE_REC_SIZE)) ||
	    CU_CHECK(cuMemHostAlloc((void **)&pp->host,
				    pp->cap * GM_PROBE_REC_SIZE, 0)) ||
	    CU_CHECK(cuMemsetD8Async(pp->dev, 0, pp->cap * GM_PROBE_REC_SIZE,
				     p->aux_stream)) ||
	    CU_CHECK(cuStreamSynchronize(p->aux_stream))) {
		return gm_error("program '%s': cannot allocate the probe's "
				"buffer of %" PRIu64 " records", d->name,
				pp->cap);
	}
	if (pp->need > pp->cap) {
		gm_log(p->run, "replay: program '%s': the probe records %" PRIu64
		       " of the %" PRIu64 " blocks of each replay (the first "
		       "launches'); the others run unprobed", d->name, pp->cap,
		       pp->need);
	}
	return 0;
}

int gm_probe_replay_begin(struct gm_prog *p)
{
	struct gm_probe_prog *pp = p->probe;

	if (!pp) {
		return 0;
	}
	pp->nr = 0;
	if (!pp->used) {
		return 0;
	}
	if (CU_CHECK(cuMemsetD8Async(pp->dev, 0, pp->used * GM_PROBE_REC_SIZE,
				     p->aux_stream)) ||
	    CU_CHECK(cuStreamSynchronize(p->aux_stream))) {
		return -1;
	}
	pp->used = 0;
	return 0;
}

void gm_probe_before(struct gm_prog *p, uint32_t launch,
		     const uint32_t grid[3], const uint32_t block[3],
		     struct gm_elastic_args *a, struct gm_probe_slot *slot)
{
	struct gm_probe_prog *pp = p->probe;
	const struct gm_launch_desc *l = &p->d->launches[launch];
	struct probe_launch *e;

	slot->line = -1;
	slot->ext = 0;
	if (!pp) {
		return;
	}
	GM_ALLOC_GROW(pp->l, pp->nr + 1, pp->alloc);
	e = &pp->l[pp->nr];
	memset(e, 0, sizeof(*e));
	e->program = p->index;
	e->replay = p->replay;
	e->launch = launch;
	e->ext = ((uint64_t)(p->index + 1) << 40) | ++pp->seq;
	memcpy(e->phys, grid, sizeof(e->phys));
	memcpy(e->block, block, sizeof(e->block));
	if (!a) {
		const struct gm_kernel_desc *k = &p->d->kernels[l->kernel];
		e->blocks = (uint32_t)grid_blocks(l);
		e->why = gm_elastic_reason(&p->run->probe->reasons,
					   p->d->modules[k->module].hash,
					   k->name);
		if (!e->why) {
			e->why = not_transformed;
		}
	} else {
		uint64_t total = (uint64_t)a->grid[0] * a->grid[1] * a->grid[2];
		uint64_t n = a->offset >= total ? 0 : total - a->offset;
		if (a->limit < n) {
			n = a->limit;
		}
		e->offset = a->offset;
		e->blocks = (uint32_t)n;
		if (total >= UINT32_MAX) {
			e->why = too_large;
		} else if (pp->used + n > pp->cap) {
			e->why = buffer_full;
		} else {
			e->first = pp->used;
			e->records = (uint32_t)n;
			pp->used += n;
			a->probe = pp->dev + e->first * GM_PROBE_REC_SIZE;
			a->probe_cap = (uint32_t)n;
		}
	}
	slot->line = (int)pp->nr++;
	slot->ext = e->ext;
	if (p->run->prof.external) {
		cuptiActivityPushExternalCorrelationId(
			CUPTI_EXTERNAL_CORRELATION_KIND_CUSTOM0, e->ext);
	}
	e->host_ns = gm_now();
}

void gm_probe_after(struct gm_prog *p, const struct gm_probe_slot *slot,
		    int failed)
{
	struct gm_probe_prog *pp = p->probe;
	uint64_t id;

	if (!pp || slot->line < 0) {
		return;
	}
	if (p->run->prof.external) {
		cuptiActivityPopExternalCorrelationId(
			CUPTI_EXTERNAL_CORRELATION_KIND_CUSTOM0, &id);
	}
	if (failed) {
		/* Its slots stay zero in the buffer; no records for it. */
		pp->l[slot->line].records = 0;
		pp->l[slot->line].why = launch_failed;
	}
}

int gm_probe_replay_end(struct gm_prog *p)
{
	struct gm_probe_prog *pp = p->probe;
	struct gm_probe_run *r = p->run->probe;
	uint64_t t0 = gm_now(), base;
	int ret = 0;

	if (!pp) {
		return 0;
	}
	/* Page-locked: a pageable copy would hold the context's lock. */
	if (pp->used &&
	    (CU_CHECK(cuMemcpyDtoHAsync(pp->host, pp->dev,
					pp->used * GM_PROBE_REC_SIZE,
					p->aux_stream)) ||
	     CU_CHECK(cuStreamSynchronize(p->aux_stream)))) {
		return gm_error("program '%s': cannot copy the probe's records "
				"of replay %u back", p->d->name, p->replay);
	}
	pthread_mutex_lock(&r->lock);
	base = r->records;
	for (size_t i = 0; i < pp->nr; i++) {
		struct probe_launch *e = &pp->l[i];
		if (e->records &&
		    atomic_file_write(&r->bin, pp->host + e->first,
				      (size_t)e->records * GM_PROBE_REC_SIZE) < 0) {
			ret = -1;
			break;
		}
		r->records += e->records;
		r->probed += e->records != 0;
		r->full += e->why == buffer_full;
		e->first = base;	/* now: its first record in the run */
		base += e->records;
		GM_ALLOC_GROW(r->l, r->nr + 1, r->alloc);
		r->l[r->nr++] = *e;
	}
	r->launches += pp->nr;
	r->back_ns += gm_now() - t0;
	pthread_mutex_unlock(&r->lock);
	pp->nr = 0;
	if (ret < 0) {
		return gm_error("cannot write the probe's records");
	}
	return 0;
}

void gm_probe_prog_release(struct gm_prog *p)
{
	struct gm_probe_prog *pp = p->probe;

	if (!pp) {
		return;
	}
	if (pp->dev) {
		cuMemFree(pp->dev);
	}
	if (pp->host) {
		cuMemFreeHost(pp->host);
	}
	free(pp->l);
	free(pp);
	p->probe = NULL;
}

/* ---- writing ---- */

struct ext_map {
	struct probe_launch **by_ext;	/* sorted by ext */
	size_t nr;
	uint64_t found;
};

static int cmp_ext(const void *a, const void *b)
{
	const struct probe_launch *x = *(struct probe_launch *const *)a;
	const struct probe_launch *y = *(struct probe_launch *const *)b;

	return x->ext < y->ext ? -1 : x->ext > y->ext;
}

static void on_ext(void *ctx, uint64_t ext, uint32_t corr)
{
	struct ext_map *m = ctx;
	size_t lo = 0, hi = m->nr;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (m->by_ext[mid]->ext < ext) {
			lo = mid + 1;
		} else {
			hi = mid;
		}
	}
	if (lo < m->nr && m->by_ext[lo]->ext == ext) {
		m->by_ext[lo]->corr = corr;
		m->found++;
	}
}

static void format_line(struct strbuf *sb, const struct gm_run *run,
			const struct probe_launch *e)
{
	const struct gm_program_desc *d = run->w->programs[e->program];
	const struct gm_launch_desc *l = &d->launches[e->launch];

	gm_run_escape(sb, d->name);
	strbuf_addf(sb, "\t%u\t%" PRIu32 "\t%" PRIu64 "\t", e->replay, e->corr,
		    e->host_ns);
	gm_run_escape(sb, d->kernels[l->kernel].name);
	strbuf_addf(sb, "\t%u\t%u\t%u\t%u\t%u\t%u\t%u\t%u\t%u\t%" PRIu32
		    "\t%" PRIu32 "\t%" PRIu32 "\t", l->grid[0], l->grid[1],
		    l->grid[2], e->block[0], e->block[1], e->block[2],
		    e->phys[0], e->phys[1], e->phys[2], e->offset, e->blocks,
		    e->records);
	if (e->why) {
		gm_run_escape(sb, e->why);
	} else {
		strbuf_addch(sb, '-');
	}
	strbuf_addch(sb, '\n');
}

int gm_probe_write(struct gm_run *run, struct profiler *pr)
{
	struct gm_probe_run *r = run->probe;
	struct strbuf sb = STRBUF_INIT;
	struct ext_map m = { 0 };
	char *path;
	int ret = 0;

	if (!r) {
		return 0;
	}
	pthread_mutex_lock(&r->lock);
	if (pr->external && r->nr) {
		m.by_ext = gm_xcalloc(r->nr, sizeof(*m.by_ext));
		for (size_t i = 0; i < r->nr; i++) {
			m.by_ext[i] = &r->l[i];
		}
		m.nr = r->nr;
		qsort(m.by_ext, m.nr, sizeof(*m.by_ext), cmp_ext);
		gm_profiler_external_ids(pr, on_ext, &m);
		free(m.by_ext);
		if (m.found < r->nr) {
			gm_log(run, "replay: probe: %" PRIu64 " of %zu launches "
			       "have no CUPTI correlation id (correlationId 0 "
			       "in probe.tsv)", r->nr - m.found, r->nr);
		}
	}
	strbuf_addstr(&sb, GM_PROBE_TSV_HEADER "\n");
	for (size_t i = 0; i < r->nr; i++) {
		format_line(&sb, run, &r->l[i]);
	}
	strbuf_addf(&sb, "END\t%zu\t%" PRIu64 "\n", r->nr, r->records);
	path = gm_path_join(run->opt.run_dir, "probe.tsv");
	if (gm_write_file_atomic(path, sb.buf, sb.len, 1) < 0) {
		ret = -1;
	}
	free(path);
	if (r->bin_open) {
		r->bin_open = 0;
		if (ret < 0) {
			atomic_file_abort(&r->bin);
		} else if (atomic_file_commit(&r->bin) < 0) {
			ret = -1;
		}
	}
	pthread_mutex_unlock(&r->lock);
	strbuf_release(&sb);
	return ret;
}

void gm_probe_manifest(struct gm_run *run, struct kvfile *kv)
{
	struct gm_probe_run *r = run->probe;

	if (!r) {
		return;
	}
	pthread_mutex_lock(&r->lock);
	kvfile_set(kv, "probe", "blocks");
	kvfile_set_u64(kv, "probe.launches", r->launches);
	kvfile_set_u64(kv, "probe.probed_launches", r->probed);
	kvfile_set_u64(kv, "probe.full_launches", r->full);
	kvfile_set_u64(kv, "probe.records", r->records);
	kvfile_set_u64(kv, "probe.copy_ns", r->back_ns);
	pthread_mutex_unlock(&r->lock);
}

void gm_probe_run_release(struct gm_run *run)
{
	struct gm_probe_run *r = run->probe;

	if (!r) {
		return;
	}
	if (r->bin_open) {
		atomic_file_abort(&r->bin);
	}
	gm_elastic_reasons_release(&r->reasons);
	free(r->l);
	pthread_mutex_destroy(&r->lock);
	free(r);
	run->probe = NULL;
}
