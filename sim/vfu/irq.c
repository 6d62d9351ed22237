/* SPDX-License-Identifier: MIT */
/*
 * Interrupts: DEVICE_GET_IRQ_INFO, DEVICE_SET_IRQS (vfio-user spec sections
 * of those names, struct vfio_irq_set semantics from Linux vfio.h) and the
 * raise helpers models call.
 *
 * Indices: INTx (1 if the device has a pin), MSI, MSI-X (the model's vector
 * counts), ERR and REQ (1 each, as libvfio-user offers). Every index reports
 * EVENTFD only; INTx is also MASKABLE. NORESIZE is not reported: a client
 * with more vectors than our max_msg_fds must be able to set them in chunks
 * (start/count), which NORESIZE would forbid.
 *
 * As in vfio-pci and libvfio-user, only one of INTx, MSI and MSI-X may have
 * eventfds at a time; the others are refused until it is disabled.
 */
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <unistd.h>

#include "sim/vfu/priv.h"

static const char *const irq_names[ZN_VFU_PCI_NUM_IRQS] = { "intx", "msi", "msix", "err",
							     "req" };

int vfu_irq_init(struct zn_vfu_dev *dev)
{
	const struct zn_vfu_dev_desc *d = &dev->desc;
	uint32_t count[ZN_VFU_PCI_NUM_IRQS] = {
		d->intx_pin ? 1 : 0, d->msi_vectors, d->msix_vectors, 1, 1,
	};

	for (unsigned i = 0; i < ZN_VFU_PCI_NUM_IRQS; i++) {
		struct vfu_irq *q = &dev->irq[i];

		q->count = count[i];
		q->flags = q->count ? ZN_VFU_IRQ_INFO_EVENTFD : 0;
		if (i == ZN_VFU_PCI_INTX_IRQ && q->count)
			q->flags |= ZN_VFU_IRQ_INFO_MASKABLE;
		if (!q->count)
			continue;
		q->efd = malloc(sizeof(int) * q->count);
		if (!q->efd)
			return -ENOMEM;
		for (uint32_t v = 0; v < q->count; v++)
			q->efd[v] = -1;
	}
	return 0;
}

static void close_index(struct zn_vfu_dev *dev, unsigned index)
{
	struct vfu_irq *q = &dev->irq[index];

	for (uint32_t v = 0; v < q->count; v++) {
		if (q->efd[v] >= 0)
			close(q->efd[v]);
		q->efd[v] = -1;
	}
	if (index == ZN_VFU_PCI_INTX_IRQ)
		dev->intx_masked = false;
}

void vfu_irq_close_all(struct zn_vfu_dev *dev)
{
	for (unsigned i = 0; i < ZN_VFU_PCI_NUM_IRQS; i++)
		close_index(dev, i);
}

void vfu_irq_fini(struct zn_vfu_dev *dev)
{
	for (unsigned i = 0; i < ZN_VFU_PCI_NUM_IRQS; i++) {
		if (dev->irq[i].efd)
			close_index(dev, i);
		free(dev->irq[i].efd);
		dev->irq[i].efd = NULL;
	}
}

static bool index_in_use(const struct zn_vfu_dev *dev, unsigned index)
{
	const struct vfu_irq *q = &dev->irq[index];

	for (uint32_t v = 0; v < q->count; v++)
		if (q->efd[v] >= 0)
			return true;
	return false;
}

/* Signal one eventfd; the client's eventfd counter is its business. */
static int signal_efd(struct zn_vfu_dev *dev, unsigned index, uint32_t v)
{
	int fd = dev->irq[index].efd[v];

	if (fd < 0) {
		VFU_INC(dev->stats.irq_no_eventfd);
		return -ENOENT;
	}
	if (eventfd_write(fd, 1) < 0) {
		ZN_SIM_LOG_RL_AT(&dev->rl_fault, ZN_SIM_LOG_WARN, "irq", "%s: %s vector %u: eventfd write failed",
			      dev->name, irq_names[index], v);
		return -errno;
	}
	VFU_INC(dev->stats.irqs[index]);
	return 0;
}

