/* SPDX-License-Identifier: MIT */
/*
 * bfs reference side: graph generator, file formats, CPU search and
 * comparison (see bfs_ref.h).
 */
#include "bfs_ref.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pb.h"

static const char in_magic[8] = { 'P', 'B', 'B', 'F', 'S', 'I', 'N', '1' };
static const char out_magic[8] = { 'P', 'B', 'B', 'F', 'S', 'O', 'U', '1' };

static int fail(char *err, size_t errlen, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	if (errlen) {
		vsnprintf(err, errlen, fmt, ap);
	}
	va_end(ap);
	return -1;
}

uint32_t bfs_length_for_scale(double scale)
{
	double l = BFS_BASE_LENGTH * scale + 0.5;

	if (l < 2) {
		return 2;
	}
	if (l > 4e9) {
		return 4000000000u;
	}
	return (uint32_t)l;
}

int bfs_generate(struct bfs_graph *g, uint32_t length, uint32_t height,
		 uint64_t seed, char *err, size_t errlen)
{
	static const int dx[8] = { -1, -1, -1, 0, 0, 1, 1, 1 };
	static const int dy[8] = { -1, 0, 1, -1, 1, -1, 0, 1 };
	uint64_t n = (uint64_t)length * height;
	size_t cap;
	struct pb_rng rng;

	memset(g, 0, sizeof(*g));
	if (!length || !height || n * BFS_MAX_DEGREE > 0x7fffffffULL) {
		return fail(err, errlen, "graph of %u x %u nodes is too large",
			    length, height);
	}
	g->n_nodes = (uint32_t)n;
	g->source = height / 2;
	g->row = malloc((n + 1) * sizeof(*g->row));
	cap = (size_t)n * 9 + 16;
	g->col = malloc(cap * sizeof(*g->col));
	if (!g->row || !g->col) {
		goto oom;
	}
	pb_rng_seed(&rng, seed);
	uint32_t e = 0;
	for (uint32_t x = 0; x < length; x++) {
		for (uint32_t y = 0; y < height; y++) {
			uint32_t u = x * height + y;
			uint32_t d = 1 + pb_rng_below(&rng, BFS_MAX_DEGREE);

			g->row[u] = e;
			if (e + (size_t)d > cap) {
				cap = cap * 3 / 2 + BFS_MAX_DEGREE;
				uint32_t *c = realloc(g->col, cap * sizeof(*c));
				if (!c) {
					goto oom;
				}
				g->col = c;
			}
			for (uint32_t k = 0; k < d; k++) {
				uint32_t o = pb_rng_below(&rng, 8);
				int64_t tx = (int64_t)x + dx[o];
				int64_t ty = (int64_t)y + dy[o];

				if (tx < 0 || tx >= length || ty < 0 ||
				    ty >= height) {
					continue;
				}
				g->col[e++] = (uint32_t)tx * height + (uint32_t)ty;
			}
		}
	}
	g->row[n] = e;
	g->n_edges = e;
	return 0;
oom:
	bfs_graph_release(g);
	return fail(err, errlen, "out of memory for a graph of %llu nodes",
		    (unsigned long long)n);
}

void bfs_graph_release(struct bfs_graph *g)
{
	free(g->row);
	free(g->col);
	memset(g, 0, sizeof(*g));
}

static uint32_t get_u32(const unsigned char *p)
{
	return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 |
	       (uint32_t)p[3] << 24;
}

static void put_u32(unsigned char *p, uint32_t v)
{
	p[0] = (unsigned char)v;
	p[1] = (unsigned char)(v >> 8);
	p[2] = (unsigned char)(v >> 16);
	p[3] = (unsigned char)(v >> 24);
}

/* Write the header @hdr and then @n chunks (pointer, size) to @path. */
static int write_chunks(const char *path, const unsigned char *hdr,
			size_t hdrlen, const void *a, size_t alen,
			const void *b, size_t blen, char *err, size_t errlen)
{
	FILE *f = fopen(path, "wb");
	int ok;

	if (!f) {
		return fail(err, errlen, "cannot create '%s'", path);
	}
	ok = fwrite(hdr, 1, hdrlen, f) == hdrlen;
	ok = ok && (!alen || fwrite(a, 1, alen, f) == alen);
	ok = ok && (!blen || fwrite(b, 1, blen, f) == blen);
	ok = (fclose(f) == 0) && ok;
	if (!ok) {
		return fail(err, errlen, "cannot write '%s'", path);
	}
	return 0;
}

int bfs_write_input(const char *path, const struct bfs_graph *g, char *err,
		    size_t errlen)
{
	unsigned char hdr[24];

	memcpy(hdr, in_magic, 8);
	put_u32(hdr + 8, g->n_nodes);
	put_u32(hdr + 12, g->n_edges);
	put_u32(hdr + 16, g->source);
	put_u32(hdr + 20, 0);
	return write_chunks(path, hdr, sizeof(hdr), g->row,
			    ((size_t)g->n_nodes + 1) * 4, g->col,
			    (size_t)g->n_edges * 4, err, errlen);
}

