/* SPDX-License-Identifier: MIT */
/*
 * gen_study: write a synthetic study as run directories in the format of
 * doc/run-directory.md, for the analyze tests, the sample report and
 * `make bench`. Eleven Parboil-like programs (kernel shapes, registers,
 * shared memory and durations in the spirit of the paper's Table 2) are
 * paired into workloads; each workload runs under the `single` variant
 * (programs one after another) and under concurrent variants simulated
 * by a tiny event-driven GPU model: a kernel starts when its resident
 * blocks fit next to the running ones (cuda: first-come first-served
 * with head-of-line blocking; nss: any program's kernel that fits;
 * elastic: kernels shrunk to a share of the GPU, running longer). The
 * model is only meant to produce realistic-looking timelines (overlaps,
 * ties, waiting) of any size, deterministically from a seed.
 *
 * Like a study, its manifests say which kernels each run ran (`elastic`:
 * `policy` in the elastic runs and, when some run is elastic, `identity`
 * in the others, as under same_kernels; --captured-kernels leaves it out
 * of the others) and the elastic and nss runs' timeslice and copy chunk.
 *
 * usage: gen_study -o DIR [--kernels N] [--workloads W] [--programs P]
 *                  [--replays R] [--seed S] [--variants a,b,...]
 *                  [--odd-names] [--captured-kernels]
 */
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "atomic_file.h"
#include "error.h"
#include "fs.h"
#include "occupancy.h"
#include "strbuf.h"

struct kprof {
	const char *name;	/* function name */
	const char *params;	/* Itanium parameter encoding */
	int gx, gy, bx, by, regs, smem;
	double us;		/* mean duration alone */
	int weight;		/* launches per cycle of the program */
};

struct prof {
	const char *name;
	int nk;
	struct kprof k[3];
	int64_t copy_bytes;
};

static const struct prof progs[] = {
	{ "bfs", 1, { { "BFS_in_GPU_kernel", "PiS_P4int2S1_S_S_iiS_i", 1, 1, 512, 1, 20, 6144, 350, 1 } }, 64 << 20 },
	{ "cutcp", 1, { { "cuda_cutoff_potential_lattice6overlap", "iiP6float3fP6float4i", 11, 11, 128, 1, 36, 4608, 900, 1 } }, 8 << 20 },
	{ "fft", 2, { { "GPU_FFT_Global", "iP6float2S0_i", 1024, 1, 128, 1, 24, 0, 60, 4 },
		      { "GPU_FFT_Local", "P6float2", 512, 1, 256, 1, 30, 8192, 45, 1 } }, 32 << 20 },
	{ "histo", 2, { { "histo_main_kernel", "P6uchar4jjjjjPjS1_S1_", 42, 1, 768, 1, 30, 24576, 150, 2 },
			{ "histo_final_kernel", "jjjPjS_S_S_", 42, 1, 512, 1, 20, 0, 40, 1 } }, 16 << 20 },
	{ "lbm", 1, { { "performStreamCollide_kernel", "PfS_", 130, 100, 120, 1, 38, 0, 2000, 1 } }, 96 << 20 },
	{ "mri-q", 2, { { "ComputeQ_GPU", "iiPfS_S_S_S_", 1024, 1, 256, 1, 26, 0, 1500, 1 },
			{ "ComputePhiMag_GPU", "PfS_S_i", 4, 1, 512, 1, 12, 0, 20, 1 } }, 4 << 20 },
	{ "mm", 1, { { "mysgemmNT", "PKfiS0_ifPfiif", 33, 16, 128, 1, 60, 512, 800, 1 } }, 12 << 20 },
	{ "sad", 3, { { "mb_sad_calc", "PtS_iii", 44, 36, 61, 1, 40, 0, 500, 1 },
		      { "larger_sad_calc_8", "Ptii", 99, 1, 32, 1, 16, 0, 100, 1 },
		      { "larger_sad_calc_16", "Ptii", 99, 1, 32, 1, 16, 0, 60, 1 } }, 24 << 20 },
	{ "spmv", 1, { { "spmv_jds", "PfPKfPKiS3_S1_S3_i", 2000, 1, 192, 1, 24, 0, 100, 3 } }, 20 << 20 },
	{ "stencil", 1, { { "block2D_hybrid_coarsen_x", "ffPfS_iii", 8, 256, 128, 2, 30, 4096, 400, 1 } }, 48 << 20 },
	{ "tpacf", 1, { { "gen_hists", "PyPfii", 201, 1, 256, 1, 22, 13312, 5000, 1 } }, 8 << 20 },
};

