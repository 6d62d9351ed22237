/* SPDX-License-Identifier: MIT */
/*
 * edu_test: core/bus and core/mem driving QEMU's "edu" teaching device.
 *
 *   edu_test DEVICE [huge|small]
 *
 * DEVICE is a PCI address (kernel VFIO) or vfio-user:PATH. The DMA region
 * uses 2 MiB hugepages with "huge" (failing without them), 4 KiB pages with
 * "small", and whatever core/mem picks by default.
 *
 * The same checks run against the real Linux VFIO stack (make test-vfio: a
 * QEMU guest with a virtual IOMMU) and against zn-nicsim's edu model over
 * vfio-user (tests/integration/vfio_user.sh): open, device/region info,
 * config space and bus master, BAR0 registers, the factorial, DMA in both
 * directions through an IOVA below edu's 28-bit DMA mask, MSI on an eventfd
 * (raised and DMA-done), a DMA after DMA unmap that must not land, teardown.
 *
 * edu facts (QEMU docs/specs/edu.rst, hw/misc/edu.c; see hw-docs/vfio.md, "Tested on a real kernel"):
 * BAR0 registers, 4-byte access below 0x80, 4 or 8 bytes from 0x80 on.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <unistd.h>

#include "zcnic/bus.h"
#include "zcnic/mem.h"
#include "prog_tap.h"

#define EDU_VENDOR	0x1234
#define EDU_DEVICE	0x11e8
#define EDU_REG_ID	0x00	/* 0xRRrr00ed: major, minor, 0, 0xed */
#define EDU_REG_LIVE	0x04	/* reads back the bitwise NOT of what was written */
#define EDU_REG_FACT	0x08	/* write n; reads n! once the status says done */
#define EDU_REG_STATUS	0x20
#define EDU_STATUS_COMPUTING 0x1
#define EDU_REG_IRQ_STATUS 0x24
#define EDU_REG_IRQ_RAISE 0x60
#define EDU_REG_IRQ_ACK	0x64
#define EDU_REG_DMA_SRC	0x80
#define EDU_REG_DMA_DST	0x88
#define EDU_REG_DMA_CNT	0x90
#define EDU_REG_DMA_CMD	0x98
#define EDU_DMA_START	0x1	/* clears itself when the transfer is done */
#define EDU_DMA_TO_RAM	0x2	/* 0: RAM -> edu buffer, 1: edu buffer -> RAM */
#define EDU_DMA_IRQ	0x4	/* raise IRQ status 0x100 when done */
#define EDU_IRQ_DMA	0x100
#define EDU_BUF_ADDR	0x40000	/* device address of edu's 4 KiB buffer */
#define EDU_BUF_SIZE	4096
/*
 * Bytes per transfer. Not the whole buffer: QEMU 7.2's edu takes a transfer
 * that ends exactly at the buffer's end for out of bounds and aborts the VM
 * (range check off by one, QEMU issue 1254, fixed in 8.0).
 */
#define EDU_DMA_LEN	4032
_Static_assert(EDU_DMA_LEN < EDU_BUF_SIZE, "edu transfers must end inside its buffer");

#define PCI_VENDOR_ID	0x00
#define PCI_DEVICE_ID	0x02
#define PCI_COMMAND	0x04
#define PCI_COMMAND_MEMORY 0x2
#define PCI_COMMAND_MASTER 0x4
#define VFIO_IRQ_INFO_EVENTFD 0x1

/* edu masks DMA addresses to 28 bits: the IOVA must stay below 256 MiB. */
#define TEST_IOVA	0x200000ull
#define TEST_PAGES	3		/* source, destination, guard */
#define PAGE		4096u
#define DMA_TIMEOUT_MS	3000		/* edu DMA runs 100 ms (virtual) after start */
#define IRQ_TIMEOUT_MS	3000
#define LIVE_PATTERN	0x12345678u
#define FACT_N		10
#define FACT_RESULT	3628800u	/* 10! */
#define UNMAPPED_FILL	0xa5

struct edu {
	unsigned mem_flags;
	struct zn_bus_dev *d;
	struct zn_dma_region *r;
	int efd;
	bool mapped;
};

