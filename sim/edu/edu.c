/* SPDX-License-Identifier: MIT */
/*
 * edu: QEMU's educational PCI device (QEMU docs/specs/edu.rst, hw/misc/edu.c;
 * register facts in sim/edu/edu_hw.h), the smallest device that exercises a
 * whole driver path: trapped registers, DMA both ways, MSI and INTx.
 *
 * Differences from QEMU's, all deliberate:
 *   - the factorial and the DMA run on the loop thread (next poll, or after
 *     dma_delay_ms), not on a thread and a 100 ms timer;
 *   - a device-side DMA range outside the 4 KiB buffer is refused and counted
 *     (QEMU logs it and proceeds, or aborts in 7.2);
 *   - a DMA that the server refuses (no bus master, unmapped) completes
 *     without moving data, as on real hardware, and latches Received Master
 *     Abort in PCI status; the zcnic extension page counts it too;
 *   - DEVICE_RESET returns it to power-on state (QEMU's edu has no reset);
 *   - zcnic extension: BAR2 with a polled doorbell page and MSI-X.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sim/edu/edu_hw.h"
#include "sim/log.h"
#include "sim/model.h"

#define EDU_MAX_MSIX		64
#define EDU_MAX_DMA_DELAY_MS	10000
#define FACT_ZERO_FROM		34	/* 2^32 divides n! from 34 on */

struct edu {
	struct zn_vfu_dev *dev;
	/* options */
	uint64_t dma_mask;
	uint64_t dma_delay_ns;
	unsigned msix_vectors;
	/* registers */
	uint32_t addr4;
	uint32_t fact;
	uint32_t status;
	uint32_t irq_status;
	struct {
		uint64_t src, dst, cnt, cmd;
	} dma;
	uint64_t dma_due_ns;
	uint8_t buf[EDU_DMA_BUF_SIZE];
	/* the extension page */
	uint64_t *page;
	uint64_t db_seen, irq_db_seen;
	/* the page's counters: device state, back to 0 on reset (the ones
	 * below count for the daemon's whole life) */
	uint64_t page_reactions, page_dma_errors;
	/* counters */
	uint64_t reactions, irq_doorbells, irq_doorbells_dropped, dma_transfers, dma_errors,
		dma_range_errors, dma_clamped, factorials, interrupts;
};

static uint64_t page_load(struct edu *e, unsigned off)
{
	return __atomic_load_n(&e->page[off / 8], __ATOMIC_ACQUIRE);
}

static void page_store(struct edu *e, unsigned off, uint64_t v)
{
	__atomic_store_n(&e->page[off / 8], v, __ATOMIC_RELEASE);
}

static bool msi_in_use(struct edu *e)
{
	enum zn_vfu_irq_mode m = zn_vfu_irq_mode(e->dev);

	return m == ZN_VFU_IRQ_MSI || m == ZN_VFU_IRQ_MSIX;
}

/* edu_raise_irq: any raise with a non-zero status sends an MSI; INTx is a level. */
static void edu_raise(struct edu *e, uint32_t val)
{
	e->irq_status |= val;
	if (!e->irq_status)
		return;
	e->interrupts++;
	if (msi_in_use(e))
		zn_vfu_irq_notify(e->dev, 0);
	else
		zn_vfu_intx_set(e->dev, true);
}

static void edu_lower(struct edu *e, uint32_t val)
{
	e->irq_status &= ~val;
	if (!e->irq_status && !msi_in_use(e))
		zn_vfu_intx_set(e->dev, false);
}

static uint64_t clamp(struct edu *e, uint64_t addr)
{
	uint64_t res = addr & e->dma_mask;

	if (res != addr) {
		e->dma_clamped++;
		ZN_SIM_LOG_RL(ZN_SIM_LOG_WARN, "edu", "%s: clamping DMA %#llx to %#llx (dma_mask)",
			      zn_vfu_dev_name(e->dev), (unsigned long long)addr,
			      (unsigned long long)res);
	}
	return res;
}

