/* SPDX-License-Identifier: MIT */
/*
 * The one options parser of every gpumix command (cli.h): getopt_long over
 * the command's table (struct gm_cmd_options) plus the options every
 * command takes (-h/--help, -q/--quiet, -v/--verbose), usage errors that
 * suggest the option meant, and a parse-only mode for the conventions test.
 */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"
#include "closest.h"
#include "error.h"
#include "strbuf.h"

static const struct option global_longopts[] = {
	{ "help", no_argument, NULL, 'h' },
	{ "quiet", no_argument, NULL, 'q' },
	{ "verbose", no_argument, NULL, 'v' },
};

#define NR_GLOBAL (sizeof(global_longopts) / sizeof(global_longopts[0]))

void gm_opt_init(struct gm_opt_parser *p, const struct gm_cmd_options *opts,
		 const char *usage, int argc, char **argv)
{
	size_t n = 0;

	memset(p, 0, sizeof(*p));
	p->opts = opts;
	p->usage = usage;
	p->argc = argc;
	p->argv = argv;
	snprintf(p->shorts, sizeof(p->shorts), "%s:%shqv",
		 opts->in_order ? "+" : "", opts->shorts ? opts->shorts : "");
	/* The global ones first: a table's own "help" entry never wins. */
	for (size_t i = 0; i < NR_GLOBAL; i++) {
		p->all[n++] = global_longopts[i];
	}
	for (int t = 0; t < 2; t++) {
		const struct option *o = t ? opts->more_longopts : opts->longopts;
		for (; o && o->name; o++) {
			/* struct gm_opt_parser holds 64, the end marker too */
			if (n + 1 < sizeof(p->all) / sizeof(p->all[0])) {
				p->all[n++] = *o;
			}
		}
	}
	optind = 0;	/* glibc: start over (help runs a command's parser) */
	opterr = 0;
}

/* The long name of the option whose key is @key, or NULL. */
static const char *long_name(const struct gm_opt_parser *p, int key)
{
	for (const struct option *o = p->all; o->name; o++) {
		if (o->val == key && !o->flag) {
			return o->name;
		}
	}
	return NULL;
}

static int unknown(struct gm_opt_parser *p)
{
	const char *word = p->argv[optind - 1];
	const char *names[sizeof(p->all) / sizeof(p->all[0]) + 1];
	char *dashed[sizeof(p->all) / sizeof(p->all[0])];
	size_t n = 0;
	int ret;

	if (optopt || word[0] != '-' || word[1] != '-') {
		/* A short letter, maybe inside a cluster such as -fx. */
		return gm_usage_error(p->usage, "unknown option '-%c'", optopt);
	}
	char *bare = gm_xstrdup(word);
	char *eq = strchr(bare, '=');
	if (eq) {
		*eq = '\0';
	}
	for (const struct option *o = p->all; o->name; o++) {
		dashed[n] = gm_xasprintf("--%s", o->name);
		names[n] = dashed[n];
		n++;
	}
	names[n] = NULL;
	const char *near = gm_closest(bare, names);
	ret = gm_usage_error(p->usage, "unknown option '%s'%s%s%s", bare,
			     near ? " (did you mean '" : "", near ? near : "",
			     near ? "'?)" : "");
	for (size_t i = 0; i < n; i++) {
		free(dashed[i]);
	}
	free(bare);
	return ret;
}

static int needs_value(struct gm_opt_parser *p)
{
	const char *name = long_name(p, optopt);
	const char *word = p->argv[optind - 1];

	if (word[0] == '-' && word[1] == '-' && name) {
		return gm_usage_error(p->usage, "option '--%s' needs a value",
				      name);
	}
	return gm_usage_error(p->usage, "option '-%c' needs a value", optopt);
}

/* GPUMIX_CLI_PARSE_ONLY: one line per option, long name when it has one. */
static void print_parsed(const struct gm_opt_parser *p, int key)
{
	const char *name = long_name(p, key);

	if (name) {
		printf("option --%s", name);
	} else {
		printf("option -%c", key);
	}
	printf(p->arg ? " %s\n" : "\n", p->arg);
}

int gm_opt_next(struct gm_opt_parser *p)
{
	const char *po = getenv("GPUMIX_CLI_PARSE_ONLY");
	int parse_only = po && !strcmp(po, "1");

	for (;;) {
		int c = getopt_long(p->argc, p->argv, p->shorts, p->all, NULL);
		p->arg = optarg;
		switch (c) {
		case -1:
			p->ind = optind;
			if (parse_only) {
				for (int i = optind; i < p->argc; i++) {
					printf("argument %s\n", p->argv[i]);
				}
				/* a test hook: what the command allocated so far
				 * is no leak for a sanitizer to report */
				fflush(stdout);
				_exit(GM_EXIT_OK);
			}
			return GM_OPT_END;
		case '?':
			unknown(p);
			return GM_OPT_FAIL;
		case ':':
			needs_value(p);
			return GM_OPT_FAIL;
		case 'q':
			gm_cli.verbosity--;
			continue;
		case 'v':
			gm_cli.verbosity++;
			continue;
		case 'h':
			return GM_OPT_HELP;
		default:
			if (parse_only) {
				print_parsed(p, c);
				continue;
			}
			return c;
		}
	}
}
