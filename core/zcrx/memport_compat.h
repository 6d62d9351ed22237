/* SPDX-License-Identifier: MIT */
/*
 * TEMPORARY: lets core/zcrx build before helper mem-port's zn_mem_adopt and
 * zn_port_rxq_set_provider land on main (their contracts: WAVE2_PLAN).
 * Removed when main has them.
 */
#ifndef ZCNIC_CORE_ZCRX_MEMPORT_COMPAT_H
#define ZCNIC_CORE_ZCRX_MEMPORT_COMPAT_H

#include <errno.h>

#include "zcnic/mem.h"
#include "zcnic/port.h"

int zn_mem_adopt(void *va, size_t len, struct zn_dma_region **out) __attribute__((weak));

#ifndef ZN_BUF_ID_BITS		/* mem-port's port.h not there yet */
#define ZCRX_NO_SET_PROVIDER 1
static inline int zn_port_rxq_set_provider(struct zn_port *p, uint16_t q,
					   const struct zn_buf_provider *prov)
{
	(void)p;
	(void)q;
	(void)prov;
	return -EOPNOTSUPP;
}
#endif

/* Before zn_mem_adopt: only memory that already is a zn region. */
static inline int zcrx_mem_adopt(void *va, size_t len, struct zn_dma_region **out)
{
	struct zn_dma_region *r;

	if (zn_mem_adopt)
		return zn_mem_adopt(va, len, out);
	r = zn_mem_find(va);
	if (!r || (uint8_t *)va + len > (uint8_t *)r->va + r->len)
		return -EFAULT;
	*out = r;
	return 1;
}

#endif
