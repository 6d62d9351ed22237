/* SPDX-License-Identifier: MIT */
/*
 * core/bus PCI discovery: which PCI devices a machine has, which of them zcnic
 * can drive, and moving a NIC between its kernel driver and vfio-pci.
 *
 * Everything is read from (and written to) sysfs under one root, taken from
 * the ZN_SYSFS_ROOT environment variable ("/sys" when unset), so that tests
 * can run the same code against a fake tree in a temporary directory:
 *
 *   ROOT/bus/pci/devices/BDF/{vendor,device,class,subsystem_*,numa_node,
 *                             config,driver_override,driver -> ,iommu_group -> }
 *   ROOT/bus/pci/drivers/NAME/{bind,unbind,new_id}
 *   ROOT/bus/pci/drivers_probe
 *
 * A machine without a PCI bus (no ROOT/bus/pci/devices) has no devices; that
 * is not an error.
 */
#ifndef ZCNIC_PCI_H
#define ZCNIC_PCI_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#pragma GCC visibility push(default)	/* the library's ABI: core/libzcnic.map */

#define ZN_SYSFS_ROOT_ENV	"ZN_SYSFS_ROOT"
#define ZN_SYSFS_ROOT_DEFAULT	"/sys"
#define ZN_PCI_BDF_LEN		16	/* "0000:3b:00.0" + NUL, with room for wide domains */
#define ZN_PCI_VFIO_DRIVER	"vfio-pci"

#define ZN_PCI_VENDOR_BROADCOM	0x14e4
#define ZN_PCI_VENDOR_MELLANOX	0x15b3
#define ZN_PCI_CLASS_NETWORK	0x02	/* base class byte */

enum zn_nic_kind {
	ZN_NIC_OTHER = 0,	/* a device zcnic has no driver for */
	ZN_NIC_BNXT,
	ZN_NIC_MLX5,
};

struct zn_pci_dev {
	char bdf[ZN_PCI_BDF_LEN];	/* canonical "dddd:bb:dd.f" */
	uint16_t vendor, device;
	uint16_t subsys_vendor, subsys_device;
	uint32_t class;			/* 24 bits: base class, subclass, prog-if */
	char driver[64];		/* bound kernel driver, "" when none */
	int iommu_group;		/* -1: no IOMMU group */
	int numa_node;			/* -1: unknown / not NUMA */
	enum zn_nic_kind kind;
	bool is_vf;			/* an SR-IOV virtual function ID */
	const char *model;		/* zcnic's name for a bnxt/mlx5 part; NULL otherwise */
	char name[96];			/* model, else the pci.ids name (libpci), else "" */
};

/* ---- ID table (core/bus/pci_ids.c) ---- */

enum {
	ZN_PCI_ID_VF = 1u << 0,
};

struct zn_pci_id {
	uint16_t vendor;
	uint16_t device;
	uint8_t kind;		/* enum zn_nic_kind */
	uint8_t flags;		/* ZN_PCI_ID_* */
	const char *model;
};

/* The table entry for an ID, or NULL when zcnic has no driver for it. */
const struct zn_pci_id *zn_pci_id_find(uint16_t vendor, uint16_t device);
/* The kind of an ID; *model (may be NULL) gets its name or NULL. */
enum zn_nic_kind zn_pci_lookup_id(uint16_t vendor, uint16_t device,
				  const char **model);
const char *zn_nic_kind_name(enum zn_nic_kind kind);
/* The whole table, sorted by (vendor, device); for tests and listings. */
const struct zn_pci_id *zn_pci_id_table(size_t *n);

/* ---- Scan (core/bus/pci_scan.c) ---- */

enum {
	ZN_PCI_SCAN_NET = 1u << 0,	/* network-class devices only (class 0x02xxxx) */
	ZN_PCI_SCAN_NO_LIBPCI = 1u << 1,/* read sysfs directly instead of through libpci */
};

/* The sysfs root in use: $ZN_SYSFS_ROOT or "/sys" (read on every call). */
const char *zn_sysfs_root(void);

