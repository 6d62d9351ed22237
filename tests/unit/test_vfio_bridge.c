/*
 * bridge/: the kernel VFIO uAPI the bridge presents, driven here with the
 * real libc calls (open, ioctl, pread, mmap, close: this binary carries the
 * bridge's definitions of them, as LD_PRELOAD would put them first) against
 * a bnxt model served in-process. What the kernel would answer is checked:
 * argsz and capability chains, the errors of each misuse, region offsets,
 * DMA of memfd and anonymous memory reaching the device both ways.
 *
 * The bridge reads ZN_VFIO_DEVICES before main, so main sets it and
 * executes itself again.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>
#include <cmocka.h>

#include <linux/vfio.h>

#include "sim/log.h"
#include "sim/model.h"
#include "sim/vfu/vfu.h"
#include "zcnic/bus.h"

#define BDF		"0000:3b:00.0"
#define ENV_DIR		"ZN_TEST_BRIDGE_DIR"
#define WAIT_MS		3000
#define REG(i)		((off_t)(i) << 40)

static struct {
	char dir[64];
	char sock[96];
	struct zn_sim_device *sim;
	struct zn_vfu_loop *loop;
	pthread_t thread;
	/* The device as core/bus's vfio-user client sees it, for comparison. */
	struct zn_device_info info;
	struct zn_region_info region[ZN_BUS_NUM_REGIONS_MAX];
	struct zn_irq_info msix;
	uint8_t config[64];
	char group[16];
} S;

static void quiet(enum zn_sim_log_level level, const char *comp, const char *msg, void *arg)
{
	(void)level;
	(void)comp;
	(void)msg;
	(void)arg;
}

static void *loop_thread(void *arg)
{
	(void)arg;
	zn_vfu_loop_run(S.loop);
	return NULL;
}

static void sleep_ms(int ms)
{
	struct timespec ts = { ms / 1000, (long)(ms % 1000) * 1000000L };

	nanosleep(&ts, NULL);
}

static int setup(void **state)
{
	char err[256];
	struct zn_bus_dev *bus;

	(void)state;
	zn_sim_log_set_sink(quiet, NULL);
	if (zn_sim_device_create("bnxt0=bnxt", &S.sim, err, sizeof(err)) ||
	    zn_vfu_dev_listen(S.sim->dev, S.sock) || zn_vfu_loop_new(&S.loop) ||
	    zn_vfu_loop_add_dev(S.loop, S.sim->dev) ||
	    pthread_create(&S.thread, NULL, loop_thread, NULL))
		return -1;
	/* The reference view, before the bridge connects. */
	if (zn_vfio_user_open(S.sock, NULL, &bus))
		return -1;
	S.info = bus->info;
	for (uint32_t i = 0; i < ZN_BUS_NUM_REGIONS_MAX && i < bus->info.num_regions; i++)
		bus->ops->get_region_info(bus, i, &S.region[i]);
	bus->ops->get_irq_info(bus, ZN_IRQ_MSIX, &S.msix);
	bus->ops->region_read(bus, ZN_BUS_CONFIG, 0, S.config, sizeof(S.config));
	bus->ops->close(bus);
	return 0;
}

static int teardown(void **state)
{
	(void)state;
	zn_vfu_loop_stop(S.loop);
	pthread_join(S.thread, NULL);
	zn_sim_device_free(S.sim);
	zn_vfu_loop_free(S.loop);
	unlink(S.sock);
	rmdir(S.dir);
	return 0;
}

/* ---- sysfs ---- */

