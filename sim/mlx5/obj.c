/* SPDX-License-Identifier: MIT */
/*
 * Simple objects of the mlx5 model (hw-docs/mlx5.md 8, 9, 10): UARs, PDs,
 * transport domains, mkeys, TISs, EQs and CQs; the EQE writer and the UAR
 * doorbell poll. Each object with a context (EQ, CQ, mkey, TIS) keeps it in
 * a slot of the driver's pages (hca.c).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "sim/mlx5/priv.h"

/* ---- queue memory ---- */

uint64_t msim_qmem_addr(const struct msim_qmem *q, uint64_t off)
{
	uint64_t i = off >> q->log_pg;

	if (i >= q->npas)
		return 0;
	return q->pas[i] + (off & ((1ull << q->log_pg) - 1));
}

/* Reads the pas[] list at byte pas_off of the input for a ring of bytes
 * bytes in pages of 2^log_pg. Returns 0 or a status with c failed. */
int msim_qmem_load(struct msim *m, struct msim_cmd *c, size_t pas_off, uint64_t bytes,
		     unsigned log_pg, struct msim_qmem *q)
{
	uint64_t pg = 1ull << log_pg, n = (bytes + pg - 1) / pg;

	if (n > MSIM_MAX_QPAGES)
		return msim_fail(m, c, ZN_MLX5_CMD_STAT_BAD_PARAM_ERR, 0x20, "ring too large"), -1;
	if (c->inlen < pas_off + 8 * n)
		return msim_fail(m, c, ZN_MLX5_CMD_STAT_BAD_INP_LEN_ERR, 0x21,
				 "pas[] shorter than the ring needs"), -1;
	q->pas = calloc(n, sizeof(*q->pas));
	if (!q->pas)
		return msim_fail(m, c, ZN_MLX5_CMD_STAT_NO_RES_ERR, 0x22, "no memory"), -1;
	q->npas = (uint32_t)n;
	q->log_pg = (uint8_t)log_pg;
	for (uint64_t i = 0; i < n; i++) {
		uint64_t a = zn_mlx5_ld_be64(c->in + pas_off + 8 * i);
		uint64_t len = bytes < pg ? bytes : pg;

		if ((a & (ZN_MLX5_ADAPTER_PAGE_SIZE - 1)) ||
		    zn_vfu_dma_probe(m->dev, a, len, ZN_VFU_DMA_TO_RAM)) {
			free(q->pas);
			q->pas = NULL;
			return msim_fail(m, c, ZN_MLX5_CMD_STAT_BAD_PARAM_ERR, 0x23,
					 "ring page unaligned or not in a DMA window"), -1;
		}
		q->pas[i] = a;
	}
	return 0;
}

void msim_qmem_free(struct msim_qmem *q)
{
	free(q->pas);
	memset(q, 0, sizeof(*q));
}

/* ---- simple numbered objects ---- */

static struct msim_simple *simple_alloc(struct msim_simple *t, unsigned n, unsigned first)
{
	for (unsigned i = first; i < n; i++) {
		if (!t[i].used) {
			memset(&t[i], 0, sizeof(t[i]));
			t[i].used = true;
			t[i].id = i;
			t[i].slot = -1;
			return &t[i];
		}
	}
	return NULL;
}

struct msim_simple *msim_simple_get(struct msim_simple *t, unsigned n, uint64_t id)
{
	return id < n && t[id].used ? &t[id] : NULL;
}

bool msim_uar_valid(const struct msim *m, uint32_t uar)
{
	return uar > 0 && uar < MSIM_NUM_UARS && m->uar[uar].used;
}

static int alloc_simple(struct msim *m, struct msim_cmd *c, struct msim_simple *t, unsigned n,
			unsigned first)
{
	struct msim_simple *o;

	if (!msim_lens(m, c, ZN_MLX5_CMD_HDR_SIZE, ZN_MLX5_CMD_HDR_SIZE))
		return 0;
	o = simple_alloc(t, n, first);
	if (!o)
		return msim_fail(m, c, ZN_MLX5_CMD_STAT_LIM_ERR, 1, "all in use");
	ZN_MLX5_SET(c->out, ALLOC_PD_OUT_PD, o->id);
	return 0;
}

static int dealloc_simple(struct msim *m, struct msim_cmd *c, struct msim_simple *t, unsigned n,
			  unsigned first)
{
	uint64_t id;
	struct msim_simple *o;

	if (!msim_lens(m, c, ZN_MLX5_CMD_HDR_SIZE, ZN_MLX5_CMD_HDR_SIZE))
		return 0;
	id = ZN_MLX5_GET(c->in, DESTROY_OBJ_IN_ID);
	o = id >= first ? msim_simple_get(t, n, id) : NULL;
	if (!o)
		return msim_fail(m, c, ZN_MLX5_CMD_STAT_BAD_RES_ERR, 2, "no such object");
	msim_slot_free(m, o->slot);
	free(o->mtt);
	o->mtt = NULL;
	o->used = false;
	return 0;
}

