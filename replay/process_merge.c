/* SPDX-License-Identifier: MIT */
/*
 * Merging the process variants' run directories, one file kind at a time
 * (process_merge.h): lines are copied as they are but for their
 * correlation ids and timestamps.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "error.h"
#include "fs.h"
#include "probe.h"
#include "process_merge.h"
#include "replay_int.h"
/* Split @line (no newline) at tabs into at most @max fields. */
static size_t split(char *line, char **f, size_t max)
{
	size_t n = 0;

	f[n++] = line;
	for (char *p = line; *p && n < max; p++) {
		if (*p == '\t') {
			*p = 0;
			f[n++] = p + 1;
		}
	}
	return n;
}

static void add_shifted(struct strbuf *out, const char *field, int64_t shift)
{
	uint64_t v = strtoull(field, NULL, 10);

	/* 0 means unknown (queued, submitted): it stays 0. */
	strbuf_addf(out, "%" PRIu64, v ? (uint64_t)((int64_t)v + shift) : 0);
}

/* Append child @i's activity.tsv to @ra: correlation ids + *@corr_base,
 * timestamps + @shift. Raises *@corr_next past its largest id. */
int gm_merge_activity(struct run_activity *ra, const char *dir,
		      uint64_t corr_base, uint64_t *corr_next,
		      int64_t shift)
{
	char *path = gm_path_join(dir, "activity.tsv");
	FILE *f = fopen(path, "r");
	struct strbuf out = STRBUF_INIT;
	char *line = NULL;
	size_t cap = 0;
	ssize_t len;
	int ret = 0, ended = 0;

	if (!f) {
		ret = gm_error_errno("cannot read '%s'", path);
		free(path);
		return ret;
	}
	while ((len = getline(&line, &cap, f)) > 0) {
		char *fl[24];
		size_t nf, ts_last;
		uint64_t corr;

		if (line[len - 1] == '\n') {
			line[--len] = 0;
		}
		nf = split(line, fl, 24);
		if (!strcmp(fl[0], "END")) {
			ended = 1;
			break;
		}
		if (nf < 5) {
			ret = gm_error("'%s': malformed record", path);
			break;
		}
		/* kind, program, correlationId, start, end[, queued,
		 * submitted for kernels] */
		ts_last = !strcmp(fl[0], "KERNEL") ? 6 : 4;
		corr = strtoull(fl[2], NULL, 10) + corr_base;
		if (corr > UINT32_MAX) {
			ret = gm_error("correlation ids of the merged run exceed "
				       "32 bits");
			break;
		}
		if (corr + 1 > *corr_next) {
			*corr_next = corr + 1;
		}
		strbuf_reset(&out);
		strbuf_addf(&out, "%s\t%s\t%" PRIu64, fl[0], fl[1], corr);
		for (size_t k = 3; k < nf; k++) {
			strbuf_addch(&out, '\t');
			if (k <= ts_last) {
				add_shifted(&out, fl[k], shift);
			} else {
				strbuf_addstr(&out, fl[k]);
			}
		}
		strbuf_addch(&out, '\n');
		gm_run_activity_add(ra, &out);
	}
	if (!ret && !ended) {
		ret = gm_error("'%s' has no END line", path);
	}
	fclose(f);
	free(line);
	free(path);
	strbuf_release(&out);
	return ret;
}

/* Append child's replays.tsv lines (no header) to @out, shifted. */
int gm_merge_replays(struct strbuf *out, const char *dir, int64_t shift)
{
	char *path = gm_path_join(dir, "replays.tsv");
	FILE *f = fopen(path, "r");
	char *line = NULL;
	size_t cap = 0;
	ssize_t len;
	int first = 1, ret = 0;

	if (!f) {
		ret = gm_error_errno("cannot read '%s'", path);
		free(path);
		return ret;
	}
	while ((len = getline(&line, &cap, f)) > 0) {
		char *fl[8];
		if (first) {
			first = 0;
			continue;
		}
		if (line[len - 1] == '\n') {
			line[--len] = 0;
		}
		if (split(line, fl, 8) != 6) {
			ret = gm_error("'%s': malformed line", path);
			break;
		}
		strbuf_addf(out, "%s\t%s\t", fl[0], fl[1]);
		add_shifted(out, fl[2], shift);
		strbuf_addch(out, '\t');
		add_shifted(out, fl[3], shift);
		strbuf_addf(out, "\t%s\t%s\n", fl[4], fl[5]);
	}
	fclose(f);
	free(line);
	free(path);
	return ret;
}