#define NR_PROGS (sizeof(progs) / sizeof(progs[0]))

/* Odd names for the robustness tests: quotes, a tab, non-ASCII. */
static const char *const odd_prog_names[] = { "o'brien \"q\"", "ünï\tcode" };
static const char *const odd_kernel_names[] = { "kernel_\"quoted\"'s", "kernel_ünïcode_é" };

static uint64_t rng_state;

static double rnd(void)
{
	rng_state ^= rng_state << 13;
	rng_state ^= rng_state >> 7;
	rng_state ^= rng_state << 17;
	return (rng_state >> 11) * (1.0 / 9007199254740992.0);
}

enum variant_kind { V_SINGLE, V_CUDA, V_NSS, V_ELASTIC };

struct variant {
	const char *name, *policy;
	enum variant_kind kind;
	double cap;		/* elastic: largest GPU share of a kernel */
};

/* One program's state inside a simulated run. */
struct pstate {
	const struct prof *p;
	const char *name;
	int kernels_per_replay;
	int replay, op, nops;	/* ops: copy in, kernels..., copy out */
	int64_t ready;		/* when the next op can be issued */
	int64_t replay_start, replay_io;
	int busy;		/* an op is queued or running */
	int done;
	double frac[3];		/* GPU share of each kernel, alone */
	int64_t start_k;	/* ordinal of the next kernel */
};

struct qk {			/* a launched kernel waiting or running */
	int prog, kidx;
	int64_t launch, start, end, corr;
	double frac;
	int running;
};

struct sim {
	FILE *act, *rep;
	uint64_t records, kernels;
	int64_t corr;
	struct qk *q;
	size_t nq, aq;
};

static const char *esc(const char *s, struct strbuf *sb)
{
	strbuf_reset(sb);
	for (; *s; s++) {
		if (*s == '\\') {
			strbuf_addstr(sb, "\\\\");
		} else if (*s == '\t') {
			strbuf_addstr(sb, "\\t");
		} else if (*s == '\n') {
			strbuf_addstr(sb, "\\n");
		} else {
			strbuf_addch(sb, *s);
		}
	}
	return sb->buf;
}

static char *mangled(const struct kprof *k, int odd, int ki)
{
	if (odd) {
		return gm_xstrdup(odd_kernel_names[ki % 2]);
	}
	return gm_xasprintf("_Z%zu%s%s", strlen(k->name), k->name, k->params);
}

static double kernel_frac(const struct kprof *k)
{
	struct gm_kernel_usage u = {
		.threads_per_block = k->bx * k->by,
		.regs_per_thread = k->regs,
		.smem_per_block = (size_t)k->smem,
	};
	struct gm_occupancy o;
	long cap;

	if (gm_occupancy_compute(&gm_device_h100, &u, &o)) {
		return 1.0;
	}
	cap = (long)o.blocks_per_sm * gm_device_h100.sm_count;
	long g = (long)k->gx * k->gy;
	return (double)(g < cap ? g : cap) / cap;
}

static int64_t jitter(double us, double spread)
{
	double v = us * (1.0 + spread * (2 * rnd() - 1));
	return (int64_t)(v * 1000.0);
}

static void emit_api(struct sim *s, const char *prog, int64_t corr,
		     int64_t start, int64_t end, int cbid, const char *name,
		     int tid)
{
	fprintf(s->act, "API\t%s\t%" PRId64 "\t%" PRId64 "\t%" PRId64
		"\tdriver\t%d\t%s\t%d\n", prog, corr, start, end, cbid, name,
		tid);
	s->records++;
}

static double used_share(struct sim *s)
{
	double u = 0;

	for (size_t i = 0; i < s->nq; i++) {
		if (s->q[i].running) {
			u += s->q[i].frac;
		}
	}
	return u;
}

/*
 * Simulate the programs @ps (all at once, or one after another for
 * `single`) and write activity records and replay lines.
 */
