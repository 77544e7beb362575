/* SPDX-License-Identifier: MIT */
/*
 * A main() for the fuzz harnesses without libFuzzer: feed the harness
 * every file named on the command line, or found (one level deep) in a
 * directory named there, one input at a time, in name order. make check
 * runs each harness this way over its committed corpus and regression
 * inputs (tests/cli/fuzz_corpus.sh), so a harness always builds and an
 * input that once crashed it keeps being replayed, under SANITIZE=1 too.
 *
 * usage: replay_NAME FILE|DIR...   (prints "N inputs" and exits 0, or
 * dies the way the harness dies on the input it names first)
 */
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "error.h"
#include "fs.h"
#include "harness.h"
#include "strbuf.h"

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

static int run_one(const char *path, unsigned long *n)
{
	struct strbuf sb = STRBUF_INIT;

	if (gm_read_file(path, &sb)) {
		gm_error_report(stderr);
		return -1;
	}
	fprintf(stderr, "input %s\n", path);
	/* (a copy of exactly the input's size: ASan sees reads past it) */
	uint8_t *copy = malloc(sb.len ? sb.len : 1);
	memcpy(copy, sb.buf, sb.len);
	LLVMFuzzerTestOneInput(copy, sb.len);
	free(copy);
	strbuf_release(&sb);
	(*n)++;
	return 0;
}

int main(int argc, char **argv)
{
	unsigned long n = 0;

	for (int i = 1; i < argc; i++) {
		if (!gm_is_dir(argv[i])) {
			if (run_one(argv[i], &n)) {
				return 1;
			}
			continue;
		}
		DIR *d = opendir(argv[i]);
		struct dirent *e;
		char **names = NULL;
		size_t nr = 0, alloc = 0;
		if (!d) {
			perror(argv[i]);
			return 1;
		}
		while ((e = readdir(d))) {
			if (e->d_name[0] == '.') {
				continue;	/* ., .., .gitignore, README kept as .README */
			}
			GM_ALLOC_GROW(names, nr + 1, alloc);
			names[nr++] = gm_path_join(argv[i], e->d_name);
		}
		closedir(d);
		if (nr) {
			qsort(names, nr, sizeof(*names), cmp_str);
		}
		for (size_t k = 0; k < nr; k++) {
			if (!gm_is_dir(names[k]) && run_one(names[k], &n)) {
				return 1;
			}
			free(names[k]);
		}
		free(names);
	}
	printf("%lu inputs\n", n);
	return 0;
}