/* Append child's requests.tsv lines (no header) to @out, their times
 * shifted; none when it has no such file (a batch program). */
int gm_merge_requests(struct strbuf *out, const char *dir, int64_t shift)
{
	char *path = gm_path_join(dir, "requests.tsv");
	FILE *f = fopen(path, "r");
	char *line = NULL;
	size_t cap = 0;
	ssize_t len;
	int first = 1, ret = 0;

	if (!f) {
		free(path);
		return 0;
	}
	while ((len = getline(&line, &cap, f)) > 0) {
		char *fl[8];
		if (first) {
			first = 0;
			continue;
		}
		if (line[len - 1] == '\n') {
			line[--len] = 0;
		}
		if (split(line, fl, 8) != 5) {
			ret = gm_error("'%s': malformed line", path);
			break;
		}
		strbuf_addf(out, "%s\t%s", fl[0], fl[1]);
		for (int k = 2; k < 5; k++) {
			strbuf_addch(out, '\t');
			add_shifted(out, fl[k], shift);
		}
		strbuf_addch(out, '\n');
	}
	fclose(f);
	free(line);
	free(path);
	return ret;
}

/*
 * Append child @dir's drivercalls.tsv lines but its END line to @out,
 * the SLOW lines' times + @shift, counting them in *@n. 0 or -1.
 */
int gm_merge_drivercalls(struct strbuf *out, const char *dir,
			 int64_t shift, uint64_t *n)
{
	char *path = gm_path_join(dir, "drivercalls.tsv");
	struct strbuf text = STRBUF_INIT;
	uint64_t lines = 0;
	int ret = -1, ended = 0;
	char *save = NULL;

	if (gm_read_file(path, &text) < 0) {
		goto out;
	}
	for (char *line = strtok_r(text.buf, "\n", &save); line;
	     line = strtok_r(NULL, "\n", &save)) {
		char *f[12];
		size_t nf = split(line, f, 12);
		if (!strcmp(f[0], "END")) {
			ended = nf == 2 && strtoull(f[1], NULL, 10) == lines;
			break;
		}
		if (!strcmp(f[0], "SLOW") && nf == 6) {
			strbuf_addf(out, "SLOW\t%s\t%s\t%s\t", f[1], f[2], f[3]);
			add_shifted(out, f[4], shift);
			strbuf_addch(out, '\t');
			add_shifted(out, f[5], shift);
			strbuf_addch(out, '\n');
		} else {
			for (size_t k = 0; k < nf; k++) {
				strbuf_addf(out, "%s%s", k ? "\t" : "", f[k]);
			}
			strbuf_addch(out, '\n');
		}
		lines++;
	}
	if (!ended) {
		gm_error("'%s' is truncated (no END line counting its lines)",
			 path);
		goto out;
	}
	*n += lines;
	ret = 0;
out:
	strbuf_release(&text);
	free(path);
	return ret;
}


/*
 * Append child @dir's probe.tsv lines (correlation ids + @corr_base, the
 * host times + @shift) and probe.bin records to @mp, checking that each
 * says what the other holds. 0 or -1.
 */
