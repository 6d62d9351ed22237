/* SPDX-License-Identifier: MIT */
/* Wires between model ports; see wire.h. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "sim/fault.h"
#include "sim/wire_priv.h"

struct slot {
	uint32_t len;
	bool fcs_check;		/* fcs holds the frame's FCS as sent */
	bool dup;		/* a wire-dup fault: deliver it twice */
	uint32_t fcs;
	uint8_t data[ZN_SIM_FRAME_MAX];
};

/* One direction: frames sent by port[end], for port[end ^ 1]. */
struct ring {
	uint32_t head, tail;	/* tail - head frames queued */
	struct slot slot[ZN_SIM_WIRE_SLOTS];
};

struct pair {
	struct zn_sim_wire base;
	struct zn_sim_port *port[2];
	struct ring dir[2];
};

static zn_sim_wire_tap_fn tap_fn;
static void *tap_ctx;

void zn_sim_wire_set_tap(zn_sim_wire_tap_fn fn, void *ctx)
{
	tap_fn = fn;
	tap_ctx = ctx;
}

void zn_sim_wire_tap_in(const struct zn_sim_port *p, const void *frame, size_t len)
{
	if (tap_fn)
		tap_fn(tap_ctx, p, frame, len);
}

int zn_sim_port_tx(struct zn_sim_port *p, const void *frame, size_t len)
{
	int rc;

	if (!p->wire) {
		p->tx_dropped++;
		return -ENOTCONN;
	}
	if (len == 0 || len > ZN_SIM_FRAME_MAX) {
		p->tx_dropped++;
		return -EMSGSIZE;
	}
	rc = p->wire->ops->tx(p->wire, p, frame, len);
	if (rc) {
		p->tx_dropped++;
		return rc;
	}
	p->tx_frames++;
	if (tap_fn)
		tap_fn(tap_ctx, p, frame, len);
	return 0;
}

unsigned zn_sim_port_tx_room(const struct zn_sim_port *p)
{
	if (!p->wire)
		return ZN_SIM_WIRE_SLOTS;
	return p->wire->ops->room(p->wire, p);
}

int zn_sim_wire_poll(void *arg, uint64_t now_ns, uint64_t *deadline_ns)
{
	struct zn_sim_wire *w = arg;

	return w->ops->poll(w, now_ns, deadline_ns);
}

int zn_sim_wire_fd(const struct zn_sim_wire *w)
{
	return w->ops->fd ? w->ops->fd(w) : -1;
}

void zn_sim_wire_stats(const struct zn_sim_wire *w,
		       void (*emit)(void *ctx, const char *key, uint64_t v), void *ctx)
{
	if (w->ops->stats)
		w->ops->stats(w, emit, ctx);
}

void zn_sim_wire_free(struct zn_sim_wire *w)
{
	if (w)
		w->ops->free(w);
}

/* ---- pair ---- */

/* IEEE 802.3 CRC-32 (reflected 0xedb88320): frames carry an FCS only while
 * a wire-corrupt fault is on. */
static uint32_t fcs32(const uint8_t *p, size_t len)
{
	static uint32_t table[256];
	uint32_t c;

	if (!table[1])
		for (uint32_t i = 0; i < 256; i++) {
			c = i;
			for (int k = 0; k < 8; k++)
				c = (c >> 1) ^ (0xedb88320u & (0u - (c & 1)));
			table[i] = c;
		}
	c = 0xffffffffu;
	for (size_t i = 0; i < len; i++)
		c = table[(c ^ p[i]) & 0xff] ^ (c >> 8);
	return ~c;
}

/* The wire-* faults of the sending port on the frame just queued in s (not
 * yet counted in r->tail): false if the wire lost it. */
