/* SPDX-License-Identifier: MIT */
/*
 * Exit 0 when a CUDA GPU is usable, 1 otherwise. Loads the driver with
 * dlopen so that it builds and runs on machines without one.
 */
#include <dlfcn.h>
#include <stdio.h>

int main(void)
{
	void *lib = dlopen("libcuda.so.1", RTLD_NOW);
	int (*init)(unsigned int);
	int (*count)(int *);
	int n = 0;

	if (!lib) {
		printf("no CUDA driver (libcuda.so.1 not found)\n");
		return 1;
	}
	*(void **)&init = dlsym(lib, "cuInit");
	*(void **)&count = dlsym(lib, "cuDeviceGetCount");
	if (!init || !count || init(0) != 0 || count(&n) != 0 || n < 1) {
		printf("no usable CUDA device\n");
		return 1;
	}
	printf("%d CUDA device(s)\n", n);
	return 0;
}
