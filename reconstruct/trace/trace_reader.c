/* SPDX-License-Identifier: MIT */
/*
 * The bundle reader (see trace_reader.h). The babeltrace2 graph runs one
 * step at a time: the simple sink only queues the messages it receives,
 * and trace_reader_next() decodes one queued message per call, keeping it
 * referenced until the next call so that strings can be borrowed. Field
 * positions are looked up by name once per event class.
 */
#include "trace_reader.h"

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

/* Payload members of the gpumix_capture classes (`call` and `record`). */
enum {
	F_API, F_FLAGS, F_CORR, F_RT_CORR, F_STATUS, F_ARGS, F_DATA_LEN, F_DATA,
	F_BLOB_HI, F_BLOB_LO, F_BLOB_SIZE, F_STR, F_HOST_NS, NR_FIELDS
};

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

/* What we know about one event class (cached by pointer). */
struct class_info {
	const bt_event_class *ec;
	int kind;			/* enum gm_event_kind, or -1: foreign */
	int64_t fields[NR_FIELDS];
	int64_t vpid, vtid;		/* common context members */
};

/* Bundle call id -> this gpumix's id. */
enum { API_UNMAPPED = -1, API_UNKNOWN = -2, API_CHANGED = -3 };

/* The last entry of each thread, to complete exits that omit their words. */
struct last_entry {
	uint32_t pid, tid, corr;
	int api;
	unsigned nr_args;
	uint64_t args[GM_RECORD_MAX_ARGS];
};

struct trace_reader {
	char *dir;
	unsigned flags;
	int (*keep)(void *ctx, uint32_t pid);	/* trace_reader_keep() */
	void *keep_ctx;
	struct kvfile manifest;
	unsigned format;		/* the manifest's version; 0: raw */
	int *api_map;			/* by bundle id */
	char **api_names;		/* bundle's names, for messages */
	size_t nr_api_map;

	bt_graph *graph;
	const bt_plugin *ctf_plugin, *utils_plugin;
	int ended;

	const bt_message **queue;	/* owned references */
	size_t q_head, q_len, q_alloc;
	const bt_message *cur;		/* the message @ev borrows from */

	struct class_info *classes;
	size_t nr_classes, alloc_classes;

	size_t nr_traces;		/* CTF traces (one per process) */
	char **trace_dirs;		/* their directories, source-N's at N */
	size_t verified;		/* trace files checked by hash */
	char *broken;			/* why the trace cannot be read, or NULL
					 * (its causes, save_causes()) */
	/*
	 * A decoding error babeltrace2 left on the thread while handing out
	 * the messages decoded before it (babeltrace2 2.0.4's ctf source
	 * returns them with a success status and the error still set, and
	 * the next call into the graph then aborts the process): taken at
	 * once, reported when those messages are consumed. After it the
	 * graph is never run again (@failed: the message to repeat).
	 */
	const bt_error *pending;
	char *failed;
	int count_checked;
	struct last_entry *entries;
	size_t nr_entries, alloc_entries;
	uint64_t index;
	uint64_t discarded;
	struct gm_event ev;
	struct strbuf data;
};

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

/* ---- bundle files --------------------------------------------------------- */

/* Are the manifest's @losses all unsupported calls (and allowed)? */
static int only_unsupported(struct trace_reader *r, const char *losses)
{
	const char *u = kvfile_get(&r->manifest, "loss.unsupported_calls");
	char *end;
	unsigned long long n, k;

	if (!(r->flags & GM_READER_ALLOW_UNSUPPORTED) || !losses || !u) {
		return 0;
	}
	n = strtoull(losses, &end, 10);
	if (*end || end == losses) {
		return 0;
	}
	k = strtoull(u, &end, 10);
	return !*end && end != u && n == k;
}

static int read_manifest(struct trace_reader *r)
{
	char *path = gm_path_join(r->dir, "manifest");
	const char *v;
	int ret = -1;

	if (!gm_path_exists(path)) {
		gm_error("'%s' is not a gpumix bundle (it has no manifest)", r->dir);
		if (gm_path_exists(r->dir) && !gm_is_dir(r->dir)) {
			gm_error_hint("a bundle is a directory made by 'gpumix capture'");
		}
		goto out;
	}
	if (kvfile_read(&r->manifest, path)) {
		gm_error("cannot read the manifest of bundle '%s'", r->dir);
		goto out;
	}
	v = kvfile_get(&r->manifest, "format");
	if (!v) {
		gm_error("manifest of '%s' has no format line", r->dir);
		goto out;
	}
	{
		size_t n = strlen(GM_BUNDLE_FORMAT_PREFIX);
		char *end;
		unsigned long f = 0;

		if (!strncmp(v, GM_BUNDLE_FORMAT_PREFIX, n) && v[n] >= '1' &&
		    v[n] <= '9') {
			f = strtoul(v + n, &end, 10);
			if (*end) {
				f = 0;
			}
		}
		if (f < GM_BUNDLE_FORMAT_MIN || f > GM_BUNDLE_FORMAT_VERSION) {
			gm_error("bundle '%s' has format '%s'; this gpumix reads "
				 "'%s%d' to '%s'", r->dir, v,
				 GM_BUNDLE_FORMAT_PREFIX, GM_BUNDLE_FORMAT_MIN,
				 GM_BUNDLE_FORMAT);
			gm_error_hint("use the gpumix version that made it, or "
				      "capture again");
			goto out;
		}
		r->format = (unsigned)f;
	}
	v = kvfile_get(&r->manifest, "complete");
	if ((!v || strcmp(v, "yes")) &&
	    !(r->flags & GM_READER_ALLOW_INCOMPLETE)) {
		const char *why = kvfile_get(&r->manifest, "incomplete");
		gm_error("bundle '%s' is incomplete: %s", r->dir,
			 why ? why : "the capture did not finish");
		gm_error_hint("capture again; 'gpumix trace info' shows what it holds");
		goto out;
	}
	v = kvfile_get(&r->manifest, "losses");
	uint64_t losses;
	if (v && kvfile_get_u64(&r->manifest, "losses", &losses, path)) {
		/* A damaged manifest, whatever the reader tolerates. */
		gm_error("the manifest of bundle '%s' is damaged", r->dir);
		goto out;
	}
	if ((!v || strcmp(v, "0")) && !(r->flags & GM_READER_ALLOW_LOSSY) &&
	    !only_unsupported(r, v)) {
		const char *why = kvfile_get(&r->manifest, "losses.summary");
		gm_error("bundle '%s' lost data: %s", r->dir,
			 why ? why : v ? v : "loss counters missing");
		gm_error_hint("'gpumix trace info' lists the losses; capture again");
		goto out;
	}
	ret = 0;
out:
	free(path);
	return ret;
}

