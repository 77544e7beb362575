/* SPDX-License-Identifier: MIT */
/*
 * The devices an MPS client must name (replay/mps_daemon.h): MPS remaps
 * the daemon's CUDA_VISIBLE_DEVICES to 0 .. n-1 for its clients, so a
 * client that kept "2" found no device (seen on a 4-GPU H100 machine:
 * every mps run of `CUDA_VISIBLE_DEVICES=2 gpumix corun` failed with
 * CUDA_ERROR_NO_DEVICE); UUIDs mean the same on both sides. And the
 * environment the daemon's clients get, undone afterwards, with the
 * manifests still naming the daemon's devices.
 */
#include <stdlib.h>
#include <string.h>

#include "replay/mps_daemon.h"
#include "test.h"

static void check_clients(const char *server, const char *want,
			  const char *what)
{
	char *got = gm_mps_client_devices(server);

	if (!want) {
		CHECK(got == NULL, what);
	} else {
		CHECK_STR(got ? got : "(none)", want, what);
	}
	free(got);
}

int main(void)
{
	check_clients(NULL, NULL, "unset: nothing to change");
	check_clients("", NULL, "empty: nothing to change");
	check_clients("2", "0", "one index: the client's device 0");
	check_clients("0,2", "0,1", "two indexes: 0 and 1");
	check_clients("3, 1", "0,1", "spaces after the commas");
	check_clients("GPU-2ccaa4b3-05bb-496f-e10f-4734fd8ca4c5", NULL,
		      "a UUID means the same to the clients");
	check_clients("GPU-2ccaa4b3,MIG-99019a72", NULL, "UUIDs only");
	check_clients("GPU-2ccaa4b3,1", "0,1",
		      "an index among UUIDs: every entry renumbered");

	/* the environment: set for the clients, undone after */
	struct gm_mps_daemon d = { 0 };
	d.pipe_dir = "/tmp/pipe";
	d.log_dir = "/tmp/log";
	d.server_devices = "2";
	setenv("CUDA_VISIBLE_DEVICES", "2", 1);
	gm_mps_daemon_env(&d);
	CHECK_STR(getenv("CUDA_VISIBLE_DEVICES"), "0",
		  "clients are given the remapped index");
	CHECK_STR(getenv("CUDA_MPS_PIPE_DIRECTORY"), "/tmp/pipe",
		  "and the daemon's pipe directory");
	CHECK_STR(gm_visible_devices(), "2",
		  "manifests still name the daemon's device");
	gm_mps_daemon_leave_env(&d);
	CHECK_STR(getenv("CUDA_VISIBLE_DEVICES"), "2",
		  "left: the device list is the daemon's again");
	CHECK(getenv("CUDA_MPS_PIPE_DIRECTORY") == NULL,
	      "left: no pipe directory");
	CHECK_STR(gm_visible_devices(), "2", "left: the same device named");

	d.server_devices = "GPU-2ccaa4b3";
	setenv("CUDA_VISIBLE_DEVICES", "GPU-2ccaa4b3", 1);
	gm_mps_daemon_env(&d);
	CHECK_STR(getenv("CUDA_VISIBLE_DEVICES"), "GPU-2ccaa4b3",
		  "a UUID is passed on unchanged");
	gm_mps_daemon_leave_env(&d);
	return test_done();
}