int gm_merge_probe(struct gm_merged_probe *mp, const char *dir,
		   uint64_t corr_base, int64_t shift)
{
	char *tsv = gm_path_join(dir, "probe.tsv");
	char *bin = gm_path_join(dir, "probe.bin");
	struct strbuf text = STRBUF_INIT, recs = STRBUF_INIT;
	uint64_t lines = 0, records = 0, want_lines = 0, want_records = 0;
	int ret = -1, ended = 0;
	char *save = NULL;

	if (gm_read_file(tsv, &text) < 0 || gm_read_file(bin, &recs) < 0) {
		goto out;
	}
	if (recs.len < GM_PROBE_HEADER_SIZE ||
	    memcmp(recs.buf, GM_PROBE_MAGIC, 8)) {
		gm_error("'%s' is not a probe file", bin);
		goto out;
	}
	for (char *line = strtok_r(text.buf, "\n", &save); line;
	     line = strtok_r(NULL, "\n", &save)) {
		char *f[20];
		size_t nf;
		if (!lines && !strncmp(line, "program\t", 8)) {
			continue;	/* the header */
		}
		nf = split(line, f, 20);
		if (!strcmp(f[0], "END")) {
			if (nf == 3) {
				want_lines = strtoull(f[1], NULL, 10);
				want_records = strtoull(f[2], NULL, 10);
			}
			ended = 1;
			break;
		}
		if (nf != 18) {
			gm_error("'%s': malformed line", tsv);
			goto out;
		}
		uint64_t corr = strtoull(f[2], NULL, 10);
		if (corr) {
			corr += corr_base;
		}
		strbuf_addf(&mp->tsv, "%s\t%s\t%" PRIu64 "\t", f[0], f[1], corr);
		add_shifted(&mp->tsv, f[3], shift);
		for (size_t k = 4; k < nf; k++) {
			strbuf_addf(&mp->tsv, "\t%s", f[k]);
		}
		strbuf_addch(&mp->tsv, '\n');
		records += strtoull(f[16], NULL, 10);
		lines++;
	}
	if (!ended || lines != want_lines || records != want_records ||
	    recs.len != GM_PROBE_HEADER_SIZE + records * GM_PROBE_REC_SIZE) {
		gm_error("'%s' and '%s' do not agree (%" PRIu64 " lines, %"
			 PRIu64 " records)", tsv, bin, lines, records);
		goto out;
	}
	if (atomic_file_write(&mp->bin, recs.buf + GM_PROBE_HEADER_SIZE,
			      recs.len - GM_PROBE_HEADER_SIZE) < 0) {
		goto out;
	}
	mp->lines += lines;
	mp->records += records;
	ret = 0;
out:
	strbuf_release(&text);
	strbuf_release(&recs);
	free(tsv);
	free(bin);
	return ret;
}

int gm_merged_probe_open(struct gm_merged_probe *mp, const char *run_dir)
{
	char *path = gm_path_join(run_dir, "probe.bin");
	char head[GM_PROBE_HEADER_SIZE];
	uint32_t v = GM_PROBE_VERSION, size = GM_PROBE_REC_SIZE;
	int ret = atomic_file_open(&mp->bin, path, 1);

	free(path);
	strbuf_init(&mp->tsv, 0);
	strbuf_addstr(&mp->tsv, GM_PROBE_TSV_HEADER "\n");
	if (ret < 0) {
		return -1;
	}
	mp->open = 1;
	memcpy(head, GM_PROBE_MAGIC, 8);
	memcpy(head + 8, &v, 4);
	memcpy(head + 12, &size, 4);
	return atomic_file_write(&mp->bin, head, sizeof(head));
}

/* Write probe.tsv, then commit probe.bin (or abandon both). 0 or -1. */
int gm_merged_probe_commit(struct gm_merged_probe *mp, const char *run_dir,
			   int ok)
{
	char *path = gm_path_join(run_dir, "probe.tsv");
	int ret = -1;

	if (!mp->open) {
		free(path);
		return 0;
	}
	strbuf_addf(&mp->tsv, "END\t%" PRIu64 "\t%" PRIu64 "\n", mp->lines,
		    mp->records);
	if (ok && gm_write_file_atomic(path, mp->tsv.buf, mp->tsv.len, 1) == 0) {
		ret = atomic_file_commit(&mp->bin);
	} else {
		atomic_file_abort(&mp->bin);
	}
	strbuf_release(&mp->tsv);
	mp->open = 0;
	free(path);
	return ret;
}
