/* SPDX-License-Identifier: MIT */
/*
 * PCI configuration space, region 7: a conventional 256-byte type-0 header
 * (PCI Local Bus Specification 3.0, chapter 6; offsets as in Linux
 * include/uapi/linux/pci_regs.h) with MSI and MSI-X capabilities.
 *
 * Each byte has a write mask and a write-1-to-clear mask; a write keeps the
 * read-only bits, replaces the writable ones and clears the W1C ones that
 * are written as 1. BAR sizing falls out of the masks: the address bits
 * below the BAR size are read-only zero, so writing all-ones reads back the
 * size mask with the type bits, as on real hardware.
 *
 * Capability list (QEMU's edu has MSI at 0x40), each 16-byte aligned after
 * the one before:
 *   0x40  MSI    14 bytes: 64-bit address, no per-vector masking
 *   0x50  MSI-X  12 bytes (0x40 if there is no MSI)
 *   next  PCI Express, 0x3c bytes (version 2, endpoint), if desc.pcie
 * A PCI Express function has a 4 KiB config space (PCI Express Base Spec
 * 7.2.2); its extended capabilities start at 0x100 (7.6.3):
 *   0x100 Device Serial Number, 12 bytes (7.9.3), if desc.dsn != 0;
 *         otherwise the header there is all zeros: "no extended capability".
 */
#include <string.h>

#include "sim/vfu/priv.h"

static void put_mask32(uint8_t *m, uint32_t v)
{
	vfu_put32(m, v);
}

static int build_bars(struct zn_vfu_dev *dev)
{
	for (unsigned i = 0; i < ZN_VFU_NUM_BARS; i++) {
		const struct zn_vfu_bar *b = &dev->desc.bar[i];
		unsigned off = PCI_BASE_ADDRESS_0 + 4 * i;
		uint32_t flags = 0;

		if (!b->size)
			continue;
		switch (b->type) {
		case ZN_VFU_BAR_IO:
			flags = PCI_BASE_ADDRESS_SPACE_IO;
			put_mask32(&dev->cfg_wmask[off], (uint32_t)~(b->size - 1) & ~0x3u);
			break;
		case ZN_VFU_BAR_MEM64:
			flags = PCI_BASE_ADDRESS_MEM_TYPE_64;
			put_mask32(&dev->cfg_wmask[off + 4], (uint32_t)(~(b->size - 1) >> 32));
			/* fall through */
		case ZN_VFU_BAR_MEM32:
			if (b->prefetch)
				flags |= PCI_BASE_ADDRESS_MEM_PREFETCH;
			put_mask32(&dev->cfg_wmask[off], (uint32_t)~(b->size - 1) & ~0xfu);
			break;
		}
		vfu_put32(&dev->cfg_reset[off], flags);
	}
	return 0;
}

static unsigned log2u(unsigned v)
{
	unsigned l = 0;

	while (v > 1) {
		v >>= 1;
		l++;
	}
	return l;
}

/* PCI Express capability, version 2, endpoint (PCI Express Base Spec 7.5.3):
 * 256-byte max payload, x16 at 16 GT/s. Control registers hold what the
 * driver writes (they steer nothing here); status error bits are W1C. */
static void build_pcie_cap(struct zn_vfu_dev *dev, unsigned o)
{
	uint8_t *c = dev->cfg_reset, *w = dev->cfg_wmask;

	c[o] = PCI_CAP_ID_EXP;
	vfu_put16(&c[o + PCI_EXP_FLAGS], PCI_EXP_FLAGS_V2 | PCI_EXP_TYPE_ENDPOINT);
	/* max payload 256 B (code 1), role-based error reporting (bit 15) */
	vfu_put32(&c[o + PCI_EXP_DEVCAP], 0x1u | 0x8000u);
	/* error reporting, relaxed ordering, MPS, ext tag, phantom, aux, no
	 * snoop, MRRS; not bit 15 (FLR is not advertised) */
	vfu_put16(&w[o + PCI_EXP_DEVCTL], 0x7fff);
	vfu_put16(&c[o + PCI_EXP_DEVCTL], 0x2810);	/* MRRS 512, no snoop, relaxed */
	vfu_put16(&dev->cfg_w1c[o + PCI_EXP_DEVSTA], 0x000f);
	/* max speed 16 GT/s (code 4), width x16 (bits 9:4) */
	vfu_put32(&c[o + PCI_EXP_LNKCAP], 0x4u | 16u << 4);
	vfu_put16(&w[o + PCI_EXP_LNKCTL], 0x03cb);	/* ASPM, RCB, clocks, width */
	vfu_put16(&c[o + PCI_EXP_LNKSTA], 0x4 | 16 << 4);
	vfu_put16(&w[o + PCI_EXP_DEVCTL2], 0x001f);	/* completion timeout */
	vfu_put32(&c[o + PCI_EXP_LNKCAP2], 0x1e);	/* 2.5, 5, 8, 16 GT/s */
	vfu_put16(&w[o + PCI_EXP_LNKCTL2], 0x000f);	/* target link speed */
	vfu_put16(&c[o + PCI_EXP_LNKCTL2], 0x4);
}