static int create_mkey(struct msim *m, struct msim_cmd *c)
{
	const uint8_t *mkc = ZN_MLX5_CADDR(c->in, CREATE_MKEY_IN_MKC);
	unsigned mode;
	struct msim_simple *o;
	int slot;

	if (!msim_lens(m, c, ZN_MLX5_SZ_CREATE_MKEY_IN, ZN_MLX5_SZ_CREATE_MKEY_OUT))
		return 0;
	mode = (unsigned)(ZN_MLX5_GET(mkc, MKC_ACCESS_MODE_4_2) << 2 |
			  ZN_MLX5_GET(mkc, MKC_ACCESS_MODE_1_0));
	if (mode != ZN_MLX5_MKC_ACCESS_MODE_PA && mode != ZN_MLX5_MKC_ACCESS_MODE_MTT)
		return msim_fail(m, c, ZN_MLX5_CMD_STAT_BAD_PARAM_ERR, 1, "access mode not PA/MTT");
	if (!msim_simple_get(m->pd, MSIM_MAX_OBJ, ZN_MLX5_GET(mkc, MKC_PD)) ||
	    !ZN_MLX5_GET(mkc, MKC_PD))
		return msim_fail(m, c, ZN_MLX5_CMD_STAT_BAD_RES_ERR, 2, "pd unknown");
	if (mode == ZN_MLX5_MKC_ACCESS_MODE_MTT) {
		uint64_t len = ZN_MLX5_GET(mkc, MKC_LEN);
		uint64_t need = ((len + 4095) / 4096 + 1) / 2;

		if (ZN_MLX5_GET(mkc, MKC_LOG_PAGE_SIZE) != 12)
			return msim_fail(m, c, ZN_MLX5_CMD_STAT_BAD_PARAM_ERR, 3,
					 "MTT log_page_size not 12");
		if (ZN_MLX5_GET(c->in, CREATE_MKEY_IN_TRANSLATIONS_OCTWORD_ACTUAL_SIZE) < need ||
		    c->inlen < ZN_MLX5_SZ_CREATE_MKEY_IN + 16 * need)
			return msim_fail(m, c, ZN_MLX5_CMD_STAT_BAD_INP_LEN_ERR, 4,
					 "translation list shorter than len");
	}
	/* From index 2: index 1 with mkey_7_0 0 would be key 0x100, the
	 * MLX5_INVALID_LKEY that ends a cyclic RQ's scatter list. */
	o = simple_alloc(m->mkey, MSIM_MAX_OBJ, 2);
	if (!o)
		return msim_fail(m, c, ZN_MLX5_CMD_STAT_LIM_ERR, 5, "all mkeys in use");
	slot = msim_slot_alloc(m, mkc, ZN_MLX5_SZ_MKC);
	if (slot < 0) {
		o->used = false;
		return msim_fail(m, c, ZN_MLX5_CMD_STAT_NO_RES_ERR, 6, "no context pages");
	}
	o->slot = slot;
	o->a = (uint32_t)ZN_MLX5_GET(mkc, MKC_PD);
	o->b = mode;
	o->start = ZN_MLX5_GET(mkc, MKC_START_ADDR);
	o->len = ZN_MLX5_GET(mkc, MKC_LEN);
	o->length64 = ZN_MLX5_GET(mkc, MKC_LENGTH64);
	if (mode == ZN_MLX5_MKC_ACCESS_MODE_MTT) {
		const uint8_t *t = ZN_MLX5_CADDR(c->in, CREATE_MKEY_IN_KLM_PAS_MTT);

		o->nmtt = (uint32_t)((o->len + 4095) / 4096);
		o->mtt = calloc(o->nmtt ? o->nmtt : 1, sizeof(*o->mtt));
		if (!o->mtt) {
			msim_slot_free(m, slot);
			o->used = false;
			return msim_fail(m, c, ZN_MLX5_CMD_STAT_NO_RES_ERR, 7, "no memory");
		}
		for (uint32_t i = 0; i < o->nmtt; i++)
			o->mtt[i] = zn_mlx5_ld_be64(t + 8 * i) & ~(uint64_t)(ZN_MLX5_PAGE_SIZE - 1);
	}
	ZN_MLX5_SET(c->out, CREATE_MKEY_OUT_MKEY_INDEX, o->id);
	return 0;
}

