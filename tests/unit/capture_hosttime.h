/* SPDX-License-Identifier: MIT */
/*
 * The times of the clean-clock capture test, shared by the emitter
 * (capture_hosttime_emitter.c, which spends them on its own clock) and
 * the checker (test_capture_hosttime.c, which expects them back).
 */
#ifndef GM_TEST_CAPTURE_HOSTTIME_H
#define GM_TEST_CAPTURE_HOSTTIME_H

#define HT_OWN_NS 700000ull	/* each capture callback */
#define HT_CALL_NS 3000ull	/* inside each driver call */
#define HT_RT_NS 500ull		/* the runtime, around its driver call */
#define HT_GAP_NS 20000ull	/* the program, between calls */
#define HT_BIG_BYTES (1u << 20)	/* the copy whose payload is stored */

#endif
