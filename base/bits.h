/*
 * Power-of-two test and rounding. base/ rule: see clock.h.
 */
#ifndef ZN_BASE_BITS_H
#define ZN_BASE_BITS_H

#include <stdbool.h>
#include <stdint.h>

static inline bool zn_is_pow2(uint64_t v)
{
	return v && !(v & (v - 1));
}

/* The smallest power of two >= v (1 for 0). Callers bound v first: above
 * 2^63 there is none, and 0 comes back. */
static inline uint64_t zn_roundup_pow2(uint64_t v)
{
	return v <= 1 ? 1 : v > (1ull << 63) ? 0 : 1ull << (64 - __builtin_clzll(v - 1));
}

#endif