static bool buf_range_ok(struct edu *e, uint64_t start, uint64_t size)
{
	uint64_t end = start + size;

	if (end >= start && start >= EDU_DMA_BUF_ADDR &&
	    end <= EDU_DMA_BUF_ADDR + EDU_DMA_BUF_SIZE)
		return true;
	e->dma_range_errors++;
	ZN_SIM_LOG_RL(ZN_SIM_LOG_WARN, "edu", "%s: DMA range %#llx+%#llx outside the buffer "
		      "[%#x, +%#x); not transferred", zn_vfu_dev_name(e->dev),
		      (unsigned long long)start, (unsigned long long)size, EDU_DMA_BUF_ADDR,
		      EDU_DMA_BUF_SIZE);
	return false;
}

static void edu_dma_run(struct edu *e)
{
	bool to_ram = e->dma.cmd & EDU_DMA_CMD_TO_RAM;
	int err = 0;

	if (!to_ram) {
		if (buf_range_ok(e, e->dma.dst, e->dma.cnt) && e->dma.cnt)
			err = zn_vfu_dma_read(e->dev, clamp(e, e->dma.src),
					      e->buf + (e->dma.dst - EDU_DMA_BUF_ADDR), e->dma.cnt);
	} else {
		if (buf_range_ok(e, e->dma.src, e->dma.cnt) && e->dma.cnt)
			err = zn_vfu_dma_write(e->dev, clamp(e, e->dma.dst),
					       e->buf + (e->dma.src - EDU_DMA_BUF_ADDR), e->dma.cnt);
	}
	if (err) {
		e->dma_errors++;
		if (e->page)
			page_store(e, EDU_DB_DMA_ERRORS, ++e->page_dma_errors);
	} else {
		e->dma_transfers++;
	}
	e->dma.cmd &= ~(uint64_t)EDU_DMA_CMD_RUN;
	if (e->dma.cmd & EDU_DMA_CMD_IRQ)
		edu_raise(e, EDU_IRQ_DMA);
}

static uint32_t factorial(uint32_t n)
{
	uint32_t r = 1;

	if (n >= FACT_ZERO_FROM)
		return 0;
	while (n > 0)
		r *= n--;
	return r;
}

static uint64_t mmio_read(struct edu *e, uint64_t addr)
{
	switch (addr) {
	case EDU_REG_ID:
		return EDU_ID_VALUE;
	case EDU_REG_LIVENESS:
		return e->addr4;
	case EDU_REG_FACT:
		return e->fact;
	case EDU_REG_STATUS:
		return e->status;
	case EDU_REG_IRQ_STATUS:
		return e->irq_status;
	case EDU_REG_DMA_SRC:
		return e->dma.src;
	case EDU_REG_DMA_DST:
		return e->dma.dst;
	case EDU_REG_DMA_CNT:
		return e->dma.cnt;
	case EDU_REG_DMA_CMD:
		return e->dma.cmd;
	}
	return ~0ull;
}

static void mmio_write(struct edu *e, uint64_t addr, uint64_t val)
{
	bool dma_busy = e->dma.cmd & EDU_DMA_CMD_RUN;

	switch (addr) {
	case EDU_REG_LIVENESS:
		e->addr4 = ~(uint32_t)val;
		break;
	case EDU_REG_FACT:
		if (e->status & EDU_STATUS_COMPUTING)
			break;
		e->fact = (uint32_t)val;
		e->status |= EDU_STATUS_COMPUTING;
		break;
	case EDU_REG_STATUS:
		if (val & EDU_STATUS_IRQFACT)
			e->status |= EDU_STATUS_IRQFACT;
		else
			e->status &= ~(uint32_t)EDU_STATUS_IRQFACT;
		break;
	case EDU_REG_IRQ_RAISE:
		edu_raise(e, (uint32_t)val);
		break;
	case EDU_REG_IRQ_ACK:
		edu_lower(e, (uint32_t)val);
		break;
	/* The DMA registers are frozen while a transfer runs. */
	case EDU_REG_DMA_SRC:
		if (!dma_busy)
			e->dma.src = val;
		break;
	case EDU_REG_DMA_DST:
		if (!dma_busy)
			e->dma.dst = val;
		break;
	case EDU_REG_DMA_CNT:
		if (!dma_busy)
			e->dma.cnt = val;
		break;
	case EDU_REG_DMA_CMD:
		if (!(val & EDU_DMA_CMD_RUN) || dma_busy)
			break;
		e->dma.cmd = val;
		e->dma_due_ns = zn_vfu_now_ns() + e->dma_delay_ns;
		break;
	}
}

