/* SPDX-License-Identifier: MIT */
/*
 * Kernel profiles: reading, writing, merging rows (see kernel_profile.h).
 */
#include "kernel_profile.h"

#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "error.h"
#include "fs.h"
#include "instance_name.h"
#include "strbuf.h"

#define NR_FIELDS 10

static const char header[] =
	"program\tkernel\tgrid_blocks\tblock_threads\tregs\tstatic_smem\t"
	"dynamic_smem\tlaunches\tmean_ns\tdevice";

void gm_kprofile_release(struct gm_kprofile *p)
{
	for (size_t i = 0; i < p->nr; i++) {
		free(p->rows[i].program);
		free(p->rows[i].kernel);
		free(p->rows[i].device);
	}
	free(p->rows);
	memset(p, 0, sizeof(*p));
}

static int parse_u64(const char *s, uint64_t *out)
{
	char *end;

	if (!*s || *s < '0' || *s > '9') {
		return -1;
	}
	errno = 0;
	*out = strtoull(s, &end, 10);
	return *end || errno ? -1 : 0;
}

static int parse_row(char *line, struct gm_kprofile_row *r)
{
	char *f[NR_FIELDS], *save = NULL;
	uint64_t v[5];
	size_t n = 0;

	for (char *t = strtok_r(line, "\t", &save); t && n < NR_FIELDS;
	     t = strtok_r(NULL, "\t", &save)) {
		f[n++] = t;
	}
	if (n != NR_FIELDS || strtok_r(NULL, "\t", &save)) {
		return gm_error("expected %d tab-separated fields", NR_FIELDS);
	}
	for (int i = 0; i < 5; i++) {
		if (parse_u64(f[2 + i], &v[i]) < 0) {
			return gm_error("field %d ('%s') is not a count", 3 + i,
					f[2 + i]);
		}
	}
	if (parse_u64(f[7], &r->launches) < 0 || !r->launches) {
		return gm_error("launches ('%s') is not a positive count", f[7]);
	}
	{
		char *end;
		r->mean_ns = strtod(f[8], &end);
		if (*end || !*f[8] || !(r->mean_ns >= 0)) {
			return gm_error("mean_ns ('%s') is not a duration", f[8]);
		}
	}
	if (!v[0] || !v[1] || v[1] > 1024 || v[2] > 255) {
		return gm_error("grid, block or registers out of range");
	}
	r->grid_blocks = v[0];
	r->block_threads = (uint32_t)v[1];
	r->regs = (uint32_t)v[2];
	r->static_smem = v[3];
	r->dynamic_smem = v[4];
	r->program = gm_xstrdup(f[0]);
	r->kernel = gm_xstrdup(f[1]);
	r->device = gm_xstrdup(f[9]);
	return 0;
}

int gm_kprofile_read(struct gm_kprofile *p, const char *path)
{
	int fd = gm_open_regular(path);	/* never a FIFO or a device */
	FILE *f = fd < 0 ? NULL : fdopen(fd, "r");
	char *line = NULL;
	size_t alloc = 0;
	unsigned long lineno = 0;
	ssize_t len;
	int ret = -1;

	memset(p, 0, sizeof(*p));
	if (!f) {
		if (fd >= 0) {
			close(fd);
		}
		return gm_error("cannot open profile '%s'", path);
	}
	while ((len = getline(&line, &alloc, f)) >= 0) {
		lineno++;
		while (len && (line[len - 1] == '\n' || line[len - 1] == '\r')) {
			line[--len] = 0;
		}
		if (lineno == 1) {
			if (strcmp(line, "# " GM_PROFILE_FORMAT)) {
				gm_error("'%s' is not a gpumix profile (line 1 "
					 "is not '# %s')", path,
					 GM_PROFILE_FORMAT);
				goto out;
			}
			continue;
		}
		if (lineno == 2) {
			if (strcmp(line, header)) {
				gm_error("'%s':2: unexpected column header",
					 path);
				goto out;
			}
			continue;
		}
		GM_ALLOC_GROW(p->rows, p->nr + 1, p->alloc);
		memset(&p->rows[p->nr], 0, sizeof(p->rows[p->nr]));
		if (parse_row(line, &p->rows[p->nr]) < 0) {
			gm_error("'%s':%lu: bad profile row", path, lineno);
			goto out;
		}
		p->nr++;
	}
	if (ferror(f)) {
		gm_error_errno("cannot read '%s'", path);
		goto out;
	}
	if (lineno < 2) {
		gm_error("'%s' is not a gpumix profile (too short)", path);
		goto out;
	}
	ret = 0;
out:
	free(line);
	fclose(f);
	if (ret < 0) {
		gm_kprofile_release(p);
	}
	return ret;
}

