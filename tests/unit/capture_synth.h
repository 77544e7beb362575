/* SPDX-License-Identifier: MIT */
/*
 * The synthetic event sequence of the capture round-trip tests: shared by
 * the emitter (tests/unit/capture_emitter.c, which drives it through the
 * real libgpumix-capture.so emit layer and LTTng provider) and the checker
 * (test_capture_roundtrip.c, which reads the bundle back). Every event
 * kind appears, every recorded call of the API table appears as an entry
 * and an exit, and every payload path is exercised: inline data, inline
 * and blob payloads (contiguous, 2-D and 3-D, one repeated to test
 * deduplication), result hashes, module images of each kind and from a
 * file, and names.
 *
 * Event i of thread t carries correlation id i + SYNTH_THREAD_STRIDE * t
 * (an exit carries its entry's, i - 1, as CUPTI does), so the checker
 * knows what to expect from any event it reads.
 */
#ifndef GM_TEST_CAPTURE_SYNTH_H
#define GM_TEST_CAPTURE_SYNTH_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "api.h"
#include "blob_store.h"
#include "record.h"

#define SYNTH_THREAD_STRIDE 100000u
#define SYNTH_BIG 65536		/* > GM_INLINE_MAX: goes to blobs/ */
#define SYNTH_SMALL 100		/* inline */

enum synth_payload {
	SYNTH_NONE,
	SYNTH_DATA,		/* gm_capture_data, filled with the pattern */
	SYNTH_PAYLOAD,		/* gm_capture_payload of a span */
	SYNTH_HASH,		/* gm_capture_hash of a span */
	SYNTH_IMAGE,		/* gm_capture_image of a built image */
	SYNTH_IMAGE_FILE,	/* gm_capture_image_file of a written file */
};

enum synth_image { SYNTH_FATBIN_WRAPPED, SYNTH_FATBIN, SYNTH_CUBIN, SYNTH_PTX };

struct synth {
	enum gm_event_kind kind;
	uint16_t api;
	int32_t status;
	uint32_t rt_corr;
	unsigned nr_args;
	uint64_t args[GM_RECORD_MAX_ARGS];
	enum synth_payload payload;
	size_t width, height, depth, pitch;	/* span of the payload */
	unsigned seed;
	enum synth_image image;
	const char *str;
};

/* Deterministic bytes. */
static inline void synth_fill(void *buf, size_t len, unsigned seed)
{
	uint8_t *p = buf;
	uint32_t x = seed * 2654435761u + 12345u;

	for (size_t i = 0; i < len; i++) {
		x = x * 1103515245u + 12345u;
		p[i] = (uint8_t)(x >> 16);
	}
}

/* The recorded calls, in table order. */
static inline int synth_call(unsigned n)
{
	unsigned k = 0;

	for (int a = 0; a < GM_API_COUNT; a++) {
		if (gm_api_table[a].cls != GM_CLASS_REPLAYED) {
			continue;
		}
		if (k++ == n) {
			return a;
		}
	}
	return -1;
}

static inline unsigned synth_nr_calls(void)
{
	unsigned k = 0;

	for (int a = 0; a < GM_API_COUNT; a++) {
		k += gm_api_table[a].cls == GM_CLASS_REPLAYED;
	}
	return k;
}

/* Fixed events before and after the calls. */
#define SYNTH_HEAD 2		/* process, device */
#define SYNTH_TAIL 10		/* rt_enter, rt_exit, d2h_hash, layout, 3 act,
				 * a repeated blob, a 2-D and a 3-D payload */

static inline unsigned synth_count(void)
{
	return SYNTH_HEAD + 2 * synth_nr_calls() + SYNTH_TAIL;
}

static inline void synth_args(struct synth *s, unsigned n, unsigned i)
{
	s->nr_args = n;
	for (unsigned k = 0; k < n; k++) {
		s->args[k] = ((uint64_t)i << 32) ^ (k * 0x9e3779b97f4a7c15ULL) ^
			     (k & 1 ? 0xffffffff00000000ULL : 0);
	}
}

static inline void synth_span(struct synth *s, size_t w, size_t h, size_t d,
			      size_t pitch, unsigned seed)
{
	s->width = w;
	s->height = h;
	s->depth = d;
	s->pitch = pitch;
	s->seed = seed;
}

/* Does a call's exit repeat its words (it has outputs or special words)? */
static inline int synth_exit_words(int api)
{
	for (unsigned k = 0; k < gm_api_table[api].nr_args; k++) {
		if (gm_api_table[api].args[k].dir != GM_DIR_IN) {
			return 1;
		}
	}
	return 0;
}

