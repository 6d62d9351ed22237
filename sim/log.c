/* SPDX-License-Identifier: MIT */
/* zn-nicsim logging: levels per component from ZN_SIM_LOG, a replaceable sink. */
#include <errno.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>

#include "base/clock.h"
#include "sim/log.h"

#define MAX_COMPONENTS	16
#define COMP_NAME_MAX	16
#define RL_BURST	10
#define RL_WINDOW_NS	1000000000ull

static const char *const level_names[] = { "off", "err", "warn", "info", "debug" };

static struct {
	pthread_once_t once;
	enum zn_sim_log_level deflt;
	unsigned ncomp;
	struct {
		char name[COMP_NAME_MAX];
		enum zn_sim_log_level level;
	} comp[MAX_COMPONENTS];
	zn_sim_log_sink_fn sink;
	void *sink_arg;
} g = { .once = PTHREAD_ONCE_INIT, .deflt = ZN_SIM_LOG_INFO };

static int parse_level(const char *s, size_t n, enum zn_sim_log_level *out)
{
	for (unsigned i = 0; i < sizeof(level_names) / sizeof(level_names[0]); i++) {
		if (strlen(level_names[i]) == n && !strncasecmp(s, level_names[i], n)) {
			*out = (enum zn_sim_log_level)i;
			return 0;
		}
	}
	return -EINVAL;
}

static void init_from_env(void);

static int configure(const char *spec)
{
	enum zn_sim_log_level deflt = ZN_SIM_LOG_INFO, lvl;
	unsigned ncomp = 0;
	__typeof__(g.comp) comp;

	if (!spec)
		spec = getenv("ZN_SIM_LOG");
	for (const char *p = spec; p && *p;) {
		const char *end = strchr(p, ',');
		size_t len = end ? (size_t)(end - p) : strlen(p);
		const char *eq = memchr(p, '=', len);

		if (!eq) {
			if (parse_level(p, len, &lvl))
				return -EINVAL;
			deflt = lvl;
		} else {
			size_t nlen = (size_t)(eq - p);

			if (nlen == 0 || nlen >= COMP_NAME_MAX || ncomp == MAX_COMPONENTS ||
			    parse_level(eq + 1, len - nlen - 1, &lvl))
				return -EINVAL;
			memcpy(comp[ncomp].name, p, nlen);
			comp[ncomp].name[nlen] = '\0';
			comp[ncomp++].level = lvl;
		}
		p = end ? end + 1 : p + len;
	}
	g.deflt = deflt;
	memcpy(g.comp, comp, sizeof(comp[0]) * ncomp);
	g.ncomp = ncomp;
	return 0;
}

static void init_from_env(void)
{
	const char *spec = getenv("ZN_SIM_LOG");

	if (configure(spec) < 0)
		fprintf(stderr, "zn-nicsim: ignoring malformed ZN_SIM_LOG='%s' "
			"(want e.g. 'debug' or 'warn,vfu=debug')\n", spec);
}

int zn_sim_log_configure(const char *spec)
{
	/* The environment first, once, so that it never overrides this. */
	pthread_once(&g.once, init_from_env);
	return configure(spec);
}

bool zn_sim_log_enabled(enum zn_sim_log_level level, const char *comp)
{
	pthread_once(&g.once, init_from_env);
	for (unsigned i = 0; i < g.ncomp; i++)
		if (comp && !strcmp(g.comp[i].name, comp))
			return level <= g.comp[i].level;
	return level <= g.deflt;
}

void zn_sim_log_set_sink(zn_sim_log_sink_fn fn, void *arg)
{
	g.sink = fn;
	g.sink_arg = arg;
}

void zn_sim_log(enum zn_sim_log_level level, const char *comp, const char *fmt, ...)
{
	char msg[512];
	va_list ap;

	if (level <= ZN_SIM_LOG_OFF || level > ZN_SIM_LOG_DEBUG)
		return;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	if (g.sink) {
		g.sink(level, comp, msg, g.sink_arg);
		return;
	}
	fprintf(stderr, "zn-nicsim %s %s: %s\n", level_names[level], comp ? comp : "-", msg);
}

bool zn_sim_ratelimit_allow(struct zn_sim_ratelimit *rl, uint32_t *suppressed)
{
	uint64_t now = zn_now_ns();

	*suppressed = 0;
	if (now - rl->window_ns >= RL_WINDOW_NS) {
		*suppressed = rl->suppressed;
		rl->window_ns = now;
		rl->printed = 0;
		rl->suppressed = 0;
	}
	if (rl->printed < RL_BURST) {
		rl->printed++;
		return true;
	}
	rl->suppressed++;
	return false;
}
