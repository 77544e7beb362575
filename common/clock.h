/* SPDX-License-Identifier: MIT */
/*
 * The monotonic clock, for durations, progress and deadlines (never for
 * dates: it starts at an arbitrary point and does not jump with the wall
 * clock).
 */
#ifndef GM_CLOCK_H
#define GM_CLOCK_H

#include <stdint.h>

/* Seconds on CLOCK_MONOTONIC. */
double gm_now_s(void);

/* Nanoseconds on CLOCK_MONOTONIC. */
uint64_t gm_now_ns(void);

#endif
