/* SPDX-License-Identifier: MIT */
/*
 * The mock driver's device address space and its virtual memory
 * management calls. As a real driver, the mock hands out device
 * addresses from one region of the process's address space, the same
 * ones in every process that makes the same calls (first fit from
 * MOCK_VA_BASE): two captured programs use the same addresses, and a
 * replay that allocates before it reserves a program's captured range
 * finds that range taken. cuMemAlloc takes its memory here too.
 *
 * cuMemAddressReserve treats its address as a hint, as the driver does:
 * the range is reserved there when no device range and no host mapping
 * is in the way, elsewhere otherwise (the caller must compare). A
 * reservation is inaccessible memory; cuMemCreate makes physical memory
 * (a memfd, so that its content follows it from mapping to mapping),
 * cuMemMap maps it into a reservation (whole granules, offset 0, over
 * unmapped memory only) and cuMemSetAccess makes mapped memory readable
 * and writable: only then is it device memory for copies, memsets and
 * kernels (mock_vmm_valid()). cuMemUnmap takes whole mappings back,
 * cuMemRelease frees the memory once it is mapped nowhere, and
 * cuMemAddressFree takes a whole reservation without mappings back.
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "mock_int.h"

#define VA_END (MOCK_VA_BASE + (UINT64_C(1) << 40))
#define GRANULE (UINT64_C(2) << 20)
#define HOST_PAGE UINT64_C(4096)
#define MAX_RANGES 8192
#define HANDLE_MAGIC 0x7a3du

enum range_kind { RANGE_ALLOC, RANGE_RESERVED };

struct range {
	uintptr_t start;
	size_t size;
	enum range_kind kind;
};

struct mhandle {
	uint32_t magic;
	int fd;
	size_t size;
	unsigned maps;
	int released;
};

struct mapping {
	uintptr_t start;
	size_t size;
	struct mhandle *h;
	int access;		/* cuMemSetAccess made it read-write */
};

/* Sorted by start, disjoint: every device range handed out. */
static struct range ranges[MAX_RANGES];
static unsigned nr_ranges;
static struct mapping maps[MAX_RANGES];
static unsigned nr_maps;

/* Whether [@start, @start + @size) meets a range handed out. Locked. */
static int overlaps(uintptr_t start, size_t size)
{
	for (unsigned i = 0; i < nr_ranges; i++) {
		if (start < ranges[i].start + ranges[i].size &&
		    ranges[i].start < start + size) {
			return 1;
		}
	}
	return 0;
}

static void range_add(uintptr_t start, size_t size, enum range_kind kind)
{
	unsigned i = 0;

	while (i < nr_ranges && ranges[i].start < start) {
		i++;
	}
	memmove(&ranges[i + 1], &ranges[i],
		(nr_ranges - i) * sizeof(ranges[0]));
	ranges[i].start = start;
	ranges[i].size = size;
	ranges[i].kind = kind;
	nr_ranges++;
}

/* Map [@at, @at + @size) with @prot, there or not at all. */
static int map_at(uintptr_t at, size_t size, int prot)
{
	void *p = mmap((void *)at, size, prot,
		       MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED_NOREPLACE |
			       MAP_NORESERVE, -1, 0);

	if (p == MAP_FAILED) {
		return -1;
	}
	if ((uintptr_t)p != at) {
		/* A kernel that took the flag for a hint. */
		munmap(p, size);
		return -1;
	}
	return 0;
}

/*
 * Hand out @size bytes (rounded up to host pages) aligned to @align: at
 * @hint when it is free, else at the first free place from MOCK_VA_BASE.
 * Locked. Returns the start, or 0 when the region is full.
 */
static uintptr_t take(uintptr_t hint, size_t size, size_t align, int prot,
		      enum range_kind kind)
{
	uintptr_t at;

	if (nr_ranges == MAX_RANGES) {
		return 0;
	}
	if (align < HOST_PAGE) {
		align = HOST_PAGE;
	}
	size = (size + HOST_PAGE - 1) & ~(HOST_PAGE - 1);
	if (hint && !(hint & (align - 1)) && !overlaps(hint, size) &&
	    map_at(hint, size, prot) == 0) {
		range_add(hint, size, kind);
		return hint;
	}
	at = MOCK_VA_BASE;
	for (;;) {
		unsigned i;
		at = (at + align - 1) & ~(uintptr_t)(align - 1);
		if (at + size > VA_END) {
			return 0;
		}
		for (i = 0; i < nr_ranges; i++) {
			if (at < ranges[i].start + ranges[i].size &&
			    ranges[i].start < at + size) {
				break;
			}
		}
		if (i < nr_ranges) {
			at = ranges[i].start + ranges[i].size;
			continue;
		}
		if (map_at(at, size, prot) == 0) {
			range_add(at, size, kind);
			return at;
		}
		at += align;	/* a host mapping is in the way */
	}
}

