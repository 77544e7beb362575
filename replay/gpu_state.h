/* SPDX-License-Identifier: MIT */
/*
 * The GPU's state around a run, for the report's noise diagnostics: its
 * SM clock, temperature and clock-throttle reasons at the run's start and
 * end, read through NVML (the driver's libnvidia-ml.so.1, loaded with
 * dlopen, so a machine without it still replays). Read-only: only query
 * functions are looked up, nothing is ever set. The device is the one the
 * run uses, found by its PCI bus id (NVML does not follow
 * CUDA_VISIBLE_DEVICES). Without the library or the device, the state is
 * simply absent: the manifest then has no gpu.* keys
 * (doc/run-directory.md).
 */
#ifndef GM_GPU_STATE_H
#define GM_GPU_STATE_H

#include <stdint.h>

#include "kvfile.h"

/* One reading; a field is absent when its query failed. */
struct gm_gpu_state {
	int have_clock, have_temp, have_throttle;
	unsigned sm_clock_mhz;
	unsigned temp_c;
	unsigned long long throttle;	/* NVML's clock event reason bits */
};

/* The library and the device, between gm_nvml_open and gm_nvml_close. */
struct gm_nvml {
	void *lib;			/* dlopen handle; NULL: not open */
	void *device;			/* nvmlDevice_t */
	int (*shutdown)(void);
	int (*clock)(void *dev, int type, unsigned *mhz);
	int (*temperature)(void *dev, int sensor, unsigned *c);
	int (*reasons)(void *dev, unsigned long long *bits);
};

/*
 * Load NVML, initialise it and find the device whose PCI bus id is
 * @bus_id (as cuDeviceGetPCIBusId gives it). Returns 0, or -1 with
 * @why (@len bytes) saying what is missing; @n is then closed.
 */
int gm_nvml_open(struct gm_nvml *n, const char *bus_id, char *why,
		 size_t len);

/* Read the state of @n's device into @s (all absent when @n is not open). */
void gm_gpu_state_read(const struct gm_nvml *n, struct gm_gpu_state *s);

/* Shut NVML down and unload it (nothing when it was not open). */
void gm_nvml_close(struct gm_nvml *n);

/*
 * Set @prefix.sm_clock_mhz, @prefix.temp_c and @prefix.throttle (the
 * reasons' names joined by ',', "none" when none; unknown bits as hex)
 * from @s, each only when @s has it.
 */
void gm_gpu_state_manifest(struct kvfile *kv, const char *prefix,
			   const struct gm_gpu_state *s);

/*
 * The names of the reason bits @bits into @buf (@len bytes), as the
 * manifest writes them: "none", or e.g. "sw_power_cap,hw_slowdown".
 */
void gm_throttle_names(unsigned long long bits, char *buf, size_t len);

#endif
