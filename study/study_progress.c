/* SPDX-License-Identifier: MIT */
/*
 * The study's progress line (see progress.h).
 */
#include "study_progress.h"

#include <string.h>
#include <time.h>
#include <unistd.h>

#include "clock.h"

#define REDRAW_S 0.25

void study_progress_format_duration(char *buf, size_t len, double secs)
{
	long s = (long)(secs + 0.5);

	if (s < 60) {
		snprintf(buf, len, "%lds", s);
	} else if (s < 3600) {
		snprintf(buf, len, "%ldm%02lds", s / 60, s % 60);
	} else {
		snprintf(buf, len, "%ldh%02ldm", s / 3600, (s % 3600) / 60);
	}
}

void study_progress_init(struct study_progress *p, FILE *out, int quiet)
{
	memset(p, 0, sizeof(*p));
	p->out = out;
	p->quiet = quiet;
	p->tty = !quiet && isatty(fileno(out));
	p->start = gm_now_s();
	p->current = -1;
}

void study_progress_sample(struct study_progress *p, enum study_stage kind, double secs)
{
	p->sum[kind] += secs;
	p->count[kind]++;
}

void study_progress_plan(struct study_progress *p, enum study_stage kind)
{
	p->left[kind]++;
	p->stages_total++;
}

/*
 * Estimated seconds left; negative while nothing is known. *@partial is
 * set when some kinds of stage still to run have no known duration (the
 * estimate is then a lower bound); the one report stage at the end does
 * not count, so that a first study shows an estimate early.
 */
static double remaining(const struct study_progress *p, double now, int *partial)
{
	double total = 0;
	int known = 0;

	*partial = 0;
	for (int k = 0; k < STUDY_NR_STAGES; k++) {
		if (!p->left[k]) {
			continue;
		}
		if (!p->count[k]) {
			*partial |= k != STUDY_STAGE_REPORT;
			continue;
		}
		known = 1;
		double mean = p->sum[k] / p->count[k];
		/* Replays on several GPUs: as many at once. */
		unsigned par = k == STUDY_STAGE_REPLAY && p->parallel > 1 ?
			       p->parallel : 1;
		total += p->left[k] * mean / par;
		if (k == p->current) {
			double in = now - p->current_start;
			total -= in < mean ? in : mean;
		}
	}
	return known ? total : -1;
}

static void draw(struct study_progress *p, int final_line)
{
	char el[32], left[48], line[512];
	double now = gm_now_s();
	int partial;
	double rem = remaining(p, now, &partial);

	study_progress_format_duration(el, sizeof(el), now - p->start);
	if (rem < 0) {
		snprintf(left, sizeof(left), "estimating time left");
	} else {
		char r[32];
		study_progress_format_duration(r, sizeof(r), rem);
		snprintf(left, sizeof(left), "%s%s left", partial ? "more than "
			 : "~", r);
	}
	int n = snprintf(line, sizeof(line), "[runs %zu/%zu, stage %zu/%zu] %s "
			 "(%s elapsed, %s)", p->runs_done, p->runs_total,
			 p->stages_done + 1, p->stages_total, p->label, el, left);
	if (n < 0) {
		return;
	}
	if (p->tty) {
		fprintf(p->out, "\r%s\033[K", line);
		p->shown = (size_t)n;
	} else if (final_line) {
		fprintf(p->out, "%s\n", line);
	}
	fflush(p->out);
	p->last_draw = now;
}

void study_progress_begin(struct study_progress *p, enum study_stage kind,
		    const char *label)
{
	p->current = (int)kind;
	p->current_start = gm_now_s();
	snprintf(p->label, sizeof(p->label), "%s", label);
	if (!p->quiet) {
		draw(p, 1);
	}
}

void study_progress_tick(struct study_progress *p)
{
	if (p->quiet || !p->tty || gm_now_s() - p->last_draw < REDRAW_S) {
		return;
	}
	draw(p, 0);
}

static void clear_line(struct study_progress *p)
{
	if (p->tty && p->shown) {
		fputs("\r\033[K", p->out);
		p->shown = 0;
	}
}

void study_progress_end(struct study_progress *p, enum study_stage kind, double secs,
		  const char *failure)
{
	study_progress_sample(p, kind, secs);
	if (p->left[kind]) {
		p->left[kind]--;
	}
	p->stages_done++;
	p->current = -1;
	if (failure && !p->quiet) {
		clear_line(p);
		fprintf(p->out, "%s: %s\n", p->label, failure);
		fflush(p->out);
	}
}

void study_progress_drop(struct study_progress *p, enum study_stage kind)
{
	if (p->left[kind]) {
		p->left[kind]--;
	}
	if (p->stages_total) {
		p->stages_total--;
	}
}

void study_progress_finish(struct study_progress *p)
{
	if (!p->quiet) {
		clear_line(p);
		fflush(p->out);
	}
}