static int edu_bar_access(void *opaque, unsigned bar, uint64_t off, void *buf, uint32_t count,
			  bool is_write)
{
	struct edu *e = opaque;
	uint64_t val = 0;

	if (bar == 2) {
		/* The rest of the MSI-X page: reserved, reads zero. */
		if (!is_write)
			memset(buf, 0, count);
		return 0;
	}
	if (bar != 0)
		return -EINVAL;
	if ((off < 0x80 && count != 4) || (off >= 0x80 && count != 4 && count != 8)) {
		if (!is_write)
			memset(buf, 0xff, count);
		return 0;
	}
	if (is_write) {
		memcpy(&val, buf, count);
		mmio_write(e, off, val);
	} else {
		val = mmio_read(e, off);
		memcpy(buf, &val, count);
	}
	return 0;
}

static int edu_poll(void *opaque, uint64_t now_ns, uint64_t *deadline_ns)
{
	struct edu *e = opaque;
	bool mem_on = zn_vfu_mem_enabled(e->dev);
	int work = 0;

	if (e->page && mem_on) {
		uint64_t v = page_load(e, EDU_DB_ECHO_DOORBELL);

		if (v != e->db_seen) {
			e->db_seen = v;
			e->reactions++;
			page_store(e, EDU_DB_REACTIONS, ++e->page_reactions);
			page_store(e, EDU_DB_ECHO, v);
			work++;
		}
		v = page_load(e, EDU_DB_IRQ_DOORBELL);
		if (v != e->irq_db_seen) {
			e->irq_db_seen = v;
			e->irq_doorbells++;
			if (zn_vfu_irq_notify(e->dev, (unsigned)(v & 0xffff)))
				e->irq_doorbells_dropped++;
			work++;
		}
	}
	if (e->status & EDU_STATUS_COMPUTING) {
		e->fact = factorial(e->fact);
		e->factorials++;
		e->status &= ~(uint32_t)EDU_STATUS_COMPUTING;
		if (e->status & EDU_STATUS_IRQFACT)
			edu_raise(e, EDU_IRQ_FACT);
		work++;
	}
	if (e->dma.cmd & EDU_DMA_CMD_RUN) {
		if (now_ns >= e->dma_due_ns) {
			edu_dma_run(e);
			work++;
		} else if (e->dma_due_ns < *deadline_ns) {
			*deadline_ns = e->dma_due_ns;
		}
	}
	return work;
}

static void edu_reset(void *opaque, enum zn_vfu_reset_why why)
{
	struct edu *e = opaque;

	(void)why;
	e->addr4 = 0;
	e->fact = 0;
	e->status = 0;
	e->irq_status = 0;
	memset(&e->dma, 0, sizeof(e->dma));
	memset(e->buf, 0, sizeof(e->buf));
	/* A new client gets new pages: look them up again. */
	e->page = zn_vfu_bar_mem(e->dev, 2);
	if (e->page)
		memset(e->page, 0, ZN_VFU_PAGE_SIZE);
	e->db_seen = e->irq_db_seen = 0;
	e->page_reactions = e->page_dma_errors = 0;
}

/* Stores made while memory decoding was off never reached the device: what
 * the page holds when it comes on is the starting point, not a doorbell. */
static void edu_command(void *opaque, uint16_t old_cmd, uint16_t new_cmd)
{
	struct edu *e = opaque;

	if (e->page && !(old_cmd & ZN_VFU_CMD_MEMORY) && (new_cmd & ZN_VFU_CMD_MEMORY)) {
		e->db_seen = page_load(e, EDU_DB_ECHO_DOORBELL);
		e->irq_db_seen = page_load(e, EDU_DB_IRQ_DOORBELL);
	}
}

