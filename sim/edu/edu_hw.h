/* SPDX-License-Identifier: MIT */
/*
 * QEMU's "edu" educational PCI device, as zn-nicsim models it.
 *
 * Source: QEMU docs/specs/edu.rst and hw/misc/edu.c (facts only); checked on
 * real QEMU 7.2 with kernel VFIO (scripts/test-vfio.sh).
 * hw-docs/vfio-user.md describes the model and its zcnic extension (BAR2).
 */
#ifndef ZN_SIM_EDU_HW_H
#define ZN_SIM_EDU_HW_H

#define EDU_VENDOR_ID		0x1234	/* PCI_VENDOR_ID_QEMU */
#define EDU_DEVICE_ID		0x11e8
#define EDU_REVISION		0x10
#define EDU_CLASS_CODE		0x00ff00	/* PCI_CLASS_OTHERS (0xff) as class_id */
#define EDU_SUBSYS_VENDOR_ID	0x1af4	/* QEMU's default subsystem IDs */
#define EDU_SUBSYS_ID		0x1100

/* BAR0: 1 MiB, 32-bit non-prefetchable memory, every register trapped.
 * Below 0x80 only 4-byte accesses, from 0x80 4 or 8 bytes; any other size
 * reads all-ones and is ignored on write, as are unknown offsets. */
#define EDU_BAR0_SIZE		(1u << 20)
#define EDU_REG_ID		0x00	/* RO 0xRRrr00ed: version 1.0 */
#define  EDU_ID_VALUE		0x010000edu
#define EDU_REG_LIVENESS	0x04	/* RW: reads back ~written */
#define EDU_REG_FACT		0x08	/* RW: n -> n! (32-bit), when not computing */
#define EDU_REG_STATUS		0x20
#define  EDU_STATUS_COMPUTING	0x01	/* RO */
#define  EDU_STATUS_IRQFACT	0x80	/* RW: interrupt when the factorial is done */
#define EDU_REG_IRQ_STATUS	0x24	/* RO */
#define EDU_REG_IRQ_RAISE	0x60	/* WO: status |= value, interrupt */
#define EDU_REG_IRQ_ACK		0x64	/* WO: status &= ~value */
#define EDU_REG_DMA_SRC		0x80	/* RW, 64-bit */
#define EDU_REG_DMA_DST		0x88
#define EDU_REG_DMA_CNT		0x90
#define EDU_REG_DMA_CMD		0x98
#define  EDU_DMA_CMD_RUN	0x1	/* start; clears when done */
#define  EDU_DMA_CMD_TO_RAM	0x2	/* direction: 0 RAM -> edu, 1 edu -> RAM */
#define  EDU_DMA_CMD_IRQ	0x4	/* raise EDU_IRQ_DMA when done */
#define EDU_IRQ_FACT		0x001
#define EDU_IRQ_DMA		0x100
#define EDU_DMA_BUF_ADDR	0x40000	/* the device-side address of its buffer */
#define EDU_DMA_BUF_SIZE	4096
#define EDU_DMA_MASK_DEFAULT	((1ull << 28) - 1)	/* addresses are clamped to it */

/* MSI: 1 vector (capability at 0x40), INTx on INTA#, as QEMU's edu. */
#define EDU_MSI_VECTORS		1

/* zcnic extension, not in QEMU's edu: BAR2, 8 KiB, 32-bit memory.
 *   page 0 (0x0000-0x0fff): mmap-able (a sparse area), polled by the model
 *   page 1 (0x1000-0x1fff): trapped: MSI-X table at 0x1000, PBA at 0x1800 */
#define EDU_BAR2_SIZE		0x2000
#define EDU_DB_ECHO_DOORBELL	0x00	/* u64 written by the driver */
#define EDU_DB_IRQ_DOORBELL	0x08	/* u64: a new value raises vector (v & 0xffff) */
#define EDU_DB_ECHO		0x40	/* u64: the model copies each new doorbell here */
#define EDU_DB_REACTIONS	0x48	/* u64: doorbell values seen */
#define EDU_DB_DMA_ERRORS	0x50	/* u64: DMA transfers that faulted */
#define EDU_MSIX_TABLE		0x1000
#define EDU_MSIX_PBA		0x1800
#define EDU_MSIX_VECTORS	4	/* default; option msix=N, 0..64 */

#endif
