/* SPDX-License-Identifier: MIT */
/*
 * The sleeps of a program run against the mock driver, in its call log:
 * the mock libcuda.so.1 defines nanosleep(), which the calls of the
 * program and of the libraries linked before libc in its search order
 * bind to (a replay program links the driver before libc), so that with
 * MOCK_CUDA_CALL_LOG set each one appends "NS TID sleep REQUESTED_NS" to
 * the log, NS its entry on the mock's clock, then sleeps through libc's
 * own. A test can then assert what the replay asked for (a host gap
 * spent, capped, or not spent at all) from the log instead of from how
 * long it took, which a loaded machine stretches. glibc's own sleeps
 * (sleep(3), usleep(3)) use its internal entry points and are neither
 * logged nor changed.
 */
#include <dlfcn.h>
#include <errno.h>
#include <stdint.h>
#include <time.h>

#include "mock.h"
#include "mock_int.h"

int nanosleep(const struct timespec *req, struct timespec *rem)
{
	static int (*real)(const struct timespec *, struct timespec *);

	if (!real) {
		real = (int (*)(const struct timespec *, struct timespec *))
			dlsym(RTLD_NEXT, "nanosleep");
		if (!real) {
			errno = ENOSYS;
			return -1;
		}
	}
	if (req && req->tv_sec >= 0) {
		mock_call_log("sleep", (uint64_t)req->tv_sec * 1000000000u +
			      (uint64_t)req->tv_nsec, mock_now());
	}
	return real(req, rem);
}
