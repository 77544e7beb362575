/* SPDX-License-Identifier: MIT */
/*
 * The bundle reader (see trace_reader.h). The babeltrace2 graph runs one
 * step at a time: the simple sink only queues the messages it receives,
 * and trace_reader_next() decodes one queued message per call, keeping it
 * referenced until the next call so that strings can be borrowed. Field
 * positions are looked up by name once per event class. This file opens
 * the bundle (the manifest and API table: trace_bundle.c; the graph:
 * trace_graph.c; the decoding: trace_decode.c), checks that babeltrace2
 * reads it through, and answers what the reader knows.
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

const char *gm_event_name(const struct gm_event *ev)
{
	if ((ev->kind == GM_EV_ENTER || ev->kind == GM_EV_EXIT ||
	     ev->kind == GM_EV_D2H_HASH || ev->kind == GM_EV_HOST_FUNC) &&
	    ev->api >= 0 && ev->api < GM_API_COUNT) {
		return gm_api_table[ev->api].name;
	}
	if ((ev->kind == GM_EV_RT_ENTER || ev->kind == GM_EV_RT_EXIT ||
	     ev->kind == GM_EV_UNSUPPORTED) && ev->str[0]) {
		return ev->str;
	}
	return gm_event_kind_name(ev->kind) ? gm_event_kind_name(ev->kind) : "?";
}


static int decodes_cleanly(const struct trace_reader *r)
{
	const char *v = kvfile_get(&r->manifest, "complete");

	return !(r->flags & GM_READER_RAW) && r->verified && v &&
	       !strcmp(v, "yes");
}

/*
 * In the child of check_decodes(): read the trace through as the reader
 * will, past the errors of gpumix's own checks (a caller may read on
 * after them), up to the end of the graph or its failure. The components
 * log their errors (to the pipe check_decodes() reads).
 */
static int read_through(void *ctx)
{
	struct trace_reader *r = ctx;
	const struct gm_event *ev;
	int rc;

	if (trace_build_graph(r, BT_LOGGING_LEVEL_ERROR)) {
		return -1;
	}
	do {
		rc = trace_reader_next(r, &ev);
		gm_error_clear();
	} while (rc && !r->failed);
	return rc;
}

/*
 * Read the trace once in a child process before reading it here, unless
 * decodes_cleanly(). babeltrace2 2.0.4 ends the process on some damaged
 * streams whatever its caller does: the ctf source, failing to decode a
 * packet after it decoded messages, returns those with a success status
 * and leaves its error on the thread; filter.utils.muxer, in the same
 * call, asks the next stream for messages, and the library's precondition
 * check aborts ("API function called while current thread has an error:
 * bt_packet_create", issue 26). gpumix gets no control between the two,
 * and which bytes do it cannot be told without decoding them, which only
 * babeltrace2 does (the index and metadata checks of common/ctf_files.h
 * catch what can be). A child that babeltrace2 kills is an error naming
 * the trace, with what babeltrace2 printed. The price is a second
 * decoding where the trace is not known clean: the capture's own reading,
 * bundles of formats before 3, incomplete ones.
 */
static int check_decodes(struct trace_reader *r)
{
	struct strbuf log = STRBUF_INIT;
	const char *trace;
	int st;

	if (!r->nr_traces || decodes_cleanly(r)) {
		return 0;
	}
	st = gm_call_in_child(read_through, r, &log);
	if (st < 0) {
		strbuf_release(&log);
		return gm_error("cannot check the trace of bundle '%s'", r->dir);
	}
	if (WIFEXITED(st)) {
		/* Read through, or failed as a reading here will. */
		strbuf_release(&log);
		return 0;
	}
	trace = gm_bt_push_log(log.buf, r->trace_dirs, r->nr_traces);
	if (!trace && r->nr_traces == 1) {
		trace = r->trace_dirs[0];
	}
	strbuf_release(&log);
	if (gm_child_crashed(st)) {
		gm_error("babeltrace2 crashed reading it: the reading process "
			 "%s", gm_child_status(st));
		if (trace) {
			gm_error("the CTF trace '%s' is damaged",
				 trace + strlen(r->dir) + 1);
		} else {
			gm_error("one of the CTF traces under '%s/ctf' is "
				 "damaged", r->dir);
		}
	} else {
		gm_error("the check of the trace %s", gm_child_status(st));
	}
	return gm_error("cannot read the trace of bundle '%s'", r->dir);
}

