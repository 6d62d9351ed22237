/* SPDX-License-Identifier: MIT */
/* zn-devbind's RDMA section (rdma.c). */
#ifndef ZN_DEVBIND_RDMA_H
#define ZN_DEVBIND_RDMA_H

#include <stdio.h>

#include "zcnic/pci.h"

/* The section for devs[0..n): nothing when n is 0 (no RDMA stack, no device). */
void devbind_print_rdma(FILE *f, const struct zn_rdma_dev *devs, size_t n);

#endif