/*
 * All PCI devices, sorted by address. *devs is malloc'ed (NULL when *n == 0)
 * and released with zn_pci_free. Returns 0 or a negative errno.
 */
int zn_pci_scan(unsigned flags, struct zn_pci_dev **devs, size_t *n);
void zn_pci_free(struct zn_pci_dev *devs);
bool zn_pci_is_net(const struct zn_pci_dev *d);

/*
 * Normalise a PCI address: "3b:00.0" -> "0000:3b:00.0". -EINVAL when it is
 * not one (also keeps path components like ".." out of sysfs paths).
 */
int zn_pci_parse_bdf(const char *in, char out[ZN_PCI_BDF_LEN]);

/* One device by address, read from sysfs. -ENODEV when there is none. */
int zn_pci_dev_get(const char *bdf, struct zn_pci_dev *out);

/* ---- RDMA devices (core/bus/rdma_scan.c) ---- */

/*
 * An RDMA device as rdma-core names it ("mlx5_0"), with what sysfs says
 * about it: ROOT/class/infiniband/NAME/device is its PCI function (a link
 * whose last component is the address), .../device/net/ its network
 * interfaces, .../device/driver its kernel driver. An mlx5 device bound to
 * mlx5_core is driven through rdma-core DevX with the device string
 * "ibv:NAME" (hw-docs/mlx5.md §16).
 */
struct zn_rdma_dev {
	char name[64];
	char pci[ZN_PCI_BDF_LEN];	/* "" when not a PCI function */
	char netdev[32];		/* the first interface by name, "" when none */
	char driver[32];		/* kernel driver of the function, "" when none */
	uint16_t vendor, device;	/* 0 when unknown */
	bool mlx5;			/* bound to mlx5_core */
};

/*
 * The RDMA devices rdma-core lists (ibv_get_device_list), in its order,
 * each completed from sysfs. *devs is malloc'ed (NULL when *n == 0), freed
 * with zn_rdma_free. -ENOSYS when rdma-core (libibverbs.so.1, libmlx5.so.1)
 * is not installed; the log says what is missing.
 */
int zn_rdma_list(struct zn_rdma_dev **devs, size_t *n);
void zn_rdma_free(struct zn_rdma_dev *devs);
/* One device by name, from sysfs alone. -ENODEV when sysfs has no such
 * device, -EINVAL for a name that is not one (empty, '/', too long). */
int zn_rdma_dev_get(const char *name, struct zn_rdma_dev *out);

/* ---- Binding (core/bus/pci_bind.c) ---- */

/* Called after each sysfs write that succeeded (path is absolute). */
typedef void (*zn_pci_write_fn)(const char *path, const char *data, size_t len,
				void *arg);

struct zn_pci_bind_opts {
	bool dry_run;		/* print each write instead of making it */
	bool force;		/* allow a device that is not network class */
	bool reprobe;		/* unbind: let the kernel driver take it back */
	FILE *out;		/* progress and dry-run lines; NULL: none */
	/*
	 * Observer of writes. A fake sysfs of plain files does not react to
	 * writes as the kernel does; tests use this to record the writes and
	 * to emulate the kernel's reaction (re-pointing the driver link).
	 */
	zn_pci_write_fn on_write;
	void *on_write_arg;
};

/*
 * Bind a device to vfio-pci the way dpdk-devbind does (driver_override,
 * unbind from the current driver, drivers_probe) and check the result.
 * Already bound to vfio-pci: says so and returns 0. Errors are logged (one
 * line, component "pci") and returned: -ENODEV no such device, -EINVAL not a
 * network device (unless opts->force) or a malformed address, -ENOENT vfio-pci
 * not loaded, -EIO the probe did not bind it, -errno of a failed write.
 */
int zn_pci_bind_vfio(const char *bdf, const struct zn_pci_bind_opts *opts);

/*
 * Unbind a device from its current driver and clear driver_override; with
 * opts->reprobe, ask the kernel to probe it again (its own driver takes it).
 */
int zn_pci_unbind(const char *bdf, const struct zn_pci_bind_opts *opts);

#pragma GCC visibility pop

#endif
