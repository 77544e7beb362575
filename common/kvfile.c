/* SPDX-License-Identifier: MIT */
/*
 * Key/value manifest files (see kvfile.h).
 */
#include "kvfile.h"

#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "atomic_file.h"
#include "error.h"
#include "fs.h"
#include "strbuf.h"

void kvfile_init(struct kvfile *kv)
{
	memset(kv, 0, sizeof(*kv));
}

void kvfile_release(struct kvfile *kv)
{
	for (size_t i = 0; i < kv->nr; i++) {
		free(kv->keys[i]);
		free(kv->values[i]);
	}
	free(kv->keys);
	free(kv->values);
	gm_strmap_clear(&kv->index);
	kvfile_init(kv);
}

static long find(const struct kvfile *kv, const char *key)
{
	int64_t i;

	return gm_strmap_get(&kv->index, key, &i) ? (long)i : -1;
}

void kvfile_set(struct kvfile *kv, const char *key, const char *value)
{
	long i = find(kv, key);

	if (i >= 0) {
		free(kv->values[i]);
		kv->values[i] = gm_xstrdup(value);
		return;
	}
	kvfile_append(kv, key, value);
}

void kvfile_append(struct kvfile *kv, const char *key, const char *value)
{
	if (kv->nr == kv->alloc) {
		kv->alloc = kv->alloc ? kv->alloc * 2 : 16;
		kv->keys = gm_xrealloc(kv->keys, kv->alloc * sizeof(char *));
		kv->values = gm_xrealloc(kv->values, kv->alloc * sizeof(char *));
	}
	kv->keys[kv->nr] = gm_xstrdup(key);
	kv->values[kv->nr] = gm_xstrdup(value);
	gm_strmap_put(&kv->index, key, (int64_t)kv->nr);
	kv->nr++;
}

void kvfile_setf(struct kvfile *kv, const char *key, const char *fmt, ...)
{
	struct strbuf sb = STRBUF_INIT;
	va_list ap;

	va_start(ap, fmt);
	strbuf_vaddf(&sb, fmt, ap);
	va_end(ap);
	kvfile_set(kv, key, sb.buf);
	strbuf_release(&sb);
}

void kvfile_set_u64(struct kvfile *kv, const char *key, uint64_t value)
{
	kvfile_setf(kv, key, "%" PRIu64, value);
}

const char *kvfile_get(const struct kvfile *kv, const char *key)
{
	long i = find(kv, key);
	return i >= 0 ? kv->values[i] : NULL;
}

int kvfile_get_u64(const struct kvfile *kv, const char *key, uint64_t *out,
		   const char *what)
{
	const char *v = kvfile_get(kv, key);
	char *end;

	if (!v) {
		return gm_error("%s: missing key '%s'", what, key);
	}
	errno = 0;
	unsigned long long x = strtoull(v, &end, 10);
	if (!*v || *end || errno || *v == '-') {
		return gm_error("%s: key '%s' is not an unsigned integer: '%s'",
				what, key, v);
	}
	*out = x;
	return 0;
}

int kvfile_get_double(const struct kvfile *kv, const char *key, double *out,
		      const char *what)
{
	const char *v = kvfile_get(kv, key);
	char *end;

	if (!v) {
		return gm_error("%s: missing key '%s'", what, key);
	}
	errno = 0;
	double x = strtod(v, &end);
	if (!*v || *end || errno) {
		return gm_error("%s: key '%s' is not a number: '%s'", what, key, v);
	}
	*out = x;
	return 0;
}

static void escape(struct strbuf *out, const char *v)
{
	for (; *v; v++) {
		switch (*v) {
		case '\\': strbuf_addstr(out, "\\\\"); break;
		case '\n': strbuf_addstr(out, "\\n"); break;
		case '\t': strbuf_addstr(out, "\\t"); break;
		case '\r': strbuf_addstr(out, "\\r"); break;
		default: strbuf_addch(out, *v); break;
		}
	}
}

