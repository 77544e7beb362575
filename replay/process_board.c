/* SPDX-License-Identifier: MIT */
/*
 * The process variants' shared board (see process_board.h).
 */
#include "process_board.h"

#include <errno.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "clock.h"
#include "error.h"

static void lock(struct gm_process_board *b)
{
	/* A process died holding it: the board is still consistent (every
	 * update is a few stores), and the parent stops the run. */
	if (pthread_mutex_lock(&b->lock) == EOWNERDEAD) {
		b->stop = 1;
		pthread_mutex_consistent(&b->lock);
	}
}

static void unlock(struct gm_process_board *b)
{
	pthread_cond_broadcast(&b->cond);
	pthread_mutex_unlock(&b->lock);
}

/* Wait on the board's condition for at most 100 ms (the condition's
 * clock is CLOCK_MONOTONIC). */
static void wait_a_little(struct gm_process_board *b)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	ts.tv_nsec += 100000000L;
	if (ts.tv_nsec >= 1000000000L) {
		ts.tv_sec++;
		ts.tv_nsec -= 1000000000L;
	}
	if (pthread_cond_timedwait(&b->cond, &b->lock, &ts) == EOWNERDEAD) {
		b->stop = 1;
		pthread_mutex_consistent(&b->lock);
	}
}

struct gm_process_board *gm_process_board_create(unsigned nr,
						 unsigned min_replays,
						 int one_shot, int *fd)
{
	struct gm_process_board *b;
	pthread_mutexattr_t ma;
	pthread_condattr_t ca;

	if (!nr || nr > GM_PROCESS_MAX_PROGRAMS) {
		gm_error("a process variant runs 1 to %d programs, not %u",
			 GM_PROCESS_MAX_PROGRAMS, nr);
		return NULL;
	}
	*fd = memfd_create("gpumix-process-board", 0);
	if (*fd < 0) {
		gm_error_errno("cannot create the process board");
		return NULL;
	}
	if (ftruncate(*fd, sizeof(*b)) < 0) {
		gm_error_errno("cannot size the process board");
		close(*fd);
		*fd = -1;
		return NULL;
	}
	b = gm_process_board_attach(*fd);
	if (!b) {
		close(*fd);
		*fd = -1;
		return NULL;
	}
	memset(b, 0, sizeof(*b));
	pthread_mutexattr_init(&ma);
	pthread_mutexattr_setpshared(&ma, PTHREAD_PROCESS_SHARED);
	pthread_mutexattr_setrobust(&ma, PTHREAD_MUTEX_ROBUST);
	pthread_mutex_init(&b->lock, &ma);
	pthread_mutexattr_destroy(&ma);
	pthread_condattr_init(&ca);
	pthread_condattr_setpshared(&ca, PTHREAD_PROCESS_SHARED);
	pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
	pthread_cond_init(&b->cond, &ca);
	pthread_condattr_destroy(&ca);
	b->nr = nr;
	b->one_shot = one_shot;
	b->min_replays = min_replays && !one_shot ? min_replays : 1;
	b->below = nr;
	return b;
}

struct gm_process_board *gm_process_board_attach(int fd)
{
	struct stat st;
	void *p;

	if (fstat(fd, &st) < 0 || (size_t)st.st_size != sizeof(struct gm_process_board)) {
		gm_error("descriptor %d is not a process board", fd);
		return NULL;
	}
	p = mmap(NULL, sizeof(struct gm_process_board), PROT_READ | PROT_WRITE,
		 MAP_SHARED, fd, 0);
	if (p == MAP_FAILED) {
		gm_error_errno("cannot map the process board");
		return NULL;
	}
	return p;
}

void gm_process_board_detach(struct gm_process_board *b)
{
	if (b) {
		munmap(b, sizeof(*b));
	}
}

int gm_process_board_ready(struct gm_process_board *b, unsigned i, int ok,
		       double timeout_s)
{
	double until = gm_now_s() + timeout_s;
	int ret = 0;

	lock(b);
	if (!ok) {
		b->stop = 1;
	}
	if (i < b->nr) {
		b->ready++;
	}
	while (b->ready < b->nr && !b->stop) {
		if (gm_now_s() > until) {
			b->stop = 1;
			ret = gm_error("the other replay processes were not "
				       "ready within %g s", timeout_s);
			break;
		}
		wait_a_little(b);
	}
	if (!ret && b->stop) {
		ret = gm_error("another replay process failed");
	}
	unlock(b);
	return ret;
}

int gm_process_board_completed(struct gm_process_board *b, unsigned i,
			       int *kept)
{
	int more;

	lock(b);
	if (i < b->nr) {
		b->done[i]++;
		if (b->done[i] == (b->fixed[i] ? b->fixed[i] : b->min_replays)) {
			b->below--;
		}
	}
	if (i < b->nr && b->fixed[i]) {
		more = b->done[i] < b->fixed[i];
		*kept = 1;
		unlock(b);
		return more;
	}
	more = i < b->nr && !b->one_shot && b->below > 0;
	*kept = i < b->nr && (more || b->one_shot);
	unlock(b);
	return more;
}

void gm_process_board_set_fixed(struct gm_process_board *b, unsigned i,
				unsigned n)
{
	lock(b);
	if (i < b->nr) {
		b->fixed[i] = n;
	}
	unlock(b);
}

void gm_process_board_finish(struct gm_process_board *b, unsigned i,
			 double timeout_s)
{
	double until = gm_now_s() + timeout_s;

	lock(b);
	if (i < b->nr) {
		b->finished++;
	}
	while (b->finished < b->nr && !b->stop && gm_now_s() < until) {
		wait_a_little(b);
	}
	unlock(b);
}

void gm_process_board_stop(struct gm_process_board *b)
{
	lock(b);
	b->stop = 1;
	unlock(b);
}

int gm_process_board_stopped(struct gm_process_board *b)
{
	int stop;

	lock(b);
	stop = b->stop;
	pthread_mutex_unlock(&b->lock);
	return stop;
}

void gm_process_board_set_offset(struct gm_process_board *b, unsigned i,
			     int64_t offset_ns)
{
	lock(b);
	if (i < b->nr) {
		b->clock_offset[i] = offset_ns;
		b->have_offset[i] = 1;
	}
	unlock(b);
}
