/* SPDX-License-Identifier: MIT */
/*
 * Per-process counter files: a good file reads back with its sums; a
 * missing, short, foreign or newer file is refused with a cause.
 */
#include <fcntl.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "capture/counts.h"
#include "fs.h"
#include "test.h"

static char dir[256];

static char *write_counts(const char *name, const struct gm_counts *c, size_t n)
{
	char *path = gm_path_join(dir, name);
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);

	if (fd >= 0) {
		if (write(fd, c, n) != (ssize_t)n) {
			printf("# short write\n");
		}
		close(fd);
	}
	return path;
}

int main(void)
{
	struct gm_counts *c = calloc(1, sizeof(*c)), *r = calloc(1, sizeof(*r));
	char *path;

	snprintf(dir, sizeof(dir), "%s/gpumix-counts.XXXXXX",
		 getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp");
	if (!mkdtemp(dir)) {
		CHECK(0, "scratch directory");
		return test_done();
	}
	memcpy(c->magic, GM_COUNTS_MAGIC, 8);
	c->version = GM_COUNTS_VERSION;
	c->size = sizeof(*c);
	c->pid = 42;
	c->nr_slots = 2;
	c->slots[0].tid = 42;
	c->slots[0].events = 10;
	c->slots[1].tid = 43;
	c->slots[1].events = 5;
	c->overflow_events = 3;
	c->loss.blob_failures = 2;
	c->loss.unsupported_calls = 1;
	c->warn.unsynced_d2h = 7;

	path = write_counts("good", c, sizeof(*c));
	CHECK_INT(gm_counts_read(path, r), 0, "a good counter file reads");
	CHECK_INT(r->pid, 42, "pid read back");
	CHECK_INT(gm_counts_events(r), 18, "events = slots + overflow");
	CHECK_INT(gm_counts_losses(r), 3, "losses sum the loss counters only");
	free(path);

	/* Format 1: no unnamed_kernels, the words after the losses one word
	 * earlier (as a format-1 library wrote them). */
	{
		char *p = (char *)c;
		size_t at = offsetof(struct gm_counts, loss.unnamed_kernels);
		size_t end = offsetof(struct gm_counts, reserved);

		c->loss.unnamed_kernels = 0;
		c->children_without_counts = 5;
		memmove(p + at, p + at + 8, end - at);
		memset(p + end, 0, 8);
		c->version = 1;
		path = write_counts("format1", c, sizeof(*c));
		CHECK_INT(gm_counts_read(path, r), 0, "a format-1 file reads");
		CHECK_INT(r->warn.unsynced_d2h, 7, "... its warnings in place");
		CHECK_INT(r->children_without_counts, 5, "... and what follows");
		CHECK_INT(r->loss.unnamed_kernels, 0, "... the new loss 0");
		CHECK_INT(gm_counts_losses(r), 3, "... the same losses");
		free(path);
		c->version = GM_COUNTS_VERSION;
	}

	path = gm_path_join(dir, "missing");
	CHECK_INT(gm_counts_read(path, r), -1, "a missing file is an error");
	CHECK(strstr(gm_error_message(), "cannot open") != NULL, "... cannot open");
	gm_error_clear();
	free(path);

	path = write_counts("short", c, 100);
	CHECK_INT(gm_counts_read(path, r), -1, "a short file is an error");
	CHECK(strstr(gm_error_message(), "is truncated (100 of") != NULL,
	      "... called truncated");
	gm_error_clear();
	free(path);

	c->magic[0] = 'X';
	path = write_counts("foreign", c, sizeof(*c));
	CHECK_INT(gm_counts_read(path, r), -1, "a foreign file is an error");
	CHECK(strstr(gm_error_message(), "is not a gpumix counter file") != NULL,
	      "... not a counter file");
	gm_error_clear();
	free(path);

	c->magic[0] = 'G';
	c->version = 99;
	path = write_counts("newer", c, sizeof(*c));
	CHECK_INT(gm_counts_read(path, r), -1, "a newer format is an error");
	CHECK(strstr(gm_error_message(), "has counter format 99") != NULL,
	      "... naming the format");
	gm_error_clear();
	free(path);

	gm_remove_tree(dir);
	free(c);
	free(r);
	return test_done();
}
