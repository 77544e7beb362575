/* SPDX-License-Identifier: MIT */
/*
 * Unit tests for the bfs reference (workloads/parboil/bfs/bfs_ref.c): the
 * CPU search on hand-checked graphs and against a naive fixpoint, the
 * generator's determinism and shape, the -i/-o file round trips and the
 * errors on bad files.
 */
#include <stdlib.h>
#include <unistd.h>

#include "test.h"
#include "workloads/parboil/bfs/bfs_ref.h"
#include "workloads/parboil/common/pb.h"

static char tmpdir[64];

static const char *tmp_path(const char *name)
{
	static char buf[128];

	snprintf(buf, sizeof(buf), "%s/%s", tmpdir, name);
	return buf;
}

static void test_hand_graph(void)
{
	/* 0->1, 0->2, 1->3, 2->3, 3->4, 4->0; 5 isolated, 6->5 unreachable */
	uint32_t row[] = { 0, 2, 3, 4, 5, 6, 6, 7 };
	uint32_t col[] = { 1, 2, 3, 3, 4, 0, 5 };
	struct bfs_graph g = { 7, 7, 0, row, col };
	int32_t lv[7];
	int32_t want[7] = { 0, 1, 1, 2, 3, -1, -1 };

	CHECK_INT(bfs_cpu(&g, lv), 4, "hand graph has 4 levels");
	int same = 1;
	for (int i = 0; i < 7; i++) {
		same &= lv[i] == want[i];
	}
	CHECK(same, "hand graph levels are 0 1 1 2 3 -1 -1");

	g.source = 3;
	bfs_cpu(&g, lv);
	CHECK(lv[3] == 0 && lv[4] == 1 && lv[0] == 2 && lv[1] == 3 &&
	      lv[2] == 3 && lv[5] == -1, "levels from another source");

	uint32_t first;
	int32_t other[7] = { 0, 1, 1, 2, 3, -1, 5 };
	CHECK_INT(bfs_compare(want, want, 7, &first), 0, "equal arrays compare equal");
	CHECK_INT(first, 7, "no first mismatch");
	CHECK_INT(bfs_compare(other, want, 7, &first), 1, "one mismatch counted");
	CHECK_INT(first, 6, "first mismatch located");
}

/* Naive Bellman-Ford style relaxation: an independent check of bfs_cpu. */
static void naive_levels(const struct bfs_graph *g, int32_t *lv)
{
	int changed = 1;

	for (uint32_t i = 0; i < g->n_nodes; i++) {
		lv[i] = -1;
	}
	lv[g->source] = 0;
	while (changed) {
		changed = 0;
		for (uint32_t u = 0; u < g->n_nodes; u++) {
			if (lv[u] < 0) {
				continue;
			}
			for (uint32_t e = g->row[u]; e < g->row[u + 1]; e++) {
				uint32_t v = g->col[e];
				if (lv[v] < 0 || lv[v] > lv[u] + 1) {
					lv[v] = lv[u] + 1;
					changed = 1;
				}
			}
		}
	}
}