static void simulate(struct sim *s, struct pstate *ps, int np,
		     const struct variant *v, int min_replays, int odd,
		     int64_t t0, int64_t *t_end)
{
	struct strbuf sb = STRBUF_INIT, sb2 = STRBUF_INIT;
	int64_t t = t0;
	int active_from = 0, active_to = v->kind == V_SINGLE ? 1 : np;

	for (int i = 0; i < np; i++) {
		ps[i].ready = t0;
		ps[i].replay = 0;
		ps[i].op = 0;
		ps[i].busy = 0;
		ps[i].done = 0;
		ps[i].replay_start = -1;
	}
	for (;;) {
		/* Next event: an idle program's issue or a running kernel's end. */
		int64_t next = INT64_MAX;
		for (int i = active_from; i < active_to; i++) {
			if (!ps[i].done && !ps[i].busy && ps[i].ready < next) {
				next = ps[i].ready;
			}
		}
		for (size_t i = 0; i < s->nq; i++) {
			if (s->q[i].running && s->q[i].end < next) {
				next = s->q[i].end;
			}
		}
		if (next == INT64_MAX) {
			if (v->kind == V_SINGLE && active_to < np) {
				active_from = active_to++;
				ps[active_from].ready = t + 200000;
				continue;
			}
			break;
		}
		t = next;
		/* Completions. */
		for (size_t i = 0; i < s->nq;) {
			struct qk *k = &s->q[i];
			if (k->running && k->end <= t) {
				ps[k->prog].busy = 0;
				ps[k->prog].ready = k->end + 2000 + (int64_t)(rnd() * 3000);
				s->q[i] = s->q[--s->nq];
			} else {
				i++;
			}
		}
		/* Issues. */
		for (int i = active_from; i < active_to; i++) {
			struct pstate *p = &ps[i];
			if (p->done || p->busy || p->ready > t) {
				continue;
			}
			const char *pn = esc(p->name, &sb);
			int tid = 1000 + i;
			if (p->op == 0) {
				p->replay_start = t;
				p->replay_io = 0;
			}
			if (p->op == 0 || p->op == p->nops - 1) {
				/* A synchronous copy on the program's stream. */
				int in = p->op == 0;
				int64_t bytes = p->p->copy_bytes / (in ? 1 : 4);
				int64_t dur = bytes / 20 + 5000;	/* ~20 GB/s */
				int64_t corr = ++s->corr;
				emit_api(s, pn, corr, t, t + dur + 4000, in ? 279 : 285,
					 in ? "cuMemcpyHtoD_v2" : "cuMemcpyDtoH_v2", tid);
				fprintf(s->act, "MEMCPY\t%s\t%" PRId64 "\t%" PRId64 "\t%"
					PRId64 "\t%s\t%" PRId64 "\t%d\n", pn, corr,
					t + 2000, t + 2000 + dur, in ? "HTOD" : "DTOH",
					bytes, 7 + 2 * i);
				s->records += 1;
				if (in) {
					int64_t mcorr = ++s->corr;
					emit_api(s, pn, mcorr, t + dur + 4500,
						 t + dur + 6000, 297, "cuMemsetD32_v2", tid);
					fprintf(s->act, "MEMSET\t%s\t%" PRId64 "\t%" PRId64
						"\t%" PRId64 "\t%d\t0\t%d\n", pn, mcorr,
						t + dur + 5000, t + dur + 5800, 4096, 7 + 2 * i);
					s->records++;
					dur += 6000;
				}
				p->replay_io += (int64_t)(rnd() * 20000);
				p->ready = t + dur + 4000;
				if (!in) {
					int64_t end = p->ready;
					int others_short = 0;
					for (int j = active_from; j < active_to; j++) {
						if (ps[j].replay + (j == i) < min_replays) {
							others_short = 1;
						}
					}
					p->replay++;
					int last = v->kind == V_SINGLE
						? p->replay >= min_replays + 1
						: !others_short;
					fprintf(s->rep, "%s\t%d\t%" PRId64 "\t%" PRId64 "\t%"
						PRId64 "\t%d\n", pn, p->replay - 1,
						p->replay_start, end, p->replay_io, !last);
					p->op = 0;
					if (last) {
						p->done = 1;
					}
					continue;
				}
				p->op++;
				continue;
			}
			/* A kernel launch: API call now, the kernel when it fits. */
			int ki = 0, cyc = 0;
			for (int k = 0; k < p->p->nk; k++) {
				cyc += p->p->k[k].weight;
			}
			int slot = (int)(p->start_k++ % cyc);
			for (ki = 0; ki < p->p->nk; ki++) {
				slot -= p->p->k[ki].weight;
				if (slot < 0) {
					break;
				}
			}
			GM_ALLOC_GROW(s->q, s->nq + 1, s->aq);
			struct qk *k = &s->q[s->nq++];
			k->prog = i;
			k->kidx = ki;
			k->launch = t;
			k->corr = ++s->corr;
			k->running = 0;
			k->frac = p->frac[ki];
			double us = p->p->k[ki].us;
			if (v->kind == V_ELASTIC && k->frac > v->cap) {
				us *= 1.0 + 0.8 * (k->frac / v->cap - 1.0);
				k->frac = v->cap;
			}
			k->end = jitter(us, 0.1);	/* duration for now */
			emit_api(s, pn, k->corr, t, t + 3000, 307, "cuLaunchKernel", tid);
			p->busy = 1;
			p->op++;
		}
		/* Starts: queued kernels in launch order. */
		for (size_t i = 0; i < s->nq; i++) {
			struct qk *k = &s->q[i];
			if (k->running) {
				continue;
			}
			int blocked = 0;
			/* cuda: an older waiting kernel blocks younger ones. */
			for (size_t j = 0; j < s->nq && v->kind == V_CUDA; j++) {
				if (!s->q[j].running && s->q[j].launch < k->launch) {
					blocked = 1;
				}
			}
			double used = used_share(s);
			if (blocked || (used > 0 && used + k->frac > 1.0 + 1e-9)) {
				continue;
			}
			const struct kprof *kp = &ps[k->prog].p->k[k->kidx];
			/* Co-runners share the SMs' issue slots: some slowdown. */
			int64_t dur = (int64_t)(k->end * (1.0 + 0.6 * (used < 1 ? used : 1)));
			int64_t lat = v->kind == V_CUDA ? 12000 : v->kind == V_NSS ? 7000 : 5000;
			k->start = t > k->launch + lat ? t : k->launch + lat;
			k->end = k->start + dur;
			k->running = 1;
			char *mn = mangled(kp, odd, k->prog + k->kidx);
			int64_t queued = k->launch + 1500;
			int64_t submitted = k->start - 800 > queued ? k->start - 800 : queued;
			fprintf(s->act, "KERNEL\t%s\t%" PRId64 "\t%" PRId64 "\t%" PRId64
				"\t%" PRId64 "\t%" PRId64 "\t0\t1\t%d\t%d\t%d\t1\t%d\t%d\t1"
				"\t%d\t%d\t0\t%s\n", esc(ps[k->prog].name, &sb), k->corr,
				k->start, k->end, queued, submitted, 8 + 2 * k->prog,
				kp->gx, kp->gy, kp->bx, kp->by, kp->regs, kp->smem,
				esc(mn, &sb2));
			free(mn);
			s->records++;
			s->kernels++;
		}
	}
	*t_end = t;
	strbuf_release(&sb);
	strbuf_release(&sb2);
}

