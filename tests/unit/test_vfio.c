/*
 * core/bus kernel VFIO back end against a fake kernel.
 *
 * The fake replaces the system-call table (core/bus/vfio_sys.h): device nodes
 * under a fake /dev root exist only in its tables, ioctls answer like the
 * kernel (argsz two-call pattern, capability chains, EMSGSIZE), and every
 * call is appended to a text log that the tests compare line by line. Sysfs
 * is a real temporary tree (ZN_SYSFS_ROOT) with the group and driver links.
 */
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <inttypes.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>
#include <cmocka.h>

#include <linux/vfio.h>

#include "core/bus/vfio_sys.h"
#include "core/bus/vfio_uapi_compat.h"
#include "zcnic/bus.h"
#include "zcnic/log.h"

#define DEVROOT "/zn-fake-dev"
#define BDF "0000:3b:00.0"
#define BDF2 "0000:3b:00.1"
#define GROUP "12"
#define FIRST_FD 100
#define MAX_LOG 128
#define LOG_LINE 200
#define MAX_NODES 16
#define MAX_FDS 16
/* Not vfio-pci's index << 40: the back end must take offsets from the kernel. */
#define REGION_OFF(i) (((uint64_t)(i) + 1) << 36)
#define CFG_SIZE 256
#define IOAS_ID 7
#define DEVID 42

/* ------------------------------------------------------------------ */
/* The fake kernel                                                     */
/* ------------------------------------------------------------------ */

enum fkind { F_NONE, F_CONTAINER, F_GROUP, F_DEVICE, F_IOMMUFD, F_CDEV };

struct fregion {
	uint32_t flags;
	uint64_t size;
	uint32_t nr_sparse;
	struct vfio_region_sparse_mmap_area sparse[4];
};

static struct {
	/* configuration */
	const char *nodes[MAX_NODES];		/* relative to DEVROOT */
	int nr_nodes;
	int open_errno_group;			/* errno for opening vfio/GROUP */
	bool viable;
	bool ext_type1v2, ext_type1, ext_noiommu;
	uint32_t dev_flags;
	struct fregion region[9];
	uint32_t nr_ranges;
	struct vfio_iova_range ranges[4];
	int map_errno;
	uint64_t unmap_short;
	rlim_t memlock;
	uint8_t config[CFG_SIZE];

	/* state */
	int next_fd;
	struct { int fd; enum fkind kind; bool bound; } fds[MAX_FDS];
	int nr_fds;
	uint8_t *reserve_base;			/* last PROT_NONE reservation */
	char log[MAX_LOG][LOG_LINE];
	int nr_log;
	int cursor;				/* next_is() position */

	/* payload captures */
	uint8_t irq_set[256];
	struct vfio_iommu_type1_dma_map dma_map;
	struct vfio_iommu_type1_dma_unmap dma_unmap;
	struct zn_iommu_ioas_map ioas_map;
	struct zn_iommu_ioas_unmap ioas_unmap;
	int nr_dma_map, nr_dma_unmap;
} fk;

static char sysroot[64];
/* Devices a test left open (it failed half-way): closed by teardown. */
static struct zn_bus_dev *opened[4];

