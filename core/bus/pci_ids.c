/* SPDX-License-Identifier: MIT */
/*
 * PCI IDs of the parts zcnic drives, with a short model name for listings.
 *
 * Sources (IDs are facts; names are shortened in our own form, "max speed"
 * taken from the upstream board strings):
 *   bnxt: Linux drivers/net/ethernet/broadcom/bnxt/bnxt.c (bnxt_pci_tbl,
 *         board_info); DPDK drivers/net/bnxt/bnxt.h (BROADCOM_DEV_ID_*) and
 *         bnxt_ethdev.c (bnxt_pci_id_map) for the 5881x Stingray2 parts.
 *   mlx5: Linux drivers/net/ethernet/mellanox/mlx5/core/main.c
 *         (mlx5_core_pci_table and its comments); DPDK
 *         drivers/common/mlx5/mlx5_common.h (PCI_DEVICE_ID_MELLANOX_*).
 *
 * 0x1800-0x1805 (575xx multi-function/NPAR): Linux and DPDK disagree on which
 * ID is which chip, so they carry a family name only.
 *
 * Keep the table sorted by (vendor, device): lookups are a binary search and
 * a unit test checks the order.
 */
#include <stdlib.h>

#include "zcnic/pci.h"

#define BRCM(dev, fl, name)	{ ZN_PCI_VENDOR_BROADCOM, (dev), ZN_NIC_BNXT, (fl), (name) }
#define MLNX(dev, fl, name)	{ ZN_PCI_VENDOR_MELLANOX, (dev), ZN_NIC_MLX5, (fl), (name) }
#define VF			ZN_PCI_ID_VF

