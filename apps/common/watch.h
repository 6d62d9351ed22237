/* SPDX-License-Identifier: MIT */
/* Noticing that the device went away while an app waits on it. */
#ifndef ZN_APPS_WATCH_H
#define ZN_APPS_WATCH_H

#include <stdbool.h>
#include <stdint.h>

#include "zcnic/port.h"

/*
 * A busy-polling app reads completions from memory it shares with the
 * device: when a vfio-user server dies nothing it reads changes, and no
 * call fails. So the app asks the device something (its link state, a
 * command) at most every ZN_WATCH_MS: a dead server fails that at once
 * (the socket is closed), a stuck one within the driver's command timeout.
 */
#define ZN_WATCH_MS 250

struct zn_watch {
	uint64_t next_ms;
	int err;		/* the first failure, kept */
};

/* true once p stopped answering (w->err says how); cheap between checks. */
bool zn_watch_gone(struct zn_watch *w, struct zn_port *p);

/* 128 + the signal that stopped the app (130 for SIGINT), else status. */
int zn_exit_status(int sig, int status);

/*
 * --quiet: no info lines, from zcnic nor from a private zn-nicsim (which
 * inherits ZN_LOG and ZN_SIM_LOG), unless those ask for them.
 */
void zn_quiet_logs(void);

#endif