static int edu_dma(struct edu *e, uint64_t src, uint64_t dst, uint32_t cmd)
{
	if (zn_bus_write64(e->d, 0, EDU_REG_DMA_SRC, src) ||
	    zn_bus_write64(e->d, 0, EDU_REG_DMA_DST, dst) ||
	    zn_bus_write64(e->d, 0, EDU_REG_DMA_CNT, EDU_DMA_LEN) ||
	    zn_bus_write64(e->d, 0, EDU_REG_DMA_CMD, cmd | EDU_DMA_START))
		return -EIO;
	return tap_wait_reg(e->d, 0, EDU_REG_DMA_CMD, 8, EDU_DMA_START, 0, DMA_TIMEOUT_MS, NULL);
}

static void fill(uint8_t *p, size_t len, uint32_t seed)
{
	for (size_t i = 0; i < len; i++) {
		seed = seed * 1103515245u + 12345u;
		p[i] = (uint8_t)(seed >> 16);
	}
}

static void check_open_and_info(struct edu *e)
{
	struct zn_device_info di;
	struct zn_region_info ri;
	uint16_t vendor = 0, device = 0, cmd = 0;
	int rc;

	rc = e->d->ops->get_device_info(e->d, &di);
	tap_check(rc == 0 && di.num_regions > ZN_BUS_CONFIG && di.num_irqs > ZN_IRQ_MSI,
		  "device info: rc %d, flags 0x%x, %u regions, %u irq indexes",
		  rc, di.flags, di.num_regions, di.num_irqs);
	rc = e->d->ops->get_region_info(e->d, ZN_BUS_BAR0, &ri);
	tap_check(rc == 0 && ri.size >= 0x100 &&
		  (ri.flags & (ZN_REGION_F_READ | ZN_REGION_F_WRITE)) ==
			  (ZN_REGION_F_READ | ZN_REGION_F_WRITE),
		  "BAR0 region info: rc %d, size 0x%" PRIx64 ", flags 0x%x",
		  rc, ri.size, ri.flags);
	rc = zn_bus_cfg_read16(e->d, PCI_VENDOR_ID, &vendor);
	rc = rc ? rc : zn_bus_cfg_read16(e->d, PCI_DEVICE_ID, &device);
	tap_check(rc == 0 && vendor == EDU_VENDOR && device == EDU_DEVICE,
		  "config space: vendor 0x%04x device 0x%04x (want %04x:%04x)",
		  vendor, device, EDU_VENDOR, EDU_DEVICE);
	rc = zn_bus_enable_bus_master(e->d);
	rc = rc ? rc : zn_bus_cfg_read16(e->d, PCI_COMMAND, &cmd);
	tap_check(rc == 0 && (cmd & (PCI_COMMAND_MEMORY | PCI_COMMAND_MASTER)) ==
				     (PCI_COMMAND_MEMORY | PCI_COMMAND_MASTER),
		  "bus master enable: rc %d, command 0x%04x", rc, cmd);
}

static bool check_registers(struct edu *e)
{
	void *va = NULL;
	uint64_t size = 0;
	uint32_t id = 0, id_trapped = 0, live = 0;
	int rc;

	rc = zn_bus_map_bar(e->d, 0, &va, &size);
	if (!tap_check(rc == 0, "map BAR0: rc %d, %s, size 0x%" PRIx64, rc,
		       va ? "mmapped" : "trapped access", size))
		return false;
	rc = zn_bus_read32(e->d, 0, EDU_REG_ID, &id);
	tap_check(rc == 0 && (id & 0xffff) == 0x00ed,
		  "ID register 0x%08x (0xRRrr00ed, version %u.%u)", id, id >> 24,
		  (id >> 16) & 0xff);
	/* The same register through the region file, not the mapping. */
	rc = e->d->ops->region_read(e->d, ZN_BUS_BAR0, EDU_REG_ID, &id_trapped, 4);
	tap_check(rc == 0 && id_trapped == id,
		  "ID register through region read: rc %d, 0x%08x", rc, id_trapped);
	rc = zn_bus_write32(e->d, 0, EDU_REG_LIVE, LIVE_PATTERN);
	rc = rc ? rc : zn_bus_read32(e->d, 0, EDU_REG_LIVE, &live);
	tap_check(rc == 0 && live == (uint32_t)~LIVE_PATTERN,
		  "liveness: wrote 0x%08x, read 0x%08x (want 0x%08x)",
		  LIVE_PATTERN, live, (uint32_t)~LIVE_PATTERN);
	return true;
}

