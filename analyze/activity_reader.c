/* SPDX-License-Identifier: MIT */
/*
 * activity.tsv reader (see activity_reader.h).
 */
#include "activity_reader.h"

#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "error.h"
#include "fs.h"
#include "strbuf.h"
#include "tsv.h"

/* CUPTI_ACTIVITY_MEMCPY_KIND_* values, by name without the prefix. */
static const char *const copy_kinds[] = {
	"UNKNOWN", "HTOD", "DTOH", "HTOA", "ATOH", "ATOA", "ATOD", "DTOA",
	"DTOD", "HTOH", "PTOP",
};

#define NR_COPY_KINDS (sizeof(copy_kinds) / sizeof(copy_kinds[0]))

int gm_copy_kind_parse(const char *name)
{
	for (size_t i = 1; i < NR_COPY_KINDS; i++) {
		if (!strcmp(copy_kinds[i], name)) {
			return (int)i;
		}
	}
	return -1;
}

const char *gm_activity_copy_kind_name(int64_t kind)
{
	return kind > 0 && (uint64_t)kind < NR_COPY_KINDS ? copy_kinds[kind]
		: copy_kinds[0];
}

int gm_activity_reader_open(struct gm_activity_reader *r,
			    const struct gm_run_dir *run)
{
	struct stat st;

	memset(r, 0, sizeof(*r));
	r->run = run;
	r->path = gm_path_join(run->path, "activity.tsv");
	int fd = gm_open_regular(r->path);
	if (fd < 0) {
		return -1;
	}
	r->file = fdopen(fd, "r");
	if (!r->file) {
		close(fd);
		return gm_error_errno("cannot open '%s'", r->path);
	}
	if (!fstat(fileno(r->file), &st)) {
		r->bytes_total = (uint64_t)st.st_size;
	}
	/* A large stdio buffer: fewer read(2) calls on million-line logs. */
	setvbuf(r->file, NULL, _IOFBF, 1 << 20);
	return 0;
}

void gm_activity_reader_close(struct gm_activity_reader *r)
{
	if (r->file) {
		fclose(r->file);
	}
	free(r->line);
	free(r->path);
	memset(r, 0, sizeof(*r));
}

#define FAIL(r, ...) gm_tsv_error((r)->path, (r)->lineno, __VA_ARGS__)


/* Column names per kind, for "field N (name)" messages. */
static const char *const kernel_cols[] = {
	"program", "correlationId", "start", "end", "queued", "submitted",
	"deviceId", "contextId", "streamId", "gridX", "gridY", "gridZ",
	"blockX", "blockY", "blockZ", "registersPerThread",
	"staticSharedMemory", "dynamicSharedMemory", "name",
};
static const char *const memcpy_cols[] = {
	"program", "correlationId", "start", "end", "copyKind", "bytes",
	"streamId",
};
static const char *const memset_cols[] = {
	"program", "correlationId", "start", "end", "bytes", "value",
	"streamId",
};
static const char *const api_cols[] = {
	"program", "correlationId", "start", "end", "domain", "cbid", "name",
	"threadId",
};

#define NCOLS(a) (sizeof(a) / sizeof(a[0]))
#define MAX_FIELDS 20

static int int_field(struct gm_activity_reader *r, char **f,
		     const char *const *cols, size_t i, int64_t min,
		     int64_t max, int64_t *out)
{
	if (gm_tsv_int(f[i + 1], min, max, out)) {
		return FAIL(r, "%s is not an integer in [%" PRId64 ", %" PRId64
			    "]: '%s'", cols[i], min, max, f[i + 1]);
	}
	return 0;
}

static int common_fields(struct gm_activity_reader *r, char **f,
			 const char *const *cols, struct gm_activity *a)
{
	long prog;

	if (gm_tsv_unescape(f[1])) {
		return FAIL(r, "bad escape in the program name");
	}
	prog = gm_run_dir_find_program(r->run, f[1], strlen(f[1]));
	if (prog < 0) {
		return FAIL(r, "program '%s' is not in the manifest", f[1]);
	}
	a->program = (size_t)prog;
	if (int_field(r, f, cols, 1, 0, UINT32_MAX, &a->correlation_id) ||
	    int_field(r, f, cols, 2, 0, INT64_MAX, &a->start) ||
	    int_field(r, f, cols, 3, 0, INT64_MAX, &a->end)) {
		return -1;
	}
	if (a->end < a->start) {
		return FAIL(r, "end (%" PRId64 ") is before start (%" PRId64 ")",
			    a->end, a->start);
	}
	return 0;
}

static int parse_kernel(struct gm_activity_reader *r, char **f,
			struct gm_activity *a)
{
	const char *const *c = kernel_cols;

	if (common_fields(r, f, c, a) ||
	    int_field(r, f, c, 4, 0, INT64_MAX, &a->queued) ||
	    int_field(r, f, c, 5, 0, INT64_MAX, &a->submitted) ||
	    int_field(r, f, c, 6, 0, UINT32_MAX, &a->device_id) ||
	    int_field(r, f, c, 7, 0, UINT32_MAX, &a->context_id) ||
	    int_field(r, f, c, 8, 0, UINT32_MAX, &a->stream_id)) {
		return -1;
	}
	for (int i = 0; i < 3; i++) {
		if (int_field(r, f, c, 9 + i, 1, INT32_MAX, &a->grid[i]) ||
		    int_field(r, f, c, 12 + i, 1, INT32_MAX, &a->block[i])) {
			return -1;
		}
	}
	if (int_field(r, f, c, 15, 0, 65535, &a->regs_per_thread) ||
	    int_field(r, f, c, 16, 0, INT32_MAX, &a->static_smem) ||
	    int_field(r, f, c, 17, 0, INT32_MAX, &a->dynamic_smem)) {
		return -1;
	}
	if (gm_tsv_unescape(f[19])) {
		return FAIL(r, "bad escape in the kernel name");
	}
	if (!*f[19]) {
		return FAIL(r, "empty kernel name");
	}
	a->name = f[19];
	return 0;
}

