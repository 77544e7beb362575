/* SPDX-License-Identifier: MIT */
/*
 * Reading per-process counter files (see counts.h). The writer is the
 * capture library (capture/state.c), which maps the file shared.
 */
#include "counts.h"

#include <errno.h>
#include <fcntl.h>
#include <stddef.h>
#include <string.h>
#include <unistd.h>

#include "error.h"
#include "fs.h"

/*
 * Format 1 had one loss fewer (no unnamed_kernels) and one reserved word
 * more, at the same size: move what followed its losses one word on.
 */
static void from_format_1(struct gm_counts *c)
{
	char *p = (char *)c;
	size_t at = offsetof(struct gm_counts, loss.unnamed_kernels);
	size_t end = offsetof(struct gm_counts, reserved);

	memmove(p + at + 8, p + at, end - at);
	memset(p + at, 0, 8);
	c->version = GM_COUNTS_VERSION;
}

int gm_counts_read(const char *path, struct gm_counts *out)
{
	/* (A FIFO in a bundle's procs/ must not hang its reader.) */
	int fd = gm_open_regular(path);
	size_t got = 0;

	if (fd < 0) {
		return -1;
	}
	while (got < sizeof(*out)) {
		ssize_t n = read(fd, (char *)out + got, sizeof(*out) - got);
		if (n < 0 && errno == EINTR) {
			continue;
		}
		if (n < 0) {
			int ret = gm_error_errno("cannot read '%s'", path);
			close(fd);
			return ret;
		}
		if (n == 0) {
			break;
		}
		got += (size_t)n;
	}
	close(fd);
	if (got < sizeof(*out)) {
		return gm_error("'%s' is truncated (%zu of %zu bytes)", path, got,
				sizeof(*out));
	}
	if (memcmp(out->magic, GM_COUNTS_MAGIC, sizeof(out->magic))) {
		return gm_error("'%s' is not a gpumix counter file", path);
	}
	if (out->version == 1 && out->size == sizeof(*out)) {
		from_format_1(out);
	}
	if (out->version != GM_COUNTS_VERSION || out->size != sizeof(*out)) {
		return gm_error("'%s' has counter format %u (size %u); this gpumix "
				"reads format %d", path, out->version, out->size,
				GM_COUNTS_VERSION);
	}
	return 0;
}

uint64_t gm_counts_losses(const struct gm_counts *c)
{
	uint64_t n = 0;

#define GM_SUM_(name, what) n += c->loss.name;
	GM_LOSSES(GM_SUM_)
#undef GM_SUM_
	return n;
}

uint64_t gm_counts_events(const struct gm_counts *c)
{
	uint64_t n = c->overflow_events;
	uint64_t nr = c->nr_slots < GM_COUNTS_SLOTS ? c->nr_slots : GM_COUNTS_SLOTS;

	for (uint64_t i = 0; i < nr; i++) {
		n += c->slots[i].events;
	}
	return n;
}
