/* SPDX-License-Identifier: MIT */
/*
 * The green scheduler (variant green): the cuda variant with each program
 * confined to its own SM partition, a CUDA green context (doc/green.md).
 *
 * run_init reads the device's SM resource, splits it once into groups of
 * the smallest size the driver allows (cuDevSmResourceSplitByCount with
 * the resource's minSmPartitionSize; the driver rounds and aligns it, so
 * the group size is read back from what it made, never assumed: 8 SMs on
 * an H100) plus a remainder, gives each program whole groups
 * (common/sm_share.c: equal by default, or --sm-share), and makes each
 * program's green context from a descriptor of its groups (groups of one
 * split may be combined in one descriptor). The remainder is left unused.
 *
 * A program's thread makes its green context current (as a CUcontext,
 * cuCtxFromGreenCtx) before it loads anything, and its streams come from
 * cuGreenCtxStreamCreate: kernels resolved with cuKernelGetFunction in
 * that thread belong to the green context, so launches run on its SMs.
 * Modules are libraries (cuLibraryLoadData), loaded independently of any
 * context. Memory is the primary context's: a green context converted
 * with cuCtxFromGreenCtx is the primary context with the green context's
 * resources, so allocations and host-pinned memory are visible from every
 * partition. Everything else is the serial scheduler's.
 */
#include <inttypes.h>
#include <string.h>

#include "cu_check.h"
#include "error.h"
#include "kvfile.h"
#include "replay_int.h"
#include "sched.h"
#include "sm_share.h"
#include "strbuf.h"

struct green_part {
	CUgreenCtx green;
	CUcontext ctx;			/* cuCtxFromGreenCtx(green) */
	unsigned groups;		/* split groups it was given */
	unsigned sms;			/* its SM count, as the driver says */
};

struct green_run {
	struct green_part *parts;	/* per program */
	unsigned nr_parts;
	unsigned sm_count, min_sms, alignment;	/* the device's resource */
	unsigned group_sms, nr_groups, remainder;	/* the split */
	char *share;			/* --sm-share, NULL: equal */
	const char *scale;		/* --scale (scaled partitions) */
};

/* Split the device's SMs into the most groups of the smallest size. */
static int split_device(struct gm_run *run, struct green_run *r,
			CUdevResource **groups_out)
{
	CUdevResource dev, rem;
	CUdevResource *groups;
	unsigned want, nb;

	*groups_out = NULL;
	if (CU_CHECK(cuDeviceGetDevResource(run->dev, &dev,
					    CU_DEV_RESOURCE_TYPE_SM))) {
		return gm_error("cannot read the device's SM resource (green "
				"contexts need CUDA 12.4 and a Volta or newer "
				"GPU)");
	}
	r->sm_count = dev.sm.smCount;
	r->min_sms = dev.sm.minSmPartitionSize;
	r->alignment = dev.sm.smCoscheduledAlignment;
	want = r->min_sms ? r->min_sms : 1;
	nb = r->sm_count / want;
	if (!nb) {
		return gm_error("the device's %u SMs are fewer than its smallest "
				"green partition (%u SMs)", r->sm_count, want);
	}
	groups = gm_xcalloc(nb, sizeof(*groups));
	memset(&rem, 0, sizeof(rem));
	if (CU_CHECK(cuDevSmResourceSplitByCount(groups, &nb, &dev, &rem, 0,
						 want))) {
		free(groups);
		return gm_error("cannot split the device's %u SMs into groups "
				"of %u", r->sm_count, want);
	}
	r->nr_groups = nb;
	r->group_sms = nb ? groups[0].sm.smCount : 0;
	r->remainder = rem.type == CU_DEV_RESOURCE_TYPE_SM ? rem.sm.smCount : 0;
	for (unsigned g = 1; g < nb; g++) {
		if (groups[g].sm.smCount != r->group_sms) {
			free(groups);
			return gm_error("the driver split the SMs into groups of "
					"%u and %u SMs; green partitions need "
					"groups of one size", r->group_sms,
					groups[g].sm.smCount);
		}
	}
	*groups_out = groups;
	return 0;
}

/* Make program @i's green context from @n groups at @groups. */
static int make_part(struct gm_run *run, struct green_part *part,
		     CUdevResource *groups, unsigned n, const char *name)
{
	CUdevResourceDesc desc;
	CUdevResource res;

	if (CU_CHECK(cuDevResourceGenerateDesc(&desc, groups, n)) ||
	    CU_CHECK(cuGreenCtxCreate(&part->green, desc, run->dev,
				      CU_GREEN_CTX_DEFAULT_STREAM))) {
		return gm_error("cannot make the green context of program '%s' "
				"(%u groups)", name, n);
	}
	if (CU_CHECK(cuCtxFromGreenCtx(&part->ctx, part->green)) ||
	    CU_CHECK(cuGreenCtxGetDevResource(part->green, &res,
					      CU_DEV_RESOURCE_TYPE_SM))) {
		return gm_error("cannot use the green context of program '%s'",
				name);
	}
	part->groups = n;
	part->sms = res.sm.smCount;
	return 0;
}