static int create_tis(struct msim *m, struct msim_cmd *c)
{
	const uint8_t *ctx = ZN_MLX5_CADDR(c->in, CREATE_TIS_IN_TISC);
	struct msim_simple *o;
	int slot;

	if (!msim_lens(m, c, ZN_MLX5_SZ_CREATE_TIS_IN, ZN_MLX5_SZ_CREATE_TIS_OUT))
		return 0;
	if (!ZN_MLX5_GET(ctx, TISC_TRANSPORT_DOMAIN) ||
	    !msim_simple_get(m->td, MSIM_MAX_OBJ, ZN_MLX5_GET(ctx, TISC_TRANSPORT_DOMAIN)))
		return msim_fail(m, c, ZN_MLX5_CMD_STAT_BAD_RES_ERR, 1, "transport domain unknown");
	o = simple_alloc(m->tis, MSIM_MAX_OBJ, 1);
	if (!o)
		return msim_fail(m, c, ZN_MLX5_CMD_STAT_LIM_ERR, 2, "all TISs in use");
	slot = msim_slot_alloc(m, ctx, ZN_MLX5_SZ_TISC);
	if (slot < 0) {
		o->used = false;
		return msim_fail(m, c, ZN_MLX5_CMD_STAT_NO_RES_ERR, 3, "no context pages");
	}
	o->slot = slot;
	o->a = (uint32_t)ZN_MLX5_GET(ctx, TISC_TRANSPORT_DOMAIN);
	ZN_MLX5_SET(c->out, CREATE_TIS_OUT_TISN, o->id);
	return 0;
}

/* ---- EQ ---- */

static int create_eq(struct msim *m, struct msim_cmd *c)
{
	const uint8_t *eqc = ZN_MLX5_CADDR(c->in, CREATE_EQ_IN_EQC);
	const uint8_t *mask = ZN_MLX5_CADDR(c->in, CREATE_EQ_IN_EVENT_BITMASK);
	struct msim_eq *eq = NULL;
	unsigned log_sz, log_pg;
	int slot;

	if (!msim_lens(m, c, ZN_MLX5_SZ_CREATE_EQ_IN, ZN_MLX5_SZ_CREATE_EQ_OUT))
		return 0;
	log_sz = (unsigned)ZN_MLX5_GET(eqc, EQC_LOG_EQ_SIZE);
	log_pg = (unsigned)ZN_MLX5_GET(eqc, EQC_LOG_PAGE_SIZE) + ZN_MLX5_ADAPTER_PAGE_SHIFT;
	if (log_sz > 22 || log_pg > 30)
		return msim_fail(m, c, ZN_MLX5_CMD_STAT_BAD_PARAM_ERR, 1, "log_eq_size/page too big");
	if (ZN_MLX5_GET(eqc, EQC_INTR) >= MSIM_MSIX_VECTORS)
		return msim_fail(m, c, ZN_MLX5_CMD_STAT_BAD_PARAM_ERR, 5, "intr: no such MSI-X vector");
	if (!msim_uar_valid(m, (uint32_t)ZN_MLX5_GET(eqc, EQC_UAR_PAGE)))
		return msim_fail(m, c, ZN_MLX5_CMD_STAT_BAD_RES_ERR, 2, "uar_page not allocated");
	for (unsigned i = 0; i < MSIM_MAX_EQ && !eq; i++)
		if (!m->eq[i].used)
			eq = &m->eq[i];
	if (!eq)
		return msim_fail(m, c, ZN_MLX5_CMD_STAT_LIM_ERR, 3, "all EQs in use");
	memset(eq, 0, sizeof(*eq));
	if (msim_qmem_load(m, c, ZN_MLX5_BYTE_OFF(CREATE_EQ_IN_PAS),
		      (uint64_t)ZN_MLX5_EQE_SIZE << log_sz, log_pg, &eq->mem))
		return 0;
	slot = msim_slot_alloc(m, eqc, ZN_MLX5_SZ_EQC);
	if (slot < 0) {
		msim_qmem_free(&eq->mem);
		return msim_fail(m, c, ZN_MLX5_CMD_STAT_NO_RES_ERR, 4, "no context pages");
	}
	eq->used = true;
	eq->slot = slot;
	eq->eqn = (uint8_t)(eq - m->eq);
	eq->log_sz = (uint8_t)log_sz;
	eq->oi = ZN_MLX5_GET(eqc, EQC_OI);
	eq->intr = (uint8_t)ZN_MLX5_GET(eqc, EQC_INTR);
	eq->uar = (uint32_t)ZN_MLX5_GET(eqc, EQC_UAR_PAGE);
	for (unsigned w = 0; w < 4; w++)
		eq->mask[w] = zn_mlx5_ld_be64(mask + 8 * w);
	ZN_MLX5_SET(c->out, CREATE_EQ_OUT_EQ_NUMBER, eq->eqn);
	return 0;
}

