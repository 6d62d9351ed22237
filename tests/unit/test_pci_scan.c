/* core/bus PCI scan: libpci and direct sysfs paths over a fake tree, the ID table, addresses. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <cmocka.h>

#include "tests/unit/support/fake_sysfs.h"
#include "zcnic/log.h"
#include "zcnic/pci.h"

#define PCI_IDS_FILE "/usr/share/misc/pci.ids"

/* The fake machine: sorted by address, as the scan must return them. */
static const struct fake_pci_dev nvme = {
	.bdf = "0000:01:00.0", .vendor = 0x144d, .device = 0xa808,
	.subsys_vendor = 0x144d, .subsys_device = 0xa801, .class = 0x010802,
	.driver = "nvme", .iommu_group = 3, .numa_node = 0,
};
static const struct fake_pci_dev cx6dx = {
	.bdf = "0000:3b:00.0", .vendor = 0x15b3, .device = 0x101d,
	.subsys_vendor = 0x15b3, .subsys_device = 0x0016, .class = 0x020000,
	.driver = "vfio-pci", .native_driver = "mlx5_core", .iommu_group = 12, .numa_node = 0,
};
static const struct fake_pci_dev cx6vf = {
	.bdf = "0000:3b:00.2", .vendor = 0x15b3, .device = 0x101e,
	.subsys_vendor = 0x15b3, .subsys_device = 0x0016, .class = 0x020000,
	.driver = "mlx5_core", .iommu_group = 14, .numa_node = 0,
};
static const struct fake_pci_dev bcm57508 = {
	.bdf = "0000:5e:00.0", .vendor = 0x14e4, .device = 0x1750,
	.subsys_vendor = 0x14e4, .subsys_device = 0x5208, .class = 0x020000,
	.driver = "bnxt_en", .iommu_group = 7, .numa_node = 1,
};
static const struct fake_pci_dev x710 = {
	.bdf = "0000:86:00.0", .vendor = 0x8086, .device = 0x1572,
	.subsys_vendor = 0x8086, .subsys_device = 0x0001, .class = 0x020000,
	.driver = "i40e", .iommu_group = 40, .numa_node = 1,
};
/* No driver, no IOMMU group, no NUMA node; subsystem IDs only in config space. */
static const struct fake_pci_dev bcm57414 = {
	.bdf = "0001:af:1f.7", .vendor = 0x14e4, .device = 0x16d7,
	.subsys_vendor = 0x14e4, .subsys_device = 0x4145, .class = 0x020000,
	.driver = NULL, .iommu_group = -1, .numa_node = -1, .no_subsys_files = true,
};

static const struct fake_pci_dev *const machine[] = {
	&bcm57414, &x710, &nvme, &bcm57508, &cx6vf, &cx6dx,	/* added out of order */
};
#define N_MACHINE (sizeof(machine) / sizeof(machine[0]))

static struct fake_sysfs fs;
static int nwarn;
static char first_warn[512], last_warn[512];

static void sink(enum zn_log_level level, const char *comp, const char *msg, void *arg)
{
	(void)comp; (void)arg;
	if (level <= ZN_LOG_WARN) {
		if (nwarn++ == 0)
			snprintf(first_warn, sizeof(first_warn), "%s", msg);
		snprintf(last_warn, sizeof(last_warn), "%s", msg);
	}
}

static int setup(void **state)
{
	(void)state;
	if (fake_sysfs_create(&fs) < 0)
		return -1;
	for (size_t i = 0; i < N_MACHINE; i++)
		if (fake_sysfs_add_dev(&fs, machine[i]) < 0)
			return -1;
	setenv(ZN_SYSFS_ROOT_ENV, fs.root, 1);
	nwarn = 0;
	first_warn[0] = last_warn[0] = '\0';
	zn_log_set_sink(sink, NULL);
	return 0;
}

static int teardown(void **state)
{
	(void)state;
	zn_log_set_sink(NULL, NULL);
	unsetenv(ZN_SYSFS_ROOT_ENV);
	fake_sysfs_destroy(&fs);
	return 0;
}

