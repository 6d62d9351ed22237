/* SPDX-License-Identifier: MIT */
/* A device that does not open, said in one line. */
#ifndef ZN_APPS_OPEN_H
#define ZN_APPS_OPEN_H

#include <stdint.h>

/*
 * Between the two calls zcnic's log lines are counted as they are printed:
 * zn_open_said() prints "PROG: cannot open WHAT: strerror(-rc)" only when
 * rc is an error that zcnic did not explain itself (its line names the
 * device and says why, e.g. "no socket at PATH"; a second line from the
 * app would only repeat it). Not thread-safe: for the app's set-up.
 */
void zn_open_watch(void);
void zn_open_said(const char *prog, const char *what, int rc);

struct zn_netdev;
/*
 * --queues N: the netdev on spec with the control queue and N queue pairs
 * (RSS over them), its MTU 9000 when a size-byte datagram does not fit 1500.
 * 0, or -errno (said as above).
 */
int zn_open_queues(const char *prog, const char *spec, uint32_t ip, uint8_t prefix,
		   uint16_t n, uint32_t size, struct zn_netdev **dev);

#endif
