/* SPDX-License-Identifier: MIT */
/*
 * What the files of the bundle reader (trace_reader.c, trace_bundle.c,
 * trace_graph.c, trace_decode.c) share: the reader's state and their
 * functions for each other. Nothing outside them includes it.
 */
#ifndef GM_TRACE_READER_INT_H
#define GM_TRACE_READER_INT_H

#include "trace_reader.h"

#include <babeltrace2/babeltrace.h>

#include "strbuf.h"

/* Payload members of the gpumix_capture classes (`call` and `record`). */
enum {
	F_API, F_FLAGS, F_CORR, F_RT_CORR, F_STATUS, F_ARGS, F_DATA_LEN, F_DATA,
	F_BLOB_HI, F_BLOB_LO, F_BLOB_SIZE, F_STR, F_HOST_NS, NR_FIELDS
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

/* trace_bundle.c: the manifest and the API table of r->dir (0 or -1). */
int trace_read_manifest(struct trace_reader *r);
int trace_read_api_table(struct trace_reader *r);

/* trace_graph.c: the trace files' checks, the traces' list, the graph
 * over them (its components logging at @level), and the causes of the
 * error recorded now, kept (caller frees) and recorded again (-1). */
int trace_check_files(struct trace_reader *r);
int trace_list_traces(struct trace_reader *r);
int trace_build_graph(struct trace_reader *r, bt_logging_level level);
char *trace_save_causes(void);
int trace_restore_causes(const char *saved);

#endif
