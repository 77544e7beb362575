/* SPDX-License-Identifier: MIT */
/*
 * Reader of probe.tsv and probe.bin (see probe_reader.h).
 */
#include "probe_reader.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "error.h"
#include "fs.h"
#include "strbuf.h"
#include "tsv.h"

#define NR_COLS 18
#define HEADER_SIZE 16
#define REC_SIZE 16

static const char header[] =
	"program\treplay\tcorrelationId\thost_ns\tkernel\tgridX\tgridY\tgridZ"
	"\tblockX\tblockY\tblockZ\tphysX\tphysY\tphysZ\toffset\tblocks"
	"\trecords\tnot_probed";

/* One launch line, split into @f. */
static int parse_launch(const struct gm_run_dir *run, const char *path,
			unsigned long line, char **f, struct gm_probe_launch *l)
{
	static const char *const names[NR_COLS] = {
		"program", "replay", "correlationId", "host_ns", "kernel",
		"gridX", "gridY", "gridZ", "blockX", "blockY", "blockZ",
		"physX", "physY", "physZ", "offset", "blocks", "records",
		"not_probed",
	};
	int64_t *ints[] = {
		NULL, &l->replay, &l->correlation_id, &l->host_ns, NULL,
		&l->grid[0], &l->grid[1], &l->grid[2], &l->block[0],
		&l->block[1], &l->block[2], &l->phys[0], &l->phys[1],
		&l->phys[2], &l->offset, &l->blocks, &l->records,
	};
	long p;

	if (gm_tsv_unescape(f[0]) || gm_tsv_unescape(f[4]) ||
	    gm_tsv_unescape(f[17])) {
		return gm_tsv_error(path, line, "bad escape in a text field");
	}
	p = gm_run_dir_find_program(run, f[0], strlen(f[0]));
	if (p < 0) {
		return gm_tsv_error(path, line, "program '%.64s' is not in the manifest",
			    f[0]);
	}
	l->program = (size_t)p;
	for (int i = 1; i < 17; i++) {
		int64_t min = i >= 5 && i <= 13 ? 1 : 0;
		int64_t max = i == 2 ? UINT32_MAX : INT64_MAX;
		if (!ints[i]) {
			continue;
		}
		if (gm_tsv_int(f[i], min, max, ints[i])) {
			return gm_tsv_error(path, line, "%s '%.40s' is not an integer "
				    "in [%" PRId64 ", %" PRId64 "]", names[i],
				    f[i], min, max);
		}
	}
	if (!*f[4]) {
		return gm_tsv_error(path, line, "empty kernel name");
	}
	l->kernel = f[4];
	if (l->records && l->records != l->blocks) {
		return gm_tsv_error(path, line, "%" PRId64 " records for a launch of %"
			    PRId64 " blocks (a probed launch has one per "
			    "block)", l->records, l->blocks);
	}
	if (!strcmp(f[17], "-")) {
		if (!l->records && l->blocks) {
			return gm_tsv_error(path, line, "a launch without records must "
				    "say why it was not probed");
		}
		l->not_probed = NULL;
	} else {
		if (l->records) {
			return gm_tsv_error(path, line, "a probed launch says it was "
				    "not probed ('%.40s')", f[17]);
		}
		l->not_probed = f[17];
	}
	return 0;
}

static int read_tsv(struct gm_probe_data *pd, const struct gm_run_dir *run,
		    const char *path, struct strbuf *text)
{
	unsigned long line = 0;
	size_t alloc = 0;
	uint64_t records = 0;
	char *p = text->buf, *end = text->buf + text->len;
	int ended = 0;

	if (text->len && text->buf[text->len - 1] != '\n') {
		return gm_tsv_error(path, 1, "truncated (no newline at end of file)");
	}
	if (memchr(text->buf, '\0', text->len)) {
		return gm_tsv_error(path, 1, "NUL byte in the file");
	}
	while (p < end) {
		char *nl = memchr(p, '\n', (size_t)(end - p));
		char *f[NR_COLS + 1];
		size_t n;

		*nl = '\0';
		line++;
		if (ended) {
			return gm_tsv_error(path, line, "a line after the END line");
		}
		if (line == 1) {
			if (strcmp(p, header)) {
				return gm_tsv_error(path, line, "not the header of probe.tsv");
			}
			p = nl + 1;
			continue;
		}
		n = gm_tsv_split(p, f, NR_COLS + 1);
		if (!strcmp(f[0], "END")) {
			int64_t nl_want, rec_want;
			if (n != 3 || gm_tsv_int(f[1], 0, INT64_MAX, &nl_want) ||
			    gm_tsv_int(f[2], 0, INT64_MAX, &rec_want)) {
				return gm_tsv_error(path, line, "bad END line (END, "
					    "launches, records)");
			}
			if ((uint64_t)nl_want != pd->nr_launches ||
			    (uint64_t)rec_want != records) {
				return gm_tsv_error(path, line, "END says %" PRId64
					    " launches and %" PRId64 " records, "
					    "the file has %zu and %" PRIu64,
					    nl_want, rec_want, pd->nr_launches,
					    records);
			}
			ended = 1;
			p = nl + 1;
			continue;
		}
		if (n != NR_COLS) {
			return gm_tsv_error(path, line, "%zu fields, expected %d", n,
				    NR_COLS);
		}
		GM_ALLOC_GROW(pd->launches, pd->nr_launches + 1, alloc);
		struct gm_probe_launch *l = &pd->launches[pd->nr_launches];
		memset(l, 0, sizeof(*l));
		if (parse_launch(run, path, line, f, l)) {
			return -1;
		}
		l->first = records;
		records += (uint64_t)l->records;
		pd->nr_launches++;
		p = nl + 1;
	}
	if (!ended) {
		return gm_tsv_error(path, line + 1, "unexpected end of file: no END "
			    "line (truncated)");
	}
	pd->nr_blocks = records;
	return 0;
}

