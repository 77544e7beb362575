/* SPDX-License-Identifier: MIT */
/*
 * SM shares and partition arithmetic of the green variant (see
 * sm_share.h).
 */
#include "sm_share.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "error.h"
#include "fs.h"
#include "instance_name.h"
#include "strbuf.h"

void gm_sm_share_release(struct gm_sm_share *s)
{
	for (size_t i = 0; i < s->nr; i++) {
		free(s->items[i].program);
	}
	free(s->items);
	s->items = NULL;
	s->nr = s->alloc = 0;
}

const struct gm_sm_share_item *gm_sm_share_find(const struct gm_sm_share *s,
						const char *program)
{
	for (size_t i = 0; s && i < s->nr; i++) {
		if (!strcmp(s->items[i].program, program)) {
			return &s->items[i];
		}
	}
	return NULL;
}

static int parse_item(struct gm_sm_share_item *it, const char *item,
		      size_t len)
{
	const char *eq = memchr(item, '=', len);
	char *val, *end;
	double v;
	int ret = 0;

	if (!eq || eq == item || eq == item + len - 1) {
		return gm_error("SM share '%.*s' is not PROGRAM=SMS or "
				"PROGRAM=PERCENT%%", (int)len, item);
	}
	val = gm_xasprintf("%.*s", (int)(item + len - eq - 1), eq + 1);
	it->percent = val[strlen(val) - 1] == '%';
	if (it->percent) {
		val[strlen(val) - 1] = 0;
	}
	v = strtod(val, &end);
	if (!*val || *end || !(v > 0) || isinf(v) ||
	    (it->percent && v > 100) ||
	    (!it->percent && (v != floor(v) || v > 1e6))) {
		ret = gm_error("SM share '%.*s': the share must be a whole "
			       "number of SMs (1 or more) or a percentage "
			       "above 0 and up to 100%%", (int)len, item);
	}
	free(val);
	if (!ret) {
		it->value = v;
		it->program = gm_xasprintf("%.*s", (int)(eq - item), item);
	}
	return ret;
}

int gm_sm_share_parse(struct gm_sm_share *s, const char *spec)
{
	const char *p = spec;

	gm_sm_share_release(s);
	if (!spec || !*spec) {
		return gm_error("an SM share list is empty (PROGRAM=SMS or "
				"PROGRAM=PERCENT%%, separated by commas)");
	}
	for (;;) {
		size_t len = strcspn(p, ",");
		struct gm_sm_share_item it = { 0 };

		if (parse_item(&it, p, len) < 0) {
			gm_sm_share_release(s);
			return -1;
		}
		if (gm_sm_share_find(s, it.program)) {
			gm_error("SM share: program '%s' is named twice",
				 it.program);
			free(it.program);
			gm_sm_share_release(s);
			return -1;
		}
		GM_ALLOC_GROW(s->items, s->nr + 1, s->alloc);
		s->items[s->nr++] = it;
		if (!p[len]) {
			break;
		}
		p += len + 1;
	}
	return 0;
}

char *gm_sm_share_format(const struct gm_sm_share *s)
{
	struct strbuf sb = STRBUF_INIT;

	for (size_t i = 0; i < s->nr; i++) {
		strbuf_addf(&sb, "%s%s=%.10g%s", i ? "," : "",
			    s->items[i].program, s->items[i].value,
			    s->items[i].percent ? "%" : "");
	}
	return strbuf_detach(&sb, NULL);
}

/* Whole groups nearest to a share (halves round up), at least one. */
static unsigned share_groups(const struct gm_sm_share_item *it,
			     unsigned group_sms, unsigned sm_count)
{
	double sms = it->percent ? it->value * sm_count / 100.0 : it->value;
	double g = floor(sms / group_sms + 0.5);

	if (g < 1) {
		return 1;
	}
	return g > 1e6 ? 1000000u : (unsigned)g;
}

/* The share of @program: its own, else that of the program it is an
 * instance of ("lbm" for "lbm#2", common/instance_name.h). */
static const struct gm_sm_share_item *share_of(const struct gm_sm_share *s,
					       const char *program)
{
	const struct gm_sm_share_item *it = gm_sm_share_find(s, program);

	for (size_t i = 0; !it && s && i < s->nr; i++) {
		if (gm_instance_of(program, s->items[i].program)) {
			it = &s->items[i];
		}
	}
	return it;
}