static const struct zn_vfu_dev_ops edu_dev_ops = {
	.bar_access = edu_bar_access,
	.poll = edu_poll,
	.reset = edu_reset,
	.command = edu_command,
};

static int edu_create(struct zn_vfu_dev *dev, struct zn_sim_args *args, void **model,
		      char *err, size_t errlen)
{
	struct edu *e = calloc(1, sizeof(*e));
	uint64_t mask = EDU_DMA_MASK_DEFAULT, delay_ms = 0, msix = EDU_MSIX_VECTORS;
	struct zn_vfu_dev_desc d = {
		.vendor_id = EDU_VENDOR_ID,
		.device_id = EDU_DEVICE_ID,
		.subsys_vendor_id = EDU_SUBSYS_VENDOR_ID,
		.subsys_id = EDU_SUBSYS_ID,
		.class_code = EDU_CLASS_CODE,
		.revision = EDU_REVISION,
		.intx_pin = 1,
		.msi_vectors = EDU_MSI_VECTORS,
		.msix_table_bar = 2,
		.msix_table_offset = EDU_MSIX_TABLE,
		.msix_pba_bar = 2,
		.msix_pba_offset = EDU_MSIX_PBA,
		.bar[0] = { .size = EDU_BAR0_SIZE, .type = ZN_VFU_BAR_MEM32 },
		.bar[2] = { .size = EDU_BAR2_SIZE, .type = ZN_VFU_BAR_MEM32, .nr_areas = 1,
			    .areas = { { 0, ZN_VFU_PAGE_SIZE } } },
		.ops = &edu_dev_ops,
	};
	int ret;

	if (!e)
		return -ENOMEM;
	if ((ret = zn_sim_arg_u64(args, "dma_mask", 1, UINT64_MAX, &mask, err, errlen)) ||
	    (ret = zn_sim_arg_u64(args, "dma_delay_ms", 0, EDU_MAX_DMA_DELAY_MS, &delay_ms, err,
				  errlen)) ||
	    (ret = zn_sim_arg_u64(args, "msix", 0, EDU_MAX_MSIX, &msix, err, errlen)))
		goto err;
	e->dev = dev;
	e->dma_mask = mask;
	e->dma_delay_ns = delay_ms * 1000000ull;
	e->msix_vectors = (unsigned)msix;
	d.msix_vectors = (uint16_t)msix;
	d.opaque = e;
	ret = zn_vfu_dev_realize(dev, &d);
	if (ret) {
		snprintf(err, errlen, "edu: cannot realize the device (%s)", strerror(-ret));
		goto err;
	}
	*model = e;
	return 0;
err:
	free(e);
	return ret;
}

static void edu_destroy(void *model)
{
	free(model);
}

static void edu_stats(void *model, zn_vfu_emit_fn emit, void *ctx)
{
	struct edu *e = model;

	emit(ctx, "doorbell_reactions", e->reactions);
	emit(ctx, "irq_doorbells", e->irq_doorbells);
	emit(ctx, "irq_doorbells_dropped", e->irq_doorbells_dropped);
	emit(ctx, "dma_transfers", e->dma_transfers);
	emit(ctx, "dma_errors", e->dma_errors);
	emit(ctx, "dma_range_errors", e->dma_range_errors);
	emit(ctx, "dma_clamped", e->dma_clamped);
	emit(ctx, "factorials", e->factorials);
	emit(ctx, "interrupts", e->interrupts);
}

const struct zn_sim_model_ops zn_sim_model_edu = {
	.name = "edu",
	.summary = "QEMU's edu device (1234:11e8) + zcnic doorbell page and MSI-X in BAR2",
	.options = "  dma_mask=N      DMA address mask (default 0xfffffff, 28 bits as QEMU)\n"
		   "  dma_delay_ms=N  run each DMA N ms after its start (default 0; QEMU: 100)\n"
		   "  msix=N          MSI-X vectors in BAR2, 0-64 (default 4; 0: no MSI-X)\n",
	.create = edu_create,
	.destroy = edu_destroy,
	.stats = edu_stats,
};
