/* SPDX-License-Identifier: MIT */
/*
 * The GPUs a study spreads its runs over (gpumix run --gpus): read from
 * nvidia-smi's machine-readable listing (index, UUID, model of every GPU
 * of the node) and chosen by `all`, a count N (the first N) or a list of
 * indexes. Each run is pinned to one of them through CUDA_VISIBLE_DEVICES
 * (the UUID when known, so the pinning does not depend on CUDA's device
 * order). A study on GPUs of different models is refused: its runs'
 * times would not be comparable, and its baselines would need to be kept
 * per model.
 */
#ifndef GM_STUDY_GPU_LIST_H
#define GM_STUDY_GPU_LIST_H

#include <stddef.h>

/* The program that lists the GPUs (default: nvidia-smi in PATH). */
#define GPU_LIST_SMI_ENV "GPUMIX_NVIDIA_SMI"

struct gpu_info {
	unsigned index;		/* nvidia-smi's index (PCI bus order) */
	char *uuid;		/* "GPU-..." or NULL when not known */
	char *name;		/* model, or NULL when not known */
};

struct gpu_list {
	struct gpu_info *v;
	size_t nr, alloc;
};

#define GPU_LIST_INIT { NULL, 0, 0 }

/*
 * Parse nvidia-smi's `--query-gpu=index,uuid,name --format=csv,noheader`
 * output @text into @l (appended). A line that is not "INDEX, UUID,
 * NAME" is an error quoting it.
 */
int gpu_list_parse(struct gpu_list *l, const char *text);

/* Run nvidia-smi (GPU_LIST_SMI_ENV) and parse its listing into @l; -1
 * with the reason when it cannot be run or lists no GPU. */
int gpu_list_probe(struct gpu_list *l);

/*
 * Choose the GPUs @spec names ("all", a count "N", or a list "0,2,3" of
 * indexes) into @out. The node's GPUs are probed; for a count or a list
 * on a node where nvidia-smi cannot be run, the indexes are taken as
 * given (no UUID, no model) after a warning. Fails on a malformed spec,
 * an index the node does not have, a repeated index, more GPUs than the
 * node has, or GPUs of different models.
 */
int gpu_list_choose(struct gpu_list *out, const char *spec);

/* "0 (GPU-..., NVIDIA H100 80GB HBM3)", or "0" (caller frees). */
char *gpu_info_describe(const struct gpu_info *g);

/* The CUDA_VISIBLE_DEVICES value that selects @g: its UUID or index
 * (caller frees). */
char *gpu_info_visible(const struct gpu_info *g);

void gpu_list_release(struct gpu_list *l);

#endif
