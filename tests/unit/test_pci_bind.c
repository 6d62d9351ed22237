/*
 * core/bus vfio-pci bind/unbind over a fake sysfs: the exact writes in their
 * exact order, the kernel's reaction emulated by fake_sysfs_on_write, and
 * every refusal with its errno and message.
 */
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

#define BCM	"0000:5e:00.0"
#define CX6	"0000:3b:00.0"
#define NVME	"0000:01:00.0"
#define LONE	"0000:af:00.1"	/* a NIC bound to nothing */
#define NOGRP	"0000:d8:00.0"	/* a NIC outside any IOMMU group */

static const struct fake_pci_dev devs[] = {
	{ .bdf = BCM, .vendor = 0x14e4, .device = 0x1750, .class = 0x020000,
	  .driver = "bnxt_en", .iommu_group = 7, .numa_node = 1 },
	{ .bdf = CX6, .vendor = 0x15b3, .device = 0x101d, .class = 0x020000,
	  .driver = "vfio-pci", .native_driver = "mlx5_core", .iommu_group = 12, .numa_node = 0 },
	{ .bdf = NVME, .vendor = 0x144d, .device = 0xa808, .class = 0x010802,
	  .driver = "nvme", .iommu_group = 3, .numa_node = 0 },
	{ .bdf = LONE, .vendor = 0x14e4, .device = 0x16d7, .class = 0x020000,
	  .driver = NULL, .native_driver = "bnxt_en", .iommu_group = 9, .numa_node = 1 },
	{ .bdf = NOGRP, .vendor = 0x14e4, .device = 0x1751, .class = 0x020000,
	  .driver = "bnxt_en", .iommu_group = -1, .numa_node = 1 },
};

static struct fake_sysfs fs;
static char *out_buf;
static size_t out_len;
static FILE *out;
static struct zn_pci_bind_opts opts;
static int nerr, nwarn;
static char last_err[512], last_warn[512];

static void sink(enum zn_log_level level, const char *comp, const char *msg, void *arg)
{
	(void)arg;
	assert_string_equal(comp, "pci");
	if (level == ZN_LOG_ERR) {
		nerr++;
		snprintf(last_err, sizeof(last_err), "%s", msg);
	} else if (level == ZN_LOG_WARN) {
		nwarn++;
		snprintf(last_warn, sizeof(last_warn), "%s", msg);
	}
}

static int make_tree(bool with_vfio)
{
	if (fake_sysfs_create(&fs) < 0)
		return -1;
	for (size_t i = 0; i < sizeof(devs) / sizeof(devs[0]); i++) {
		if (!with_vfio && devs[i].driver && !strcmp(devs[i].driver, "vfio-pci"))
			continue;
		if (fake_sysfs_add_dev(&fs, &devs[i]) < 0)
			return -1;
	}
	setenv(ZN_SYSFS_ROOT_ENV, fs.root, 1);
	fs.emulate = true;
	out = open_memstream(&out_buf, &out_len);
	if (!out)
		return -1;
	memset(&opts, 0, sizeof(opts));
	opts.out = out;
	opts.on_write = fake_sysfs_on_write;
	opts.on_write_arg = &fs;
	nerr = nwarn = 0;
	last_err[0] = last_warn[0] = '\0';
	zn_log_set_sink(sink, NULL);
	return 0;
}

static int setup(void **state)
{
	(void)state;
	return make_tree(true);
}

static int setup_no_vfio(void **state)
{
	(void)state;
	return make_tree(false);
}

static int teardown(void **state)
{
	(void)state;
	zn_log_set_sink(NULL, NULL);
	unsetenv(ZN_SYSFS_ROOT_ENV);
	fclose(out);
	free(out_buf);
	out_buf = NULL;
	fake_sysfs_destroy(&fs);
	return 0;
}

/* What the code printed so far. */
static const char *printed(void)
{
	fflush(out);
	return out_buf ? out_buf : "";
}