int bfs_read_input(const char *path, struct bfs_graph *g, char *err,
		   size_t errlen)
{
	size_t len = 0;
	unsigned char *buf = pb_read_file(path, &len);
	uint64_t n, e, want;
	int rc = -1;

	memset(g, 0, sizeof(*g));
	if (!buf) {
		return fail(err, errlen, "cannot read '%s'", path);
	}
	if (len < 24 || memcmp(buf, in_magic, 8)) {
		fail(err, errlen, "'%s' is not a bfs input file (bad magic)", path);
		goto out;
	}
	n = get_u32(buf + 8);
	e = get_u32(buf + 12);
	want = 24 + (n + 1) * 4 + e * 4;
	if (!n || len != want) {
		fail(err, errlen, "'%s': %zu bytes, expected %llu for %llu nodes "
		     "and %llu edges", path, len, (unsigned long long)want,
		     (unsigned long long)n, (unsigned long long)e);
		goto out;
	}
	g->n_nodes = (uint32_t)n;
	g->n_edges = (uint32_t)e;
	g->source = get_u32(buf + 16);
	g->row = malloc((n + 1) * 4);
	g->col = malloc(e ? e * 4 : 4);
	if (!g->row || !g->col) {
		fail(err, errlen, "out of memory reading '%s'", path);
		goto out;
	}
	memcpy(g->row, buf + 24, (n + 1) * 4);
	memcpy(g->col, buf + 24 + (n + 1) * 4, e * 4);
	if (g->source >= n) {
		fail(err, errlen, "'%s': source %u is not a node", path, g->source);
		goto out;
	}
	if (g->row[0] != 0 || g->row[n] != e) {
		fail(err, errlen, "'%s': row offsets must run from 0 to %llu",
		     path, (unsigned long long)e);
		goto out;
	}
	for (uint64_t i = 0; i < n; i++) {
		if (g->row[i] > g->row[i + 1]) {
			fail(err, errlen, "'%s': row offsets decrease at node %llu",
			     path, (unsigned long long)i);
			goto out;
		}
	}
	for (uint64_t i = 0; i < e; i++) {
		if (g->col[i] >= n) {
			fail(err, errlen, "'%s': edge %llu leads to node %u of %llu",
			     path, (unsigned long long)i, g->col[i],
			     (unsigned long long)n);
			goto out;
		}
	}
	rc = 0;
out:
	free(buf);
	if (rc) {
		bfs_graph_release(g);
	}
	return rc;
}

int bfs_write_output(const char *path, const int32_t *levels, uint32_t n,
		     char *err, size_t errlen)
{
	unsigned char hdr[12];

	memcpy(hdr, out_magic, 8);
	put_u32(hdr + 8, n);
	return write_chunks(path, hdr, sizeof(hdr), levels, (size_t)n * 4,
			    NULL, 0, err, errlen);
}

int bfs_read_output(const char *path, int32_t **levels, uint32_t *n,
		    char *err, size_t errlen)
{
	size_t len = 0;
	unsigned char *buf = pb_read_file(path, &len);
	uint64_t cnt;

	*levels = NULL;
	*n = 0;
	if (!buf) {
		return fail(err, errlen, "cannot read '%s'", path);
	}
	if (len < 12 || memcmp(buf, out_magic, 8)) {
		free(buf);
		return fail(err, errlen, "'%s' is not a bfs output file (bad magic)",
			    path);
	}
	cnt = get_u32(buf + 8);
	if (len != 12 + cnt * 4) {
		free(buf);
		return fail(err, errlen, "'%s': %zu bytes, expected %llu", path,
			    len, (unsigned long long)(12 + cnt * 4));
	}
	*levels = malloc(cnt ? cnt * 4 : 4);
	if (!*levels) {
		free(buf);
		return fail(err, errlen, "out of memory reading '%s'", path);
	}
	memcpy(*levels, buf + 12, cnt * 4);
	*n = (uint32_t)cnt;
	free(buf);
	return 0;
}

int32_t bfs_cpu(const struct bfs_graph *g, int32_t *levels)
{
	uint32_t *queue = malloc((size_t)g->n_nodes * sizeof(*queue));
	uint32_t head = 0, tail = 0;
	int32_t maxlevel = 0;

	if (!queue) {
		return -1;
	}
	for (uint32_t i = 0; i < g->n_nodes; i++) {
		levels[i] = BFS_UNREACHED;
	}
	levels[g->source] = 0;
	queue[tail++] = g->source;
	while (head < tail) {
		uint32_t u = queue[head++];
		int32_t next = levels[u] + 1;

		for (uint32_t e = g->row[u]; e < g->row[u + 1]; e++) {
			uint32_t v = g->col[e];

			if (levels[v] == BFS_UNREACHED) {
				levels[v] = next;
				maxlevel = next;
				queue[tail++] = v;
			}
		}
	}
	free(queue);
	return maxlevel + 1;
}

uint32_t bfs_compare(const int32_t *got, const int32_t *want, uint32_t n,
		     uint32_t *first_bad)
{
	uint32_t bad = 0;

	*first_bad = n;
	for (uint32_t i = 0; i < n; i++) {
		if (got[i] != want[i]) {
			if (!bad) {
				*first_bad = i;
			}
			bad++;
		}
	}
	return bad;
}
