/* SPDX-License-Identifier: MIT */
/*
 * The bundle reader's decoding of one queued message into an event.
 */
#include "trace_reader_int.h"

#include <babeltrace2/babeltrace.h>
#include <ctype.h>
#include <dirent.h>
#include <sys/stat.h>
#include <stdio.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>

#include "blob_store.h"
#include "bt_report.h"
#include "child_call.h"
#include "ctf_files.h"
#include "image.h"
#include "error.h"
#include "fs.h"
#include "strbuf.h"


static const char *const field_names[NR_FIELDS] = {
	"api", "flags", "corr", "rt_corr", "status", "args", "data_len",
	"data", "blob_hi", "blob_lo", "blob_size", "str", "host_ns",
};

/* The format that added each member (a bundle of an older format lacks
 * it: the reader gives 0). */
static const unsigned field_since[NR_FIELDS] = {
	[F_HOST_NS] = GM_BUNDLE_FORMAT_HOST_TIME,
};

/*
 * What each member must be: an integer (an enumeration is one: `api` of
 * the call kinds names its call, bundle-format.md), an array of unsigned
 * integers, or a string. A member of another type makes the class foreign
 * rather than reach a babeltrace2 accessor of the wrong type.
 */
enum { T_INT, T_INT_ARRAY, T_STRING };
static const int field_types[NR_FIELDS] = {
	T_INT, T_INT, T_INT, T_INT, T_INT, T_INT_ARRAY, T_INT, T_INT_ARRAY,
	T_INT, T_INT, T_INT, T_STRING, T_INT,
};

static int64_t member_index(const bt_field_class *fc, const char *name)
{
	uint64_t n;

	if (!fc || bt_field_class_get_type(fc) != BT_FIELD_CLASS_TYPE_STRUCTURE) {
		return -1;
	}
	n = bt_field_class_structure_get_member_count(fc);
	for (uint64_t i = 0; i < n; i++) {
		const bt_field_class_structure_member *m =
			bt_field_class_structure_borrow_member_by_index_const(fc, i);
		if (!strcmp(bt_field_class_structure_member_get_name(m), name)) {
			return (int64_t)i;
		}
	}
	return -1;
}

/* Is member @i of structure class @fc of kind @want (T_*)? */
static int member_is(const bt_field_class *fc, int64_t i, int want)
{
	const bt_field_class *m = bt_field_class_structure_member_borrow_field_class_const(
		bt_field_class_structure_borrow_member_by_index_const(fc, (uint64_t)i));
	bt_field_class_type t = bt_field_class_get_type(m);

	switch (want) {
	case T_INT:
		return bt_field_class_type_is(t, BT_FIELD_CLASS_TYPE_INTEGER);
	case T_INT_ARRAY:
		return bt_field_class_type_is(t, BT_FIELD_CLASS_TYPE_ARRAY) &&
		       bt_field_class_type_is(bt_field_class_get_type(
				bt_field_class_array_borrow_element_field_class_const(m)),
				BT_FIELD_CLASS_TYPE_UNSIGNED_INTEGER);
	default:
		return t == BT_FIELD_CLASS_TYPE_STRING;
	}
}