static void test_sysfs(void **state)
{
	char buf[256], path[128];
	ssize_t n;
	int fd;
	bool listed = false;
	DIR *d;
	struct dirent *e;

	(void)state;
	fd = open("/sys/bus/pci/devices/" BDF "/vendor", O_RDONLY);
	assert_true(fd >= 0);
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	assert_true(n > 0);
	buf[n] = '\0';
	snprintf(path, sizeof(path), "0x%02x%02x\n", S.config[1], S.config[0]);
	assert_string_equal(buf, path);

	n = readlink("/sys/bus/pci/devices/" BDF "/iommu_group", buf, sizeof(buf) - 1);
	assert_true(n > 0);
	buf[n] = '\0';
	snprintf(S.group, sizeof(S.group), "%s", strrchr(buf, '/') + 1);
	snprintf(path, sizeof(path), "/sys/kernel/iommu_groups/%s/devices/" BDF, S.group);
	assert_int_equal(access(path, F_OK), 0);
	snprintf(path, sizeof(path), "/dev/vfio/%s", S.group);
	assert_int_equal(access(path, F_OK), 0);
	assert_non_null(realpath("/sys/bus/pci/devices/" BDF "/driver", buf));
	assert_string_equal(buf, "/sys/bus/pci/drivers/vfio-pci");

	d = opendir("/sys/bus/pci/devices");
	assert_non_null(d);
	while ((e = readdir(d)))
		listed |= !strcmp(e->d_name, BDF);
	closedir(d);
	assert_true(listed);
	/* Not ours: the real system answers. */
	assert_int_equal(access("/sys/bus/pci/devices/0000:3b:00.1", F_OK), -1);
	assert_int_equal(errno, ENOENT);
}

/* ---- container and group ---- */

static int open_group(void)
{
	char path[64];

	snprintf(path, sizeof(path), "/dev/vfio/%s", S.group);
	return open(path, O_RDWR | O_CLOEXEC);
}

static void test_container_group(void **state)
{
	struct vfio_group_status st = { .argsz = sizeof(st) };
	int c = open("/dev/vfio/vfio", O_RDWR), g, g2, bad = -1, dfd;

	(void)state;
	assert_true(c >= 0);
	assert_int_equal(ioctl(c, VFIO_GET_API_VERSION), VFIO_API_VERSION);
	assert_int_equal(ioctl(c, VFIO_CHECK_EXTENSION, VFIO_TYPE1_IOMMU), 1);
	assert_int_equal(ioctl(c, VFIO_CHECK_EXTENSION, VFIO_TYPE1v2_IOMMU), 1);
	assert_int_equal(ioctl(c, VFIO_CHECK_EXTENSION, VFIO_NOIOMMU_IOMMU), 0);
	/* No group yet: no IOMMU can be set. */
	assert_int_equal(ioctl(c, VFIO_SET_IOMMU, VFIO_TYPE1v2_IOMMU), -1);
	assert_int_equal(errno, EINVAL);
	assert_int_equal(ioctl(c, 0x3b99), -1);
	assert_int_equal(errno, ENOTTY);

	g = open_group();
	assert_true(g >= 0);
	g2 = open_group();
	assert_int_equal(g2, -1);
	assert_int_equal(errno, EBUSY);
	assert_int_equal(ioctl(g, VFIO_GROUP_GET_STATUS, &st), 0);
	assert_int_equal(st.flags, VFIO_GROUP_FLAGS_VIABLE);
	assert_int_equal(ioctl(g, VFIO_GROUP_GET_DEVICE_FD, BDF), -1);
	assert_int_equal(errno, EINVAL);
	assert_int_equal(ioctl(g, VFIO_GROUP_SET_CONTAINER, &bad), -1);
	assert_int_equal(errno, EBADF);
	assert_int_equal(ioctl(g, VFIO_GROUP_SET_CONTAINER, &c), 0);
	assert_int_equal(ioctl(g, VFIO_GROUP_SET_CONTAINER, &c), -1);
	assert_int_equal(errno, EINVAL);
	assert_int_equal(ioctl(g, VFIO_GROUP_GET_STATUS, &st), 0);
	assert_int_equal(st.flags, VFIO_GROUP_FLAGS_VIABLE | VFIO_GROUP_FLAGS_CONTAINER_SET);
	assert_int_equal(ioctl(c, VFIO_SET_IOMMU, 42), -1);
	assert_int_equal(errno, ENODEV);
	assert_int_equal(ioctl(c, VFIO_SET_IOMMU, VFIO_TYPE1v2_IOMMU), 0);
	assert_int_equal(ioctl(g, VFIO_GROUP_GET_DEVICE_FD, "0000:3b:00.1"), -1);
	assert_int_equal(errno, ENODEV);
	dfd = ioctl(g, VFIO_GROUP_GET_DEVICE_FD, BDF);
	assert_true(dfd >= 0);
	assert_true(zn_vfu_dev_connected(S.sim->dev));
	assert_int_equal(ioctl(g, VFIO_GROUP_UNSET_CONTAINER), -1);
	assert_int_equal(errno, EBUSY);
	close(dfd);
	for (int i = 0; i < WAIT_MS && zn_vfu_dev_connected(S.sim->dev); i++)
		sleep_ms(1);
	assert_false(zn_vfu_dev_connected(S.sim->dev));
	assert_int_equal(ioctl(g, VFIO_GROUP_UNSET_CONTAINER), 0);
	assert_int_equal(ioctl(g, VFIO_GROUP_GET_STATUS, &st), 0);
	assert_int_equal(st.flags, VFIO_GROUP_FLAGS_VIABLE);
	close(g);
	close(c);
	/* Closed: the group opens again. */
	g = open_group();
	assert_true(g >= 0);
	close(g);
}