static void flog(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static void flog(const char *fmt, ...)
{
	va_list ap;

	if (fk.nr_log == MAX_LOG)
		fail_msg("fake kernel log overflow");
	va_start(ap, fmt);
	vsnprintf(fk.log[fk.nr_log++], LOG_LINE, fmt, ap);
	va_end(ap);
}

static const char *devrel(const char *path)
{
	size_t n = strlen(DEVROOT);

	return strncmp(path, DEVROOT "/", n + 1) ? NULL : path + n + 1;
}

static bool node_exists(const char *rel)
{
	for (int i = 0; i < fk.nr_nodes; i++)
		if (!strcmp(fk.nodes[i], rel))
			return true;
	return false;
}

static void add_node(const char *rel)
{
	assert_true(fk.nr_nodes < MAX_NODES);
	fk.nodes[fk.nr_nodes++] = rel;
}

static void del_node(const char *rel)
{
	for (int i = 0; i < fk.nr_nodes; i++)
		if (!strcmp(fk.nodes[i], rel)) {
			fk.nodes[i] = fk.nodes[--fk.nr_nodes];
			return;
		}
}

static int new_fd(enum fkind kind)
{
	assert_true(fk.nr_fds < MAX_FDS);
	fk.fds[fk.nr_fds].fd = fk.next_fd;
	fk.fds[fk.nr_fds].kind = kind;
	fk.fds[fk.nr_fds].bound = false;
	fk.nr_fds++;
	return fk.next_fd++;
}

static int fd_slot(int fd)
{
	for (int i = 0; i < fk.nr_fds; i++)
		if (fk.fds[i].fd == fd)
			return i;
	return -1;
}

static enum fkind fd_kind(int fd)
{
	int i = fd_slot(fd);

	return i < 0 ? F_NONE : fk.fds[i].kind;
}

static int fail_errno(int err)
{
	errno = err;
	return -1;
}

static int f_open(const char *path, int flags)
{
	const char *rel = devrel(path);
	enum fkind kind;
	int fd;

	if (!rel)
		return open(path, flags);
	assert_int_equal(flags & O_ACCMODE, O_RDWR);
	if (!node_exists(rel)) {
		flog("open %s = ENOENT", rel);
		return fail_errno(ENOENT);
	}
	if (!strcmp(rel, "vfio/vfio"))
		kind = F_CONTAINER;
	else if (!strcmp(rel, "iommu"))
		kind = F_IOMMUFD;
	else if (!strncmp(rel, "vfio/devices/", 13))
		kind = F_CDEV;
	else
		kind = F_GROUP;
	if (kind == F_GROUP && fk.open_errno_group) {
		flog("open %s = %s", rel, strerrorname_np(fk.open_errno_group));
		return fail_errno(fk.open_errno_group);
	}
	fd = new_fd(kind);
	flog("open %s = %d", rel, fd);
	return fd;
}

static int f_close(int fd)
{
	int i = fd_slot(fd);

	flog("close %d", fd);
	if (i < 0)
		return fail_errno(EBADF);
	fk.fds[i] = fk.fds[--fk.nr_fds];
	return 0;
}

static int ioctl_container(int fd, unsigned long req, void *arg)
{
	uintptr_t iarg = (uintptr_t)arg;

	switch (req) {
	case VFIO_GET_API_VERSION:
		flog("ioctl %d GET_API_VERSION", fd);
		return VFIO_API_VERSION;
	case VFIO_CHECK_EXTENSION:
		flog("ioctl %d CHECK_EXTENSION %u", fd, (unsigned)iarg);
		return (iarg == VFIO_TYPE1v2_IOMMU && fk.ext_type1v2) ||
		       (iarg == VFIO_TYPE1_IOMMU && fk.ext_type1) ||
		       (iarg == VFIO_NOIOMMU_IOMMU && fk.ext_noiommu);
	case VFIO_SET_IOMMU:
		flog("ioctl %d SET_IOMMU %u", fd, (unsigned)iarg);
		return 0;
	case VFIO_IOMMU_GET_INFO: {
		struct vfio_iommu_type1_info *in = arg;
		struct vfio_iommu_type1_info_cap_iova_range cap = {
			.header = { .id = VFIO_IOMMU_TYPE1_INFO_CAP_IOVA_RANGE, .version = 1 },
			.nr_iovas = fk.nr_ranges,
		};
		size_t need = sizeof(*in) + sizeof(cap) + fk.nr_ranges * sizeof(fk.ranges[0]);

		flog("ioctl %d IOMMU_GET_INFO argsz=%u", fd, in->argsz);
		if (in->argsz < offsetof(struct vfio_iommu_type1_info, cap_offset) + 4)
			return fail_errno(EINVAL);
		in->flags = VFIO_IOMMU_INFO_PGSIZES | VFIO_IOMMU_INFO_CAPS;
		in->iova_pgsizes = 0x40201000;	/* 4K | 2M | 1G */
		if (in->argsz < need) {
			in->argsz = (uint32_t)need;
			in->cap_offset = 0;
			return 0;
		}
		in->cap_offset = sizeof(*in);
		memcpy((uint8_t *)arg + sizeof(*in), &cap, sizeof(cap));
		memcpy((uint8_t *)arg + sizeof(*in) + sizeof(cap), fk.ranges,
		       fk.nr_ranges * sizeof(fk.ranges[0]));
		return 0;
	}
	case VFIO_IOMMU_MAP_DMA:
		memcpy(&fk.dma_map, arg, sizeof(fk.dma_map));
		fk.nr_dma_map++;
		flog("ioctl %d MAP_DMA", fd);
		return fk.map_errno ? fail_errno(fk.map_errno) : 0;
	case VFIO_IOMMU_UNMAP_DMA: {
		struct vfio_iommu_type1_dma_unmap *u = arg;

		memcpy(&fk.dma_unmap, arg, sizeof(fk.dma_unmap));
		fk.nr_dma_unmap++;
		flog("ioctl %d UNMAP_DMA", fd);
		u->size -= fk.unmap_short;
		return 0;
	}
	}
	flog("ioctl %d container ?0x%lx", fd, req);
	return fail_errno(ENOTTY);
}

static int ioctl_group(int fd, unsigned long req, void *arg)
{
	switch (req) {
	case VFIO_GROUP_GET_STATUS: {
		struct vfio_group_status *st = arg;

		flog("ioctl %d GROUP_GET_STATUS", fd);
		if (st->argsz < sizeof(*st))
			return fail_errno(EINVAL);
		st->flags = fk.viable ? VFIO_GROUP_FLAGS_VIABLE : 0;
		return 0;
	}
	case VFIO_GROUP_SET_CONTAINER:
		flog("ioctl %d GROUP_SET_CONTAINER %d", fd, *(int *)arg);
		return 0;
	case VFIO_GROUP_GET_DEVICE_FD: {
		int dfd = new_fd(F_DEVICE);

		flog("ioctl %d GROUP_GET_DEVICE_FD %s = %d", fd, (const char *)arg, dfd);
		return dfd;
	}
	}
	flog("ioctl %d group ?0x%lx", fd, req);
	return fail_errno(ENOTTY);
}

static int region_info(int fd, struct vfio_region_info *ri)
{
	const struct fregion *r;
	struct vfio_region_info_cap_sparse_mmap cap = {
		.header = { .id = VFIO_REGION_INFO_CAP_SPARSE_MMAP, .version = 1 },
	};
	size_t need = sizeof(*ri);

	flog("ioctl %d GET_REGION_INFO %u argsz=%u", fd, ri->index, ri->argsz);
	if (ri->argsz < sizeof(*ri) || ri->index >= 9)
		return fail_errno(EINVAL);
	r = &fk.region[ri->index];
	ri->flags = r->flags;
	ri->size = r->size;
	ri->offset = REGION_OFF(ri->index);
	ri->cap_offset = 0;
	if (!r->nr_sparse)
		return 0;
	ri->flags |= VFIO_REGION_INFO_FLAG_CAPS;
	cap.nr_areas = r->nr_sparse;
	need += sizeof(cap) + r->nr_sparse * sizeof(r->sparse[0]);
	if (ri->argsz < need) {
		ri->argsz = (uint32_t)need;
		return 0;
	}
	ri->cap_offset = sizeof(*ri);
	memcpy((uint8_t *)ri + sizeof(*ri), &cap, sizeof(cap));
	memcpy((uint8_t *)ri + sizeof(*ri) + sizeof(cap), r->sparse,
	       r->nr_sparse * sizeof(r->sparse[0]));
	return 0;
}

static int ioctl_device(int fd, unsigned long req, void *arg)
{
	switch (req) {
	case VFIO_DEVICE_GET_INFO: {
		struct vfio_device_info *di = arg;

		flog("ioctl %d DEVICE_GET_INFO", fd);
		if (di->argsz < offsetof(struct vfio_device_info, num_irqs) + 4)
			return fail_errno(EINVAL);
		di->flags = fk.dev_flags;
		di->num_regions = 9;
		di->num_irqs = 5;
		return 0;
	}
	case VFIO_DEVICE_GET_REGION_INFO:
		return region_info(fd, arg);
	case VFIO_DEVICE_GET_IRQ_INFO: {
		struct vfio_irq_info *ii = arg;

		flog("ioctl %d GET_IRQ_INFO %u", fd, ii->index);
		if (ii->argsz < sizeof(*ii) || ii->index >= 5)
			return fail_errno(EINVAL);
		ii->flags = VFIO_IRQ_INFO_EVENTFD |
			    (ii->index == VFIO_PCI_MSIX_IRQ_INDEX ? VFIO_IRQ_INFO_NORESIZE : 0);
		ii->count = ii->index == VFIO_PCI_MSIX_IRQ_INDEX ? 16 : 1;
		return 0;
	}
	case VFIO_DEVICE_SET_IRQS: {
		struct vfio_irq_set *s = arg;

		flog("ioctl %d SET_IRQS argsz=%u", fd, s->argsz);
		assert_true(s->argsz <= sizeof(fk.irq_set));
		memcpy(fk.irq_set, arg, s->argsz);
		return 0;
	}
	case VFIO_DEVICE_RESET:
		flog("ioctl %d DEVICE_RESET", fd);
		return 0;
	}
	flog("ioctl %d device ?0x%lx", fd, req);
	return fail_errno(ENOTTY);
}

static int ioctl_iommufd(int fd, unsigned long req, void *arg)
{
	switch (req) {
	case ZN_IOMMU_IOAS_ALLOC: {
		struct zn_iommu_ioas_alloc *a = arg;

		flog("ioctl %d IOAS_ALLOC size=%u", fd, a->size);
		a->out_ioas_id = IOAS_ID;
		return 0;
	}
	case ZN_IOMMU_IOAS_IOVA_RANGES: {
		struct zn_iommu_ioas_iova_ranges *q = arg;
		struct zn_iommu_iova_range *out = (void *)(uintptr_t)q->allowed_iovas;

		flog("ioctl %d IOAS_IOVA_RANGES ioas=%u num=%u", fd, q->ioas_id, q->num_iovas);
		if (q->num_iovas < fk.nr_ranges) {
			q->num_iovas = fk.nr_ranges;
			return fail_errno(EMSGSIZE);
		}
		for (uint32_t i = 0; i < fk.nr_ranges; i++) {
			out[i].start = fk.ranges[i].start;
			out[i].last = fk.ranges[i].end;
		}
		q->num_iovas = fk.nr_ranges;
		q->out_iova_alignment = 4096;
		return 0;
	}
	case ZN_IOMMU_IOAS_MAP:
		memcpy(&fk.ioas_map, arg, sizeof(fk.ioas_map));
		flog("ioctl %d IOAS_MAP", fd);
		return fk.map_errno ? fail_errno(fk.map_errno) : 0;
	case ZN_IOMMU_IOAS_UNMAP:
		memcpy(&fk.ioas_unmap, arg, sizeof(fk.ioas_unmap));
		flog("ioctl %d IOAS_UNMAP", fd);
		return 0;
	}
	flog("ioctl %d iommufd ?0x%lx", fd, req);
	return fail_errno(ENOTTY);
}

static int ioctl_cdev(int fd, unsigned long req, void *arg)
{
	int slot = fd_slot(fd);

	if (req == ZN_VFIO_DEVICE_BIND_IOMMUFD) {
		struct zn_vfio_device_bind_iommufd *b = arg;

		flog("ioctl %d BIND_IOMMUFD argsz=%u iommufd=%d", fd, b->argsz, b->iommufd);
		if (fd_kind(b->iommufd) != F_IOMMUFD)
			return fail_errno(EBADF);
		b->out_devid = DEVID;
		fk.fds[slot].bound = true;
		return 0;
	}
	if (!fk.fds[slot].bound) {
		/* The kernel refuses every device ioctl before the bind. */
		flog("ioctl %d before bind", fd);
		return fail_errno(EINVAL);
	}
	if (req == ZN_VFIO_DEVICE_ATTACH_IOMMUFD_PT) {
		struct zn_vfio_device_attach_iommufd_pt *a = arg;

		flog("ioctl %d ATTACH_IOMMUFD_PT argsz=%u pt=%u", fd, a->argsz, a->pt_id);
		return a->pt_id == IOAS_ID ? 0 : fail_errno(ENOENT);
	}
	return ioctl_device(fd, req, arg);
}

static int f_ioctl(int fd, unsigned long req, void *arg)
{
	switch (fd_kind(fd)) {
	case F_CONTAINER: return ioctl_container(fd, req, arg);
	case F_GROUP: return ioctl_group(fd, req, arg);
	case F_DEVICE: return ioctl_device(fd, req, arg);
	case F_IOMMUFD: return ioctl_iommufd(fd, req, arg);
	case F_CDEV: return ioctl_cdev(fd, req, arg);
	case F_NONE: break;
	}
	flog("ioctl %d bad fd", fd);
	return fail_errno(EBADF);
}

/*
 * Anonymous maps are real; device maps become real anonymous memory at the
 * same place, so the back end's pointers work.
 */
static void *f_mmap(void *addr, size_t len, int prot, int flags, int fd, off_t off)
{
	void *p;

	if (flags & MAP_ANONYMOUS) {
		p = mmap(addr, len, prot, flags, fd, off);
		if (p != MAP_FAILED && prot == PROT_NONE)
			fk.reserve_base = p;
		flog("mmap anon len=0x%zx prot=%d flags=0x%x", len, prot, flags);
		return p;
	}
	if (addr)
		flog("mmap at=+0x%tx len=0x%zx prot=%d flags=0x%x fd=%d off=0x%jx",
		     (uint8_t *)addr - fk.reserve_base, len, prot, flags, fd, (intmax_t)off);
	else
		flog("mmap at=NULL len=0x%zx prot=%d flags=0x%x fd=%d off=0x%jx",
		     len, prot, flags, fd, (intmax_t)off);
	if (fd_kind(fd) != F_DEVICE && fd_kind(fd) != F_CDEV)
		return errno = EBADF, MAP_FAILED;
	return mmap(addr, len, PROT_READ | PROT_WRITE,
		    (flags & MAP_FIXED) | MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
}

static int f_munmap(void *addr, size_t len)
{
	flog("munmap len=0x%zx", len);
	return munmap(addr, len);
}

static ssize_t f_pread(int fd, void *buf, size_t len, off_t off)
{
	uint64_t o = (uint64_t)off;

	flog("pread %d %zu @0x%" PRIx64, fd, len, o);
	if (o >= REGION_OFF(7) && o + len <= REGION_OFF(7) + CFG_SIZE) {
		memcpy(buf, fk.config + (o - REGION_OFF(7)), len);
		return (ssize_t)len;
	}
	memset(buf, 0xab, len);
	return (ssize_t)len;
}

static ssize_t f_pwrite(int fd, const void *buf, size_t len, off_t off)
{
	uint64_t o = (uint64_t)off;
	char hex[64] = "";

	for (size_t i = 0; i < len && i < 16; i++)
		snprintf(hex + 3 * i, sizeof(hex) - 3 * i, " %02x", ((const uint8_t *)buf)[i]);
	flog("pwrite %d %zu @0x%" PRIx64 " =%s", fd, len, o, hex);
	if (o >= REGION_OFF(7) && o + len <= REGION_OFF(7) + CFG_SIZE)
		memcpy(fk.config + (o - REGION_OFF(7)), buf, len);
	return (ssize_t)len;
}

static ssize_t f_readlink(const char *path, char *buf, size_t len)
{
	return readlink(path, buf, len);
}

static int f_getrlimit(int resource, struct rlimit *rl)
{
	assert_int_equal(resource, RLIMIT_MEMLOCK);
	rl->rlim_cur = rl->rlim_max = fk.memlock;
	return 0;
}

static int f_access(const char *path, int mode)
{
	const char *rel = devrel(path);

	if (!rel)
		return access(path, mode);
	if (node_exists(rel))
		return 0;
	/* A directory of the fake tree exists when a node lies below it. */
	for (int i = 0; i < fk.nr_nodes; i++)
		if (!strncmp(fk.nodes[i], rel, strlen(rel)) && fk.nodes[i][strlen(rel)] == '/')
			return 0;
	return fail_errno(ENOENT);
}

static const struct zn_vfio_sys fake_sys = {
	.open = f_open,
	.close = f_close,
	.ioctl = f_ioctl,
	.mmap = f_mmap,
	.munmap = f_munmap,
	.pread = f_pread,
	.pwrite = f_pwrite,
	.readlink = f_readlink,
	.getrlimit = f_getrlimit,
	.access = f_access,
};

/* ------------------------------------------------------------------ */
/* Fake sysfs                                                          */
/* ------------------------------------------------------------------ */

static void sys_mkdir(const char *rel)
{
	char path[256], *p;

	snprintf(path, sizeof(path), "%s/%s", sysroot, rel);
	for (p = path + strlen(sysroot) + 1; (p = strchr(p, '/')); p++) {
		*p = '\0';
		mkdir(path, 0755);
		*p = '/';
	}
	mkdir(path, 0755);
}

static void sys_link(const char *rel, const char *target)
{
	char path[256];

	snprintf(path, sizeof(path), "%s/%s", sysroot, rel);
	unlink(path);
	assert_int_equal(symlink(target, path), 0);
}

static void sys_unlink(const char *rel)
{
	char path[256];

	snprintf(path, sizeof(path), "%s/%s", sysroot, rel);
	assert_int_equal(unlink(path), 0);
}

/* A PCI device in IOMMU group `group`, bound to `driver` (NULL: none). */
static void sys_add_device(const char *bdf, const char *group, const char *driver)
{
	char rel[128], target[128];

	snprintf(rel, sizeof(rel), "bus/pci/devices/%s", bdf);
	sys_mkdir(rel);
	snprintf(rel, sizeof(rel), "kernel/iommu_groups/%s/devices", group);
	sys_mkdir(rel);
	snprintf(rel, sizeof(rel), "bus/pci/devices/%s/iommu_group", bdf);
	snprintf(target, sizeof(target), "../../../../kernel/iommu_groups/%s", group);
	sys_link(rel, target);
	snprintf(rel, sizeof(rel), "kernel/iommu_groups/%s/devices/%s", group, bdf);
	snprintf(target, sizeof(target), "../../../../bus/pci/devices/%s", bdf);
	sys_link(rel, target);
	if (driver) {
		snprintf(rel, sizeof(rel), "bus/pci/devices/%s/driver", bdf);
		snprintf(target, sizeof(target), "../../../../bus/pci/drivers/%s", driver);
		sys_link(rel, target);
	}
}

static int rm_entry(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
	(void)st; (void)flag; (void)ftw;
	return remove(path);
}

/* ------------------------------------------------------------------ */
/* Log capture and helpers                                             */
/* ------------------------------------------------------------------ */

static struct {
	char line[32][512];
	enum zn_log_level level[32];
	int n;
} cap;

static void sink(enum zn_log_level level, const char *comp, const char *msg, void *arg)
{
	(void)arg;
	assert_string_equal(comp, "bus");
	if (cap.n < 32) {
		cap.level[cap.n] = level;
		snprintf(cap.line[cap.n++], sizeof(cap.line[0]), "%s", msg);
	}
}

/* The one error line the call produced must contain every given fragment. */
static void expect_error(const char *const *frags)
{
	int errs = 0, at = -1;

	for (int i = 0; i < cap.n; i++)
		if (cap.level[i] == ZN_LOG_ERR) {
			errs++;
			at = i;
		}
	if (errs != 1)
		fail_msg("expected exactly one error line, got %d (first: %s)", errs,
			 cap.n ? cap.line[0] : "-");
	for (const char *const *f = frags; *f; f++)
		if (!strstr(cap.line[at], *f))
			fail_msg("error line lacks \"%s\": %s", *f, cap.line[at]);
}
#define EXPECT_ERROR(...) expect_error((const char *const[]){ __VA_ARGS__, NULL })

static bool log_has(const char *s)
{
	for (int i = 0; i < fk.nr_log; i++)
		if (strstr(fk.log[i], s))
			return true;
	return false;
}

static void next_is(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static void next_is(const char *fmt, ...)
{
	char want[LOG_LINE];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(want, sizeof(want), fmt, ap);
	va_end(ap);
	if (fk.cursor >= fk.nr_log)
		fail_msg("log ended; expected \"%s\"", want);
	if (strcmp(fk.log[fk.cursor], want))
		fail_msg("log line %d: got \"%s\", expected \"%s\"", fk.cursor,
			 fk.log[fk.cursor], want);
	fk.cursor++;
}

static void log_done(void)
{
	if (fk.cursor != fk.nr_log)
		fail_msg("unexpected log line %d: \"%s\"", fk.cursor, fk.log[fk.cursor]);
}

static void skip_to_end(void)
{
	fk.cursor = fk.nr_log;
}

static int setup(void **state)
{
	(void)state;
	memset(&fk, 0, sizeof(fk));
	memset(&cap, 0, sizeof(cap));
	fk.next_fd = FIRST_FD;
	fk.viable = true;
	fk.ext_type1v2 = fk.ext_type1 = true;
	fk.dev_flags = VFIO_DEVICE_FLAGS_PCI | VFIO_DEVICE_FLAGS_RESET;
	fk.memlock = RLIM_INFINITY;
	add_node("vfio/vfio");
	add_node("vfio/" GROUP);

	/* BAR0: registers; the MSI-X table hole at 0x2000-0x3fff and past 0xc000. */
	fk.region[0] = (struct fregion){
		.flags = VFIO_REGION_INFO_FLAG_READ | VFIO_REGION_INFO_FLAG_WRITE |
			 VFIO_REGION_INFO_FLAG_MMAP,
		.size = 0x10000, .nr_sparse = 2,
		.sparse = { { .offset = 0x0, .size = 0x2000 }, { .offset = 0x4000, .size = 0x8000 } },
	};
	/* BAR2: doorbells, mmap-able whole. */
	fk.region[2] = (struct fregion){
		.flags = VFIO_REGION_INFO_FLAG_READ | VFIO_REGION_INFO_FLAG_WRITE |
			 VFIO_REGION_INFO_FLAG_MMAP,
		.size = 0x4000,
	};
	fk.region[7] = (struct fregion){
		.flags = VFIO_REGION_INFO_FLAG_READ | VFIO_REGION_INFO_FLAG_WRITE,
		.size = CFG_SIZE,
	};
	fk.config[0] = 0xe4; fk.config[1] = 0x14;	/* vendor 0x14e4 */
	fk.config[2] = 0xd8; fk.config[3] = 0x16;	/* device 0x16d8 */
	fk.nr_ranges = 2;
	fk.ranges[0] = (struct vfio_iova_range){ 0, 0xfedfffff };
	fk.ranges[1] = (struct vfio_iova_range){ 0xfef00000, 0xffffffffffffull };

	snprintf(sysroot, sizeof(sysroot), "/tmp/zn-vfio-test-XXXXXX");
	assert_non_null(mkdtemp(sysroot));
	sys_mkdir("bus/pci/drivers/vfio-pci");
	sys_add_device(BDF, GROUP, "vfio-pci");
	setenv("ZN_SYSFS_ROOT", sysroot, 1);
	setenv("ZN_DEV_ROOT", DEVROOT, 1);
	zn_vfio_sys = &fake_sys;
	zn_log_set_sink(sink, NULL);
	return 0;
}

static int teardown(void **state)
{
	bool leaked = false;

	(void)state;
	for (int i = 0; i < 4; i++)
		if (opened[i]) {
			zn_bus_close(opened[i]);
			opened[i] = NULL;
			leaked = true;
		}
	zn_log_set_sink(NULL, NULL);
	zn_vfio_sys = &zn_vfio_sys_libc;
	nftw(sysroot, rm_entry, 16, FTW_DEPTH | FTW_PHYS);
	unsetenv("ZN_SYSFS_ROOT");
	unsetenv("ZN_DEV_ROOT");
	/* Whatever a test did, every fake fd must be closed again. */
	if (!leaked && fk.nr_fds)
		fail_msg("%d fake fds left open (first %d)", fk.nr_fds, fk.fds[0].fd);
	return 0;
}

/* The log lines of a successful type1 open (container 100, group 101, device 102). */
static void expect_type1_open(unsigned type)
{
	next_is("open vfio/vfio = 100");
	next_is("ioctl 100 GET_API_VERSION");
	next_is("ioctl 100 CHECK_EXTENSION %u", VFIO_TYPE1v2_IOMMU);
	if (type == VFIO_TYPE1_IOMMU)
		next_is("ioctl 100 CHECK_EXTENSION %u", VFIO_TYPE1_IOMMU);
	next_is("open vfio/" GROUP " = 101");
	next_is("ioctl 101 GROUP_GET_STATUS");
	next_is("ioctl 101 GROUP_SET_CONTAINER 100");
	next_is("ioctl 100 SET_IOMMU %u", type);
	next_is("ioctl 100 IOMMU_GET_INFO argsz=24");
	/* 24 info + 16 cap header + 2 ranges of 16 */
	next_is("ioctl 100 IOMMU_GET_INFO argsz=72");
	next_is("ioctl 101 GROUP_GET_DEVICE_FD " BDF " = 102");
	next_is("ioctl 102 DEVICE_GET_INFO");
}

static int track_open(const char *bdf, const struct zn_bus_open_opts *opts,
		      struct zn_bus_dev **d)
{
	int rc = zn_bus_open(bdf, opts, d);

	for (int i = 0; rc == 0 && i < 4; i++)
		if (!opened[i]) {
			opened[i] = *d;
			break;
		}
	return rc;
}

static void close_dev(struct zn_bus_dev *d)
{
	for (int i = 0; i < 4; i++)
		if (opened[i] == d)
			opened[i] = NULL;
	zn_bus_close(d);
}

static struct zn_bus_dev *open_ok(void)
{
	struct zn_bus_dev *d = NULL;

	assert_int_equal(track_open(BDF, NULL, &d), 0);
	assert_non_null(d);
	return d;
}

/* ------------------------------------------------------------------ */
/* Successful paths                                                    */
/* ------------------------------------------------------------------ */

static void test_open_sequence_and_close_order(void **state)
{
	struct zn_bus_dev *d;
	struct zn_device_info info;

	(void)state;
	d = open_ok();
	expect_type1_open(VFIO_TYPE1v2_IOMMU);
	log_done();
	assert_string_equal(d->name, BDF);
	assert_string_equal(d->ops->name, "vfio");
	assert_int_equal(d->ops->get_device_info(d, &info), 0);
	assert_int_equal(info.num_regions, 9);
	assert_int_equal(info.num_irqs, 5);
	assert_int_equal(info.flags, VFIO_DEVICE_FLAGS_PCI | VFIO_DEVICE_FLAGS_RESET);
	assert_int_equal(cap.n, 0);

	close_dev(d);
	next_is("close 102");
	next_is("close 101");
	next_is("close 100");
	log_done();
}

static void test_short_bdf_is_normalized(void **state)
{
	struct zn_bus_dev *d = NULL;

	(void)state;
	assert_int_equal(track_open("3b:00.0", NULL, &d), 0);
	assert_string_equal(d->name, BDF);
	close_dev(d);
}

static void test_type1_fallback(void **state)
{
	struct zn_bus_dev *d;

	(void)state;
	fk.ext_type1v2 = false;
	d = open_ok();
	expect_type1_open(VFIO_TYPE1_IOMMU);
	log_done();
	close_dev(d);
}

static void test_sparse_region_map(void **state)
{
	struct zn_bus_dev *d;
	struct zn_region_info ri;
	uint64_t size;
	uint32_t v;
	void *va;

	(void)state;
	d = open_ok();
	skip_to_end();
	assert_int_equal(zn_bus_map_bar(d, 0, &va, &size), 0);
	assert_int_equal(size, 0x10000);
	next_is("ioctl 102 GET_REGION_INFO 0 argsz=32");
	/* 32 info + 16 sparse header + 2 areas of 16 */
	next_is("ioctl 102 GET_REGION_INFO 0 argsz=80");
	next_is("mmap anon len=0x10000 prot=%d flags=0x%x", PROT_NONE,
		MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE);
	assert_ptr_equal(va, fk.reserve_base);
	next_is("mmap at=+0x0 len=0x2000 prot=%d flags=0x%x fd=102 off=0x%" PRIx64,
		PROT_READ | PROT_WRITE, MAP_SHARED | MAP_FIXED, REGION_OFF(0));
	next_is("mmap at=+0x4000 len=0x8000 prot=%d flags=0x%x fd=102 off=0x%" PRIx64,
		PROT_READ | PROT_WRITE, MAP_SHARED | MAP_FIXED, REGION_OFF(0) + 0x4000);
	log_done();

	assert_int_equal(d->ops->get_region_info(d, 0, &ri), 0);	/* cached */
	assert_int_equal(ri.nr_sparse, 2);
	assert_int_equal(ri.sparse[1].offset, 0x4000);
	assert_int_equal(ri.sparse[1].size, 0x8000);
	assert_int_equal(ri.offset, REGION_OFF(0));
	log_done();

	/* Inside an area: a plain store and load, no system call. */
	assert_int_equal(zn_bus_write32(d, 0, 0x4010, 0x12345678), 0);
	assert_int_equal(*(volatile uint32_t *)((uint8_t *)va + 0x4010), 0x12345678);
	assert_int_equal(zn_bus_read32(d, 0, 0x4010, &v), 0);
	assert_int_equal(v, 0x12345678);
	log_done();
	/* In the hole: pread/pwrite at the region's offset. */
	assert_int_equal(zn_bus_read32(d, 0, 0x2008, &v), 0);
	assert_int_equal(v, 0xabababab);
	next_is("pread 102 4 @0x%" PRIx64, REGION_OFF(0) + 0x2008);
	assert_int_equal(zn_bus_write32(d, 0, 0xc000, 0x01020304), 0);
	next_is("pwrite 102 4 @0x%" PRIx64 " = 04 03 02 01", REGION_OFF(0) + 0xc000);
	log_done();

	close_dev(d);
	next_is("munmap len=0x10000");
	next_is("close 102");
	next_is("close 101");
	next_is("close 100");
	log_done();
}

static void test_sparse_without_usable_area(void **state)
{
	struct zn_bus_dev *d;
	struct zn_region_info ri;
	uint64_t size;
	uint32_t v;
	void *va = (void *)1;
	bool warned = false;

	(void)state;
	/* BAR4 claims mmap, but its only sparse area is not page-aligned. */
	fk.region[4] = (struct fregion){
		.flags = VFIO_REGION_INFO_FLAG_READ | VFIO_REGION_INFO_FLAG_WRITE |
			 VFIO_REGION_INFO_FLAG_MMAP,
		.size = 0x8000, .nr_sparse = 1,
		.sparse = { { .offset = 0x800, .size = 0x1000 } },
	};
	d = open_ok();
	skip_to_end();
	assert_int_equal(zn_bus_map_bar(d, 4, &va, &size), 0);
	assert_null(va);
	assert_int_equal(size, 0x8000);
	assert_int_equal(d->ops->get_region_info(d, 4, &ri), 0);
	assert_int_equal(ri.nr_sparse, 0);
	assert_int_equal(ri.flags & ZN_REGION_F_MMAP, 0);
	for (int i = 0; i < cap.n; i++)
		if (cap.level[i] == ZN_LOG_WARN && strstr(cap.line[i], "ignoring sparse area 0x800+0x1000"))
			warned = true;
	assert_true(warned);
	assert_int_equal(d->ops->map_region(d, 4, &va), -EINVAL);
	next_is("ioctl 102 GET_REGION_INFO 4 argsz=32");
	next_is("ioctl 102 GET_REGION_INFO 4 argsz=64");
	log_done();
	/* Every access is trapped. */
	assert_int_equal(zn_bus_read32(d, 4, 0x800, &v), 0);
	next_is("pread 102 4 @0x%" PRIx64, REGION_OFF(4) + 0x800);
	log_done();
	close_dev(d);
}

static void test_whole_region_map(void **state)
{
	struct zn_bus_dev *d;
	uint64_t size;
	void *va;

	(void)state;
	d = open_ok();
	skip_to_end();
	assert_int_equal(zn_bus_map_bar(d, 2, &va, &size), 0);
	assert_int_equal(size, 0x4000);
	next_is("ioctl 102 GET_REGION_INFO 2 argsz=32");
	next_is("mmap at=NULL len=0x4000 prot=%d flags=0x%x fd=102 off=0x%" PRIx64,
		PROT_READ | PROT_WRITE, MAP_SHARED, REGION_OFF(2));
	log_done();
	/* A BAR that is not implemented cannot be mapped. */
	assert_int_equal(zn_bus_map_bar(d, 1, &va, &size), -ENODEV);
	close_dev(d);
	assert_true(log_has("munmap len=0x4000"));
}

static void test_config_space_and_bus_master(void **state)
{
	struct zn_bus_dev *d;
	uint32_t id;

	(void)state;
	d = open_ok();
	skip_to_end();
	assert_int_equal(zn_bus_cfg_read32(d, 0, &id), 0);
	assert_int_equal(id, 0x16d814e4);
	next_is("ioctl 102 GET_REGION_INFO 7 argsz=32");
	next_is("pread 102 4 @0x%" PRIx64, REGION_OFF(7));
	log_done();

	fk.config[4] = 0x00;
	fk.config[5] = 0x04;	/* INTx disable already set: must survive */
	assert_int_equal(zn_bus_enable_bus_master(d), 0);
	next_is("pread 102 2 @0x%" PRIx64, REGION_OFF(7) + 4);
	next_is("pwrite 102 2 @0x%" PRIx64 " = 06 04", REGION_OFF(7) + 4);
	next_is("pread 102 2 @0x%" PRIx64, REGION_OFF(7) + 4);
	log_done();
	assert_int_equal(fk.config[4], 0x06);
	assert_int_equal(fk.config[5], 0x04);

	/* Past the end of config space: refused before any pread. */
	assert_int_equal(zn_bus_cfg_read32(d, CFG_SIZE - 2, &id), -EINVAL);
	log_done();
	close_dev(d);
}

static void test_irqs(void **state)
{
	struct zn_bus_dev *d;
	struct zn_irq_info ii;
	struct vfio_irq_set s;
	const int fds[3] = { 10, -1, 12 };
	int32_t data[3];

	(void)state;
	d = open_ok();
	skip_to_end();
	assert_int_equal(d->ops->get_irq_info(d, ZN_IRQ_MSIX, &ii), 0);
	next_is("ioctl 102 GET_IRQ_INFO 2");
	assert_int_equal(ii.count, 16);
	assert_int_equal(ii.flags, VFIO_IRQ_INFO_EVENTFD | VFIO_IRQ_INFO_NORESIZE);
	assert_int_equal(d->ops->get_irq_info(d, 5, &ii), -EINVAL);

	assert_int_equal(zn_bus_set_irqs(d, ZN_IRQ_MSIX, 0, 3, fds), 0);
	next_is("ioctl 102 SET_IRQS argsz=32");
	memcpy(&s, fk.irq_set, sizeof(s));
	assert_int_equal(s.argsz, sizeof(s) + sizeof(data));
	assert_int_equal(s.flags, VFIO_IRQ_SET_DATA_EVENTFD | VFIO_IRQ_SET_ACTION_TRIGGER);
	assert_int_equal(s.index, VFIO_PCI_MSIX_IRQ_INDEX);
	assert_int_equal(s.start, 0);
	assert_int_equal(s.count, 3);
	memcpy(data, fk.irq_set + sizeof(s), sizeof(data));
	assert_int_equal(data[0], 10);
	assert_int_equal(data[1], -1);
	assert_int_equal(data[2], 12);

	assert_int_equal(zn_bus_set_irqs(d, ZN_IRQ_MSIX, 5, 1, &fds[2]), 0);
	next_is("ioctl 102 SET_IRQS argsz=24");
	memcpy(&s, fk.irq_set, sizeof(s));
	assert_int_equal(s.start, 5);
	assert_int_equal(s.count, 1);

	/* count 0: DATA_NONE | TRIGGER turns the index off. */
	assert_int_equal(zn_bus_set_irqs(d, ZN_IRQ_MSIX, 0, 0, NULL), 0);
	next_is("ioctl 102 SET_IRQS argsz=20");
	memcpy(&s, fk.irq_set, sizeof(s));
	assert_int_equal(s.argsz, sizeof(s));
	assert_int_equal(s.flags, VFIO_IRQ_SET_DATA_NONE | VFIO_IRQ_SET_ACTION_TRIGGER);
	assert_int_equal(s.index, VFIO_PCI_MSIX_IRQ_INDEX);
	assert_int_equal(s.start, 0);
	assert_int_equal(s.count, 0);

	assert_int_equal(zn_bus_set_irqs(d, ZN_IRQ_MSIX, 0, 2, NULL), -EINVAL);
	assert_int_equal(zn_bus_set_irqs(d, 9, 0, 1, fds), -EINVAL);
	log_done();
	close_dev(d);
}

static struct zn_dma_region region(uint64_t va, uint64_t iova, size_t len)
{
	struct zn_dma_region r = {
		.va = (void *)(uintptr_t)va, .iova = iova, .len = len, .fd = -1,
	};
	snprintf(r.name, sizeof(r.name), "rx-area");
	return r;
}

static void test_dma_map_unmap(void **state)
{
	struct zn_bus_dev *d;
	struct zn_dma_region r = region(0x7f0000000000ull, 0x100000, 0x200000);

	(void)state;
	d = open_ok();
	skip_to_end();
	assert_int_equal(zn_bus_dma_map(d, &r), 0);
	next_is("ioctl 100 MAP_DMA");
	assert_int_equal(fk.dma_map.argsz, sizeof(struct vfio_iommu_type1_dma_map));
	assert_int_equal(fk.dma_map.flags, VFIO_DMA_MAP_FLAG_READ | VFIO_DMA_MAP_FLAG_WRITE);
	assert_int_equal(fk.dma_map.vaddr, 0x7f0000000000ull);
	assert_int_equal(fk.dma_map.iova, 0x100000);
	assert_int_equal(fk.dma_map.size, 0x200000);

	assert_int_equal(zn_bus_dma_unmap(d, &r), 0);
	next_is("ioctl 100 UNMAP_DMA");
	assert_int_equal(fk.dma_unmap.argsz, sizeof(struct vfio_iommu_type1_dma_unmap));
	assert_int_equal(fk.dma_unmap.flags, 0);
	assert_int_equal(fk.dma_unmap.iova, 0x100000);
	assert_int_equal(fk.dma_unmap.size, 0x200000);
	log_done();

	/* Unmapping what is not mapped is an error, not a kernel call. */
	assert_int_equal(zn_bus_dma_unmap(d, &r), -ENOENT);
	EXPECT_ERROR(BDF, "rx-area", "not mapped");
	log_done();
	close_dev(d);
}

static void test_dma_unmap_short_is_eio(void **state)
{
	struct zn_bus_dev *d;
	struct zn_dma_region r = region(0x7f0000000000ull, 0x100000, 0x200000);

	(void)state;
	d = open_ok();
	assert_int_equal(zn_bus_dma_map(d, &r), 0);
	fk.unmap_short = 0x1000;
	assert_int_equal(zn_bus_dma_unmap(d, &r), -EIO);
	EXPECT_ERROR(BDF, "DMA unmap", "different size");
	close_dev(d);
}

static void test_dma_refcount_on_shared_container(void **state)
{
	struct zn_bus_dev *d1, *d2 = NULL;
	struct zn_dma_region r = region(0x7f0000000000ull, 0x100000, 0x200000);
	struct zn_dma_region other = region(0x7f1000000000ull, 0x100000, 0x200000);

	(void)state;
	sys_add_device(BDF2, GROUP, "vfio-pci");
	d1 = open_ok();
	skip_to_end();
	/* The second device of the group shares the group and its container. */
	assert_int_equal(track_open(BDF2, NULL, &d2), 0);
	next_is("ioctl 101 GROUP_GET_DEVICE_FD " BDF2 " = 103");
	next_is("ioctl 103 DEVICE_GET_INFO");
	log_done();

	assert_int_equal(zn_bus_dma_map(d1, &r), 0);
	assert_int_equal(zn_bus_dma_map(d2, &r), 0);
	assert_int_equal(fk.nr_dma_map, 1);
	/* The same IOVA for other memory is refused. */
	assert_int_equal(zn_bus_dma_map(d2, &other), -EEXIST);
	EXPECT_ERROR(BDF2, "already mapped to other memory");
	assert_int_equal(zn_bus_dma_unmap(d1, &r), 0);
	assert_int_equal(fk.nr_dma_unmap, 0);
	assert_int_equal(zn_bus_dma_unmap(d2, &r), 0);
	assert_int_equal(fk.nr_dma_unmap, 1);

	skip_to_end();
	close_dev(d1);
	next_is("close 102");
	log_done();
	close_dev(d2);
	next_is("close 103");
	next_is("close 101");
	next_is("close 100");
	log_done();
}

static void test_reset(void **state)
{
	struct zn_bus_dev *d;

	(void)state;
	d = open_ok();
	skip_to_end();
	assert_int_equal(zn_bus_reset(d), 0);
	next_is("ioctl 102 DEVICE_RESET");
	log_done();
	close_dev(d);

	fk.dev_flags = VFIO_DEVICE_FLAGS_PCI;
	d = open_ok();
	skip_to_end();
	assert_int_equal(zn_bus_reset(d), -ENOTSUP);
	log_done();
	close_dev(d);
}

static void test_iommufd_path(void **state)
{
	struct zn_bus_open_opts opts = { .prefer_iommufd = true };
	struct zn_dma_region r = region(0x7f0000000000ull, 0x100000, 0x200000);
	struct zn_dma_region bad = region(0x7f0000000000ull, 0xfee00000, 0x100000);
	struct zn_bus_dev *d = NULL;
	uint32_t id;

	(void)state;
	add_node("iommu");
	add_node("vfio/devices/vfio3");
	sys_mkdir("bus/pci/devices/" BDF "/vfio-dev/vfio3");

	assert_int_equal(track_open(BDF, &opts, &d), 0);
	next_is("open iommu = 100");
	next_is("ioctl 100 IOAS_ALLOC size=12");
	next_is("open vfio/devices/vfio3 = 101");
	next_is("ioctl 101 BIND_IOMMUFD argsz=16 iommufd=100");
	next_is("ioctl 101 ATTACH_IOMMUFD_PT argsz=12 pt=%d", IOAS_ID);
	next_is("ioctl 100 IOAS_IOVA_RANGES ioas=%d num=0", IOAS_ID);
	next_is("ioctl 100 IOAS_IOVA_RANGES ioas=%d num=2", IOAS_ID);
	next_is("ioctl 101 DEVICE_GET_INFO");
	log_done();

	assert_int_equal(zn_bus_cfg_read32(d, 0, &id), 0);
	assert_int_equal(id, 0x16d814e4);
	skip_to_end();

	assert_int_equal(zn_bus_dma_map(d, &r), 0);
	next_is("ioctl 100 IOAS_MAP");
	assert_int_equal(fk.ioas_map.size, sizeof(struct zn_iommu_ioas_map));
	assert_int_equal(fk.ioas_map.flags, ZN_IOMMU_IOAS_MAP_FIXED_IOVA |
			 ZN_IOMMU_IOAS_MAP_READABLE | ZN_IOMMU_IOAS_MAP_WRITEABLE);
	assert_int_equal(fk.ioas_map.ioas_id, IOAS_ID);
	assert_int_equal(fk.ioas_map.user_va, 0x7f0000000000ull);
	assert_int_equal(fk.ioas_map.length, 0x200000);
	assert_int_equal(fk.ioas_map.iova, 0x100000);
	assert_int_equal(zn_bus_dma_unmap(d, &r), 0);
	next_is("ioctl 100 IOAS_UNMAP");
	assert_int_equal(fk.ioas_unmap.size, sizeof(struct zn_iommu_ioas_unmap));
	assert_int_equal(fk.ioas_unmap.ioas_id, IOAS_ID);
	assert_int_equal(fk.ioas_unmap.iova, 0x100000);
	assert_int_equal(fk.ioas_unmap.length, 0x200000);
	/* The ranges read after the attach are enforced here too. */
	assert_int_equal(zn_bus_dma_map(d, &bad), -EINVAL);
	EXPECT_ERROR("0xfee00000-0xfeefffff", "outside");
	log_done();

	close_dev(d);
	next_is("close 101");
	next_is("close 100");
	log_done();
}

static void test_iommufd_when_no_container(void **state)
{
	struct zn_bus_dev *d = NULL;

	(void)state;
	del_node("vfio/vfio");
	del_node("vfio/" GROUP);
	add_node("iommu");
	add_node("vfio/devices/vfio3");
	sys_mkdir("bus/pci/devices/" BDF "/vfio-dev/vfio3");
	assert_int_equal(track_open(BDF, NULL, &d), 0);
	next_is("open iommu = 100");
	close_dev(d);
}

static void test_noiommu(void **state)
{
	struct zn_bus_open_opts opts = { .noiommu = true };
	struct zn_dma_region r = region(0x7f0000000000ull, 0x100000, 0x200000);
	struct zn_bus_dev *d = NULL;
	bool warned = false;

	(void)state;
	del_node("vfio/" GROUP);
	add_node("vfio/noiommu-" GROUP);
	fk.ext_noiommu = true;

	/* Not asked for: refused, nothing opened. */
	assert_int_equal(track_open(BDF, NULL, &d), -EPERM);
	EXPECT_ERROR(BDF, "no-IOMMU", "unprotected", "--noiommu");
	assert_int_equal(fk.nr_log, 0);

	cap.n = 0;
	assert_int_equal(track_open(BDF, &opts, &d), 0);
	next_is("open vfio/vfio = 100");
	next_is("ioctl 100 GET_API_VERSION");
	next_is("ioctl 100 CHECK_EXTENSION %u", VFIO_NOIOMMU_IOMMU);
	next_is("open vfio/noiommu-" GROUP " = 101");
	next_is("ioctl 101 GROUP_GET_STATUS");
	next_is("ioctl 101 GROUP_SET_CONTAINER 100");
	next_is("ioctl 100 SET_IOMMU %u", VFIO_NOIOMMU_IOMMU);
	next_is("ioctl 101 GROUP_GET_DEVICE_FD " BDF " = 102");
	next_is("ioctl 102 DEVICE_GET_INFO");
	log_done();
	for (int i = 0; i < cap.n; i++)
		if (cap.level[i] == ZN_LOG_WARN && strstr(cap.line[i], "DMA IS UNPROTECTED"))
			warned = true;
	assert_true(warned);

	/* No IOMMU, nothing to map: no ioctl. */
	assert_int_equal(zn_bus_dma_map(d, &r), 0);
	assert_int_equal(zn_bus_dma_unmap(d, &r), 0);
	log_done();
	close_dev(d);
}

/* ------------------------------------------------------------------ */
/* Errors a user meets                                                 */
/* ------------------------------------------------------------------ */

static void test_err_no_vfio_module(void **state)
{
	struct zn_bus_dev *d = NULL;

	(void)state;
	del_node("vfio/vfio");
	del_node("vfio/" GROUP);
	assert_int_equal(track_open(BDF, NULL, &d), -ENODEV);
	assert_null(d);
	EXPECT_ERROR(BDF, DEVROOT "/vfio/vfio", "modprobe vfio-pci");
	assert_int_equal(fk.nr_log, 0);
}

static void test_err_no_iommu_group(void **state)
{
	struct zn_bus_dev *d = NULL;

	(void)state;
	sys_unlink("bus/pci/devices/" BDF "/iommu_group");
	assert_int_equal(track_open(BDF, NULL, &d), -ENODEV);
	EXPECT_ERROR(BDF, "no IOMMU group", "intel_iommu=on", "amd_iommu=on", "--noiommu");
	assert_int_equal(fk.nr_log, 0);
}

static void test_err_wrong_driver(void **state)
{
	struct zn_bus_dev *d = NULL;

	(void)state;
	sys_link("bus/pci/devices/" BDF "/driver", "../../../../bus/pci/drivers/bnxt_en");
	assert_int_equal(track_open(BDF, NULL, &d), -EBUSY);
	EXPECT_ERROR(BDF, "bound to bnxt_en", "zn-devbind --bind " BDF);
	assert_int_equal(fk.nr_log, 0);
}

static void test_err_no_driver(void **state)
{
	struct zn_bus_dev *d = NULL;

	(void)state;
	sys_unlink("bus/pci/devices/" BDF "/driver");
	assert_int_equal(track_open(BDF, NULL, &d), -ENODEV);
	EXPECT_ERROR(BDF, "no driver", "zn-devbind --bind " BDF);
}

static void test_err_group_not_viable(void **state)
{
	struct zn_bus_dev *d = NULL;

	(void)state;
	sys_add_device(BDF2, GROUP, "ixgbe");
	sys_add_device("0000:3b:00.2", GROUP, NULL);	/* unbound: no obstacle */
	fk.viable = false;
	assert_int_equal(track_open(BDF, NULL, &d), -EBUSY);
	EXPECT_ERROR("IOMMU group " GROUP " is not viable", BDF2 " (ixgbe)", "zn-devbind");
	assert_null(strstr(cap.line[0], "0000:3b:00.2"));
	assert_null(strstr(cap.line[0], BDF " ("));
	/* Unwound in reverse order. */
	next_is("open vfio/vfio = 100");
	next_is("ioctl 100 GET_API_VERSION");
	next_is("ioctl 100 CHECK_EXTENSION %u", VFIO_TYPE1v2_IOMMU);
	next_is("open vfio/" GROUP " = 101");
	next_is("ioctl 101 GROUP_GET_STATUS");
	next_is("close 101");
	next_is("close 100");
	log_done();
}

static void test_err_group_permission(void **state)
{
	struct zn_bus_dev *d = NULL;

	(void)state;
	fk.open_errno_group = EACCES;
	assert_int_equal(track_open(BDF, NULL, &d), -EACCES);
	EXPECT_ERROR(BDF, "permission denied", DEVROOT "/vfio/" GROUP, "root", "chown");
	skip_to_end();
	assert_string_equal(fk.log[fk.nr_log - 1], "close 100");
}

static void test_err_group_busy(void **state)
{
	struct zn_bus_dev *d = NULL;

	(void)state;
	fk.open_errno_group = EBUSY;
	assert_int_equal(track_open(BDF, NULL, &d), -EBUSY);
	EXPECT_ERROR(BDF, "busy", "another process");
}

static void test_err_memlock(void **state)
{
	struct zn_bus_dev *d;
	struct zn_dma_region r = region(0x7f0000000000ull, 0x100000, 0x200000);

	(void)state;
	d = open_ok();
	fk.memlock = 65536;
	fk.map_errno = ENOMEM;
	assert_int_equal(zn_bus_dma_map(d, &r), -ENOMEM);
	EXPECT_ERROR(BDF, "RLIMIT_MEMLOCK", "is 65536 bytes", "2097152 bytes must be pinned",
		     "ulimit -l", "limits.conf", "LimitMEMLOCK");
	/* A failed map is not counted: unmapping it is refused locally. */
	cap.n = 0;
	assert_int_equal(zn_bus_dma_unmap(d, &r), -ENOENT);
	assert_int_equal(fk.nr_dma_unmap, 0);
	close_dev(d);
}

static void test_err_memlock_counts_what_is_pinned(void **state)
{
	struct zn_bus_dev *d;
	struct zn_dma_region a = region(0x7f0000000000ull, 0x100000, 0x200000);
	struct zn_dma_region b = region(0x7f0000400000ull, 0x400000, 0x100000);

	(void)state;
	d = open_ok();
	fk.memlock = 0x280000;
	assert_int_equal(zn_bus_dma_map(d, &a), 0);
	fk.map_errno = ENOMEM;
	assert_int_equal(zn_bus_dma_map(d, &b), -ENOMEM);
	EXPECT_ERROR("is 2621440 bytes", "3145728 bytes must be pinned");
	close_dev(d);
}

static void test_err_enomem_not_memlock(void **state)
{
	struct zn_bus_dev *d;
	struct zn_dma_region r = region(0x7f0000000000ull, 0x100000, 0x200000);

	(void)state;
	d = open_ok();
	fk.map_errno = ENOMEM;	/* memlock unlimited */
	assert_int_equal(zn_bus_dma_map(d, &r), -ENOMEM);
	EXPECT_ERROR(BDF, "out of memory");
	assert_null(strstr(cap.line[0], "ulimit"));
	close_dev(d);
}

static void test_err_dma_outside_iova_ranges(void **state)
{
	struct zn_bus_dev *d;
	struct zn_dma_region r = region(0x7f0000000000ull, 0xfee00000, 0x100000);
	struct zn_dma_region high = region(0x7f0000000000ull, 0x1000000000000ull, 0x1000);
	/* Starts in the first range, ends in the MSI window. */
	struct zn_dma_region straddle = region(0x7f0000000000ull, 0xfed00000, 0x200000);

	(void)state;
	d = open_ok();
	assert_int_equal(zn_bus_dma_map(d, &r), -EINVAL);
	EXPECT_ERROR(BDF, "rx-area", "IOVA 0xfee00000-0xfeefffff", "outside",
		     "0x0-0xfedfffff, 0xfef00000-0xffffffffffff");
	cap.n = 0;
	assert_int_equal(zn_bus_dma_map(d, &high), -EINVAL);
	EXPECT_ERROR("IOVA 0x1000000000000-0x1000000000fff", "outside");
	cap.n = 0;
	assert_int_equal(zn_bus_dma_map(d, &straddle), -EINVAL);
	EXPECT_ERROR("IOVA 0xfed00000-0xfeefffff", "outside");
	assert_int_equal(fk.nr_dma_map, 0);
	close_dev(d);
}

static void test_err_dma_unaligned(void **state)
{
	struct zn_bus_dev *d;
	struct zn_dma_region r = region(0x7f0000000800ull, 0x100000, 0x200000);

	(void)state;
	d = open_ok();
	assert_int_equal(zn_bus_dma_map(d, &r), -EINVAL);
	EXPECT_ERROR(BDF, "not aligned", "4096");
	assert_int_equal(fk.nr_dma_map, 0);
	close_dev(d);
}

static void test_err_bad_address(void **state)
{
	struct zn_bus_dev *d = NULL;

	(void)state;
	assert_int_equal(track_open("0000:3b:00", NULL, &d), -EINVAL);
	EXPECT_ERROR("'0000:3b:00' is not a PCI address");
	cap.n = 0;
	assert_int_equal(track_open("0000:3b:20.0", NULL, &d), -EINVAL);
	cap.n = 0;
	assert_int_equal(track_open("0000:3b:00.0/../x", NULL, &d), -EINVAL);
	cap.n = 0;
	assert_int_equal(track_open("0000:3c:00.0", NULL, &d), -ENODEV);
	EXPECT_ERROR("0000:3c:00.0", "no such PCI device", "lspci");
	assert_int_equal(zn_vfio_open(NULL, NULL, &d), -EINVAL);
	assert_int_equal(fk.nr_log, 0);
}

int main(void)
{
#define T(f) cmocka_unit_test_setup_teardown(f, setup, teardown)
	const struct CMUnitTest tests[] = {
		T(test_open_sequence_and_close_order),
		T(test_short_bdf_is_normalized),
		T(test_type1_fallback),
		T(test_sparse_region_map),
		T(test_whole_region_map),
		T(test_sparse_without_usable_area),
		T(test_config_space_and_bus_master),
		T(test_irqs),
		T(test_dma_map_unmap),
		T(test_dma_unmap_short_is_eio),
		T(test_dma_refcount_on_shared_container),
		T(test_reset),
		T(test_iommufd_path),
		T(test_iommufd_when_no_container),
		T(test_noiommu),
		T(test_err_no_vfio_module),
		T(test_err_no_iommu_group),
		T(test_err_wrong_driver),
		T(test_err_no_driver),
		T(test_err_group_not_viable),
		T(test_err_group_permission),
		T(test_err_group_busy),
		T(test_err_memlock),
		T(test_err_memlock_counts_what_is_pinned),
		T(test_err_enomem_not_memlock),
		T(test_err_dma_outside_iova_ranges),
		T(test_err_dma_unaligned),
		T(test_err_bad_address),
	};
#undef T
	return cmocka_run_group_tests(tests, NULL, NULL);
}