static struct msim_eq *eq_get(struct msim *m, uint64_t eqn)
{
	return eqn < MSIM_MAX_EQ && m->eq[eqn].used ? &m->eq[eqn] : NULL;
}

static int destroy_eq(struct msim *m, struct msim_cmd *c)
{
	struct msim_eq *eq;

	if (!msim_lens(m, c, ZN_MLX5_SZ_DESTROY_EQ_IN, ZN_MLX5_CMD_HDR_SIZE))
		return 0;
	eq = eq_get(m, ZN_MLX5_GET(c->in, DESTROY_EQ_IN_EQ_NUMBER));
	if (!eq)
		return msim_fail(m, c, ZN_MLX5_CMD_STAT_BAD_RES_ERR, 1, "no such EQ");
	for (unsigned i = 0; i < MSIM_MAX_OBJ; i++)
		if (m->cq[i].used && m->cq[i].eqn == eq->eqn)
			return msim_fail(m, c, ZN_MLX5_CMD_STAT_RES_BUSY, 2, "a CQ uses it");
	msim_slot_free(m, eq->slot);
	msim_qmem_free(&eq->mem);
	eq->used = false;
	return 0;
}

void msim_eq_irq(struct msim *m, struct msim_eq *eq)
{
	MSIM_INC(m, irqs);
	if (zn_vfu_irq_notify(m->dev, eq->intr))
		MSIM_INC(m, irq_failures);
}

struct msim_eq *msim_eq_for_event(struct msim *m, unsigned type)
{
	for (unsigned i = 0; i < MSIM_MAX_EQ; i++)
		if (m->eq[i].used && (m->eq[i].mask[type / 64] >> (type % 64) & 1))
			return &m->eq[i];
	return NULL;
}

bool msim_eqe_post(struct msim *m, struct msim_eq *eq, uint8_t type, uint8_t sub,
		   const void *data)
{
	struct zn_mlx5_eqe e = { .type = type, .sub_type = sub };
	uint32_t size = 1u << eq->log_sz;
	uint64_t addr;

	if (eq->pi - eq->ci >= size) {
		MSIM_INC(m, eq_overruns);
		if (!eq->oi)
			msim_fatal(m, ZN_MLX5_HEALTH_SYND_ASYNC_EQ_OVERRUN, eq->eqn);
		return false;
	}
	memcpy(e.data.raw, data, sizeof(e.data.raw));
	e.owner = (uint8_t)((eq->pi >> eq->log_sz) & 1);
	addr = msim_qmem_addr(&eq->mem, (uint64_t)(eq->pi & (size - 1)) * ZN_MLX5_EQE_SIZE);
	if (zn_vfu_dma_write(m->dev, addr, &e, sizeof(e) - 1))
		return false;
	__atomic_thread_fence(__ATOMIC_RELEASE);
	if (zn_vfu_dma_write(m->dev, addr + sizeof(e) - 1, &e.owner, 1))
		return false;
	eq->pi++;
	MSIM_INC(m, eqes);
	if (eq->armed) {	/* one interrupt per arm */
		eq->armed = false;
		msim_eq_irq(m, eq);
	}
	return true;
}

void msim_event(struct msim *m, uint8_t type, uint8_t sub, const void *data)
{
	struct msim_eq *eq = msim_eq_for_event(m, type);

	if (eq)
		msim_eqe_post(m, eq, type, sub, data);
}

/* ---- CQ ---- */

/* The arm word of a CQ's doorbell record (dword 1), host order. */
static uint32_t cq_arm_word(struct msim *m, const struct msim_cq *cq)
{
	uint32_t be = 0;

	zn_vfu_dma_read(m->dev, cq->dbr + 4 * ZN_MLX5_CQ_DBR_ARM, &be, 4);
	return zn_mlx5_bswap32(be);
}