static void assert_write(size_t i, const char *rel, const char *data)
{
	assert_true(i < fs.nwrites);
	assert_string_equal(fs.writes[i].path, rel);
	assert_int_equal(fs.writes[i].len, strlen(data));
	assert_memory_equal(fs.writes[i].data, data, strlen(data));
}

static void assert_file(const char *rel, const char *content)
{
	size_t len = 0;
	char *s = fake_sysfs_read(&fs, rel, &len);

	assert_non_null(s);
	assert_int_equal(len, strlen(content));
	assert_string_equal(s, content);
	free(s);
}

static void assert_driver(const char *bdf, const char *want)
{
	char drv[64];

	assert_int_equal(fake_sysfs_driver_of(&fs, bdf, drv, sizeof(drv)), 0);
	assert_string_equal(drv, want);
}

static void test_bind_exact_writes(void **state)
{
	(void)state;
	assert_int_equal(zn_pci_bind_vfio(BCM, &opts), 0);
	assert_int_equal(fs.nwrites, 3);
	assert_write(0, "bus/pci/devices/" BCM "/driver_override", "vfio-pci");
	assert_write(1, "bus/pci/drivers/bnxt_en/unbind", BCM);
	assert_write(2, "bus/pci/drivers_probe", BCM);
	assert_driver(BCM, "vfio-pci");
	assert_file("bus/pci/devices/" BCM "/driver_override", "vfio-pci");
	assert_string_equal(printed(), BCM " bound to vfio-pci (was bnxt_en)\n");
	assert_int_equal(nerr, 0);
	assert_int_equal(nwarn, 0);
}

/* Short form of the address, device bound to nothing: no unbind write. */
static void test_bind_unbound_device(void **state)
{
	(void)state;
	assert_int_equal(zn_pci_bind_vfio("af:00.1", &opts), 0);
	assert_int_equal(fs.nwrites, 2);
	assert_write(0, "bus/pci/devices/" LONE "/driver_override", "vfio-pci");
	assert_write(1, "bus/pci/drivers_probe", LONE);
	assert_driver(LONE, "vfio-pci");
	assert_string_equal(printed(), LONE " bound to vfio-pci\n");
}

/*
 * Plain files that do not react: the verify step sees bnxt_en still bound,
 * fails, and undoes the override. The files hold every byte written.
 */
static void test_bind_verify_fails_without_kernel(void **state)
{
	(void)state;
	fs.emulate = false;
	assert_int_equal(zn_pci_bind_vfio(BCM, &opts), -EIO);
	assert_int_equal(fs.nwrites, 5);
	assert_write(0, "bus/pci/devices/" BCM "/driver_override", "vfio-pci");
	assert_write(1, "bus/pci/drivers/bnxt_en/unbind", BCM);
	assert_write(2, "bus/pci/drivers_probe", BCM);
	assert_write(3, "bus/pci/devices/" BCM "/driver_override", "\n");
	assert_write(4, "bus/pci/drivers_probe", BCM);
	assert_file("bus/pci/devices/" BCM "/driver_override", "vfio-pci\n");
	assert_file("bus/pci/drivers/bnxt_en/unbind", BCM);
	assert_file("bus/pci/drivers_probe", BCM BCM);
	assert_file("bus/pci/drivers/vfio-pci/bind", "");
	assert_file("bus/pci/drivers/vfio-pci/new_id", "");
	assert_int_equal(nerr, 1);
	assert_string_equal(last_err, BCM ": vfio-pci did not take the device "
			    "(driver now: bnxt_en); see dmesg");
	assert_string_equal(printed(), "");
}

