/* SPDX-License-Identifier: MIT */
/*
 * gpumix report: compute the study's metrics from a results database and
 * print its tables (Markdown or CSV) on stdout, or write a report
 * directory with tables, gnuplot figures and an index page.
 */
#include <getopt.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "analyze/analysis.h"
#include "analyze/db.h"
#include "analyze/report.h"
#include "analyze/report_compare.h"
#include "analyze/report_tables.h"
#include "build/version.h"
#include "cli.h"
#include "clock.h"
#include "error.h"
#include "gnuplot_program.h"
#include "strbuf.h"

static const char usage_fmt[] =
	"usage: gpumix report <database> [-o <dir> [--force]\n"
	"                     [--no-figures | --figure-scripts]]\n"
	"                     [--format md|csv|json] [--table <name>]"
	" [--ci <method>]\n"
	"                     [--kernel <name>] [--run <run>]\n"
	"                     [--no-timelines | [--timeline-replays <n>]\n"
	"                      [--timeline-window <from>:<to>]"
	" [--timeline-max <n>]\n"
	"                      [--timeline-format chrome|hta|perfetto]]\n"
	"   or: gpumix report --compare <A.db> <B.db> [--format md|csv|json]\n"
	"                     [--table compare-summary|compare-workloads]"
	" [--ci <method>]\n"
	"\n"
	"    -o, --output <dir>  write the report directory: index.md and"
	" index.html,\n"
	"                        tables/ (Markdown and CSV), tables.json,"
	" figures/\n"
	"                        (gnuplot PNG and SVG), timelines/ (one"
	" Perfetto JSON\n"
	"                        file per run)\n"
	"    -f, --force         replace an existing report directory (only a\n"
	"                        report gpumix wrote)\n"
	"    --no-figures        do not draw figures (gnuplot is not needed)\n"
	"    --figure-scripts    write each figure's data and gnuplot script,"
	" without\n"
	"                        running gnuplot (draw them elsewhere: cd"
	" figures &&\n"
	"                        gnuplot *.gp)\n"
	"    --format md|csv|json\n"
	"                        format of the tables printed on stdout"
	" (default: md);\n"
	"                        csv is one table (--table), its header the"
	" columns'\n"
	"                        keys (p50_ms); json is every table (or"
	" --table's) as\n"
	"                        {\"tables\": [{name, columns, rows}]}\n"
	"    --table <name>      print only this table: %s\n"
	"    --ci <method>       how the 95%% intervals are computed: t (Student"
	" t over\n"
	"                        the repetitions, the default), bootstrap or\n"
	"                        bootstrap:SEED (percentile bootstrap, seed %d"
	" unless\n"
	"                        given: the same seed, the same intervals)\n"
	"    --compare           two studies side by side: the same workloads"
	" and\n"
	"                        variants of A and B with their intervals and"
	" whether\n"
	"                        B differs from A\n"
	"    --kernel <name>     kernel of Fig. 7 (short, demangled or mangled"
	" name;\n"
	"                        default: the one with the most instances)\n"
	"    --run <run>         run of Fig. 7 and the timeline, as"
	" workload.variant[.policy]\n"
	"                        (default: the run with the most instances of"
	" that kernel)\n"
	"    --no-timelines      do not write timelines/\n"
	"    --timeline-replays <n>\n"
	"                        each timeline ends where every program has"
	" done n\n"
	"                        replays\n"
	"    --timeline-window <from>:<to>\n"
	"                        each timeline holds what starts in this window"
	" (ms since\n"
	"                        the run's start; either side may be empty)\n"
	"    --timeline-max <n>  GPU slices per timeline at most (default:"
	" 1000; 0: all)\n"
	"    --timeline-format chrome|hta|perfetto\n"
	"                        chrome: trace-event JSON (the default); hta:"
	" the same\n"
	"                        JSON with Kineto's categories and args, for"
	" Holistic\n"
	"                        Trace Analysis; perfetto: Perfetto's"
	" protobuf trace\n"
	"                        (.pftrace, for large runs)\n"
	"    -h, --help          show this help\n"
	"\n"
	"Without -o the tables are printed on stdout; with -o only --table is.\n"
	"Environment: GPUMIX_GNUPLOT names the gnuplot program (default:"
	" gnuplot).\n"
	"\n"
	"exit status: 0 success (missing baselines are notes, not errors); 1"
	" the\ndatabase cannot be read, an option names no kernel or run, or"
	" gnuplot\nfailed; 2 usage error.";

