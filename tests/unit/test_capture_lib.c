/* SPDX-License-Identifier: MIT */
/*
 * libgpumix-capture.so loads with dlopen (it needs libcupti and
 * liblttng-ust, not a GPU), exports the CUDA injection entry point and the
 * emit layer, and nothing else; outside a capture InitializeInjection
 * returns success without doing anything.
 */
#include <dlfcn.h>
#include <stdlib.h>

#include "test.h"

int main(void)
{
	const char *b = getenv("GPUMIX_BUILD") ? getenv("GPUMIX_BUILD") : "build";
	char path[1024];
	void *h;
	int (*init)(void);

	snprintf(path, sizeof(path), "%s/libgpumix-capture.so", b);
	unsetenv("GPUMIX_CAPTURE_DIR");
	h = dlopen(path, RTLD_NOW | RTLD_LOCAL);
	CHECK(h != NULL, "libgpumix-capture.so loads with dlopen");
	if (!h) {
		printf("#   %s\n", dlerror());
		return test_done();
	}
	*(void **)&init = dlsym(h, "InitializeInjection");
	CHECK(init != NULL, "it exports InitializeInjection");
	CHECK(dlsym(h, "gm_capture_emit") != NULL, "it exports the emit layer");
	CHECK(dlsym(h, "blob_store_put") == NULL && dlsym(h, "gm_error") == NULL &&
	      dlsym(h, "gm_api_table") == NULL,
	      "internal and common symbols stay hidden (no clash with the program)");
	if (init) {
		CHECK_INT(init(), 1, "outside a capture it succeeds and does nothing");
		CHECK_INT(init(), 1, "a second call is harmless");
	}
	return test_done();
}
