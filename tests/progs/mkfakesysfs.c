/*
 * mkfakesysfs: builds a fake sysfs tree for the zn-devbind integration test
 * and prints its root. The caller removes it.
 *
 *   mkfakesysfs            NICs: ConnectX-6 Dx on vfio-pci, BCM57508 on bnxt_en,
 *                          an unbound BCM57414 without IOMMU group; an NVMe drive
 *   mkfakesysfs --no-vfio  the same without the ConnectX-6 Dx and vfio-pci
 *   mkfakesysfs --empty    bus/pci with no device
 */
#include <stdio.h>
#include <string.h>

#include "tests/unit/support/fake_sysfs.h"

static const struct fake_pci_dev devs[] = {
	{ .bdf = "0000:3b:00.0", .vendor = 0x15b3, .device = 0x101d,
	  .subsys_vendor = 0x15b3, .subsys_device = 0x0016, .class = 0x020000,
	  .driver = "vfio-pci", .native_driver = "mlx5_core", .iommu_group = 12, .numa_node = 0 },
	{ .bdf = "0000:5e:00.0", .vendor = 0x14e4, .device = 0x1750,
	  .subsys_vendor = 0x14e4, .subsys_device = 0x5208, .class = 0x020000,
	  .driver = "bnxt_en", .iommu_group = 7, .numa_node = 1 },
	{ .bdf = "0000:af:00.1", .vendor = 0x14e4, .device = 0x16d7,
	  .subsys_vendor = 0x14e4, .subsys_device = 0x4145, .class = 0x020000,
	  .driver = NULL, .native_driver = "bnxt_en", .iommu_group = -1, .numa_node = -1 },
	{ .bdf = "0000:01:00.0", .vendor = 0x144d, .device = 0xa808,
	  .subsys_vendor = 0x144d, .subsys_device = 0xa801, .class = 0x010802,
	  .driver = "nvme", .iommu_group = 3, .numa_node = 0 },
};

int main(int argc, char **argv)
{
	bool no_vfio = argc > 1 && !strcmp(argv[1], "--no-vfio");
	bool empty = argc > 1 && !strcmp(argv[1], "--empty");
	struct fake_sysfs fs;

	if (argc > 2 || (argc == 2 && !no_vfio && !empty)) {
		fprintf(stderr, "usage: mkfakesysfs [--no-vfio | --empty]\n");
		return 2;
	}
	if (fake_sysfs_create(&fs) < 0) {
		perror("mkfakesysfs: creating the tree");
		return 1;
	}
	for (size_t i = 0; !empty && i < sizeof(devs) / sizeof(devs[0]); i++) {
		if (no_vfio && !strcmp(devs[i].bdf, "0000:3b:00.0"))
			continue;
		if (fake_sysfs_add_dev(&fs, &devs[i]) < 0) {
			fprintf(stderr, "mkfakesysfs: adding %s failed\n", devs[i].bdf);
			fake_sysfs_destroy(&fs);
			return 1;
		}
	}
	printf("%s\n", fs.root);
	return 0;
}