int vfu_handle_get_irq_info(struct zn_vfu_dev *dev, struct vfu_req *rq)
{
	struct zn_vfu_irq_info in, out;

	if (rq->len != sizeof(in))
		return vfu_refuse(dev, rq, ZN_VFU_ERR_BAD_SIZE, 0, "payload %u, want %zu",
				  rq->len, sizeof(in));
	memcpy(&in, rq->data, sizeof(in));
	if (in.argsz < sizeof(out))
		return vfu_refuse(dev, rq, ZN_VFU_ERR_BAD_ARGSZ, 0, "argsz %u < %zu", in.argsz,
				  sizeof(out));
	if (in.index >= ZN_VFU_PCI_NUM_IRQS)
		return vfu_refuse(dev, rq, ZN_VFU_ERR_BAD_INDEX, 0, "index %u", in.index);
	if (in.flags || in.count)
		return vfu_refuse(dev, rq, ZN_VFU_ERR_NONZERO_FIELD, 0,
				  "flags/count must be zero");
	out.argsz = sizeof(out);
	out.index = in.index;
	out.flags = dev->irq[in.index].flags;
	out.count = dev->irq[in.index].count;
	return vfu_reply(dev, rq, &out, sizeof(out), NULL, 0);
}

static bool is_eventfd(int fd)
{
	char path[64], target[64];
	ssize_t n;

	snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
	n = readlink(path, target, sizeof(target) - 1);
	if (n < 0)
		return false;
	target[n] = '\0';
	return !strcmp(target, "anon_inode:[eventfd]");
}

static bool one_bit(uint32_t v)
{
	return v && !(v & (v - 1));
}