static void assert_dev(const struct zn_pci_dev *d, const struct fake_pci_dev *f,
		       enum zn_nic_kind kind, bool is_vf, const char *model)
{
	assert_string_equal(d->bdf, f->bdf);
	assert_int_equal(d->vendor, f->vendor);
	assert_int_equal(d->device, f->device);
	assert_int_equal(d->subsys_vendor, f->subsys_vendor);
	assert_int_equal(d->subsys_device, f->subsys_device);
	assert_int_equal(d->class, f->class);
	assert_string_equal(d->driver, f->driver ? f->driver : "");
	assert_int_equal(d->iommu_group, f->iommu_group);
	assert_int_equal(d->numa_node, f->numa_node);
	assert_int_equal(d->kind, kind);
	assert_int_equal(d->is_vf, is_vf);
	if (model) {
		assert_non_null(d->model);
		assert_string_equal(d->model, model);
		assert_string_equal(d->name, model);
	} else {
		assert_null(d->model);
	}
}

/* Every network device of the machine, every field. */
static void check_net_scan(unsigned flags)
{
	struct zn_pci_dev *devs = NULL;
	size_t n = 0;

	assert_int_equal(zn_pci_scan(ZN_PCI_SCAN_NET | flags, &devs, &n), 0);
	assert_int_equal(n, 5);
	assert_dev(&devs[0], &cx6dx, ZN_NIC_MLX5, false, "ConnectX-6 Dx");
	assert_dev(&devs[1], &cx6vf, ZN_NIC_MLX5, true, "ConnectX mlx5Gen VF");
	assert_dev(&devs[2], &bcm57508, ZN_NIC_BNXT, false, "BCM57508 NetXtreme-E 200G");
	assert_dev(&devs[3], &x710, ZN_NIC_OTHER, false, NULL);
	assert_dev(&devs[4], &bcm57414, ZN_NIC_BNXT, false, "BCM57414 NetXtreme-E 25G");
	for (size_t i = 0; i < n; i++)
		assert_true(zn_pci_is_net(&devs[i]));
	/* Only libpci reads pci.ids names; the direct path leaves them empty. */
	if (!(flags & ZN_PCI_SCAN_NO_LIBPCI) && access(PCI_IDS_FILE, R_OK) == 0)
		assert_non_null(strstr(devs[3].name, "Ethernet Controller X710"));
	else if (flags & ZN_PCI_SCAN_NO_LIBPCI)
		assert_string_equal(devs[3].name, "");
	assert_int_equal(nwarn, 0);
	zn_pci_free(devs);
}

static void test_scan_libpci_net(void **state)
{
	(void)state;
	check_net_scan(0);
}

static void test_scan_direct_net(void **state)
{
	(void)state;
	check_net_scan(ZN_PCI_SCAN_NO_LIBPCI);
}

static void test_scan_all_includes_non_nic(void **state)
{
	struct zn_pci_dev *devs = NULL;
	size_t n = 0;

	(void)state;
	for (int pass = 0; pass < 2; pass++) {
		assert_int_equal(zn_pci_scan(pass ? ZN_PCI_SCAN_NO_LIBPCI : 0, &devs, &n), 0);
		assert_int_equal(n, N_MACHINE);
		assert_dev(&devs[0], &nvme, ZN_NIC_OTHER, false, NULL);
		assert_false(zn_pci_is_net(&devs[0]));
		assert_string_equal(devs[1].bdf, cx6dx.bdf);
		assert_string_equal(devs[5].bdf, bcm57414.bdf);
		zn_pci_free(devs);
	}
}