/*
 * Write the run of @v; @code is the manifest's `elastic` for a variant
 * that is not elastic (NULL: none, the captured kernels).
 */
static int write_run(const char *dir, const char *const *names,
		     const struct prof **pp, int np, const struct variant *v,
		     const char *code, int min_replays, int odd,
		     int kernels_per_replay, uint64_t *kernels,
		     uint64_t *records)
{
	struct strbuf wl = STRBUF_INIT, path = STRBUF_INIT, m = STRBUF_INIT;
	struct strbuf e = STRBUF_INIT;
	struct pstate ps[8];
	struct sim s;
	int64_t t_end;
	int ret = -1;

	memset(&s, 0, sizeof(s));
	for (int i = 0; i < np; i++) {
		strbuf_addf(&wl, "%s%s", i ? "+" : "", names[i]);
	}
	strbuf_addf(&path, "%s/%s.%s", dir, wl.buf, v->name);
	if (v->policy) {
		strbuf_addf(&path, ".%s", v->policy);
	}
	if (gm_mkdir_p(path.buf, 0755)) {
		goto out;
	}
	char *ap = gm_xasprintf("%s/activity.tsv", path.buf);
	char *rp = gm_xasprintf("%s/replays.tsv", path.buf);
	s.act = fopen(ap, "w");
	s.rep = fopen(rp, "w");
	free(ap);
	free(rp);
	if (!s.act || !s.rep) {
		gm_error_errno("cannot create files in '%s'", path.buf);
		goto out;
	}
	fputs("program\treplay\tstart_ns\tend_ns\tio_ns\tkept\n", s.rep);
	memset(ps, 0, sizeof(ps));
	for (int i = 0; i < np; i++) {
		ps[i].p = pp[i];
		ps[i].name = names[i];
		ps[i].kernels_per_replay = kernels_per_replay;
		ps[i].nops = kernels_per_replay + 2;
		for (int k = 0; k < pp[i]->nk; k++) {
			ps[i].frac[k] = kernel_frac(&pp[i]->k[k]);
		}
	}
	int64_t t0 = 1700000000000000000LL + (int64_t)(rnd() * 1e12);
	simulate(&s, ps, np, v, min_replays, odd, t0, &t_end);
	fprintf(s.act, "END\t%" PRIu64 "\n", s.records);
	if (fclose(s.act) | fclose(s.rep)) {
		s.act = s.rep = NULL;
		gm_error_errno("cannot write '%s'", path.buf);
		goto out;
	}
	s.act = s.rep = NULL;

	strbuf_addf(&m, "# gpumix run manifest (synthetic, bench/gen_study)\n"
		    "format = gpumix-run 1\nworkload = %s\nvariant = %s\n"
		    "policy = %s\nprograms = %d\n", esc(wl.buf, &e), v->name,
		    v->policy ? v->policy : "none", np);
	for (int i = 0; i < np; i++) {
		strbuf_addf(&m, "program.%d.name = %s\n", i, esc(names[i], &e));
		strbuf_addf(&m, "program.%d.bundle = traces/%s\n", i,
			    esc(names[i], &e));
		strbuf_addf(&m, "program.%d.deterministic = 1\n", i);
	}
	strbuf_addf(&m, "device.name = NVIDIA H100 80GB HBM3\ndevice.cc = 9.0\n"
		    "device.sm_count = 132\ndevice.max_threads_per_sm = 2048\n"
		    "device.max_blocks_per_sm = 32\ndevice.regs_per_sm = 65536\n"
		    "device.smem_per_sm = 233472\ndriver_version = 13000\n"
		    "runtime_version = 13000\ncuda_device_max_connections = 8\n"
		    "streams = %d\nmin_replays = %d\ngpumix_version = synthetic\n"
		    "started_at = 2025-01-01T00:00:00Z\n"
		    "finished_at = 2025-01-01T00:00:%02dZ\nstatus = ok\n"
		    "cupti.dropped_records = 0\n",
		    v->kind == V_SINGLE ? 1 : (v->kind == V_CUDA ? np : 2 * np),
		    min_replays, (int)(rnd() * 60));
	if (v->kind == V_ELASTIC) {
		strbuf_addstr(&m, "elastic = policy\n"
			      "elastic.timeslice_us = 1000\n");
	} else if (code) {
		strbuf_addf(&m, "elastic = %s\n", code);
	}
	if (v->kind == V_ELASTIC || v->kind == V_NSS) {
		strbuf_addstr(&m, "nss.copy_chunk = 4194304\n");
	}
	char *mp = gm_xasprintf("%s/manifest", path.buf);
	char *lp = gm_xasprintf("%s/log", path.buf);
	ret = gm_write_file_atomic(mp, m.buf, m.len, 1) ||
	      gm_write_file_atomic(lp, "", 0, 1) ? -1 : 0;
	free(mp);
	free(lp);
	*kernels += s.kernels;
	*records += s.records;
out:
	if (s.act) {
		fclose(s.act);
	}
	if (s.rep) {
		fclose(s.rep);
	}
	free(s.q);
	strbuf_release(&wl);
	strbuf_release(&path);
	strbuf_release(&m);
	strbuf_release(&e);
	return ret;
}

