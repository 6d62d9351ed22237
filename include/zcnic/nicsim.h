/* SPDX-License-Identifier: MIT */
/*
 * The embedded default (DESIGN.md, "Buses and the device model"): an app
 * given no device starts a private zn-nicsim with two NIC ports joined by
 * a pair wire, says so in one line, and stops it on exit.
 *
 * Which NICs: $ZN_NICSIM_MODEL = bnxt (the default: two BCM57508 models,
 * sockets bnxt0/bnxt1), mlx5 (two ConnectX-6 Dx models, cx0/cx1) or mixed
 * (bnxt0 and cx1 on one wire).
 *
 * The zn-nicsim binary: $ZN_NICSIM, else the one beside the running
 * program, else the first on $PATH. The child dies with its parent
 * (PR_SET_PDEATHSIG), so a killed app leaves no simulator behind; its
 * sockets live in a fresh directory under /tmp, removed by zn_nicsim_stop.
 */
#ifndef ZCNIC_NICSIM_H
#define ZCNIC_NICSIM_H

#include <sys/types.h>

#pragma GCC visibility push(default)	/* the library's ABI: core/libzcnic.map */

struct zn_nicsim {
	pid_t pid;
	char dir[64];
	char name[2][16];	/* the devices: bnxt0/bnxt1, cx0/cx1 or bnxt0/cx1 */
	char port[2][128];	/* "vfio-user:DIR/NAME.sock" */
};

/*
 * Start it (waits for its ready line, at most 10 s). prog names the caller
 * in messages; model_opts: extra ",key=val" options for both devices, or
 * NULL. 0 or -errno (one line on stderr says why; -EINVAL for an unknown
 * $ZN_NICSIM_MODEL).
 */
int zn_nicsim_start(struct zn_nicsim *s, const char *prog, const char *model_opts);
/* Stop (SIGTERM, then SIGKILL after 5 s) and remove its directory. Idempotent. */
void zn_nicsim_stop(struct zn_nicsim *s);

#pragma GCC visibility pop

#endif