static int green_run_init(struct gm_run *run)
{
	const struct gm_workload_desc *w = run->w;
	struct green_run *r = gm_xcalloc(1, sizeof(*r));
	struct gm_sm_share share = GM_SM_SHARE_INIT;
	CUdevResource *groups = NULL;
	const char **names = gm_xcalloc(w->nr_programs + 1, sizeof(*names));
	unsigned *given = gm_xcalloc(w->nr_programs + 1, sizeof(*given));
	struct strbuf sb = STRBUF_INIT;
	unsigned next = 0;
	int ret = -1;

	run->sched_state = r;
	r->parts = gm_xcalloc(w->nr_programs, sizeof(*r->parts));
	for (unsigned i = 0; i < w->nr_programs; i++) {
		names[i] = w->programs[i]->name;
	}
	if (run->opt.sm_share) {
		r->share = gm_xstrdup(run->opt.sm_share);
		if (gm_sm_share_parse(&share, run->opt.sm_share) < 0) {
			goto out;
		}
		/* A study names the programs of all its workloads. */
		for (size_t s = 0; s < share.nr; s++) {
			unsigned i = 0;
			while (i < w->nr_programs &&
			       strcmp(names[i], share.items[s].program)) {
				i++;
			}
			if (i == w->nr_programs && gm_debug_on()) {
				gm_log(run, "replay: green: workload '%s' has no "
				       "program '%s' (--sm-share)", w->name,
				       share.items[s].program);
			}
		}
	}
	if (split_device(run, r, &groups) < 0) {
		goto out;
	}
	if (run->opt.scale_path) {
		/* Janzén et al.: each program the SMs where its curve
		 * flattens. */
		unsigned *knee = gm_xcalloc(w->nr_programs + 1, sizeof(*knee));
		int bad;
		r->scale = run->opt.scale_path;
		bad = gm_sm_knees_read(r->scale, names, w->nr_programs,
				       r->sm_count, knee) < 0 ||
		      gm_sm_partition_scaled(knee, w->nr_programs,
					     r->nr_groups, r->group_sms,
					     given) < 0;
		free(knee);
		if (bad) {
			goto out;
		}
	} else if (gm_sm_partition(&share, names, w->nr_programs,
				   r->nr_groups, r->group_sms, r->sm_count,
				   given) < 0) {
		goto out;
	}
	for (unsigned i = 0; i < w->nr_programs; i++) {
		if (make_part(run, &r->parts[i], groups + next, given[i],
			      names[i]) < 0) {
			goto out;
		}
		r->nr_parts = i + 1;
		next += given[i];
		run->progs[i].ctx = r->parts[i].ctx;
		run->progs[i].sched_state = &r->parts[i];
		strbuf_addf(&sb, "%s%s %u", i ? ", " : "", names[i],
			    r->parts[i].sms);
	}
	gm_log(run, "replay: green: %u SMs split into %u partitions of %u "
	       "(minimum %u, alignment %u) and a remainder of %u; SMs per "
	       "program: %s", r->sm_count, r->nr_groups, r->group_sms,
	       r->min_sms, r->alignment, r->remainder, sb.buf);
	ret = 0;
out:
	if (ret < 0) {
		gm_error("cannot make the green contexts of workload '%s'",
			 w->name);
	}
	strbuf_release(&sb);
	gm_sm_share_release(&share);
	free(groups);
	free(names);
	free(given);
	return ret;
}

static int green_stream_create(struct gm_prog *p, CUstream *out, int priority)
{
	const struct green_part *part = p->sched_state;

	return CU_CHECK(cuGreenCtxStreamCreate(out, part->green,
					       CU_STREAM_NON_BLOCKING,
					       priority));
}

static void green_manifest(struct gm_run *run, struct kvfile *kv)
{
	const struct green_run *r = run->sched_state;

	if (!r) {
		return;
	}
	kvfile_set_u64(kv, "green.sm_count", r->sm_count);
	kvfile_set_u64(kv, "green.min_partition", r->min_sms);
	kvfile_set_u64(kv, "green.alignment", r->alignment);
	kvfile_set_u64(kv, "green.group_sms", r->group_sms);
	kvfile_set_u64(kv, "green.groups", r->nr_groups);
	kvfile_set_u64(kv, "green.remainder", r->remainder);
	kvfile_set(kv, "green.sm_share", r->scale ? "scaled" :
					 r->share ? r->share : "equal");
	if (r->scale) {
		kvfile_set(kv, "green.scale", r->scale);
	}
	for (unsigned i = 0; i < r->nr_parts; i++) {
		char key[64];
		snprintf(key, sizeof(key), "program.%u.sm_count", i);
		kvfile_set_u64(kv, key, r->parts[i].sms);
	}
}

static void green_run_release(struct gm_run *run)
{
	struct green_run *r = run->sched_state;

	if (!r) {
		return;
	}
	/* The programs' streams are gone (gm_prog_cleanup). */
	for (unsigned i = 0; i < r->nr_parts; i++) {
		cuGreenCtxDestroy(r->parts[i].green);
	}
	free(r->parts);
	free(r->share);
	free(r);
	run->sched_state = NULL;
}

const struct gm_sched gm_sched_green = {
	.name = "green",
	.run_init = green_run_init,
	.exec = gm_serial_exec,
	.drain = gm_serial_drain,
	.replay_end = gm_serial_replay_end,
	.manifest = green_manifest,
	.run_release = green_run_release,
	.nr_streams = gm_serial_nr_streams,
	.stream_create = green_stream_create,
};