/*
 * The usage text, with the table names from the registry (each line of
 * the list indented under the option's description).
 */
static char *make_usage(void)
{
	struct strbuf names = STRBUF_INIT;
	size_t col = 45;	/* where the list starts on its first line */
	char *u;

	for (size_t i = 0; i < gm_report_table_count; i++) {
		const char *n = gm_report_table_list[i].name;
		if (i) {
			strbuf_addch(&names, ',');
			col++;
		}
		if (col + 1 + strlen(n) + 1 > 78) {
			strbuf_addstr(&names, "\n                       ");
			col = 23;
		}
		strbuf_addf(&names, "%s%s", i ? " " : "", n);
		col += strlen(n) + 1;
	}
	u = gm_xasprintf(usage_fmt, names.buf, GM_CI_SEED);
	strbuf_release(&names);
	return u;
}

/* The recorded error as a usage error (the message is the option's). */
static int usage_from_error(const char *u)
{
	char msg[GM_ERROR_MSG_LEN];

	snprintf(msg, sizeof(msg), "%s", gm_error_message());
	gm_error_clear();
	return gm_usage_error(u, "%s", msg);
}

/* The formats of the tables on stdout (--format). */
enum format { FORMAT_MD, FORMAT_CSV, FORMAT_JSON };

static int parse_format(const char *arg, int *format, const char *usage)
{
	static const char *const names[] = { "md", "csv", "json" };

	for (int i = 0; i < 3; i++) {
		if (!strcmp(arg, names[i])) {
			*format = i;
			return 0;
		}
	}
	return gm_usage_error(usage, "--format must be md, csv or json, not"
			      " '%s'", arg);
}

/*
 * CSV is one table per file: without --table there is nowhere to put
 * the others (-o writes them all as tables/NAME.csv).
 */
static int check_csv(int format, const char *table, int out_dir,
		     const char *usage)
{
	if (format != FORMAT_CSV || table || out_dir) {
		return 0;
	}
	return gm_usage_error(usage, "--format csv prints one table: name it"
			      " with --table (every table: --format json, or -o"
			      " <dir> writes each as <dir>/tables/NAME.csv)");
}

static void print_tables(struct gm_table *t, size_t n, long only, int format)
{
	struct strbuf sb = STRBUF_INIT;

	if (format == FORMAT_JSON) {
		gm_report_tables_json(t, n, only, &sb);
		n = 0;
	}
	for (size_t i = 0; i < n; i++) {
		if (only >= 0 && (long)i != only) {
			continue;
		}
		if (format == FORMAT_CSV) {
			gm_table_csv(&t[i], &sb);
		} else {
			if (sb.len) {
				strbuf_addch(&sb, '\n');
			}
			gm_table_markdown(&t[i], &sb, 1);
		}
	}
	fwrite(sb.buf, 1, sb.len, stdout);
	strbuf_release(&sb);
}

static int report(int argc, char **argv, const char *usage);

