/* SPDX-License-Identifier: MIT */
/*
 * The helpers every model file builds on (model_int.h): operations,
 * warnings, unsupported calls, stream, event and address look-ups. They
 * call no other model file, so that the others never call round a circle.
 */
#include "model_int.h"

#include <assert.h>
#include <stddef.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "error.h"
#include "fs.h"
#include "hash.h"
#include "instance_name.h"

#define STREAM_LEGACY_HANDLE 0x1	/* CU_STREAM_LEGACY */
#define STREAM_PER_THREAD_HANDLE 0x2	/* CU_STREAM_PER_THREAD */

/* "event 12 (cuMemcpyHtoD_v2): " prefix of every per-call message. */
#define EVF "event %" PRIu64 " (%s): "

static int canonical_hash(const char *in, char out[33])
{
	char lower[33];
	struct gm_hash h;
	size_t i;

	if (!in) {
		return -1;
	}
	for (i = 0; i < 32 && in[i]; i++) {
		lower[i] = (char)((in[i] >= 'A' && in[i] <= 'F') ? in[i] + 32 :
								 in[i]);
	}
	lower[i] = 0;
	if (in[i] || gm_hash_parse(lower, &h) < 0) {
		return -1;
	}
	gm_hash_hex(h, out);
	return 0;
}


/* ---- helpers ---- */

