/* SPDX-License-Identifier: MIT */
/* --wait irq|poll, the same in every app that waits on a ring. */
#ifndef ZN_APPS_WAIT_H
#define ZN_APPS_WAIT_H

struct io_uring;

#define ZN_WAIT_HELP \
"  --wait irq|poll      how a wait with nothing to reap spends its time. poll\n" \
"                       (default): it polls the NIC queues until something\n" \
"                       comes (lowest latency; the thread uses a whole core).\n" \
"                       irq: it polls for 50 us after the last work, then arms\n" \
"                       the queues' MSI-X interrupts and sleeps until one fires\n" \
"                       (little CPU while idle; a wake-up costs some tens of us)\n"

/* The mode --wait names (ZN_URING_WAIT_*), or a usage error of prog. */
unsigned zn_wait_parse(const char *prog, const char *s);
/* Put the ring in that mode: 0, or -errno said on stderr. */
int zn_wait_apply(const char *prog, struct io_uring *ring, unsigned mode);

#endif