static int parse_memcpy(struct gm_activity_reader *r, char **f,
			struct gm_activity *a)
{
	const char *const *c = memcpy_cols;
	int kind;

	if (common_fields(r, f, c, a)) {
		return -1;
	}
	kind = gm_copy_kind_parse(f[5]);
	if (kind < 0) {
		return FAIL(r, "unknown copyKind '%s'", f[5]);
	}
	a->copy_kind = kind;
	return int_field(r, f, c, 5, 0, INT64_MAX, &a->bytes) ||
	       int_field(r, f, c, 6, 0, UINT32_MAX, &a->stream_id) ? -1 : 0;
}

static int parse_memset(struct gm_activity_reader *r, char **f,
			struct gm_activity *a)
{
	const char *const *c = memset_cols;

	return common_fields(r, f, c, a) ||
	       int_field(r, f, c, 4, 0, INT64_MAX, &a->bytes) ||
	       int_field(r, f, c, 5, 0, UINT32_MAX, &a->value) ||
	       int_field(r, f, c, 6, 0, UINT32_MAX, &a->stream_id) ? -1 : 0;
}

static int parse_api(struct gm_activity_reader *r, char **f,
		     struct gm_activity *a)
{
	const char *const *c = api_cols;

	if (common_fields(r, f, c, a)) {
		return -1;
	}
	if (!strcmp(f[5], "runtime")) {
		a->domain = GM_API_RUNTIME;
	} else if (!strcmp(f[5], "driver")) {
		a->domain = GM_API_DRIVER;
	} else {
		return FAIL(r, "domain must be 'runtime' or 'driver', not '%s'",
			    f[5]);
	}
	if (int_field(r, f, c, 5, 0, UINT32_MAX, &a->cbid) ||
	    int_field(r, f, c, 7, 0, INT64_MAX, &a->thread_id)) {
		return -1;
	}
	if (gm_tsv_unescape(f[7])) {
		return FAIL(r, "bad escape in the API name");
	}
	if (!*f[7]) {
		return FAIL(r, "empty API name");
	}
	a->name = f[7];
	return 0;
}

static int parse_end(struct gm_activity_reader *r, char **f, size_t n)
{
	int64_t count;
	ssize_t len;

	if (n != 2 || gm_tsv_int(f[1], 0, INT64_MAX, &count)) {
		return FAIL(r, "malformed END line (expected END<TAB>count)");
	}
	if ((uint64_t)count != r->records) {
		return FAIL(r, "END says %" PRId64 " records but %" PRIu64
			    " precede it", count, r->records);
	}
	len = getline(&r->line, &r->line_alloc, r->file);
	if (len >= 0) {
		r->lineno++;
		return FAIL(r, "data after the END line");
	}
	if (ferror(r->file)) {
		return gm_error_errno("cannot read '%s'", r->path);
	}
	r->done = 1;
	return 0;
}

int gm_activity_reader_next(struct gm_activity_reader *r,
			    struct gm_activity *out)
{
	char *f[MAX_FIELDS + 1];
	ssize_t len;
	size_t n, want;
	int ret = -1;

	if (r->done) {
		return 0;
	}
	len = getline(&r->line, &r->line_alloc, r->file);
	if (len < 0) {
		if (ferror(r->file)) {
			return gm_error_errno("cannot read '%s'", r->path);
		}
		r->lineno++;
		return FAIL(r, "unexpected end of file: the log is truncated"
			    " (no END line after %" PRIu64 " records)",
			    r->records);
	}
	r->lineno++;
	r->bytes_read += (uint64_t)len;
	if (r->line[len - 1] != '\n') {
		return FAIL(r, "truncated line (no newline at end of file)");
	}
	r->line[--len] = '\0';
	if (memchr(r->line, '\0', (size_t)len)) {
		return FAIL(r, "NUL byte in the line");
	}
	n = gm_tsv_split(r->line, f, MAX_FIELDS + 1);
	memset(out, 0, sizeof(*out));
	if (!strcmp(f[0], "KERNEL")) {
		out->kind = GM_ACT_KERNEL;
		want = NCOLS(kernel_cols);
	} else if (!strcmp(f[0], "MEMCPY")) {
		out->kind = GM_ACT_MEMCPY;
		want = NCOLS(memcpy_cols);
	} else if (!strcmp(f[0], "MEMSET")) {
		out->kind = GM_ACT_MEMSET;
		want = NCOLS(memset_cols);
	} else if (!strcmp(f[0], "API")) {
		out->kind = GM_ACT_API;
		want = NCOLS(api_cols);
	} else if (!strcmp(f[0], "END")) {
		return parse_end(r, f, n);
	} else {
		return FAIL(r, "unknown record kind '%.40s'", f[0]);
	}
	if (n != want + 1) {
		return FAIL(r, "%s record has %zu fields, expected %zu", f[0],
			    n - 1, want);
	}
	switch (out->kind) {
	case GM_ACT_KERNEL:
		ret = parse_kernel(r, f, out);
		break;
	case GM_ACT_MEMCPY:
		ret = parse_memcpy(r, f, out);
		break;
	case GM_ACT_MEMSET:
		ret = parse_memset(r, f, out);
		break;
	case GM_ACT_API:
		ret = parse_api(r, f, out);
		break;
	}
	if (ret) {
		return -1;
	}
	r->records++;
	return 1;
}
