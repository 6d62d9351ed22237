/* SPDX-License-Identifier: MIT */
/*
 * vfio_error_test: the errors a user of the kernel VFIO back end meets, for
 * real, each asserted as a negative errno plus one clear log line.
 *
 *   vfio_error_test noiommu BDF          guest without an IOMMU: say so
 *   vfio_error_test bound BDF DRIVER     BDF still owned by DRIVER: name it
 *   vfio_error_test memlock BDF          RLIMIT_MEMLOCK too low for the region
 *                                        or for its DMA map, no CAP_IPC_LOCK:
 *                                        say how to raise it
 *
 * Run by make test-vfio inside the QEMU guests (tests/vfio-guest/init).
 */
#include <errno.h>
#include <inttypes.h>
#include <linux/capability.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "zcnic/bus.h"
#include "zcnic/mem.h"
#include "prog_tap.h"

#define MAP_LEN		(1u << 20)
#define TINY_MEMLOCK	(64u << 10)		/* below one region */
#define MID_MEMLOCK	(MAP_LEN + MAP_LEN / 2)	/* one region, not two */
#define HIGH_MEMLOCK	(8u << 20)		/* both, with room */
#define TEST_IOVA	0x400000ull	/* below edu's 28-bit DMA mask */

static int open_expect_failure(const char *bdf)
{
	struct zn_bus_dev *d = NULL;
	int rc;

	tap_capture_log();
	rc = zn_bus_open(bdf, NULL, &d);
	zn_log_set_sink(NULL, NULL);
	tap_check(rc < 0 && !d, "open %s fails with a negative errno: rc %d (%s)", bdf, rc,
		  rc < 0 ? strerror(-rc) : "no error");
	if (rc == 0)
		zn_bus_close(d);
	tap_check(tap.nlog > 0, "the failure is logged (%u lines)", tap.nlog);
	tap_check(tap_log_has(bdf), "the message names the device %s", bdf);
	return rc;
}

static int test_noiommu(const char *bdf)
{
	open_expect_failure(bdf);
	tap_check(tap_log_has("IOMMU"), "the message says there is no usable IOMMU");
	return tap_done("vfio_error_test noiommu");
}

static int test_bound(const char *bdf, const char *driver)
{
	open_expect_failure(bdf);
	tap_check(tap_log_has(driver), "the message names the driver '%s'", driver);
	tap_check(tap_log_has("vfio-pci"), "the message says to bind it to vfio-pci");
	return tap_done("vfio_error_test bound");
}

/* Root in the guest has CAP_IPC_LOCK, which VFIO type1 lets skip RLIMIT_MEMLOCK. */
static int drop_cap_ipc_lock(void)
{
	struct __user_cap_header_struct hdr = { .version = _LINUX_CAPABILITY_VERSION_3 };
	struct __user_cap_data_struct data[_LINUX_CAPABILITY_U32S_3];
	const uint32_t bit = 1u << (CAP_IPC_LOCK % 32);
	const unsigned word = CAP_IPC_LOCK / 32;

	if (syscall(SYS_capget, &hdr, data))
		return -errno;
	data[word].effective &= ~bit;
	data[word].permitted &= ~bit;
	data[word].inheritable &= ~bit;
	if (syscall(SYS_capset, &hdr, data))
		return -errno;
	if (syscall(SYS_capget, &hdr, data))
		return -errno;
	return data[word].effective & bit ? -EPERM : 0;
}

static int set_memlock(rlim_t bytes)
{
	struct rlimit rl = { .rlim_cur = bytes, .rlim_max = bytes };

	return setrlimit(RLIMIT_MEMLOCK, &rl) ? -errno : 0;
}

static bool says_how_to_raise(void)
{
	return tap_log_has("ulimit -l") || tap_log_has("LimitMEMLOCK") ||
	       tap_log_has("limits.conf");
}

