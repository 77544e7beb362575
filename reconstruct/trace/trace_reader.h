/* SPDX-License-Identifier: MIT */
/*
 * The bundle reader: opens a trace bundle (doc/bundle-format.md), checks
 * its manifest, and hands out its events one at a time, in timestamp order
 * across threads and processes, decoded into struct gm_event whose argument
 * words are laid out as the API description says (common/cuda_api.def:
 * GM_EVENT_ARGS(ev, cuMemAlloc_v2)->bytesize). It also reads what events
 * point at: blobs (argument payloads) and module images, checking their
 * content hash.
 *
 * Underneath is a libbabeltrace2 graph: source.ctf.fs over the bundle's
 * ctf/ directory, filter.utils.muxer, and a simple sink owned by the
 * reader. Plugins are found in $BABELTRACE_PLUGIN_PATH first, then the
 * system directory.
 *
 * Before babeltrace2 reads the trace, its files are checked (common/
 * ctf_files.h): against the hashes of the manifest, and each index against
 * its stream, as babeltrace2 trusts them. A trace not known to decode
 * cleanly (no hashes, or an incomplete bundle) is then read through once
 * in a child process, as babeltrace2 aborts on some damaged streams
 * whatever its caller does. A damaged trace is an error naming the file
 * or the trace, never a crash of the process.
 *
 * Strict by default: an unknown bundle format, an incomplete bundle (the
 * program crashed or was killed), a bundle with losses, events discarded
 * by the tracer, or an event this gpumix does not know are errors with a
 * cause. Flags relax that for inspection tools.
 */
#ifndef GM_TRACE_READER_H
#define GM_TRACE_READER_H

#include <stddef.h>
#include <stdint.h>

#include "api.h"
#include "record.h"
#include "hash.h"
#include "kvfile.h"

struct strbuf;

enum {
	/* Read an incomplete bundle (warnings via trace_reader_notes()). */
	GM_READER_ALLOW_INCOMPLETE = 1 << 0,
	/* Read a bundle with recorded losses or discarded events. */
	GM_READER_ALLOW_LOSSY = 1 << 1,
	/* Read a directory that has no manifest yet (capture's count-back). */
	GM_READER_RAW = 1 << 2,
	/* Unknown calls become api = -1 events instead of errors. */
	GM_READER_ALLOW_UNKNOWN = 1 << 3,
	/*
	 * Read a bundle whose only losses are unsupported calls (they are
	 * events of kind "unsupported": `gpumix reconstruct` lists them and
	 * decides); every other loss is still an error.
	 */
	GM_READER_ALLOW_UNSUPPORTED = 1 << 4,
};

/* One decoded event; pointers are borrowed until the next call. */
struct gm_event {
	uint64_t index;		/* 0-based position in the bundle */
	int64_t time_ns;	/* tracer clock, ns from its origin */
	enum gm_event_kind kind;
	int api;		/* enter/exit/d2h_hash: this gpumix's call id
				 * (enum gm_api_id), or -1 */
	unsigned raw_api;	/* the "api" field as stored (runtime cbid for
				 * rt_*, CUPTI cbid for unsupported) */
	unsigned flags;		/* GM_RF_* */
	uint32_t pid, tid;
	uint32_t corr, rt_corr;
	int32_t status;
	unsigned nr_args;
	uint64_t args[GM_RECORD_MAX_ARGS];
	const uint8_t *data;	/* inline bytes (NULL when none) */
	size_t data_len;
	struct gm_hash blob;	/* payload/image/result hash when flags say */
	uint64_t blob_size;
	uint64_t host_ns;	/* the thread's clean host time (struct
				 * gm_record), 0 in a bundle without host
				 * times (trace_reader_host_time()) */
	const char *str;	/* never NULL */
};

/* Typed views of the argument words. */
#define GM_EVENT_ARGS(ev, call) ((const struct gm_args_##call *)(ev)->args)
#define GM_EVENT_AS(ev, kind) ((const struct gm_ev_##kind *)(ev)->args)

/* Name of @ev's call or kind, for messages ("cuMemAlloc_v2", "act_kernel"). */
const char *gm_event_name(const struct gm_event *ev);

struct trace_reader;

/*
 * Open bundle @dir with GM_READER_* @flags. Returns 0 and a reader in
 * @out (free with trace_reader_free()), or -1 with a cause.
 */
int trace_reader_open(struct trace_reader **out, const char *dir,
		      unsigned flags);

/*
 * The next event: 1 and @ev set, 0 at the end, -1 with a cause (decoding
 * error, discarded events in strict mode, unknown call). @ev and what it
 * points to stay valid until the next call.
 */
int trace_reader_next(struct trace_reader *r, const struct gm_event **ev);

/*
 * Events of processes @keep says 0 to (another capture's, recorded into
 * the same session) are returned with their kind, time, pid and tid only:
 * nothing else of them is decoded or checked. NULL keeps all.
 */
void trace_reader_keep(struct trace_reader *r,
		       int (*keep)(void *ctx, uint32_t pid), void *ctx);

/* The bundle's manifest (empty in GM_READER_RAW mode); borrowed. */
const struct kvfile *trace_reader_manifest(const struct trace_reader *r);

/*
 * 1 when the bundle's events carry host times (host_ns: format 2 on),
 * 0 for an older bundle (and in GM_READER_RAW mode, where the format is
 * not known yet).
 */
int trace_reader_host_time(const struct trace_reader *r);

/*
 * The number of the bundle's trace files (ctf/) whose size and content
 * hash were checked against its manifest when it was opened; 0 for a
 * bundle of a format without them (before GM_BUNDLE_FORMAT_CTF_HASH), or
 * in GM_READER_RAW mode, whose files are then unverified (their structure
 * is checked all the same: common/ctf_files.h).
 */
size_t trace_reader_verified_files(const struct trace_reader *r);

/* The bundle's format version (1, 2, ...), 0 in GM_READER_RAW mode. */
unsigned trace_reader_format(const struct trace_reader *r);

/* The bundle directory; borrowed. */
const char *trace_reader_dir(const struct trace_reader *r);

/* Events the tracer reported discarded so far (0 in a good bundle). */
uint64_t trace_reader_discarded(const struct trace_reader *r);

/*
 * Append the payload of @ev (GM_RF_BLOB: from blobs/, checked; inline
 * data otherwise) to @out. Returns 0 or -1 with a cause.
 */
int trace_reader_payload(struct trace_reader *r, const struct gm_event *ev,
			 struct strbuf *out);

/*
 * Path of the module image @ev refers to (GM_RF_MODULE), newly allocated
 * (caller frees), or NULL with a cause when missing.
 */
char *trace_reader_module_path(struct trace_reader *r,
			       const struct gm_event *ev);

/* Read the module image of @ev into @out, checking size and hash. */
int trace_reader_module(struct trace_reader *r, const struct gm_event *ev,
			struct strbuf *out);

void trace_reader_free(struct trace_reader *r);

#endif
