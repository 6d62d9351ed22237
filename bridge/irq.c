/* SPDX-License-Identifier: MIT */
/*
 * VFIO_DEVICE_GET_IRQ_INFO and VFIO_DEVICE_SET_IRQS, validated as
 * vfio_set_irqs_validate_and_prepare does [torvalds/linux:
 * drivers/vfio/vfio_main.c] and acted on as vfio-pci does
 * [drivers/vfio/pci/vfio_pci_intrs.c]:
 *
 *   INTx, MSI, MSI-X (the device's): eventfds go to the server (vfio-user
 *   SET_IRQS); DATA_NONE with count 0 disables the index; DATA_NONE or
 *   DATA_BOOL with a count fires the vectors' eventfds from here, as the
 *   kernel does; MASK/UNMASK of MSI/MSI-X is ENOTTY there too, of INTx not
 *   emulated (ENOTTY, said once).
 *   ERR, REQ (the kernel's own: AER and release requests): one vector each,
 *   its eventfd kept here; nothing raises them.
 */
#include <errno.h>
#include <fcntl.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <linux/vfio.h>

#include "bridge/bridge.h"
#include "zcnic/log.h"

#define MAX_VECTORS	2048u	/* PCI's MSI-X limit */

struct znb_irq {
	uint32_t n;		/* vectors with a slot in fds */
	int *fds;		/* our dups of the eventfds, -1 where none */
};

static bool said_intx_mask;

static bool kernel_index(uint32_t index)
{
	return index == VFIO_PCI_ERR_IRQ_INDEX || index == VFIO_PCI_REQ_IRQ_INDEX;
}

int znb_irq_info(struct znb_dev *d, uint32_t index, uint32_t *flags, uint32_t *count)
{
	struct zn_irq_info info;
	int rc;

	if (kernel_index(index)) {
		*flags = VFIO_IRQ_INFO_EVENTFD;
		*count = 1;
		return 0;
	}
	if (index >= d->bus->info.num_irqs) {
		*flags = 0;
		*count = 0;
		return 0;
	}
	rc = d->bus->ops->get_irq_info(d->bus, index, &info);
	if (rc < 0)
		return rc;
	*flags = info.flags;
	*count = info.count;
	return 0;
}

static struct znb_irq *irq_of(struct znb_dev *d, uint32_t index, uint32_t need)
{
	struct znb_irq *q;

	if (!d->irq) {
		d->irq = calloc(ZNB_NUM_IRQS, sizeof(*d->irq));
		if (!d->irq)
			return NULL;
	}
	q = &d->irq[index];
	if (need > q->n) {
		int *fds = realloc(q->fds, need * sizeof(*fds));

		if (!fds)
			return NULL;
		for (uint32_t i = q->n; i < need; i++)
			fds[i] = -1;
		q->fds = fds;
		q->n = need;
	}
	return q;
}

static void drop_fds(struct znb_irq *q, uint32_t start, uint32_t count)
{
	for (uint32_t i = start; i < start + count && i < q->n; i++) {
		if (q->fds[i] >= 0)
			close(q->fds[i]);
		q->fds[i] = -1;
	}
}

void znb_irq_release(struct znb_dev *d)
{
	if (!d->irq)
		return;
	for (uint32_t i = 0; i < ZNB_NUM_IRQS; i++) {
		drop_fds(&d->irq[i], 0, d->irq[i].n);
		free(d->irq[i].fds);
	}
	free(d->irq);
	d->irq = NULL;
}

static void fire(struct znb_irq *q, uint32_t start, uint32_t count, const uint8_t *bools)
{
	static const uint64_t one = 1;

	for (uint32_t i = 0; i < count; i++)
		if (start + i < q->n && q->fds[start + i] >= 0 && (!bools || bools[i]) &&
		    write(q->fds[start + i], &one, sizeof(one)) != sizeof(one))
			continue;	/* a full eventfd counter: already pending */
}