int vfu_handle_set_irqs(struct zn_vfu_dev *dev, struct vfu_req *rq)
{
	struct zn_vfu_irq_set s;
	uint32_t data, action;
	const uint8_t *bools;
	struct vfu_irq *q;

	if (rq->len < sizeof(s))
		return vfu_refuse(dev, rq, ZN_VFU_ERR_BAD_SIZE, 0, "payload %u < %zu", rq->len,
				  sizeof(s));
	memcpy(&s, rq->data, sizeof(s));
	bools = rq->data + sizeof(s);
	/* "argsz is the size of the VFIO IRQ set request payload" */
	if (s.argsz != rq->len)
		return vfu_refuse(dev, rq, ZN_VFU_ERR_BAD_ARGSZ, 0, "argsz %u, payload %u",
				  s.argsz, rq->len);
	data = s.flags & ZN_VFU_IRQ_SET_DATA_MASK;
	action = s.flags & ZN_VFU_IRQ_SET_ACTION_MASK_ALL;
	if ((s.flags & ~(ZN_VFU_IRQ_SET_DATA_MASK | ZN_VFU_IRQ_SET_ACTION_MASK_ALL)) ||
	    !one_bit(data) || !one_bit(action))
		return vfu_refuse(dev, rq, ZN_VFU_ERR_BAD_FLAGS, 0,
				  "flags %#x: want one DATA and one ACTION bit", s.flags);
	if (rq->len != sizeof(s) + (data == ZN_VFU_IRQ_SET_DATA_BOOL ? s.count : 0))
		return vfu_refuse(dev, rq, ZN_VFU_ERR_BAD_SIZE, 0,
				  "payload %u for count %u (bools only with DATA_BOOL)", rq->len,
				  s.count);
	if (data != ZN_VFU_IRQ_SET_DATA_EVENTFD && rq->nfds)
		return vfu_refuse(dev, rq, ZN_VFU_ERR_UNEXPECTED_FDS, 0,
				  "%u fds without DATA_EVENTFD", rq->nfds);
	if (s.index >= ZN_VFU_PCI_NUM_IRQS)
		return vfu_refuse(dev, rq, ZN_VFU_ERR_BAD_INDEX, 0, "index %u", s.index);
	q = &dev->irq[s.index];

	/* "a count (and start) of 0, with DATA_NONE disables all interrupts of
	 * the index" */
	if (data == ZN_VFU_IRQ_SET_DATA_NONE && s.start == 0 && s.count == 0) {
		close_index(dev, s.index);
		ZN_SIM_DEBUG("irq", "%s: %s disabled", dev->name, irq_names[s.index]);
		return vfu_reply(dev, rq, NULL, 0, NULL, 0);
	}
	if (s.count == 0 || (uint64_t)s.start + s.count > q->count)
		return vfu_refuse(dev, rq, ZN_VFU_ERR_BAD_RANGE, 0,
				  "start %u count %u, %s has %u", s.start, s.count,
				  irq_names[s.index], q->count);
	if (data == ZN_VFU_IRQ_SET_DATA_EVENTFD && rq->nfds && rq->nfds != s.count)
		return vfu_refuse(dev, rq,
				  rq->nfds < s.count ? ZN_VFU_ERR_MISSING_FDS :
						       ZN_VFU_ERR_TOO_MANY_FDS,
				  0, "%u fds for count %u", rq->nfds, s.count);

	if (action != ZN_VFU_IRQ_SET_ACTION_TRIGGER) {
		/* Only INTx is maskable, and only by flag (no mask notifiers). */
		if (s.index != ZN_VFU_PCI_INTX_IRQ || data == ZN_VFU_IRQ_SET_DATA_EVENTFD)
			return vfu_refuse(dev, rq, ZN_VFU_ERR_IRQ_UNSUPPORTED, 0,
					  "%s with %s", action == ZN_VFU_IRQ_SET_ACTION_MASK ?
					  "MASK" : "UNMASK",
					  data == ZN_VFU_IRQ_SET_DATA_EVENTFD ? "an eventfd" :
										irq_names[s.index]);
		if (data == ZN_VFU_IRQ_SET_DATA_BOOL && !bools[0])
			return vfu_reply(dev, rq, NULL, 0, NULL, 0);
		if (action == ZN_VFU_IRQ_SET_ACTION_MASK) {
			dev->intx_masked = true;
		} else {
			dev->intx_masked = false;
			/* Still asserted: the client hears it again, as with vfio-pci. */
			if (dev->intx_level && !(vfu_pci_cmd(dev) & PCI_COMMAND_INTX_DISABLE))
				signal_efd(dev, ZN_VFU_PCI_INTX_IRQ, 0);
		}
		return vfu_reply(dev, rq, NULL, 0, NULL, 0);
	}

	if (data == ZN_VFU_IRQ_SET_DATA_EVENTFD) {
		if (rq->nfds && s.index <= ZN_VFU_PCI_MSIX_IRQ) {
			for (unsigned i = 0; i <= ZN_VFU_PCI_MSIX_IRQ; i++)
				if (i != s.index && index_in_use(dev, i))
					return vfu_refuse(dev, rq, ZN_VFU_ERR_IRQ_BUSY, 0,
							  "%s is enabled; disable it first",
							  irq_names[i]);
		}
		for (unsigned i = 0; i < rq->nfds; i++)
			if (!is_eventfd(rq->fds[i]))
				return vfu_refuse(dev, rq, ZN_VFU_ERR_BAD_FD, 0,
						  "fd %u is not an eventfd", i);
		for (uint32_t i = 0; i < s.count; i++) {
			int *slot = &q->efd[s.start + i];

			if (*slot >= 0)
				close(*slot);
			/* "If no file descriptors are provided, this de-assigns" */
			*slot = rq->nfds ? rq->fds[i] : -1;
			if (rq->nfds)
				rq->fds[i] = -1;
		}
		ZN_SIM_DEBUG("irq", "%s: %s [%u, +%u) %s", dev->name, irq_names[s.index], s.start,
			     s.count, rq->nfds ? "assigned" : "de-assigned");
		return vfu_reply(dev, rq, NULL, 0, NULL, 0);
	}

	/* DATA_NONE / DATA_BOOL with TRIGGER: the client fires the interrupt
	 * itself (a loopback, useful to test the client's handler). */
	for (uint32_t i = 0; i < s.count; i++)
		if (data == ZN_VFU_IRQ_SET_DATA_NONE || bools[i])
			signal_efd(dev, s.index, s.start + i);
	return vfu_reply(dev, rq, NULL, 0, NULL, 0);
}

