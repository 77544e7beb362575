/* SPDX-License-Identifier: MIT */
/*
 * Arrival processes of open-loop programs (see arrivals.h).
 */
#include "arrivals.h"

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "error.h"
#include "strbuf.h"

void gm_arrival_spec_release(struct gm_arrival_spec *s)
{
	free(s->program);
	free(s->trace);
	free(s->column);
	memset(s, 0, sizeof(*s));
}

/* A positive, finite rate at @t (the whole string). */
static int parse_rate(const char *t, double *out)
{
	char *end;
	double v;

	errno = 0;
	v = strtod(t, &end);
	if (!*t || *end || errno || !(v > 0) || isinf(v)) {
		return -1;
	}
	*out = v;
	return 0;
}

int gm_arrival_spec_parse(struct gm_arrival_spec *s, const char *text)
{
	const char *eq = strchr(text, '='), *spec;

	memset(s, 0, sizeof(*s));
	if (!eq || eq == text) {
		return gm_error("--arrivals takes PROGRAM=SPEC (SPEC: "
				"poisson:RATE or trace:FILE[#COLUMN][@RATE]), "
				"not '%s'", text);
	}
	s->program = gm_xasprintf("%.*s", (int)(eq - text), text);
	spec = eq + 1;
	if (!strncmp(spec, "poisson:", 8)) {
		s->kind = GM_ARRIVALS_POISSON;
		if (parse_rate(spec + 8, &s->rate) < 0) {
			gm_error("arrivals of '%s': a Poisson process takes a "
				 "rate in requests per second above 0, not "
				 "'%s'", s->program, spec + 8);
			goto fail;
		}
		return 0;
	}
	if (!strncmp(spec, "load:", 5)) {
		s->kind = GM_ARRIVALS_LOAD;
		if (parse_rate(spec + 5, &s->load) < 0) {
			gm_error("arrivals of '%s': a load is a fraction of the "
				 "program's alone capacity above 0, not '%s'",
				 s->program, spec + 5);
			goto fail;
		}
		return 0;
	}
	if (!strncmp(spec, "trace:", 6)) {
		const char *file = spec + 6, *at = strrchr(file, '@');
		const char *hash;
		size_t flen;

		s->kind = GM_ARRIVALS_TRACE;
		if (at && parse_rate(at + 1, &s->rate) < 0) {
			gm_error("arrivals of '%s': the rate after '@' must be "
				 "a number of requests per second above 0, "
				 "not '%s'", s->program, at + 1);
			goto fail;
		}
		flen = at ? (size_t)(at - file) : strlen(file);
		hash = memchr(file, '#', flen);
		if (hash) {
			size_t clen = flen - (size_t)(hash - file) - 1;
			if (!clen) {
				gm_error("arrivals of '%s': no column name "
					 "after '#'", s->program);
				goto fail;
			}
			s->column = gm_xasprintf("%.*s", (int)clen, hash + 1);
			flen = (size_t)(hash - file);
		} else {
			s->column = gm_xstrdup(GM_ARRIVALS_DEFAULT_COLUMN);
		}
		if (!flen) {
			gm_error("arrivals of '%s': 'trace:' needs a file",
				 s->program);
			goto fail;
		}
		s->trace = gm_xasprintf("%.*s", (int)flen, file);
		return 0;
	}
	gm_error("arrivals of '%s': unknown arrival process '%s' (poisson:RATE, "
		 "load:L or trace:FILE[#COLUMN][@RATE])", s->program, spec);
fail:
	gm_arrival_spec_release(s);
	return -1;
}

char *gm_arrival_spec_format(const struct gm_arrival_spec *s)
{
	struct strbuf sb = STRBUF_INIT;

	if (s->kind == GM_ARRIVALS_LOAD) {
		strbuf_addf(&sb, "load:%.17g", s->load);
	} else if (s->kind == GM_ARRIVALS_POISSON) {
		strbuf_addf(&sb, "poisson:%.17g", s->rate);
	} else {
		strbuf_addf(&sb, "trace:%s#%s", s->trace, s->column);
		if (s->rate > 0) {
			strbuf_addf(&sb, "@%.17g", s->rate);
		}
	}
	return strbuf_detach(&sb, NULL);
}

/* splitmix64 (Steele, Lea, Flood 2014): one 64-bit state, full period;
 * the same sequence on every machine for a seed. */
