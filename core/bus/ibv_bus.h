/* SPDX-License-Identifier: MIT */
/*
 * The "ibv:NAME" bus: an RDMA device that stays bound to its kernel driver
 * (mlx5_core), driven through rdma-core DevX (hw-docs/mlx5.md §16). It has
 * no BARs and no VFIO: config space answers only the vendor and device IDs
 * (so that zn_port_open picks the driver by PCI ID as for any NIC), and DMA
 * mapping is the identity (IOVA = VA), because the device reaches memory
 * through rdma-core registrations (umem, memory regions) the driver makes.
 */
#ifndef ZCNIC_CORE_BUS_IBV_BUS_H
#define ZCNIC_CORE_BUS_IBV_BUS_H

#include "zcnic/bus.h"

#define ZN_IBV_PREFIX	"ibv:"

/* Open ibv:NAME (NAME without the prefix). -ENODEV with one log line when
 * sysfs has no such RDMA device or it is not an mlx5 device on mlx5_core. */
int zn_ibv_bus_open(const char *name, struct zn_bus_dev **out);
/* The RDMA device name of an ibv: bus, NULL for any other bus. */
const char *zn_bus_ibv_name(const struct zn_bus_dev *d);

#endif
