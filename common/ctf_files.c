/* SPDX-License-Identifier: MIT */
/*
 * The checks of a bundle's trace files (see ctf_files.h): a walk of ctf/
 * into a sorted list, the manifest's hashes against it, and each LTTng
 * index against its stream.
 */
#include "ctf_files.h"

#include <dirent.h>
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "error.h"
#include "fs.h"
#include "hash.h"
#include "kvfile.h"
#include "strbuf.h"
#include "strmap.h"

/* LTTng's index file (lttng-tools' ctf-index.h): big-endian words. */
#define INDEX_MAGIC 0xC1F1DCC1u
#define INDEX_HEADER 16		/* magic, major, minor, entry length */
#define INDEX_MIN_ENTRY 56	/* version 1.0: 7 words */
#define INDEX_MAX_ENTRY 4096
#define INDEX_MAX_BYTES (256u << 20)

/* A packetized metadata file (CTF 1.8, section 7.1): packets of a 37-byte
 * header (magic, UUID, checksum, content and packet sizes in bits, ...)
 * and text, in the byte order of the magic. */
#define METADATA_MAGIC 0x75D11D57u
#define METADATA_HEADER 37
#define METADATA_MAX_BYTES (256u << 20)

/* Directory levels under ctf/ (ust/pid/NAME/index: 4). */
#define MAX_DEPTH 16

struct ctf_file {
	char *rel;		/* path under ctf/ */
	uint64_t size;
};

struct ctf_list {
	struct ctf_file *files;
	size_t nr, alloc;
};

static void list_release(struct ctf_list *l)
{
	for (size_t i = 0; i < l->nr; i++) {
		free(l->files[i].rel);
	}
	free(l->files);
}

static int cmp_file(const void *a, const void *b)
{
	return strcmp(((const struct ctf_file *)a)->rel,
		      ((const struct ctf_file *)b)->rel);
}

/* Add the files under @root/@rel (a directory) to @l; links followed. */
static int walk(const char *root, const char *rel, int depth,
		struct ctf_list *l)
{
	char *dir = *rel ? gm_path_join(root, rel) : gm_xstrdup(root);
	DIR *d = opendir(dir);
	struct dirent *de;
	int ret = 0;

	if (!d) {
		ret = gm_error_errno("cannot open trace directory '%s'", dir);
		free(dir);
		return ret;
	}
	while (!ret && (de = readdir(d))) {
		struct stat st;
		char *sub, *path;

		if (!strcmp(de->d_name, ".") || !strcmp(de->d_name, "..")) {
			continue;
		}
		sub = *rel ? gm_path_join(rel, de->d_name) : gm_xstrdup(de->d_name);
		path = gm_path_join(root, sub);
		if (stat(path, &st)) {
			ret = gm_error_errno("cannot read trace file '%s'", path);
		} else if (S_ISDIR(st.st_mode)) {
			if (depth >= MAX_DEPTH) {
				ret = gm_error("trace directory '%s' is nested "
					       "deeper than %d levels", path,
					       MAX_DEPTH);
			} else {
				ret = walk(root, sub, depth + 1, l);
			}
		} else if (!S_ISREG(st.st_mode)) {
			ret = gm_regular_or_absent(path);	/* says what */
		} else {
			GM_ALLOC_GROW(l->files, l->nr + 1, l->alloc);
			l->files[l->nr].rel = sub;
			l->files[l->nr].size = (uint64_t)st.st_size;
			l->nr++;
			sub = NULL;
		}
		free(sub);
		free(path);
	}
	closedir(d);
	free(dir);
	return ret;
}

/* The sorted list of the files under @bundle/ctf (none: no ctf/). */
static int list_files(const char *bundle, struct ctf_list *l)
{
	char *root = gm_path_join(bundle, "ctf");
	int ret = 0;

	memset(l, 0, sizeof(*l));
	if (gm_is_dir(root)) {
		ret = walk(root, "", 0, l);
		if (l->nr) {
			qsort(l->files, l->nr, sizeof(*l->files), cmp_file);
		}
	}
	free(root);
	return ret;
}

