/* SPDX-License-Identifier: MIT */
/*
 * Arrival processes (common/arrivals.h): specifications parsed and
 * refused with their reasons; Poisson arrivals reproducible from the
 * seed, different for another seed, at the rate asked for over many
 * requests; a trace file's column read (numbers and dates), shifted to
 * start at 0 and rescaled to a rate exactly; a bad trace refused at
 * FILE:LINE.
 */
#include <stdlib.h>
#include <unistd.h>

#include "common/arrivals.h"
#include "common/error.h"
#include "test.h"

static char *write_tmp(const char *text)
{
	char *path = strdup("/tmp/gm-arrivals-XXXXXX");
	int fd = mkstemp(path);
	if (fd < 0 || write(fd, text, strlen(text)) != (ssize_t)strlen(text)) {
		abort();
	}
	close(fd);
	return path;
}

static int gen(const char *text, uint64_t seed, unsigned n, uint64_t **t,
	       unsigned *nr)
{
	struct gm_arrival_spec s;
	int r;

	if (gm_arrival_spec_parse(&s, text) < 0) {
		return -1;
	}
	r = gm_arrivals_generate(&s, seed, n, t, nr);
	gm_arrival_spec_release(&s);
	return r;
}

static int refused(const char *text, const char *want)
{
	struct gm_arrival_spec s;
	int r = gm_arrival_spec_parse(&s, text);
	int ok = r < 0 && strstr(gm_error_message(), want);

	if (!ok) {
		printf("#   '%s': %s\n", text, r < 0 ? gm_error_message() :
							"accepted");
	}
	gm_error_clear();
	return ok;
}