/* The range starting at @start of @kind, or -1. Locked. */
static int range_at(uintptr_t start, enum range_kind kind)
{
	for (unsigned i = 0; i < nr_ranges; i++) {
		if (ranges[i].start == start && ranges[i].kind == kind) {
			return (int)i;
		}
	}
	return -1;
}

static void range_del(unsigned i)
{
	munmap((void *)ranges[i].start, ranges[i].size);
	memmove(&ranges[i], &ranges[i + 1],
		(nr_ranges - i - 1) * sizeof(ranges[0]));
	nr_ranges--;
}

/*
 * MOCK_CUDA_OCCUPY=WHEN:ADDR:BYTES, at @when ("load": the library's
 * constructor, before main, as a library mapped there; "init": cuInit, as
 * the real driver's own reservations, which scale with the device's
 * memory): map BYTES of inaccessible memory at ADDR, or wherever the
 * kernel puts them when something is there, and keep them. A memfd, so
 * that /proc/self/maps names it ("/memfd:mock-cuda-driver" at init,
 * "/memfd:mock-cuda-library" at load), as the driver's mappings of its
 * device files are named. 0, or -1 after printing what is wrong.
 */
static int occupy(const char *when)
{
	const char *v = getenv("MOCK_CUDA_OCCUPY");
	unsigned long long at, n;
	size_t wl = strlen(when);
	char *end;
	void *p;
	int fd;

	if (!v || strncmp(v, when, wl) || v[wl] != ':') {
		if (v && strncmp(v, "load:", 5) && strncmp(v, "init:", 5)) {
			goto bad;
		}
		return 0;
	}
	at = strtoull(v + wl + 1, &end, 0);
	if (*end != ':' || (at & (HOST_PAGE - 1))) {
		goto bad;
	}
	n = strtoull(end + 1, &end, 0);
	if (*end || !n) {
		goto bad;
	}
	fd = memfd_create(!strcmp(when, "init") ? "mock-cuda-driver" :
			  "mock-cuda-library", MFD_CLOEXEC);
	if (fd < 0) {
		fprintf(stderr, "mock cuda: MOCK_CUDA_OCCUPY: memfd_create: "
			"%s\n", strerror(errno));
		return -1;
	}
	p = mmap((void *)(uintptr_t)at, (size_t)n, PROT_NONE,
		 MAP_SHARED | MAP_NORESERVE, fd, 0);
	close(fd);
	if (p == MAP_FAILED) {
		fprintf(stderr, "mock cuda: MOCK_CUDA_OCCUPY: mmap: %s\n",
			strerror(errno));
		return -1;
	}
	return 0;
bad:
	fprintf(stderr, "mock cuda: MOCK_CUDA_OCCUPY='%s' is not "
		"load|init:ADDR:BYTES (ADDR page-aligned)\n", v);
	return -1;
}

static int occupy_failed;

__attribute__((constructor)) static void occupy_at_load(void)
{
	occupy_failed = occupy("load") < 0;
}

int mock_va_knobs(void)
{
	static int done;
	const char *v = getenv("MOCK_CUDA_DRIVER_BYTES");
	char *end;
	unsigned long long n;

	if (done) {
		return 0;
	}
	done = 1;
	if (occupy_failed || occupy("init") < 0) {
		return -1;
	}
	if (!v) {
		return 0;
	}
	n = strtoull(v, &end, 10);
	if (*end || !n) {
		fprintf(stderr, "mock cuda: MOCK_CUDA_DRIVER_BYTES='%s' is not "
			"a byte count\n", v);
		return -1;
	}
	/* Never given back: the driver's own memory. */
	return mock_va_alloc((size_t)n) ? 0 : -1;
}

uintptr_t mock_va_alloc(size_t size)
{
	uintptr_t p;

	pthread_mutex_lock(&mock_lock);
	p = take(0, size ? size : 1, HOST_PAGE, PROT_READ | PROT_WRITE,
		 RANGE_ALLOC);
	pthread_mutex_unlock(&mock_lock);
	return p;
}

void mock_va_free(uintptr_t start)
{
	int i;

	pthread_mutex_lock(&mock_lock);
	i = range_at(start, RANGE_ALLOC);
	if (i >= 0) {
		range_del((unsigned)i);
	}
	pthread_mutex_unlock(&mock_lock);
}