/* gpumix report --compare: two databases, two tables on stdout. */
static int compare_studies(const char *pa, const char *pb, const char *table,
			   int format, const struct gm_ci_opts *ci,
			   const char *usage)
{
	static const char *const names[GM_COMPARE_TABLES] = {
		"compare-summary", "compare-workloads",
	};
	struct gm_analysis_options opt = { .ci = *ci, .metrics_only = 1 };
	struct gm_db db[2] = { GM_DB_INIT, GM_DB_INIT };
	struct gm_analysis an[2];
	struct gm_table t[GM_COMPARE_TABLES];
	struct strbuf notes = STRBUF_INIT;
	const char *path[2] = { pa, pb };
	long only = -1;
	int ret = GM_EXIT_ERROR, computed = 0;

	for (long i = 0; table && i < GM_COMPARE_TABLES; i++) {
		only = strcmp(names[i], table) ? only : i;
	}
	if (table && only < 0) {
		return gm_usage_error(usage, "no table called '%s' (with --compare:"
				      " compare-summary, compare-workloads)", table);
	}
	memset(an, 0, sizeof(an));
	for (int k = 0; k < 2; k++) {
		if (gm_db_open(&db[k], path[k], GM_DB_READ)) {
			gm_cli_fail();
			goto out;
		}
		computed = k + 1;
		if (gm_analysis_compute(&an[k], &db[k], &opt)) {
			gm_cli_fail();
			goto out;
		}
	}
	gm_report_compare(&an[0], &an[1], pa, pb, ci, t, &notes);
	for (char *line = notes.buf, *nl; line && *line; line = nl + 1) {
		nl = strchr(line, '\n');
		gm_note("note: %.*s", (int)(nl - line), line);
	}
	print_tables(t, GM_COMPARE_TABLES, only, format);
	for (int i = 0; i < GM_COMPARE_TABLES; i++) {
		gm_table_release(&t[i]);
	}
	if (fflush(stdout) || ferror(stdout)) {
		gm_error_errno("cannot write the tables to stdout");
		gm_cli_fail();
		goto out;
	}
	ret = GM_EXIT_OK;
out:
	for (int k = 0; k < computed; k++) {
		gm_analysis_release(&an[k]);
	}
	gm_db_close(&db[0]);
	gm_db_close(&db[1]);
	strbuf_release(&notes);
	return ret;
}

int cmd_report(int argc, char **argv)
{
	char *usage = make_usage();
	int ret = report(argc, argv, usage);

	free(usage);
	return ret;
}

enum { OPT_FORMAT = 256, OPT_TABLE, OPT_KERNEL, OPT_RUN, OPT_NO_FIG,
       OPT_FIG_SCRIPTS,
       OPT_NO_TL, OPT_TL_REPLAYS, OPT_TL_WINDOW, OPT_TL_MAX, OPT_TL_FORMAT,
       OPT_CI, OPT_COMPARE };

static const struct option report_longopts[] = {
	{ "output", required_argument, NULL, 'o' },
	{ "force", no_argument, NULL, 'f' },
	{ "format", required_argument, NULL, OPT_FORMAT },
	{ "table", required_argument, NULL, OPT_TABLE },
	{ "kernel", required_argument, NULL, OPT_KERNEL },
	{ "run", required_argument, NULL, OPT_RUN },
	{ "no-figures", no_argument, NULL, OPT_NO_FIG },
	{ "figure-scripts", no_argument, NULL, OPT_FIG_SCRIPTS },
	{ "no-timelines", no_argument, NULL, OPT_NO_TL },
	{ "timeline-replays", required_argument, NULL, OPT_TL_REPLAYS },
	{ "timeline-window", required_argument, NULL, OPT_TL_WINDOW },
	{ "timeline-max", required_argument, NULL, OPT_TL_MAX },
	{ "timeline-format", required_argument, NULL, OPT_TL_FORMAT },
	{ "ci", required_argument, NULL, OPT_CI },
	{ "compare", no_argument, NULL, OPT_COMPARE },
	{ NULL, 0, NULL, 0 },
};

const struct gm_cmd_options gm_report_options = {
	.shorts = "o:f",
	.longopts = report_longopts,
};

/* The command line of gpumix report. */
struct report_cmd {
	struct gm_report_options ropt;
	struct gm_analysis_options aopt;
	const char *table;
	int format, compare, other, timelines, tl_opts;
	char **args;		/* the databases */
	int nr_args;
};

/*
 * The command line into @r. Returns 0 to go on, -1 after --help, or the
 * exit status of a usage error (printed).
 */
