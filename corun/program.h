/* SPDX-License-Identifier: MIT */
/*
 * An original program of a native co-run: what to run, where, and with
 * which environment. Taken from a trace bundle's manifest (its argv.N,
 * cwd and env.VAR keys, doc/bundle-format.md), so that `gpumix corun`
 * runs exactly what `gpumix capture` recorded, or given on the command
 * line as NAME=COMMAND (run by /bin/sh in the current directory). Its name
 * is the one reconstruct gives the bundle's program
 * (recon_program_name), so that native and replayed programs match.
 */
#ifndef GM_CORUN_PROGRAM_H
#define GM_CORUN_PROGRAM_H

#include <stddef.h>

struct corun_program {
	char *name;		/* unique in the co-run (owned) */
	char *bundle;		/* the bundle it came from, or NULL (owned) */
	char **argv;		/* NULL-terminated (owned) */
	char *path;		/* argv[0] found in PATH (owned) */
	char *cwd;		/* where it runs (owned) */
	char **env;		/* NULL-terminated NAME=VALUE to set (owned) */
	char *command;		/* shell-quoted, for manifests (owned) */
};

/*
 * Fill @p from the manifest of bundle @dir: a bundle that is not
 * complete, has no command, or whose program cannot be found from its
 * working directory is an error (-1, cause recorded, @p released).
 */
int corun_program_from_bundle(struct corun_program *p, const char *dir);

/*
 * Fill @p from "NAME=COMMAND": COMMAND runs as `/bin/sh -c COMMAND` in
 * the current directory (so it may be a pipeline or a list, whose
 * processes are all the program's). -1 for a missing or bad name.
 */
int corun_program_from_spec(struct corun_program *p, const char *spec);

/* Free what @p owns and zero it. */
void corun_program_release(struct corun_program *p);

/*
 * Make the names of @progs unique as reconstruct does
 * (common/instance_name.h): two "bfs" become "bfs#1" and "bfs#2".
 */
void corun_programs_unique(struct corun_program *progs, size_t nr);

/* "bfs+mm": the workload of @progs, by name, as gm_workload_name() writes
 * it ("lbm#1-2+mm"; newly allocated). */
char *corun_workload_name(const struct corun_program *progs, size_t nr);

#endif
