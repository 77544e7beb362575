/* SPDX-License-Identifier: MIT */
/*
 * The event model of a bundle: every event of the `gpumix_capture` LTTng
 * provider has the same fields (struct gm_record); its name (enum
 * gm_event_kind) says what they mean. The capture library fills a
 * gm_record and emits it; the bundle reader decodes it back into struct
 * gm_event (reconstruct/trace/trace_reader.h). doc/bundle-format.md documents
 * each kind.
 *
 * Large byte payloads never go into event fields (babeltrace2 decodes a
 * byte sequence one field object per byte): they go to the blob store and
 * the event carries their hash and size. Small payloads (kernel
 * arguments, small host-to-device copies) stay inline, packed into 64-bit
 * words.
 */
#ifndef GM_RECORD_H
#define GM_RECORD_H

#include <stdint.h>

/*
 * The bundle format (manifest key "format", "gpumix-bundle N"): the
 * capture writes GM_BUNDLE_FORMAT; the reader takes every version from
 * GM_BUNDLE_FORMAT_MIN to GM_BUNDLE_FORMAT_VERSION.
 *   1  the first
 *   2  every event carries host_ns (struct gm_record): captured host time
 */
#define GM_BUNDLE_FORMAT_PREFIX "gpumix-bundle "
#define GM_BUNDLE_FORMAT_VERSION 3
#define GM_BUNDLE_FORMAT_MIN 1
#define GM_BUNDLE_FORMAT "gpumix-bundle 3"
#define GM_BUNDLE_FORMAT_HOST_TIME 2	/* first version with host_ns */
#define GM_BUNDLE_FORMAT_CTF_HASH 3	/* first with the trace files' hashes
					 * in the manifest (ctf_files.h) */

/* Event kinds: LTTng event name gpumix_capture:<name>. */
#define GM_EVENT_KINDS(X)                                                      \
	X(ENTER, enter)		/* driver call entry */                        \
	X(EXIT, exit)		/* driver call exit */                         \
	X(RT_ENTER, rt_enter)	/* runtime call around recorded calls */       \
	X(RT_EXIT, rt_exit)	/* ... that returned an error */              \
	X(UNSUPPORTED, unsupported) /* a call gpumix cannot replay */          \
	X(D2H_HASH, d2h_hash)	/* an async device-to-host result */           \
	X(LAYOUT, layout)	/* parameter layout of a launched handle */    \
	X(ACT_KERNEL, act_kernel) /* CUPTI activity: kernel execution */       \
	X(ACT_MEMCPY, act_memcpy)                                              \
	X(ACT_MEMSET, act_memset)                                              \
	X(PROCESS, process)	/* process start */                            \
	X(DEVICE, device)	/* device of a new context */                  \
	X(HOSTMEM, hostmem)	/* mapped or managed memory content */          \
	X(HOST_FUNC, host_func)	/* a wrapped host function has run */

enum gm_event_kind {
#define GM_EV_ENUM_(id, name) GM_EV_##id,
	GM_EVENT_KINDS(GM_EV_ENUM_)
#undef GM_EV_ENUM_
	GM_EV_COUNT
};

/* "enter", ... or NULL for a bad kind. */
const char *gm_event_kind_name(enum gm_event_kind k);

/* Kind of LTTng event name (without the provider prefix), or -1. */
int gm_event_kind_lookup(const char *name);

/* Record flags (the "flags" field). */
enum {
	GM_RF_BLOB = 1 << 0,	 /* blob_* is a payload stored in blobs/ */
	GM_RF_MODULE = 1 << 1,	 /* blob_* is an image stored in modules/ */
	GM_RF_HASH = 1 << 2,	 /* blob_* is a content hash, not stored */
	GM_RF_TRUNCATED = 1 << 3, /* str was truncated to GM_STR_MAX */
	GM_RF_UNSYNCED = 1 << 4, /* d2h_hash taken at exit, never synchronized */
	GM_RF_FAILED = 1 << 5,	 /* the blob or image could not be written */
	GM_RF_RUNTIME = 1 << 6,	 /* unsupported: a runtime-domain callback */
	GM_RF_NO_LAYOUT = 1 << 7, /* launch: parameter layout unknown */
	GM_RF_IMAGE_SHIFT = 8,	 /* bits 8-11: enum gm_image_kind */
	GM_RF_IMAGE_MASK = 0xf << 8,
	GM_RF_HOST_WARM = 1 << 12, /* copy entry: most pages of its host
				      destination were resident */
	GM_RF_OVERWRITTEN = 1 << 13, /* d2h_hash: a later copy wrote into the
					destination before a synchronization
					covered this one; no hash */
	GM_RF_HOST_NODE = 1 << 14, /* d2h_hash of a graph launch's copy node:
				      hashed when a host node that follows it
				      in the launch started */
};

/* Limits. */
#define GM_RECORD_MAX_ARGS 40		/* words; >= GM_MAX_ARGS of api.h */
#define GM_INLINE_MAX 1024		/* host-to-device bytes kept inline */
#define GM_DATA_MAX (64 * 1024)		/* inline data of any event */
#define GM_STR_MAX 4096			/* string field, bytes */

/*
 * An empty string is recorded as this one-byte string: babeltrace2 2.0
 * decodes an empty string field as the value of an earlier event of the
 * same class (fixed upstream after 2.0.4). Readers map it back to "".
 */
#define GM_EMPTY_STR "\x01"

