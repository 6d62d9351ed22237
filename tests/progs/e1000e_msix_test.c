/* SPDX-License-Identifier: MIT */
/*
 * e1000e_msix_test: MSI-X through core/bus, on QEMU's e1000e (an Intel
 * 82574L), the interrupt path the NIC drivers use: one eventfd per vector,
 * causes routed to vectors by the device, masking at the device.
 *
 *   e1000e_msix_test DEVICE      (PCI address, or vfio-user:PATH)
 *
 * A cause is raised by software through the Interrupt Cause Set register;
 * IVAR maps the queue causes and "other" causes to MSI-X vectors. Register
 * facts from Linux drivers/net/ethernet/intel/e1000e/{regs.h,defines.h,82571.h,
 * netdev.c e1000_configure_msix} and QEMU hw/net/e1000e_core.c
 * (e1000e_msix_notify); see hw-docs/vfio.md, "Tested on a real kernel".
 */
#include <errno.h>
#include <inttypes.h>
#include <string.h>
#include <sys/eventfd.h>
#include <unistd.h>

#include "zcnic/bus.h"
#include "prog_tap.h"

#define E1000_STATUS	0x00008
#define E1000_CTRL_EXT	0x00018
#define E1000_ICR	0x000c0		/* cause read; write 1 to clear */
#define E1000_ICS	0x000c8		/* cause set */
#define E1000_IMS	0x000d0		/* mask set (enable) */
#define E1000_IMC	0x000d8		/* mask clear (disable) */
#define E1000_EIAC	0x000dc		/* 82574: MSI-X auto-clear of causes */
#define E1000_IVAR	0x000e4		/* 82574: cause -> MSI-X vector */

#define CTRL_EXT_EIAME	0x01000000u	/* auto-mask on MSI-X (with EIAC) */
#define CTRL_EXT_IAME	0x08000000u	/* auto-mask on ICR read */
#define CTRL_EXT_PBA_CLR 0x80000000u	/* MSI-X pending bits clear with IMS */

#define ICR_LSC		0x00000004u	/* link status change: an "other" cause */
#define ICR_RXQ0	0x00100000u
#define ICR_TXQ0	0x00400000u
#define ICR_OTHER	0x01000000u
#define ICR_ALL		0xffffffffu

/* IVAR: 4 bits per cause (vector in bits 0-2, bit 3 valid). */
#define IVAR_VALID	0x8u
#define IVAR_RXQ0_SHIFT	0
#define IVAR_TXQ0_SHIFT	8
#define IVAR_OTHER_SHIFT 16
#define IVAR(rx, tx, other) \
	(((IVAR_VALID | (rx)) << IVAR_RXQ0_SHIFT) | \
	 ((IVAR_VALID | (tx)) << IVAR_TXQ0_SHIFT) | \
	 ((IVAR_VALID | (other)) << IVAR_OTHER_SHIFT))

#define E1000E_VENDOR	0x8086
#define E1000E_DEVICE	0x10d3		/* 82574L */
#define NVEC_MAX	5		/* the 82574 has 5 MSI-X vectors */
#define NVEC_MIN	4		/* RX, TX, other + one to remap to */
#define VFIO_IRQ_INFO_EVENTFD 0x1
#define VFIO_DEVICE_FLAGS_RESET 0x1
#define IRQ_TIMEOUT_MS	3000
#define QUIET_MS	200		/* how long a vector must stay silent */
#define EITR_SETTLE_US	10000		/* > QEMU's longest EITR wait here (128 us) */

struct nic {
	struct zn_bus_dev *d;
	int efd[NVEC_MAX];
	uint32_t nvec;
};

static void wr(struct nic *n, uint32_t off, uint32_t v)
{
	zn_bus_write32(n->d, 0, off, v);
}

static uint32_t rd(struct nic *n, uint32_t off)
{
	uint32_t v = ~0u;

	zn_bus_read32(n->d, 0, off, &v);
	return v;
}

static void drain(struct nic *n)
{
	for (uint32_t i = 0; i < n->nvec; i++)
		tap_eventfd_wait(n->efd[i], 0);
}

/*
 * Start from nothing pending: every cause masked, cleared, vectors drained.
 * The wait lets the per-vector throttle timers run out: an interrupt arms
 * one for EITR x 256 ns (the Linux driver's probe leaves EITR nonzero, QEMU
 * keeps it at 500 or more: 128 us), and QEMU 7.2 aborts the VM if one fires
 * after MSI-X was disabled (assert in e1000e_intrmgr_on_msix_throttling_timer),
 * which a reset or the MSI-X disable that follows would do.
 */
static void quiesce(struct nic *n, uint32_t ims)
{
	wr(n, E1000_IMC, ICR_ALL);
	wr(n, E1000_ICR, ICR_ALL);
	usleep(EITR_SETTLE_US);
	drain(n);
	if (ims)
		wr(n, E1000_IMS, ims);
}