static struct class_info *class_of(struct trace_reader *r,
				   const bt_event_class *ec)
{
	const char *name = bt_event_class_get_name(ec);
	const bt_stream_class *sc = bt_event_class_borrow_stream_class_const(ec);
	const bt_field_class *pfc, *cfc;
	struct class_info *ci;

	for (size_t i = 0; i < r->nr_classes; i++) {
		if (r->classes[i].ec == ec) {
			return &r->classes[i];
		}
	}
	GM_ALLOC_GROW(r->classes, r->nr_classes + 1, r->alloc_classes);
	ci = &r->classes[r->nr_classes++];
	ci->ec = ec;
	ci->kind = -1;
	if (name && !strncmp(name, "gpumix_capture:", 15)) {
		ci->kind = gm_event_kind_lookup(name + 15);
	}
	pfc = bt_event_class_borrow_payload_field_class_const(ec);
	for (int f = 0; f < NR_FIELDS; f++) {
		ci->fields[f] = member_index(pfc, field_names[f]);
		if (ci->fields[f] >= 0 &&
		    !member_is(pfc, ci->fields[f], field_types[f])) {
			ci->fields[f] = -1;
		}
		/* A member newer than the bundle's format may be absent (in
		 * a raw reading, whose format is unknown, any such one). */
		if (ci->kind >= 0 && ci->fields[f] < 0 &&
		    (!field_since[f] ||
		     (r->format && r->format >= field_since[f]))) {
			ci->kind = -2;	/* our name, foreign layout */
		}
	}
	cfc = sc ? bt_stream_class_borrow_event_common_context_field_class_const(sc)
		 : NULL;
	ci->vpid = member_index(cfc, "vpid");
	ci->vtid = member_index(cfc, "vtid");
	if (ci->vpid >= 0 && !member_is(cfc, ci->vpid, T_INT)) {
		ci->vpid = -1;
	}
	if (ci->vtid >= 0 && !member_is(cfc, ci->vtid, T_INT)) {
		ci->vtid = -1;
	}
	return ci;
}

static const bt_field *member(const bt_field *s, int64_t i)
{
	return bt_field_structure_borrow_member_field_by_index_const(s, (uint64_t)i);
}

static uint64_t uval(const bt_field *s, int64_t i)
{
	const bt_field *f = member(s, i);
	bt_field_class_type t = bt_field_get_class_type(f);

	if (bt_field_class_type_is(t, BT_FIELD_CLASS_TYPE_SIGNED_INTEGER)) {
		return (uint64_t)bt_field_integer_signed_get_value(f);
	}
	return bt_field_integer_unsigned_get_value(f);
}

static struct last_entry *last_entry(struct trace_reader *r, uint32_t pid,
				     uint32_t tid)
{
	for (size_t i = 0; i < r->nr_entries; i++) {
		if (r->entries[i].pid == pid && r->entries[i].tid == tid) {
			return &r->entries[i];
		}
	}
	GM_ALLOC_GROW(r->entries, r->nr_entries + 1, r->alloc_entries);
	memset(&r->entries[r->nr_entries], 0, sizeof(r->entries[0]));
	r->entries[r->nr_entries].pid = pid;
	r->entries[r->nr_entries].tid = tid;
	r->entries[r->nr_entries].api = -1;
	return &r->entries[r->nr_entries++];
}

/*
 * Entries are remembered; an exit recorded without its argument words
 * (a call without outputs) gets them back from its entry.
 */
static int complete_exit(struct trace_reader *r, struct gm_event *ev)
{
	struct last_entry *e = last_entry(r, ev->pid, ev->tid);

	if (ev->kind == GM_EV_ENTER) {
		e->corr = ev->corr;
		e->api = ev->api;
		e->nr_args = ev->nr_args;
		memcpy(e->args, ev->args, ev->nr_args * sizeof(uint64_t));
		return 0;
	}
	if (ev->nr_args || ev->api < 0 || !gm_api_table[ev->api].nr_args) {
		return 0;
	}
	if (e->api != ev->api || e->corr != ev->corr) {
		return gm_error("event %" PRIu64 " (%s): exit without its entry",
				ev->index, gm_api_table[ev->api].name);
	}
	ev->nr_args = e->nr_args;
	memcpy(ev->args, e->args, e->nr_args * sizeof(uint64_t));
	return 0;
}

/*
 * The file of @bev's stream, relative to the bundle, for messages: the
 * ctf source names each stream by the path of its data file.
 */
static const char *stream_file(const struct trace_reader *r, const bt_event *bev)
{
	const bt_stream *s = bt_event_borrow_stream_const(bev);
	const char *name = s ? bt_stream_get_name(s) : NULL;
	size_t n = strlen(r->dir);

	if (!name) {
		return "?";
	}
	if (!strncmp(name, r->dir, n) && name[n] == '/') {
		return name + n + 1;
	}
	return name;
}