static void test_iommu_info(void **state)
{
	int c = open("/dev/vfio/vfio", O_RDWR), g = open_group();
	struct vfio_iommu_type1_info *info;
	struct vfio_iommu_type1_info small = { .argsz = 16 };
	uint8_t buf[512];
	uint32_t off, argsz;
	bool found = false;

	(void)state;
	assert_int_equal(ioctl(c, VFIO_IOMMU_GET_INFO, &small), -1);	/* no IOMMU set */
	assert_int_equal(errno, EINVAL);
	assert_int_equal(ioctl(g, VFIO_GROUP_SET_CONTAINER, &c), 0);
	assert_int_equal(ioctl(c, VFIO_SET_IOMMU, VFIO_TYPE1v2_IOMMU), 0);
	small.argsz = 8;
	assert_int_equal(ioctl(c, VFIO_IOMMU_GET_INFO, &small), -1);
	assert_int_equal(errno, EINVAL);
	/* 16 bytes (before cap_offset): the chain announced, nothing past 16 written. */
	small.argsz = 16;
	small.cap_offset = 0xdead;
	assert_int_equal(ioctl(c, VFIO_IOMMU_GET_INFO, &small), 0);
	assert_int_equal(small.flags, VFIO_IOMMU_INFO_PGSIZES | VFIO_IOMMU_INFO_CAPS);
	assert_true(small.argsz > sizeof(small));
	assert_int_equal(small.cap_offset, 0xdead);
	assert_true(small.iova_pgsizes & 4096);
	/* The fixed part: CAPS set, argsz names the room the chain needs. */
	memset(buf, 0, sizeof(buf));
	info = (void *)buf;
	info->argsz = sizeof(*info);
	assert_int_equal(ioctl(c, VFIO_IOMMU_GET_INFO, info), 0);
	assert_true(info->flags & VFIO_IOMMU_INFO_CAPS);
	assert_int_equal(info->cap_offset, 0);
	argsz = info->argsz;
	assert_true(argsz > sizeof(*info) && argsz <= sizeof(buf));
	info->argsz = argsz;
	assert_int_equal(ioctl(c, VFIO_IOMMU_GET_INFO, info), 0);
	for (off = info->cap_offset; off; ) {
		struct vfio_info_cap_header *h = (void *)(buf + off);

		assert_true(off + sizeof(*h) <= argsz);
		if (h->id == VFIO_IOMMU_TYPE1_INFO_CAP_IOVA_RANGE) {
			struct vfio_iommu_type1_info_cap_iova_range *r = (void *)h;

			assert_int_equal(r->nr_iovas, 1);
			assert_int_equal(r->iova_ranges[0].start, 0);
			assert_true(r->iova_ranges[0].end >= (1ull << 47) - 1);
			found = true;
		}
		off = h->next;
	}
	assert_true(found);
	close(g);
	close(c);
}

/* ---- the device ---- */

struct dev {
	int c, g, d;
};

static void dev_open(struct dev *v)
{
	v->c = open("/dev/vfio/vfio", O_RDWR);
	v->g = open_group();
	assert_int_equal(ioctl(v->g, VFIO_GROUP_SET_CONTAINER, &v->c), 0);
	assert_int_equal(ioctl(v->c, VFIO_SET_IOMMU, VFIO_TYPE1v2_IOMMU), 0);
	v->d = ioctl(v->g, VFIO_GROUP_GET_DEVICE_FD, BDF);
	assert_true(v->d >= 0);
}