int mock_vmm_valid(uintptr_t p, size_t n)
{
	uintptr_t end = p + n;

	if (!nr_maps) {
		return 0;
	}
	/* Adjacent accessible mappings are one device range. */
	while (p < end || (!n && p == end)) {
		unsigned i;
		for (i = 0; i < nr_maps; i++) {
			if (maps[i].access && p >= maps[i].start &&
			    p < maps[i].start + maps[i].size) {
				break;
			}
		}
		if (i == nr_maps) {
			return 0;
		}
		if (!n) {
			return 1;
		}
		p = maps[i].start + maps[i].size;
	}
	return 1;
}

/* ---- the driver calls ---- */

static int prop_ok(const CUmemAllocationProp *prop)
{
	return prop && prop->type == CU_MEM_ALLOCATION_TYPE_PINNED &&
	       prop->location.type == CU_MEM_LOCATION_TYPE_DEVICE &&
	       prop->location.id == 0;
}

CUresult CUDAAPI cuMemGetAllocationGranularity(
	size_t *granularity, const CUmemAllocationProp *prop,
	CUmemAllocationGranularity_flags option)
{
	(void)option;
	if (!granularity || !prop_ok(prop)) {
		return CUDA_ERROR_INVALID_VALUE;
	}
	*granularity = GRANULE;
	return CUDA_SUCCESS;
}

CUresult CUDAAPI cuMemAddressReserve(CUdeviceptr *ptr, size_t size,
				     size_t alignment, CUdeviceptr addr,
				     unsigned long long flags)
{
	uintptr_t p;

	if (mock_failing("cuMemAddressReserve")) {
		return CUDA_ERROR_UNKNOWN;
	}
	if (!ptr || !size || flags || (size & (HOST_PAGE - 1)) ||
	    (addr & (HOST_PAGE - 1)) || (alignment & (alignment - 1))) {
		return CUDA_ERROR_INVALID_VALUE;
	}
	pthread_mutex_lock(&mock_lock);
	p = take(addr, size, alignment, PROT_NONE, RANGE_RESERVED);
	pthread_mutex_unlock(&mock_lock);
	if (!p) {
		return CUDA_ERROR_OUT_OF_MEMORY;
	}
	*ptr = p;
	return CUDA_SUCCESS;
}

CUresult CUDAAPI cuMemAddressFree(CUdeviceptr ptr, size_t size)
{
	CUresult rc = CUDA_ERROR_INVALID_VALUE;
	int i;

	pthread_mutex_lock(&mock_lock);
	i = range_at(ptr, RANGE_RESERVED);
	if (i >= 0 && ranges[i].size == size) {
		rc = CUDA_SUCCESS;
		for (unsigned m = 0; m < nr_maps; m++) {
			if (maps[m].start >= ptr && maps[m].start < ptr + size) {
				rc = CUDA_ERROR_INVALID_VALUE;	/* mapped */
			}
		}
		if (rc == CUDA_SUCCESS) {
			range_del((unsigned)i);
		}
	}
	pthread_mutex_unlock(&mock_lock);
	return rc;
}

CUresult CUDAAPI cuMemCreate(CUmemGenericAllocationHandle *handle, size_t size,
			     const CUmemAllocationProp *prop,
			     unsigned long long flags)
{
	struct mhandle *h;

	if (mock_failing("cuMemCreate")) {
		return CUDA_ERROR_UNKNOWN;
	}
	if (!handle || !size || (size % GRANULE) || flags || !prop_ok(prop)) {
		return CUDA_ERROR_INVALID_VALUE;
	}
	h = calloc(1, sizeof(*h));
	if (!h) {
		return CUDA_ERROR_OUT_OF_MEMORY;
	}
	h->magic = HANDLE_MAGIC;
	h->size = size;
	h->fd = memfd_create("mock-cuda-vmm", MFD_CLOEXEC);
	if (h->fd < 0 || ftruncate(h->fd, (off_t)size)) {
		if (h->fd >= 0) {
			close(h->fd);
		}
		free(h);
		return CUDA_ERROR_OUT_OF_MEMORY;
	}
	*handle = (CUmemGenericAllocationHandle)(uintptr_t)h;
	return CUDA_SUCCESS;
}

static struct mhandle *handle_of(CUmemGenericAllocationHandle handle)
{
	struct mhandle *h = (struct mhandle *)(uintptr_t)handle;

	return h && h->magic == HANDLE_MAGIC && !h->released ? h : NULL;
}

static void handle_drop(struct mhandle *h)
{
	if (h->released && !h->maps) {
		close(h->fd);
		h->magic = 0;
		free(h);
	}
}

CUresult CUDAAPI cuMemRelease(CUmemGenericAllocationHandle handle)
{
	struct mhandle *h;

	pthread_mutex_lock(&mock_lock);
	h = handle_of(handle);
	if (h) {
		h->released = 1;
		handle_drop(h);
	}
	pthread_mutex_unlock(&mock_lock);
	return h ? CUDA_SUCCESS : CUDA_ERROR_INVALID_VALUE;
}