/*
 * Two limits in a row: the region's mlock (core/mem) and the IOMMU pinning
 * of the DMA map (VFIO type1), which counts the same pages again in
 * locked_vm. A limit between one and two region sizes lets the alloc
 * through and stops the map.
 */
static int test_memlock(const char *bdf)
{
	struct zn_bus_dev *d = NULL;
	struct zn_dma_region *r = NULL;
	int rc;

	rc = drop_cap_ipc_lock();
	tap_check(rc == 0, "CAP_IPC_LOCK dropped: rc %d", rc);
	rc = zn_bus_open(bdf, NULL, &d);
	if (!tap_check(rc == 0, "open %s: rc %d", bdf, rc))
		return tap_done("vfio_error_test memlock");

	rc = set_memlock(TINY_MEMLOCK);
	tap_capture_log();
	rc = rc ? rc : zn_dma_region_alloc("limit-test", MAP_LEN, -1, ZN_DMA_NO_HUGE, &r);
	zn_log_set_sink(NULL, NULL);
	tap_check(rc == -ENOMEM, "RLIMIT_MEMLOCK %u KiB: alloc of %u KiB fails with -ENOMEM: rc %d",
		  TINY_MEMLOCK >> 10, MAP_LEN >> 10, rc);
	tap_check(tap_log_has("RLIMIT_MEMLOCK") && says_how_to_raise(),
		  "the alloc failure names RLIMIT_MEMLOCK and says how to raise it");
	if (rc == 0) {
		zn_dma_region_free(r);
		r = NULL;
	}

	rc = set_memlock(MID_MEMLOCK);
	rc = rc ? rc : zn_dma_region_alloc("limit-test", MAP_LEN, -1, ZN_DMA_NO_HUGE, &r);
	if (!tap_check(rc == 0, "RLIMIT_MEMLOCK %u KiB: alloc of %u KiB (mlocked): rc %d",
		       MID_MEMLOCK >> 10, MAP_LEN >> 10, rc))
		goto out;
	rc = zn_dma_region_set_iova(r, TEST_IOVA);
	tap_check(rc == 0, "region IOVA 0x%llx: rc %d", TEST_IOVA, rc);
	tap_capture_log();
	rc = zn_bus_dma_map(d, r);
	zn_log_set_sink(NULL, NULL);
	tap_check(rc == -ENOMEM, "DMA map past the limit fails with -ENOMEM: rc %d", rc);
	if (rc == 0)
		zn_bus_dma_unmap(d, r);
	tap_check(tap_log_has("RLIMIT_MEMLOCK"), "the map failure names RLIMIT_MEMLOCK");
	tap_check(says_how_to_raise(), "the map failure says how to raise it");

	/* The same map under a raised limit works: the limit was the reason. */
	rc = set_memlock(HIGH_MEMLOCK);
	rc = rc ? rc : zn_bus_dma_map(d, r);
	tap_check(rc == 0, "RLIMIT_MEMLOCK %u MiB: the same map succeeds: rc %d",
		  HIGH_MEMLOCK >> 20, rc);
	if (rc == 0) {
		rc = zn_bus_dma_unmap(d, r);
		tap_check(rc == 0, "DMA unmap: rc %d", rc);
	}
out:
	zn_dma_region_free(r);
	zn_bus_close(d);
	return tap_done("vfio_error_test memlock");
}

int main(int argc, char **argv)
{
	setvbuf(stdout, NULL, _IOLBF, 0);
	if (argc == 3 && !strcmp(argv[1], "noiommu"))
		return test_noiommu(argv[2]);
	if (argc == 4 && !strcmp(argv[1], "bound"))
		return test_bound(argv[2], argv[3]);
	if (argc == 3 && !strcmp(argv[1], "memlock"))
		return test_memlock(argv[2]);
	fprintf(stderr, "usage: %s noiommu BDF | bound BDF DRIVER | memlock BDF\n", argv[0]);
	return 2;
}