static int decode_event(struct trace_reader *r, const bt_message *msg)
{
	const bt_event *bev = bt_message_event_borrow_event_const(msg);
	const bt_event_class *ec = bt_event_borrow_class_const(bev);
	struct class_info *ci = class_of(r, ec);
	const bt_field *p = bt_event_borrow_payload_field_const(bev);
	const bt_field *ctx = bt_event_borrow_common_context_field_const(bev);
	const bt_clock_snapshot *cs;
	struct gm_event *ev = &r->ev;
	const bt_field *arr;
	uint64_t n, data_len;

	ev->index = r->index;
	if (ci->kind < 0) {
		return gm_error("event %" PRIu64 " ('%s') is not a gpumix event",
				r->index, bt_event_class_get_name(ec) ?
						  bt_event_class_get_name(ec) : "?");
	}
	ev->kind = (enum gm_event_kind)ci->kind;
	ev->time_ns = 0;
	if (bt_message_event_borrow_stream_class_default_clock_class_const(msg)) {
		cs = bt_message_event_borrow_default_clock_snapshot_const(msg);
		if (bt_clock_snapshot_get_ns_from_origin(cs, &ev->time_ns) !=
		    BT_CLOCK_SNAPSHOT_GET_NS_FROM_ORIGIN_STATUS_OK) {
			/* A damaged timestamp (the call leaves an error on
			 * the thread: taken here). */
			gm_bt_push_causes(bt_current_thread_take_error());
			return gm_error("event %" PRIu64 " in '%s': its time "
					"is out of range (the stream is damaged)",
					r->index, stream_file(r, bev));
		}
	}
	ev->pid = ctx && ci->vpid >= 0 ? (uint32_t)uval(ctx, ci->vpid) : 0;
	ev->tid = ctx && ci->vtid >= 0 ? (uint32_t)uval(ctx, ci->vtid) : 0;
	if (r->keep && !r->keep(r->keep_ctx, ev->pid)) {
		/* Another capture's process, perhaps of another gpumix whose
		 * call table differs: its words are not ours to check. */
		ev->api = -1;
		ev->raw_api = 0;
		ev->nr_args = 0;
		ev->flags = 0;
		ev->str = "";
		ev->data = NULL;
		ev->data_len = 0;
		return 0;
	}
	ev->raw_api = (unsigned)uval(p, ci->fields[F_API]);
	ev->flags = (unsigned)uval(p, ci->fields[F_FLAGS]);
	ev->corr = (uint32_t)uval(p, ci->fields[F_CORR]);
	ev->rt_corr = (uint32_t)uval(p, ci->fields[F_RT_CORR]);
	ev->status = (int32_t)uval(p, ci->fields[F_STATUS]);
	ev->blob.hi = uval(p, ci->fields[F_BLOB_HI]);
	ev->blob.lo = uval(p, ci->fields[F_BLOB_LO]);
	ev->blob_size = uval(p, ci->fields[F_BLOB_SIZE]);
	ev->host_ns = ci->fields[F_HOST_NS] >= 0 ?
			      uval(p, ci->fields[F_HOST_NS]) : 0;
	ev->str = bt_field_string_get_value(member(p, ci->fields[F_STR]));
	if (!ev->str || !strcmp(ev->str, GM_EMPTY_STR)) {
		ev->str = "";
	}

	arr = member(p, ci->fields[F_ARGS]);
	n = bt_field_array_get_length(arr);
	if (n > GM_RECORD_MAX_ARGS) {
		return gm_error("event %" PRIu64 " has %" PRIu64 " argument words "
				"(at most %d)", r->index, n, GM_RECORD_MAX_ARGS);
	}
	ev->nr_args = (unsigned)n;
	for (uint64_t i = 0; i < n; i++) {
		ev->args[i] = bt_field_integer_unsigned_get_value(
			bt_field_array_borrow_element_field_by_index_const(arr, i));
	}

	data_len = uval(p, ci->fields[F_DATA_LEN]);
	arr = member(p, ci->fields[F_DATA]);
	n = bt_field_array_get_length(arr);
	if (data_len > n * 8 || data_len + 7 < n * 8) {
		return gm_error("event %" PRIu64 ": data length %" PRIu64
				" does not match its %" PRIu64 " words",
				r->index, data_len, n);
	}
	strbuf_reset(&r->data);
	strbuf_grow(&r->data, n * 8);
	for (uint64_t i = 0; i < n; i++) {
		uint64_t w = bt_field_integer_unsigned_get_value(
			bt_field_array_borrow_element_field_by_index_const(arr, i));
		memcpy(r->data.buf + i * 8, &w, 8);
	}
	strbuf_setlen(&r->data, (size_t)data_len);
	ev->data = data_len ? (const uint8_t *)r->data.buf : NULL;
	ev->data_len = (size_t)data_len;

	{
		const char *const *names = gm_event_arg_names(ev->kind);
		unsigned want = 0, need = gm_event_min_words(ev->kind);
		while (names && names[want]) {
			want++;
		}
		if (names && ev->nr_args < need) {
			return gm_error("event %" PRIu64 " (%s) has %u argument words, "
					"at least %u expected", r->index,
					gm_event_kind_name(ev->kind), ev->nr_args,
					need);
		}
		for (unsigned i = ev->nr_args; i < want; i++) {
			ev->args[i] = 0;
		}
	}
	ev->api = -1;
	if (ev->kind == GM_EV_ENTER || ev->kind == GM_EV_EXIT ||
	    ev->kind == GM_EV_D2H_HASH || ev->kind == GM_EV_HOST_FUNC) {
		/* d2h_hash and host_func name the call they belong to. */
		int call = ev->kind == GM_EV_ENTER || ev->kind == GM_EV_EXIT;
		int m = ev->raw_api < r->nr_api_map ? r->api_map[ev->raw_api]
						     : API_UNMAPPED;
		if (m >= 0) {
			ev->api = m;
			if (call && complete_exit(r, ev)) {
				return -1;
			}
			if (call &&
			    ev->nr_args != gm_api_table[m].nr_args) {
				return gm_error("event %" PRIu64 " (%s): %u argument "
						"words, the API table says %u",
						r->index, gm_api_table[m].name,
						ev->nr_args,
						gm_api_table[m].nr_args);
			}
		} else if (!(r->flags & GM_READER_ALLOW_UNKNOWN)) {
			const char *name = ev->raw_api < r->nr_api_map &&
						   r->api_names[ev->raw_api] ?
					   r->api_names[ev->raw_api] : "?";
			if (m == API_CHANGED) {
				return gm_error("event %" PRIu64 ": call '%s' was "
						"recorded with a different argument "
						"layout than this gpumix knows",
						r->index, name);
			}
			return gm_error("event %" PRIu64 ": call id %u ('%s') is "
					"not known to this gpumix", r->index,
					ev->raw_api, name);
		}
	}
	return 0;
}

