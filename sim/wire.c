/* SPDX-License-Identifier: MIT */
/* Wires between model ports; see wire.h. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "sim/wire.h"

struct slot {
	uint32_t len;
	uint8_t data[ZN_SIM_FRAME_MAX];
};

/* One direction: frames sent by port[end], for port[end ^ 1]. */
struct ring {
	uint32_t head, tail;	/* tail - head frames queued */
	struct slot slot[ZN_SIM_WIRE_SLOTS];
};

struct zn_sim_wire {
	struct zn_sim_port *port[2];
	struct ring dir[2];
};

int zn_sim_port_tx(struct zn_sim_port *p, const void *frame, size_t len)
{
	struct ring *r;
	struct slot *s;

	if (!p->wire) {
		p->tx_dropped++;
		return -ENOTCONN;
	}
	if (len == 0 || len > ZN_SIM_FRAME_MAX) {
		p->tx_dropped++;
		return -EMSGSIZE;
	}
	r = &p->wire->dir[p->end];
	if (r->tail - r->head == ZN_SIM_WIRE_SLOTS) {
		p->tx_dropped++;
		return -ENOBUFS;
	}
	s = &r->slot[r->tail % ZN_SIM_WIRE_SLOTS];
	s->len = (uint32_t)len;
	memcpy(s->data, frame, len);
	r->tail++;
	p->tx_frames++;
	return 0;
}

unsigned zn_sim_port_tx_room(const struct zn_sim_port *p)
{
	const struct ring *r;

	if (!p->wire)
		return ZN_SIM_WIRE_SLOTS;
	r = &p->wire->dir[p->end];
	return ZN_SIM_WIRE_SLOTS - (r->tail - r->head);
}

int zn_sim_wire_pair(struct zn_sim_port *a, struct zn_sim_port *b, struct zn_sim_wire **out)
{
	struct zn_sim_wire *w;

	if (a == b || a->wire || b->wire)
		return -EBUSY;
	w = calloc(1, sizeof(*w));
	if (!w)
		return -ENOMEM;
	w->port[0] = a;
	w->port[1] = b;
	a->wire = w;
	a->end = 0;
	b->wire = w;
	b->end = 1;
	*out = w;
	return 0;
}

int zn_sim_wire_poll(void *arg, uint64_t now_ns, uint64_t *deadline_ns)
{
	struct zn_sim_wire *w = arg;
	int work = 0;

	(void)now_ns;
	(void)deadline_ns;
	for (unsigned d = 0; d < 2; d++) {
		struct ring *r = &w->dir[d];
		struct zn_sim_port *to = w->port[d ^ 1];

		for (int n = 0; n < ZN_SIM_WIRE_BUDGET && r->head != r->tail; n++) {
			struct slot *s = &r->slot[r->head % ZN_SIM_WIRE_SLOTS];

			r->head++;
			to->rx_frames++;
			if (to->rx)
				to->rx(to->opaque, s->data, s->len);
			work++;
		}
	}
	return work;
}

void zn_sim_wire_free(struct zn_sim_wire *w)
{
	if (!w)
		return;
	w->port[0]->wire = NULL;
	w->port[1]->wire = NULL;
	free(w);
}
