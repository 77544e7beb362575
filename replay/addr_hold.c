/* SPDX-License-Identifier: MIT */
/*
 * Placeholders for captured address ranges, and what occupies a range
 * (see addr_hold.h). Pure: mmap and /proc/self/maps, no CUDA.
 *
 * A placeholder maps an empty memfd named "gpumix-hold" (inaccessible,
 * nothing behind it): /proc/self/maps names it, so a placeholder is told
 * from whatever else is there, and giving it back unmaps only what is
 * still ours, even should something have mapped over it (MAP_FIXED).
 */
#include "addr_hold.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "strbuf.h"

#ifndef MAP_FIXED_NOREPLACE
#define MAP_FIXED_NOREPLACE 0x100000	/* Linux 4.17; older: a hint */
#endif

#define MAX_OCCUPANTS 3
#define HOLD_NAME "gpumix-hold"
#define HOLD_PATH "/memfd:" HOLD_NAME

/* One mapping of /proc/self/maps: its range, permissions and path ("" for
 * none). Returns nonzero to stop. */
typedef int (*maps_fn)(void *arg, uint64_t lo, uint64_t hi, const char *perms,
		       const char *path);

/* Call @fn for each mapping of this process. 0, or -1 (errno set) when
 * /proc/self/maps cannot be read. */
static int maps_each(maps_fn fn, void *arg)
{
	FILE *f = fopen("/proc/self/maps", "re");
	char line[4096];

	if (!f) {
		return -1;
	}
	while (fgets(line, sizeof(line), f)) {
		uint64_t lo, hi;
		char perms[8];
		int path = 0;
		size_t nl = strcspn(line, "\n");

		if (!line[nl]) {
			/* A path longer than the line: the rest is not ours. */
			int c;
			while ((c = fgetc(f)) != EOF && c != '\n') {
			}
		}
		line[nl] = '\0';
		/* lo-hi perms offset dev inode [path] */
		if (sscanf(line, "%" SCNx64 "-%" SCNx64 " %7s %*s %*s %*s %n",
			   &lo, &hi, perms, &path) < 3) {
			continue;
		}
		if (fn(arg, lo, hi, perms, path ? line + path : "")) {
			break;
		}
	}
	fclose(f);
	return 0;
}

static int meets(uint64_t a, uint64_t as, uint64_t b, uint64_t bs)
{
	return a < b + bs && b < a + as;
}

int gm_addr_hold_take(struct gm_addr_hold *h, uint64_t start, uint64_t size)
{
	struct gm_addr_hold_range *r;
	void *p;
	int fd, err;

	for (size_t i = 0; i < h->nr; i++) {
		if (h->v[i].held &&
		    meets(h->v[i].start, h->v[i].size, start, size)) {
			return 0;
		}
	}
	GM_ALLOC_GROW(h->v, h->nr + 1, h->alloc);
	r = &h->v[h->nr++];
	memset(r, 0, sizeof(*r));
	r->start = start;
	r->size = size;
	fd = memfd_create(HOLD_NAME, MFD_CLOEXEC);
	p = mmap((void *)(uintptr_t)start, size, PROT_NONE,
		 MAP_PRIVATE | MAP_NORESERVE | MAP_FIXED_NOREPLACE |
			 (fd < 0 ? MAP_ANONYMOUS : 0), fd, 0);
	err = errno;
	if (fd >= 0) {
		close(fd);	/* the mapping keeps the file */
	}
	if (p != MAP_FAILED && (uintptr_t)p == start) {
		r->held = 1;
		r->named = fd >= 0;
		return 1;
	}
	if (p != MAP_FAILED) {
		/* A kernel that took the flag for a hint: something is there. */
		munmap(p, size);
		err = EEXIST;
	}
	if (err == EEXIST) {
		gm_addr_occupants(start, size, r->occupant,
				  sizeof(r->occupant));
	} else {
		snprintf(r->occupant, sizeof(r->occupant), "nothing, but mmap "
			 "refused a placeholder: %s", strerror(err));
	}
	return -1;
}

