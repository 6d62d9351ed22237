/* SPDX-License-Identifier: MIT */
/*
 * zcnic logging: levels, a component tag per message, rate limiting for
 * per-packet paths.
 *
 * The level is chosen by the ZN_LOG environment variable, read once:
 *   ZN_LOG=debug                 every component at debug
 *   ZN_LOG=warn,bus=debug        default warn, the "bus" component at debug
 * Levels: off, err, warn, info (default), debug.
 */
#ifndef ZCNIC_LOG_H
#define ZCNIC_LOG_H

#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>

#pragma GCC visibility push(default)	/* the library's ABI: core/libzcnic.map */

enum zn_log_level {
	ZN_LOG_OFF = 0,
	ZN_LOG_ERR,
	ZN_LOG_WARN,
	ZN_LOG_INFO,
	ZN_LOG_DEBUG,
};

/* Receives each formatted line (no trailing newline). */
typedef void (*zn_log_sink_fn)(enum zn_log_level level, const char *comp,
			       const char *msg, void *arg);

bool zn_log_enabled(enum zn_log_level level, const char *comp);
void zn_log(enum zn_log_level level, const char *comp, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
void zn_vlog(enum zn_log_level level, const char *comp, const char *fmt,
	     va_list ap);

/* Re-parse a ZN_LOG-style spec (NULL: read the environment again). */
int zn_log_configure(const char *spec);
/* Replace the sink (NULL restores stderr); tests use it to capture lines. */
void zn_log_set_sink(zn_log_sink_fn fn, void *arg);

/*
 * Rate limiting: at most `burst` messages per `interval_ns` per call site;
 * the first message after a suppressed run says how many were dropped.
 */
struct zn_ratelimit {
	uint64_t window_start_ns;
	uint32_t printed;
	uint32_t suppressed;
};
bool zn_ratelimit_allow(struct zn_ratelimit *rl, uint32_t burst,
			uint64_t interval_ns, uint32_t *suppressed_out);

#define ZN_LOG_AT(lvl, comp, ...)                                        \
	do {                                                             \
		if (zn_log_enabled((lvl), (comp)))                       \
			zn_log((lvl), (comp), __VA_ARGS__);              \
	} while (0)

#define ZN_ERR(comp, ...)   ZN_LOG_AT(ZN_LOG_ERR, comp, __VA_ARGS__)
#define ZN_WARN(comp, ...)  ZN_LOG_AT(ZN_LOG_WARN, comp, __VA_ARGS__)
#define ZN_INFO(comp, ...)  ZN_LOG_AT(ZN_LOG_INFO, comp, __VA_ARGS__)
#define ZN_DEBUG(comp, ...) ZN_LOG_AT(ZN_LOG_DEBUG, comp, __VA_ARGS__)

/* Per-packet paths: 10 lines per second per call site at most. */
#define ZN_LOG_RL(lvl, comp, fmt, ...)                                    \
	do {                                                              \
		static struct zn_ratelimit zn_rl_;                        \
		uint32_t zn_sup_;                                         \
		if (zn_log_enabled((lvl), (comp)) &&                      \
		    zn_ratelimit_allow(&zn_rl_, 10, 1000000000ull, &zn_sup_)) { \
			if (zn_sup_)                                      \
				zn_log((lvl), (comp), "(%u similar messages suppressed)", zn_sup_); \
			zn_log((lvl), (comp), fmt, ##__VA_ARGS__);        \
		}                                                         \
	} while (0)

#pragma GCC visibility pop

#endif