static uint64_t splitmix64(uint64_t *state)
{
	uint64_t z = (*state += UINT64_C(0x9e3779b97f4a7c15));

	z = (z ^ (z >> 30)) * UINT64_C(0xbf58476d1ce4e5b9);
	z = (z ^ (z >> 27)) * UINT64_C(0x94d049bb133111eb);
	return z ^ (z >> 31);
}

static int poisson(double rate, uint64_t seed, unsigned n, uint64_t *t)
{
	uint64_t state = seed;
	double at = 0;

	for (unsigned i = 0; i < n; i++) {
		/* U in (0, 1]: 53 random bits, never 0, so log(U) is finite. */
		double u = (double)((splitmix64(&state) >> 11) + 1) *
			   (1.0 / 9007199254740992.0);
		at += -log(u) / rate;
		if (at * 1e9 >= 9.2e18) {
			return gm_error("a Poisson process at %g requests/s "
					"runs past 292 years", rate);
		}
		t[i] = (uint64_t)llround(at * 1e9);
	}
	return 0;
}

int gm_arrivals_parse_time(const char *text, int64_t *out)
{
	struct tm tm;
	char *end;
	int64_t ns = 0, scale = 100000000;
	time_t secs;

	while (isspace((unsigned char)*text)) {
		text++;
	}
	memset(&tm, 0, sizeof(tm));
	end = strptime(text, "%Y-%m-%d", &tm);
	if (end && (*end == ' ' || *end == 'T')) {
		end = strptime(end + 1, "%H:%M:%S", &tm);
		if (!end) {
			return -1;
		}
		if (*end == '.') {
			for (end++; isdigit((unsigned char)*end); end++) {
				ns += (*end - '0') * scale;
				scale /= 10;
			}
		}
		if (*end == 'Z') {
			end++;
		}
		while (isspace((unsigned char)*end)) {
			end++;
		}
		if (*end) {
			return -1;
		}
		secs = timegm(&tm);
		if (secs == (time_t)-1) {
			return -1;
		}
		*out = (int64_t)secs * 1000000000 + ns;
		return 0;
	}
	{
		double v;
		errno = 0;
		v = strtod(text, &end);
		while (isspace((unsigned char)*end)) {
			end++;
		}
		if (end == text || *end || errno || !isfinite(v) ||
		    fabs(v) >= 9.2e9) {
			return -1;
		}
		*out = (int64_t)llround(v * 1e9);
	}
	return 0;
}

/* Split CSV line @line in place into at most @max fields (a field in
 * double quotes loses them; commas inside quotes are not separators). */
static unsigned split_csv(char *line, char **f, unsigned max)
{
	unsigned n = 0;
	char *p = line;

	while (n < max) {
		char *w, sep;
		int quoted = *p == '"';
		if (quoted) {
			p++;
		}
		f[n++] = w = p;
		while (*p && (quoted ? *p != '"' : *p != ',')) {
			*w++ = *p++;
		}
		if (quoted && *p == '"') {
			p++;
		}
		while (*p && *p != ',') {
			p++;
		}
		sep = *p;
		*w = 0;
		if (sep != ',') {
			break;
		}
		p++;
	}
	return n;
}

#define MAX_FIELDS 256