int main(void)
{
	struct gm_arrival_spec s;
	uint64_t *a, *b, *c;
	unsigned na, nb, nc;
	char *f;

	CHECK(!gm_arrival_spec_parse(&s, "svc=trace:x.csv#T@2.5"),
	      "a trace with a column and a rate parses");
	CHECK_STR(s.program, "svc", "its program");
	CHECK_STR(s.trace, "x.csv", "its file");
	CHECK_STR(s.column, "T", "its column");
	CHECK_NEAR(s.rate, 2.5, 0, "its rate");
	f = gm_arrival_spec_format(&s);
	CHECK_STR(f, "trace:x.csv#T@2.5", "formatted as given");
	free(f);
	gm_arrival_spec_release(&s);
	CHECK(!gm_arrival_spec_parse(&s, "svc=trace:x.csv"), "a bare trace");
	CHECK_STR(s.column, "TIMESTAMP", "column TIMESTAMP by default");
	CHECK(s.rate == 0, "no rescaling by default");
	gm_arrival_spec_release(&s);
	CHECK(refused("poisson:5", "PROGRAM=SPEC"), "no program refused");
	CHECK(refused("svc=poisson:0", "above 0"), "rate 0 refused");
	CHECK(refused("svc=poisson:x", "above 0"), "a rate not a number");
	CHECK(refused("svc=gamma:3", "unknown arrival process"),
	      "an unknown process refused");
	CHECK(refused("svc=trace:", "needs a file"), "a trace without file");
	CHECK(refused("svc=trace:f#@3", "no column name"),
	      "an empty column refused");
	CHECK(refused("svc=trace:f@-1", "above 0"), "a negative rescale");

	/* Poisson: the seed alone decides. */
	CHECK(!gen("svc=poisson:100", 7, 1000, &a, &na), "poisson, seed 7");
	CHECK(!gen("svc=poisson:100", 7, 1000, &b, &nb), "again, seed 7");
	CHECK(!gen("svc=poisson:100", 8, 1000, &c, &nc), "seed 8");
	CHECK(na == 1000 && nb == 1000 && nc == 1000, "1000 requests each");
	CHECK(!memcmp(a, b, na * sizeof(*a)), "the same seed: the same times");
	CHECK(memcmp(a, c, na * sizeof(*a)), "another seed: other times");
	{
		int sorted = a[0] > 0;
		for (unsigned i = 1; i < na; i++) {
			sorted &= a[i] >= a[i - 1];
		}
		CHECK(sorted, "increasing, the first after a gap");
	}
	/* The mean gap of 1000 exponential gaps at 100/s is 10 ms with a
	 * standard error of 0.32 ms: these seeds are fixed, so this is
	 * the same number on every machine. */
	CHECK_NEAR((double)a[na - 1] / na / 1e6, 10.0, 1.0,
		   "mean gap 1/rate (10 ms)");
	free(a);
	free(b);
	free(c);
	CHECK(!gen("svc=poisson:100", 7, 0, &a, &na) &&
	      na == GM_ARRIVALS_DEFAULT_REQUESTS, "default request count");
	free(a);

	/* A trace: dates (Azure's format) and a rescale. */
	f = write_tmp("TIMESTAMP,ContextTokens,GeneratedTokens\n"
		      "2023-11-16 18:15:46.6805900,374,44\n"
		      "2023-11-16 18:15:50.9951690,396,109\n"
		      "\"2023-11-16 18:15:51.1\",879,45\n"
		      "2023-11-16 18:15:56.6805900,91,23\n");
	{
		char *spec = malloc(strlen(f) + 64);
		sprintf(spec, "svc=trace:%s", f);
		CHECK(!gen(spec, 0, 0, &a, &na), "an Azure-style trace reads");
		CHECK_INT(na, 4, "all its rows");
		CHECK(a[0] == 0 && a[1] == 4314579000ull &&
		      a[2] == 4419410000ull && a[3] == 10000000000ull,
		      "offsets from the first row, to the ns");
		free(a);
		sprintf(spec, "svc=trace:%s@0.6", f);
		CHECK(!gen(spec, 0, 0, &a, &na), "rescaled to 0.6/s");
		/* 3 gaps in 10 s is 0.3/s: to 0.6/s halves every offset. */
		CHECK(a[1] == 2157289500ull && a[3] == 5000000000ull,
		      "every offset halved");
		free(a);
		sprintf(spec, "svc=trace:%s", f);
		CHECK(!gen(spec, 0, 2, &a, &na) && na == 2,
		      "--requests 2: its first 2 rows");
		free(a);
		CHECK(gen(spec, 0, 5, &a, &na) < 0 &&
		      strstr(gm_error_message(), "4 arrivals, fewer than the 5"),
		      "more requests than rows refused");
		gm_error_clear();
		sprintf(spec, "svc=trace:%s#Nope", f);
		CHECK(gen(spec, 0, 0, &a, &na) < 0 &&
		      strstr(gm_error_message(), ":1: no column 'Nope'"),
		      "a missing column refused at line 1");
		gm_error_clear();
		free(spec);
	}
	unlink(f);
	free(f);
	f = write_tmp("id,t\n1,0.5\n2,1.5\n3,1.25\n");
	{
		char *spec = malloc(strlen(f) + 64), want[600];
		sprintf(spec, "svc=trace:%s#t", f);
		sprintf(want, "%s:4: timestamp '1.25' is earlier", f);
		CHECK(gen(spec, 0, 0, &a, &na) < 0 &&
		      strstr(gm_error_message(), want),
		      "a row earlier than the one before refused at its line");
		gm_error_clear();
		sprintf(spec, "svc=trace:%s#id", f);
		CHECK(!gen(spec, 0, 0, &a, &na) && na == 3 &&
		      a[2] == 2000000000ull, "a column of seconds");
		free(a);
		free(spec);
	}
	unlink(f);
	free(f);
	f = write_tmp("TIMESTAMP\n0\nsoon\n");
	{
		char *spec = malloc(strlen(f) + 64), want[600];
		sprintf(spec, "svc=trace:%s", f);
		sprintf(want, "%s:3: column 'TIMESTAMP' is not a timestamp", f);
		CHECK(gen(spec, 0, 0, &a, &na) < 0 &&
		      strstr(gm_error_message(), want),
		      "a word in the column refused at its line");
		gm_error_clear();
		free(spec);
	}
	unlink(f);
	free(f);
	/* A load against an alone run: its kept replays of the program. */
	{
		char dir[] = "/tmp/gm-alone-XXXXXX", path[64];
		FILE *fp;
		CHECK(mkdtemp(dir) != NULL, "a run directory");
		snprintf(path, sizeof(path), "%s/replays.tsv", dir);
		fp = fopen(path, "w");
		/* svc: 100 and 300 us kept (one with 100 us of I/O: 200),
		 * a discarded 900 and another program's 50: mean 150 us. */
		fputs("program\treplay\tstart_ns\tend_ns\tio_ns\tkept\n"
		      "svc\t0\t1000\t101000\t0\t1\n"
		      "svc\t1\t101000\t401000\t100000\t1\n"
		      "svc\t2\t401000\t1301000\t0\t0\n"
		      "other\t0\t0\t50000\t0\t1\n", fp);
		fclose(fp);
		CHECK(!gm_arrival_spec_parse(&s, "svc=load:0.6") &&
		      s.kind == GM_ARRIVALS_LOAD, "load:0.6 parses");
		CHECK(gm_arrivals_generate(&s, 1, 3, &a, &na) < 0 &&
		      strstr(gm_error_message(), "no alone time"),
		      "a load without its alone time refused");
		gm_error_clear();
		CHECK(!gm_arrivals_at_load(&s, dir), "the alone time read");
		CHECK_NEAR(s.alone_s, 150e-6, 1e-12, "mean kept replay: 150 us");
		CHECK_NEAR(s.rate, 4000, 1e-6, "0.6 / 150 us = 4000/s");
		CHECK(s.kind == GM_ARRIVALS_POISSON, "now a Poisson process");
		gm_arrival_spec_release(&s);
		CHECK(!gm_arrival_spec_parse(&s, "nope=load:0.6") &&
		      gm_arrivals_at_load(&s, dir) < 0 &&
		      strstr(gm_error_message(), "no kept replay of 'nope'"),
		      "a program without replays there refused");
		gm_error_clear();
		gm_arrival_spec_release(&s);
		unlink(path);
		rmdir(dir);
	}
	return test_done();
}