static void test_scan_no_pci_bus(void **state)
{
	struct zn_pci_dev *devs = (struct zn_pci_dev *)&devs;	/* must be reset */
	char path[FAKE_SYSFS_PATH_MAX];
	size_t n = 99;

	(void)state;
	/* A root with no bus/pci at all, like a machine without PCI. */
	fake_sysfs_path(&fs, "kernel", path);
	setenv(ZN_SYSFS_ROOT_ENV, path, 1);
	assert_int_equal(zn_pci_scan(0, &devs, &n), 0);
	assert_int_equal(n, 0);
	assert_null(devs);
	/* A root that does not exist. */
	fake_sysfs_path(&fs, "nonexistent", path);
	setenv(ZN_SYSFS_ROOT_ENV, path, 1);
	assert_int_equal(zn_pci_scan(ZN_PCI_SCAN_NET, &devs, &n), 0);
	assert_int_equal(n, 0);
	assert_null(devs);
	assert_int_equal(nwarn, 0);
}

static void test_scan_empty_bus(void **state)
{
	struct fake_sysfs empty;
	struct zn_pci_dev *devs = NULL;
	size_t n = 99;

	(void)state;
	assert_int_equal(fake_sysfs_create(&empty), 0);
	setenv(ZN_SYSFS_ROOT_ENV, empty.root, 1);
	for (int pass = 0; pass < 2; pass++) {
		assert_int_equal(zn_pci_scan(pass ? ZN_PCI_SCAN_NO_LIBPCI : 0, &devs, &n), 0);
		assert_int_equal(n, 0);
		assert_null(devs);
	}
	fake_sysfs_destroy(&empty);
}

/* A device directory libpci cannot read: the scan falls back and skips it. */
static void test_scan_malformed_entry_falls_back(void **state)
{
	struct zn_pci_dev *devs = NULL;
	char path[FAKE_SYSFS_PATH_MAX];
	size_t n = 0;

	(void)state;
	fake_sysfs_path(&fs, "bus/pci/devices/0000:00:1f.0", path);
	assert_int_equal(mkdir(path, 0755), 0);	/* no vendor/device/class */
	assert_int_equal(zn_pci_scan(ZN_PCI_SCAN_NET, &devs, &n), 0);
	assert_int_equal(n, 5);
	assert_dev(&devs[2], &bcm57508, ZN_NIC_BNXT, false, "BCM57508 NetXtreme-E 200G");
	assert_int_equal(nwarn, 2);
	assert_non_null(strstr(first_warn, "0000:00:1f.0 is not a readable PCI device; "
			       "reading sysfs directly"));
	assert_non_null(strstr(last_warn, "0000:00:1f.0"));
	assert_non_null(strstr(last_warn, "skipping"));
	zn_pci_free(devs);
}

/* An entry that passes the pre-check but makes libpci raise its (fatal) error. */
static void test_scan_libpci_error_caught(void **state)
{
	struct zn_pci_dev *devs = NULL;
	char path[FAKE_SYSFS_PATH_MAX];
	size_t n = 0;

	(void)state;
	fake_sysfs_path(&fs, "bus/pci/devices/0000:01:00.0/vendor", path);
	assert_int_equal(unlink(path), 0);
	assert_int_equal(mkdir(path, 0755), 0);	/* exists, cannot be read */
	assert_int_equal(zn_pci_scan(0, &devs, &n), 0);
	assert_int_equal(n, N_MACHINE - 1);	/* the NVMe is skipped */
	assert_string_equal(devs[0].bdf, cx6dx.bdf);
	assert_dev(&devs[4], &bcm57414, ZN_NIC_BNXT, false, "BCM57414 NetXtreme-E 25G");
	assert_int_equal(nwarn, 2);
	assert_true(!strncmp(first_warn, "libpci: Error reading ", 22));
	assert_non_null(strstr(first_warn, "; reading sysfs directly"));
	assert_non_null(strstr(last_warn, "skipping"));
	zn_pci_free(devs);
}

static void test_dev_get(void **state)
{
	struct zn_pci_dev d;

	(void)state;
	assert_int_equal(zn_pci_dev_get("5e:00.0", &d), 0);
	assert_dev(&d, &bcm57508, ZN_NIC_BNXT, false, "BCM57508 NetXtreme-E 200G");
	assert_int_equal(zn_pci_dev_get("0001:AF:1F.7", &d), 0);
	assert_dev(&d, &bcm57414, ZN_NIC_BNXT, false, "BCM57414 NetXtreme-E 25G");
	assert_int_equal(zn_pci_dev_get("0000:5e:00.1", &d), -ENODEV);
	assert_int_equal(zn_pci_dev_get("../../../etc", &d), -EINVAL);
}

