/* SPDX-License-Identifier: MIT */
/*
 * The GPUs of a node and the choice among them (see gpu_list.h).
 */
#include "gpu_list.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>

#include "error.h"
#include "run_output.h"
#include "strbuf.h"

/* A copy of [@s, @e) without surrounding blanks (caller frees). */
static char *trimmed(const char *s, const char *e)
{
	while (s < e && isspace((unsigned char)*s)) {
		s++;
	}
	while (e > s && isspace((unsigned char)e[-1])) {
		e--;
	}
	return gm_xasprintf("%.*s", (int)(e - s), s);
}

/* 1 when @s is a decimal number that fits an unsigned, into *@v. */
static int parse_index(const char *s, unsigned *v)
{
	char *end;

	if (!isdigit((unsigned char)*s)) {
		return 0;
	}
	unsigned long n = strtoul(s, &end, 10);
	if (*end || n > 4096) {
		return 0;
	}
	*v = (unsigned)n;
	return 1;
}

static void push(struct gpu_list *l, unsigned index, const char *uuid,
		 const char *name)
{
	GM_ALLOC_GROW(l->v, l->nr + 1, l->alloc);
	l->v[l->nr].index = index;
	l->v[l->nr].uuid = uuid ? gm_xstrdup(uuid) : NULL;
	l->v[l->nr].name = name ? gm_xstrdup(name) : NULL;
	l->nr++;
}

int gpu_list_parse(struct gpu_list *l, const char *text)
{
	for (const char *p = text; *p;) {
		const char *e = strchr(p, '\n');
		size_t n = e ? (size_t)(e - p) : strlen(p);
		char *line = trimmed(p, p + n);
		p += n + (e ? 1 : 0);
		if (!*line) {
			free(line);
			continue;
		}
		/* The model may hold commas; index and UUID do not. */
		char *c1 = strchr(line, ',');
		char *c2 = c1 ? strchr(c1 + 1, ',') : NULL;
		unsigned index;
		int ok = c2 != NULL;
		char *idx = NULL, *uuid = NULL, *name = NULL;
		if (ok) {
			idx = trimmed(line, c1);
			uuid = trimmed(c1 + 1, c2);
			name = trimmed(c2 + 1, line + strlen(line));
			ok = parse_index(idx, &index) && !strncmp(uuid, "GPU-", 4) &&
			     *name;
		}
		if (ok) {
			push(l, index, uuid, name);
		}
		free(idx);
		free(uuid);
		free(name);
		if (!ok) {
			gm_error("unexpected line in nvidia-smi's GPU list: '%s' "
				 "(expected 'INDEX, GPU-UUID, MODEL')", line);
			free(line);
			return -1;
		}
		free(line);
	}
	return 0;
}

int gpu_list_probe(struct gpu_list *l)
{
	const char *smi = getenv(GPU_LIST_SMI_ENV);
	struct strbuf out = STRBUF_INIT;
	int status, ret = -1;

	if (!smi || !*smi) {
		smi = "nvidia-smi";
	}
	char *argv[] = { (char *)smi, "--query-gpu=index,uuid,name",
			 "--format=csv,noheader", NULL };
	if (gm_run_output(argv, &out, &status)) {
		goto out;
	}
	if (!WIFEXITED(status) || WEXITSTATUS(status)) {
		strbuf_rtrim(&out);
		gm_error("cannot list the GPUs with '%s': %s", smi,
			 out.len ? out.buf : "it failed without a message");
		goto out;
	}
	if (gpu_list_parse(l, out.buf)) {
		goto out;
	}
	if (!l->nr) {
		gm_error("'%s' lists no GPU", smi);
		goto out;
	}
	ret = 0;
out:
	strbuf_release(&out);
	return ret;
}

static const struct gpu_info *find(const struct gpu_list *l, unsigned index)
{
	for (size_t i = 0; i < l->nr; i++) {
		if (l->v[i].index == index) {
			return &l->v[i];
		}
	}
	return NULL;
}