static int parse(int argc, char **argv, const char *usage,
		 struct report_cmd *r)
{
	struct gm_opt_parser op;
	int c;

	r->format = FORMAT_MD;
	r->timelines = 1;
	r->ropt.figures = GM_FIGURES_DRAW;
	r->ropt.timeline.from_ns = -1;
	r->ropt.timeline.to_ns = -1;
	r->ropt.timeline.max_slices = GM_TIMELINE_MAX_SLICES;
	gm_opt_init(&op, &gm_report_options, usage, argc, argv);
	while ((c = gm_opt_next(&op)) != GM_OPT_END) {
		switch (c) {
		case 'o':
			r->ropt.out_dir = op.arg;
			break;
		case 'f':
			r->ropt.force = 1;
			break;
		case OPT_FORMAT:
			if (parse_format(op.arg, &r->format, usage)) {
				return GM_EXIT_USAGE;
			}
			break;
		case OPT_TABLE:
			r->table = op.arg;
			break;
		case OPT_CI:
			if (gm_ci_opts_parse(&r->aopt.ci, op.arg)) {
				return usage_from_error(usage);
			}
			break;
		case OPT_COMPARE:
			r->compare = 1;
			break;
		case OPT_KERNEL:
			r->aopt.kernel = op.arg;
			r->other = 1;
			break;
		case OPT_RUN:
			r->aopt.run = op.arg;
			r->other = 1;
			break;
		case OPT_NO_FIG:
		case OPT_FIG_SCRIPTS:
			if (r->ropt.figures != GM_FIGURES_DRAW) {
				return gm_usage_error(usage, "--no-figures and "
						      "--figure-scripts: one or "
						      "the other");
			}
			r->ropt.figures = c == OPT_NO_FIG ? GM_FIGURES_NONE :
							    GM_FIGURES_SCRIPTS;
			break;
		case OPT_NO_TL:
			r->timelines = 0;
			break;
		case OPT_TL_REPLAYS:
		case OPT_TL_WINDOW:
		case OPT_TL_MAX:
			if (gm_timeline_limit_set(&r->ropt.timeline,
						  c == OPT_TL_REPLAYS ? "replays" :
						  c == OPT_TL_WINDOW ? "window" : "max",
						  op.arg)) {
				return usage_from_error(usage);
			}
			r->tl_opts = 1;
			break;
		case OPT_TL_FORMAT:
			if (gm_trace_format_parse(optarg, &r->ropt.timeline_format)) {
				return usage_from_error(usage);
			}
			r->tl_opts = 1;
			break;
		case 'h':
			puts(usage);
			return -1;
		default:
			return GM_EXIT_USAGE;
		}
	}
	r->args = argv + op.ind;
	r->nr_args = argc - op.ind;
	return 0;
}

/* Whether the options of @r go with --compare: 0, or a usage error's status. */
static int check_compare(const struct report_cmd *r, const char *usage)
{
	if (r->ropt.out_dir || r->ropt.force ||
	    r->ropt.figures != GM_FIGURES_DRAW || !r->timelines ||
	    r->tl_opts || r->other) {
		return gm_usage_error(usage, "--compare prints two tables:"
				      " -o, --kernel, --run and the figure"
				      " and timeline options do not apply");
	}
	if (r->nr_args != 2) {
		return gm_usage_error(usage, "--compare takes two databases");
	}
	if (check_csv(r->format, r->table, 0, usage)) {
		return GM_EXIT_USAGE;
	}
	return 0;
}

/*
 * Whether the options of @r go together for one database's report, and
 * the rest of r->ropt from them; the table asked for (-1: all) into
 * *@only. 0, or a usage error's status.
 */