static void dev_close(struct dev *v)
{
	close(v->d);
	close(v->g);
	close(v->c);
}

static void test_device_info(void **state)
{
	struct vfio_device_info di = { .argsz = sizeof(di) };
	struct vfio_irq_info ii = { .argsz = sizeof(ii), .index = VFIO_PCI_MSIX_IRQ_INDEX };
	struct dev v;

	(void)state;
	dev_open(&v);
	assert_int_equal(ioctl(v.d, VFIO_DEVICE_GET_INFO, &di), 0);
	assert_true(di.flags & VFIO_DEVICE_FLAGS_PCI);
	assert_int_equal(di.flags & VFIO_DEVICE_FLAGS_RESET, S.info.flags & VFIO_DEVICE_FLAGS_RESET);
	assert_int_equal(di.num_regions, VFIO_PCI_NUM_REGIONS);
	assert_int_equal(di.num_irqs, VFIO_PCI_NUM_IRQS);
	for (uint32_t i = 0; i < VFIO_PCI_NUM_REGIONS; i++) {
		uint8_t buf[512];
		struct vfio_region_info *ri = (void *)buf;
		const struct zn_region_info *want = &S.region[i];

		memset(buf, 0, sizeof(buf));
		ri->argsz = sizeof(*ri);
		ri->index = i;
		assert_int_equal(ioctl(v.d, VFIO_DEVICE_GET_REGION_INFO, ri), 0);
		assert_int_equal(ri->offset, (uint64_t)i << 40);
		assert_int_equal(ri->size, want->size);
		assert_int_equal(ri->flags & 7, want->flags & 7);
		if (!want->nr_sparse) {
			assert_false(ri->flags & VFIO_REGION_INFO_FLAG_CAPS);
			continue;
		}
		/* Too small for the chain: CAPS, the room needed, no offset. */
		assert_true(ri->flags & VFIO_REGION_INFO_FLAG_CAPS);
		assert_int_equal(ri->cap_offset, 0);
		assert_true(ri->argsz > sizeof(*ri) && ri->argsz <= sizeof(buf));
		assert_int_equal(ioctl(v.d, VFIO_DEVICE_GET_REGION_INFO, ri), 0);
		assert_int_equal(ri->cap_offset, sizeof(*ri));
		{
			struct vfio_region_info_cap_sparse_mmap *sp = (void *)(buf + ri->cap_offset);

			assert_int_equal(sp->header.id, VFIO_REGION_INFO_CAP_SPARSE_MMAP);
			assert_int_equal(sp->header.next, 0);
			assert_int_equal(sp->nr_areas, want->nr_sparse);
			for (uint32_t a = 0; a < sp->nr_areas; a++) {
				assert_int_equal(sp->areas[a].offset, want->sparse[a].offset);
				assert_int_equal(sp->areas[a].size, want->sparse[a].size);
			}
		}
	}
	{
		struct vfio_region_info ri = { .argsz = sizeof(ri), .index = VFIO_PCI_NUM_REGIONS };

		assert_int_equal(ioctl(v.d, VFIO_DEVICE_GET_REGION_INFO, &ri), -1);
		assert_int_equal(errno, EINVAL);
		ri.argsz = 8;
		ri.index = 0;
		assert_int_equal(ioctl(v.d, VFIO_DEVICE_GET_REGION_INFO, &ri), -1);
		assert_int_equal(errno, EINVAL);
	}
	assert_int_equal(ioctl(v.d, VFIO_DEVICE_GET_IRQ_INFO, &ii), 0);
	assert_int_equal(ii.count, S.msix.count);
	assert_true(ii.flags & VFIO_IRQ_INFO_EVENTFD);
	ii.index = VFIO_PCI_REQ_IRQ_INDEX;
	assert_int_equal(ioctl(v.d, VFIO_DEVICE_GET_IRQ_INFO, &ii), 0);
	assert_int_equal(ii.count, 1);
	assert_int_equal(ioctl(v.d, 0x3b99), -1);
	assert_int_equal(errno, ENOTTY);
	/* VFIO_DEVICE_RESET reaches the device as a vfio-user DEVICE_RESET. */
	{
		struct zn_vfu_stats before, after;

		zn_vfu_dev_stats(S.sim->dev, &before);
		if (S.info.flags & VFIO_DEVICE_FLAGS_RESET) {
			assert_int_equal(ioctl(v.d, VFIO_DEVICE_RESET), 0);
			zn_vfu_dev_stats(S.sim->dev, &after);
			assert_int_equal(after.resets, before.resets + 1);
		} else {
			assert_int_equal(ioctl(v.d, VFIO_DEVICE_RESET), -1);
			assert_int_equal(errno, EINVAL);
		}
	}
	dev_close(&v);
}