int gm_sm_partition(const struct gm_sm_share *s, const char *const *programs,
		    unsigned n, unsigned nr_groups, unsigned group_sms,
		    unsigned sm_count, unsigned *groups_out)
{
	unsigned long used = 0;
	unsigned unnamed = 0;

	if (!n) {
		return 0;
	}
	if (!nr_groups || !group_sms) {
		return gm_error("the device's %u SMs give no partition", sm_count);
	}
	for (unsigned i = 0; i < n; i++) {
		const struct gm_sm_share_item *it = share_of(s, programs[i]);
		groups_out[i] = it ? share_groups(it, group_sms, sm_count) : 0;
		used += groups_out[i];
		unnamed += !it;
	}
	if (used > nr_groups || (unnamed && used + unnamed > nr_groups)) {
		struct strbuf sb = STRBUF_INIT;
		for (unsigned i = 0; i < n; i++) {
			if (groups_out[i]) {
				strbuf_addf(&sb, "%s'%s' %lu", sb.len ? " + " : "",
					    programs[i],
					    (unsigned long)groups_out[i] *
						    group_sms);
			}
		}
		if (unnamed) {
			strbuf_addf(&sb, "%s%u other program%s at least %u "
				    "each", sb.len ? " + " : "", unnamed,
				    unnamed == 1 ? "" : "s", group_sms);
		}
		gm_error("the SM shares do not fit: %s SMs, but the device "
			 "has %u partitions of %u SMs (%u SMs, %u of them in "
			 "the remainder)", sb.buf, nr_groups, group_sms,
			 sm_count, sm_count - nr_groups * group_sms);
		gm_error_hint("shares are rounded to whole partitions of %u "
			      "SMs; give smaller ones", group_sms);
		strbuf_release(&sb);
		return -1;
	}
	if (unnamed) {
		unsigned each = (unsigned)((nr_groups - used) / unnamed);
		for (unsigned i = 0; i < n; i++) {
			if (!groups_out[i]) {
				groups_out[i] = each;
			}
		}
	}
	return 0;
}

int gm_sm_partition_scaled(const unsigned *want_sms, unsigned n,
			   unsigned nr_groups, unsigned group_sms,
			   unsigned *groups_out)
{
	unsigned long sum = 0;

	if (!n) {
		return 0;
	}
	if (!group_sms || n > nr_groups) {
		return gm_error("cannot give each of %u programs a partition: "
				"the device has %u partitions of %u SMs", n,
				nr_groups, group_sms);
	}
	for (unsigned i = 0; i < n; i++) {
		groups_out[i] = (want_sms[i] + group_sms - 1) / group_sms;
		if (!groups_out[i]) {
			groups_out[i] = 1;
		}
		sum += groups_out[i];
	}
	if (sum <= nr_groups) {
		return 0;
	}
	{
		unsigned long total = 0;
		for (unsigned i = 0; i < n; i++) {
			unsigned g = (unsigned)((unsigned long)groups_out[i] *
						nr_groups / sum);
			groups_out[i] = g ? g : 1;
			total += groups_out[i];
		}
		while (total > nr_groups) {
			unsigned big = 0;
			for (unsigned i = 1; i < n; i++) {
				if (groups_out[i] > groups_out[big]) {
					big = i;
				}
			}
			groups_out[big]--;
			total--;
		}
	}
	return 0;
}

int gm_sm_knees_read(const char *path, const char *const *programs,
		     unsigned n, unsigned sm_count, unsigned *knee_out)
{
	struct strbuf sb = STRBUF_INIT;
	char *line, *save = NULL;
	unsigned lineno = 0;
	unsigned char *found = gm_xcalloc(n + 1, 1);
	int ret = -1;

	if (gm_read_file(path, &sb) < 0) {
		goto out;
	}
	for (line = strtok_r(sb.buf, "\n", &save); line;
	     line = strtok_r(NULL, "\n", &save)) {
		char prog[256], kernel[1024];
		unsigned knee, full;
		int used = 0;

		lineno++;
		if (lineno == 1) {
			if (strcmp(line, "program,kernel,knee_sms,full_sms,"
				   "full_ms")) {
				gm_error("'%s' is not a knees file of gpumix "
					 "scale (its first line is not "
					 "program,kernel,knee_sms,full_sms,"
					 "full_ms)", path);
				goto out;
			}
			continue;
		}
		kernel[0] = 0;
		if (sscanf(line, "%255[^,],,%u,%u,%*f%n", prog, &knee, &full,
			   &used) != 3 || line[used]) {
			if (sscanf(line, "%255[^,],%1023[^,],%u,%u,%*f%n", prog,
				   kernel, &knee, &full, &used) == 4 &&
			    !line[used]) {
				continue;	/* a kernel's row */
			}
			gm_error("%s:%u: malformed line", path, lineno);
			goto out;
		}
		for (unsigned i = 0; i < n; i++) {
			if (gm_instance_of(programs[i], prog)) {
				if (full != sm_count) {
					gm_error("%s:%u: '%s' was measured on a "
						 "GPU of %u SMs, this one has "
						 "%u", path, lineno, prog, full,
						 sm_count);
					goto out;
				}
				knee_out[i] = knee;
				found[i] = 1;
			}
		}
	}
	for (unsigned i = 0; i < n; i++) {
		if (!found[i]) {
			gm_error("'%s' has no curve of program '%s'", path,
				 programs[i]);
			gm_error_hint("run gpumix scale on its bundle");
			goto out;
		}
	}
	ret = 0;
out:
	strbuf_release(&sb);
	free(found);
	return ret;
}
