/* SPDX-License-Identifier: MIT */
/*
 * The bundle reader's babeltrace2 graph (the sink queueing its messages,
 * the plugins, the traces found), the checks of the trace files before
 * babeltrace2 reads them, and the error causes kept for later.
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

static bt_graph_simple_sink_component_initialize_func_status
sink_init(bt_message_iterator *it, void *data)
{
	(void)it;
	(void)data;
	return BT_GRAPH_SIMPLE_SINK_COMPONENT_INITIALIZE_FUNC_STATUS_OK;
}

static bt_graph_simple_sink_component_consume_func_status
sink_consume(bt_message_iterator *it, void *data)
{
	struct trace_reader *r = data;
	bt_message_array_const msgs;
	uint64_t count = 0;

	switch (bt_message_iterator_next(it, &msgs, &count)) {
	case BT_MESSAGE_ITERATOR_NEXT_STATUS_OK:
		break;
	case BT_MESSAGE_ITERATOR_NEXT_STATUS_END:
		return BT_GRAPH_SIMPLE_SINK_COMPONENT_CONSUME_FUNC_STATUS_END;
	case BT_MESSAGE_ITERATOR_NEXT_STATUS_AGAIN:
		return BT_GRAPH_SIMPLE_SINK_COMPONENT_CONSUME_FUNC_STATUS_AGAIN;
	case BT_MESSAGE_ITERATOR_NEXT_STATUS_MEMORY_ERROR:
		return BT_GRAPH_SIMPLE_SINK_COMPONENT_CONSUME_FUNC_STATUS_MEMORY_ERROR;
	default:
		return BT_GRAPH_SIMPLE_SINK_COMPONENT_CONSUME_FUNC_STATUS_ERROR;
	}
	if (r->q_head == r->q_len) {
		r->q_head = r->q_len = 0;
	}
	GM_ALLOC_GROW(r->queue, r->q_len + count, r->q_alloc);
	for (uint64_t i = 0; i < count; i++) {
		r->queue[r->q_len++] = msgs[i];	/* we own these references */
	}
	return BT_GRAPH_SIMPLE_SINK_COMPONENT_CONSUME_FUNC_STATUS_OK;
}

/*
 * The plugins found so far, each held for the life of the process: a
 * plugin whose last reference goes is unloaded (babeltrace2 2.0 closes its
 * shared object), so that every reader would load them all again, and a
 * leak of a plugin's own that the sanitizers report at exit would name no
 * module (tests/lsan.supp suppresses the plugins' leaks by their names).
 * gpumix reads traces from one thread.
 */
static struct {
	const char *name;
	const bt_plugin *plugin;
} plugin_cache[] = { { "ctf", NULL }, { "utils", NULL } };

static int find_plugin(const char *name, const bt_plugin **out)
{
	size_t n = sizeof(plugin_cache) / sizeof(plugin_cache[0]), i;
	bt_plugin_find_status st;

	for (i = 0; i < n && strcmp(plugin_cache[i].name, name); i++) {
	}
	if (i < n && plugin_cache[i].plugin) {
		bt_plugin_get_ref(plugin_cache[i].plugin);
		*out = plugin_cache[i].plugin;
		return 0;
	}
	st = bt_plugin_find(name, BT_TRUE, BT_TRUE, BT_TRUE, BT_TRUE, BT_FALSE,
			    out);
	if (st == BT_PLUGIN_FIND_STATUS_OK) {
		if (i < n) {
			bt_plugin_get_ref(*out);	/* the cache's */
			plugin_cache[i].plugin = *out;
		}
		return 0;
	}
	if (st == BT_PLUGIN_FIND_STATUS_NOT_FOUND) {
		gm_error("babeltrace2 plugin '%s' not found", name);
		gm_error_hint("install babeltrace2 or set BABELTRACE_PLUGIN_PATH "
			      "to its plugin directory");
		return -1;
	}
	return gm_bt_fail("cannot load babeltrace2 plugins");
}