static void test_device_rw_mmap(void **state)
{
	struct dev v;
	uint8_t cfg[64];
	uint16_t cmd;
	uint32_t bar = 0;
	int d2;
	void *p;

	(void)state;
	dev_open(&v);
	assert_int_equal(pread(v.d, cfg, sizeof(cfg), REG(VFIO_PCI_CONFIG_REGION_INDEX)),
			 sizeof(cfg));
	assert_memory_equal(cfg, S.config, 4);	/* vendor, device */
	/* The command register written and read back through the fd. */
	assert_int_equal(pread(v.d, &cmd, 2, REG(VFIO_PCI_CONFIG_REGION_INDEX) + 4), 2);
	cmd |= 0x6;
	assert_int_equal(pwrite(v.d, &cmd, 2, REG(VFIO_PCI_CONFIG_REGION_INDEX) + 4), 2);
	cmd = 0;
	assert_int_equal(pread(v.d, &cmd, 2, REG(VFIO_PCI_CONFIG_REGION_INDEX) + 4), 2);
	assert_int_equal(cmd & 0x6, 0x6);
	/* A read running past the region's end is cut there; one at the end fails. */
	assert_int_equal(pread(v.d, cfg, sizeof(cfg),
			       REG(VFIO_PCI_CONFIG_REGION_INDEX) + S.region[7].size - 16), 16);
	assert_int_equal(pread(v.d, cfg, 4, REG(VFIO_PCI_CONFIG_REGION_INDEX) + S.region[7].size), -1);
	assert_int_equal(errno, EINVAL);
	assert_int_equal(pread(v.d, cfg, 4, REG(12)), -1);
	assert_int_equal(errno, EINVAL);
	/* BAR0 through pread: the same bytes at 0 as the mapping would have. */
	assert_int_equal(pread(v.d, &bar, 4, REG(0)), 4);

	/* mmap: only mappable regions, only shared, only page-aligned. */
	for (uint32_t i = 0; i < 6; i++) {
		const struct zn_region_info *r = &S.region[i];
		uint64_t off = r->nr_sparse ? r->sparse[0].offset : 0;
		uint64_t len = r->nr_sparse ? r->sparse[0].size : r->size;

		if (!r->size)
			continue;
		p = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_SHARED, v.d, REG(i) + (off_t)off);
		if (!(r->flags & ZN_REGION_F_MMAP)) {
			assert_ptr_equal(p, MAP_FAILED);
			assert_int_equal(errno, EINVAL);
			continue;
		}
		assert_ptr_not_equal(p, MAP_FAILED);
		*(volatile uint32_t *)p = *(volatile uint32_t *)p;	/* reachable */
		munmap(p, len);
		p = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE, v.d, REG(i) + (off_t)off);
		assert_ptr_equal(p, MAP_FAILED);
		assert_int_equal(errno, EINVAL);
		p = mmap(NULL, len, PROT_READ, MAP_SHARED, v.d, REG(i) + (off_t)off + 1);
		assert_ptr_equal(p, MAP_FAILED);
	}
	/* A dup is the same device; the device stays open until both are closed. */
	d2 = dup(v.d);
	assert_true(d2 >= 0);
	close(v.d);
	assert_int_equal(pread(d2, cfg, 2, REG(VFIO_PCI_CONFIG_REGION_INDEX)), 2);
	assert_true(zn_vfu_dev_connected(S.sim->dev));
	v.d = d2;
	dev_close(&v);
}

