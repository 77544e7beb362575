/* SPDX-License-Identifier: MIT */
/*
 * "Did you mean" (closest.h): optimal string alignment distance between a
 * word and each known name; the nearest name if it is close enough.
 */
#include "closest.h"

#include <stdlib.h>
#include <string.h>

#include "strbuf.h"

/*
 * Edit distance with adjacent transpositions counted as one edit (optimal
 * string alignment), for "did you mean" suggestions on short words.
 */
static size_t edit_distance(const char *a, const char *b)
{
	size_t la = strlen(a), lb = strlen(b), w = lb + 1;
	size_t *d = gm_xcalloc((la + 1) * w, sizeof(*d));

	for (size_t i = 0; i <= la; i++) {
		d[i * w] = i;
	}
	for (size_t j = 0; j <= lb; j++) {
		d[j] = j;
	}
	for (size_t i = 1; i <= la; i++) {
		for (size_t j = 1; j <= lb; j++) {
			size_t best = d[(i - 1) * w + j - 1] + (a[i - 1] != b[j - 1]);
			if (d[(i - 1) * w + j] + 1 < best) {
				best = d[(i - 1) * w + j] + 1;
			}
			if (d[i * w + j - 1] + 1 < best) {
				best = d[i * w + j - 1] + 1;
			}
			if (i > 1 && j > 1 && a[i - 1] == b[j - 2] &&
			    a[i - 2] == b[j - 1] && d[(i - 2) * w + j - 2] + 1 < best) {
				best = d[(i - 2) * w + j - 2] + 1;
			}
			d[i * w + j] = best;
		}
	}
	size_t r = d[la * w + lb];
	free(d);
	return r;
}

const char *gm_closest(const char *word, const char *const *names)
{
	const char *best = NULL;
	size_t best_d = (size_t)-1;

	for (size_t i = 0; names[i]; i++) {
		size_t dist = edit_distance(word, names[i]);
		if (dist < best_d) {
			best_d = dist;
			best = names[i];
		}
	}
	/* Close enough to be a typo: one edit, or a third of the word. */
	size_t limit = strlen(word) / 3 > 1 ? strlen(word) / 3 : 1;
	return best && best_d <= limit ? best : NULL;
}
