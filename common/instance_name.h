/* SPDX-License-Identifier: MIT */
/*
 * The names of the programs of a workload, one rule for every part of
 * gpumix (reconstruct, corun, the study's plan, the replay's per-program
 * options): a program that appears once in the workload keeps its name;
 * one that appears N > 1 times (N copies of one program, the SPMD
 * workloads of PAPER-NOTES 2.3, or the same bundle given twice) has N
 * instances named NAME#1 ... NAME#N in the order they appear. A name of
 * the form NAME#K stands for program NAME wherever a per-program option
 * (--high-priority, --sm-share, --mps-threads) or a baseline looks a
 * program up.
 */
#ifndef GM_INSTANCE_NAME_H
#define GM_INSTANCE_NAME_H

#include <stddef.h>

/* The separator between a program's name and its instance number. */
#define GM_INSTANCE_SEP '#'

/*
 * The instance names of a workload whose programs are @names[0..@nr), in
 * order: @names[i] itself when it appears once, else "@names[i]#K", K
 * counting its appearances from 1. A result that would still equal
 * another (a program literally called "lbm#1" beside two copies of
 * "lbm") gets "-2", "-3", ... appended, so that the names are unique.
 * Returns a new array of @nr new strings (the caller frees each and the
 * array); never fails (allocation failure dies, as gm_xmalloc does).
 */
char **gm_instance_names(const char *const *names, size_t nr);

/*
 * The name of the workload whose programs are called @names[0..@nr)
 * (instance names, as gm_instance_names() gives them): the names joined
 * by '+', except that consecutive instances NAME#K, NAME#K+1, ...
 * NAME#M (M > K) of one program are written once as NAME#K-M, so that N
 * copies stay a short name: "lbm#1-8" for eight copies of lbm,
 * "lbm#1-2+mm" for lbm lbm mm, "lbm#1+mm+lbm#2" for lbm mm lbm. A new
 * string (the caller frees it).
 */
char *gm_workload_name(const char *const *names, size_t nr);

/*
 * 1 when @instance names program @program: the same name, or @program
 * followed by '#' and a decimal instance number (1 or more, no leading
 * zero); 0 otherwise.
 */
int gm_instance_of(const char *instance, const char *program);

/*
 * The length of the program part of @name: up to its '#' for an
 * instance "lbm#2" (strlen("lbm")), the whole name otherwise.
 */
size_t gm_instance_program_len(const char *name);

#endif