static void test_irqs(void **state)
{
	struct dev v;
	uint8_t buf[sizeof(struct vfio_irq_set) + 4];
	struct vfio_irq_set *s = (void *)buf;
	int efd = eventfd(0, EFD_NONBLOCK);
	int32_t fd32 = efd;
	uint64_t cnt = 0;

	(void)state;
	dev_open(&v);
	*s = (struct vfio_irq_set){ .argsz = sizeof(buf), .index = VFIO_PCI_MSIX_IRQ_INDEX,
		.flags = VFIO_IRQ_SET_DATA_EVENTFD | VFIO_IRQ_SET_ACTION_TRIGGER, .count = 1 };
	memcpy(s->data, &fd32, 4);
	assert_int_equal(ioctl(v.d, VFIO_DEVICE_SET_IRQS, s), 0);
	/* DATA_NONE with a count fires the vector from the host side. */
	s->flags = VFIO_IRQ_SET_DATA_NONE | VFIO_IRQ_SET_ACTION_TRIGGER;
	s->argsz = sizeof(*s);
	assert_int_equal(ioctl(v.d, VFIO_DEVICE_SET_IRQS, s), 0);
	assert_int_equal(read(efd, &cnt, sizeof(cnt)), sizeof(cnt));
	assert_int_equal(cnt, 1);
	/* Misuse, as the kernel refuses it. */
	s->flags = VFIO_IRQ_SET_DATA_NONE | VFIO_IRQ_SET_DATA_BOOL | VFIO_IRQ_SET_ACTION_TRIGGER;
	assert_int_equal(ioctl(v.d, VFIO_DEVICE_SET_IRQS, s), -1);
	assert_int_equal(errno, EINVAL);
	s->flags = VFIO_IRQ_SET_DATA_EVENTFD | VFIO_IRQ_SET_ACTION_TRIGGER;
	s->argsz = sizeof(*s);	/* no room for the fd */
	assert_int_equal(ioctl(v.d, VFIO_DEVICE_SET_IRQS, s), -1);
	assert_int_equal(errno, EINVAL);
	s->argsz = sizeof(buf);
	s->start = S.msix.count;
	assert_int_equal(ioctl(v.d, VFIO_DEVICE_SET_IRQS, s), -1);
	assert_int_equal(errno, EINVAL);
	s->start = 0;
	s->flags = VFIO_IRQ_SET_DATA_NONE | VFIO_IRQ_SET_ACTION_MASK;
	assert_int_equal(ioctl(v.d, VFIO_DEVICE_SET_IRQS, s), -1);
	assert_int_equal(errno, ENOTTY);
	/* The kernel's own REQ index takes an eventfd too. */
	*s = (struct vfio_irq_set){ .argsz = sizeof(buf), .index = VFIO_PCI_REQ_IRQ_INDEX,
		.flags = VFIO_IRQ_SET_DATA_EVENTFD | VFIO_IRQ_SET_ACTION_TRIGGER, .count = 1 };
	memcpy(s->data, &fd32, 4);
	assert_int_equal(ioctl(v.d, VFIO_DEVICE_SET_IRQS, s), 0);
	/* Off again. */
	*s = (struct vfio_irq_set){ .argsz = sizeof(*s), .index = VFIO_PCI_MSIX_IRQ_INDEX,
		.flags = VFIO_IRQ_SET_DATA_NONE | VFIO_IRQ_SET_ACTION_TRIGGER };
	assert_int_equal(ioctl(v.d, VFIO_DEVICE_SET_IRQS, s), 0);
	dev_close(&v);
	close(efd);
}