static int discarded(struct trace_reader *r, const bt_message *msg, int packets)
{
	uint64_t count = 0;
	int have;
	const bt_clock_snapshot *b = NULL, *e = NULL;
	int64_t bns = 0, ens = 0;

	if (packets) {
		have = bt_message_discarded_packets_get_count(msg, &count) ==
		       BT_PROPERTY_AVAILABILITY_AVAILABLE;
	} else {
		have = bt_message_discarded_events_get_count(msg, &count) ==
		       BT_PROPERTY_AVAILABILITY_AVAILABLE;
		if (bt_message_discarded_events_borrow_stream_class_default_clock_class_const(msg)) {
			b = bt_message_discarded_events_borrow_beginning_default_clock_snapshot_const(msg);
			e = bt_message_discarded_events_borrow_end_default_clock_snapshot_const(msg);
			if (bt_clock_snapshot_get_ns_from_origin(b, &bns) ||
			    bt_clock_snapshot_get_ns_from_origin(e, &ens)) {
				/* Out of range: the times are left out. */
				bt_error_release(bt_current_thread_take_error());
				bns = ens = 0;
			}
		}
	}
	if (!have || !count) {
		count = 1;
	}
	r->discarded += count;
	if (r->flags & (GM_READER_ALLOW_LOSSY | GM_READER_RAW)) {
		return 0;
	}
	if (packets) {
		gm_error("the tracer lost %" PRIu64 " packets of events", count);
	} else {
		gm_error("the tracer discarded %" PRIu64 " events between %.6f s "
			 "and %.6f s", count, bns / 1e9, ens / 1e9);
	}
	return gm_error("bundle '%s' is missing events (before event %" PRIu64 ")",
			r->dir, r->index);
}