static const struct zn_pci_id pci_ids[] = {
	BRCM(0x1604, 0, "BCM5745x NetXtreme-E partition"),
	BRCM(0x1605, 0, "BCM5745x NetXtreme-E partition"),
	BRCM(0x1606, VF, "NetXtreme-E VF"),
	BRCM(0x1607, VF, "NetXtreme-E VF (Hyper-V)"),
	BRCM(0x1608, VF, "NetXtreme-E VF (Hyper-V)"),
	BRCM(0x1609, VF, "NetXtreme-E VF"),
	BRCM(0x1614, 0, "BCM57454 NetXtreme-E 100G"),
	BRCM(0x16bd, VF, "NetXtreme-E VF (Hyper-V)"),
	BRCM(0x16c0, 0, "BCM57417 NetXtreme-E partition"),
	BRCM(0x16c1, VF, "NetXtreme-E VF"),
	BRCM(0x16c2, VF, "NetXtreme-C VF (Hyper-V)"),
	BRCM(0x16c3, VF, "NetXtreme-C VF (Hyper-V)"),
	BRCM(0x16c4, VF, "NetXtreme-E VF (Hyper-V)"),
	BRCM(0x16c5, VF, "NetXtreme-E VF (Hyper-V)"),
	BRCM(0x16c8, 0, "BCM57301 NetXtreme-C 10G"),
	BRCM(0x16c9, 0, "BCM57302 NetXtreme-C 25G"),
	BRCM(0x16ca, 0, "BCM57304 NetXtreme-C 50G"),
	BRCM(0x16cb, VF, "NetXtreme-C VF"),
	BRCM(0x16cc, 0, "BCM57417 NetXtreme-E partition"),
	BRCM(0x16cd, 0, "BCM58700 Nitro 10G"),
	BRCM(0x16ce, 0, "BCM57311 NetXtreme-C 10G"),
	BRCM(0x16cf, 0, "BCM57312 NetXtreme-C 25G"),
	BRCM(0x16d0, 0, "BCM57402 NetXtreme-E 10G"),
	BRCM(0x16d1, 0, "BCM57404 NetXtreme-E 25G"),
	BRCM(0x16d2, 0, "BCM57406 NetXtreme-E 10GBASE-T"),
	BRCM(0x16d3, VF, "NetXtreme-E VF"),
	BRCM(0x16d4, 0, "BCM57402 NetXtreme-E partition"),
	BRCM(0x16d5, 0, "BCM57407 NetXtreme-E 10GBASE-T"),
	BRCM(0x16d6, 0, "BCM57412 NetXtreme-E 10G"),
	BRCM(0x16d7, 0, "BCM57414 NetXtreme-E 25G"),
	BRCM(0x16d8, 0, "BCM57416 NetXtreme-E 10GBASE-T"),
	BRCM(0x16d9, 0, "BCM57417 NetXtreme-E 10GBASE-T"),
	BRCM(0x16dc, VF, "NetXtreme-E VF"),
	BRCM(0x16de, 0, "BCM57412 NetXtreme-E partition"),
	BRCM(0x16df, 0, "BCM57314 NetXtreme-C 50G"),
	BRCM(0x16e1, VF, "NetXtreme-C VF"),
	BRCM(0x16e2, 0, "BCM57417 NetXtreme-E 25G"),
	BRCM(0x16e3, 0, "BCM57416 NetXtreme-E 10G"),
	BRCM(0x16e5, VF, "NetXtreme-C VF"),
	BRCM(0x16e6, VF, "NetXtreme-C VF (Hyper-V)"),
	BRCM(0x16e7, 0, "BCM57404 NetXtreme-E partition"),
	BRCM(0x16e8, 0, "BCM57406 NetXtreme-E partition"),
	BRCM(0x16e9, 0, "BCM57407 NetXtreme-E 25G"),
	BRCM(0x16ea, 0, "BCM57407 NetXtreme-E partition"),
	BRCM(0x16eb, 0, "BCM57412 NetXtreme-E partition"),
	BRCM(0x16ec, 0, "BCM57414 NetXtreme-E partition"),
	BRCM(0x16ed, 0, "BCM57414 NetXtreme-E partition"),
	BRCM(0x16ee, 0, "BCM57416 NetXtreme-E partition"),
	BRCM(0x16ef, 0, "BCM57416 NetXtreme-E partition"),
	BRCM(0x16f0, 0, "BCM58808 NetXtreme-S 100G"),
	BRCM(0x16f1, 0, "BCM57452 NetXtreme-E 50G"),
	BRCM(0x1750, 0, "BCM57508 NetXtreme-E 200G"),
	BRCM(0x1751, 0, "BCM57504 NetXtreme-E 200G"),
	BRCM(0x1752, 0, "BCM57502 NetXtreme-E 50G"),
	BRCM(0x1760, 0, "BCM57608 NetXtreme-E 400G"),
	BRCM(0x1761, 0, "BCM57604 NetXtreme-E 200G"),
	BRCM(0x1762, 0, "BCM57602 NetXtreme-E 100G"),
	BRCM(0x1763, 0, "BCM57601 NetXtreme-E 400G"),
	BRCM(0x1800, 0, "BCM5750x NetXtreme-E partition"),
	BRCM(0x1801, 0, "BCM5750x NetXtreme-E partition"),
	BRCM(0x1802, 0, "BCM5750x NetXtreme-E partition"),
	BRCM(0x1803, 0, "BCM5750x NetXtreme-E partition"),
	BRCM(0x1804, 0, "BCM5750x NetXtreme-E partition"),
	BRCM(0x1805, 0, "BCM5750x NetXtreme-E partition"),
	BRCM(0x1806, VF, "BCM5750x NetXtreme-E VF"),
	BRCM(0x1807, VF, "BCM5750x NetXtreme-E VF"),
	BRCM(0x1808, VF, "BCM5750x NetXtreme-E VF (Hyper-V)"),
	BRCM(0x1809, VF, "BCM5750x NetXtreme-E VF (Hyper-V)"),
	BRCM(0x1819, VF, "BCM5760x NetXtreme-E VF"),
	BRCM(0xd800, VF, "NetXtreme-S VF"),
	BRCM(0xd802, 0, "BCM58802 NetXtreme-S 50G"),
	BRCM(0xd804, 0, "BCM58804 NetXtreme-S 100G"),
	BRCM(0xd812, 0, "BCM58812 Stingray2"),
	BRCM(0xd814, 0, "BCM58814 Stingray2"),
	BRCM(0xd818, 0, "BCM58818 Stingray2"),
	BRCM(0xd82e, VF, "BCM58818 Stingray2 VF"),

	MLNX(0x1011, 0, "Connect-IB"),
	MLNX(0x1012, VF, "Connect-IB VF"),
	MLNX(0x1013, 0, "ConnectX-4"),
	MLNX(0x1014, VF, "ConnectX-4 VF"),
	MLNX(0x1015, 0, "ConnectX-4 Lx"),
	MLNX(0x1016, VF, "ConnectX-4 Lx VF"),
	MLNX(0x1017, 0, "ConnectX-5"),
	MLNX(0x1018, VF, "ConnectX-5 VF"),
	MLNX(0x1019, 0, "ConnectX-5 Ex"),
	MLNX(0x101a, VF, "ConnectX-5 Ex VF"),
	MLNX(0x101b, 0, "ConnectX-6"),
	MLNX(0x101c, VF, "ConnectX-6 VF"),
	MLNX(0x101d, 0, "ConnectX-6 Dx"),
	MLNX(0x101e, VF, "ConnectX mlx5Gen VF"),
	MLNX(0x101f, 0, "ConnectX-6 Lx"),
	MLNX(0x1021, 0, "ConnectX-7"),
	MLNX(0x1023, 0, "ConnectX-8"),
	MLNX(0x1025, 0, "ConnectX-9"),
	MLNX(0x1027, 0, "ConnectX-10"),
	MLNX(0x2101, 0, "ConnectX-10 NVLink-C2C"),
	MLNX(0xa2d2, 0, "BlueField (ConnectX-5)"),
	MLNX(0xa2d3, VF, "BlueField (ConnectX-5) VF"),
	MLNX(0xa2d6, 0, "BlueField-2 (ConnectX-6 Dx)"),
	MLNX(0xa2dc, 0, "BlueField-3 (ConnectX-7)"),
	MLNX(0xa2df, 0, "BlueField-4 (ConnectX-8)"),
};