int gm_ctf_files_record(const char *bundle, struct kvfile *m)
{
	struct ctf_list l;
	int ret = -1;

	if (list_files(bundle, &l)) {
		goto out;
	}
	kvfile_set_u64(m, GM_CTF_FILES_KEY, l.nr);
	for (size_t i = 0; i < l.nr; i++) {
		char *path = gm_xasprintf("%s/ctf/%s", bundle, l.files[i].rel);
		char hex[GM_HASH_HEX_LEN + 1], key[64];
		struct gm_hash h;
		uint64_t size;
		int bad = gm_hash_file(path, &h, &size);

		free(path);
		if (bad) {
			goto out;
		}
		gm_hash_hex(h, hex);
		snprintf(key, sizeof(key), GM_CTF_FILE_KEY_FMT, i);
		kvfile_setf(m, key, "%s %" PRIu64 " %s", hex, size,
			    l.files[i].rel);
	}
	ret = 0;
out:
	list_release(&l);
	return ret;
}

static uint32_t be32(const unsigned char *p)
{
	return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 |
	       (uint32_t)p[2] << 8 | p[3];
}

static uint64_t be64(const unsigned char *p)
{
	return (uint64_t)be32(p) << 32 | be32(p + 4);
}

int gm_ctf_index_check(const unsigned char *idx, size_t len, const char *name,
		       uint64_t stream_size)
{
	uint64_t at = 0;
	uint32_t elen;
	size_t n;

	if (len < INDEX_HEADER || be32(idx) != INDEX_MAGIC) {
		return gm_error("index '%s' has no LTTng index header", name);
	}
	if (be32(idx + 4) != 1) {
		return gm_error("index '%s' has version %" PRIu32 ".%" PRIu32
				", not 1.x", name, be32(idx + 4), be32(idx + 8));
	}
	elen = be32(idx + 12);
	if (elen < INDEX_MIN_ENTRY || elen > INDEX_MAX_ENTRY ||
	    (len - INDEX_HEADER) % elen) {
		return gm_error("index '%s' holds %zu bytes of entries of %"
				PRIu32 " bytes", name, len - INDEX_HEADER, elen);
	}
	n = (len - INDEX_HEADER) / elen;
	for (size_t i = 0; i < n; i++) {
		const unsigned char *e = idx + INDEX_HEADER + i * elen;
		uint64_t off = be64(e), bits = be64(e + 8);
		uint64_t content = be64(e + 16), tb = be64(e + 24),
			 te = be64(e + 32);

		if (off != at) {
			return gm_error("index '%s': packet %zu starts at byte %"
					PRIu64 ", not %" PRIu64, name, i, off, at);
		}
		if (!bits || bits % 8 || content > bits) {
			return gm_error("index '%s': packet %zu of %" PRIu64
					" bits holds %" PRIu64, name, i, bits,
					content);
		}
		if (te < tb) {
			return gm_error("index '%s': packet %zu ends before it "
					"begins", name, i);
		}
		if (bits / 8 > stream_size - at) {
			return gm_error("index '%s': packet %zu ends past the "
					"stream's %" PRIu64 " bytes", name, i,
					stream_size);
		}
		at += bits / 8;
	}
	if (at != stream_size) {
		return gm_error("index '%s' describes %" PRIu64 " bytes of "
				"packets, its stream holds %" PRIu64, name, at,
				stream_size);
	}
	return 0;
}

static uint32_t le32(const unsigned char *p)
{
	return (uint32_t)p[3] << 24 | (uint32_t)p[2] << 16 |
	       (uint32_t)p[1] << 8 | p[0];
}

int gm_ctf_metadata_check(const unsigned char *meta, size_t len,
			  const char *name)
{
	size_t at = 0, i = 0;
	int be;

	if (len < 4 || (le32(meta) != METADATA_MAGIC &&
			be32(meta) != METADATA_MAGIC)) {
		return 0;	/* plain text (TSDL): babeltrace2's parser's */
	}
	be = be32(meta) == METADATA_MAGIC;
	for (; at < len; i++) {
		const unsigned char *h = meta + at;
		uint32_t content, size;

		if (len - at < METADATA_HEADER) {
			return gm_error("metadata '%s': packet %zu is cut short "
					"(%zu bytes)", name, i, len - at);
		}
		if ((be ? be32(h) : le32(h)) != METADATA_MAGIC) {
			return gm_error("metadata '%s': packet %zu has no "
					"packet header", name, i);
		}
		content = be ? be32(h + 24) : le32(h + 24);
		size = be ? be32(h + 28) : le32(h + 28);
		if (content % 8 || size % 8 || content < METADATA_HEADER * 8 ||
		    size < content) {
			return gm_error("metadata '%s': packet %zu holds %" PRIu32
					" bits of content in %" PRIu32, name, i,
					content, size);
		}
		if (size / 8 > len - at) {
			return gm_error("metadata '%s': packet %zu of %" PRIu32
					" bytes ends past the file's %zu", name,
					i, size / 8, len);
		}
		at += size / 8;
	}
	return 0;
}