/* Fds and objects live as kernel files do: dups share, the last close ends. */
static void test_lifetimes(void **state)
{
	struct dev v;
	uint16_t ven = 0;
	int c2, g2;

	(void)state;
	dev_open(&v);
	/* The group file closed under an open device: the device keeps working. */
	close(v.g);
	assert_int_equal(pread(v.d, &ven, 2, REG(VFIO_PCI_CONFIG_REGION_INDEX)), 2);
	assert_memory_equal(&ven, S.config, 2);
	g2 = open_group();
	assert_true(g2 >= 0);	/* the file is free again; its container is still set */
	{
		struct vfio_group_status st = { .argsz = sizeof(st) };

		assert_int_equal(ioctl(g2, VFIO_GROUP_GET_STATUS, &st), 0);
		assert_true(st.flags & VFIO_GROUP_FLAGS_CONTAINER_SET);
	}
	/* F_DUPFD_CLOEXEC of the container answers as the container. */
	c2 = fcntl(v.c, F_DUPFD_CLOEXEC, 100);
	assert_true(c2 >= 100);
	assert_int_equal(ioctl(c2, VFIO_GET_API_VERSION), VFIO_API_VERSION);
	/* dup2 onto the group fd closes that group file: it opens again. */
	assert_int_equal(dup2(c2, g2), g2);
	assert_int_equal(ioctl(g2, VFIO_CHECK_EXTENSION, VFIO_TYPE1_IOMMU), 1);
	v.g = open_group();
	assert_true(v.g >= 0);
	close(g2);
	close(c2);
	/* Unsupported requests: refused, as the kernel refuses what it lacks. */
	{
		struct vfio_iommu_type1_dma_map m = {
			.argsz = sizeof(m), .flags = VFIO_DMA_MAP_FLAG_VADDR,
			.vaddr = 0x10000, .iova = 0x10000, .size = 4096,
		};
		struct vfio_iommu_type1_dma_unmap u = {
			.argsz = sizeof(u), .flags = VFIO_DMA_UNMAP_FLAG_GET_DIRTY_BITMAP,
			.iova = 0x10000, .size = 4096,
		};

		assert_int_equal(ioctl(v.c, VFIO_IOMMU_MAP_DMA, &m), -1);
		assert_int_equal(errno, EINVAL);
		assert_int_equal(ioctl(v.c, VFIO_IOMMU_UNMAP_DMA, &u), -1);
		assert_int_equal(errno, EINVAL);
	}
	dev_close(&v);
	for (int i = 0; i < WAIT_MS && zn_vfu_dev_connected(S.sim->dev); i++)
		sleep_ms(1);
	assert_false(zn_vfu_dev_connected(S.sim->dev));
}

/* ---- DMA ---- */

static int map_dma(int c, void *va, uint64_t iova, uint64_t len)
{
	struct vfio_iommu_type1_dma_map m = {
		.argsz = sizeof(m), .flags = VFIO_DMA_MAP_FLAG_READ | VFIO_DMA_MAP_FLAG_WRITE,
		.vaddr = (uintptr_t)va, .iova = iova, .size = len,
	};

	return ioctl(c, VFIO_IOMMU_MAP_DMA, &m);
}

static int unmap_dma(int c, uint64_t iova, uint64_t len, uint32_t flags, uint64_t *done)
{
	struct vfio_iommu_type1_dma_unmap u = {
		.argsz = sizeof(u), .flags = flags, .iova = iova, .size = len,
	};
	int rc = ioctl(c, VFIO_IOMMU_UNMAP_DMA, &u);

	*done = u.size;
	return rc;
}