static long set_eventfds(struct znb_dev *d, struct znb_irq *q, uint32_t index,
			 uint32_t start, uint32_t count, const int32_t *in)
{
	int *dups = calloc(count, sizeof(*dups));
	long rc = 0;

	if (!dups)
		return -ENOMEM;
	for (uint32_t i = 0; i < count; i++) {
		dups[i] = in[i] < 0 ? -1 : fcntl(in[i], F_DUPFD_CLOEXEC, 0);
		if (in[i] >= 0 && dups[i] < 0) {
			rc = -EBADF;
			count = i;
			break;
		}
	}
	if (rc == 0 && !kernel_index(index))
		rc = d->bus->ops->set_irqs(d->bus, index, start, count, in);
	if (rc < 0) {
		for (uint32_t i = 0; i < count; i++)
			if (dups[i] >= 0)
				close(dups[i]);
		free(dups);
		return rc;
	}
	drop_fds(q, start, count);
	memcpy(q->fds + start, dups, count * sizeof(*dups));
	free(dups);
	return 0;
}

long znb_irq_set(struct znb_dev *d, void *arg)
{
	struct vfio_irq_set hdr;
	size_t minsz = ZNB_OFFSETOFEND(struct vfio_irq_set, count), data = 0;
	uint32_t dtype, atype, flags, max;
	struct znb_irq *q;
	int rc;

	memcpy(&hdr, arg, minsz);
	dtype = hdr.flags & VFIO_IRQ_SET_DATA_TYPE_MASK;
	atype = hdr.flags & VFIO_IRQ_SET_ACTION_TYPE_MASK;
	if (hdr.argsz < minsz || hdr.index >= ZNB_NUM_IRQS ||
	    (hdr.flags & ~(VFIO_IRQ_SET_DATA_TYPE_MASK | VFIO_IRQ_SET_ACTION_TYPE_MASK)) ||
	    __builtin_popcount(dtype) != 1 || __builtin_popcount(atype) != 1)
		return -EINVAL;
	rc = znb_irq_info(d, hdr.index, &flags, &max);
	if (rc < 0)
		return rc;
	if (hdr.count >= UINT32_MAX - hdr.start || hdr.start >= max ||
	    hdr.count > max - hdr.start || max > MAX_VECTORS)
		return -EINVAL;
	if (dtype == VFIO_IRQ_SET_DATA_BOOL)
		data = hdr.count;
	else if (dtype == VFIO_IRQ_SET_DATA_EVENTFD)
		data = hdr.count * sizeof(int32_t);
	if (hdr.argsz - minsz < data)
		return -EINVAL;
	if (atype != VFIO_IRQ_SET_ACTION_TRIGGER) {
		if (hdr.index == VFIO_PCI_INTX_IRQ_INDEX)
			znb_warn_once(&said_intx_mask, "%s: INTx mask/unmask is not emulated: ENOTTY",
				      d->bdf);
		return -ENOTTY;
	}
	q = irq_of(d, hdr.index, max);
	if (!q)
		return -ENOMEM;
	if (dtype == VFIO_IRQ_SET_DATA_NONE && hdr.count == 0) {
		if (!kernel_index(hdr.index)) {
			rc = d->bus->ops->set_irqs(d->bus, hdr.index, 0, 0, NULL);
			if (rc < 0)
				return rc;
		}
		drop_fds(q, 0, q->n);
		return 0;
	}
	if (dtype == VFIO_IRQ_SET_DATA_EVENTFD) {
		int32_t *fds = malloc(data ? data : 1);

		if (!fds)
			return -ENOMEM;
		memcpy(fds, (uint8_t *)arg + minsz, data);
		rc = (int)set_eventfds(d, q, hdr.index, hdr.start, hdr.count, fds);
		free(fds);
		return rc;
	}
	fire(q, hdr.start, hdr.count,
	     dtype == VFIO_IRQ_SET_DATA_BOOL ? (const uint8_t *)arg + minsz : NULL);
	return 0;
}
