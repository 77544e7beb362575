/* SPDX-License-Identifier: MIT */
/*
 * The mps variant's shared board with real processes: Tuck and Tullsen's
 * rule across processes of different speeds, the start barrier (nobody
 * replays before all are ready; a failed init stops everyone; a partner
 * that never comes is a time out, not a hang), the cleanup barrier, and a
 * process killed while it holds the board's lock.
 */
#include <fcntl.h>
#include <signal.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "replay/process_board.h"
#include "test.h"

struct result {
	unsigned replays, kept;
	int ready_rc;
	uint64_t start_ns, ready_ns;
};

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* A replay process: late by @delay_ms to the start barrier, then replays
 * of @len_ms each until the board says its last one is done. Attaches by
 * descriptor, as a replay process does after exec. */
static void child(int fd, unsigned i, unsigned delay_ms, unsigned len_ms,
		  int ok, struct result *out)
{
	struct gm_process_board *b = gm_process_board_attach(fd);
	struct result *r = &out[i];

	if (!b) {
		_exit(2);
	}
	usleep(delay_ms * 1000);
	r->ready_ns = now_ns();
	r->ready_rc = gm_process_board_ready(b, i, ok, 5);
	r->start_ns = now_ns();
	if (r->ready_rc == 0) {
		for (;;) {
			int more, kept;
			usleep(len_ms * 1000);
			r->replays++;
			/* (As gm_replay_next checks the board.) */
			more = gm_process_board_completed(b, i, &kept);
			r->kept += kept;
			if (!more || gm_process_board_stopped(b)) {
				break;
			}
		}
	}
	gm_process_board_finish(b, i, 5);
	gm_process_board_detach(b);
	_exit(0);
}

/* Run @nr processes with these delays, lengths and init results. */
static struct result *run(unsigned nr, unsigned r, int one_shot,
			  const unsigned *delay, const unsigned *len,
			  const int *ok, int *stopped)
{
	struct result *out = mmap(NULL, sizeof(struct result) * nr,
				  PROT_READ | PROT_WRITE,
				  MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	int fd;
	struct gm_process_board *b = gm_process_board_create(nr, r, one_shot, &fd);

	if (!b || out == MAP_FAILED) {
		return NULL;
	}
	for (unsigned i = 0; i < nr; i++) {
		if (!fork()) {
			child(fd, i, delay[i], len[i], ok ? ok[i] : 1, out);
		}
	}
	for (unsigned i = 0; i < nr; i++) {
		wait(NULL);
	}
	*stopped = gm_process_board_stopped(b);
	gm_process_board_detach(b);
	close(fd);
	return out;
}

int main(void)
{
	int stopped;

	{
		unsigned delay[2] = { 0, 150 }, len[2] = { 10, 40 };
		struct result *r = run(2, 5, 0, delay, len, NULL, &stopped);
		CHECK(r != NULL, "two processes ran");
		CHECK_INT(r[0].ready_rc, 0, "both pass the start barrier");
		CHECK(r[0].start_ns >= r[1].ready_ns,
		      "the early one starts only when the late one is ready");
		CHECK_INT(r[1].replays, 5, "slow process: exactly R replays");
		CHECK_INT(r[1].kept, 4, "its last one discarded");
		CHECK(r[0].replays > 5, "the fast one keeps replaying while "
		      "the slow one has fewer than R");
		CHECK_INT(r[0].kept, r[0].replays - 1, "its last one discarded");
		CHECK(!stopped, "nothing stopped the board");
		munmap(r, 2 * sizeof(*r));
	}
	{
		unsigned delay[2] = { 0, 150 }, len[2] = { 10, 40 };
		struct result *r = run(2, 5, 1, delay, len, NULL, &stopped);
		CHECK(r != NULL, "one-shot: two processes ran");
		CHECK(r[0].start_ns >= r[1].ready_ns,
		      "one-shot: the early one starts only when the late one "
		      "is ready");
		CHECK(r[0].replays == 1 && r[1].replays == 1,
		      "one-shot: each replays exactly once, the fast one too");
		CHECK(r[0].kept == 1 && r[1].kept == 1,
		      "one-shot: and keeps that replay");
		CHECK(!stopped, "one-shot: nothing stopped the board");
		munmap(r, 2 * sizeof(*r));
	}
	{
		unsigned delay[3] = { 0, 0, 50 }, len[3] = { 5, 5, 5 };
		int ok[3] = { 1, 1, 0 };
		struct result *r = run(3, 3, 0, delay, len, ok, &stopped);
		CHECK(r && r[0].ready_rc < 0 && r[1].ready_rc < 0 &&
		      r[2].ready_rc < 0,
		      "a failed init stops every process at the barrier");
		CHECK(r && !r[0].replays && !r[1].replays,
		      "and none replays");
		CHECK(stopped, "the board says it stopped");
		munmap(r, 3 * sizeof(*r));
	}
	{
		int fd;
		struct gm_process_board *b = gm_process_board_create(2, 3, 0, &fd);
		time_t t0 = time(NULL);
		CHECK(gm_process_board_ready(b, 0, 1, 1) < 0,
		      "a partner that never comes: the wait times out");
		CHECK(time(NULL) - t0 <= 3, "after about its limit");
		CHECK(gm_process_board_stopped(b), "and stops the board");
		gm_process_board_detach(b);
		close(fd);
	}
	{
		int fd, st;
		struct gm_process_board *b = gm_process_board_create(2, 3, 0, &fd);
		pid_t pid = fork();
		if (!pid) {
			pthread_mutex_lock(&b->lock);
			raise(SIGKILL);	/* dies holding it */
		}
		waitpid(pid, &st, 0);
		CHECK(WIFSIGNALED(st), "a process killed holding the lock");
		CHECK(gm_process_board_stopped(b),
		      "does not block the others; the board is stopped");
		CHECK_INT(gm_process_board_completed(b, 0, &(int){ 0 }), 1,
			  "the lock still works after it");
		gm_process_board_detach(b);
		close(fd);
	}
	CHECK(gm_process_board_create(0, 3, 0, &(int){ 0 }) == NULL,
	      "no board for 0 programs");
	{
		int fd = open("/dev/null", O_RDWR);
		CHECK(gm_process_board_attach(fd) == NULL,
		      "a descriptor that is no board is refused");
		close(fd);
	}
	return test_done();
}
