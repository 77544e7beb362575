/* SPDX-License-Identifier: MIT */
/*
 * SM shares of the green variant (doc/green.md): which part of the GPU's
 * SMs each program's green context gets, as the user writes it
 * (`--sm-share bfs=50%,lbm=32`, or the study's `sm_share` map), and the
 * arithmetic that turns it into whole partition groups. The driver splits
 * the device's SMs into groups of one size (the granularity, 8 SMs on an
 * H100, read from the device, never assumed) plus a remainder; each
 * program gets a number of whole groups. Pure arithmetic: no CUDA here,
 * so every rule is unit-tested on a CPU.
 */
#ifndef GM_SM_SHARE_H
#define GM_SM_SHARE_H

#include <stddef.h>

struct gm_sm_share_item {
	char *program;
	double value;		/* SMs, or percent of the device's SMs */
	int percent;		/* value is a percentage */
};

struct gm_sm_share {
	struct gm_sm_share_item *items;
	size_t nr, alloc;
};

#define GM_SM_SHARE_INIT { NULL, 0, 0 }

/*
 * Parse @spec, "PROGRAM=SHARE[,PROGRAM=SHARE...]" where SHARE is a count
 * of SMs ("32") or a percentage of the device's SMs ("50%", "12.5%"),
 * into @s (released first). Fails, with a cause naming the bad item and
 * @s empty, on an empty or malformed item, a share of 0, a percentage
 * over 100 or a program named twice.
 */
int gm_sm_share_parse(struct gm_sm_share *s, const char *spec);

/* Free @s's items; @s is empty after. */
void gm_sm_share_release(struct gm_sm_share *s);

/* The share given for @program, or NULL. */
const struct gm_sm_share_item *gm_sm_share_find(const struct gm_sm_share *s,
						const char *program);

/* The canonical "PROGRAM=SHARE,..." of @s (the caller frees it). */
char *gm_sm_share_format(const struct gm_sm_share *s);

/*
 * Give each of the @n programs called @programs[i] a number of groups
 * (@groups_out[i]) out of the @nr_groups groups of @group_sms SMs a
 * device of @sm_count SMs splits into. A program with a share gets the
 * whole number of groups nearest to it (at least one); the programs
 * without one get equal parts of the groups left (the same number each;
 * what does not divide stays unused). Shares for programs not among
 * @programs are ignored (a study names the programs of all its
 * workloads). An instance "lbm#2" of a program with copies
 * (common/instance_name.h) takes "lbm"'s share unless @s names it
 * exactly. Fails, with a cause giving the sizes in SMs, when the
 * shares need more groups than there are, or when a program would get
 * no group.
 */
int gm_sm_partition(const struct gm_sm_share *s, const char *const *programs,
		    unsigned n, unsigned nr_groups, unsigned group_sms,
		    unsigned sm_count, unsigned *groups_out);

/*
 * The `scaled` partitions (Janzén et al.): program i wants @want_sms[i]
 * SMs, the knee of its scalability curve (gpumix scale), i.e. the whole
 * groups that hold it (at least one). When they do not all fit in
 * @nr_groups, each is shrunk in proportion (rounded down, at least one
 * group; the largest give up groups first if that is still too many).
 * Groups nobody wants stay unused: past its knee a program gains under
 * 5%. Fails when there are more programs than groups.
 */
int gm_sm_partition_scaled(const unsigned *want_sms, unsigned n,
			   unsigned nr_groups, unsigned group_sms,
			   unsigned *groups_out);

/*
 * Read the knees file of `gpumix scale` (@path, "program,kernel,
 * knee_sms,full_sms,full_ms", the program's row has an empty kernel) and
 * give, for each of the @n programs @programs[i], its knee in
 * @knee_out[i] (an instance "lbm#2" the knee of "lbm"). Fails, with a
 * cause naming the file, when it cannot be
 * read, is malformed, lacks one of the programs, or was measured on a
 * device whose whole GPU is not @sm_count SMs.
 */
int gm_sm_knees_read(const char *path, const char *const *programs,
		     unsigned n, unsigned sm_count, unsigned *knee_out);

#endif