static const struct variant all_variants[] = {
	{ "single", NULL, V_SINGLE, 1.0 },
	{ "cuda", NULL, V_CUDA, 1.0 },
	{ "nss", NULL, V_NSS, 1.0 },
	{ "elastic", "median", V_ELASTIC, 0.5 },
	{ "elastic", "mpmax", V_ELASTIC, 0.75 },
	{ "elastic", "equal", V_ELASTIC, 0.34 },
	{ "elastic", "queuemold", V_ELASTIC, 0.9 },
};

#define NR_VARIANTS (sizeof(all_variants) / sizeof(all_variants[0]))

static int want_variant(const char *list, const struct variant *v)
{
	char label[64];
	const char *p = list;
	size_t n;

	snprintf(label, sizeof(label), "%s%s%s", v->name, v->policy ? "+" : "",
		 v->policy ? v->policy : "");
	n = strlen(label);
	while (p && *p) {
		if (!strncmp(p, label, n) && (p[n] == ',' || !p[n])) {
			return 1;
		}
		p = strchr(p, ',');
		p = p ? p + 1 : NULL;
	}
	return 0;
}

int main(int argc, char **argv)
{
	const char *out = NULL;
	const char *variants = "single,cuda,nss,elastic+median,elastic+mpmax";
	long kernels = 20000, workloads = 6, nprog = 2, replays = 7;
	unsigned long seed = 1;
	int odd = 0, captured = 0;
	const char *code = NULL;
	uint64_t total_k = 0, total_r = 0;

	for (int i = 1; i < argc; i++) {
		const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
		if (!strcmp(a, "-o") && v) {
			out = v;
		} else if (!strcmp(a, "--kernels") && v) {
			kernels = atol(v);
		} else if (!strcmp(a, "--workloads") && v) {
			workloads = atol(v);
		} else if (!strcmp(a, "--programs") && v) {
			nprog = atol(v);
		} else if (!strcmp(a, "--replays") && v) {
			replays = atol(v);
		} else if (!strcmp(a, "--seed") && v) {
			seed = strtoul(v, NULL, 10);
		} else if (!strcmp(a, "--variants") && v) {
			variants = v;
		} else if (!strcmp(a, "--odd-names")) {
			odd = 1;
			i--;
		} else if (!strcmp(a, "--captured-kernels")) {
			captured = 1;
			i--;
		} else {
			fprintf(stderr, "usage: gen_study -o DIR [--kernels N]"
				" [--workloads W] [--programs P] [--replays R]"
				" [--seed S] [--variants a,b,...] [--odd-names]"
				" [--captured-kernels]\n");
			return 2;
		}
		i++;
	}
	if (!out || kernels < 1 || workloads < 1 || nprog < 1 || nprog > 8 ||
	    replays < 1) {
		fprintf(stderr, "gen_study: -o DIR is required; counts must be"
			" positive, at most 8 programs\n");
		return 2;
	}
	rng_state = seed * 2654435761u + 88172645463325252ULL;
	size_t nv = 0;
	for (size_t v = 0; v < NR_VARIANTS; v++) {
		nv += want_variant(variants, &all_variants[v]);
		if (want_variant(variants, &all_variants[v]) &&
		    all_variants[v].kind == V_ELASTIC && !captured) {
			code = "identity";
		}
	}
	if (!nv) {
		fprintf(stderr, "gen_study: no known variant in '%s'\n", variants);
		return 2;
	}
	for (long w = 0; w < workloads; w++) {
		const struct prof *pp[8];
		const char *names[8];
		for (long i = 0; i < nprog; i++) {
			/* Distinct programs, cycling through pairs as w grows. */
			size_t idx = (size_t)(w + i * (1 + w / (long)NR_PROGS)) % NR_PROGS;
			pp[i] = &progs[idx];
			names[i] = odd && i < 2 ? odd_prog_names[i] : progs[idx].name;
		}
		/*
		 * Spread what is left of the budget over the workloads left;
		 * every variant of a workload replays the same programs.
		 */
		long budget = ((long)kernels - (long)total_k) / (workloads - w);
		long kpr = budget / ((long)nv * nprog * (replays + 1));
		if (kpr < 1) {
			kpr = 1;
		}
		for (size_t v = 0; v < NR_VARIANTS; v++) {
			if (!want_variant(variants, &all_variants[v])) {
				continue;
			}
			if (write_run(out, names, pp, (int)nprog, &all_variants[v],
				      code, (int)replays, odd, (int)kpr,
				      &total_k, &total_r)) {
				gm_error_report(stderr);
				return 1;
			}
		}
	}
	printf("gen_study: %ld runs, %" PRIu64 " kernel records, %" PRIu64
	       " records in all, in %s\n", workloads * (long)nv, total_k, total_r,
	       out);
	return 0;
}
