/* SPDX-License-Identifier: MIT */
/*
 * A stand-in for the driver's NVML library (libnvidia-ml.so.1) where
 * there is none: the CPU tests put its directory first in
 * LD_LIBRARY_PATH, and the replay runtime (replay/gpu_state.c) loads it
 * as it would the real one. One device, at the PCI bus id the mock driver
 * gives (00000000:01:00.0); any other id is NVML_ERROR_NOT_FOUND.
 *
 * Readings come from the environment, one comma-separated value per call
 * in turn (the last one repeats), so a test can make the clock drop or
 * the GPU throttle between a run's start and end:
 *   MOCK_NVML_SM_CLOCK   SM clock in MHz (default 1980)
 *   MOCK_NVML_TEMP       temperature in degrees C (default 40)
 *   MOCK_NVML_THROTTLE   clock event reason bits, e.g. 0x20 (default 0)
 *   MOCK_NVML_INIT=fail  nvmlInit_v2 fails (NVML_ERROR_DRIVER_NOT_LOADED)
 *   MOCK_NVML_LOG        a file each call's name is appended to
 * The setters a careless caller could reach for are here too, and only
 * log ("SET name"): the tests check that gpumix never calls one.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define NVML_SUCCESS 0
#define NVML_ERROR_UNINITIALIZED 1
#define NVML_ERROR_INVALID_ARGUMENT 2
#define NVML_ERROR_NOT_FOUND 6
#define NVML_ERROR_DRIVER_NOT_LOADED 9

static int initialised;
static unsigned reads[3];	/* calls so far: clock, temperature, reasons */
static int device;		/* its handle is its address */

static void log_call(const char *name)
{
	const char *path = getenv("MOCK_NVML_LOG");
	FILE *f;

	if (!path || !(f = fopen(path, "a"))) {
		return;
	}
	fprintf(f, "%s\n", name);
	fclose(f);
}

/* The @k-th value of the list in @var (the last when there are fewer). */
static unsigned long long reading(const char *var, const char *dflt,
				  unsigned k)
{
	const char *v = getenv(var), *p;
	unsigned long long x;

	p = v && *v ? v : dflt;
	x = strtoull(p, NULL, 0);
	for (unsigned i = 0; i < k; i++) {
		const char *comma = strchr(p, ',');
		if (!comma) {
			break;
		}
		p = comma + 1;
		x = strtoull(p, NULL, 0);
	}
	return x;
}

int nvmlInit_v2(void)
{
	const char *v = getenv("MOCK_NVML_INIT");

	log_call("nvmlInit_v2");
	if (v && !strcmp(v, "fail")) {
		return NVML_ERROR_DRIVER_NOT_LOADED;
	}
	initialised = 1;
	return NVML_SUCCESS;
}

int nvmlShutdown(void)
{
	log_call("nvmlShutdown");
	initialised = 0;
	return NVML_SUCCESS;
}

int nvmlDeviceGetHandleByPciBusId_v2(const char *id, void **dev)
{
	log_call("nvmlDeviceGetHandleByPciBusId_v2");
	if (!initialised) {
		return NVML_ERROR_UNINITIALIZED;
	}
	if (!id || !dev) {
		return NVML_ERROR_INVALID_ARGUMENT;
	}
	if (strcmp(id, "00000000:01:00.0")) {
		return NVML_ERROR_NOT_FOUND;
	}
	*dev = &device;
	return NVML_SUCCESS;
}

static int check(void *dev, const void *out)
{
	if (!initialised) {
		return NVML_ERROR_UNINITIALIZED;
	}
	return dev == &device && out ? NVML_SUCCESS : NVML_ERROR_INVALID_ARGUMENT;
}

int nvmlDeviceGetClockInfo(void *dev, int type, unsigned *mhz)
{
	int rc = check(dev, mhz);

	log_call("nvmlDeviceGetClockInfo");
	if (rc == NVML_SUCCESS && type != 1) {
		rc = NVML_ERROR_INVALID_ARGUMENT;	/* only NVML_CLOCK_SM */
	}
	if (rc == NVML_SUCCESS) {
		*mhz = (unsigned)reading("MOCK_NVML_SM_CLOCK", "1980", reads[0]++);
	}
	return rc;
}

int nvmlDeviceGetTemperature(void *dev, int sensor, unsigned *c)
{
	int rc = check(dev, c);

	log_call("nvmlDeviceGetTemperature");
	if (rc == NVML_SUCCESS && sensor != 0) {
		rc = NVML_ERROR_INVALID_ARGUMENT;	/* NVML_TEMPERATURE_GPU */
	}
	if (rc == NVML_SUCCESS) {
		*c = (unsigned)reading("MOCK_NVML_TEMP", "40", reads[1]++);
	}
	return rc;
}

int nvmlDeviceGetCurrentClocksEventReasons(void *dev, unsigned long long *r)
{
	int rc = check(dev, r);

	log_call("nvmlDeviceGetCurrentClocksEventReasons");
	if (rc == NVML_SUCCESS) {
		*r = reading("MOCK_NVML_THROTTLE", "0", reads[2]++);
	}
	return rc;
}

/*
 * The setters: logged, never to be called by gpumix. (Their arguments do
 * not matter to a stand-in that only logs: none are declared.)
 */
#define SETTER(name)                       \
	int name(void)                     \
	{                                  \
		log_call("SET " #name);    \
		return NVML_SUCCESS;       \
	}
SETTER(nvmlDeviceSetApplicationsClocks)
SETTER(nvmlDeviceResetApplicationsClocks)
SETTER(nvmlDeviceSetGpuLockedClocks)
SETTER(nvmlDeviceResetGpuLockedClocks)
SETTER(nvmlDeviceSetPowerManagementLimit)
SETTER(nvmlDeviceSetPersistenceMode)
SETTER(nvmlDeviceSetComputeMode)
