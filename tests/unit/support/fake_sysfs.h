/* SPDX-License-Identifier: MIT */
/*
 * A fake sysfs tree in a temporary directory, shaped like the parts of /sys
 * that core/bus PCI code reads and writes (point ZN_SYSFS_ROOT at it):
 *
 *   ROOT/bus/pci/devices/BDF/{vendor,device,class,subsystem_vendor,
 *        subsystem_device,numa_node,config,driver_override}
 *   ROOT/bus/pci/devices/BDF/driver      -> ../../../../bus/pci/drivers/NAME
 *   ROOT/bus/pci/devices/BDF/iommu_group -> ../../../../kernel/iommu_groups/N
 *   ROOT/bus/pci/drivers/NAME/{bind,unbind,new_id}      (empty plain files)
 *   ROOT/bus/pci/drivers_probe                          (empty plain file)
 *   ROOT/kernel/iommu_groups/N/devices/BDF -> ../../../../bus/pci/devices/BDF
 *   ROOT/class/infiniband/NAME/device -> ../../../bus/pci/devices/BDF (RDMA)
 *   ROOT/bus/pci/devices/BDF/net/IFNAME/                        (netdevs)
 *
 * Plain files do not react to writes. fake_sysfs_on_write (a zn_pci_write_fn)
 * records every write in order and, when asked to, plays the kernel's part:
 *   - "BDF" to drivers/NAME/unbind removes devices/BDF/driver;
 *   - a write to devices/BDF/driver_override leaves the file holding the
 *     override as the kernel shows it ("" when cleared);
 *   - "BDF" to drivers_probe binds an unbound device: to its override when
 *     set and that driver exists (vfio-pci only if the device has an IOMMU
 *     group, as the real vfio-pci requires), else to its native driver.
 * Without emulation the files keep every byte written (appends).
 */
#ifndef ZCNIC_TEST_FAKE_SYSFS_H
#define ZCNIC_TEST_FAKE_SYSFS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define FAKE_SYSFS_ROOT_MAX	256
#define FAKE_SYSFS_PATH_MAX	512
#define FAKE_SYSFS_MAX_WRITES	32

struct fake_pci_dev {
	const char *bdf;		/* canonical "0000:3b:00.0" */
	uint16_t vendor, device;
	uint16_t subsys_vendor, subsys_device;
	uint32_t class;			/* 24 bits */
	const char *driver;		/* bound driver, NULL: none */
	const char *native_driver;	/* what drivers_probe picks without override; NULL: driver */
	int iommu_group;		/* -1: no iommu_group link */
	int numa_node;			/* written to numa_node */
	bool no_subsys_files;		/* leave subsystem_* out (IDs only in config) */
	bool no_driver_override;	/* leave driver_override out (pre-3.15 kernel) */
};

struct fake_sysfs_write {
	char path[FAKE_SYSFS_PATH_MAX];	/* relative to the root */
	char data[64];
	size_t len;
};

struct fake_sysfs {
	char root[FAKE_SYSFS_ROOT_MAX];
	bool emulate;			/* play the kernel on writes */
	size_t nwrites;
	struct fake_sysfs_write writes[FAKE_SYSFS_MAX_WRITES];
};

/* A new empty tree (bus/pci/{devices,drivers,drivers_probe}, kernel/iommu_groups). */
int fake_sysfs_create(struct fake_sysfs *fs);
/* Remove the whole tree. */
void fake_sysfs_destroy(struct fake_sysfs *fs);
int fake_sysfs_add_driver(struct fake_sysfs *fs, const char *name);
/* Adds the device, and its driver and IOMMU group when missing. */
int fake_sysfs_add_dev(struct fake_sysfs *fs, const struct fake_pci_dev *d);

/* An RDMA device NAME on the PCI function bdf (added before; NULL: a soft
 * device with no device link), with netdevs[0..nnet) under its net/. */
int fake_sysfs_add_rdma(struct fake_sysfs *fs, const char *name, const char *bdf,
			const char *const *netdevs, unsigned nnet);

/* ROOT + "/" + rel. */
const char *fake_sysfs_path(const struct fake_sysfs *fs, const char *rel, char *buf);
/* The whole content of ROOT/rel, NUL-terminated, malloc'ed (NULL on error). */
char *fake_sysfs_read(const struct fake_sysfs *fs, const char *rel, size_t *len);
/* The driver a device is bound to ("" when none); 0 or -errno. */
int fake_sysfs_driver_of(const struct fake_sysfs *fs, const char *bdf, char *buf, size_t len);

/* zn_pci_write_fn: arg is the struct fake_sysfs. */
void fake_sysfs_on_write(const char *path, const char *data, size_t len, void *arg);

#endif
