/* SPDX-License-Identifier: MIT */
/* Noticing that the device went away while an app waits on it. */
#include <errno.h>
#include <stdlib.h>
#include <time.h>

#include "watch.h"
#include "zcnic/log.h"

static uint64_t mono_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000u + (uint64_t)ts.tv_nsec / 1000000u;
}

bool zn_watch_gone(struct zn_watch *w, struct zn_port *p)
{
	struct zn_link link;
	uint64_t now;
	int rc;

	if (w->err)
		return true;
	now = mono_ms();
	if (now < w->next_ms)
		return false;
	w->next_ms = now + ZN_WATCH_MS;
	rc = zn_port_link(p, &link);
	/* Only a lost transport or a dead device (-ENODEV: the driver gave it
	 * up, e.g. after a fatal firmware error): a port without a link query
	 * (-EOPNOTSUPP) is not gone. */
	if (rc == -ENOTCONN || rc == -EPIPE || rc == -EIO || rc == -ETIMEDOUT || rc == -ENODEV)
		w->err = rc;
	return w->err != 0;
}

int zn_exit_status(int sig, int status)
{
	return sig ? 128 + sig : status;
}

void zn_quiet_logs(void)
{
	setenv("ZN_LOG", "warn", 0);
	setenv("ZN_SIM_LOG", "warn", 0);	/* zn-nicsim's own */
	zn_log_configure(NULL);
}
