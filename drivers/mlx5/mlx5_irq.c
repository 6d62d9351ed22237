/* SPDX-License-Identifier: MIT */
/*
 * Interrupts (hw-docs/mlx5.md §8.1): one completion EQ per queue pair, as
 * Linux's mlx5e gives each channel a completion EQ of its own, so that the
 * thread that owns a pair can sleep on that pair's MSI-X vector alone.
 *
 *   vector 0      the async EQ (mlx5_eq.c), polled, never armed
 *   vector 1 + i  completion EQ of pair i: the CQs of RX queue i and TX
 *                 queue i name it as c_eqn
 *
 * Arming queue q of pair i (Linux mlx5e_cq_arm, mlx5_eq_update_ci): take
 * the EQ's completion EQEs (each is one event of one of the pair's CQs:
 * that CQ's cmd_sn moves on), arm the CQ (arm word with cmd_sn, REQ_NOT
 * and the consumer counter, to the doorbell record's dword 1 first, then
 * with the cqn to UAR + 0x20), then arm the EQ (consumer counter to UAR +
 * 0x40). The device raises an event at once for CQEs past the consumer
 * counter, and the interrupt at once for EQEs past the EQ's; both arms are
 * one-shot.
 *
 * Each completion EQ sits on a UAR page of its own (ALLOC_UAR): EQ
 * doorbells of two EQs on one page could hide each other from a model
 * that polls the page. There are no completion EQs under DevX (the kernel
 * owns the interrupts there), or when the bus offers too few MSI-X vectors
 * or the device too few EQs: the port only polls then.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "base/barrier.h"
#include "drivers/mlx5/mlx5.h"
#include "zcnic/log.h"

static uint16_t irq_pairs(const struct mlx5 *m)
{
	return m->conf.nb_rxq > m->conf.nb_txq ? m->conf.nb_rxq : m->conf.nb_txq;
}

static int uar_alloc(struct mlx5 *m, struct mlx5_irq_eq *ie)
{
	uint8_t in[16] = { 0 }, out[16];
	int rc;

	ZN_MLX5_SET(in, IN_OPCODE, ZN_MLX5_CMD_OP_ALLOC_UAR);
	rc = zn_mlx5_cmd(m, in, sizeof(in), out, sizeof(out));
	if (rc < 0)
		return rc;
	ie->uar.index = zn_mlx5_ld_be32(out + 8) & 0xffffff;	/* dword 0x08 [23:0] */
	ie->uar_live = true;
	ie->uar.bus = m->bus;
	ie->uar.bar_off = (uint64_t)ie->uar.index * ZN_MLX5_UAR_PAGE_SIZE;
	ie->uar.va = NULL;
	if (zn_mlx5_bar0_mapped(m, ie->uar.bar_off) &&
	    zn_mlx5_bar0_mapped(m, ie->uar.bar_off + ZN_MLX5_UAR_PAGE_SIZE - 4))
		ie->uar.va = (volatile uint8_t *)m->bus->region_va[0] + ie->uar.bar_off;
	return 0;
}

static void cq_own_eq(struct mlx5_cq *cq, uint8_t eqn)
{
	cq->own_eq = true;
	cq->eqn = eqn;
	/* cmd_sn starts at 1: the first arm word (sn, REQ_NOT, ci 0) then
	 * differs from the zeroed doorbell record, which a model that reads
	 * the record could not tell from an arm */
	cq->arm_sn = 1;
}

int zn_mlx5_irq_start(struct mlx5 *m)
{
	struct zn_irq_info ii = { 0 };
	uint16_t pairs = irq_pairs(m);
	int rc;

	m->irq_pairs = 0;
	if (m->devx || !m->bus->ops->get_irq_info ||
	    m->bus->ops->get_irq_info(m->bus, ZN_IRQ_MSIX, &ii) < 0 || ii.count < 1u + pairs)
		return 0;
	m->irq_eq = calloc(pairs, sizeof(*m->irq_eq));
	if (!m->irq_eq)
		return -ENOMEM;
	m->irq_pairs = pairs;
	for (uint16_t i = 0; i < pairs; i++) {
		struct mlx5_irq_eq *ie = &m->irq_eq[i];

		rc = uar_alloc(m, ie);
		if (rc == 0)
			rc = zn_mlx5_eq_create_on(m, &ie->eq, &ie->uar, MLX5_IRQ_EQ_LOG_SIZE,
						  (uint8_t)(1 + i), false);
		if (rc < 0)
			return rc;	/* stop frees what exists */
		if (i < m->conf.nb_rxq)
			cq_own_eq(&m->rxq[i]->cq, ie->eq.eqn);
		if (i < m->conf.nb_txq)
			cq_own_eq(&m->txq[i]->cq, ie->eq.eqn);
	}
	return 0;
}