/* vfio-pci refuses a device with no IOMMU group; the device goes back to bnxt_en. */
static void test_bind_no_iommu_group_rolls_back(void **state)
{
	(void)state;
	assert_int_equal(zn_pci_bind_vfio(NOGRP, &opts), -EIO);
	assert_int_equal(nwarn, 1);
	assert_string_equal(last_warn, NOGRP " has no IOMMU group: vfio-pci takes it "
			    "only in no-IOMMU mode");
	assert_int_equal(nerr, 1);
	assert_string_equal(last_err, NOGRP ": vfio-pci did not take the device "
			    "(driver now: none); see dmesg");
	assert_int_equal(fs.nwrites, 5);
	assert_write(0, "bus/pci/devices/" NOGRP "/driver_override", "vfio-pci");
	assert_write(1, "bus/pci/drivers/bnxt_en/unbind", NOGRP);
	assert_write(2, "bus/pci/drivers_probe", NOGRP);
	assert_write(3, "bus/pci/devices/" NOGRP "/driver_override", "\n");
	assert_write(4, "bus/pci/drivers_probe", NOGRP);
	assert_driver(NOGRP, "bnxt_en");
	assert_file("bus/pci/devices/" NOGRP "/driver_override", "");
}

static void test_bind_not_a_nic(void **state)
{
	(void)state;
	assert_int_equal(zn_pci_bind_vfio(NVME, &opts), -EINVAL);
	assert_int_equal(fs.nwrites, 0);
	assert_int_equal(nerr, 1);
	assert_string_equal(last_err, NVME " is not a network device (class 010802); "
			    "use --force to bind it anyway");
	assert_driver(NVME, "nvme");

	opts.force = true;
	assert_int_equal(zn_pci_bind_vfio(NVME, &opts), 0);
	assert_int_equal(fs.nwrites, 3);
	assert_write(0, "bus/pci/devices/" NVME "/driver_override", "vfio-pci");
	assert_write(1, "bus/pci/drivers/nvme/unbind", NVME);
	assert_write(2, "bus/pci/drivers_probe", NVME);
	assert_driver(NVME, "vfio-pci");
	assert_int_equal(nerr, 1);
}

static void test_bind_already_bound(void **state)
{
	(void)state;
	assert_int_equal(zn_pci_bind_vfio(CX6, &opts), 0);
	assert_int_equal(fs.nwrites, 0);
	assert_string_equal(printed(), CX6 " already bound to vfio-pci\n");
	assert_file("bus/pci/devices/" CX6 "/driver_override", "");
	assert_file("bus/pci/drivers/vfio-pci/unbind", "");
	assert_file("bus/pci/drivers_probe", "");
	assert_driver(CX6, "vfio-pci");
	assert_int_equal(nerr, 0);
	/* NULL options: the same, silently */
	assert_int_equal(zn_pci_bind_vfio(CX6, NULL), 0);
	assert_int_equal(fs.nwrites, 0);
}

static void test_bind_no_vfio_driver(void **state)
{
	char want[1024];

	(void)state;
	assert_int_equal(zn_pci_bind_vfio(BCM, &opts), -ENOENT);
	assert_int_equal(fs.nwrites, 0);
	assert_int_equal(nerr, 1);
	snprintf(want, sizeof(want), "vfio-pci is not loaded (no %s/bus/pci/drivers/vfio-pci): "
		 "run 'modprobe vfio-pci' first", fs.root);
	assert_string_equal(last_err, want);
	assert_driver(BCM, "bnxt_en");
	assert_file("bus/pci/devices/" BCM "/driver_override", "");
	assert_file("bus/pci/drivers_probe", "");
}

static void test_device_missing(void **state)
{
	char want[1024];

	(void)state;
	assert_int_equal(zn_pci_bind_vfio("0000:99:00.0", &opts), -ENODEV);
	snprintf(want, sizeof(want), "no PCI device 0000:99:00.0 "
		 "(%s/bus/pci/devices/0000:99:00.0 does not exist)", fs.root);
	assert_string_equal(last_err, want);
	assert_int_equal(zn_pci_unbind("99:00.0", &opts), -ENODEV);
	assert_string_equal(last_err, want);
	assert_int_equal(zn_pci_bind_vfio("eth0", &opts), -EINVAL);
	assert_string_equal(last_err, "'eth0' is not a PCI address (expected dddd:bb:dd.f or bb:dd.f)");
	assert_int_equal(nerr, 3);
	assert_int_equal(fs.nwrites, 0);
}