int gm_kprofile_write(const struct gm_kprofile *p, FILE *f)
{
	fprintf(f, "# %s\n%s\n", GM_PROFILE_FORMAT, header);
	for (size_t i = 0; i < p->nr; i++) {
		const struct gm_kprofile_row *r = &p->rows[i];
		fprintf(f, "%s\t%s\t%" PRIu64 "\t%" PRIu32 "\t%" PRIu32 "\t%"
			PRIu64 "\t%" PRIu64 "\t%" PRIu64 "\t%.1f\t%s\n",
			r->program, r->kernel, r->grid_blocks, r->block_threads,
			r->regs, r->static_smem, r->dynamic_smem, r->launches,
			r->mean_ns, r->device);
	}
	return ferror(f) ? -1 : 0;
}

void gm_kprofile_add(struct gm_kprofile *p, const char *program,
		     const char *kernel, const char *device,
		     uint64_t grid_blocks, uint32_t block_threads,
		     uint32_t regs, uint64_t static_smem,
		     uint64_t dynamic_smem, uint64_t launches, double mean_ns)
{
	struct gm_kprofile_row *r = NULL;

	for (size_t i = 0; i < p->nr; i++) {
		struct gm_kprofile_row *x = &p->rows[i];
		if (!strcmp(x->program, program) && !strcmp(x->kernel, kernel) &&
		    x->grid_blocks == grid_blocks &&
		    x->block_threads == block_threads &&
		    x->dynamic_smem == dynamic_smem) {
			r = x;
			break;
		}
	}
	if (r) {
		double total = r->mean_ns * (double)r->launches +
			       mean_ns * (double)launches;
		r->launches += launches;
		r->mean_ns = total / (double)r->launches;
		return;
	}
	GM_ALLOC_GROW(p->rows, p->nr + 1, p->alloc);
	r = &p->rows[p->nr++];
	r->program = gm_xstrdup(program);
	r->kernel = gm_xstrdup(kernel);
	r->device = gm_xstrdup(device);
	r->grid_blocks = grid_blocks;
	r->block_threads = block_threads;
	r->regs = regs;
	r->static_smem = static_smem;
	r->dynamic_smem = dynamic_smem;
	r->launches = launches;
	r->mean_ns = mean_ns;
}

const struct gm_kprofile_row *
gm_kprofile_find(const struct gm_kprofile *p, const char *program,
		 const char *kernel, uint64_t grid_blocks)
{
	const struct gm_kprofile_row *best = NULL;

	/* The program's own rows, else (a copy "lbm#2" profiled as
	 * "lbm") those of the program it is an instance of. */
	for (int exact = 1; exact >= 0 && !best; exact--) {
		for (size_t i = 0; i < p->nr; i++) {
			const struct gm_kprofile_row *r = &p->rows[i];
			int mine = exact ? !strcmp(r->program, program)
					 : gm_instance_of(program, r->program);
			if (!mine || strcmp(r->kernel, kernel)) {
				continue;
			}
			if (r->grid_blocks == grid_blocks) {
				return r;
			}
			if (!best || r->launches > best->launches) {
				best = r;
			}
		}
	}
	return best;
}

static int cmp_row(const void *a, const void *b)
{
	const struct gm_kprofile_row *x = a, *y = b;
	int c = strcmp(x->program, y->program);

	if (!c) {
		c = strcmp(x->kernel, y->kernel);
	}
	if (!c) {
		c = x->grid_blocks < y->grid_blocks ? -1 :
		    x->grid_blocks > y->grid_blocks;
	}
	if (!c) {
		c = x->block_threads < y->block_threads ? -1 :
		    x->block_threads > y->block_threads;
	}
	if (!c) {
		c = x->dynamic_smem < y->dynamic_smem ? -1 :
		    x->dynamic_smem > y->dynamic_smem;
	}
	return c;
}

void gm_kprofile_sort(struct gm_kprofile *p)
{
	if (p->nr > 1) {
		qsort(p->rows, p->nr, sizeof(*p->rows), cmp_row);
	}
}
