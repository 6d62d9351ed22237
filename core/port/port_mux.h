/* SPDX-License-Identifier: MIT */
/*
 * The provider core/port gives the driver for every RX queue: it forwards
 * alloc to the queue's current provider and routes put/va back to the
 * provider each buffer came from, so that zn_port_rxq_set_provider can swap
 * providers under a started queue. Buffer ids carry the provider's slot in
 * their top bits (ZN_BUF_ID_BITS and up); slot 0 is the queue's base
 * provider (core/port's pool or the one given to rxq_setup) and its ids pass
 * untagged and uncounted, so a queue nobody swaps behaves as before.
 *
 * Single-threaded like the queue: every call on its owner's thread (or the
 * control thread while the queue is stopped).
 */
#ifndef ZCNIC_CORE_PORT_MUX_H
#define ZCNIC_CORE_PORT_MUX_H

#include "zcnic/port.h"

#define ZN_PORT_MUX_SLOTS	(1u << (32 - ZN_BUF_ID_BITS))	/* slot 0 included */

struct zn_port_mux;

/* base needs alloc and put; its buf_size is the queue's. */
int zn_port_mux_create(const struct zn_buf_provider *base, struct zn_port_mux **out);
/* Every provider swapped in and not yet detached gets detached() now. */
void zn_port_mux_destroy(struct zn_port_mux *m);
const struct zn_buf_provider *zn_port_mux_provider(struct zn_port_mux *m);
/*
 * Make prov current (NULL or the base provider: back to slot 0). -EINVAL:
 * no alloc/put or another buf_size; -EBUSY: every slot holds a provider
 * whose buffers are still out. The provider swapped out is detached: its
 * detached() runs once its last buffer came back (now, if none is out).
 */
int zn_port_mux_set(struct zn_port_mux *m, const struct zn_buf_provider *prov);
/* The provider alloc takes from now (the base provider in slot 0). */
const struct zn_buf_provider *zn_port_mux_current(const struct zn_port_mux *m);
/* Buffers of prov handed out through the mux and not yet put back; 0 for
 * the base provider (not counted) or one the mux does not hold. */
uint32_t zn_port_mux_out(const struct zn_port_mux *m, const struct zn_buf_provider *prov);

#endif
