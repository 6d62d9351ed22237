/* SPDX-License-Identifier: MIT */
/* Leveled, component-tagged logging; configured once from ZN_LOG. */
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>

#include "base/clock.h"
#include "zcnic/log.h"

#define MAX_COMPONENTS 32
#define COMP_NAME_MAX 16

struct comp_level {
	char name[COMP_NAME_MAX];
	enum zn_log_level level;
};

static struct {
	pthread_once_t once;
	enum zn_log_level deflt;
	unsigned ncomp;
	struct comp_level comp[MAX_COMPONENTS];
	zn_log_sink_fn sink;
	void *sink_arg;
} g = { .once = PTHREAD_ONCE_INIT, .deflt = ZN_LOG_INFO };

static const char *const level_names[] = { "off", "err", "warn", "info", "debug" };

static int parse_level(const char *s, size_t n, enum zn_log_level *out)
{
	for (unsigned i = 0; i < sizeof(level_names) / sizeof(level_names[0]); i++) {
		if (strlen(level_names[i]) == n && !strncasecmp(s, level_names[i], n)) {
			*out = (enum zn_log_level)i;
			return 0;
		}
	}
	if (n == 5 && !strncasecmp(s, "error", 5)) {
		*out = ZN_LOG_ERR;
		return 0;
	}
	if (n == 7 && !strncasecmp(s, "warning", 7)) {
		*out = ZN_LOG_WARN;
		return 0;
	}
	return -EINVAL;
}

static int apply_spec(const char *spec)
{
	enum zn_log_level deflt = ZN_LOG_INFO;
	struct comp_level comp[MAX_COMPONENTS];
	unsigned ncomp = 0;

	for (const char *p = spec; p && *p;) {
		const char *end = strchr(p, ',');
		size_t len = end ? (size_t)(end - p) : strlen(p);
		const char *eq = memchr(p, '=', len);
		enum zn_log_level lvl;

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
	const char *spec = getenv("ZN_LOG");

	if (apply_spec(spec) < 0)
		fprintf(stderr, "zcnic: ignoring malformed ZN_LOG='%s' "
			"(want e.g. 'debug' or 'warn,bus=debug')\n", spec);
}

int zn_log_configure(const char *spec)
{
	/* The one-time environment read happens first, so that it cannot
	 * overwrite an explicit configuration later. */
	pthread_once(&g.once, init_from_env);
	return apply_spec(spec ? spec : getenv("ZN_LOG"));
}

bool zn_log_enabled(enum zn_log_level level, const char *comp)
{
	pthread_once(&g.once, init_from_env);
	for (unsigned i = 0; i < g.ncomp; i++)
		if (comp && !strcmp(g.comp[i].name, comp))
			return level <= g.comp[i].level;
	return level <= g.deflt;
}

void zn_log_set_sink(zn_log_sink_fn fn, void *arg)
{
	g.sink = fn;
	g.sink_arg = arg;
}

void zn_vlog(enum zn_log_level level, const char *comp, const char *fmt, va_list ap)
{
	char msg[512];

	if (level <= ZN_LOG_OFF || level > ZN_LOG_DEBUG)
		return;
	vsnprintf(msg, sizeof(msg), fmt, ap);
	if (g.sink) {
		g.sink(level, comp, msg, g.sink_arg);
		return;
	}
	/* One write per line so that lines from threads do not interleave. */
	fprintf(stderr, "zcnic %s %s: %s\n", level_names[level], comp ? comp : "-", msg);
}

void zn_log(enum zn_log_level level, const char *comp, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	zn_vlog(level, comp, fmt, ap);
	va_end(ap);
}

bool zn_ratelimit_allow(struct zn_ratelimit *rl, uint32_t burst,
			uint64_t interval_ns, uint32_t *suppressed_out)
{
	uint64_t now = zn_now_ns();

	*suppressed_out = 0;
	if (now - rl->window_start_ns >= interval_ns) {
		*suppressed_out = rl->suppressed;
		rl->window_start_ns = now;
		rl->printed = 0;
		rl->suppressed = 0;
	}
	if (rl->printed < burst) {
		rl->printed++;
		return true;
	}
	rl->suppressed++;
	return false;
}