static void test_parse_bdf(void **state)
{
	static const char *const bad[] = {
		"", "3b", "3b:00", "3b:00.", "3b:00.8", "3b:20.0", "100:00.0",
		"0000:3b:00.0x", " 3b:00.0", "+3b:00.0", "0x3b:00.0", "1234567:00:00.0",
		"0000:3b:00:0", "0000:123:00.0", "../3b:00.0", "3b:00.0/..",
	};
	char out[ZN_PCI_BDF_LEN];

	(void)state;
	assert_int_equal(zn_pci_parse_bdf("3b:00.0", out), 0);
	assert_string_equal(out, "0000:3b:00.0");
	assert_int_equal(zn_pci_parse_bdf("0000:3B:1f.7", out), 0);
	assert_string_equal(out, "0000:3b:1f.7");
	assert_int_equal(zn_pci_parse_bdf("10000:0:1.2", out), 0);
	assert_string_equal(out, "10000:00:01.2");
	assert_int_equal(zn_pci_parse_bdf("ffffff:ff:1f.7", out), 0);
	assert_string_equal(out, "ffffff:ff:1f.7");
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		memset(out, 'x', sizeof(out));
		if (zn_pci_parse_bdf(bad[i], out) != -EINVAL)
			fail_msg("'%s' accepted as a PCI address", bad[i]);
	}
	assert_int_equal(zn_pci_parse_bdf(NULL, out), -EINVAL);
}

static void test_id_table_sorted_and_complete(void **state)
{
	size_t n;
	const struct zn_pci_id *t = zn_pci_id_table(&n);

	(void)state;
	assert_true(n > 90);
	for (size_t i = 0; i < n; i++) {
		assert_true(t[i].kind == ZN_NIC_BNXT || t[i].kind == ZN_NIC_MLX5);
		assert_int_equal(t[i].vendor, t[i].kind == ZN_NIC_BNXT ?
				 ZN_PCI_VENDOR_BROADCOM : ZN_PCI_VENDOR_MELLANOX);
		assert_non_null(t[i].model);
		assert_true(strlen(t[i].model) > 3 && strlen(t[i].model) < 40);
		if (i > 0 && ((uint32_t)t[i - 1].vendor << 16 | t[i - 1].device) >=
			     ((uint32_t)t[i].vendor << 16 | t[i].device))
			fail_msg("ID table out of order at %04x:%04x", t[i].vendor, t[i].device);
		/* every entry is found by the binary search */
		assert_ptr_equal(zn_pci_id_find(t[i].vendor, t[i].device), &t[i]);
	}
}