static void test_bind_dry_run(void **state)
{
	char want[2048];

	(void)state;
	opts.dry_run = true;
	assert_int_equal(zn_pci_bind_vfio(BCM, &opts), 0);
	assert_int_equal(fs.nwrites, 0);
	snprintf(want, sizeof(want),
		 "would write \"vfio-pci\" to %1$s/bus/pci/devices/" BCM "/driver_override\n"
		 "would write \"" BCM "\" to %1$s/bus/pci/drivers/bnxt_en/unbind\n"
		 "would write \"" BCM "\" to %1$s/bus/pci/drivers_probe\n", fs.root);
	assert_string_equal(printed(), want);
	/* nothing on disk changed */
	assert_file("bus/pci/devices/" BCM "/driver_override", "");
	assert_file("bus/pci/drivers/bnxt_en/unbind", "");
	assert_file("bus/pci/drivers_probe", "");
	assert_driver(BCM, "bnxt_en");
	assert_int_equal(nerr, 0);
}

static void test_unbind_dry_run(void **state)
{
	char want[2048];

	(void)state;
	opts.dry_run = true;
	opts.reprobe = true;
	assert_int_equal(zn_pci_unbind(CX6, &opts), 0);
	assert_int_equal(fs.nwrites, 0);
	snprintf(want, sizeof(want),
		 "would write \"" CX6 "\" to %1$s/bus/pci/drivers/vfio-pci/unbind\n"
		 "would write \"\\n\" to %1$s/bus/pci/devices/" CX6 "/driver_override\n"
		 "would write \"" CX6 "\" to %1$s/bus/pci/drivers_probe\n", fs.root);
	assert_string_equal(printed(), want);
	assert_file("bus/pci/drivers/vfio-pci/unbind", "");
	assert_file("bus/pci/devices/" CX6 "/driver_override", "");
	assert_file("bus/pci/drivers_probe", "");
	assert_driver(CX6, "vfio-pci");
}

static void test_unbind(void **state)
{
	(void)state;
	assert_int_equal(zn_pci_unbind(CX6, &opts), 0);
	assert_int_equal(fs.nwrites, 2);
	assert_write(0, "bus/pci/drivers/vfio-pci/unbind", CX6);
	assert_write(1, "bus/pci/devices/" CX6 "/driver_override", "\n");
	assert_driver(CX6, "");
	assert_string_equal(printed(), CX6 " unbound from vfio-pci\n");
	assert_int_equal(nerr, 0);
}

static void test_unbind_reprobe(void **state)
{
	(void)state;
	opts.reprobe = true;
	assert_int_equal(zn_pci_unbind(CX6, &opts), 0);
	assert_int_equal(fs.nwrites, 3);
	assert_write(0, "bus/pci/drivers/vfio-pci/unbind", CX6);
	assert_write(1, "bus/pci/devices/" CX6 "/driver_override", "\n");
	assert_write(2, "bus/pci/drivers_probe", CX6);
	assert_driver(CX6, "mlx5_core");
	assert_string_equal(printed(), CX6 " unbound from vfio-pci\n" CX6 " now bound to mlx5_core\n");
}

/* Without the kernel's reaction the device stays bound: unbind must notice. */
static void test_unbind_verify_fails_without_kernel(void **state)
{
	(void)state;
	fs.emulate = false;
	assert_int_equal(zn_pci_unbind(CX6, &opts), -EIO);
	assert_int_equal(fs.nwrites, 2);
	assert_string_equal(last_err, CX6 " is still bound to vfio-pci after unbind; see dmesg");
	assert_file("bus/pci/drivers/vfio-pci/unbind", CX6);
	assert_file("bus/pci/devices/" CX6 "/driver_override", "\n");
}

