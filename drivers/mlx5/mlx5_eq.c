/* SPDX-License-Identifier: MIT */
/*
 * The event queue (hw-docs/mlx5.md §8), polled: no interrupt is ever armed.
 * It subscribes to page requests (§6), port changes (§13a), CQ errors and
 * internal errors — not to command completions, which the driver learns
 * from the slot's ownership bit, so the EQ never fills with them.
 *
 * Ownership: the EQE at consumer counter ci is software's when its owner
 * bit equals (ci >> log_size) & 1; every EQE starts with owner 1 so the
 * first pass reads as the device's. The consumer counter goes to the UAR
 * EQ doorbell (no arm) after each batch, well within ZN_MLX5_NUM_SPARE_EQE.
 */
#include <errno.h>
#include <string.h>

#include "base/barrier.h"
#include "drivers/mlx5/mlx5.h"
#include "zcnic/log.h"

#define EQ_BYTES(log)	((size_t)ZN_MLX5_EQE_SIZE << (log))
#define EQ_PAGES	((EQ_BYTES(MLX5_EQ_LOG_SIZE) + ZN_MLX5_ADAPTER_PAGE_SIZE - 1) / \
			 ZN_MLX5_ADAPTER_PAGE_SIZE)
_Static_assert(MLX5_IRQ_EQ_LOG_SIZE <= MLX5_EQ_LOG_SIZE, "an EQ's pas[] fits the async EQ's");

void zn_mlx5_uar_write32(const struct mlx5_uar *u, uint32_t off, uint32_t be_val)
{
	zn_dma_wmb();
	if (u->va) {
		*(volatile uint32_t *)(u->va + off) = be_val;
		return;
	}
	zn_bus_write32(u->bus, 0, u->bar_off + off, be_val);
}

void zn_mlx5_uar_write64_slow(const struct mlx5_uar *u, uint32_t off, uint64_t raw)
{
	int rc = zn_bus_write64(u->bus, 0, u->bar_off + off, raw);

	if (rc < 0)
		ZN_LOG_RL(ZN_LOG_ERR, MLX5_LOG, "%s: UAR write at BAR0+0x%llx failed: %s",
			  u->bus->name, (unsigned long long)(u->bar_off + off), strerror(-rc));
}

int zn_mlx5_eq_create_on(struct mlx5 *m, struct mlx5_eq *eq, const struct mlx5_uar *uar,
			 uint32_t log_size, uint8_t intr, bool async)
{
	uint8_t in[ZN_MLX5_SZ_CREATE_EQ_IN + 8 * EQ_PAGES] = { 0 }, out[ZN_MLX5_SZ_CREATE_EQ_OUT];
	uint8_t *eqc = ZN_MLX5_ADDR(in, CREATE_EQ_IN_EQC);
	int rc;

	rc = zn_mlx5_dma_alloc(m, "mlx5-eq", EQ_BYTES(log_size), &eq->dma);
	if (rc < 0)
		return rc;
	eq->eqe = eq->dma->va;
	eq->log_size = (uint8_t)log_size;
	for (uint32_t i = 0; i < 1u << log_size; i++)
		eq->eqe[i].owner = ZN_MLX5_EQE_OWNER_INIT;
	eq->ci = 0;

	ZN_MLX5_SET(in, IN_OPCODE, ZN_MLX5_CMD_OP_CREATE_EQ);
	ZN_MLX5_SET(eqc, EQC_LOG_EQ_SIZE, log_size);
	ZN_MLX5_SET(eqc, EQC_UAR_PAGE, uar->index);
	ZN_MLX5_SET(eqc, EQC_INTR, intr);
	ZN_MLX5_SET(eqc, EQC_LOG_PAGE_SIZE, 0);
	/* a completion EQ subscribes to nothing: CQ events reach the CQ's EQ */
	if (async) {
		zn_mlx5_eq_mask_event(in, ZN_MLX5_EVENT_PAGE_REQUEST);
		zn_mlx5_eq_mask_event(in, ZN_MLX5_EVENT_PORT_CHANGE);
		zn_mlx5_eq_mask_event(in, ZN_MLX5_EVENT_CQ_ERROR);
		zn_mlx5_eq_mask_event(in, ZN_MLX5_EVENT_INTERNAL_ERROR);
	}
	zn_mlx5_pas_fill(ZN_MLX5_ADDR(in, CREATE_EQ_IN_PAS), eq->dma->iova, EQ_BYTES(log_size));
	rc = zn_mlx5_cmd(m, in, sizeof(in), out, sizeof(out));
	if (rc < 0) {
		zn_mlx5_dma_free(m, &eq->dma);
		return rc;
	}
	eq->eqn = (uint8_t)ZN_MLX5_GET(out, CREATE_EQ_OUT_EQ_NUMBER);
	eq->live = true;
	/* §4 step 16: the consumer counter once, so the device knows where we are. */
	zn_mlx5_uar_write32(uar, ZN_MLX5_UAR_EQ_DOORBELL,
			    zn_mlx5_bswap32(zn_mlx5_eq_doorbell(0, eq->eqn)));
	return 0;
}