/*
 * Raise `cause` via ICS and expect exactly one interrupt on vector `vec`
 * and none on the others.
 */
static void check_cause(struct nic *n, const char *name, uint32_t cause, uint32_t vec)
{
	int64_t got = 0, other = 0;
	uint32_t icr_seen;

	wr(n, E1000_ICS, cause);
	got = tap_eventfd_wait(n->efd[vec], IRQ_TIMEOUT_MS);
	icr_seen = rd(n, E1000_ICS);	/* reads as ICR, without clear-on-read */
	for (uint32_t i = 0; i < n->nvec; i++)
		if (i != vec && tap_eventfd_wait(n->efd[i], 0) > 0)
			other |= 1 << i;
	tap_check(got == 1 && (icr_seen & cause),
		  "%s cause raised through ICS -> MSI-X vector %u eventfd (count %" PRId64
		  ", ICR 0x%08x)", name, vec, got, icr_seen);
	tap_check(other == 0, "no other vector fired (mask 0x%" PRIx64 ")", other);
	wr(n, E1000_ICR, cause | (cause & ICR_LSC ? ICR_OTHER : 0));
}

static bool check_setup(struct nic *n)
{
	struct zn_irq_info ii;
	void *va = NULL;
	uint64_t size = 0;
	uint16_t vendor = 0, device = 0;
	uint32_t status;
	int rc;

	tap_diag("device flags 0x%x, %u regions, %u irq indexes", n->d->info.flags,
		 n->d->info.num_regions, n->d->info.num_irqs);
	rc = zn_bus_cfg_read16(n->d, 0x00, &vendor);
	rc = rc ? rc : zn_bus_cfg_read16(n->d, 0x02, &device);
	tap_check(rc == 0 && vendor == E1000E_VENDOR && device == E1000E_DEVICE,
		  "config space: %04x:%04x (want %04x:%04x, 82574L)", vendor, device,
		  E1000E_VENDOR, E1000E_DEVICE);
	rc = n->d->ops->get_irq_info(n->d, ZN_IRQ_MSIX, &ii);
	if (!tap_check(rc == 0 && ii.count >= NVEC_MIN && (ii.flags & VFIO_IRQ_INFO_EVENTFD),
		       "MSI-X irq info: rc %d, %u vectors, flags 0x%x", rc, ii.count, ii.flags))
		return false;
	n->nvec = ii.count < NVEC_MAX ? ii.count : NVEC_MAX;
	rc = zn_bus_map_bar(n->d, 0, &va, &size);
	if (!tap_check(rc == 0, "map BAR0: rc %d, size 0x%" PRIx64, rc, size))
		return false;
	status = rd(n, E1000_STATUS);
	tap_check(status != ~0u, "STATUS register readable: 0x%08x", status);
	/* MSI-X messages are memory writes: no bus master, no interrupt. */
	rc = zn_bus_enable_bus_master(n->d);
	tap_check(rc == 0, "bus master enable: rc %d", rc);

	for (uint32_t i = 0; i < n->nvec; i++) {
		n->efd[i] = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
		if (n->efd[i] < 0)
			return tap_check(false, "eventfd: %s", strerror(errno));
	}
	quiesce(n, 0);
	rc = zn_bus_set_irqs(n->d, ZN_IRQ_MSIX, 0, n->nvec, n->efd);
	return tap_check(rc == 0, "MSI-X vectors 0-%u -> eventfds: rc %d", n->nvec - 1, rc);
}

static void check_routing(struct nic *n)
{
	uint32_t ctrl_ext = rd(n, E1000_CTRL_EXT);

	/*
	 * As e1000_configure_msix does, minus auto-clear: with EIAME clear
	 * and EIAC 0 a cause stays in ICR until we clear it, so each check
	 * starts from a known state.
	 */
	ctrl_ext &= ~(CTRL_EXT_IAME | CTRL_EXT_EIAME);
	wr(n, E1000_CTRL_EXT, ctrl_ext | CTRL_EXT_PBA_CLR);
	wr(n, E1000_EIAC, 0);
	wr(n, E1000_IVAR, IVAR(0, 1, 2));
	tap_check(rd(n, E1000_IVAR) == IVAR(0, 1, 2), "IVAR reads back 0x%08x",
		  rd(n, E1000_IVAR));

	quiesce(n, ICR_RXQ0 | ICR_TXQ0 | ICR_OTHER | ICR_LSC);
	check_cause(n, "RX queue 0", ICR_RXQ0, 0);
	quiesce(n, ICR_RXQ0 | ICR_TXQ0 | ICR_OTHER | ICR_LSC);
	check_cause(n, "TX queue 0", ICR_TXQ0, 1);
	/* A link change is an "other" cause: the device adds ICR.OTHER itself. */
	quiesce(n, ICR_RXQ0 | ICR_TXQ0 | ICR_OTHER | ICR_LSC);
	check_cause(n, "link status change (other)", ICR_LSC, 2);

	/* Re-route RX queue 0 to the last vector. */
	wr(n, E1000_IVAR, IVAR(n->nvec - 1, 1, 2));
	quiesce(n, ICR_RXQ0 | ICR_TXQ0 | ICR_OTHER | ICR_LSC);
	check_cause(n, "RX queue 0 after IVAR remap", ICR_RXQ0, n->nvec - 1);
}