/* Describe event @i (of any thread). */
static inline void synth_get(unsigned i, struct synth *s)
{
	unsigned calls = synth_nr_calls();

	memset(s, 0, sizeof(*s));
	s->str = "";
	if (i == 0) {
		s->kind = GM_EV_PROCESS;
		synth_args(s, GM_NR_WORDS(gm_ev_process), i);
		s->str = "/synthetic/program";
		return;
	}
	if (i == 1) {
		s->kind = GM_EV_DEVICE;
		synth_args(s, GM_NR_WORDS(gm_ev_device), i);
		s->str = "Synthetic GPU";
		return;
	}
	if (i < SYNTH_HEAD + 2 * calls) {
		unsigned c = (i - SYNTH_HEAD) / 2;
		int exit = (i - SYNTH_HEAD) % 2;
		int api = synth_call(c);
		const struct gm_api_desc *d = &gm_api_table[api];

		s->kind = exit ? GM_EV_EXIT : GM_EV_ENTER;
		s->api = (uint16_t)api;
		/* Calls succeed: a failed call makes the capture warn (its
		 * status is kept: test_capture_cupti, capture_failed.sh). */
		s->status = 0;
		s->rt_corr = c % 4 ? 7000 + c : 0;
		/* Entry and exit of a call carry the same words. */
		synth_args(s, d->nr_args, 100000 + c);
		switch (d->special) {
		case GM_SP_H2D:
		case GM_SP_MEMCPY:
		case GM_SP_MEMCPY_ASYNC:
			if (!exit) {
				s->payload = SYNTH_PAYLOAD;
				synth_span(s, c % 2 ? SYNTH_BIG : SYNTH_SMALL, 1, 1,
					   0, c);
			}
			break;
		case GM_SP_COPY2D:
		case GM_SP_COPY2D_ASYNC:
		case GM_SP_COPY3D:
		case GM_SP_COPY3D_ASYNC:
			s->payload = exit ? SYNTH_HASH : SYNTH_PAYLOAD;
			synth_span(s, 700, 64, 1, 1024, c);
			break;
		case GM_SP_D2H:
		case GM_SP_D2H_ASYNC:
			if (exit) {
				s->payload = SYNTH_HASH;
				synth_span(s, 4096 + c, 1, 1, 0, c);
			}
			break;
		case GM_SP_LAUNCH:
		case GM_SP_LAUNCH_COOP:
		case GM_SP_LAUNCH_EX:
		case GM_SP_TEXOBJ_CREATE:
		case GM_SP_SURFOBJ_CREATE:
			if (!exit) {
				s->payload = SYNTH_DATA;
				synth_span(s, 40 + c, 1, 1, 0, c);
			}
			break;
		case GM_SP_GET_KERNEL:
		case GM_SP_GET_FUNCTION:
			s->str = "_Z6kernelPfS_i";
			if (exit) {
				s->payload = SYNTH_DATA;
				synth_span(s, 24, 1, 1, 0, c);
			}
			break;
		case GM_SP_GET_GLOBAL:
			s->str = "constant_table";
			break;
		case GM_SP_MODULE_DATA:
		case GM_SP_MODULE_FATBIN:
		case GM_SP_LIBRARY_DATA:
			if (!exit) {
				s->payload = SYNTH_IMAGE;
				s->image = (enum synth_image)(c % 4);
				s->seed = c;
			}
			break;
		case GM_SP_MODULE_FILE:
		case GM_SP_LIBRARY_FILE:
			if (!exit) {
				s->payload = SYNTH_IMAGE_FILE;
				s->image = SYNTH_PTX;
				s->seed = c;
				s->str = "synthetic-module.ptx";
			}
			break;
		default:
			break;
		}
		return;
	}
	switch (i - SYNTH_HEAD - 2 * calls) {
	case 0:
		s->kind = GM_EV_RT_ENTER;
		s->api = 211;
		s->str = "cudaMemcpy";
		break;
	case 1:
		s->kind = GM_EV_RT_EXIT;
		s->api = 211;
		s->status = 1;
		s->str = "cudaMemcpy";
		break;
	case 2:
		s->kind = GM_EV_D2H_HASH;
		s->api = (uint16_t)GM_API_cuMemcpyDtoHAsync_v2;
		synth_args(s, GM_NR_WORDS(gm_ev_d2h_hash), i);
		s->payload = SYNTH_HASH;
		synth_span(s, 3000, 1, 1, 0, 77);
		break;
	case 3:
		s->kind = GM_EV_LAYOUT;
		synth_args(s, GM_NR_WORDS(gm_ev_layout), i);
		s->payload = SYNTH_DATA;
		synth_span(s, 16, 1, 1, 0, 78);
		s->str = "_Z11discoveredv";
		break;
	case 4:
		s->kind = GM_EV_ACT_KERNEL;
		synth_args(s, GM_NR_WORDS(gm_ev_act_kernel), i);
		s->str = "_Z6kernelPfS_i";
		break;
	case 5:
		s->kind = GM_EV_ACT_MEMCPY;
		synth_args(s, GM_NR_WORDS(gm_ev_act_memcpy), i);
		break;
	case 6:
		s->kind = GM_EV_ACT_MEMSET;
		synth_args(s, GM_NR_WORDS(gm_ev_act_memset), i);
		break;
	case 7:
		/* The same bytes as the first big H2D payload: deduplicated. */
		s->kind = GM_EV_ENTER;
		s->api = (uint16_t)GM_API_cuMemcpyHtoD_v2;
		synth_args(s, gm_api_table[GM_API_cuMemcpyHtoD_v2].nr_args, i);
		s->payload = SYNTH_PAYLOAD;
		synth_span(s, SYNTH_BIG, 1, 1, 0, 1000);
		break;
	case 8:
		s->kind = GM_EV_ENTER;
		s->api = (uint16_t)GM_API_cuMemcpyHtoD_v2;
		synth_args(s, gm_api_table[GM_API_cuMemcpyHtoD_v2].nr_args, i);
		s->payload = SYNTH_PAYLOAD;
		synth_span(s, SYNTH_BIG, 1, 1, 0, 1000);
		break;
	case 9:
		/* A 3-D payload small enough to stay inline. */
		s->kind = GM_EV_ENTER;
		s->api = (uint16_t)GM_API_cuMemcpy3D_v2;
		synth_args(s, gm_api_table[GM_API_cuMemcpy3D_v2].nr_args, i);
		s->payload = SYNTH_PAYLOAD;
		synth_span(s, 10, 4, 3, 16, 79);
		break;
	}
}