/* ---- Device side ---- */

enum zn_vfu_irq_mode zn_vfu_irq_mode(const struct zn_vfu_dev *dev)
{
	if (dev->irq[ZN_VFU_PCI_MSIX_IRQ].count && index_in_use(dev, ZN_VFU_PCI_MSIX_IRQ))
		return ZN_VFU_IRQ_MSIX;
	if (dev->irq[ZN_VFU_PCI_MSI_IRQ].count && index_in_use(dev, ZN_VFU_PCI_MSI_IRQ))
		return ZN_VFU_IRQ_MSI;
	if (dev->irq[ZN_VFU_PCI_INTX_IRQ].count)
		return ZN_VFU_IRQ_INTX;
	return ZN_VFU_IRQ_NONE;
}

int zn_vfu_irq_notify(struct zn_vfu_dev *dev, unsigned vector)
{
	enum zn_vfu_irq_mode mode = zn_vfu_irq_mode(dev);

	if (mode != ZN_VFU_IRQ_MSI && mode != ZN_VFU_IRQ_MSIX) {
		VFU_INC(dev->stats.irq_no_eventfd);
		return -ENOENT;
	}
	if (vector >= dev->irq[mode].count) {
		VFU_INC(dev->stats.irq_bad_vector);
		ZN_SIM_LOG_RL_AT(&dev->rl_fault, ZN_SIM_LOG_WARN, "irq", "%s: %s vector %u of %u", dev->name,
			      irq_names[mode], vector, dev->irq[mode].count);
		return -EINVAL;
	}
	/* MSI and MSI-X are memory writes: no bus mastering, no interrupt. */
	if (!(vfu_pci_cmd(dev) & PCI_COMMAND_MASTER)) {
		VFU_INC(dev->stats.irq_no_master);
		ZN_SIM_LOG_RL_AT(&dev->rl_fault, ZN_SIM_LOG_WARN, "irq", "%s: %s vector %u dropped: bus mastering off",
			      dev->name, irq_names[mode], vector);
		return -EPERM;
	}
	return signal_efd(dev, mode, vector);
}

void zn_vfu_intx_set(struct zn_vfu_dev *dev, bool asserted)
{
	bool rising = asserted && !dev->intx_level;

	if (!dev->irq[ZN_VFU_PCI_INTX_IRQ].count)
		return;
	dev->intx_level = asserted;
	vfu_pci_set_status(dev, PCI_STATUS_INTERRUPT, asserted);
	if (!rising)
		return;
	if ((vfu_pci_cmd(dev) & PCI_COMMAND_INTX_DISABLE) || dev->intx_masked) {
		VFU_INC(dev->stats.irq_masked);
		return;
	}
	signal_efd(dev, ZN_VFU_PCI_INTX_IRQ, 0);
}

/* After a COMMAND write: INTX_DISABLE cleared while asserted delivers it. */
void vfu_intx_reevaluate(struct zn_vfu_dev *dev, uint16_t old_cmd)
{
	uint16_t cmd = vfu_pci_cmd(dev);

	if (dev->intx_level && !dev->intx_masked && dev->irq[ZN_VFU_PCI_INTX_IRQ].count &&
	    (old_cmd & PCI_COMMAND_INTX_DISABLE) && !(cmd & PCI_COMMAND_INTX_DISABLE))
		signal_efd(dev, ZN_VFU_PCI_INTX_IRQ, 0);
}

int zn_vfu_irq_err(struct zn_vfu_dev *dev)
{
	return signal_efd(dev, ZN_VFU_PCI_ERR_IRQ, 0);
}

int zn_vfu_dev_request_release(struct zn_vfu_dev *dev)
{
	if (!dev->conn.active)
		return -ENOENT;
	return signal_efd(dev, ZN_VFU_PCI_REQ_IRQ, 0);
}
