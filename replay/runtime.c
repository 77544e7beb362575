/* SPDX-License-Identifier: MIT */
/*
 * Helpers every part of the replay runtime shares: the run's clock
 * (CUPTI's), the log, debug lines, recording a failure for the run, and
 * reading files whole with their hash checked. Kept out of run.c (the
 * process and its main) so that the schedulers, the interpreter and the
 * launch planners link without it.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <cupti.h>

#include "error.h"
#include "process_board.h"
#include "replay_int.h"
#include "strbuf.h"

uint64_t gm_now(void)
{
	uint64_t t = 0;

	if (cuptiGetTimestamp(&t) != CUPTI_SUCCESS) {
		struct timespec ts;
		clock_gettime(CLOCK_REALTIME, &ts);
		t = (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
	}
	return t;
}

void gm_log(struct gm_run *run, const char *fmt, ...)
{
	char buf[2048];
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(buf, sizeof(buf) - 1, fmt, ap);
	va_end(ap);
	if (n < 0) {
		return;
	}
	if ((size_t)n > sizeof(buf) - 2) {
		n = sizeof(buf) - 2;
	}
	buf[n++] = '\n';
	if (write(2, buf, n) < 0) {
		/* nothing sensible to do */
	}
	if (run && run->log_fd >= 0 && write(run->log_fd, buf, n) < 0) {
		/* the log is best effort; the manifest carries the status */
	}
}

int gm_debug_on(void)
{
	const char *v = getenv("GPUMIX_DEBUG");

	return v && *v && strcmp(v, "0");
}

/* Move this thread's recorded error into the run (first failure wins). */
void gm_record_failure(struct gm_run *run)
{
	struct strbuf sb = STRBUF_INIT;
	int n = gm_error_count();

	if (!n) {
		strbuf_addstr(&sb, "unknown failure");
	}
	for (int i = 0; i < n; i++) {
		if (i) {
			strbuf_addstr(&sb, ": ");
		}
		strbuf_addstr(&sb, gm_error_cause(i));
	}
	gm_log(run, "replay: error: %s", sb.buf);
	{
		/* The hint, if any, goes to the log as the report prints it. */
		char *text = NULL;
		size_t len = 0;
		FILE *f = open_memstream(&text, &len);
		if (f) {
			gm_error_report(f);
			fclose(f);
			char *hint = text ? strstr(text, "hint: ") : NULL;
			if (hint) {
				hint[strcspn(hint, "\n")] = 0;
				gm_log(run, "replay: %s", hint);
			}
			free(text);
		}
	}
	pthread_mutex_lock(&run->lock);
	if (!run->failure[0]) {
		snprintf(run->failure, sizeof(run->failure), "%s", sb.buf);
	}
	run->failed = 1;
	atomic_store(&run->stop, 1);
	pthread_cond_broadcast(&run->cond);
	pthread_mutex_unlock(&run->lock);
	if (run->board) {
		gm_process_board_stop(run->board);	/* the other processes too */
	}
	gm_error_clear();
	strbuf_release(&sb);
}

int gm_read_exact(const char *path, void *buf, uint64_t size)
{
	struct stat st;
	uint64_t done = 0;
	int fd = open(path, O_RDONLY | O_CLOEXEC);

	if (fd < 0) {
		return gm_error_errno("cannot open '%s'", path);
	}
	if (fstat(fd, &st) < 0) {
		close(fd);
		return gm_error_errno("cannot stat '%s'", path);
	}
	if ((uint64_t)st.st_size != size) {
		close(fd);
		return gm_error("'%s' has %llu bytes, expected %" PRIu64, path,
				(unsigned long long)st.st_size, size);
	}
	while (done < size) {
		ssize_t n = read(fd, (char *)buf + done, size - done);
		if (n < 0 && errno == EINTR) {
			continue;
		}
		if (n <= 0) {
			close(fd);
			return n < 0 ? gm_error_errno("cannot read '%s'", path)
				     : gm_error("'%s' is truncated", path);
		}
		done += (uint64_t)n;
	}
	close(fd);
	return 0;
}

int gm_check_hash(const char *path, const void *data, uint64_t size,
		      const char *want)
{
	char have[GM_HASH_HEX_LEN + 1];

	gm_hash_hex(gm_hash_bytes(data, size), have);
	if (strcmp(have, want)) {
		return gm_error("'%s' is corrupt: its content hashes to %s",
				path, have);
	}
	return 0;
}

