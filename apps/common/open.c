/* SPDX-License-Identifier: MIT */
/* A device that does not open, said in one line; see open.h. */
#include <stdio.h>
#include <string.h>

#include "open.h"
#include "zcnic/log.h"
#include "zcnic/netdev.h"

static unsigned errors;

/* zcnic's own format (core/log/log.c), the line counted on the way. */
static void counting_sink(enum zn_log_level level, const char *comp, const char *msg,
			  void *arg)
{
	static const char *const names[] = { "off", "err", "warn", "info", "debug" };

	(void)arg;
	if (level == ZN_LOG_ERR)
		errors++;
	fprintf(stderr, "zcnic %s %s: %s\n", names[level], comp ? comp : "-", msg);
}

void zn_open_watch(void)
{
	errors = 0;
	zn_log_set_sink(counting_sink, NULL);
}

void zn_open_said(const char *prog, const char *what, int rc)
{
	zn_log_set_sink(NULL, NULL);
	if (rc < 0 && !errors)
		fprintf(stderr, "%s: cannot open %s: %s\n", prog, what, strerror(-rc));
}

int zn_open_queues(const char *prog, const char *spec, uint32_t ip, uint8_t prefix,
		   uint16_t n, uint32_t size, struct zn_netdev **dev)
{
	struct zn_netdev_conf nc = { .ip = ip, .prefix_len = prefix, .nb_rxq = 1, .queues = n,
				     .mtu = size + 28 > 1500 ? 9000 : 1500 };
	int rc;

	zn_open_watch();
	rc = zn_netdev_open(spec, &nc, dev);
	zn_open_said(prog, spec, rc);
	return rc;
}
