/* SPDX-License-Identifier: MIT */
/* core/port internals: the MSI-X eventfds of interrupt mode (port_irq.c). */
#ifndef ZN_PORT_IRQ_H
#define ZN_PORT_IRQ_H

#include <stdbool.h>
#include <stdint.h>

#include "zcnic/port.h"

struct zn_port_irq;

/* port.c: where the port keeps them, and what port_irq.c needs to know. */
struct zn_port_irq **zn_port_irq_slot(struct zn_port *p, uint16_t *nb_rxq, uint16_t *nb_txq,
				      bool *started);
/* Disable the vectors and close the eventfds (port stop and close). */
void zn_port_irq_release(struct zn_port *p);

#endif