static int create_cq(struct msim *m, struct msim_cmd *c)
{
	const uint8_t *cqc = ZN_MLX5_CADDR(c->in, CREATE_CQ_IN_CQC);
	struct msim_cq *cq = NULL;
	unsigned log_sz, log_pg;
	int slot;

	if (!msim_lens(m, c, ZN_MLX5_SZ_CREATE_CQ_IN, ZN_MLX5_SZ_CREATE_CQ_OUT))
		return 0;
	log_sz = (unsigned)ZN_MLX5_GET(cqc, CQC_LOG_CQ_SIZE);
	log_pg = (unsigned)ZN_MLX5_GET(cqc, CQC_LOG_PAGE_SIZE) + ZN_MLX5_ADAPTER_PAGE_SHIFT;
	if (log_sz > 22 || log_pg > 30)
		return msim_fail(m, c, ZN_MLX5_CMD_STAT_BAD_PARAM_ERR, 1, "log_cq_size/page too big");
	if (ZN_MLX5_GET(cqc, CQC_CQE_SZ) != ZN_MLX5_CQE_SZ_64 || ZN_MLX5_GET(cqc, CQC_CQE_COMP_EN))
		return msim_fail(m, c, ZN_MLX5_CMD_STAT_BAD_PARAM_ERR, 2,
				 "only 64-byte CQEs without compression");
	if (ZN_MLX5_GET(c->in, CREATE_CQ_IN_CQ_UMEM_VALID) || ZN_MLX5_GET(cqc, CQC_DBR_UMEM_VALID))
		return msim_fail(m, c, ZN_MLX5_CMD_STAT_BAD_PARAM_ERR, 3, "umem is DevX only");
	if (!eq_get(m, ZN_MLX5_GET(cqc, CQC_C_EQN)))
		return msim_fail(m, c, ZN_MLX5_CMD_STAT_BAD_RES_ERR, 4, "c_eqn not an EQ");
	if (!msim_uar_valid(m, (uint32_t)ZN_MLX5_GET(cqc, CQC_UAR_PAGE)))
		return msim_fail(m, c, ZN_MLX5_CMD_STAT_BAD_RES_ERR, 5, "uar_page not allocated");
	if (zn_vfu_dma_probe(m->dev, ZN_MLX5_GET(cqc, CQC_DBR_ADDR), ZN_MLX5_DBR_SIZE,
			     ZN_VFU_DMA_FROM_RAM) || (ZN_MLX5_GET(cqc, CQC_DBR_ADDR) & 7))
		return msim_fail(m, c, ZN_MLX5_CMD_STAT_BAD_PARAM_ERR, 6,
				 "dbr_addr unaligned or not in a DMA window");
	for (unsigned i = 1; i < MSIM_MAX_OBJ && !cq; i++)
		if (!m->cq[i].used)
			cq = &m->cq[i];
	if (!cq)
		return msim_fail(m, c, ZN_MLX5_CMD_STAT_LIM_ERR, 7, "all CQs in use");
	memset(cq, 0, sizeof(*cq));
	if (msim_qmem_load(m, c, ZN_MLX5_BYTE_OFF(CREATE_CQ_IN_PAS),
		      (uint64_t)ZN_MLX5_CQE_SIZE << log_sz, log_pg, &cq->mem))
		return 0;
	slot = msim_slot_alloc(m, cqc, ZN_MLX5_SZ_CQC);
	if (slot < 0) {
		msim_qmem_free(&cq->mem);
		return msim_fail(m, c, ZN_MLX5_CMD_STAT_NO_RES_ERR, 8, "no context pages");
	}
	cq->used = true;
	cq->slot = slot;
	cq->cqn = (uint32_t)(cq - m->cq);
	cq->log_sz = (uint8_t)log_sz;
	cq->oi = ZN_MLX5_GET(cqc, CQC_OI);
	cq->uar = (uint32_t)ZN_MLX5_GET(cqc, CQC_UAR_PAGE);
	cq->eqn = (uint8_t)ZN_MLX5_GET(cqc, CQC_C_EQN);
	cq->dbr = ZN_MLX5_GET(cqc, CQC_DBR_ADDR);
	cq->arm_seen = cq_arm_word(m, cq);
	cq->period = (uint16_t)ZN_MLX5_GET(cqc, CQC_CQ_PERIOD);
	cq->max_count = (uint16_t)ZN_MLX5_GET(cqc, CQC_CQ_MAX_COUNT);
	ZN_MLX5_SET(c->out, CREATE_CQ_OUT_CQN, cq->cqn);
	return 0;
}

struct msim_cq *msim_cq_get(struct msim *m, uint64_t cqn)
{
	return cqn > 0 && cqn < MSIM_MAX_OBJ && m->cq[cqn].used ? &m->cq[cqn] : NULL;
}

static int destroy_cq(struct msim *m, struct msim_cmd *c)
{
	struct msim_cq *cq;

	if (!msim_lens(m, c, ZN_MLX5_SZ_DESTROY_CQ_IN, ZN_MLX5_CMD_HDR_SIZE))
		return 0;
	cq = msim_cq_get(m, ZN_MLX5_GET(c->in, DESTROY_CQ_IN_CQN));
	if (!cq)
		return msim_fail(m, c, ZN_MLX5_CMD_STAT_BAD_RES_ERR, 1, "no such CQ");
	if (cq->users)
		return msim_fail(m, c, ZN_MLX5_CMD_STAT_RES_BUSY, 2, "an SQ or RQ uses it");
	msim_slot_free(m, cq->slot);
	msim_qmem_free(&cq->mem);
	cq->used = false;
	return 0;
}

