/* SPDX-License-Identifier: MIT */
/* core/port's default payload buffer pool (see port_pool.h). */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "core/port/port_pool.h"
#include "zcnic/log.h"
#include "zcnic/mem.h"

struct zn_port_pool {
	struct zn_buf_provider prov;
	struct zn_dma_region *region;
	struct zn_pool *pool;
	uint8_t *base;
	uint32_t stride;
	uint32_t count;
};

static uint32_t pool_alloc(void *ctx, struct zn_buf *bufs, uint32_t n)
{
	struct zn_port_pool *pp = ctx;
	uint32_t i;

	for (i = 0; i < n; i++) {
		uint8_t *b = zn_pool_get(pp->pool);

		if (!b)
			break;
		bufs[i].va = b;
		bufs[i].iova = pp->region->iova + (uint64_t)(b - (uint8_t *)pp->region->va);
		bufs[i].id = (uint32_t)((size_t)(b - pp->base) / pp->stride);
	}
	return i;
}

static void pool_put(void *ctx, const uint32_t *ids, uint32_t n)
{
	struct zn_port_pool *pp = ctx;

	for (uint32_t i = 0; i < n; i++) {
		if (ids[i] >= pp->count || zn_pool_put(pp->pool, pp->base + (size_t)ids[i] * pp->stride))
			ZN_LOG_RL(ZN_LOG_WARN, "port", "payload buffer %u given back twice or "
				  "never handed out", ids[i]);
	}
}

static uint8_t *pool_va(void *ctx, uint32_t id)
{
	struct zn_port_pool *pp = ctx;

	return id < pp->count ? pp->base + (size_t)id * pp->stride : NULL;
}

int zn_port_pool_create(struct zn_bus_dev *bus, uint32_t buf_size, uint32_t count, int numa_node,
			struct zn_port_pool **out)
{
	struct zn_port_pool *pp;
	int rc;

	if (!buf_size || !count)
		return -EINVAL;
	pp = calloc(1, sizeof(*pp));
	if (!pp)
		return -ENOMEM;
	pp->stride = (buf_size + 63) & ~63u;
	pp->count = count;
	rc = zn_dma_region_alloc("port-payload", (size_t)pp->stride * count, numa_node, 0,
				 &pp->region);
	if (rc < 0)
		goto err_free;
	rc = zn_pool_create(pp->region, 0, buf_size, count, &pp->pool);
	if (rc < 0)
		goto err_region;
	rc = zn_bus_dma_map(bus, pp->region);
	if (rc < 0) {
		ZN_ERR("port", "%s: cannot DMA-map the payload pool: %s", bus->name, strerror(-rc));
		goto err_pool;
	}
	pp->base = pp->region->va;
	pp->prov.buf_size = buf_size;
	pp->prov.alloc = pool_alloc;
	pp->prov.put = pool_put;
	pp->prov.va = pool_va;
	pp->prov.ctx = pp;
	*out = pp;
	return 0;

err_pool:
	zn_pool_destroy(pp->pool);
err_region:
	zn_dma_region_free(pp->region);
err_free:
	free(pp);
	return rc;
}

void zn_port_pool_destroy(struct zn_bus_dev *bus, struct zn_port_pool *pp)
{
	if (!pp)
		return;
	zn_bus_dma_unmap(bus, pp->region);
	zn_pool_destroy(pp->pool);
	zn_dma_region_free(pp->region);
	free(pp);
}

const struct zn_buf_provider *zn_port_pool_provider(struct zn_port_pool *pp)
{
	return &pp->prov;
}

const uint8_t *zn_port_pool_va(const struct zn_port_pool *pp, uint32_t id)
{
	return id < pp->count ? pp->base + (size_t)id * pp->stride : NULL;
}

uint32_t zn_port_pool_avail(const struct zn_port_pool *pp)
{
	return zn_pool_avail(pp->pool);
}