/* api-table: "ID SIGNATURE" lines, SIGNATURE as gm_api_signature() writes. */
static int read_api_table(struct trace_reader *r)
{
	char *path = gm_path_join(r->dir, "api-table");
	struct strbuf sb = STRBUF_INIT;
	char *line, *save = NULL;
	int ret = -1, lineno = 0;

	if (gm_read_file(path, &sb)) {
		gm_error("bundle '%s' has no readable api-table", r->dir);
		goto out;
	}
	for (line = strtok_r(sb.buf, "\n", &save); line;
	     line = strtok_r(NULL, "\n", &save)) {
		char *end, *sig, *sp;
		unsigned long id;
		char own[1024];
		size_t namelen;
		int api;

		lineno++;
		if (!*line || *line == '#') {
			continue;
		}
		id = strtoul(line, &end, 10);
		if (end == line || *end != ' ' || id > 65535) {
			gm_error("%s:%d: malformed line", path, lineno);
			goto out;
		}
		sig = end + 1;
		sp = strchr(sig, ' ');
		namelen = sp ? (size_t)(sp - sig) : strlen(sig);
		if (id >= r->nr_api_map) {
			size_t n = id + 1;
			r->api_map = gm_xrealloc(r->api_map, n * sizeof(int));
			r->api_names = gm_xrealloc(r->api_names, n * sizeof(char *));
			for (size_t i = r->nr_api_map; i < n; i++) {
				r->api_map[i] = API_UNMAPPED;
				r->api_names[i] = NULL;
			}
			r->nr_api_map = n;
		}
		free(r->api_names[id]);
		r->api_names[id] = gm_xasprintf("%.*s", (int)namelen, sig);
		api = gm_api_lookup(r->api_names[id]);
		if (api < 0) {
			r->api_map[id] = API_UNKNOWN;
			continue;
		}
		gm_api_signature(api, own, sizeof(own));
		r->api_map[id] = strcmp(own, sig) ? API_CHANGED : api;
	}
	ret = 0;
out:
	strbuf_release(&sb);
	free(path);
	return ret;
}

/* ---- the graph ------------------------------------------------------------- */

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
static int list_traces(struct trace_reader *r)
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
 * The graph over the traces list_traces() found, its components logging
 * at @level (to stderr: only read_through() asks for any).
 */
static int build_graph(struct trace_reader *r, bt_logging_level level)
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
static char *save_causes(void)
{
	struct strbuf sb = STRBUF_INIT;

	for (int i = gm_error_count() - 1; i >= 0; i--) {
		strbuf_addstr(&sb, gm_error_cause(i));
		strbuf_addch(&sb, '\n');
	}
	return strbuf_detach(&sb, NULL);
}

/* Record again the causes save_causes() kept in @saved; returns -1. */
static int restore_causes(const char *saved)
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
static int check_files(struct trace_reader *r)
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

	if (build_graph(r, BT_LOGGING_LEVEL_ERROR)) {
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
	if (!(flags & GM_READER_RAW) && read_manifest(r)) {
		goto fail;
	}
	if (read_api_table(r)) {
		goto fail;
	}
	if (check_files(r) || list_traces(r) || check_decodes(r) ||
	    build_graph(r, BT_LOGGING_LEVEL_NONE)) {
		if (!(flags & GM_READER_ALLOW_INCOMPLETE)) {
			goto fail;
		}
		/* Inspection tools show the manifest, then this error. */
		r->broken = save_causes();
		gm_error_clear();
	}
	*out = r;
	return 0;
fail:
	trace_reader_free(r);
	*out = NULL;
	return -1;
}

/* ---- decoding -------------------------------------------------------------- */

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
	r->failed = save_causes();
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
		return restore_causes(r->broken);
	}
	for (;;) {
		const bt_message *msg;

		while (r->q_head == r->q_len) {
			bt_graph_run_once_status st;
			if (r->failed) {
				return restore_causes(r->failed);
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