void zn_mlx5_irq_stop(struct mlx5 *m)
{
	for (uint16_t i = 0; m->irq_eq && i < m->irq_pairs; i++) {
		struct mlx5_irq_eq *ie = &m->irq_eq[i];

		zn_mlx5_eq_destroy_on(m, &ie->eq);
		if (ie->uar_live)
			zn_mlx5_destroy_obj(m, ZN_MLX5_CMD_OP_DEALLOC_UAR, ie->uar.index);
	}
	for (uint16_t q = 0; q < m->conf.nb_rxq; q++)
		if (m->rxq[q])
			m->rxq[q]->cq.own_eq = false;
	for (uint16_t q = 0; q < m->conf.nb_txq; q++)
		if (m->txq[q])
			m->txq[q]->cq.own_eq = false;
	free(m->irq_eq);
	m->irq_eq = NULL;
	m->irq_pairs = 0;
}

int zn_mlx5_irq_vectors(const struct mlx5 *m)
{
	return m->started && m->irq_pairs && !m->dead ? 1 + m->irq_pairs : -EOPNOTSUPP;
}

int zn_mlx5_irq_vector(const struct mlx5 *m, bool tx, uint16_t q)
{
	(void)tx;
	if (zn_mlx5_irq_vectors(m) < 0 || q >= m->irq_pairs || !m->irq_eq[q].eq.live)
		return -EOPNOTSUPP;
	return 1 + q;
}

/* The pair's CQ with this cqn, if any. */
static struct mlx5_cq *pair_cq(struct mlx5 *m, uint16_t q, uint32_t cqn)
{
	if (q < m->conf.nb_rxq && m->rxq[q] && m->rxq[q]->cq.cqn == cqn)
		return &m->rxq[q]->cq;
	if (q < m->conf.nb_txq && m->txq[q] && m->txq[q]->cq.cqn == cqn)
		return &m->txq[q]->cq;
	return NULL;
}

/* Completion EQEs: each is an event of one of the pair's CQs, taken now. */
static void eq_consume(struct mlx5 *m, uint16_t q, struct mlx5_eq *eq)
{
	for (uint32_t n = 0; n < 1u << eq->log_size; n++) {
		const struct zn_mlx5_eqe *e = &eq->eqe[eq->ci & ((1u << eq->log_size) - 1)];
		struct mlx5_cq *cq;

		if (!zn_mlx5_eqe_sw_owned(e, eq->ci, eq->log_size))
			break;
		zn_dma_rmb();
		cq = e->type == ZN_MLX5_EVENT_COMP ?
			pair_cq(m, q, zn_mlx5_bswap32(e->data.comp.cqn_be) & 0xffffff) : NULL;
		if (cq)
			cq->arm_sn++;
		eq->ci++;
	}
}

static void cq_arm(struct mlx5 *m, struct mlx5_cq *cq)
{
	uint32_t w = zn_mlx5_cq_arm_word(cq->arm_sn, ZN_MLX5_CQ_DB_REQ_NOT, cq->ci);
	uint64_t db = zn_mlx5_bswap64(zn_mlx5_cq_uar_doorbell(w, cq->cqn));

	cq->dbr[ZN_MLX5_CQ_DBR_ARM] = zn_mlx5_bswap32(w);
	/* the record before the doorbell: the device reads it when armed */
	zn_dma_wmb();
	if (m->uar.va)
		*(volatile uint64_t *)(m->uar.va + ZN_MLX5_UAR_CQ_DOORBELL) = db;
	else
		zn_mlx5_uar_write64_slow(&m->uar, ZN_MLX5_UAR_CQ_DOORBELL, db);
}

int zn_mlx5_irq_arm(struct mlx5 *m, bool tx, uint16_t q)
{
	struct mlx5_irq_eq *ie;
	struct mlx5_cq *cq;

	if (zn_mlx5_irq_vector(m, tx, q) < 0)
		return -EOPNOTSUPP;
	if (tx ? q >= m->conf.nb_txq || !m->txq[q] : q >= m->conf.nb_rxq || !m->rxq[q])
		return -EINVAL;
	ie = &m->irq_eq[q];
	cq = tx ? &m->txq[q]->cq : &m->rxq[q]->cq;
	eq_consume(m, q, &ie->eq);
	cq_arm(m, cq);
	zn_mlx5_uar_write32(&ie->uar, ZN_MLX5_UAR_EQ_DOORBELL_ARM,
			    zn_mlx5_bswap32(zn_mlx5_eq_doorbell(ie->eq.ci, ie->eq.eqn)));
	return 0;
}