static void test_dma(void **state)
{
	const size_t len = 64 * 1024;
	const uint64_t iova_f = 0x10000000, iova_a = 0x20000000;
	int mfd = memfd_create("test", MFD_CLOEXEC);
	uint8_t *fmem, *amem, got[16];
	uint16_t cmd = 0x6;
	uint64_t done;
	struct dev v;

	(void)state;
	assert_int_equal(ftruncate(mfd, (off_t)len), 0);
	fmem = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_SHARED, mfd, 0);
	amem = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	assert_ptr_not_equal(fmem, MAP_FAILED);
	assert_ptr_not_equal(amem, MAP_FAILED);
	memcpy(fmem + 100, "memfd-bytes", 11);
	memcpy(amem + 200, "anon-bytes!", 11);

	/* Mapped before the device opens (DPDK's order): the device gets it on open. */
	v.c = open("/dev/vfio/vfio", O_RDWR);
	v.g = open_group();
	assert_int_equal(ioctl(v.g, VFIO_GROUP_SET_CONTAINER, &v.c), 0);
	assert_int_equal(map_dma(v.c, fmem, iova_f, len), -1);	/* no IOMMU yet */
	assert_int_equal(errno, EINVAL);
	assert_int_equal(ioctl(v.c, VFIO_SET_IOMMU, VFIO_TYPE1v2_IOMMU), 0);
	assert_int_equal(map_dma(v.c, fmem, iova_f, len), 0);
	assert_int_equal(map_dma(v.c, fmem, iova_f + 4096, 4096), -1);
	assert_int_equal(errno, EEXIST);
	assert_int_equal(map_dma(v.c, fmem + 1, iova_a, 4096), -1);
	assert_int_equal(errno, EINVAL);
	assert_int_equal(map_dma(v.c, fmem, iova_a, 0), -1);
	assert_int_equal(errno, EINVAL);
	v.d = ioctl(v.g, VFIO_GROUP_GET_DEVICE_FD, BDF);
	assert_true(v.d >= 0);
	assert_int_equal(zn_vfu_dev_dma_windows(S.sim->dev), 1);
	/* Anonymous memory after the open: made shareable in place. */
	assert_int_equal(map_dma(v.c, amem, iova_a, len), 0);
	assert_int_equal(zn_vfu_dev_dma_windows(S.sim->dev), 2);
	assert_memory_equal(amem + 200, "anon-bytes!", 11);
	assert_int_equal(pwrite(v.d, &cmd, 2, REG(VFIO_PCI_CONFIG_REGION_INDEX) + 4), 2);

	/* The device reads what the process wrote, and the process sees what it writes. */
	assert_int_equal(zn_vfu_dma_read(S.sim->dev, iova_f + 100, got, 11), 0);
	assert_memory_equal(got, "memfd-bytes", 11);
	assert_int_equal(zn_vfu_dma_read(S.sim->dev, iova_a + 200, got, 11), 0);
	assert_memory_equal(got, "anon-bytes!", 11);
	assert_int_equal(zn_vfu_dma_write(S.sim->dev, iova_a + 300, "from-device", 11), 0);
	assert_memory_equal(amem + 300, "from-device", 11);

	/* type1v2: no splitting a mapping; whole ones report their size. */
	assert_int_equal(unmap_dma(v.c, iova_f, 4096, 0, &done), -1);
	assert_int_equal(errno, EINVAL);
	assert_int_equal(unmap_dma(v.c, iova_f, len, 0, &done), 0);
	assert_int_equal(done, len);
	assert_int_equal(zn_vfu_dev_dma_windows(S.sim->dev), 1);
	assert_int_equal(unmap_dma(v.c, 0, 0, VFIO_DMA_UNMAP_FLAG_ALL, &done), 0);
	assert_int_equal(done, len);
	assert_int_equal(zn_vfu_dev_dma_windows(S.sim->dev), 0);
	/* The anonymous memory stays where it was, with its contents. */
	assert_memory_equal(amem + 200, "anon-bytes!", 11);
	dev_close(&v);
	munmap(fmem, len);
	munmap(amem, len);
	close(mfd);
}

int main(int argc, char **argv)
{
	const char *dir = getenv(ENV_DIR);
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_sysfs),
		cmocka_unit_test(test_container_group),
		cmocka_unit_test(test_iommu_info),
		cmocka_unit_test(test_device_info),
		cmocka_unit_test(test_device_rw_mmap),
		cmocka_unit_test(test_irqs),
		cmocka_unit_test(test_lifetimes),
		cmocka_unit_test(test_dma),
	};

	(void)argc;
	if (!dir) {
		char env[256];

		snprintf(S.dir, sizeof(S.dir), "/tmp/zn-bridge-unit-XXXXXX");
		if (!mkdtemp(S.dir))
			return 1;
		snprintf(env, sizeof(env), BDF "=vfio-user:%s/bnxt0.sock", S.dir);
		setenv("ZN_VFIO_DEVICES", env, 1);
		setenv(ENV_DIR, S.dir, 1);
		execv("/proc/self/exe", argv);
		return 1;
	}
	snprintf(S.dir, sizeof(S.dir), "%s", dir);
	snprintf(S.sock, sizeof(S.sock), "%s/bnxt0.sock", S.dir);
	return cmocka_run_group_tests(tests, setup, teardown);
}