void kvfile_format(const struct kvfile *kv, struct strbuf *out,
		   const char *comment)
{
	if (comment) {
		strbuf_addf(out, "# %s\n", comment);
	}
	for (size_t i = 0; i < kv->nr; i++) {
		strbuf_addstr(out, kv->keys[i]);
		strbuf_addstr(out, " = ");
		escape(out, kv->values[i]);
		strbuf_addch(out, '\n');
	}
}

static int valid_key_char(char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
	       (c >= '0' && c <= '9') || c == '_' || c == '.' || c == '-';
}

int kvfile_parse(struct kvfile *kv, const char *text, size_t len,
		 const char *what)
{
	struct strbuf key = STRBUF_INIT, val = STRBUF_INIT;
	size_t pos = 0;
	int line = 0, ret = 0;

	while (pos < len) {
		size_t end = pos;
		while (end < len && text[end] != '\n') {
			end++;
		}
		line++;
		if (end == len) {
			ret = gm_error("%s:%d: truncated line (no newline at end of file)",
				       what, line);
			break;
		}
		const char *s = text + pos, *e = text + end;
		pos = end + 1;
		if (s == e || *s == '#') {
			continue;
		}
		strbuf_reset(&key);
		strbuf_reset(&val);
		while (s < e && valid_key_char(*s)) {
			strbuf_addch(&key, *s++);
		}
		if (!key.len || e - s < 3 || memcmp(s, " = ", 3)) {
			if (!key.len || e - s != 2 || memcmp(s, " =", 2)) {
				ret = gm_error("%s:%d: expected 'key = value'", what, line);
				break;
			}
			s = e;
		} else {
			s += 3;
		}
		for (; s < e; s++) {
			if (*s != '\\') {
				if ((unsigned char)*s < 0x20) {
					ret = gm_error("%s:%d: control character in value", what, line);
					goto out;
				}
				strbuf_addch(&val, *s);
				continue;
			}
			if (++s == e) {
				ret = gm_error("%s:%d: dangling backslash", what, line);
				goto out;
			}
			switch (*s) {
			case '\\': strbuf_addch(&val, '\\'); break;
			case 'n': strbuf_addch(&val, '\n'); break;
			case 't': strbuf_addch(&val, '\t'); break;
			case 'r': strbuf_addch(&val, '\r'); break;
			default:
				ret = gm_error("%s:%d: unknown escape '\\%c'", what, line, *s);
				goto out;
			}
		}
		if (find(kv, key.buf) >= 0) {
			ret = gm_error("%s:%d: duplicate key '%s'", what, line, key.buf);
			break;
		}
		if (kv->nr >= KVFILE_MAX_KEYS) {
			ret = gm_error("%s:%d: more than %d keys, the limit for a "
				       "manifest", what, line, KVFILE_MAX_KEYS);
			break;
		}
		kvfile_append(kv, key.buf, val.buf);
	}
out:
	strbuf_release(&key);
	strbuf_release(&val);
	return ret;
}

int kvfile_read(struct kvfile *kv, const char *path)
{
	struct strbuf sb = STRBUF_INIT;
	int ret;

	if (gm_read_file_max(path, &sb, KVFILE_MAX_BYTES)) {
		if (errno == EFBIG) {
			gm_error("%s: larger than %u MiB, the limit for a manifest",
				 path, KVFILE_MAX_BYTES >> 20);
		}
		return -1;
	}
	if (memchr(sb.buf, '\0', sb.len)) {
		strbuf_release(&sb);
		return gm_error("%s: contains NUL bytes (not a manifest)", path);
	}
	ret = kvfile_parse(kv, sb.buf, sb.len, path);
	strbuf_release(&sb);
	return ret;
}

int kvfile_write(const struct kvfile *kv, const char *path,
		 const char *comment)
{
	struct strbuf sb = STRBUF_INIT;
	int ret;

	kvfile_format(kv, &sb, comment);
	ret = gm_write_file_atomic(path, sb.buf, sb.len, 1);
	strbuf_release(&sb);
	return ret;
}