/* The factorial unit: write n, wait for "computing" to clear, read n!. */
static void check_factorial(struct edu *e)
{
	uint64_t st = 0;
	uint32_t v = 0;
	int rc = zn_bus_write32(e->d, 0, EDU_REG_FACT, FACT_N);

	rc = rc ? rc : tap_wait_reg(e->d, 0, EDU_REG_STATUS, 4, EDU_STATUS_COMPUTING, 0,
				    DMA_TIMEOUT_MS, &st);
	rc = rc ? rc : zn_bus_read32(e->d, 0, EDU_REG_FACT, &v);
	tap_check(rc == 0 && v == FACT_RESULT, "factorial: %u! reads %u (want %u), status 0x%"
		  PRIx64 ", rc %d", FACT_N, v, FACT_RESULT, st, rc);
}

static bool check_dma_map(struct edu *e)
{
	int rc = zn_dma_region_alloc("edu-test", TEST_PAGES * PAGE, -1, e->mem_flags, &e->r);

	if (!tap_check(rc == 0, "DMA region alloc%s: rc %d",
		       e->mem_flags & ZN_DMA_HUGE_ONLY ? " (2 MiB hugepages)" :
		       e->mem_flags & ZN_DMA_NO_HUGE ? " (4 KiB pages)" : "", rc))
		return false;
	tap_diag("DMA region: %zu bytes of %zu KiB pages%s", e->r->len, e->r->page_size >> 10,
		 e->r->hugetlb ? " (hugetlb)" : "");
	rc = zn_dma_region_set_iova(e->r, TEST_IOVA);
	if (!tap_check(rc == 0 && e->r->iova == TEST_IOVA,
		       "region IOVA 0x%llx (below edu's 28-bit DMA mask): rc %d",
		       TEST_IOVA, rc))
		return false;
	rc = zn_bus_dma_map(e->d, e->r);
	e->mapped = rc == 0;
	return tap_check(rc == 0, "DMA map %zu bytes at IOVA 0x%" PRIx64 ": rc %d",
			 e->r->len, e->r->iova, rc);
}

/* RAM page 0 -> edu buffer -> RAM page 1, optionally with the DMA-done IRQ. */
static void check_dma_round_trip(struct edu *e, uint32_t seed, bool irq)
{
	static const uint8_t zero[PAGE];
	uint8_t *src = e->r->va, *dst = src + PAGE;
	uint32_t flag = irq ? EDU_DMA_IRQ : 0, status = 0;
	const char *how = irq ? "with IRQ" : "polled";
	int64_t n;
	int rc;

	fill(src, PAGE, seed);
	memset(dst, 0, PAGE);
	rc = edu_dma(e, e->r->iova, EDU_BUF_ADDR, flag);
	tap_check(rc == 0, "DMA RAM -> edu (%s) completes: rc %d", how, rc);
	if (irq) {
		n = tap_eventfd_wait(e->efd, IRQ_TIMEOUT_MS);
		rc = zn_bus_read32(e->d, 0, EDU_REG_IRQ_STATUS, &status);
		tap_check(n == 1 && rc == 0 && (status & EDU_IRQ_DMA),
			  "DMA-done MSI on the eventfd (count %" PRId64 "), status 0x%x",
			  n, status);
		zn_bus_write32(e->d, 0, EDU_REG_IRQ_ACK, EDU_IRQ_DMA);
	}
	rc = edu_dma(e, EDU_BUF_ADDR, e->r->iova + PAGE, EDU_DMA_TO_RAM | flag);
	tap_check(rc == 0, "DMA edu -> RAM (%s) completes: rc %d", how, rc);
	if (irq) {
		n = tap_eventfd_wait(e->efd, IRQ_TIMEOUT_MS);
		tap_check(n == 1, "DMA-done MSI for the second transfer (count %" PRId64 ")", n);
		zn_bus_write32(e->d, 0, EDU_REG_IRQ_ACK, EDU_IRQ_DMA);
	}
	tap_check(memcmp(src, dst, EDU_DMA_LEN) == 0,
		  "DMA round trip (%s): %u bytes intact", how, EDU_DMA_LEN);
	tap_check(!memcmp(dst + EDU_DMA_LEN, zero, PAGE - EDU_DMA_LEN),
		  "DMA round trip (%s): nothing written past the %u bytes", how, EDU_DMA_LEN);
}