#define N_IDS (sizeof(pci_ids) / sizeof(pci_ids[0]))

static int id_cmp(const void *key, const void *elem)
{
	const struct zn_pci_id *k = key, *e = elem;

	if (k->vendor != e->vendor)
		return k->vendor < e->vendor ? -1 : 1;
	if (k->device != e->device)
		return k->device < e->device ? -1 : 1;
	return 0;
}

const struct zn_pci_id *zn_pci_id_find(uint16_t vendor, uint16_t device)
{
	const struct zn_pci_id key = { .vendor = vendor, .device = device };

	return bsearch(&key, pci_ids, N_IDS, sizeof(pci_ids[0]), id_cmp);
}

enum zn_nic_kind zn_pci_lookup_id(uint16_t vendor, uint16_t device,
				  const char **model)
{
	const struct zn_pci_id *id = zn_pci_id_find(vendor, device);

	if (model)
		*model = id ? id->model : NULL;
	return id ? (enum zn_nic_kind)id->kind : ZN_NIC_OTHER;
}

const char *zn_nic_kind_name(enum zn_nic_kind kind)
{
	switch (kind) {
	case ZN_NIC_BNXT:
		return "bnxt";
	case ZN_NIC_MLX5:
		return "mlx5";
	case ZN_NIC_OTHER:
		break;
	}
	return "other";
}

const struct zn_pci_id *zn_pci_id_table(size_t *n)
{
	*n = N_IDS;
	return pci_ids;
}
