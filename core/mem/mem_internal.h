/* SPDX-License-Identifier: MIT */
/* core/mem internals shared by region.c and registry.c. */
#ifndef ZN_MEM_INTERNAL_H
#define ZN_MEM_INTERNAL_H

#include "zcnic/mem.h"

/* -EEXIST if r's IOVA range overlaps a live region's, -ENOMEM. */
int zn_mem_reg_add(struct zn_dma_region *r);
void zn_mem_reg_remove(struct zn_dma_region *r);
/* -ENOENT if r is not live, -EEXIST on overlap; r->iova updated on success. */
int zn_mem_reg_set_iova(struct zn_dma_region *r, uint64_t iova);
/*
 * 1 and *r if [va, va+len) lies inside one live region, -EEXIST if it
 * overlaps one partly, 0 if it touches none.
 */
int zn_mem_reg_overlap(const void *va, size_t len, struct zn_dma_region **r);
/* Bytes held by live regions (all of them are mlocked). */
size_t zn_mem_reg_locked_bytes(void);

/* mlock r's range (raw syscall: ASan's mlock is a no-op); one log line on failure. */
int zn_mem_lock_region(const struct zn_dma_region *r);
/* Fault in every page of a writable mapping now; 0 or a negative errno. */
int zn_mem_prefault(void *va, size_t len);

#endif