/* Whether [@ptr, @ptr + @size) lies in one reservation. Locked. */
static int reserved(uintptr_t ptr, size_t size)
{
	for (unsigned i = 0; i < nr_ranges; i++) {
		if (ranges[i].kind == RANGE_RESERVED && ptr >= ranges[i].start &&
		    size <= ranges[i].size &&
		    ptr - ranges[i].start <= ranges[i].size - size) {
			return 1;
		}
	}
	return 0;
}

CUresult CUDAAPI cuMemMap(CUdeviceptr ptr, size_t size, size_t offset,
			  CUmemGenericAllocationHandle handle,
			  unsigned long long flags)
{
	CUresult rc = CUDA_ERROR_INVALID_VALUE;
	struct mhandle *h;
	void *p;

	pthread_mutex_lock(&mock_lock);
	h = handle_of(handle);
	if (!h || offset || flags || !size || (ptr % GRANULE) ||
	    (size % GRANULE) || size > h->size || !reserved(ptr, size) ||
	    nr_maps == MAX_RANGES) {
		goto out;
	}
	for (unsigned i = 0; i < nr_maps; i++) {
		if (ptr < maps[i].start + maps[i].size &&
		    maps[i].start < ptr + size) {
			goto out;	/* mapped already */
		}
	}
	p = mmap((void *)ptr, size, PROT_NONE, MAP_SHARED | MAP_FIXED, h->fd,
		 0);
	if (p == MAP_FAILED) {
		rc = CUDA_ERROR_OUT_OF_MEMORY;
		goto out;
	}
	maps[nr_maps].start = ptr;
	maps[nr_maps].size = size;
	maps[nr_maps].h = h;
	maps[nr_maps].access = 0;
	nr_maps++;
	h->maps++;
	rc = CUDA_SUCCESS;
out:
	pthread_mutex_unlock(&mock_lock);
	return rc;
}

/*
 * The mappings that make up [@ptr, @ptr + @size) exactly, marked in
 * @which; 0 when they do not. Locked.
 */
static int exact_maps(uintptr_t ptr, size_t size, unsigned char *which)
{
	uintptr_t at = ptr;

	memset(which, 0, MAX_RANGES);
	while (at < ptr + size) {
		unsigned i;
		for (i = 0; i < nr_maps; i++) {
			if (maps[i].start == at) {
				break;
			}
		}
		if (i == nr_maps || maps[i].size > ptr + size - at) {
			return 0;
		}
		which[i] = 1;
		at += maps[i].size;
	}
	return size > 0;
}

CUresult CUDAAPI cuMemSetAccess(CUdeviceptr ptr, size_t size,
				const CUmemAccessDesc *desc, size_t count)
{
	static unsigned char which[MAX_RANGES];
	CUresult rc = CUDA_ERROR_INVALID_VALUE;

	if (!desc || count != 1 ||
	    desc[0].location.type != CU_MEM_LOCATION_TYPE_DEVICE ||
	    desc[0].location.id != 0 ||
	    desc[0].flags != CU_MEM_ACCESS_FLAGS_PROT_READWRITE) {
		return CUDA_ERROR_INVALID_VALUE;
	}
	pthread_mutex_lock(&mock_lock);
	if (exact_maps(ptr, size, which) &&
	    mprotect((void *)ptr, size, PROT_READ | PROT_WRITE) == 0) {
		for (unsigned i = 0; i < nr_maps; i++) {
			maps[i].access |= which[i];
		}
		rc = CUDA_SUCCESS;
	}
	pthread_mutex_unlock(&mock_lock);
	return rc;
}

CUresult CUDAAPI cuMemUnmap(CUdeviceptr ptr, size_t size)
{
	static unsigned char which[MAX_RANGES];
	CUresult rc = CUDA_ERROR_INVALID_VALUE;

	/* Work still queued may use the memory: as for cuMemFree. */
	mock_device_sync();
	pthread_mutex_lock(&mock_lock);
	if (exact_maps(ptr, size, which)) {
		unsigned k = 0;
		/* Back to inaccessible reserved memory. */
		mmap((void *)ptr, size, PROT_NONE,
		     MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED | MAP_NORESERVE,
		     -1, 0);
		for (unsigned i = 0; i < nr_maps; i++) {
			if (which[i]) {
				struct mhandle *h = maps[i].h;
				h->maps--;
				handle_drop(h);
			} else {
				maps[k++] = maps[i];
			}
		}
		nr_maps = k;
		rc = CUDA_SUCCESS;
	}
	pthread_mutex_unlock(&mock_lock);
	return rc;
}
