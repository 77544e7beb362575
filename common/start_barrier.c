/* SPDX-License-Identifier: MIT */
/*
 * The co-run start barrier (see start_barrier.h): a page in a file, a
 * futex word in it. Lock-free atomics on 32- and 64-bit words are
 * address-free, so they work between the processes that map the file.
 */
#include "start_barrier.h"

#include <fcntl.h>
#include <limits.h>
#include <linux/futex.h>
#include <stdatomic.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "atomic_file.h"
#include "clock.h"
#include "error.h"

#define BARRIER_MAGIC 0x676d6272u	/* "gmbr" */
#define BARRIER_VERSION 1u
#define BARRIER_SIZE 4096u

struct gm_barrier_shm {
	uint32_t magic;
	uint32_t version;
	uint32_t parties;
	_Atomic uint32_t arrived;
	_Atomic uint32_t state;		/* enum gm_barrier_state; the futex */
	uint32_t pad;
	_Atomic uint64_t release_ns;
	_Atomic uint8_t slots[GM_BARRIER_MAX_PARTIES];
};

_Static_assert(sizeof(struct gm_barrier_shm) <= BARRIER_SIZE,
	       "the barrier fits its page");

static long futex(_Atomic uint32_t *word, int op, uint32_t val,
		  const struct timespec *ts)
{
	return syscall(SYS_futex, (uint32_t *)word, op, val, ts, NULL, 0);
}

int gm_barrier_create(const char *path, unsigned parties)
{
	unsigned char page[BARRIER_SIZE];
	struct gm_barrier_shm *h = (struct gm_barrier_shm *)page;

	if (!parties || parties > GM_BARRIER_MAX_PARTIES) {
		return gm_error("a start barrier holds 1 to %d programs, not %u",
				GM_BARRIER_MAX_PARTIES, parties);
	}
	memset(page, 0, sizeof(page));
	h->magic = BARRIER_MAGIC;
	h->version = BARRIER_VERSION;
	h->parties = parties;
	if (gm_write_file_atomic(path, page, sizeof(page), 1)) {
		return gm_error("cannot create the start barrier '%s'", path);
	}
	return 0;
}

int gm_barrier_open(struct gm_start_barrier *b, const char *path)
{
	struct stat st;
	void *p;
	int fd;

	b->shm = NULL;
	fd = open(path, O_RDWR | O_CLOEXEC);
	if (fd < 0) {
		return gm_error_errno("cannot open the start barrier '%s'", path);
	}
	if (fstat(fd, &st) < 0 || st.st_size != BARRIER_SIZE) {
		close(fd);
		return gm_error("'%s' is not a start barrier (size %lld)", path,
				(long long)st.st_size);
	}
	p = mmap(NULL, BARRIER_SIZE, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	close(fd);
	if (p == MAP_FAILED) {
		return gm_error_errno("cannot map the start barrier '%s'", path);
	}
	b->shm = p;
	if (b->shm->magic != BARRIER_MAGIC || b->shm->version != BARRIER_VERSION ||
	    !b->shm->parties || b->shm->parties > GM_BARRIER_MAX_PARTIES) {
		gm_barrier_close(b);
		return gm_error("'%s' is not a start barrier of version %u", path,
				BARRIER_VERSION);
	}
	return 0;
}

void gm_barrier_close(struct gm_start_barrier *b)
{
	if (b->shm) {
		munmap(b->shm, BARRIER_SIZE);
		b->shm = NULL;
	}
}

unsigned gm_barrier_parties(const struct gm_start_barrier *b)
{
	return b->shm->parties;
}

int gm_barrier_arrived(const struct gm_start_barrier *b, unsigned slot)
{
	return slot < b->shm->parties && atomic_load(&b->shm->slots[slot]);
}

unsigned gm_barrier_count(const struct gm_start_barrier *b)
{
	return atomic_load(&b->shm->arrived);
}

int gm_barrier_state(const struct gm_start_barrier *b)
{
	return (int)atomic_load(&b->shm->state);
}

uint64_t gm_barrier_release_ns(const struct gm_start_barrier *b)
{
	return atomic_load(&b->shm->release_ns);
}

/* Move a waiting barrier to @to and wake every waiter. */
static void settle(struct gm_barrier_shm *h, uint32_t to)
{
	uint32_t expect = GM_BARRIER_WAITING;

	if (atomic_compare_exchange_strong(&h->state, &expect, to)) {
		futex(&h->state, FUTEX_WAKE, INT_MAX, NULL);
	}
}

int gm_barrier_wait(struct gm_start_barrier *b, unsigned slot,
		    double timeout_s)
{
	struct gm_barrier_shm *h = b->shm;
	uint64_t deadline;

	if (slot >= h->parties) {
		return gm_error("start barrier slot %u out of range (%u parties)",
				slot, h->parties);
	}
	if (!atomic_exchange(&h->slots[slot], 1) &&
	    atomic_fetch_add(&h->arrived, 1) + 1 == h->parties) {
		atomic_store(&h->release_ns, gm_now_ns());
		settle(h, GM_BARRIER_RELEASED);
	}
	deadline = gm_now_ns() + (uint64_t)(timeout_s * 1e9);
	for (;;) {
		uint32_t s = atomic_load(&h->state);
		uint64_t now;
		struct timespec ts;

		if (s == GM_BARRIER_RELEASED) {
			return GM_BARRIER_GO;
		}
		if (s == GM_BARRIER_BROKEN) {
			return GM_BARRIER_GAVE_UP;
		}
		now = gm_now_ns();
		if (now >= deadline) {
			return GM_BARRIER_TIMEOUT;
		}
		ts.tv_sec = (time_t)((deadline - now) / 1000000000u);
		ts.tv_nsec = (long)((deadline - now) % 1000000000u);
		/* EAGAIN (the state moved), EINTR and ETIMEDOUT all go
		 * round the loop, which looks again. */
		futex(&h->state, FUTEX_WAIT, GM_BARRIER_WAITING, &ts);
	}
}

void gm_barrier_break(struct gm_start_barrier *b)
{
	settle(b->shm, GM_BARRIER_BROKEN);
}
