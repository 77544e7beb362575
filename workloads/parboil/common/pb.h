/* SPDX-License-Identifier: MIT */
/*
 * Shared host-side helpers of the Parboil-style suite, usable from C (the
 * CPU references, unit-tested on machines without a GPU) and from CUDA
 * (the programs): the command line every program accepts, a deterministic
 * random generator, whole-file I/O and the PASS/FAIL line.
 *
 * Every program accepts:
 *   -i FILE   read the input from FILE instead of generating it
 *   -o FILE   write the result to FILE
 *   -s SCALE  scale the problem size (default 1.0: 50-500 ms on an H100)
 *   -r        print one "resource" line per kernel (see pb_cuda.h)
 *   -h        help
 */
#ifndef PB_H
#define PB_H

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#ifdef __cplusplus
extern "C" {
#endif

struct pb_args {
	const char *prog;	/* program name, for messages */
	const char *input;	/* -i, or NULL */
	const char *output;	/* -o, or NULL */
	double scale;		/* -s, default 1.0 */
	int report;		/* -r */
};

/*
 * Parse the common options. @what is a one-line description printed by -h.
 * Exits with 0 after -h and with 2 on a usage error (like every gpumix
 * tool); returns otherwise.
 */
static inline void pb_parse_args(int argc, char **argv, const char *prog,
				 const char *what, struct pb_args *a)
{
	a->prog = prog;
	a->input = NULL;
	a->output = NULL;
	a->scale = 1.0;
	a->report = 0;
	for (int i = 1; i < argc; i++) {
		const char *o = argv[i];
		if (!strcmp(o, "-h") || !strcmp(o, "--help")) {
			printf("usage: %s [-i FILE] [-o FILE] [-s SCALE] [-r]\n"
			       "%s\n"
			       "  -i FILE   read the input from FILE\n"
			       "  -o FILE   write the result to FILE\n"
			       "  -s SCALE  scale the problem size (default 1)\n"
			       "  -r        print kernel resource usage\n",
			       prog, what);
			exit(0);
		} else if (!strcmp(o, "-r")) {
			a->report = 1;
		} else if ((!strcmp(o, "-i") || !strcmp(o, "-o") ||
			    !strcmp(o, "-s")) && i + 1 < argc) {
			const char *v = argv[++i];
			if (o[1] == 'i') {
				a->input = v;
			} else if (o[1] == 'o') {
				a->output = v;
			} else {
				char *end;
				a->scale = strtod(v, &end);
				if (*end || !(a->scale > 0) || a->scale > 1e6) {
					fprintf(stderr, "%s: bad scale '%s'\n", prog, v);
					exit(2);
				}
			}
		} else {
			fprintf(stderr, "%s: unknown or incomplete option '%s'\n"
				"usage: %s [-i FILE] [-o FILE] [-s SCALE] [-r]\n",
				prog, o, prog);
			exit(2);
		}
	}
}

/* Deterministic generator (splitmix64): same seed, same numbers, anywhere. */
struct pb_rng {
	uint64_t s;
};

static inline void pb_rng_seed(struct pb_rng *r, uint64_t seed)
{
	r->s = seed;
}

static inline uint64_t pb_rng_next(struct pb_rng *r)
{
	uint64_t z = (r->s += 0x9e3779b97f4a7c15ULL);
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

/* Uniform in [0, 1). */
static inline float pb_rng_float(struct pb_rng *r)
{
	return (float)(pb_rng_next(r) >> 40) * (1.0f / 16777216.0f);
}

/* Uniform in [0, n). */
static inline uint32_t pb_rng_below(struct pb_rng *r, uint32_t n)
{
	return (uint32_t)((pb_rng_next(r) >> 32) * (uint64_t)n >> 32);
}

/* Read a whole file into a new buffer (caller frees); NULL on error. */
static inline void *pb_read_file(const char *path, size_t *len)
{
	FILE *f = fopen(path, "rb");
	char *buf = NULL;
	long n;

	if (!f) {
		return NULL;
	}
	if (fseek(f, 0, SEEK_END) || (n = ftell(f)) < 0 || fseek(f, 0, SEEK_SET)) {
		fclose(f);
		return NULL;
	}
	buf = (char *)malloc((size_t)n + 1);
	if (buf && fread(buf, 1, (size_t)n, f) != (size_t)n) {
		free(buf);
		buf = NULL;
	}
	fclose(f);
	if (buf) {
		*len = (size_t)n;
	}
	return buf;
}

/* Write @len bytes to @path; 0 or -1. */
static inline int pb_write_file(const char *path, const void *buf, size_t len)
{
	FILE *f = fopen(path, "wb");
	if (!f) {
		return -1;
	}
	int ok = fwrite(buf, 1, len, f) == len;
	ok &= fclose(f) == 0;
	return ok ? 0 : -1;
}

/*
 * Print the one result line and return the exit status: "PASS prog: ..."
 * (0) or "FAIL prog: ..." (1).
 */
static inline int pb_finish(const struct pb_args *a, int pass, const char *detail)
{
	printf("%s %s: %s\n", pass ? "PASS" : "FAIL", a->prog, detail);
	fflush(stdout);
	return pass ? 0 : 1;
}

#ifdef __cplusplus
}
#endif

#endif
