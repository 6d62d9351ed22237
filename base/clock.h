/*
 * Monotonic time in ns and ms: the one copy of the clock_gettime wrapper.
 *
 * base/ holds libc and CPU helpers only: no zcnic types, no zcnic calls, no
 * state. core/, drivers/, sim/ and tests/ may include it (sim/ is hardware
 * and includes no core or driver code, but helpers with no zcnic logic in
 * them cannot hide a driver bug). apps/ are written against the installed
 * API and do not include it; nothing here is installed.
 */
#ifndef ZN_BASE_CLOCK_H
#define ZN_BASE_CLOCK_H

#include <stdint.h>
#include <time.h>

static inline uint64_t zn_now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

static inline uint64_t zn_now_ms(void)
{
	return zn_now_ns() / 1000000u;
}

#endif
