/* SPDX-License-Identifier: MIT */
/*
 * gpumix completion: the bash completion script, made from the command
 * table (commands.c hands it over) and each command's options, so that
 * it can never list a command or option gpumix does not have; and the
 * table itself, one option a line, for scripts and the CLI conventions
 * test.
 */
#include <stdio.h>
#include <string.h>

#include "cli.h"
#include "closest.h"

static const char usage[] = "usage: gpumix completion bash | options";

static const char help[] =
	"\n"
	"  bash     print the bash completion script: commands, their options,\n"
	"           trace's subcommands; files for values and arguments.\n"
	"           Load it with: source <(gpumix completion bash)\n"
	"           (make install puts it in share/bash-completion/completions)\n"
	"  options  print every command's options, one a line:\n"
	"           COMMAND OPTION flag|value (-h, -q and -v included)\n"
	"\n"
	"exit status: 0 ok; 2 usage error.\n";

const struct gm_cmd_options gm_completion_options = { 0 };

/* Call @fn for every option of @c: long ones as --name, short as -x. */
static void each_option(const struct gm_cmd_options *o,
			void (*fn)(const char *name, int value, void *data),
			void *data)
{
	static const struct option global[] = {
		{ "help", no_argument, NULL, 'h' },
		{ "quiet", no_argument, NULL, 'q' },
		{ "verbose", no_argument, NULL, 'v' },
		{ NULL, 0, NULL, 0 },
	};
	char name[128];

	for (const char *s = "hqv"; *s; s++) {
		snprintf(name, sizeof(name), "-%c", *s);
		fn(name, 0, data);
	}
	for (const char *s = o->shorts; s && *s; s++) {
		if (*s != ':') {
			snprintf(name, sizeof(name), "-%c", *s);
			fn(name, s[1] == ':', data);
		}
	}
	for (int t = 0; t < 3; t++) {
		const struct option *l = t == 0 ? global : t == 1 ? o->longopts
								 : o->more_longopts;
		for (; l && l->name; l++) {
			if (t && !strcmp(l->name, "help")) {
				continue;	/* the global one */
			}
			snprintf(name, sizeof(name), "--%s", l->name);
			fn(name, l->has_arg == required_argument, data);
		}
	}
}

struct listing {
	const char *command;
	int want_value;		/* -1 every option; 0/1 only those */
	int n;
};

static void print_line(const char *name, int value, void *data)
{
	const struct listing *l = data;

	printf("%s %s %s\n", l->command, name, value ? "value" : "flag");
}

static void print_word(const char *name, int value, void *data)
{
	struct listing *l = data;

	if (l->want_value < 0 || l->want_value == value) {
		printf("%s%s", l->n++ ? " " : "", name);
	}
}

static void print_bash(const struct gm_command *cmds)
{
	const struct gm_command *c;

	fputs("# bash completion for gpumix, made by `gpumix completion bash`\n"
	      "# from gpumix's command table: do not edit.\n"
	      "_gpumix()\n"
	      "{\n"
	      "\tlocal cur=${COMP_WORDS[COMP_CWORD]}"
	      " prev=${COMP_WORDS[COMP_CWORD-1]}\n"
	      "\tlocal cmd= i nargs=0 opts= valued= subs=\n"
	      "\tfor ((i = 1; i < COMP_CWORD; i++)); do\n"
	      "\t\tcase ${COMP_WORDS[i]} in\n"
	      "\t\t-*) ;;\n"
	      "\t\t*) if [ -z \"$cmd\" ]; then cmd=${COMP_WORDS[i]};"
	      " else nargs=$((nargs + 1)); fi ;;\n"
	      "\t\tesac\n"
	      "\tdone\n"
	      "\tcase $cmd in\n"
	      "\t'')\n"
	      "\t\tCOMPREPLY=($(compgen -W \"", stdout);
	for (c = cmds; c->name; c++) {
		printf("%s%s", c != cmds ? " " : "", c->name);
	}
	fputs(" --help --version --quiet --verbose\" -- \"$cur\"))\n"
	      "\t\treturn ;;\n", stdout);
	for (c = cmds; c->name; c++) {
		struct listing l = { c->name, -1, 0 };
		const struct gm_cmd_options *o = c->options;
		printf("\t%s)\n\t\topts=\"", c->name);
		each_option(o, print_word, &l);
		fputs("\"\n\t\tvalued=\"", stdout);
		l.want_value = 1;
		l.n = 0;
		each_option(o, print_word, &l);
		fputs("\"\n", stdout);
		if (!strcmp(c->name, "help")) {
			fputs("\t\tsubs=\"", stdout);
			for (size_t j = 0; cmds[j].name; j++) {
				printf("%s%s", j ? " " : "", cmds[j].name);
			}
			fputs("\"\n", stdout);
		} else if (!strcmp(c->name, "completion")) {
			fputs("\t\tsubs=\"bash options\"\n", stdout);
		} else if (o->subcommands) {
			fputs("\t\tsubs=\"", stdout);
			for (size_t j = 0; o->subcommands[j]; j++) {
				printf("%s%s", j ? " " : "", o->subcommands[j]);
			}
			fputs("\"\n", stdout);
		}
		fputs("\t\t;;\n", stdout);
	}
	fputs("\tesac\n"
	      "\tif [[ \" $valued \" == *\" $prev \"* ]]; then\n"
	      "\t\tCOMPREPLY=($(compgen -f -- \"$cur\"))\n"
	      "\telif [[ $cur == -* ]]; then\n"
	      "\t\tCOMPREPLY=($(compgen -W \"$opts\" -- \"$cur\"))\n"
	      "\telif [ -n \"$subs\" ] && [ $nargs -eq 0 ]; then\n"
	      "\t\tCOMPREPLY=($(compgen -W \"$subs\" -- \"$cur\"))\n"
	      "\telse\n"
	      "\t\tCOMPREPLY=($(compgen -f -- \"$cur\"))\n"
	      "\tfi\n"
	      "}\n"
	      "complete -o filenames -F _gpumix gpumix\n", stdout);
}

int cmd_completion(const struct gm_command *cmds, int argc, char **argv)
{
	static const char *const kinds[] = { "bash", "options", NULL };
	struct gm_opt_parser op;
	const struct gm_command *c;
	int o;

	gm_opt_init(&op, &gm_completion_options, usage, argc, argv);
	while ((o = gm_opt_next(&op)) != GM_OPT_END) {
		if (o == GM_OPT_HELP) {
			printf("%s\n%s", usage, help);
			return GM_EXIT_OK;
		}
		return GM_EXIT_USAGE;
	}
	if (op.ind + 1 != argc) {
		return gm_usage_error(usage, op.ind == argc ? "bash or options?"
							    : "too many arguments");
	}
	if (!strcmp(argv[op.ind], "bash")) {
		print_bash(cmds);
	} else if (!strcmp(argv[op.ind], "options")) {
		for (c = cmds; c->name; c++) {
			struct listing l = { c->name, -1, 0 };
			each_option(c->options, print_line, &l);
		}
	} else {
		const char *near = gm_closest(argv[op.ind], kinds);
		return gm_usage_error(usage, "no completion '%s'%s%s%s",
				      argv[op.ind], near ? " (did you mean '" : "",
				      near ? near : "", near ? "'?)" : "");
	}
	return fflush(stdout) ? GM_EXIT_ERROR : GM_EXIT_OK;
}