static void build_ext_caps(struct zn_vfu_dev *dev)
{
	uint8_t *c = dev->cfg_reset + PCI_EXT_CAP_OFF;
	uint64_t dsn = dev->desc.dsn;

	if (!dsn)
		return;
	/* header: ID 15:0, version 19:16, next offset 31:20 (none) */
	vfu_put32(c, PCI_EXT_CAP_ID_DSN | 1u << 16);
	vfu_put32(c + 4, (uint32_t)dsn);
	vfu_put32(c + 8, (uint32_t)(dsn >> 32));
}

int vfu_pci_build(struct zn_vfu_dev *dev)
{
	const struct zn_vfu_dev_desc *d = &dev->desc;
	uint8_t *c = dev->cfg_reset, *w = dev->cfg_wmask;
	uint8_t *prev_next = &c[PCI_CAPABILITY_LIST];
	unsigned next_free = PCI_MSI_CAP_OFF;

	memset(dev->cfg_reset, 0, sizeof(dev->cfg_reset));
	memset(dev->cfg_wmask, 0, sizeof(dev->cfg_wmask));
	memset(dev->cfg_w1c, 0, sizeof(dev->cfg_w1c));

	vfu_put16(&c[PCI_VENDOR_ID], d->vendor_id);
	vfu_put16(&c[PCI_DEVICE_ID], d->device_id);
	vfu_put16(&w[PCI_COMMAND], PCI_COMMAND_IO | PCI_COMMAND_MEMORY | PCI_COMMAND_MASTER |
				   PCI_COMMAND_PARITY | PCI_COMMAND_SERR |
				   PCI_COMMAND_INTX_DISABLE);
	vfu_put16(&dev->cfg_w1c[PCI_STATUS], PCI_STATUS_W1C);
	c[PCI_REVISION_ID] = d->revision;
	c[PCI_CLASS_PROG] = (uint8_t)d->class_code;
	c[PCI_CLASS_PROG + 1] = (uint8_t)(d->class_code >> 8);
	c[PCI_CLASS_PROG + 2] = (uint8_t)(d->class_code >> 16);
	w[PCI_CACHE_LINE_SIZE] = 0xff;
	w[PCI_LATENCY_TIMER] = 0xff;
	c[PCI_HEADER_TYPE] = 0;		/* type 0, single function */
	vfu_put16(&c[PCI_SUBSYSTEM_VENDOR_ID], d->subsys_vendor_id);
	vfu_put16(&c[PCI_SUBSYSTEM_ID], d->subsys_id);
	w[PCI_INTERRUPT_LINE] = 0xff;
	c[PCI_INTERRUPT_PIN] = d->intx_pin;
	build_bars(dev);

	if (d->msi_vectors) {
		unsigned o = next_free;

		dev->msi_cap = (uint8_t)o;
		*prev_next = (uint8_t)o;
		c[o] = PCI_CAP_ID_MSI;
		prev_next = &c[o + 1];
		/* Multiple Message Capable in bits 3:1, 64-bit capable */
		vfu_put16(&c[o + 2], (uint16_t)(log2u(d->msi_vectors) << 1) | PCI_MSI_FLAGS_64BIT);
		w[o + 2] = 0x71;	/* enable, Multiple Message Enable */
		put_mask32(&w[o + 4], 0xfffffffc);	/* address, dword aligned */
		put_mask32(&w[o + 8], 0xffffffff);	/* upper address */
		vfu_put16(&w[o + 12], 0xffff);		/* data */
		next_free = (o + PCI_MSI_CAP_SIZE + 15) & ~15u;
	}
	if (d->msix_vectors) {
		unsigned o = next_free;

		dev->msix_cap = (uint8_t)o;
		*prev_next = (uint8_t)o;
		c[o] = PCI_CAP_ID_MSIX;
		prev_next = &c[o + 1];
		vfu_put16(&c[o + 2], (uint16_t)(d->msix_vectors - 1));	/* table size N-1 */
		w[o + 3] = (PCI_MSIX_FLAGS_ENABLE | PCI_MSIX_FLAGS_MASKALL) >> 8;
		vfu_put32(&c[o + 4], d->msix_table_offset | d->msix_table_bar);
		vfu_put32(&c[o + 8], d->msix_pba_offset | d->msix_pba_bar);
		next_free = (o + PCI_MSIX_CAP_SIZE + 15) & ~15u;
	}
	if (d->pcie) {
		unsigned o = next_free;

		dev->pcie_cap = (uint8_t)o;
		*prev_next = (uint8_t)o;
		build_pcie_cap(dev, o);
		prev_next = &c[o + 1];
		build_ext_caps(dev);
	}
	dev->cfg_size = d->pcie ? ZN_VFU_CFG_SIZE_PCIE : ZN_VFU_CFG_SIZE;
	*prev_next = 0;
	if (dev->msi_cap || dev->msix_cap || dev->pcie_cap)
		vfu_put16(&c[PCI_STATUS], PCI_STATUS_CAP_LIST);
	vfu_pci_reset(dev);
	return 0;
}