static void warn(struct model_prog *p, uint64_t ev, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static void warn(struct model_prog *p, uint64_t ev, const char *fmt, ...)
{
	struct strbuf sb = STRBUF_INIT;
	va_list ap;

	va_start(ap, fmt);
	strbuf_vaddf(&sb, fmt, ap);
	va_end(ap);
	GM_ALLOC_GROW(p->warnings, p->nr_warnings + 1, p->alloc_warnings);
	p->warnings[p->nr_warnings].event = ev;
	p->warnings[p->nr_warnings].text = strbuf_detach(&sb, NULL);
	p->nr_warnings++;
}

static struct mop *add_op(struct model_prog *p, uint64_t ev, const char *api,
			  unsigned code)
{
	struct mop *op;

	GM_ALLOC_GROW(p->ops, p->nr_ops + 1, p->alloc_ops);
	op = &p->ops[p->nr_ops++];
	memset(op, 0, sizeof(*op));
	op->code = (uint8_t)code;
	op->event = ev;
	op->api = gm_strmap_intern(&p->strings, api ? api : "?");
	op->tid = p->cur_tid;
	op->host_in = p->cur_in;
	op->host_out = p->cur_out;
	return op;
}

static int check_open(struct model_prog *p)
{
	if (p->m->finished) {
		return gm_error("the model of '%s' is already finished",
				p->name);
	}
	return 0;
}

static int stream_id(struct model_prog *p, uint64_t ev, const char *api,
		     uint64_t handle, uint16_t *out)
{
	uint32_t id;

	if (handle == 0 || handle == STREAM_LEGACY_HANDLE) {
		*out = 0;
		return 0;
	}
	if (handle == STREAM_PER_THREAD_HANDLE) {
		if (!p->ptds) {
			GM_ALLOC_GROW(p->streams, p->nr_streams + 1,
				      p->alloc_streams);
			p->streams[p->nr_streams].d.flags = GM_STREAM_BLOCKING;
			p->streams[p->nr_streams].d.priority = 0;
			p->streams[p->nr_streams].live = 1;
			p->ptds = (uint32_t)p->nr_streams++;
		}
		*out = (uint16_t)p->ptds;
		return 0;
	}
	if (!handle_map_get(&p->stream_map, handle, &id)) {
		return gm_error(EVF "unknown stream 0x%" PRIx64, ev, api,
				handle);
	}
	*out = (uint16_t)id;
	return 0;
}

static int event_id(struct model_prog *p, uint64_t ev, const char *api,
		    uint64_t handle, uint32_t *out)
{
	if (!handle_map_get(&p->event_map, handle, out)) {
		return gm_error(EVF "unknown event 0x%" PRIx64, ev, api,
				handle);
	}
	return 0;
}

/* For model_graph.c (model_int.h). */
struct mop *model_op_add(struct model_prog *p, uint64_t ev, const char *api,
			 unsigned code)
{
	return add_op(p, ev, api, code);
}

int model_check_open(struct model_prog *p)
{
	return check_open(p);
}

int model_stream_lookup(struct model_prog *p, uint64_t ev, const char *api,
			uint64_t handle, uint16_t *out)
{
	return stream_id(p, ev, api, handle, out);
}

int model_event_lookup(struct model_prog *p, uint64_t ev, const char *api,
		       uint64_t handle, uint32_t *out)
{
	return event_id(p, ev, api, handle, out);
}

int model_device_address(const struct model_prog *p, uint64_t addr)
{
	return addr_map_find(&p->dev, addr, 0) != NULL;
}

int model_canonical_hash(const char *in, char out[33])
{
	return canonical_hash(in, out);
}

/*
 * A device address of a copy, memset or texture: the live region holding
 * [addr, addr + size) becomes a reference and an offset.
 */
static int resolve_dev(struct model_prog *p, uint64_t ev, const char *api,
		       const char *what, uint64_t addr, uint64_t size,
		       uint32_t *ref, uint64_t *off)
{
	const struct addr_region *r = addr_map_find(&p->dev, addr, size == 0);

	if (!r) {
		if (addr_map_is_dead(&p->dev, addr)) {
			return gm_error(EVF "%s 0x%" PRIx64 " points into freed "
					"device memory", ev, api, what, addr);
		}
		return gm_error(EVF "%s 0x%" PRIx64 " is not inside a live "
				"device allocation or global", ev, api, what,
				addr);
	}
	if (size > r->size - (addr - r->start)) {
		return gm_error(EVF "%" PRIu64 " bytes at %s 0x%" PRIx64
				" run past the end of %s %" PRIu32 " (%" PRIu64
				" bytes, event %" PRIu64 ")", ev, api, size,
				what, addr,
				r->kind == GM_REF_GLOBAL ? "global" :
				r->kind == GM_REF_HOSTMEM ?
				"mapped or managed memory" : "allocation",
				r->id, r->size, r->event);
	}
	*ref = r->kind | r->id;
	*off = addr - r->start;
	if (r->kind == GM_REF_HOSTMEM) {
		p->hostmems[r->id].used = 1;
	}
	return 0;
}

int model_host_pinned(struct model_prog *p, uint64_t hptr, uint64_t size)
{
	const struct addr_region *r = addr_map_find(&p->host, hptr, 0);

	return r && size <= r->size - (hptr - r->start);
}


int model_resolve_device(struct model_prog *p, uint64_t ev, const char *api,
			 const char *what, uint64_t addr, uint64_t size,
			 uint32_t *ref, uint64_t *off)
{
	return resolve_dev(p, ev, api, what, addr, size, ref, off);
}


void model_add_unsupported(struct model_prog *p, uint64_t ev, const char *api)
{
	GM_ALLOC_GROW(p->unsupported, p->nr_unsup_list + 1,
		      p->alloc_unsup_list);
	p->unsupported[p->nr_unsup_list].event = ev;
	p->unsupported[p->nr_unsup_list].text = gm_xstrdup(api ? api : "?");
	p->nr_unsup_list++;
	p->nr_unsupported++;
}

void model_add_warning(struct model_prog *p, uint64_t ev, const char *fmt, ...)
{
	struct strbuf sb = STRBUF_INIT;
	va_list ap;

	va_start(ap, fmt);
	strbuf_vaddf(&sb, fmt, ap);
	va_end(ap);
	warn(p, ev, "%s", sb.buf);
	strbuf_release(&sb);
}

int model_unsupported_call(const struct model *m, uint64_t i,
			   const char **prog, uint64_t *ev, const char **api)
{
	for (size_t k = 0; k < m->nr_progs; k++) {
		const struct model_prog *p = m->progs[k];
		if (i < p->nr_unsup_list) {
			*prog = p->name;
			*ev = p->unsupported[i].event;
			*api = p->unsupported[i].text;
			return 0;
		}
		i -= p->nr_unsup_list;
	}
	return -1;
}

uint64_t model_nr_unsupported(const struct model *m)
{
	uint64_t n = 0;

	for (size_t i = 0; i < m->nr_progs; i++) {
		n += m->progs[i]->nr_unsupported;
	}
	return n;
}


enum gm_op_group model_op_group(unsigned code)
{
	static const enum gm_op_group groups[GM_OP_COUNT] = {
#define GM_OP_GROUP_(name, what, group, traits, operands) [GM_OP_##name] = group,
#define GM_OPND_NONE_(field, kind)
		GM_OPS(GM_OP_GROUP_, GM_OPND_NONE_)
#undef GM_OP_GROUP_
#undef GM_OPND_NONE_
	};
	return code < GM_OP_COUNT ? groups[code] : GM_OPG_OTHER;
}

/* ---- operations from their GM_OPS row ---- */

/* How model_add_op() takes an operand of each GM_OPS kind: a captured
 * handle to look up (STREAM, EVENT), or the value itself. */
enum { OPND_END, OPND_STREAM, OPND_EVENT, OPND_VALUE };
#define OPND_OF_STREAM OPND_STREAM
#define OPND_OF_EVENT OPND_EVENT
#define OPND_OF_FLAGS OPND_VALUE
#define OPND_OF_REF OPND_VALUE
#define OPND_OF_ALLOC OPND_VALUE
#define OPND_OF_LAUNCH OPND_VALUE
#define OPND_OF_TEXTURE OPND_VALUE
#define OPND_OF_TEXDESC OPND_VALUE
#define OPND_OF_CHECK OPND_VALUE
#define OPND_OF_BLOB OPND_VALUE
#define OPND_OF_HOST OPND_VALUE
#define OPND_OF_NUM OPND_VALUE
#define OPND_OF_ADDR OPND_VALUE
#define OPND_OF_COPYDESC OPND_VALUE
#define OPND_OF_ARRAY OPND_VALUE
#define OPND_OF_GRAPH OPND_VALUE
#define OPND_OF_EXEC OPND_VALUE
#define OPND_OF_NODE OPND_VALUE
#define MAX_OPNDS 8

struct opnd {
	unsigned char how, size;	/* OPND_*, the field's bytes */
	unsigned short off;		/* in struct mop */
};

static const struct opnd opnds[GM_OP_COUNT][MAX_OPNDS] = {
#define GM_OPND_(field, kind)                                                  \
	{ OPND_OF_##kind, sizeof(((struct mop *)0)->field),                    \
	  offsetof(struct mop, field) },
#define GM_OP_(name, what, group, traits, operands)                            \
	[GM_OP_##name] = { operands },
	GM_OPS(GM_OP_, GM_OPND_)
#undef GM_OP_
#undef GM_OPND_
};

static void put_field(struct mop *op, const struct opnd *o, uint64_t v)
{
	char *at = (char *)op + o->off;

	switch (o->size) {
	case 1: *(uint8_t *)at = (uint8_t)v; break;
	case 2: *(uint16_t *)at = (uint16_t)v; break;
	case 4: *(uint32_t *)at = (uint32_t)v; break;
	default: *(uint64_t *)at = v; break;
	}
}

struct mop *model_add_op_at(struct model_prog *p, uint64_t ev,
			    const char *api, const uint64_t *v, size_t nr)
{
	unsigned code = (unsigned)v[0];
	uint64_t val[MAX_OPNDS];
	struct mop *op;
	size_t n;

	assert(code < GM_OP_COUNT);
	for (n = 0; n < MAX_OPNDS && opnds[code][n].how != OPND_END; n++)
		;
	assert(nr == n + 1);	/* the operands of the GM_OPS row, no more */
	if (check_open(p) < 0) {
		return NULL;
	}
	for (size_t i = 0; i < n; i++) {
		const struct opnd *o = &opnds[code][i];
		uint16_t s;
		uint32_t e;

		val[i] = v[i + 1];
		if (o->how == OPND_STREAM) {
			if (stream_id(p, ev, api, v[i + 1], &s) < 0) {
				return NULL;
			}
			val[i] = s;
		} else if (o->how == OPND_EVENT) {
			if (event_id(p, ev, api, v[i + 1], &e) < 0) {
				return NULL;
			}
			val[i] = e;
		}
	}
	op = add_op(p, ev, api, code);
	for (size_t i = 0; i < n; i++) {
		put_field(op, &opnds[code][i], val[i]);
	}
	return op;
}