/* The indexes of a list spec "0,2,3" into @idx (caller frees); -1. */
static int parse_list(const char *spec, unsigned **idx, size_t *nr)
{
	size_t alloc = 0;

	*idx = NULL;
	*nr = 0;
	for (const char *p = spec;;) {
		const char *e = strchr(p, ',');
		char *one = gm_xasprintf("%.*s", (int)(e ? (size_t)(e - p) :
							  strlen(p)), p);
		unsigned v;
		int ok = parse_index(one, &v);
		free(one);
		if (!ok) {
			free(*idx);
			return gm_error("--gpus '%s': expected 'all', a number of "
					"GPUs or a list of GPU indexes (0,2,3)",
					spec);
		}
		for (size_t i = 0; i < *nr; i++) {
			if ((*idx)[i] == v) {
				free(*idx);
				return gm_error("--gpus '%s': GPU %u is listed twice",
						spec, v);
			}
		}
		GM_ALLOC_GROW(*idx, *nr + 1, alloc);
		(*idx)[(*nr)++] = v;
		if (!e) {
			return 0;
		}
		p = e + 1;
	}
}

int gpu_list_choose(struct gpu_list *out, const char *spec)
{
	struct gpu_list node = GPU_LIST_INIT;
	unsigned *idx = NULL, count = 0;
	size_t nr = 0;
	int all = !strcmp(spec, "all"), ret = -1, probed;

	if (!all && !strchr(spec, ',') && parse_index(spec, &count)) {
		if (!count) {
			return gm_error("--gpus 0: a study needs at least one GPU");
		}
	} else if (!all && parse_list(spec, &idx, &nr)) {
		return -1;
	}
	probed = !gpu_list_probe(&node);
	if (!probed) {
		if (all) {
			gm_error_hint("give the GPUs as --gpus N or --gpus 0,1,...");
			goto out;
		}
		gm_warning("%s; using the GPUs as given, by index", gm_error_message());
		gm_error_clear();
	}
	if (all) {
		for (size_t i = 0; i < node.nr; i++) {
			push(out, node.v[i].index, node.v[i].uuid, node.v[i].name);
		}
	} else if (count) {
		if (probed && count > node.nr) {
			gm_error("--gpus %u: this node has %zu GPU%s", count, node.nr,
				 node.nr == 1 ? "" : "s");
			goto out;
		}
		for (unsigned i = 0; i < count; i++) {
			const struct gpu_info *g = probed ? &node.v[i] : NULL;
			push(out, g ? g->index : i, g ? g->uuid : NULL,
			     g ? g->name : NULL);
		}
	} else {
		for (size_t i = 0; i < nr; i++) {
			const struct gpu_info *g = probed ? find(&node, idx[i]) : NULL;
			if (probed && !g) {
				gm_error("--gpus %s: this node has no GPU %u (it has "
					 "%zu, from 0)", spec, idx[i], node.nr);
				goto out;
			}
			push(out, idx[i], g ? g->uuid : NULL, g ? g->name : NULL);
		}
	}
	for (size_t i = 1; i < out->nr; i++) {
		if (out->v[i].name && out->v[0].name &&
		    strcmp(out->v[i].name, out->v[0].name)) {
			gm_error("GPUs %u (%s) and %u (%s) are different models: "
				 "their runs' times are not comparable",
				 out->v[0].index, out->v[0].name, out->v[i].index,
				 out->v[i].name);
			gm_error_hint("list GPUs of one model with --gpus 0,1,...");
			goto out;
		}
	}
	ret = 0;
out:
	free(idx);
	gpu_list_release(&node);
	return ret;
}

char *gpu_info_describe(const struct gpu_info *g)
{
	if (g->uuid) {
		return gm_xasprintf("%u (%s, %s)", g->index, g->uuid,
				    g->name ? g->name : "unknown model");
	}
	return gm_xasprintf("%u", g->index);
}

char *gpu_info_visible(const struct gpu_info *g)
{
	return g->uuid ? gm_xstrdup(g->uuid) : gm_xasprintf("%u", g->index);
}

void gpu_list_release(struct gpu_list *l)
{
	for (size_t i = 0; i < l->nr; i++) {
		free(l->v[i].uuid);
		free(l->v[i].name);
	}
	free(l->v);
	memset(l, 0, sizeof(*l));
}
