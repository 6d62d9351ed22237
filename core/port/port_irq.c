/* SPDX-License-Identifier: MIT */
/*
 * core/port: interrupt mode. The driver says how many MSI-X vectors the
 * started port uses and which one each queue raises; core/port gives every
 * vector an eventfd (VFIO_DEVICE_SET_IRQS, ACTION_TRIGGER with
 * DATA_EVENTFD: the same call over kernel VFIO and vfio-user) the first time
 * a caller wants to sleep, and takes them back when the port stops.
 *
 * The eventfds are non-blocking: a sleeper polls them, reads them after
 * waking (a count it does not need) and polls the queues, which is where
 * the completions are. Nothing is lost between the arm and the sleep: the
 * driver's arm makes the device raise the vector for a completion it wrote
 * before the arm as well (bnxt CQ_ARMALL with the consumer index, mlx5's
 * CQ arm with ci), and an eventfd keeps its count until read.
 */
#include <errno.h>
#include <stdlib.h>
#include <sys/eventfd.h>
#include <unistd.h>

#include "core/port/port_irq.h"
#include "zcnic/log.h"

#define IRQ_LOG		"port"

struct zn_port_irq {
	int err;	/* set-up failed with this: not asked again until the port stops */
	uint32_t n;
	int fd[];
};

static void irq_free(struct zn_port_irq *irq)
{
	for (uint32_t i = 0; i < irq->n; i++)
		if (irq->fd[i] >= 0)
			close(irq->fd[i]);
	free(irq);
}

void zn_port_irq_release(struct zn_port *p)
{
	uint16_t nrx, ntx;
	bool started;
	struct zn_port_irq **slot = zn_port_irq_slot(p, &nrx, &ntx, &started);

	if (!*slot)
		return;
	/* count 0: the device raises nothing more through our eventfds */
	if (!(*slot)->err)
		zn_bus_set_irqs(p->bus, ZN_IRQ_MSIX, 0, 0, NULL);
	irq_free(*slot);
	*slot = NULL;
}

static int irq_setup(struct zn_port *p, struct zn_port_irq **slot)
{
	struct zn_irq_info ii = { 0 };
	struct zn_port_irq *irq;
	int n, rc;

	if (!p->ops->irq_vectors || !p->ops->irq_vector || !p->ops->irq_arm ||
	    !p->bus->ops->get_irq_info || !p->bus->ops->set_irqs)
		return -EOPNOTSUPP;
	n = p->ops->irq_vectors(p);
	if (n <= 0)
		return n < 0 ? n : -EOPNOTSUPP;
	rc = p->bus->ops->get_irq_info(p->bus, ZN_IRQ_MSIX, &ii);
	if (rc < 0 || ii.count < (uint32_t)n)
		return -EOPNOTSUPP;
	irq = calloc(1, sizeof(*irq) + (size_t)n * sizeof(int));
	if (!irq)
		return -ENOMEM;
	for (irq->n = 0; irq->n < (uint32_t)n; irq->n++) {
		irq->fd[irq->n] = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
		if (irq->fd[irq->n] < 0) {
			rc = -errno;
			irq_free(irq);
			return rc;
		}
	}
	rc = zn_bus_set_irqs(p->bus, ZN_IRQ_MSIX, 0, irq->n, irq->fd);
	if (rc < 0) {
		ZN_ERR(IRQ_LOG, "%s: MSI-X with %u eventfds: %d; the port stays polled",
		       p->bus->name, irq->n, rc);
		irq_free(irq);
		return rc;
	}
	ZN_DEBUG(IRQ_LOG, "%s: %u MSI-X vectors signal eventfds", p->bus->name, irq->n);
	*slot = irq;
	return 0;
}

/* Arm one queue and add its vector's eventfd to fds (once). */
static int arm_one(struct zn_port *p, struct zn_port_irq *irq, bool tx, uint16_t q,
		   int *fds, unsigned *nfds, unsigned max)
{
	int v = p->ops->irq_vector(p, tx, q), rc;
	unsigned i;

	if (v < 0)
		return v;
	if ((uint32_t)v >= irq->n)
		return -EOPNOTSUPP;
	rc = p->ops->irq_arm(p, tx, q);
	if (rc < 0)
		return rc;
	for (i = 0; i < *nfds; i++)
		if (fds[i] == irq->fd[v])
			return 0;
	if (*nfds == max)
		return -ENOSPC;
	fds[(*nfds)++] = irq->fd[v];
	return 0;
}

int zn_port_irq_arm(struct zn_port *p, int *fds, unsigned max)
{
	uint16_t nrx, ntx;
	bool started;
	struct zn_port_irq **slot;
	unsigned nfds = 0;
	int rc;

	if (!p || !fds)
		return -EINVAL;
	slot = zn_port_irq_slot(p, &nrx, &ntx, &started);
	if (!started)
		return -ENODEV;
	if (!*slot) {
		rc = irq_setup(p, slot);
		if (rc < 0) {
			/* remembered: a poller asks on every idle pass */
			*slot = calloc(1, sizeof(**slot));
			if (*slot)
				(*slot)->err = rc;
			return rc;
		}
	}
	if ((*slot)->err)
		return (*slot)->err;
	for (uint16_t q = 0; q < nrx; q++) {
		rc = arm_one(p, *slot, false, q, fds, &nfds, max);
		if (rc < 0)
			return rc;
	}
	for (uint16_t q = 0; q < ntx; q++) {
		rc = arm_one(p, *slot, true, q, fds, &nfds, max);
		if (rc < 0)
			return rc;
	}
	return (int)nfds;
}