static bool pair_fault(struct ring *r, struct zn_sim_port *p, struct slot *s)
{
	static struct slot tmp;
	enum zn_sim_fault_wire what;
	struct slot *prev;

	if (p->fault->p_corrupt) {
		s->fcs = fcs32(s->data, s->len);
		s->fcs_check = true;
	}
	what = zn_sim_fault_wire(p, s->data, s->len);
	switch (what) {
	case ZN_SIM_FAULT_DROP:
		return false;
	case ZN_SIM_FAULT_CSUM:
		if (s->fcs_check)	/* the FCS was computed after the damage */
			s->fcs = fcs32(s->data, s->len);
		break;
	case ZN_SIM_FAULT_DUP:
		/* delivered twice from its one slot: the room a model was told
		 * of stays true */
		s->dup = true;
		zn_sim_fault_count_wire(p->fault, what);
		break;
	case ZN_SIM_FAULT_REORDER:
		if (r->tail == r->head)
			break;	/* nothing queued to overtake */
		prev = &r->slot[(r->tail - 1) % ZN_SIM_WIRE_SLOTS];
		tmp.len = prev->len;
		tmp.fcs = prev->fcs;
		tmp.fcs_check = prev->fcs_check;
		tmp.dup = prev->dup;
		memcpy(tmp.data, prev->data, prev->len);
		prev->len = s->len;
		prev->fcs = s->fcs;
		prev->fcs_check = s->fcs_check;
		prev->dup = s->dup;
		memcpy(prev->data, s->data, s->len);
		s->len = tmp.len;
		s->fcs = tmp.fcs;
		s->fcs_check = tmp.fcs_check;
		s->dup = tmp.dup;
		memcpy(s->data, tmp.data, tmp.len);
		zn_sim_fault_count_wire(p->fault, what);
		break;
	default:
		break;
	}
	return true;
}

static int pair_tx(struct zn_sim_wire *base, struct zn_sim_port *p, const void *frame, size_t len)
{
	struct pair *w = (struct pair *)base;
	struct ring *r = &w->dir[p->end];
	struct slot *s;

	if (r->tail - r->head == ZN_SIM_WIRE_SLOTS)
		return -ENOBUFS;
	s = &r->slot[r->tail % ZN_SIM_WIRE_SLOTS];
	s->len = (uint32_t)len;
	s->fcs_check = false;
	s->dup = false;
	memcpy(s->data, frame, len);
	if (p->fault && !pair_fault(r, p, s))
		return 0;	/* sent, and lost on the way */
	r->tail++;
	return 0;
}

static unsigned pair_room(const struct zn_sim_wire *base, const struct zn_sim_port *p)
{
	const struct pair *w = (const struct pair *)base;
	const struct ring *r = &w->dir[p->end];

	return ZN_SIM_WIRE_SLOTS - (r->tail - r->head);
}

static int pair_poll(struct zn_sim_wire *base, uint64_t now_ns, uint64_t *deadline_ns);
static void pair_free(struct zn_sim_wire *base);

static const struct zn_sim_wire_ops pair_ops = {
	.tx = pair_tx,
	.room = pair_room,
	.poll = pair_poll,
	.free = pair_free,
};

int zn_sim_wire_pair(struct zn_sim_port *a, struct zn_sim_port *b, struct zn_sim_wire **out)
{
	struct pair *w;

	if (a == b || a->wire || b->wire)
		return -EBUSY;
	w = calloc(1, sizeof(*w));
	if (!w)
		return -ENOMEM;
	w->base.ops = &pair_ops;
	w->port[0] = a;
	w->port[1] = b;
	a->wire = &w->base;
	a->end = 0;
	b->wire = &w->base;
	b->end = 1;
	*out = &w->base;
	return 0;
}

static int pair_poll(struct zn_sim_wire *base, uint64_t now_ns, uint64_t *deadline_ns)
{
	struct pair *w = (struct pair *)base;
	int work = 0;

	(void)now_ns;
	(void)deadline_ns;
	for (unsigned d = 0; d < 2; d++) {
		struct ring *r = &w->dir[d];
		struct zn_sim_port *to = w->port[d ^ 1];

		for (int n = 0; n < ZN_SIM_WIRE_BUDGET && r->head != r->tail; n++) {
			struct slot *s = &r->slot[r->head % ZN_SIM_WIRE_SLOTS];

			r->head++;
			if (s->fcs_check && fcs32(s->data, s->len) != s->fcs) {
				to->rx_fcs_errors++;	/* the receiving MAC drops it */
				work++;
				continue;
			}
			for (unsigned k = 0; k < 1u + s->dup; k++) {
				to->rx_frames++;
				if (to->rx)
					to->rx(to->opaque, s->data, s->len);
			}
			work++;
		}
	}
	return work;
}

static void pair_free(struct zn_sim_wire *base)
{
	struct pair *w = (struct pair *)base;

	w->port[0]->wire = NULL;
	w->port[1]->wire = NULL;
	free(w);
}