static void test_unbind_unbound_and_not_nic(void **state)
{
	(void)state;
	assert_int_equal(zn_pci_unbind(LONE, &opts), 0);
	assert_int_equal(fs.nwrites, 1);
	assert_write(0, "bus/pci/devices/" LONE "/driver_override", "\n");
	assert_string_equal(printed(), LONE " is not bound to any driver\n");

	assert_int_equal(zn_pci_unbind(NVME, &opts), -EINVAL);
	assert_string_equal(last_err, NVME " is not a network device (class 010802); "
			    "use --force to unbind it anyway");
	assert_int_equal(fs.nwrites, 1);
	assert_driver(NVME, "nvme");
}

/* Bind then unbind with reprobe: back where it started. */
static void test_round_trip(void **state)
{
	(void)state;
	assert_int_equal(zn_pci_bind_vfio(BCM, &opts), 0);
	assert_driver(BCM, "vfio-pci");
	opts.reprobe = true;
	assert_int_equal(zn_pci_unbind(BCM, &opts), 0);
	assert_driver(BCM, "bnxt_en");
	assert_file("bus/pci/devices/" BCM "/driver_override", "");
	assert_int_equal(fs.nwrites, 6);
	assert_write(3, "bus/pci/drivers/vfio-pci/unbind", BCM);
	assert_write(4, "bus/pci/devices/" BCM "/driver_override", "\n");
	assert_write(5, "bus/pci/drivers_probe", BCM);
}

/* A write that fails names the file and errno, and undoes the override. */
static void test_write_failure(void **state)
{
	char path[FAKE_SYSFS_PATH_MAX], want[1024];

	(void)state;
	fake_sysfs_path(&fs, "bus/pci/drivers/bnxt_en/unbind", path);
	assert_int_equal(unlink(path), 0);
	assert_int_equal(mkdir(path, 0755), 0);
	assert_int_equal(zn_pci_bind_vfio(BCM, &opts), -EISDIR);
	snprintf(want, sizeof(want), "cannot write \"" BCM "\" to %s: %s", path, strerror(EISDIR));
	assert_string_equal(last_err, want);
	assert_int_equal(fs.nwrites, 2);
	assert_write(0, "bus/pci/devices/" BCM "/driver_override", "vfio-pci");
	assert_write(1, "bus/pci/devices/" BCM "/driver_override", "\n");
	assert_file("bus/pci/devices/" BCM "/driver_override", "");
	assert_driver(BCM, "bnxt_en");
}

static void test_no_driver_override(void **state)
{
	static const struct fake_pci_dev old = {
		.bdf = "0000:07:00.0", .vendor = 0x15b3, .device = 0x1017, .class = 0x020000,
		.driver = "mlx5_core", .iommu_group = 20, .numa_node = 0,
		.no_driver_override = true,
	};
	char want[1024];

	(void)state;
	assert_int_equal(fake_sysfs_add_dev(&fs, &old), 0);
	assert_int_equal(zn_pci_bind_vfio(old.bdf, &opts), -EOPNOTSUPP);
	snprintf(want, sizeof(want), "0000:07:00.0 has no driver_override "
		 "(%s/bus/pci/devices/0000:07:00.0/driver_override): the kernel is older than 3.15",
		 fs.root);
	assert_string_equal(last_err, want);
	assert_int_equal(fs.nwrites, 0);
}

int main(void)
{
#define T(fn) cmocka_unit_test_setup_teardown(fn, setup, teardown)
	const struct CMUnitTest tests[] = {
		T(test_bind_exact_writes),
		T(test_bind_unbound_device),
		T(test_bind_verify_fails_without_kernel),
		T(test_bind_no_iommu_group_rolls_back),
		T(test_bind_not_a_nic),
		T(test_bind_already_bound),
		cmocka_unit_test_setup_teardown(test_bind_no_vfio_driver, setup_no_vfio, teardown),
		T(test_device_missing),
		T(test_bind_dry_run),
		T(test_unbind_dry_run),
		T(test_unbind),
		T(test_unbind_reprobe),
		T(test_unbind_verify_fails_without_kernel),
		T(test_unbind_unbound_and_not_nic),
		T(test_round_trip),
		T(test_write_failure),
		T(test_no_driver_override),
	};
#undef T

	return cmocka_run_group_tests(tests, NULL, NULL);
}