int trace_reader_open(struct trace_reader **out, const char *dir,
		      unsigned flags)
{
	struct trace_reader *r = gm_xcalloc(1, sizeof(*r));

	r->dir = gm_xstrdup(dir);
	r->flags = flags;
	kvfile_init(&r->manifest);
	strbuf_init(&r->data, 0);
	const char *why = gm_why_not_dir(dir);
	if (why) {
		if (!gm_path_exists(dir)) {
			gm_error("bundle '%s' does not exist", dir);
		} else if (!strcmp(why, "not a directory")) {
			gm_error("'%s' is not a gpumix bundle (not a directory)", dir);
		} else {
			/* a dangling link, a link loop, no permission */
			gm_error("cannot open bundle '%s': %s", dir, why);
		}
		goto fail;
	}
	if (!(flags & GM_READER_RAW) && trace_read_manifest(r)) {
		goto fail;
	}
	if (trace_read_api_table(r)) {
		goto fail;
	}
	if (trace_check_files(r) || trace_list_traces(r) || check_decodes(r) ||
	    trace_build_graph(r, BT_LOGGING_LEVEL_NONE)) {
		if (!(flags & GM_READER_ALLOW_INCOMPLETE)) {
			goto fail;
		}
		/* Inspection tools show the manifest, then this error. */
		r->broken = trace_save_causes();
		gm_error_clear();
	}
	*out = r;
	return 0;
fail:
	trace_reader_free(r);
	*out = NULL;
	return -1;
}


const struct kvfile *trace_reader_manifest(const struct trace_reader *r)
{
	return &r->manifest;
}

const char *trace_reader_dir(const struct trace_reader *r)
{
	return r->dir;
}

int trace_reader_host_time(const struct trace_reader *r)
{
	return r->format >= GM_BUNDLE_FORMAT_HOST_TIME;
}

size_t trace_reader_verified_files(const struct trace_reader *r)
{
	return r->verified;
}

unsigned trace_reader_format(const struct trace_reader *r)
{
	return r->format;
}

uint64_t trace_reader_discarded(const struct trace_reader *r)
{
	return r->discarded;
}

int trace_reader_payload(struct trace_reader *r, const struct gm_event *ev,
			 struct strbuf *out)
{
	char *dir;
	int ret;

	if (!(ev->flags & GM_RF_BLOB)) {
		strbuf_add(out, ev->data, ev->data_len);
		return 0;
	}
	if (ev->flags & GM_RF_FAILED) {
		return gm_error("event %" PRIu64 " (%s): its payload could not be "
				"stored during capture", ev->index,
				gm_event_name(ev));
	}
	dir = gm_path_join(r->dir, "blobs");
	ret = blob_store_read(dir, ev->blob, "", ev->blob_size, out);
	free(dir);
	if (ret) {
		return gm_error("event %" PRIu64 " (%s): cannot read its payload",
				ev->index, gm_event_name(ev));
	}
	return 0;
}

char *trace_reader_module_path(struct trace_reader *r,
			       const struct gm_event *ev)
{
	char hex[GM_HASH_HEX_LEN + 1];
	unsigned kind = (ev->flags & GM_RF_IMAGE_MASK) >> GM_RF_IMAGE_SHIFT;
	char *path;

	if (!(ev->flags & GM_RF_MODULE) || (ev->flags & GM_RF_FAILED)) {
		gm_error("event %" PRIu64 " (%s) has no stored module image",
			 ev->index, gm_event_name(ev));
		return NULL;
	}
	gm_hash_hex(ev->blob, hex);
	path = gm_xasprintf("%s/modules/%s%s", r->dir, hex, gm_image_suffix(kind));
	if (!gm_path_exists(path)) {
		gm_error("module image '%s' of event %" PRIu64 " is missing", path,
			 ev->index);
		free(path);
		return NULL;
	}
	return path;
}

int trace_reader_module(struct trace_reader *r, const struct gm_event *ev,
			struct strbuf *out)
{
	unsigned kind = (ev->flags & GM_RF_IMAGE_MASK) >> GM_RF_IMAGE_SHIFT;
	char *dir;
	int ret;

	if (!(ev->flags & GM_RF_MODULE) || (ev->flags & GM_RF_FAILED)) {
		return gm_error("event %" PRIu64 " (%s) has no stored module image",
				ev->index, gm_event_name(ev));
	}
	dir = gm_path_join(r->dir, "modules");
	ret = blob_store_read(dir, ev->blob, gm_image_suffix(kind), ev->blob_size,
			      out);
	free(dir);
	return ret;
}

void trace_reader_free(struct trace_reader *r)
{
	if (!r) {
		return;
	}
	if (r->cur) {
		bt_message_put_ref(r->cur);
	}
	for (size_t i = r->q_head; i < r->q_len; i++) {
		bt_message_put_ref(r->queue[i]);
	}
	free(r->queue);
	if (r->pending) {
		bt_error_release(r->pending);
	}
	free(r->failed);
	for (size_t t = 0; t < r->nr_traces; t++) {
		free(r->trace_dirs[t]);
	}
	free(r->trace_dirs);
	bt_graph_put_ref(r->graph);
	bt_plugin_put_ref(r->ctf_plugin);
	bt_plugin_put_ref(r->utils_plugin);
	for (size_t i = 0; i < r->nr_api_map; i++) {
		free(r->api_names[i]);
	}
	free(r->api_names);
	free(r->api_map);
	free(r->classes);
	free(r->entries);
	kvfile_release(&r->manifest);
	strbuf_release(&r->data);
	free(r->broken);
	free(r->dir);
	free(r);
}

void trace_reader_keep(struct trace_reader *r,
		       int (*keep)(void *ctx, uint32_t pid), void *ctx)
{
	r->keep = keep;
	r->keep_ctx = ctx;
}
