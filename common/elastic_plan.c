/* SPDX-License-Identifier: MIT */
/*
 * The elastic launch setting and the physical grids it gives (see
 * elastic_plan.h).
 */
#include "elastic_plan.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "error.h"

static int parse_count(const char *s, uint32_t *out)
{
	char *end;
	unsigned long long v;

	if (!s || *s < '0' || *s > '9') {
		return -1;
	}
	v = strtoull(s, &end, 10);
	if (*end || v < 1 || v > GM_ELASTIC_MAX_GRID_X) {
		return -1;
	}
	*out = (uint32_t)v;
	return 0;
}

int gm_elastic_setting_parse(const char *mode, const char *slice,
			     struct gm_elastic_setting *out)
{
	memset(out, 0, sizeof(*out));
	if (!mode || !strcmp(mode, "off")) {
		out->mode = GM_ELASTIC_OFF;
	} else if (!strcmp(mode, "identity")) {
		out->mode = GM_ELASTIC_IDENTITY;
	} else if (!strcmp(mode, "sm")) {
		out->mode = GM_ELASTIC_SM;
		out->blocks = 1;
	} else if (!strncmp(mode, "sm=", 3)) {
		if (parse_count(mode + 3, &out->blocks) < 0 ||
		    out->blocks > GM_ELASTIC_MAX_PER_SM) {
			return gm_error("bad elastic mode '%s' (sm=K takes "
					"blocks per SM from 1 to %u)", mode,
					GM_ELASTIC_MAX_PER_SM);
		}
		out->mode = GM_ELASTIC_SM;
	} else if (!strcmp(mode, "resident")) {
		out->mode = GM_ELASTIC_RESIDENT;
	} else if (!strcmp(mode, "orig")) {
		out->mode = GM_ELASTIC_ORIG;
	} else if (!parse_count(!strncmp(mode, "grid=", 5) ? mode + 5 : mode,
				&out->blocks)) {
		out->mode = GM_ELASTIC_GRID;
	} else {
		return gm_error("bad elastic mode '%s' (off, identity, grid=N, "
				"N, sm, sm=K, resident, orig; N from 1 to %u)",
				mode,
				GM_ELASTIC_MAX_GRID_X);
	}
	if (slice && (slice[0] == '/' ? parse_count(slice + 1, &out->parts)
				      : parse_count(slice, &out->slice)) < 0) {
		return gm_error("bad elastic slice '%s' (logical blocks per "
				"launch, or /N for N launches per grid; from 1 "
				"to %u)", slice, GM_ELASTIC_MAX_GRID_X);
	}
	if ((out->slice || out->parts) && out->mode <= GM_ELASTIC_IDENTITY) {
		return gm_error("an elastic slice needs a physical grid mode "
				"(grid=N, sm, resident, orig), not '%s'",
				mode ? mode : "off");
	}
	return 0;
}

void gm_elastic_setting_name(const struct gm_elastic_setting *s, char *buf,
			     size_t len)
{
	static const char *const names[] = {
		[GM_ELASTIC_OFF] = "off",
		[GM_ELASTIC_IDENTITY] = "identity",
		[GM_ELASTIC_GRID] = "grid",
		[GM_ELASTIC_SM] = "sm",
		[GM_ELASTIC_RESIDENT] = "resident",
		[GM_ELASTIC_ORIG] = "orig",
	};

	if (s->mode == GM_ELASTIC_GRID) {
		snprintf(buf, len, "grid=%" PRIu32, s->blocks);
	} else if (s->mode == GM_ELASTIC_SM && s->blocks > 1) {
		snprintf(buf, len, "sm=%" PRIu32, s->blocks);
	} else {
		snprintf(buf, len, "%s", names[s->mode]);
	}
}

uint32_t gm_elastic_phys_blocks(const struct gm_elastic_setting *s,
				uint64_t total, uint32_t limit, uint32_t sms,
				uint32_t resident_per_sm)
{
	uint64_t n;

	switch (s->mode) {
	case GM_ELASTIC_GRID:
		n = s->blocks;
		break;
	case GM_ELASTIC_SM:
		/* K per SM, never more than fit at once (the SM-stretch
		 * microbenchmark: exactly K resident on every SM) */
		n = (uint64_t)(sms ? sms : 1) *
		    (s->blocks > resident_per_sm && resident_per_sm ?
			     resident_per_sm : (s->blocks ? s->blocks : 1));
		break;
	case GM_ELASTIC_RESIDENT:
		n = (uint64_t)(sms ? sms : 1) *
		    (resident_per_sm ? resident_per_sm : 1);
		break;
	case GM_ELASTIC_ORIG:
		n = total;
		break;
	case GM_ELASTIC_OFF:
	case GM_ELASTIC_IDENTITY:
	default:
		n = limit;
		break;
	}
	if (n > limit) {
		n = limit;
	}
	if (n > GM_ELASTIC_MAX_GRID_X) {
		n = GM_ELASTIC_MAX_GRID_X;
	}
	return n ? (uint32_t)n : 1;
}

int gm_elastic_shape(uint32_t n, const uint32_t logical[3], uint32_t offset,
		     uint32_t limit, uint32_t out[3])
{
	uint64_t total = (uint64_t)logical[0] * logical[1] * logical[2];
	int identity = logical[1] == 1 && logical[2] == 1 &&
		       n == logical[0] && offset == 0 && limit >= total;

	out[0] = n;
	out[1] = 1;
	out[2] = 1;
	if (!identity) {
		return 0;
	}
	if (n == 1) {
		return 1;	/* a grid of one block has no other shape */
	}
	if (n <= 65535) {
		out[0] = 1;
		out[1] = n;
		return 0;
	}
	if (n % 2 == 0) {
		out[0] = n / 2;
		out[1] = 2;
		return 0;
	}
	return 1;
}

void gm_elastic_slice_name(const struct gm_elastic_setting *s, char *buf,
			   size_t len)
{
	if (s->parts) {
		snprintf(buf, len, "/%" PRIu32, s->parts);
	} else {
		snprintf(buf, len, "%" PRIu32, s->slice);
	}
}

uint64_t gm_elastic_slice_blocks(const struct gm_elastic_setting *s,
				 uint64_t total)
{
	if (s->mode <= GM_ELASTIC_IDENTITY || !total) {
		return total;
	}
	if (s->parts) {
		return (total + s->parts - 1) / s->parts;
	}
	return s->slice && s->slice < total ? s->slice : total;
}

uint64_t gm_elastic_nr_slices(const struct gm_elastic_setting *s,
			      uint64_t total)
{
	uint64_t step = gm_elastic_slice_blocks(s, total);

	return step ? (total + step - 1) / step : 1;
}