void vfu_pci_reset(struct zn_vfu_dev *dev)
{
	memcpy(dev->cfg, dev->cfg_reset, sizeof(dev->cfg));
}

uint16_t vfu_pci_cmd(const struct zn_vfu_dev *dev)
{
	return vfu_get16(&dev->cfg[PCI_COMMAND]);
}

bool zn_vfu_mem_enabled(const struct zn_vfu_dev *dev)
{
	return vfu_pci_cmd(dev) & PCI_COMMAND_MEMORY;
}

bool zn_vfu_bus_master(const struct zn_vfu_dev *dev)
{
	return vfu_pci_cmd(dev) & PCI_COMMAND_MASTER;
}

void vfu_pci_set_status(struct zn_vfu_dev *dev, uint16_t bits, bool on)
{
	uint16_t st = vfu_get16(&dev->cfg[PCI_STATUS]);

	vfu_put16(&dev->cfg[PCI_STATUS], on ? st | bits : st & (uint16_t)~bits);
}

void vfu_pci_read(struct zn_vfu_dev *dev, uint64_t off, void *buf, uint32_t count)
{
	memcpy(buf, &dev->cfg[off], count);
}

void vfu_pci_write(struct zn_vfu_dev *dev, uint64_t off, const void *buf, uint32_t count)
{
	const uint8_t *v = buf;
	uint16_t old_cmd = vfu_pci_cmd(dev);

	for (uint32_t i = 0; i < count; i++) {
		uint64_t o = off + i;
		uint8_t b = (uint8_t)((dev->cfg[o] & ~dev->cfg_wmask[o]) | (v[i] & dev->cfg_wmask[o]));

		dev->cfg[o] = (uint8_t)(b & ~(v[i] & dev->cfg_w1c[o]));
	}
	if (vfu_pci_cmd(dev) != old_cmd) {
		uint16_t cmd = vfu_pci_cmd(dev);

		ZN_SIM_DEBUG("pci", "%s: COMMAND %#06x -> %#06x (memory %s, bus master %s)",
			     dev->name, old_cmd, cmd, cmd & PCI_COMMAND_MEMORY ? "on" : "off",
			     cmd & PCI_COMMAND_MASTER ? "on" : "off");
		vfu_intx_reevaluate(dev, old_cmd);
		if (dev->desc.ops && dev->desc.ops->command)
			dev->desc.ops->command(dev->desc.opaque, old_cmd, cmd);
	}
}