/* The tracepoint argument (all kinds). */
struct gm_record {
	uint16_t api;		/* enum gm_api_id, runtime cbid, or 0 */
	uint16_t flags;		/* GM_RF_* */
	uint32_t corr;		/* CUPTI correlation id */
	uint32_t rt_corr;	/* enclosing runtime call's id, 0 if none */
	int32_t status;		/* CUresult / cudaError_t at exit */
	uint8_t nr_args;
	const uint64_t *args;
	uint32_t data_len;	/* bytes of inline data */
	uint16_t data_words;	/* (data_len + 7) / 8 */
	const uint64_t *data;
	uint64_t blob_hi, blob_lo; /* XXH3-128 of the payload */
	uint64_t blob_size;
	/*
	 * The thread's host clock, less the time this thread spent in the
	 * capture library's own callbacks (ns, CLOCK_MONOTONIC based): taken
	 * at the start of the callback that emits the event (an entry: when
	 * the call was entered; an exit: when it returned). Set by the emit
	 * layer; format 2 on (doc/bundle-format.md).
	 */
	uint64_t host_ns;
	const char *str;	/* never NULL, never "" (GM_EMPTY_STR) */
};

/*
 * Argument words of the non-call kinds, in order (X(name) lists). The
 * structs overlay the args array of a decoded event.
 */
#define GM_ACT_KERNEL_ARGS(X)                                                  \
	X(start) X(end) X(corr) X(device) X(context) X(stream) X(gridX)        \
	X(gridY) X(gridZ) X(blockX) X(blockY) X(blockZ) X(staticSmem)          \
	X(dynamicSmem) X(registers) X(queued) X(submitted) X(launchType)
#define GM_ACT_MEMCPY_ARGS(X)                                                  \
	X(start) X(end) X(corr) X(device) X(context) X(stream) X(bytes)        \
	X(copyKind) X(srcKind) X(dstKind)
#define GM_ACT_MEMSET_ARGS(X)                                                  \
	X(start) X(end) X(corr) X(device) X(context) X(stream) X(bytes)        \
	X(value)
#define GM_PROCESS_ARGS(X)                                                     \
	X(pid) X(ppid) X(cupti_ns) X(monotonic_ns) X(realtime_ns)              \
	X(cupti_version)
#define GM_DEVICE_ARGS(X)                                                      \
	X(ordinal) X(ccMajor) X(ccMinor) X(smCount) X(totalMem)                \
	X(driverVersion) X(context)
#define GM_D2H_HASH_ARGS(X) X(api) X(dstHost) X(bytes) X(stream)
/* module: the module or library of a handle first seen at its launch
 * (cuFuncGetModule, cuKernelGetLibrary), 0 when the driver did not say;
 * added after format 1 (gm_event_min_words). */
#define GM_LAYOUT_ARGS(X) X(handle) X(nparams) X(isKernel) X(module)
#define GM_RT_ARGS(X)
/*
 * hostmem: the content of a page-locked (mapped) or managed allocation
 * that a kernel can read or that the host reads back: a snapshot (role
 * GM_HM_SNAPSHOT, bytes in the blob store) before a launch that
 * names it, when it changed since the last snapshot or result; a result
 * (role GM_HM_RESULT, hash only) at the synchronization that
 * completes the launches that used it.
 */
#define GM_HOSTMEM_ARGS(X) X(addr) X(bytes) X(kind) X(role) X(stream)
#define GM_UNSUPPORTED_ARGS(X) X(cbid) X(domain)
/* CUPTI timestamps (ns) around the program's function; corr: its call */
#define GM_HOST_FUNC_ARGS(X) X(start) X(end)

#define GM_WORD_(n) uint64_t n;
struct gm_ev_act_kernel { GM_ACT_KERNEL_ARGS(GM_WORD_) };
struct gm_ev_act_memcpy { GM_ACT_MEMCPY_ARGS(GM_WORD_) };
struct gm_ev_act_memset { GM_ACT_MEMSET_ARGS(GM_WORD_) };
struct gm_ev_process { GM_PROCESS_ARGS(GM_WORD_) };
struct gm_ev_device { GM_DEVICE_ARGS(GM_WORD_) };
struct gm_ev_d2h_hash { GM_D2H_HASH_ARGS(GM_WORD_) };
struct gm_ev_layout { GM_LAYOUT_ARGS(GM_WORD_) };
struct gm_ev_unsupported { GM_UNSUPPORTED_ARGS(GM_WORD_) };
struct gm_ev_hostmem { GM_HOSTMEM_ARGS(GM_WORD_) };
struct gm_ev_host_func { GM_HOST_FUNC_ARGS(GM_WORD_) };
#undef GM_WORD_

/* hostmem kinds and roles. */
enum gm_hostmem_kind {
	GM_HM_PINNED = 1,	/* cuMemHostAlloc/AllocHost/HostRegister */
	GM_HM_MANAGED = 2,	/* cuMemAllocManaged */
};
enum gm_hostmem_role {
	GM_HM_SNAPSHOT = 1,
	GM_HM_RESULT = 2,
};

#define GM_NR_WORDS(s) (sizeof(struct s) / sizeof(uint64_t))

/*
 * Names of the argument words of a non-call kind (NULL-terminated), or
 * NULL for enter/exit (whose names come from the API table).
 */
const char *const *gm_event_arg_names(enum gm_event_kind k);

/*
 * Argument words a reader requires of a non-call kind: all of its names,
 * but for words added to a kind after bundles of it were written, which
 * older bundles lack (the reader gives them 0).
 */
unsigned gm_event_min_words(enum gm_event_kind k);

/* Events found in a trace for one thread (the bundle's own count, and
 * what a reader finds when it counts again). */
struct gm_thread_count {
	uint32_t pid, tid;
	uint64_t events;
};

#endif