static void cq_event(struct msim *m, struct msim_cq *cq)
{
	uint8_t data[28] = { 0 };

	struct msim_eq *eq = eq_get(m, cq->eqn);

	cq->armed = false;
	cq->since_arm = 0;
	zn_mlx5_st_be32(data + 24, cq->cqn);
	/* Completion events go to the CQ's own EQ, whatever its mask. */
	if (eq)
		msim_eqe_post(m, eq, ZN_MLX5_EVENT_COMP, 0, data);
}

/*
 * Arm request with consumer counter ci: the CQ is armed for its next CQE,
 * and an event follows at once when CQEs past ci are there already (so
 * that a CQE written just before the arm is not left without one).
 */
static void cq_arm(struct msim *m, struct msim_cq *cq, uint32_t ci)
{
	cq->armed = true;
	cq->since_arm = 0;
	if (((cq->pi - ci) & ZN_MLX5_CQ_CI_MASK) != 0 && !cq->err)
		cq_event(m, cq);
}

/*
 * Arms of CQs that share a UAR page may hide one another from a model that
 * polls the page (one value seen of several stored). The arm word the
 * driver writes to the CQ's doorbell record first (PRM "CQ Doorbell
 * Record"; Linux mlx5_cq_arm) is the CQ's own: a new value there is an arm
 * request too (model choice).
 */
static void cq_arm_records_poll(struct msim *m)
{
	for (unsigned i = 1; i < MSIM_MAX_OBJ; i++) {
		struct msim_cq *cq = &m->cq[i];
		struct msim_eq *eq;
		uint32_t w;

		/* only where an interrupt can follow: a DMA read per CQ per
		 * pass would slow every polled queue down */
		if (!cq->used || !(eq = eq_get(m, cq->eqn)) || !eq->armed)
			continue;
		w = cq_arm_word(m, cq);
		if (w == cq->arm_seen)
			continue;
		cq->arm_seen = w;
		if ((w & ZN_MLX5_CQ_DB_CMD_MASK) <= ZN_MLX5_CQ_DB_REQ_NOT_SOL)
			cq_arm(m, cq, w & ZN_MLX5_CQ_CI_MASK);
	}
}

/* Writes one CQE (op_own's opcode set by the caller, owner bit here) at the
 * CQ's producer; the body first, op_own last. False on overflow or DMA
 * failure, which puts the CQ in error. */
static bool cqe_write(struct msim *m, struct msim_cq *cq, struct zn_mlx5_cqe64 *e, bool hold)
{
	uint32_t size = 1u << cq->log_sz, ci_be, ci;
	uint64_t addr;

	if (cq->err)
		return false;
	if (zn_vfu_dma_read(m->dev, cq->dbr, &ci_be, 4)) {
		cq->err = true;
		return false;
	}
	ci = zn_mlx5_bswap32(ci_be) & ZN_MLX5_CQ_CI_MASK;
	if (((cq->pi - ci) & ZN_MLX5_CQ_CI_MASK) >= size && !cq->oi) {
		uint8_t data[28] = { 0 };

		MSIM_INC(m, cq_overflows);
		cq->err = true;
		zn_mlx5_st_be32(data, cq->cqn);
		data[11] = 1;	/* overrun */
		msim_event(m, ZN_MLX5_EVENT_CQ_ERROR, 0, data);
		return false;
	}
	e->op_own = (uint8_t)((e->op_own & 0xfe) | zn_mlx5_cqe_hw_owner(cq->pi, cq->log_sz));
	addr = msim_qmem_addr(&cq->mem, (uint64_t)(cq->pi & (size - 1)) * ZN_MLX5_CQE_SIZE);
	if (zn_vfu_dma_write(m->dev, addr, e, sizeof(*e) - 1)) {
		cq->err = true;
		return false;
	}
	if (hold && !cq->armed && !cq->held) {
		cq->held = true;
		cq->held_own = e->op_own;
		cq->held_addr = addr + sizeof(*e) - 1;
		m->cqe_held = true;
	} else {
		__atomic_thread_fence(__ATOMIC_RELEASE);
		if (zn_vfu_dma_write(m->dev, addr + sizeof(*e) - 1, &e->op_own, 1)) {
			cq->err = true;
			return false;
		}
	}
	cq->pi++;
	MSIM_INC(m, cqes);
	if (cq->armed) {
		if (!cq->since_arm++)
			cq->first_ns = msim_timer_ns();
		/* Moderation: the event waits for cq_max_count CQEs (or the
		 * period, polled); without moderation it is the first CQE. */
		if (cq->since_arm >= (cq->max_count ? cq->max_count : 1u))
			cq_event(m, cq);
	}
	return true;
}

bool msim_cqe_post(struct msim *m, struct msim_cq *cq, struct zn_mlx5_cqe64 *e)
{
	return cqe_write(m, cq, e, false);
}

