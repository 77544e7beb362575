/* SPDX-License-Identifier: MIT */
/*
 * Instance names of a workload's programs (see instance_name.h).
 */
#include "instance_name.h"

#include <stdlib.h>
#include <string.h>

#include "strbuf.h"

static size_t count_of(const char *const *names, size_t nr, const char *name)
{
	size_t n = 0;

	for (size_t i = 0; i < nr; i++) {
		n += !strcmp(names[i], name);
	}
	return n;
}

static int taken(char *const *out, size_t before, const char *name)
{
	for (size_t i = 0; i < before; i++) {
		if (!strcmp(out[i], name)) {
			return 1;
		}
	}
	return 0;
}

char **gm_instance_names(const char *const *names, size_t nr)
{
	char **out = gm_xcalloc(nr + 1, sizeof(*out));

	for (size_t i = 0; i < nr; i++) {
		size_t total = count_of(names, nr, names[i]);
		char *n;
		if (total > 1) {
			size_t k = count_of(names, i, names[i]) + 1;
			n = gm_xasprintf("%s%c%zu", names[i], GM_INSTANCE_SEP, k);
		} else {
			n = gm_xstrdup(names[i]);
		}
		/* Only a name that already holds the separator can meet
		 * another here: keep every name unique all the same. */
		if (taken(out, i, n)) {
			char *base = n;
			for (unsigned k = 2;; k++) {
				n = gm_xasprintf("%s-%u", base, k);
				if (!taken(out, i, n)) {
					break;
				}
				free(n);
			}
			free(base);
		}
		out[i] = n;
	}
	return out;
}

/* The length of @name's program part and its instance number K when it
 * is PROGRAM#K, else 0. */
static unsigned long instance_number(const char *name, size_t *prog_len)
{
	const char *sep = strrchr(name, GM_INSTANCE_SEP);
	char *end;
	unsigned long k;

	if (!sep || sep == name || sep[1] < '1' || sep[1] > '9') {
		return 0;
	}
	k = strtoul(sep + 1, &end, 10);
	if (*end) {
		return 0;
	}
	*prog_len = (size_t)(sep - name);
	return k;
}

size_t gm_instance_program_len(const char *name)
{
	size_t len;

	return instance_number(name, &len) ? len : strlen(name);
}

char *gm_workload_name(const char *const *names, size_t nr)
{
	struct strbuf sb = STRBUF_INIT;

	for (size_t i = 0; i < nr;) {
		size_t len, len2, j = i + 1;
		unsigned long k = instance_number(names[i], &len);
		/* The run of consecutive instances of one program. */
		while (k && j < nr &&
		       instance_number(names[j], &len2) == k + (j - i) &&
		       len2 == len && !strncmp(names[j], names[i], len)) {
			j++;
		}
		if (sb.len) {
			strbuf_addch(&sb, '+');
		}
		if (j - i > 1) {
			strbuf_addf(&sb, "%.*s%c%lu-%lu", (int)len, names[i],
				    GM_INSTANCE_SEP, k, k + (j - i) - 1);
		} else {
			strbuf_addstr(&sb, names[i]);
		}
		i = j;
	}
	return strbuf_detach(&sb, NULL);
}

int gm_instance_of(const char *instance, const char *program)
{
	size_t len = strlen(program);
	const char *k;

	if (strncmp(instance, program, len)) {
		return 0;
	}
	if (!instance[len]) {
		return 1;
	}
	if (instance[len] != GM_INSTANCE_SEP) {
		return 0;
	}
	k = instance + len + 1;
	if (*k < '1' || *k > '9') {
		return 0;
	}
	while (*k >= '0' && *k <= '9') {
		k++;
	}
	return !*k;
}
