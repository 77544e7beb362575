/* SPDX-License-Identifier: MIT */
/*
 * The command table: every gpumix command, its summary and its options
 * (each command's struct gm_cmd_options, beside its code). Dispatch, help,
 * "did you mean", `gpumix completion` and the CLI conventions test all read
 * this one table; it holds only commands that work.
 */
#include "cli.h"

/* help and completion describe the table: it is handed to them here, so
 * that neither calls back into this file to read it. */
static int help(int argc, char **argv);
static int completion(int argc, char **argv);

static const struct gm_command commands[] = {
	{ "capture", cmd_capture, "run a program and record its CUDA calls into a trace bundle", &gm_capture_options },
	{ "trace", cmd_trace, "inspect a bundle: info, list of calls, kernels, losses, timeline, result diff", &gm_trace_options },
	{ "help", help, "show help for gpumix or one of its commands", &gm_help_options },
	{ "elastic", cmd_elastic, "make the kernels of PTX, fatbins or bundles elastic", &gm_elastic_options },
	{ "version", cmd_version, "print the gpumix version", &gm_version_options },
	{ "analyze", cmd_analyze, "load run directories into a SQLite database", &gm_analyze_options },
	{ "report", cmd_report, "print comparison tables and draw plots from a database", &gm_report_options },
	{ "run", cmd_run, "run a whole study described by a YAML file", &gm_run_options },
	{ "reconstruct", cmd_reconstruct, "generate the replay program of an n-program workload", &gm_reconstruct_options },
	{ "replay", cmd_replay, "build and run a generated replay program", &gm_replay_options },
	{ "profile", cmd_profile, "kernel profile of a suite from its single runs", &gm_profile_options },
	{ "scale", cmd_scale, "time of programs and kernels against the SMs they get", &gm_scale_options },
	{ "sweep", cmd_sweep, "resource-specification sweeps: the plan and the cliffs of measured points", &gm_sweep_options },
	{ "corun", cmd_corun, "run the original programs of a workload together: native slowdowns", &gm_corun_options },
	{ "completion", completion, "print the shell completion script (bash) or the option table", &gm_completion_options },
	{ NULL },
};

const struct gm_command *gm_commands(void)
{
	return commands;
}

static int help(int argc, char **argv)
{
	return cmd_help(commands, argc, argv);
}

static int completion(int argc, char **argv)
{
	return cmd_completion(commands, argc, argv);
}
