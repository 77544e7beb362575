/* SPDX-License-Identifier: MIT */
/*
 * The seeded shuffle of a study's run order (see plan_order.h).
 */
#include "plan_order.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hash.h"
#include "strbuf.h"

/* splitmix64 (Steele, Lea, Flood 2014): one 64-bit state, full period. */
static uint64_t next(uint64_t *state)
{
	uint64_t z = (*state += UINT64_C(0x9e3779b97f4a7c15));

	z = (z ^ (z >> 30)) * UINT64_C(0xbf58476d1ce4e5b9);
	z = (z ^ (z >> 27)) * UINT64_C(0x94d049bb133111eb);
	return z ^ (z >> 31);
}

void plan_order_shuffle(size_t *v, size_t n, uint64_t seed, unsigned rep,
			const char *block)
{
	char *text = gm_xasprintf("%" PRIu64 "/%u/%s", seed, rep, block);
	uint64_t state = gm_hash_bytes(text, strlen(text)).lo;

	free(text);
	for (size_t i = n; i > 1; i--) {
		size_t j = (size_t)(next(&state) % i);
		size_t t = v[i - 1];
		v[i - 1] = v[j];
		v[j] = t;
	}
}