/* At the end: the manifest says how many events the capture found. */
static int check_count(struct trace_reader *r)
{
	uint64_t want;

	if (r->count_checked || (r->flags & (GM_READER_RAW | GM_READER_ALLOW_LOSSY)) ||
	    !kvfile_get(&r->manifest, "events.found")) {
		return 0;
	}
	r->count_checked = 1;
	if (kvfile_get_u64(&r->manifest, "events.found", &want, "manifest")) {
		return -1;
	}
	if (want != r->index) {
		gm_error("bundle '%s' holds %" PRIu64 " events, its manifest says %"
			 PRIu64, r->dir, r->index, want);
		gm_error_hint("the bundle was changed after capture; capture again");
		return -1;
	}
	return 0;
}

/*
 * The graph failed with babeltrace2 error @err (owned, may be NULL): the
 * trace cannot be read on. Every later call says so again.
 */
static int decode_failed(struct trace_reader *r, const bt_error *err)
{
	char *file = gm_bt_error_file(err, r->trace_dirs, r->nr_traces);
	size_t n = file ? strlen(file) : 0;

	r->pending = NULL;
	gm_bt_push_causes(err);
	if (n && file[n - 1] == '/') {
		gm_error("cannot decode trace '%.*s' (one of its stream files is "
			 "damaged)", (int)n - 1, file);
	} else if (file) {
		gm_error("cannot decode trace file '%s' (the file is damaged)",
			 file);
	} else {
		gm_error("cannot decode the trace");
	}
	gm_error("bundle '%s': trace unreadable after event %" PRIu64, r->dir,
		 r->index);
	r->failed = trace_save_causes();
	free(file);
	return -1;
}

int trace_reader_next(struct trace_reader *r, const struct gm_event **out)
{
	if (r->cur) {
		bt_message_put_ref(r->cur);
		r->cur = NULL;
	}
	if (r->broken) {
		return trace_restore_causes(r->broken);
	}
	for (;;) {
		const bt_message *msg;

		while (r->q_head == r->q_len) {
			bt_graph_run_once_status st;
			if (r->failed) {
				return trace_restore_causes(r->failed);
			}
			if (r->pending) {
				return decode_failed(r, r->pending);
			}
			if (r->ended) {
				return check_count(r) ? -1 : 0;
			}
			st = bt_graph_run_once(r->graph);
			/* Whatever the status: an error left on the thread
			 * is a decoding error, and must not reach the graph's
			 * next call (it aborts the process). */
			r->pending = bt_current_thread_take_error();
			if (st == BT_GRAPH_RUN_ONCE_STATUS_END) {
				r->ended = 1;
			} else if (st != BT_GRAPH_RUN_ONCE_STATUS_OK &&
				   st != BT_GRAPH_RUN_ONCE_STATUS_AGAIN) {
				return decode_failed(r, r->pending);
			}
		}
		msg = r->queue[r->q_head++];
		switch (bt_message_get_type(msg)) {
		case BT_MESSAGE_TYPE_EVENT:
			r->cur = msg;
			if (decode_event(r, msg)) {
				return -1;
			}
			r->index++;
			*out = &r->ev;
			return 1;
		case BT_MESSAGE_TYPE_DISCARDED_EVENTS:
		case BT_MESSAGE_TYPE_DISCARDED_PACKETS: {
			int bad = discarded(r, msg,
					    bt_message_get_type(msg) ==
						    BT_MESSAGE_TYPE_DISCARDED_PACKETS);
			bt_message_put_ref(msg);
			if (bad) {
				return -1;
			}
			break;
		}
		default:
			/* Stream and packet boundaries carry nothing we use. */
			bt_message_put_ref(msg);
			break;
		}
	}
}