static int check_report(struct report_cmd *r, long *only, const char *usage)
{
	struct gm_report_options *ropt = &r->ropt;

	if (check_csv(r->format, r->table, ropt->out_dir != NULL, usage)) {
		return GM_EXIT_USAGE;
	}
	if (r->table) {
		*only = gm_report_table_find(r->table);
		if (*only < 0) {
			return gm_usage_error(usage, "no table called '%s'",
					      r->table);
		}
	}
	if (!r->nr_args) {
		return gm_usage_error(usage, "no database given");
	}
	if (r->nr_args > 1) {
		return gm_usage_error(usage, "one database only ('%s' is extra)",
				      r->args[1]);
	}
	ropt->db_path = r->args[0];
	ropt->gnuplot = gm_gnuplot_program();
	ropt->version = GM_VERSION_STRING;
	if (!ropt->out_dir && (ropt->force || ropt->figures != GM_FIGURES_DRAW ||
			       !r->timelines || r->tl_opts)) {
		return gm_usage_error(usage, "--force, --no-figures, "
				      "--figure-scripts and the timeline "
				      "options need -o");
	}
	if (!r->timelines && r->tl_opts) {
		return gm_usage_error(usage, "--no-timelines and a --timeline-*"
				      " option contradict each other");
	}
	return 0;
}

/*
 * The report of @r's database: table @only (-1: all) on stdout, and with
 * -o the report directory; begun at @t0. Returns the command's exit
 * status (errors printed).
 */
static int write_report(struct report_cmd *r, long only, double t0)
{
	struct gm_report_options *ropt = &r->ropt;
	struct gm_analysis an;
	struct gm_table *tables = NULL;
	struct gm_db db = GM_DB_INIT;
	int ret = GM_EXIT_ERROR;

	if (gm_db_open(&db, ropt->db_path, GM_DB_READ)) {
		return gm_cli_fail();
	}
	ropt->db = r->timelines ? &db : NULL;
	if (gm_analysis_compute(&an, &db, &r->aopt)) {
		gm_cli_fail();
		goto out_an;
	}
	tables = gm_xcalloc(gm_report_table_count, sizeof(*tables));
	gm_report_tables(&an, tables);
	for (size_t i = 0; i < an.nnotes; i++) {
		gm_note("note: %s", an.notes[i]);
	}
	if (!ropt->out_dir || only >= 0) {
		print_tables(tables, gm_report_table_count, only, r->format);
		if (fflush(stdout) || ferror(stdout)) {
			gm_error_errno("cannot write the tables to stdout");
			gm_cli_fail();
			goto out_tables;
		}
	}
	if (ropt->out_dir) {
		struct gm_report_result res;
		if (gm_report_write(&an, tables, ropt, &res)) {
			gm_cli_fail();
			goto out_tables;
		}
		gm_note("report: %zu runs, %zu tables, %zu figures%s, %zu timelines"
			" in %s/index.md (%.1f s)", an.nruns, res.tables,
			res.figures, ropt->figures == GM_FIGURES_DRAW ? "" :
			ropt->figures == GM_FIGURES_NONE ? " (--no-figures)" :
			" (data and scripts only: --figure-scripts)",
			res.timelines, ropt->out_dir, gm_now_s() - t0);
	}
	ret = GM_EXIT_OK;
out_tables:
	if (tables) {
		gm_report_tables_release(tables);
		free(tables);
	}
out_an:
	gm_analysis_release(&an);
	gm_db_close(&db);
	return ret;
}

static int report(int argc, char **argv, const char *usage)
{
	struct report_cmd r = { 0 };
	long only = -1;
	double t0 = gm_now_s();
	int ret;

	ret = parse(argc, argv, usage, &r);
	if (ret) {
		return ret < 0 ? GM_EXIT_OK : ret;
	}
	if (r.compare) {
		ret = check_compare(&r, usage);
		if (ret) {
			return ret;
		}
		return compare_studies(r.args[0], r.args[1], r.table, r.format,
				       &r.aopt.ci, usage);
	}
	ret = check_report(&r, &only, usage);
	if (ret) {
		return ret;
	}
	if (r.ropt.out_dir && gm_report_check_output(&r.ropt)) {
		return gm_cli_fail();
	}
	return write_report(&r, only, t0);
}