/* The file @rel of @l, or NULL. */
static struct ctf_file *find_file(struct ctf_list *l, const char *rel)
{
	struct ctf_file key = { (char *)rel, 0 };

	return l->nr ? bsearch(&key, l->files, l->nr, sizeof(*l->files),
			       cmp_file) : NULL;
}

/*
 * The stream of index file @rel ("DIR/index/NAME.idx" -> "DIR/NAME"),
 * newly allocated, or NULL when @rel is not an index.
 */
static char *stream_of(const char *rel)
{
	size_t n = strlen(rel);
	const char *base = strrchr(rel, '/');

	if (n < 4 || strcmp(rel + n - 4, ".idx") || !base ||
	    base - rel < 5 || strncmp(base - 5, "index", 5) ||
	    (base - rel > 5 && base[-6] != '/')) {
		return NULL;
	}
	return gm_xasprintf("%.*s%.*s", (int)(base - 5 - rel), rel,
			    (int)(rel + n - 4 - base - 1), base + 1);
}

/* Is @rel a trace's metadata file ("DIR/metadata")? */
static int is_metadata(const char *rel)
{
	const char *base = strrchr(rel, '/');

	return !strcmp(base ? base + 1 : rel, "metadata");
}

/* Every index of @l against its stream; every stream openable; every
 * packetized metadata file whole. */
static int check_structure(const char *bundle, struct ctf_list *l)
{
	struct strbuf idx = STRBUF_INIT;
	int ret = 0;

	for (size_t i = 0; !ret && i < l->nr; i++) {
		char *stream = stream_of(l->files[i].rel);
		char *path = gm_xasprintf("%s/ctf/%s", bundle, l->files[i].rel);
		struct ctf_file *s = stream ? find_file(l, stream) : NULL;

		if (!stream && is_metadata(l->files[i].rel)) {
			strbuf_reset(&idx);
			if (gm_read_file_max(path, &idx, METADATA_MAX_BYTES) ||
			    gm_ctf_metadata_check((const unsigned char *)idx.buf,
						  idx.len, path)) {
				ret = -1;
			}
		} else if (!stream) {
			/* Babeltrace opens it: it must open now. */
			int fd = gm_open_regular(path);
			if (fd < 0) {
				ret = gm_error("trace file '%s' cannot be read",
					       path);
			} else {
				close(fd);
			}
		} else if (!s) {
			ret = gm_error("trace file '%s/ctf/%s' is missing (its "
				       "index '%s' is there)", bundle, stream,
				       path);
		} else {
			strbuf_reset(&idx);
			if (gm_read_file_max(path, &idx, INDEX_MAX_BYTES)) {
				ret = -1;	/* the cause names the index */
			} else if (gm_ctf_index_check((const unsigned char *)idx.buf,
						      idx.len, path, s->size)) {
				if (!s->size) {
					gm_error("trace file '%s/ctf/%s' is empty",
						 bundle, stream);
				} else {
					gm_error("trace file '%s/ctf/%s' (%" PRIu64
						 " bytes) does not match its index",
						 bundle, stream, s->size);
				}
				ret = -1;
			}
		}
		free(stream);
		free(path);
	}
	strbuf_release(&idx);
	return ret;
}

/* Parse "HASH SIZE PATH"; 0 or -1 (no cause). */
static int parse_line(const char *v, struct gm_hash *h, uint64_t *size,
		      const char **rel)
{
	char hex[GM_HASH_HEX_LEN + 1], *end;

	if (strlen(v) < GM_HASH_HEX_LEN + 4 || v[GM_HASH_HEX_LEN] != ' ') {
		return -1;
	}
	memcpy(hex, v, GM_HASH_HEX_LEN);
	hex[GM_HASH_HEX_LEN] = 0;
	if (gm_hash_parse(hex, h)) {
		return -1;
	}
	v += GM_HASH_HEX_LEN + 1;
	if (*v < '0' || *v > '9') {
		return -1;
	}
	errno = 0;
	*size = strtoull(v, &end, 10);
	if (errno || *end != ' ' || !end[1]) {
		return -1;
	}
	*rel = end + 1;
	return 0;
}