/* A masked cause stays pending and fires when unmasked. */
static void check_masking(struct nic *n)
{
	uint32_t vec = n->nvec - 1;
	int64_t got;

	quiesce(n, ICR_TXQ0 | ICR_OTHER | ICR_LSC);	/* RX queue 0 masked */
	wr(n, E1000_ICS, ICR_RXQ0);
	got = tap_eventfd_wait(n->efd[vec], QUIET_MS);
	tap_check(got == 0, "masked cause (IMC): no interrupt in %d ms (count %" PRId64 ")",
		  QUIET_MS, got);
	wr(n, E1000_IMS, ICR_RXQ0);
	got = tap_eventfd_wait(n->efd[vec], IRQ_TIMEOUT_MS);
	tap_check(got == 1, "unmasking (IMS) delivers the pending cause (count %" PRId64 ")", got);
	quiesce(n, 0);
}

/*
 * VFIO_DEVICE_RESET (the e1000e offers one; edu does not), then the interrupt
 * path programmed again, as a driver recovering from a device error does.
 * The kernel resets this device through PCI power management (D3hot -> D0,
 * reset_method "pm"), which QEMU 7.2 does not turn into a device reset: the
 * registers keep their values, so only the call and the path after it can
 * be checked, not that the device forgot its state.
 */
static void check_reset(struct nic *n)
{
	int64_t got;
	int rc;

	if (!(n->d->info.flags & VFIO_DEVICE_FLAGS_RESET)) {
		tap_diag("no VFIO_DEVICE_FLAGS_RESET: reset not tested");
		return;
	}
	wr(n, E1000_IVAR, IVAR(1, 2, 3));
	rc = zn_bus_reset(n->d);
	tap_check(rc == 0, "VFIO device reset: rc %d", rc);
	tap_diag("IVAR 0x%08x before reset, 0x%08x after", IVAR(1, 2, 3), rd(n, E1000_IVAR));
	rc = zn_bus_enable_bus_master(n->d);
	rc = rc ? rc : zn_bus_set_irqs(n->d, ZN_IRQ_MSIX, 0, n->nvec, n->efd);
	tap_check(rc == 0, "after reset: bus master and MSI-X set up again: rc %d", rc);
	wr(n, E1000_CTRL_EXT, (rd(n, E1000_CTRL_EXT) & ~(CTRL_EXT_IAME | CTRL_EXT_EIAME)) |
			      CTRL_EXT_PBA_CLR);
	wr(n, E1000_EIAC, 0);
	wr(n, E1000_IVAR, IVAR(1, 0, 2));
	quiesce(n, ICR_RXQ0);
	wr(n, E1000_ICS, ICR_RXQ0);
	got = tap_eventfd_wait(n->efd[1], IRQ_TIMEOUT_MS);
	tap_check(got == 1, "after reset: RX queue 0 cause -> vector 1 (count %" PRId64 ")", got);
	quiesce(n, 0);
}

int main(int argc, char **argv)
{
	struct nic n = { .nvec = 0 };
	int rc;

	for (int i = 0; i < NVEC_MAX; i++)
		n.efd[i] = -1;
	if (argc != 2) {
		fprintf(stderr, "usage: %s DEVICE   (PCI address or vfio-user:PATH)\n", argv[0]);
		return 2;
	}
	setvbuf(stdout, NULL, _IOLBF, 0);
	tap_diag("e1000e_msix_test %s", argv[1]);
	rc = zn_bus_open(argv[1], NULL, &n.d);
	if (!tap_check(rc == 0, "open %s: rc %d", argv[1], rc))
		return tap_done("e1000e_msix_test");
	if (check_setup(&n)) {
		check_routing(&n);
		check_masking(&n);
		check_reset(&n);
		rc = zn_bus_set_irqs(n.d, ZN_IRQ_MSIX, 0, 0, NULL);
		tap_check(rc == 0, "MSI-X disabled: rc %d", rc);
	}
	zn_bus_close(n.d);
	for (int i = 0; i < NVEC_MAX; i++)
		if (n.efd[i] >= 0)
			close(n.efd[i]);
	return tap_done("e1000e_msix_test");
}