/*
 * The host buffer behind a span payload: depth slices of height rows of
 * pitch bytes (pitch 0: width); the caller frees. @packed gets the packed
 * bytes the bundle must hold (caller frees).
 */
static inline void *synth_buffer(const struct synth *s, struct gm_span *span,
				 uint8_t **packed)
{
	size_t pitch = s->pitch ? s->pitch : s->width;
	size_t total = pitch * s->height * s->depth;
	uint8_t *buf = malloc(total ? total : 1);
	size_t n = s->width * s->height * s->depth;

	synth_fill(buf, total, s->seed);
	span->base = buf;
	span->width = s->width;
	span->height = s->height;
	span->depth = s->depth;
	span->pitch = pitch;
	span->slice_pitch = pitch * s->height;
	*packed = malloc(n ? n : 1);
	gm_span_pack(span, *packed);
	return buf;
}

/* A code image of kind s->image; sets the bytes that must be stored. */
static inline void *synth_image(const struct synth *s, const void **stored,
				size_t *stored_len, void **extra)
{
	uint8_t *img;
	size_t n;

	*extra = NULL;
	switch (s->image) {
	case SYNTH_FATBIN_WRAPPED:
	case SYNTH_FATBIN: {
		uint32_t magic = 0xBA55ED50u;
		uint16_t ver = 1, hdr = 16;
		uint64_t payload = 3000 + s->seed;
		n = 16 + payload;
		img = malloc(n);
		synth_fill(img, n, s->seed);
		memcpy(img, &magic, 4);
		memcpy(img + 4, &ver, 2);
		memcpy(img + 6, &hdr, 2);
		memcpy(img + 8, &payload, 8);
		*stored = img;
		*stored_len = n;
		if (s->image == SYNTH_FATBIN_WRAPPED) {
			uint8_t *w = calloc(1, 24);
			uint32_t wm = 0x466243b1u, wv = 1;
			memcpy(w, &wm, 4);
			memcpy(w + 4, &wv, 4);
			memcpy(w + 8, &img, sizeof(void *));
			*extra = img;
			return w;
		}
		return img;
	}
	case SYNTH_CUBIN: {
		/* A minimal ELF64: header, two sections, section headers. */
		uint8_t *e;
		n = 64 + 200 + 2 * 64;
		e = calloc(1, n);
		synth_fill(e + 64, 200, s->seed);
		memcpy(e, "\177ELF", 4);
		e[4] = 2;	/* ELFCLASS64 */
		e[5] = 1;
		{
			uint64_t shoff = 64 + 200;
			uint16_t shentsize = 64, shnum = 2;
			uint32_t progbits = 1;
			uint64_t off = 64, size = 200;
			memcpy(e + 0x28, &shoff, 8);
			memcpy(e + 0x3a, &shentsize, 2);
			memcpy(e + 0x3c, &shnum, 2);
			/* section 1: PROGBITS at 64, 200 bytes */
			memcpy(e + shoff + 64 + 4, &progbits, 4);
			memcpy(e + shoff + 64 + 0x18, &off, 8);
			memcpy(e + shoff + 64 + 0x20, &size, 8);
		}
		*stored = e;
		*stored_len = n;
		return e;
	}
	case SYNTH_PTX: {
		static const char ptx[] = ".version 8.0\n.target sm_90\n"
					  ".address_size 64\n// synthetic\n";
		n = sizeof(ptx);
		img = malloc(n);
		memcpy(img, ptx, n);
		*stored = img;
		*stored_len = n;
		return img;
	}
	}
	return NULL;
}

#endif