/* Directories under @dir holding a CTF "metadata" file, sorted. */
static void find_traces(const char *dir, int depth, char ***list, size_t *nr,
			size_t *alloc)
{
	DIR *d = opendir(dir);
	struct dirent *de;
	char *meta = gm_path_join(dir, "metadata");

	if (gm_path_exists(meta)) {
		GM_ALLOC_GROW(*list, *nr + 1, *alloc);
		(*list)[(*nr)++] = gm_xstrdup(dir);
	}
	free(meta);
	while (d && depth < 8 && (de = readdir(d))) {
		char *sub;
		if (de->d_name[0] == '.') {
			continue;
		}
		sub = gm_path_join(dir, de->d_name);
		if (gm_is_dir(sub)) {
			find_traces(sub, depth + 1, list, nr, alloc);
		}
		free(sub);
	}
	if (d) {
		closedir(d);
	}
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* The CTF traces of the bundle (r->trace_dirs), sorted. */
int trace_list_traces(struct trace_reader *r)
{
	char *ctf = gm_path_join(r->dir, "ctf");
	size_t alloc = 0;
	int ret = 0;

	if (gm_is_dir(ctf)) {
		find_traces(ctf, 0, &r->trace_dirs, &r->nr_traces, &alloc);
		if (r->nr_traces) {
			qsort(r->trace_dirs, r->nr_traces, sizeof(char *),
			      cmp_str);
		}
	} else if (!(r->flags & GM_READER_RAW)) {
		ret = gm_error("bundle '%s' has no ctf/ trace directory", r->dir);
	}
	free(ctf);
	return ret;
}

/*
 * The graph over the traces trace_list_traces() found, its components logging
 * at @level (to stderr: only read_through() asks for any).
 */
int trace_build_graph(struct trace_reader *r, bt_logging_level level)
{
	const bt_component_class_source *src_cls;
	const bt_component_class_filter *mux_cls;
	const bt_component_filter *mux;
	const bt_component_sink *sink;
	char **traces = r->trace_dirs;
	size_t nr = r->nr_traces;
	uint64_t mux_port = 0;
	int ret = -1;

	if (!nr) {
		r->ended = 1;	/* nothing was traced: an empty stream */
		return 0;
	}
	if (find_plugin("ctf", &r->ctf_plugin) ||
	    find_plugin("utils", &r->utils_plugin)) {
		goto out;
	}
	src_cls = bt_plugin_borrow_source_component_class_by_name_const(
		r->ctf_plugin, "fs");
	mux_cls = bt_plugin_borrow_filter_component_class_by_name_const(
		r->utils_plugin, "muxer");
	if (!src_cls || !mux_cls) {
		gm_error("babeltrace2 lacks source.ctf.fs or filter.utils.muxer");
		goto out;
	}
	r->graph = bt_graph_create(0);
	if (!r->graph ||
	    bt_graph_add_filter_component(r->graph, mux_cls, "muxer", NULL,
					  level, &mux) ||
	    bt_graph_add_simple_sink_component(r->graph, "sink", sink_init,
					       sink_consume, NULL, r, &sink)) {
		gm_bt_fail("cannot build the trace graph");
		goto out;
	}
	for (size_t t = 0; t < nr; t++) {
		const bt_component_source *src;
		bt_value *params, *inputs = NULL;
		char name[32], *meta = gm_path_join(traces[t], "metadata");
		struct stat sb;
		int bad;

		bad = stat(meta, &sb) || sb.st_size == 0;
		free(meta);
		if (bad) {
			gm_error("trace '%s' of bundle '%s' has an empty metadata file",
				 traces[t] + strlen(r->dir) + 1, r->dir);
			gm_error_hint("the disk was probably full during the capture");
			goto out;
		}
		params = bt_value_map_create();
		snprintf(name, sizeof(name), "source-%zu", t);
		if (!params ||
		    bt_value_map_insert_empty_array_entry(params, "inputs", &inputs) ||
		    bt_value_array_append_string_element(inputs, traces[t])) {
			bt_value_put_ref(params);
			gm_error("out of memory building the trace graph");
			goto out;
		}
		bad = bt_graph_add_source_component(r->graph, src_cls, name, params,
						    level, &src);
		bt_value_put_ref(params);
		if (bad) {
			gm_bt_fail("cannot open a CTF trace");
			gm_error("cannot read trace '%s' of bundle '%s'",
				 traces[t] + strlen(r->dir) + 1, r->dir);
			goto out;
		}
		for (uint64_t i = 0; i < bt_component_source_get_output_port_count(src);
		     i++) {
			const bt_port_output *op =
				bt_component_source_borrow_output_port_by_index_const(
					src, i);
			const bt_port_input *ip =
				bt_component_filter_borrow_input_port_by_index_const(
					mux, mux_port++);
			if (!ip || bt_graph_connect_ports(r->graph, op, ip, NULL)) {
				gm_bt_fail("cannot connect the trace graph");
				goto out;
			}
		}
	}
	if (bt_graph_connect_ports(
		    r->graph,
		    bt_component_filter_borrow_output_port_by_index_const(mux, 0),
		    bt_component_sink_borrow_input_port_by_index_const(sink, 0),
		    NULL)) {
		gm_bt_fail("cannot connect the trace graph");
		goto out;
	}
	ret = 0;
out:
	return ret;
}

/* The recorded causes, oldest first, one a line (caller frees). */
char *trace_save_causes(void)
{
	struct strbuf sb = STRBUF_INIT;

	for (int i = gm_error_count() - 1; i >= 0; i--) {
		strbuf_addstr(&sb, gm_error_cause(i));
		strbuf_addch(&sb, '\n');
	}
	return strbuf_detach(&sb, NULL);
}

/* Record again the causes trace_save_causes() kept in @saved; returns -1. */
int trace_restore_causes(const char *saved)
{
	while (*saved) {
		const char *nl = strchrnul(saved, '\n');
		gm_error("%.*s", (int)(nl - saved), saved);
		saved = *nl ? nl + 1 : nl;
	}
	return -1;
}

/*
 * The trace's files before babeltrace2 sees them: their hashes where the
 * manifest has them (it must, from GM_BUNDLE_FORMAT_CTF_HASH on), each
 * index against its stream everywhere.
 */
int trace_check_files(struct trace_reader *r)
{
	const struct kvfile *m = r->flags & GM_READER_RAW ? NULL : &r->manifest;

	if (m && r->format >= GM_BUNDLE_FORMAT_CTF_HASH &&
	    !kvfile_get(m, GM_CTF_FILES_KEY)) {
		gm_error("the manifest of bundle '%s' (format %u) lacks the "
			 "hashes of its trace files ('%s')", r->dir, r->format,
			 GM_CTF_FILES_KEY);
		return -1;
	}
	if (gm_ctf_files_verify(r->dir, m, &r->verified)) {
		gm_error("cannot read the trace files of bundle '%s'", r->dir);
		gm_error_hint("capture again, or use a whole copy of the bundle");
		return -1;
	}
	return 0;
}

/*
 * Whether babeltrace2 is known to decode the trace to its end without an
 * error: every trace file matched the capture's hash (so is the bytes the
 * capture read) and the bundle is complete (so the capture's own reading,
 * a raw one checked in a child by check_decodes(), ended without an
 * error: one that failed makes the bundle incomplete, capture/bundle.c).
 * babeltrace2 decodes the same bytes the same way; a failure-free
 * decoding leaves no error for it to abort on.
 */