static int read_bin(struct gm_probe_data *pd, const char *path)
{
	struct strbuf bin = STRBUF_INIT;
	uint32_t version, size;
	int ret = -1;

	if (gm_read_file(path, &bin)) {
		goto out;
	}
	if (bin.len < HEADER_SIZE || memcmp(bin.buf, "GMPROBE\0", 8)) {
		gm_error("'%s' is not a probe record file (no GMPROBE header)",
			 path);
		goto out;
	}
	memcpy(&version, bin.buf + 8, 4);
	memcpy(&size, bin.buf + 12, 4);
	if (version != 1 || size != REC_SIZE) {
		gm_error("'%s': version %" PRIu32 " with %" PRIu32 "-byte "
			 "records, this gpumix reads version 1 with 16", path,
			 version, size);
		goto out;
	}
	if (bin.len != HEADER_SIZE + pd->nr_blocks * REC_SIZE) {
		gm_error("'%s' has %zu bytes, probe.tsv's %" PRIu64 " records "
			 "need %" PRIu64, path, bin.len, pd->nr_blocks,
			 HEADER_SIZE + pd->nr_blocks * REC_SIZE);
		goto out;
	}
	pd->blocks = gm_xmalloc((pd->nr_blocks ? pd->nr_blocks : 1) *
				sizeof(*pd->blocks));
	for (uint64_t i = 0; i < pd->nr_blocks; i++) {
		const uint8_t *r = (const uint8_t *)bin.buf + HEADER_SIZE +
				   i * REC_SIZE;
		struct gm_probe_block *b = &pd->blocks[i];
		memcpy(&b->start, r, 8);
		memcpy(&b->dur, r + 8, 4);
		memcpy(&b->sm, r + 12, 4);
	}
	ret = 0;
out:
	strbuf_release(&bin);
	return ret;
}

/* Every record of a probed launch was written, with a plausible SM id. */
#define GM_PROBE_MAX_SMID 1024
static int check_blocks(const struct gm_probe_data *pd,
			const struct gm_run_dir *run, const char *path)
{
	for (size_t i = 0; i < pd->nr_launches; i++) {
		const struct gm_probe_launch *l = &pd->launches[i];
		for (int64_t k = 0; k < l->records; k++) {
			const struct gm_probe_block *b = &pd->blocks[l->first + k];
			if (!b->start) {
				return gm_error("'%s': record %" PRIu64 " (launch %zu,"
						" block %" PRId64 ") was never "
						"written", path, l->first + k,
						i + 1, l->offset + k);
			}
			/* %smid need not be below the SM count (PTX ISA:
			 * ids are not contiguous; an H100 of 132 SMs gives
			 * ids up to 143), so only a wild id is refused. */
			if (b->sm >= GM_PROBE_MAX_SMID) {
				return gm_error("'%s': record %" PRIu64 " (launch %zu,"
						" block %" PRId64 ") ran on SM %"
						PRIu32 ", above any SM id (%d)",
						path, l->first + k, i + 1,
						l->offset + k, b->sm, GM_PROBE_MAX_SMID);
			}
		}
	}
	return 0;
}

int gm_probe_data_read(struct gm_probe_data *pd, const struct gm_run_dir *run)
{
	char *tsv = gm_path_join(run->path, "probe.tsv");
	char *bin = gm_path_join(run->path, "probe.bin");
	struct strbuf text = STRBUF_INIT;
	int ret = -1;

	memset(pd, 0, sizeof(*pd));
	if (!gm_path_exists(tsv)) {
		if (gm_path_exists(bin)) {
			gm_error("'%s' without '%s'", bin, tsv);
			goto out;
		}
		ret = 0;
		goto out;
	}
	pd->present = 1;
	if (!gm_path_exists(bin)) {
		gm_error("'%s' without '%s'", tsv, bin);
		goto out;
	}
	if (gm_read_file(tsv, &text) ||
	    read_tsv(pd, run, tsv, &text) || read_bin(pd, bin) ||
	    check_blocks(pd, run, bin)) {
		goto out;
	}
	ret = 0;
out:
	pd->text = strbuf_detach(&text, NULL);
	free(tsv);
	free(bin);
	return ret;
}

void gm_probe_data_release(struct gm_probe_data *pd)
{
	free(pd->launches);
	free(pd->blocks);
	free(pd->text);
	memset(pd, 0, sizeof(*pd));
}