static int read_trace(const struct gm_arrival_spec *s, unsigned requests,
		      uint64_t **out, unsigned *nr)
{
	FILE *f = fopen(s->trace, "r");
	char *line = NULL, *fields[MAX_FIELDS];
	size_t cap = 0, alloc = 0;
	ssize_t len;
	unsigned lineno = 0, col = 0, n = 0, nf;
	int64_t first = 0, prev = 0, *t = NULL;
	int ret = -1;

	if (!f) {
		return gm_error_errno("cannot read the arrival trace '%s'",
				      s->trace);
	}
	while ((len = getline(&line, &cap, f)) > 0) {
		int64_t v;
		lineno++;
		while (len && (line[len - 1] == '\n' || line[len - 1] == '\r')) {
			line[--len] = 0;
		}
		nf = split_csv(line, fields, MAX_FIELDS);
		if (lineno == 1) {
			for (col = 0; col < nf; col++) {
				if (!strcmp(fields[col], s->column)) {
					break;
				}
			}
			if (col == nf) {
				gm_error("%s:1: no column '%s' in the header",
					 s->trace, s->column);
				goto out;
			}
			continue;
		}
		if (!len) {
			continue;
		}
		if (col >= nf || gm_arrivals_parse_time(fields[col], &v) < 0) {
			gm_error("%s:%u: column '%s' is not a timestamp (a "
				 "number of seconds or YYYY-MM-DD "
				 "HH:MM:SS[.frac]): '%s'", s->trace, lineno,
				 s->column, col < nf ? fields[col] : "");
			goto out;
		}
		if (n && v < prev) {
			gm_error("%s:%u: timestamp '%s' is earlier than the row "
				 "before (arrival traces are in time order)",
				 s->trace, lineno, fields[col]);
			goto out;
		}
		if (!n) {
			first = v;
		}
		prev = v;
		GM_ALLOC_GROW(t, n + 1, alloc);
		t[n++] = v - first;
		if (requests && n == requests) {
			break;
		}
	}
	if (ferror(f)) {
		gm_error_errno("cannot read the arrival trace '%s'", s->trace);
		goto out;
	}
	if (!n) {
		gm_error("%s: no arrivals (a header line and no rows)",
			 s->trace);
		goto out;
	}
	if (requests && n < requests) {
		gm_error("%s: %u arrivals, fewer than the %u requests asked "
			 "for", s->trace, n, requests);
		goto out;
	}
	if (s->rate > 0) {
		double span = (double)t[n - 1];
		double scale;
		if (n < 2 || span <= 0) {
			gm_error("%s: cannot rescale %u arrival%s at one instant "
				 "to a rate", s->trace, n, n == 1 ? "" : "s");
			goto out;
		}
		/* The trace's mean rate is (n - 1) / span. */
		scale = ((double)(n - 1) / s->rate * 1e9) / span;
		for (unsigned i = 0; i < n; i++) {
			t[i] = (int64_t)llround((double)t[i] * scale);
		}
	}
	*out = (uint64_t *)t;
	*nr = n;
	t = NULL;
	ret = 0;
out:
	free(t);
	free(line);
	fclose(f);
	return ret;
}

int gm_arrivals_at_load(struct gm_arrival_spec *s, const char *alone_dir)
{
	char *path = gm_xasprintf("%s/replays.tsv", alone_dir);
	FILE *f = fopen(path, "r");
	char *line = NULL;
	size_t cap = 0, n = 0;
	double sum = 0;
	int ret = -1;

	if (!f) {
		gm_error_errno("cannot read the alone times in '%s'", path);
		free(path);
		return -1;
	}
	while (getline(&line, &cap, f) > 0) {
		char name[256];
		unsigned long long start, end, io;
		unsigned replay;
		int kept;
		if (sscanf(line, "%255[^\t]\t%u\t%llu\t%llu\t%llu\t%d",
			   name, &replay, &start, &end, &io, &kept) == 6 &&
		    kept && !strcmp(name, s->program) && end >= start + io) {
			sum += (double)(end - start - io);
			n++;
		}
	}
	if (!n) {
		gm_error("'%s' has no kept replay of '%s': no alone time to "
			 "measure a load against", path, s->program);
		goto out;
	}
	s->alone_s = sum / (double)n / 1e9;
	if (!(s->alone_s > 0)) {
		gm_error("'%s': the alone time of '%s' is 0", path, s->program);
		goto out;
	}
	s->rate = s->load / s->alone_s;
	s->kind = GM_ARRIVALS_POISSON;
	ret = 0;
out:
	free(line);
	fclose(f);
	free(path);
	return ret;
}

int gm_arrivals_generate(const struct gm_arrival_spec *s, uint64_t seed,
			 unsigned requests, uint64_t **out, unsigned *nr)
{
	*out = NULL;
	*nr = 0;
	if (s->kind == GM_ARRIVALS_LOAD) {
		return gm_error("arrivals of '%s' at load %g: no alone time "
				"(--alone)", s->program, s->load);
	}
	if (requests > GM_ARRIVALS_MAX_REQUESTS) {
		return gm_error("%u requests: at most %u", requests,
				GM_ARRIVALS_MAX_REQUESTS);
	}
	if (s->kind == GM_ARRIVALS_TRACE) {
		return read_trace(s, requests, out, nr);
	}
	if (!requests) {
		requests = GM_ARRIVALS_DEFAULT_REQUESTS;
	}
	*out = gm_xcalloc(requests, sizeof(**out));
	if (poisson(s->rate, seed, requests, *out) < 0) {
		free(*out);
		*out = NULL;
		return -1;
	}
	*nr = requests;
	return 0;
}