bool msim_cqe_hold(struct msim *m, struct msim_cq *cq, struct zn_mlx5_cqe64 *e)
{
	return cqe_write(m, cq, e, true);
}

void msim_cqe_release(struct msim *m)
{
	if (!m->cqe_held)
		return;
	/* the CQEs after the held one were written in full before it */
	__atomic_thread_fence(__ATOMIC_RELEASE);
	for (unsigned i = 1; i < MSIM_MAX_OBJ; i++) {
		struct msim_cq *cq = &m->cq[i];

		if (!cq->used || !cq->held)
			continue;
		cq->held = false;
		if (zn_vfu_dma_write(m->dev, cq->held_addr, &cq->held_own, 1))
			cq->err = true;
	}
	MSIM_ADD(m, rx_frames, m->held_frames);
	MSIM_ADD(m, rx_bytes, m->held_bytes);
	m->held_frames = m->held_bytes = 0;
	m->cqe_held = false;
}

void msim_cq_moderation_poll(struct msim *m, uint64_t now_ns, uint64_t *deadline_ns)
{
	for (unsigned i = 1; i < MSIM_MAX_OBJ; i++) {
		struct msim_cq *cq = &m->cq[i];
		uint64_t due;

		if (!cq->used || !cq->armed || !cq->since_arm || !cq->period)
			continue;
		due = cq->first_ns + (uint64_t)cq->period * 1000;
		if (now_ns >= due)
			cq_event(m, cq);
		else if (due < *deadline_ns)
			*deadline_ns = due;
	}
}

/* ---- UAR doorbells (mapped, polled) ---- */

void msim_uar_poll(struct msim *m)
{
	if (!m->bar0)
		return;
	for (unsigned u = 1; u < MSIM_NUM_UARS; u++) {
		uint8_t *p;
		uint32_t eqw;
		uint64_t cqw;

		if (!m->uar[u].used)
			continue;
		p = m->bar0 + (size_t)u * ZN_MLX5_UAR_PAGE_SIZE;
		for (unsigned r = 0; r < 2; r++) {
			/* 0x48 updates the consumer, 0x40 updates and arms it:
			 * MSI-X at once if EQEs past ci are there, else at the next */
			unsigned off = r ? ZN_MLX5_UAR_EQ_DOORBELL_ARM : ZN_MLX5_UAR_EQ_DOORBELL;
			uint32_t v;
			struct msim_eq *eq;

			eqw = __atomic_load_n((uint32_t *)(p + off), __ATOMIC_ACQUIRE);
			if (eqw == (uint32_t)(m->uar_last[u][1] >> (32 * r)))
				continue;
			m->uar_last[u][1] = r ? (m->uar_last[u][1] & 0xffffffffu) | (uint64_t)eqw << 32
					      : (m->uar_last[u][1] & ~0xffffffffull) | eqw;
			v = zn_mlx5_bswap32(eqw);
			eq = eq_get(m, v >> 24);
			MSIM_INC(m, uar_eq_db);
			if (!eq || eq->uar != u) {
				MSIM_INC(m, uar_bad);
				continue;
			}
			eq->ci = (eq->pi & ~ZN_MLX5_EQ_CI_MASK) | (v & ZN_MLX5_EQ_CI_MASK);
			if (eq->ci > eq->pi)
				eq->ci -= ZN_MLX5_EQ_CI_MASK + 1;
			if (r && eq->ci != eq->pi) {
				eq->armed = false;
				msim_eq_irq(m, eq);
			} else if (r) {
				eq->armed = true;
			}
		}
		for (unsigned b = 0; b < 2; b++) {
			/* SQ doorbells: the dbrec is polled anyway (tx.c); the
			 * register only has to name a known SQ. */
			uint64_t v = __atomic_load_n((uint64_t *)(p + ZN_MLX5_UAR_BF_OFFSET +
								  b * ZN_MLX5_UAR_BF_SIZE),
						     __ATOMIC_ACQUIRE);
			uint32_t sqn;

			if (v == m->uar_last[u][2 + b])
				continue;
			m->uar_last[u][2 + b] = v;
			MSIM_INC(m, uar_sq_db);
			sqn = zn_mlx5_ld_be32((const uint8_t *)&v + 4) >> 8;
			if (!sqn || sqn >= MSIM_MAX_OBJ || !m->sq[sqn].used || m->sq[sqn].uar != u)
				MSIM_INC(m, uar_bad);
		}
		cqw = __atomic_load_n((uint64_t *)(p + ZN_MLX5_UAR_CQ_DOORBELL), __ATOMIC_ACQUIRE);
		if (cqw != m->uar_last[u][0]) {
			uint64_t v = zn_mlx5_bswap64(cqw);
			struct msim_cq *cq = msim_cq_get(m, v & 0xffffff);

			m->uar_last[u][0] = cqw;
			MSIM_INC(m, uar_cq_db);
			if (cq && cq->uar == u)
				cq_arm(m, cq, (uint32_t)(v >> 32) & ZN_MLX5_CQ_CI_MASK);
			else
				MSIM_INC(m, uar_bad);
		}
	}
	cq_arm_records_poll(m);
}

