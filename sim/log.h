/* SPDX-License-Identifier: MIT */
/*
 * zn-nicsim's own logging: sim/ is "hardware" and links nothing from core/,
 * so it carries this small copy of the idea rather than the code.
 *
 * The level comes from ZN_SIM_LOG, read once, with the ZN_LOG syntax:
 *   ZN_SIM_LOG=debug              everything at debug
 *   ZN_SIM_LOG=warn,vfu=debug     default warn, the "vfu" component at debug
 * Levels: off, err, warn, info (default), debug. Components: vfu (the
 * protocol server), dma, irq, pci, loop, and one per model ("edu", ...).
 */
#ifndef ZN_SIM_LOG_H
#define ZN_SIM_LOG_H

#include <stdbool.h>
#include <stdint.h>

enum zn_sim_log_level {
	ZN_SIM_LOG_OFF = 0,
	ZN_SIM_LOG_ERR,
	ZN_SIM_LOG_WARN,
	ZN_SIM_LOG_INFO,
	ZN_SIM_LOG_DEBUG,
};

typedef void (*zn_sim_log_sink_fn)(enum zn_sim_log_level level, const char *comp,
				   const char *msg, void *arg);

bool zn_sim_log_enabled(enum zn_sim_log_level level, const char *comp);
void zn_sim_log(enum zn_sim_log_level level, const char *comp, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
/* Re-parse a spec (NULL: the environment again); -EINVAL if malformed. */
int zn_sim_log_configure(const char *spec);
/* Replace the stderr sink (NULL restores it); tests capture lines with it. */
void zn_sim_log_set_sink(zn_sim_log_sink_fn fn, void *arg);

/* Per-call-site limit for paths a client or model can drive at high rate. */
struct zn_sim_ratelimit {
	uint64_t window_ns;
	uint32_t printed;
	uint32_t suppressed;
};
bool zn_sim_ratelimit_allow(struct zn_sim_ratelimit *rl, uint32_t *suppressed);

#define ZN_SIM_LOG_AT(lvl, comp, ...)                                    \
	do {                                                             \
		if (zn_sim_log_enabled((lvl), (comp)))                   \
			zn_sim_log((lvl), (comp), __VA_ARGS__);          \
	} while (0)

#define ZN_SIM_ERR(comp, ...)   ZN_SIM_LOG_AT(ZN_SIM_LOG_ERR, comp, __VA_ARGS__)
#define ZN_SIM_WARN(comp, ...)  ZN_SIM_LOG_AT(ZN_SIM_LOG_WARN, comp, __VA_ARGS__)
#define ZN_SIM_INFO(comp, ...)  ZN_SIM_LOG_AT(ZN_SIM_LOG_INFO, comp, __VA_ARGS__)
#define ZN_SIM_DEBUG(comp, ...) ZN_SIM_LOG_AT(ZN_SIM_LOG_DEBUG, comp, __VA_ARGS__)

/* At most 10 lines per second per limiter: one per call site, or (_AT) one
 * the caller owns, e.g. per device so that one noisy client does not mute
 * another device's log. */
#define ZN_SIM_LOG_RL(lvl, comp, fmt, ...)                                      \
	do {                                                                    \
		static struct zn_sim_ratelimit zn_sim_rl_;                      \
		ZN_SIM_LOG_RL_AT(&zn_sim_rl_, lvl, comp, fmt, ##__VA_ARGS__);   \
	} while (0)

#define ZN_SIM_LOG_RL_AT(rl, lvl, comp, fmt, ...)                               \
	do {                                                                    \
		uint32_t zn_sim_sup_;                                           \
		if (zn_sim_log_enabled((lvl), (comp)) &&                        \
		    zn_sim_ratelimit_allow((rl), &zn_sim_sup_)) {               \
			if (zn_sim_sup_)                                        \
				zn_sim_log((lvl), (comp), "(%u similar messages suppressed)", \
					   zn_sim_sup_);                        \
			zn_sim_log((lvl), (comp), fmt, ##__VA_ARGS__);          \
		}                                                               \
	} while (0)

#endif
