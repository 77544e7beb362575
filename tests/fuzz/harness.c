/* SPDX-License-Identifier: MIT */
/*
 * Helpers of the fuzz harnesses (see harness.h).
 */
#include "harness.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "fs.h"

size_t fuzz_split(const uint8_t *data, size_t size, const uint8_t **part,
		  size_t *len, size_t max)
{
	size_t seplen = strlen(FUZZ_SEP), n = 0;
	const uint8_t *p = data, *end = data + size;

	for (size_t i = 0; i < max; i++) {
		part[i] = NULL;
		len[i] = 0;
	}
	while (n < max) {
		const uint8_t *s = memmem(p, (size_t)(end - p), FUZZ_SEP, seplen);
		part[n] = p;
		len[n++] = (size_t)((s ? s : end) - p);
		if (!s) {
			break;
		}
		p = s + seplen;
	}
	return n;
}

static char scratch[4096];

static void remove_scratch(void)
{
	if (scratch[0]) {
		gm_remove_tree(scratch);
	}
}

const char *fuzz_scratch(void)
{
	if (!scratch[0]) {
		const char *t = getenv("TMPDIR");
		snprintf(scratch, sizeof(scratch), "%s/gpumix-fuzz.XXXXXX",
			 t && *t ? t : "/tmp");
		if (!mkdtemp(scratch)) {
			perror("fuzz: cannot create a scratch directory");
			abort();
		}
		atexit(remove_scratch);
	}
	return scratch;
}

void fuzz_put(const char *dir, const char *name, const uint8_t *data,
	      size_t len)
{
	char *path = gm_path_join(dir, name);

	unlink(path);
	if (data) {
		FILE *f = fopen(path, "wb");
		if (!f || (len && fwrite(data, 1, len, f) != len) || fclose(f)) {
			perror(path);
			abort();
		}
	}
	free(path);
}