/* ---- dispatch ---- */

int msim_obj_cmd(struct msim *m, struct msim_cmd *c)
{
	switch (c->opcode) {
	case ZN_MLX5_CMD_OP_ALLOC_UAR:
		return alloc_simple(m, c, m->uar, MSIM_NUM_UARS, 1);
	case ZN_MLX5_CMD_OP_DEALLOC_UAR:
		return dealloc_simple(m, c, m->uar, MSIM_NUM_UARS, 1);
	case ZN_MLX5_CMD_OP_ALLOC_PD:
		return alloc_simple(m, c, m->pd, MSIM_MAX_OBJ, 1);
	case ZN_MLX5_CMD_OP_DEALLOC_PD:
		return dealloc_simple(m, c, m->pd, MSIM_MAX_OBJ, 1);
	case ZN_MLX5_CMD_OP_ALLOC_TRANSPORT_DOMAIN:
		return alloc_simple(m, c, m->td, MSIM_MAX_OBJ, 1);
	case ZN_MLX5_CMD_OP_DEALLOC_TRANSPORT_DOMAIN:
		return dealloc_simple(m, c, m->td, MSIM_MAX_OBJ, 1);
	case ZN_MLX5_CMD_OP_CREATE_MKEY:
		return create_mkey(m, c);
	case ZN_MLX5_CMD_OP_DESTROY_MKEY:
		return dealloc_simple(m, c, m->mkey, MSIM_MAX_OBJ, 1);
	case ZN_MLX5_CMD_OP_CREATE_TIS:
		return create_tis(m, c);
	case ZN_MLX5_CMD_OP_DESTROY_TIS:
		return dealloc_simple(m, c, m->tis, MSIM_MAX_OBJ, 1);
	case ZN_MLX5_CMD_OP_CREATE_EQ:
		return create_eq(m, c);
	case ZN_MLX5_CMD_OP_DESTROY_EQ:
		return destroy_eq(m, c);
	case ZN_MLX5_CMD_OP_CREATE_CQ:
		return create_cq(m, c);
	case ZN_MLX5_CMD_OP_DESTROY_CQ:
		return destroy_cq(m, c);
	default:
		if (msim_queue_cmd(m, c) != -ENOENT)
			return 0;
		return msim_steer_cmd(m, c);
	}
}

uint64_t msim_mkey_xlate(struct msim *m, uint32_t lkey, uint64_t addr, uint64_t len)
{
	struct msim_simple *k = msim_simple_get(m->mkey, MSIM_MAX_OBJ, lkey >> 8);
	uint64_t off;

	if (!k || lkey >> 8 == 0)
		return 0;
	if (k->b == ZN_MLX5_MKC_ACCESS_MODE_PA)
		return addr;
	/* MTT: within [start, start + len), page by page; a range that
	 * crosses a page must find the next page right after it. */
	if (addr < k->start || len > k->len || addr - k->start > k->len - len)
		return 0;
	off = addr - k->start;
	for (uint64_t p = off / 4096 + 1; p <= (off + len - 1) / 4096; p++)
		if (k->mtt[p] != k->mtt[p - 1] + 4096)
			return 0;
	return k->mtt[off / 4096] + off % 4096;
}

void msim_free_objects(struct msim *m)
{
	for (unsigned i = 0; i < MSIM_MAX_OBJ; i++)
		free(m->mkey[i].mtt);
	msim_queues_free(m);
	msim_steer_free(m);
	for (unsigned i = 0; i < MSIM_MAX_EQ; i++)
		msim_qmem_free(&m->eq[i].mem);
	for (unsigned i = 0; i < MSIM_MAX_OBJ; i++)
		msim_qmem_free(&m->cq[i].mem);
	memset(m->eq, 0, sizeof(m->eq));
	memset(m->cq, 0, sizeof(m->cq));
	memset(m->uar, 0, sizeof(m->uar));
	memset(m->pd, 0, sizeof(m->pd));
	memset(m->td, 0, sizeof(m->td));
	memset(m->tis, 0, sizeof(m->tis));
	memset(m->mkey, 0, sizeof(m->mkey));
	memset(m->slot_used, 0, sizeof(m->slot_used));
	memset(m->uar_last, 0, sizeof(m->uar_last));
	m->slots_used = 0;
}