static void test_lookup_ids(void **state)
{
	static const struct {
		uint16_t vendor, device;
		enum zn_nic_kind kind;
		bool vf;
		const char *model;
	} cases[] = {
		{ 0x14e4, 0x1750, ZN_NIC_BNXT, false, "BCM57508 NetXtreme-E 200G" },
		{ 0x14e4, 0x1751, ZN_NIC_BNXT, false, "BCM57504 NetXtreme-E 200G" },
		{ 0x14e4, 0x16d7, ZN_NIC_BNXT, false, "BCM57414 NetXtreme-E 25G" },
		{ 0x14e4, 0x16c8, ZN_NIC_BNXT, false, "BCM57301 NetXtreme-C 10G" },
		{ 0x14e4, 0x1760, ZN_NIC_BNXT, false, "BCM57608 NetXtreme-E 400G" },
		{ 0x14e4, 0x1806, ZN_NIC_BNXT, true, "BCM5750x NetXtreme-E VF" },
		{ 0x14e4, 0x16dc, ZN_NIC_BNXT, true, "NetXtreme-E VF" },
		{ 0x14e4, 0xd82e, ZN_NIC_BNXT, true, "BCM58818 Stingray2 VF" },
		{ 0x15b3, 0x1013, ZN_NIC_MLX5, false, "ConnectX-4" },
		{ 0x15b3, 0x1017, ZN_NIC_MLX5, false, "ConnectX-5" },
		{ 0x15b3, 0x101d, ZN_NIC_MLX5, false, "ConnectX-6 Dx" },
		{ 0x15b3, 0x101e, ZN_NIC_MLX5, true, "ConnectX mlx5Gen VF" },
		{ 0x15b3, 0x1021, ZN_NIC_MLX5, false, "ConnectX-7" },
		{ 0x15b3, 0xa2dc, ZN_NIC_MLX5, false, "BlueField-3 (ConnectX-7)" },
		/* not ours: Intel X710, tg3's BCM5719, mlx4's ConnectX-3, a Broadcom ID with a Mellanox number */
		{ 0x8086, 0x1572, ZN_NIC_OTHER, false, NULL },
		{ 0x14e4, 0x1657, ZN_NIC_OTHER, false, NULL },
		{ 0x15b3, 0x1003, ZN_NIC_OTHER, false, NULL },
		{ 0x14e4, 0x101d, ZN_NIC_OTHER, false, NULL },
		{ 0x0000, 0x0000, ZN_NIC_OTHER, false, NULL },
		{ 0xffff, 0xffff, ZN_NIC_OTHER, false, NULL },
	};

	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		const char *model = "unset";
		const struct zn_pci_id *id;

		assert_int_equal(zn_pci_lookup_id(cases[i].vendor, cases[i].device, &model),
				 cases[i].kind);
		id = zn_pci_id_find(cases[i].vendor, cases[i].device);
		if (!cases[i].model) {
			assert_null(model);
			assert_null(id);
			continue;
		}
		assert_non_null(model);
		assert_string_equal(model, cases[i].model);
		assert_non_null(id);
		assert_int_equal(!!(id->flags & ZN_PCI_ID_VF), cases[i].vf);
	}
	/* model may be NULL */
	assert_int_equal(zn_pci_lookup_id(0x15b3, 0x101d, NULL), ZN_NIC_MLX5);
	assert_string_equal(zn_nic_kind_name(ZN_NIC_BNXT), "bnxt");
	assert_string_equal(zn_nic_kind_name(ZN_NIC_MLX5), "mlx5");
	assert_string_equal(zn_nic_kind_name(ZN_NIC_OTHER), "other");
}

static void test_sysfs_root_default(void **state)
{
	(void)state;
	unsetenv(ZN_SYSFS_ROOT_ENV);
	assert_string_equal(zn_sysfs_root(), "/sys");
	setenv(ZN_SYSFS_ROOT_ENV, "", 1);
	assert_string_equal(zn_sysfs_root(), "/sys");
	setenv(ZN_SYSFS_ROOT_ENV, fs.root, 1);
	assert_string_equal(zn_sysfs_root(), fs.root);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_scan_libpci_net, setup, teardown),
		cmocka_unit_test_setup_teardown(test_scan_direct_net, setup, teardown),
		cmocka_unit_test_setup_teardown(test_scan_all_includes_non_nic, setup, teardown),
		cmocka_unit_test_setup_teardown(test_scan_no_pci_bus, setup, teardown),
		cmocka_unit_test_setup_teardown(test_scan_empty_bus, setup, teardown),
		cmocka_unit_test_setup_teardown(test_scan_malformed_entry_falls_back, setup, teardown),
		cmocka_unit_test_setup_teardown(test_scan_libpci_error_caught, setup, teardown),
		cmocka_unit_test_setup_teardown(test_dev_get, setup, teardown),
		cmocka_unit_test(test_parse_bdf),
		cmocka_unit_test(test_id_table_sorted_and_complete),
		cmocka_unit_test(test_lookup_ids),
		cmocka_unit_test_setup_teardown(test_sysfs_root_default, setup, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
