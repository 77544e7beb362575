/* SPDX-License-Identifier: MIT */
/*
 * Placeholders for captured ranges (replay/addr_hold.h): a held range
 * keeps other mappings out until given back, a range something is mapped
 * at is missed with that mapping named, and the occupants of a range as
 * /proc/self/maps gives them.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <unistd.h>

#include "replay/addr_hold.h"
#include "test.h"

#define MIB (UINT64_C(1) << 20)

/* Whether an mmap there, and nowhere else, gets [@at, @at + @size). */
static int free_at(uint64_t at, uint64_t size)
{
	void *p = mmap((void *)(uintptr_t)at, size, PROT_NONE,
		       MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED_NOREPLACE, -1,
		       0);

	if (p == MAP_FAILED) {
		return 0;
	}
	munmap(p, size);
	return (uintptr_t)p == at;
}

int main(void)
{
	struct gm_addr_hold h = GM_ADDR_HOLD_INIT;
	const uint64_t a = UINT64_C(0x300000000000), b = a + 64 * MIB,
		       c = a + 128 * MIB;
	char path[] = "/tmp/test_addr_hold.XXXXXX", buf[1024], want[512];
	const char *missed;
	void *p;
	int fd;

	CHECK(free_at(a, 256 * MIB), "the test's region is free");
	CHECK_INT(gm_addr_hold_take(&h, a, 4 * MIB), 1, "a free range: held");
	CHECK(!free_at(a + 2 * MIB, 2 * MIB), "... nothing else maps there");
	CHECK_INT(gm_addr_hold_take(&h, a + 2 * MIB, 4 * MIB), 0,
		  "a range meeting a held one: held already");
	CHECK_INT(gm_addr_hold_take(&h, b, 2 * MIB), 1, "another range");
	CHECK_INT(gm_addr_hold_count(&h), 2, "two placeholders");
	CHECK(gm_addr_hold_missed(&h, a, 4 * MIB) == NULL,
	      "a held range was not missed");
	gm_addr_occupants(a + MIB, MIB, buf, sizeof(buf));
	snprintf(want, sizeof(want), "0x%" PRIx64 "-0x%" PRIx64
		 " ---p /memfd:gpumix-hold (deleted)", a, a + 4 * MIB);
	CHECK_STR(buf, want, "occupants: the placeholder, named");

	gm_addr_hold_give(&h, a + 3 * MIB, MIB);
	CHECK(free_at(a, 4 * MIB), "given back: free for the driver");
	CHECK(!free_at(b, 2 * MIB), "... the other still held");
	CHECK_INT(gm_addr_hold_count(&h), 1, "one placeholder left");

	/* A file mapped there first: the range is missed, naming it. */
	fd = mkstemp(path);
	CHECK(fd >= 0 && ftruncate(fd, 4096) == 0, "a file");
	p = mmap((void *)(uintptr_t)c, 4096, PROT_READ,
		 MAP_SHARED | MAP_FIXED_NOREPLACE, fd, 0);
	CHECK(p == (void *)(uintptr_t)c, "mapped in the way");
	CHECK_INT(gm_addr_hold_take(&h, c - 2 * MIB, 4 * MIB), -1,
		  "a range over it: missed");
	missed = gm_addr_hold_missed(&h, c, MIB);
	snprintf(want, sizeof(want), "0x%" PRIx64 "-0x%" PRIx64 " r--s %s",
		 c, c + 4096, path);
	CHECK_STR(missed ? missed : "(null)", want,
		  "... naming the mapping: range, permissions, path");
	CHECK(free_at(c - 2 * MIB, 2 * MIB), "... and holding nothing");
	CHECK(gm_addr_hold_missed(&h, c + 2 * MIB, MIB) == NULL,
	      "a range beside it was not missed");
	munmap(p, 4096);
	close(fd);
	unlink(path);

	gm_addr_occupants(c, 4 * MIB, buf, sizeof(buf));
	CHECK_STR(buf, "nothing (per /proc/self/maps)", "occupants: none");
	for (int i = 0; i < 5; i++) {
		gm_addr_hold_take(&h, c + 2 * i * MIB, MIB);
	}
	gm_addr_occupants(c, 10 * MIB, buf, sizeof(buf));
	CHECK(strstr(buf, "; 0x") && strstr(buf, " and 2 more") &&
		      !strstr(buf, " and 2 more;"),
	      "occupants: three named, then how many more");

	/* Mapped over (MAP_FIXED, as a driver might): only ours is given. */
	CHECK_INT(gm_addr_hold_take(&h, a, 4 * MIB), 1, "held again");
	p = mmap((void *)(uintptr_t)(a + 2 * MIB), MIB, PROT_READ,
		 MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED, -1, 0);
	CHECK(p == (void *)(uintptr_t)(a + 2 * MIB), "something maps over it");
	gm_addr_hold_give(&h, a, 4 * MIB);
	CHECK(free_at(a, 2 * MIB) && free_at(a + 3 * MIB, MIB),
	      "given back: the placeholder's parts unmapped");
	CHECK(!free_at(a + 2 * MIB, MIB), "... the other mapping kept");
	munmap(p, MIB);

	gm_addr_hold_release(&h);
	CHECK(free_at(a, 256 * MIB), "released: every placeholder given back");
	CHECK_INT(gm_addr_hold_count(&h), 0, "... and none counted");
	return test_done();
}
