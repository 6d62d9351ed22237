/* SPDX-License-Identifier: MIT */
/* Inside the wires: each kind fills in an ops table (sim/wire.h has the contract). */
#ifndef ZN_SIM_WIRE_PRIV_H
#define ZN_SIM_WIRE_PRIV_H

#include "sim/wire.h"

struct zn_sim_wire_ops {
	/* Called for a plugged port with 0 < len <= ZN_SIM_FRAME_MAX; 0 or a
	 * negative errno (the caller counts). */
	int (*tx)(struct zn_sim_wire *w, struct zn_sim_port *p, const void *frame, size_t len);
	unsigned (*room)(const struct zn_sim_wire *w, const struct zn_sim_port *p);
	int (*poll)(struct zn_sim_wire *w, uint64_t now_ns, uint64_t *deadline_ns);
	int (*fd)(const struct zn_sim_wire *w);		/* NULL: none */
	void (*stats)(const struct zn_sim_wire *w,		/* NULL: none */
		      void (*emit)(void *ctx, const char *key, uint64_t v), void *ctx);
	void (*free)(struct zn_sim_wire *w);		/* unplugs its ports */
};

/* The first member of every wire. */
struct zn_sim_wire {
	const struct zn_sim_wire_ops *ops;
};

/* A frame came in from outside the process (afpacket) for port p: the tap sees it. */
void zn_sim_wire_tap_in(const struct zn_sim_port *p, const void *frame, size_t len);

#endif