int zn_mlx5_eq_create(struct mlx5 *m)
{
	return zn_mlx5_eq_create_on(m, &m->eq, &m->uar, MLX5_EQ_LOG_SIZE, 0, true);
}

void zn_mlx5_eq_destroy_on(struct mlx5 *m, struct mlx5_eq *eq)
{
	if (eq->live) {
		zn_mlx5_destroy_obj(m, ZN_MLX5_CMD_OP_DESTROY_EQ, eq->eqn);
		eq->live = false;
	}
	zn_mlx5_dma_free(m, &eq->dma);
	eq->eqe = NULL;
}

void zn_mlx5_eq_destroy(struct mlx5 *m)
{
	zn_mlx5_eq_destroy_on(m, &m->eq);
}

int zn_mlx5_eq_poll(struct mlx5 *m)
{
	struct mlx5_eq *eq = &m->eq;
	uint32_t seen = 0;
	int rc = 0;

	if (!eq->live || m->dead)
		return m->dead ? -EIO : 0;
	for (;;) {
		struct zn_mlx5_eqe *e = &eq->eqe[eq->ci & ((1u << MLX5_EQ_LOG_SIZE) - 1)];
		struct zn_mlx5_eqe ev;

		if (!zn_mlx5_eqe_sw_owned(e, eq->ci, MLX5_EQ_LOG_SIZE))
			break;
		zn_dma_rmb();
		ev = *e;
		eq->ci++;
		seen++;
		switch (ev.type) {
		case ZN_MLX5_EVENT_PAGE_REQUEST: {
			int32_t n = (int32_t)zn_mlx5_bswap32(ev.data.req_pages.num_pages_be);
			int r = zn_mlx5_pages_serve(m, n);

			if (r < 0 && rc == 0)
				rc = r;
			break;
		}
		case ZN_MLX5_EVENT_PORT_CHANGE:
			m->port_events++;
			m->link.up = ev.sub_type == ZN_MLX5_PORT_CHANGE_ACTIVE;
			ZN_INFO(MLX5_LOG, "%s: link %s", m->name, m->link.up ? "up" : "down");
			break;
		case ZN_MLX5_EVENT_CQ_ERROR:
			ZN_ERR(MLX5_LOG, "%s: CQ 0x%x error, syndrome %u (1 overrun, 2 access)",
			       m->name, zn_mlx5_bswap32(ev.data.cq_err.cqn_be) & 0xffffff,
			       ev.data.cq_err.syndrome);
			break;
		case ZN_MLX5_EVENT_INTERNAL_ERROR:
			zn_mlx5_fatal(m, "internal error event");
			rc = -EIO;
			break;
		default:
			break;
		}
		if (m->dead)
			break;
	}
	if (seen && !m->dead)
		zn_mlx5_uar_write32(&m->uar, ZN_MLX5_UAR_EQ_DOORBELL,
				    zn_mlx5_bswap32(zn_mlx5_eq_doorbell(eq->ci, eq->eqn)));
	return rc;
}