/* The parts of [start, end) still a placeholder, collected (unmapped
 * after reading /proc/self/maps, which changes under a reader). */
struct ours {
	uint64_t start, end;
	uint64_t (*v)[2];
	size_t nr, alloc;
};

static int find_ours(void *arg, uint64_t lo, uint64_t hi, const char *perms,
		     const char *path)
{
	struct ours *o = arg;
	size_t n = strlen(HOLD_PATH);

	(void)perms;
	if (meets(lo, hi - lo, o->start, o->end - o->start) &&
	    !strncmp(path, HOLD_PATH, n) && (!path[n] || path[n] == ' ')) {
		GM_ALLOC_GROW(o->v, o->nr + 1, o->alloc);
		o->v[o->nr][0] = lo > o->start ? lo : o->start;
		o->v[o->nr][1] = hi < o->end ? hi : o->end;
		o->nr++;
	}
	return 0;
}

void gm_addr_hold_give(struct gm_addr_hold *h, uint64_t start, uint64_t size)
{
	for (size_t i = 0; i < h->nr; i++) {
		struct gm_addr_hold_range *r = &h->v[i];
		struct ours o = { r->start, r->start + r->size, NULL, 0, 0 };
		if (!r->held || !meets(r->start, r->size, start, size)) {
			continue;
		}
		if (!r->named || maps_each(find_ours, &o) < 0) {
			/* Nothing tells ours: the whole, as far as we know. */
			munmap((void *)(uintptr_t)r->start, r->size);
		}
		for (size_t k = 0; k < o.nr; k++) {
			munmap((void *)(uintptr_t)o.v[k][0],
			       o.v[k][1] - o.v[k][0]);
		}
		free(o.v);
		r->held = 0;
	}
}

const char *gm_addr_hold_missed(const struct gm_addr_hold *h, uint64_t start,
				uint64_t size)
{
	for (size_t i = 0; i < h->nr; i++) {
		const struct gm_addr_hold_range *r = &h->v[i];
		if (r->occupant[0] && meets(r->start, r->size, start, size)) {
			return r->occupant;
		}
	}
	return NULL;
}

size_t gm_addr_hold_count(const struct gm_addr_hold *h)
{
	size_t n = 0;

	for (size_t i = 0; i < h->nr; i++) {
		n += h->v[i].held;
	}
	return n;
}

void gm_addr_hold_release(struct gm_addr_hold *h)
{
	gm_addr_hold_give(h, 0, UINT64_MAX);
	free(h->v);
	h->v = NULL;
	h->nr = h->alloc = 0;
}

struct occupants {
	uint64_t start, size;
	struct strbuf sb;
	unsigned n;
};

static int add_occupant(void *arg, uint64_t lo, uint64_t hi,
			const char *perms, const char *path)
{
	struct occupants *o = arg;

	if (meets(lo, hi - lo, o->start, o->size) && o->n++ < MAX_OCCUPANTS) {
		strbuf_addf(&o->sb, "%s0x%" PRIx64 "-0x%" PRIx64 " %s %s",
			    o->sb.len ? "; " : "", lo, hi, perms,
			    *path ? path : "anonymous");
	}
	return 0;
}

void gm_addr_occupants(uint64_t start, uint64_t size, char *buf, size_t len)
{
	struct occupants o = { start, size, STRBUF_INIT, 0 };

	if (maps_each(add_occupant, &o) < 0) {
		snprintf(buf, len, "unknown (cannot read /proc/self/maps: %s)",
			 strerror(errno));
	} else if (!o.n) {
		snprintf(buf, len, "nothing (per /proc/self/maps)");
	} else {
		if (o.n > MAX_OCCUPANTS) {
			strbuf_addf(&o.sb, " and %u more",
				    o.n - MAX_OCCUPANTS);
		}
		snprintf(buf, len, "%s", o.sb.buf);
	}
	strbuf_release(&o.sb);
}
