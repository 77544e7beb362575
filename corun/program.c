/* SPDX-License-Identifier: MIT */
/*
 * The original programs of a co-run (see program.h).
 */
#include "program.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "error.h"
#include "fs.h"
#include "instance_name.h"
#include "kvfile.h"
#include "reconstruct/recon.h"
#include "strbuf.h"

/*
 * Recorded variables that say where the capture ran, not how the program
 * behaves: the co-run's own placement (the GPU a study pins it to, the
 * mechanism's MPS daemon) wins over them.
 */
static const char *const placement_env[] = {
	"CUDA_VISIBLE_DEVICES", "CUDA_MPS_PIPE_DIRECTORY",
	"CUDA_MPS_LOG_DIRECTORY", NULL,
};

static int is_placement(const char *var)
{
	for (int i = 0; placement_env[i]; i++) {
		if (!strcmp(placement_env[i], var)) {
			return 1;
		}
	}
	return 0;
}

static char **strv_push(char **v, size_t *n, char *s)
{
	v = gm_xrealloc(v, (*n + 2) * sizeof(*v));
	v[(*n)++] = s;
	v[*n] = NULL;
	return v;
}

static void strv_free(char **v)
{
	for (size_t i = 0; v && v[i]; i++) {
		free(v[i]);
	}
	free(v);
}

static char *quoted(char *const *argv)
{
	struct strbuf sb = STRBUF_INIT;

	for (size_t i = 0; argv[i]; i++) {
		if (i) {
			strbuf_addch(&sb, ' ');
		}
		strbuf_add_shell_word(&sb, argv[i]);
	}
	return strbuf_detach(&sb, NULL);
}

/* The executable @p->argv[0] names, as the shell would find it from
 * @p->cwd. */
static int find_path(struct corun_program *p)
{
	const char *a0 = p->argv[0];

	if (strchr(a0, '/')) {
		p->path = a0[0] == '/' ? gm_xstrdup(a0) : gm_path_join(p->cwd, a0);
		if (access(p->path, X_OK)) {
			return gm_error_errno("cannot run '%s' (from '%s')", a0,
					      p->cwd);
		}
		return 0;
	}
	p->path = gm_path_search(a0, p->cwd);
	if (!p->path) {
		return gm_error("'%s' is not found in PATH", a0);
	}
	return 0;
}

int corun_program_from_bundle(struct corun_program *p, const char *dir)
{
	struct kvfile m = KVFILE_INIT;
	char *path = gm_path_join(dir, "manifest");
	size_t argc = 0, envc = 0;
	const char *cwd;
	int ret = -1;

	memset(p, 0, sizeof(*p));
	if (kvfile_read(&m, path)) {
		gm_error("'%s' is not a trace bundle", dir);
		goto out;
	}
	for (;;) {
		char key[32];
		const char *v;
		snprintf(key, sizeof(key), "argv.%zu", argc);
		v = kvfile_get(&m, key);
		if (!v) {
			break;
		}
		p->argv = strv_push(p->argv, &argc, gm_xstrdup(v));
	}
	if (!argc) {
		gm_error("the manifest of '%s' has no command (argv.0)", dir);
		goto out;
	}
	cwd = kvfile_get(&m, "cwd");
	p->cwd = gm_xstrdup(cwd ? cwd : ".");
	if (!gm_is_dir(p->cwd)) {
		gm_error("the working directory of '%s', '%s', is not here: %s",
			 dir, p->cwd, gm_why_not_dir(p->cwd));
		goto out;
	}
	for (size_t i = 0; i < m.nr; i++) {
		const char *var = m.keys[i] + 4;
		if (strncmp(m.keys[i], "env.", 4) || is_placement(var)) {
			continue;
		}
		p->env = strv_push(p->env, &envc,
				   gm_xasprintf("%s=%s", var, m.values[i]));
	}
	if (find_path(p)) {
		gm_error("cannot run the program of '%s'", dir);
		goto out;
	}
	p->name = recon_program_name(dir, kvfile_get(&m, "program"));
	p->bundle = gm_xstrdup(dir);
	p->command = quoted(p->argv);
	ret = 0;
out:
	if (ret) {
		corun_program_release(p);
	}
	kvfile_release(&m);
	free(path);
	return ret;
}

static int valid_name(const char *s, size_t n)
{
	if (!n) {
		return 0;
	}
	for (size_t i = 0; i < n; i++) {
		if (!strchr("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
			    "0123456789_.-", s[i])) {
			return 0;
		}
	}
	return 1;
}

int corun_program_from_spec(struct corun_program *p, const char *spec)
{
	const char *eq = strchr(spec, '=');
	char cwd[4096];
	size_t argc = 0;

	memset(p, 0, sizeof(*p));
	if (!eq || !valid_name(spec, (size_t)(eq - spec)) || !eq[1]) {
		return gm_error("'%s' is not NAME=COMMAND (a name of letters, "
				"digits, '_', '.' and '-', then a command)", spec);
	}
	if (!getcwd(cwd, sizeof(cwd))) {
		return gm_error_errno("cannot find the current directory");
	}
	p->name = gm_xasprintf("%.*s", (int)(eq - spec), spec);
	p->argv = strv_push(p->argv, &argc, gm_xstrdup("/bin/sh"));
	p->argv = strv_push(p->argv, &argc, gm_xstrdup("-c"));
	p->argv = strv_push(p->argv, &argc, gm_xstrdup(eq + 1));
	p->path = gm_xstrdup("/bin/sh");
	p->cwd = gm_xstrdup(cwd);
	p->command = gm_xstrdup(eq + 1);
	return 0;
}

void corun_program_release(struct corun_program *p)
{
	free(p->name);
	free(p->bundle);
	strv_free(p->argv);
	free(p->path);
	free(p->cwd);
	strv_free(p->env);
	free(p->command);
	memset(p, 0, sizeof(*p));
}

void corun_programs_unique(struct corun_program *progs, size_t nr)
{
	const char **bases = gm_xcalloc(nr + 1, sizeof(*bases));
	char **names;

	for (size_t i = 0; i < nr; i++) {
		bases[i] = progs[i].name;
	}
	names = gm_instance_names(bases, nr);
	for (size_t i = 0; i < nr; i++) {
		free(progs[i].name);
		progs[i].name = names[i];
	}
	free(names);
	free(bases);
}

char *corun_workload_name(const struct corun_program *progs, size_t nr)
{
	const char **names = gm_xcalloc(nr + 1, sizeof(*names));
	char *name;

	for (size_t i = 0; i < nr; i++) {
		names[i] = progs[i].name;
	}
	name = gm_workload_name(names, nr);
	free(names);
	return name;
}
