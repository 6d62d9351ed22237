/* SPDX-License-Identifier: MIT */
/*
 * The payload buffer pool core/port gives an RX queue set up without a
 * provider: fixed-size buffers in one DMA region, mapped to the port's
 * device, handed out and taken back through a struct zn_buf_provider.
 * Buffer ids are pool indices.
 */
#ifndef ZCNIC_CORE_PORT_POOL_H
#define ZCNIC_CORE_PORT_POOL_H

#include "zcnic/bus.h"
#include "zcnic/port.h"

#define ZN_PORT_POOL_DFLT_BUF	2048	/* bytes per buffer */
#define ZN_PORT_POOL_DFLT_RING	256	/* ring size assumed when the queue says "default" */
#define ZN_PORT_POOL_PER_SLOT	4	/* buffers per RX ring slot: AGG ring + what the caller holds */

struct zn_port_pool;

int zn_port_pool_create(struct zn_bus_dev *bus, uint32_t buf_size, uint32_t count, int numa_node,
			struct zn_port_pool **out);
void zn_port_pool_destroy(struct zn_bus_dev *bus, struct zn_port_pool *pp);
const struct zn_buf_provider *zn_port_pool_provider(struct zn_port_pool *pp);
const uint8_t *zn_port_pool_va(const struct zn_port_pool *pp, uint32_t id);
uint32_t zn_port_pool_avail(const struct zn_port_pool *pp);
/* Free buffers of the pool core/port gave RX queue q (tests' accounting);
 * UINT32_MAX when the queue has no pool of core/port's. */
uint32_t zn_port_rxq_pool_avail(struct zn_port *p, uint16_t q);

#endif
