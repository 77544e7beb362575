/* SPDX-License-Identifier: MIT */
/*
 * A tiny TAP harness for C unit tests: each check prints "ok N - what" or
 * "not ok N - what" with the failing expression; test_done() returns the
 * exit status for main().
 */
#ifndef GM_TEST_H
#define GM_TEST_H

#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

static int test_n_, test_failed_;

static inline int test_result_(int pass, const char *what, const char *file,
			       int line)
{
	test_n_++;
	printf("%s %d - %s\n", pass ? "ok" : "not ok", test_n_, what);
	if (!pass) {
		test_failed_++;
		printf("#   failed at %s:%d\n", file, line);
	}
	fflush(stdout);
	return pass;
}

#define CHECK(cond, what) test_result_(!!(cond), what, __FILE__, __LINE__)

#define CHECK_INT(a, b, what)                                                  \
	do {                                                                   \
		long long a_ = (long long)(a), b_ = (long long)(b);            \
		if (!test_result_(a_ == b_, what, __FILE__, __LINE__))         \
			printf("#   expected %lld, got %lld\n", b_, a_);       \
	} while (0)

#define CHECK_STR(a, b, what)                                                  \
	do {                                                                   \
		const char *a_ = (a), *b_ = (b);                               \
		int ok_ = a_ && b_ && !strcmp(a_, b_);                         \
		if (!test_result_(ok_, what, __FILE__, __LINE__))              \
			printf("#   expected '%s', got '%s'\n",                \
			       b_ ? b_ : "(null)", a_ ? a_ : "(null)");         \
	} while (0)

#define CHECK_NEAR(a, b, tol, what)                                            \
	do {                                                                   \
		double a_ = (a), b_ = (b);                                     \
		if (!test_result_(fabs(a_ - b_) <= (tol), what, __FILE__,      \
				  __LINE__))                                   \
			printf("#   expected %.9g, got %.9g (tol %g)\n", b_,   \
			       a_, (double)(tol));                             \
	} while (0)

static inline void test_skip(const char *why)
{
	test_n_++;
	printf("ok %d # SKIP %s\n", test_n_, why);
}

static inline int test_done(void)
{
	if (!test_n_) {
		printf("not ok 1 - no checks ran\n");
		return 1;
	}
	return test_failed_ ? 1 : 0;
}

#endif
