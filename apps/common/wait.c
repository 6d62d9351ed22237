/* SPDX-License-Identifier: MIT */
/* --wait irq|poll: a zcnic ring's wait mode (zn_uring_set_wait). */
#include <liburing.h>
#include <stdio.h>
#include <string.h>

#include "cli.h"
#include "wait.h"
#include "zcnic/uring.h"

unsigned zn_wait_parse(const char *prog, const char *s)
{
	if (!strcmp(s, "irq"))
		return ZN_URING_WAIT_IRQ;
	if (strcmp(s, "poll"))
		zn_cli_die(prog, "--wait wants irq or poll", s);
	return ZN_URING_WAIT_POLL;
}

int zn_wait_apply(const char *prog, struct io_uring *ring, unsigned mode)
{
	int rc = zn_uring_set_wait(zn_uring_from_handle(ring->ring_fd), mode, 0);

	if (rc)
		fprintf(stderr, "%s: --wait: %s\n", prog, strerror(-rc));
	return rc;
}