static bool check_msi_setup(struct edu *e)
{
	struct zn_irq_info ii;
	int rc = e->d->ops->get_irq_info(e->d, ZN_IRQ_MSI, &ii);

	tap_check(rc == 0 && ii.count >= 1 && (ii.flags & VFIO_IRQ_INFO_EVENTFD),
		  "MSI irq info: rc %d, count %u, flags 0x%x", rc, ii.count, ii.flags);
	e->efd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
	rc = e->efd < 0 ? -errno : zn_bus_set_irqs(e->d, ZN_IRQ_MSI, 0, 1, &e->efd);
	return tap_check(rc == 0, "MSI vector 0 -> eventfd: rc %d", rc);
}

static void check_msi_raise(struct edu *e)
{
	uint32_t status = 0;
	int64_t n;

	tap_check(tap_eventfd_wait(e->efd, 0) == 0, "no MSI before one is raised");
	zn_bus_write32(e->d, 0, EDU_REG_IRQ_RAISE, 0x1);
	n = tap_eventfd_wait(e->efd, IRQ_TIMEOUT_MS);
	zn_bus_read32(e->d, 0, EDU_REG_IRQ_STATUS, &status);
	tap_check(n == 1 && status == 0x1,
		  "raised MSI reaches the eventfd (count %" PRId64 "), status 0x%x", n, status);
	zn_bus_write32(e->d, 0, EDU_REG_IRQ_ACK, 0x1);
	zn_bus_read32(e->d, 0, EDU_REG_IRQ_STATUS, &status);
	tap_check(status == 0, "IRQ acknowledged: status 0x%x", status);
}

/* After DMA unmap the IOMMU (or the vfio-user server) must block the device. */
static void check_unmapped_dma_blocked(struct edu *e)
{
	uint8_t *dst = (uint8_t *)e->r->va + PAGE;
	size_t intact = 0;
	int rc = zn_bus_dma_unmap(e->d, e->r);

	e->mapped = rc != 0;
	tap_check(rc == 0, "DMA unmap: rc %d", rc);
	/* edu's buffer still holds the last pattern; RAM gets something else. */
	memset(dst, UNMAPPED_FILL, PAGE);
	rc = edu_dma(e, EDU_BUF_ADDR, TEST_IOVA + PAGE, EDU_DMA_TO_RAM);
	tap_check(rc == 0, "DMA to the unmapped IOVA ends (edu does not report faults): rc %d",
		  rc);
	while (intact < PAGE && dst[intact] == UNMAPPED_FILL)
		intact++;
	tap_check(intact == PAGE, "the DMA after unmap did not reach memory (%zu of %u bytes intact)",
		  intact, PAGE);
}

int main(int argc, char **argv)
{
	struct edu e = { .efd = -1 };
	int rc;

	if (argc == 3 && !strcmp(argv[2], "huge"))
		e.mem_flags = ZN_DMA_HUGE_ONLY;
	else if (argc == 3 && !strcmp(argv[2], "small"))
		e.mem_flags = ZN_DMA_NO_HUGE;
	else if (argc != 2) {
		fprintf(stderr, "usage: %s DEVICE [huge|small]   (DEVICE: PCI address or "
			"vfio-user:PATH)\n", argv[0]);
		return 2;
	}
	setvbuf(stdout, NULL, _IOLBF, 0);
	tap_diag("edu_test %s", argv[1]);
	rc = zn_bus_open(argv[1], NULL, &e.d);
	if (!tap_check(rc == 0, "open %s: rc %d", argv[1], rc))
		return tap_done("edu_test");
	check_open_and_info(&e);
	if (!check_registers(&e))
		goto out;
	check_factorial(&e);
	if (!check_dma_map(&e))
		goto out;
	check_dma_round_trip(&e, 1, false);
	if (check_msi_setup(&e)) {
		check_msi_raise(&e);
		check_dma_round_trip(&e, 2, true);
	}
	check_unmapped_dma_blocked(&e);
	if (e.efd >= 0) {
		rc = zn_bus_set_irqs(e.d, ZN_IRQ_MSI, 0, 0, NULL);
		tap_check(rc == 0, "MSI disabled: rc %d", rc);
	}
out:
	if (e.mapped)
		zn_bus_dma_unmap(e.d, e.r);
	zn_bus_close(e.d);
	if (e.efd >= 0)
		close(e.efd);
	zn_dma_region_free(e.r);
	/* Kernel VFIO: a group fd still held would make this open fail (EBUSY). */
	rc = zn_bus_open(argv[1], NULL, &e.d);
	tap_check(rc == 0, "teardown complete: the device opens again: rc %d", rc);
	if (rc == 0)
		zn_bus_close(e.d);
	return tap_done("edu_test");
}
