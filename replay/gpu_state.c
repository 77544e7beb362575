/* SPDX-License-Identifier: MIT */
/*
 * GPU state through NVML (see gpu_state.h). NVML's few types and values
 * used here are its stable ABI (nvml.h is not needed to build): return 0
 * is NVML_SUCCESS, clock type 1 NVML_CLOCK_SM, sensor 0
 * NVML_TEMPERATURE_GPU, device handles are pointers. The reason bits are
 * nvmlClocksEventReason* (formerly nvmlClocksThrottleReason*, the same
 * bits): the newer query is used where the driver has it, the older one
 * otherwise.
 */
#include "gpu_state.h"

#include <dlfcn.h>
#include <stdio.h>
#include <string.h>

#define NVML_SUCCESS 0
#define NVML_CLOCK_SM 1
#define NVML_TEMPERATURE_GPU 0

/* The reason bits in NVML's order (bit i = 1 << i). */
static const char *const reason_names[] = {
	"gpu_idle", "applications_clocks_setting", "sw_power_cap",
	"hw_slowdown", "sync_boost", "sw_thermal", "hw_thermal",
	"hw_power_brake", "display_clocks",
};

void gm_throttle_names(unsigned long long bits, char *buf, size_t len)
{
	size_t used = 0;
	const size_t known = sizeof(reason_names) / sizeof(reason_names[0]);
	unsigned long long unknown = bits & ~((1ULL << known) - 1);

	buf[0] = '\0';
	if (!bits) {
		snprintf(buf, len, "none");
		return;
	}
	for (size_t i = 0; i < known && used < len; i++) {
		if (bits & (1ULL << i)) {
			used += (size_t)snprintf(buf + used, len - used, "%s%s",
						 used ? "," : "", reason_names[i]);
		}
	}
	if (unknown && used < len) {
		snprintf(buf + used, len - used, "%s0x%llx", used ? "," : "",
			 unknown);
	}
}

int gm_nvml_open(struct gm_nvml *n, const char *bus_id, char *why,
		 size_t len)
{
	int (*init)(void);
	int (*by_bus)(const char *id, void **dev);
	int rc;

	memset(n, 0, sizeof(*n));
	n->lib = dlopen("libnvidia-ml.so.1", RTLD_NOW | RTLD_LOCAL);
	if (!n->lib) {
		snprintf(why, len, "cannot load libnvidia-ml.so.1: %s", dlerror());
		return -1;
	}
	/* (POSIX's way of converting a dlsym result to a function.) */
	*(void **)&init = dlsym(n->lib, "nvmlInit_v2");
	*(void **)&by_bus = dlsym(n->lib, "nvmlDeviceGetHandleByPciBusId_v2");
	*(void **)&n->shutdown = dlsym(n->lib, "nvmlShutdown");
	*(void **)&n->clock = dlsym(n->lib, "nvmlDeviceGetClockInfo");
	*(void **)&n->temperature = dlsym(n->lib, "nvmlDeviceGetTemperature");
	*(void **)&n->reasons = dlsym(n->lib,
				      "nvmlDeviceGetCurrentClocksEventReasons");
	if (!n->reasons) {
		*(void **)&n->reasons = dlsym(
			n->lib, "nvmlDeviceGetCurrentClocksThrottleReasons");
	}
	if (!init || !by_bus || !n->shutdown) {
		snprintf(why, len, "libnvidia-ml.so.1 lacks nvmlInit_v2,"
			 " nvmlDeviceGetHandleByPciBusId_v2 or nvmlShutdown");
		dlclose(n->lib);
		memset(n, 0, sizeof(*n));
		return -1;
	}
	rc = init();
	if (rc != NVML_SUCCESS) {
		snprintf(why, len, "nvmlInit_v2 failed (NVML error %d)", rc);
		dlclose(n->lib);
		memset(n, 0, sizeof(*n));
		return -1;
	}
	rc = by_bus(bus_id, &n->device);
	if (rc != NVML_SUCCESS) {
		snprintf(why, len, "NVML has no device at PCI bus id '%s'"
			 " (NVML error %d)", bus_id, rc);
		gm_nvml_close(n);
		return -1;
	}
	return 0;
}

void gm_gpu_state_read(const struct gm_nvml *n, struct gm_gpu_state *s)
{
	memset(s, 0, sizeof(*s));
	if (!n->lib) {
		return;
	}
	s->have_clock = n->clock &&
		n->clock(n->device, NVML_CLOCK_SM, &s->sm_clock_mhz) ==
			NVML_SUCCESS;
	s->have_temp = n->temperature &&
		n->temperature(n->device, NVML_TEMPERATURE_GPU, &s->temp_c) ==
			NVML_SUCCESS;
	s->have_throttle = n->reasons &&
		n->reasons(n->device, &s->throttle) == NVML_SUCCESS;
}

void gm_nvml_close(struct gm_nvml *n)
{
	if (n->lib) {
		n->shutdown();
		dlclose(n->lib);
	}
	memset(n, 0, sizeof(*n));
}

void gm_gpu_state_manifest(struct kvfile *kv, const char *prefix,
			   const struct gm_gpu_state *s)
{
	char key[64], names[256];

	if (s->have_clock) {
		snprintf(key, sizeof(key), "%s.sm_clock_mhz", prefix);
		kvfile_set_u64(kv, key, s->sm_clock_mhz);
	}
	if (s->have_temp) {
		snprintf(key, sizeof(key), "%s.temp_c", prefix);
		kvfile_set_u64(kv, key, s->temp_c);
	}
	if (s->have_throttle) {
		snprintf(key, sizeof(key), "%s.throttle", prefix);
		gm_throttle_names(s->throttle, names, sizeof(names));
		kvfile_set(kv, key, names);
	}
}