static void test_generator(void)
{
	struct bfs_graph a, b, c;
	char err[256];

	CHECK_INT(bfs_generate(&a, 40, 16, 7, err, sizeof(err)), 0, "generate 40x16");
	CHECK_INT(bfs_generate(&b, 40, 16, 7, err, sizeof(err)), 0, "generate again");
	CHECK_INT(bfs_generate(&c, 40, 16, 8, err, sizeof(err)), 0, "other seed");
	CHECK_INT(a.n_nodes, 640, "640 nodes");
	CHECK_INT(a.source, 8, "source is (0, height/2)");
	CHECK(a.n_edges == b.n_edges &&
	      !memcmp(a.row, b.row, (a.n_nodes + 1) * 4) &&
	      !memcmp(a.col, b.col, (size_t)a.n_edges * 4),
	      "same seed, same graph");
	CHECK(a.n_edges != c.n_edges || memcmp(a.col, c.col, (size_t)a.n_edges * 4),
	      "other seed, other graph");
	CHECK(a.n_edges > 640 * 6 && a.n_edges < 640 * 9, "about 8 edges per node");

	int ok = a.row[0] == 0 && a.row[a.n_nodes] == a.n_edges;
	int local = 1;
	for (uint32_t u = 0; u < a.n_nodes; u++) {
		ok &= a.row[u] <= a.row[u + 1];
		ok &= a.row[u + 1] - a.row[u] <= BFS_MAX_DEGREE;
		for (uint32_t e = a.row[u]; e < a.row[u + 1]; e++) {
			int ux = u / 16, uy = u % 16;
			int vx = a.col[e] / 16, vy = a.col[e] % 16;
			ok &= a.col[e] < a.n_nodes;
			local &= abs(ux - vx) <= 1 && abs(uy - vy) <= 1 &&
				 a.col[e] != u;
		}
	}
	CHECK(ok, "CSR arrays are well formed");
	CHECK(local, "edges join lattice neighbours only");

	int32_t *l1 = malloc(a.n_nodes * 4), *l2 = malloc(a.n_nodes * 4);
	int32_t nl = bfs_cpu(&a, l1);
	naive_levels(&a, l2);
	uint32_t first;
	CHECK_INT(bfs_compare(l1, l2, a.n_nodes, &first), 0,
		  "bfs_cpu agrees with a naive fixpoint");
	CHECK(nl >= 40 && nl < 80, "about one level per column");
	free(l1);
	free(l2);
	bfs_graph_release(&b);
	bfs_graph_release(&c);

	CHECK_INT(bfs_length_for_scale(1.0), BFS_BASE_LENGTH, "scale 1 length");
	CHECK_INT(bfs_length_for_scale(0.5), BFS_BASE_LENGTH / 2, "scale 0.5 length");
	CHECK_INT(bfs_length_for_scale(1e-9), 2, "tiny scales keep 2 columns");
	CHECK_INT(bfs_generate(&b, 2000000, 1000, 1, err, sizeof(err)), -1,
		  "too large a graph is refused");
	CHECK(strstr(err, "too large") != NULL, "with a message");

	/* file round trips */
	struct bfs_graph r;
	CHECK_INT(bfs_write_input(tmp_path("in.bin"), &a, err, sizeof(err)), 0,
		  "write input");
	CHECK_INT(bfs_read_input(tmp_path("in.bin"), &r, err, sizeof(err)), 0,
		  "read input back");
	CHECK(r.n_nodes == a.n_nodes && r.n_edges == a.n_edges &&
	      r.source == a.source && !memcmp(r.row, a.row, (a.n_nodes + 1) * 4) &&
	      !memcmp(r.col, a.col, (size_t)a.n_edges * 4), "input round trip");
	bfs_graph_release(&r);

	int32_t lv[5] = { 0, 1, -1, 2, 7 }, *back;
	uint32_t n;
	CHECK_INT(bfs_write_output(tmp_path("out.bin"), lv, 5, err, sizeof(err)), 0,
		  "write output");
	CHECK_INT(bfs_read_output(tmp_path("out.bin"), &back, &n, err, sizeof(err)), 0,
		  "read output back");
	CHECK(n == 5 && !memcmp(back, lv, sizeof(lv)), "output round trip");
	free(back);

	/* bad files */
	CHECK_INT(bfs_read_input(tmp_path("missing"), &r, err, sizeof(err)), -1,
		  "missing file fails");
	CHECK(strstr(err, "cannot read") != NULL, "missing file message");
	CHECK_INT(bfs_read_input(tmp_path("out.bin"), &r, err, sizeof(err)), -1,
		  "output file is not an input");
	CHECK(strstr(err, "bad magic") != NULL, "bad magic message");
	CHECK_INT(bfs_read_output(tmp_path("in.bin"), &back, &n, err, sizeof(err)), -1,
		  "input file is not an output");

	size_t len = 0;
	unsigned char *buf = pb_read_file(tmp_path("in.bin"), &len);
	if (!CHECK(buf && len > 64, "read the input file's bytes")) {
		return;
	}
	pb_write_file(tmp_path("short.bin"), buf, len - 4);
	CHECK_INT(bfs_read_input(tmp_path("short.bin"), &r, err, sizeof(err)), -1,
		  "truncated input fails");
	CHECK(strstr(err, "bytes, expected") != NULL, "truncation message");

	/* the last edge (last word of the file) leads out of the graph */
	buf[len - 1] = 0x7f;
	pb_write_file(tmp_path("badcol.bin"), buf, len);
	CHECK_INT(bfs_read_input(tmp_path("badcol.bin"), &r, err, sizeof(err)), -1,
		  "edge to a missing node fails");
	CHECK(strstr(err, "leads to node") != NULL, "bad edge message");
	buf[len - 1] = 0;

	/* the source (header word 4) is not a node */
	buf[16] = 0xff;
	buf[17] = 0xff;
	pb_write_file(tmp_path("badsrc.bin"), buf, len);
	CHECK_INT(bfs_read_input(tmp_path("badsrc.bin"), &r, err, sizeof(err)), -1,
		  "bad source fails");
	CHECK(strstr(err, "source") != NULL, "bad source message");
	buf[16] = 8;
	buf[17] = 0;

	/* row offsets that decrease */
	buf[24 + 4 * 5] = 0xff;
	pb_write_file(tmp_path("badrow.bin"), buf, len);
	CHECK_INT(bfs_read_input(tmp_path("badrow.bin"), &r, err, sizeof(err)), -1,
		  "decreasing row offsets fail");
	CHECK(strstr(err, "decrease") != NULL, "bad row message");
	free(buf);
	bfs_graph_release(&a);
}

int main(void)
{
	snprintf(tmpdir, sizeof(tmpdir), "/tmp/test_parboil_bfs.XXXXXX");
	if (!mkdtemp(tmpdir)) {
		perror("mkdtemp");
		return 1;
	}
	test_hand_graph();
	test_generator();
	const char *names[] = { "in.bin", "out.bin", "short.bin", "badcol.bin",
				"badsrc.bin", "badrow.bin" };
	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
		unlink(tmp_path(names[i]));
	}
	rmdir(tmpdir);
	return test_done();
}