/* The manifest's hashes against @l. */
static int check_hashes(const char *bundle, const struct kvfile *m,
			struct ctf_list *l, size_t *verified)
{
	uint64_t n;
	uint8_t *seen = NULL;
	int ret = -1;

	if (kvfile_get_u64(m, GM_CTF_FILES_KEY, &n, "the manifest")) {
		return -1;
	}
	if (n > KVFILE_MAX_KEYS) {
		return gm_error("the manifest's %s is %" PRIu64 ", more than a "
				"manifest can list", GM_CTF_FILES_KEY, n);
	}
	seen = gm_xcalloc(l->nr + 1, 1);
	for (size_t i = 0; i < n; i++) {
		char key[64];
		const char *v, *rel;
		struct ctf_file *f;
		struct gm_hash want, got;
		uint64_t size, got_size;
		char *path;

		snprintf(key, sizeof(key), GM_CTF_FILE_KEY_FMT, i);
		v = kvfile_get(m, key);
		if (!v || parse_line(v, &want, &size, &rel)) {
			gm_error("the manifest's %s is %s", key,
				 v ? "not 'HASH SIZE PATH'" : "missing");
			goto out;
		}
		path = gm_xasprintf("%s/ctf/%s", bundle, rel);
		f = find_file(l, rel);
		if (!f) {
			gm_error("trace file '%s' is missing", path);
		} else if (seen[f - l->files]++) {
			gm_error("the manifest lists trace file '%s' twice", path);
		} else if (f->size != size) {
			gm_error("trace file '%s' holds %" PRIu64 " bytes, the "
				 "manifest says %" PRIu64, path, f->size, size);
		} else if (gm_hash_file(path, &got, &got_size)) {
			/* its cause names the file */
		} else if (got_size != size || got.hi != want.hi ||
			   got.lo != want.lo) {
			gm_error("trace file '%s' is damaged (its content hash "
				 "differs from the capture's)", path);
		} else {
			free(path);
			(*verified)++;
			continue;
		}
		free(path);
		goto out;
	}
	for (size_t i = 0; i < l->nr; i++) {
		if (!seen[i]) {
			gm_error("trace file '%s/ctf/%s' is not in the manifest "
				 "(added after the capture)", bundle,
				 l->files[i].rel);
			goto out;
		}
	}
	ret = 0;
out:
	free(seen);
	return ret;
}

int gm_ctf_files_verify(const char *bundle, const struct kvfile *m,
			size_t *verified)
{
	struct ctf_list l;
	size_t nv = 0;
	int ret = -1;

	if (list_files(bundle, &l)) {
		goto out;
	}
	if (m && kvfile_get(m, GM_CTF_FILES_KEY) &&
	    check_hashes(bundle, m, &l, &nv)) {
		goto out;
	}
	if (check_structure(bundle, &l)) {
		goto out;
	}
	ret = 0;
out:
	if (verified) {
		*verified = nv;
	}
	list_release(&l);
	return ret;
}

char *gm_ctf_stream_file(const char *trace, uint64_t instance)
{
	char *dir = gm_path_join(trace, "index"), *found = NULL;
	struct strbuf idx = STRBUF_INIT;
	DIR *d = opendir(dir);
	struct dirent *de;

	while (d && !found && (de = readdir(d))) {
		size_t n = strlen(de->d_name);
		char *path;
		int bad;

		if (n < 5 || strcmp(de->d_name + n - 4, ".idx")) {
			continue;
		}
		path = gm_path_join(dir, de->d_name);
		strbuf_reset(&idx);
		bad = gm_read_file_max(path, &idx, INDEX_MAX_BYTES);
		free(path);
		if (bad) {
			gm_error_clear();
			continue;
		}
		/* The first entry's instance id (version 1.1: word 8). */
		if (idx.len >= INDEX_HEADER + 64 &&
		    be32((const unsigned char *)idx.buf) == INDEX_MAGIC &&
		    be32((const unsigned char *)idx.buf + 12) >= 64 &&
		    be64((const unsigned char *)idx.buf + INDEX_HEADER + 56) ==
			    instance) {
			found = gm_xasprintf("%s/%.*s", trace, (int)(n - 4),
					     de->d_name);
		}
	}
	if (d) {
		closedir(d);
	}
	strbuf_release(&idx);
	free(dir);
	return found;
}
