/* SPDX-License-Identifier: MIT */
/*
 * The private tree: what a VFIO program reads to find its devices, written
 * once into a fresh directory under $TMPDIR (default /tmp), and the
 * redirection of path look-ups into it. Layout as Linux has it
 * (Documentation/ABI/testing/sysfs-bus-pci, sysfs-kernel-iommu_groups,
 * Documentation/driver-api/vfio.rst):
 *
 *   sys/bus/pci/devices/       every real entry (a link, as in /sys) + ours
 *   sys/bus/pci/devices/BDF/   vendor device subsystem_vendor subsystem_device
 *                              class revision resource config numa_node
 *                              max_vfs sriov_numvfs enable irq modalias uevent
 *                              driver_override, iommu_group -> group, driver ->
 *                              vfio-pci
 *   sys/bus/pci/drivers/vfio-pci/BDF -> the device
 *   sys/kernel/iommu_groups/   every real group (a link) + ours
 *   sys/kernel/iommu_groups/N/ devices/BDF -> the device, type, reserved_regions
 *   sys/module/vfio{,_pci,_iommu_type1}/   (shown only where the real ones are
 *                              absent; then the listing of sys/module too)
 *   dev/vfio/vfio, dev/vfio/N  for stat and access (open makes bridged fds)
 *   sys/devices -> /sys/devices, so that the real entries' links resolve
 *
 * Only look-ups that name a bridged device or group, or a VFIO module,
 * driver or node the real system lacks, are redirected; the two directory
 * listings (/sys/bus/pci/devices, /sys/kernel/iommu_groups) only for
 * opendir and O_DIRECTORY opens. Everything else goes to the real system.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "bridge/bridge.h"
#include "zcnic/log.h"

#define PCI_DEVICES	"/sys/bus/pci/devices"
#define IOMMU_GROUPS	"/sys/kernel/iommu_groups"
#define VFIO_DRIVER	"/sys/bus/pci/drivers/vfio-pci"
#define DEV_VFIO	"/dev/vfio"
#define ROOT_MAX	256
/* Fake BAR addresses for "resource": a 64 GiB window per device, 4 GiB per BAR. */
#define FAKE_BAR_BASE	0x380000000000ull
#define FAKE_DEV_STRIDE	(1ull << 36)
#define FAKE_BAR_STRIDE	(1ull << 32)
/* Lines of "resource" for a non-bridge device: 6 BARs, ROM, 6 SR-IOV BARs. */
#define RESOURCE_LINES	13
/* include/linux/ioport.h */
#define IORESOURCE_IO		0x100u
#define IORESOURCE_MEM		0x200u
#define IORESOURCE_PREFETCH	0x2000u
#define IORESOURCE_SIZEALIGN	0x40000u
#define IORESOURCE_MEM_64	0x100000u

static const char *const vfio_modules[] = { "vfio", "vfio_pci", "vfio_iommu_type1" };
#define NMOD (sizeof(vfio_modules) / sizeof(vfio_modules[0]))

__thread int znb_inside;
static pthread_once_t tree_once = PTHREAD_ONCE_INIT;
static char root[ROOT_MAX];
static bool tree_ok;
static pid_t tree_pid;		/* a fork child leaves the tree to its parent */
static bool real_driver, real_dev_vfio, real_module[NMOD];

/* ---- Building ---- */

static void remove_tree(int dirfd);

static int tree_path(char *path, size_t len, const char *rel)
{
	int n = snprintf(path, len, "%s/%s", root, rel);

	return n < 0 || (size_t)n >= len ? -ENAMETOOLONG : 0;
}

static int put_file(const char *rel, const void *data, size_t len)
{
	char path[ZNB_PATH_MAX];
	int fd;
	ssize_t n;

	if (tree_path(path, sizeof(path), rel) < 0)
		return -ENAMETOOLONG;
	fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	if (fd < 0)
		return -errno;
	n = write(fd, data, len);
	close(fd);
	return n == (ssize_t)len ? 0 : -EIO;
}

static int put_text(const char *rel, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static int put_text(const char *rel, const char *fmt, ...)
{
	char text[1024];
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(text, sizeof(text), fmt, ap);
	va_end(ap);
	if (n < 0 || (size_t)n >= sizeof(text))
		return -EOVERFLOW;
	return put_file(rel, text, (size_t)n);
}

static int put_dir(const char *rel)
{
	char path[ZNB_PATH_MAX];
	char *p;

	if (tree_path(path, sizeof(path), rel) < 0)
		return -ENAMETOOLONG;
	for (p = path + strlen(root) + 1; (p = strchr(p, '/')); p++) {
		*p = '\0';
		if (mkdir(path, 0755) < 0 && errno != EEXIST)
			return -errno;
		*p = '/';
	}
	return mkdir(path, 0755) < 0 && errno != EEXIST ? -errno : 0;
}

static int put_link(const char *rel, const char *target)
{
	char path[ZNB_PATH_MAX];

	if (tree_path(path, sizeof(path), rel) < 0)
		return -ENAMETOOLONG;
	return symlink(target, path) < 0 && errno != EEXIST ? -errno : 0;
}

/* The real entries of dir, as links: relative targets kept (they resolve
 * through sys/devices), or absolute ones to the real entry. */
static void mirror_dir(const char *dir, const char *rel, bool absolute)
{
	char link[ZNB_PATH_MAX], target[ZNB_PATH_MAX], lrel[ZNB_PATH_MAX];
	DIR *d = opendir(dir);
	struct dirent *e;

	if (!d)
		return;
	while ((e = readdir(d))) {
		ssize_t n;

		/* A bridged device hides a real one of the same address. */
		if (e->d_name[0] == '.' || znb_dev_by_bdf(e->d_name, strlen(e->d_name)))
			continue;
		if ((size_t)snprintf(link, sizeof(link), "%s/%s", dir, e->d_name) >= sizeof(link))
			continue;
		if (absolute) {
			snprintf(target, sizeof(target), "%s", link);
		} else {
			n = readlink(link, target, sizeof(target) - 1);
			if (n < 0)
				continue;
			target[n] = '\0';
		}
		if ((size_t)snprintf(lrel, sizeof(lrel), "%s/%s", rel, e->d_name) < sizeof(lrel))
			put_link(lrel, target);
	}
	closedir(d);
}

static uint32_t cfg32(const struct znb_dev *d, unsigned off)
{
	uint32_t v = 0;

	if (off + 4 <= d->config_size)
		memcpy(&v, d->config + off, 4);
	return v;
}

static uint16_t cfg16(const struct znb_dev *d, unsigned off)
{
	uint16_t v = 0;

	if (off + 2 <= d->config_size)
		memcpy(&v, d->config + off, 2);
	return v;
}

/* resource: "start end flags" per BAR, from the probed sizes and the BAR
 * registers' type bits (PCI Local Bus spec 6.2.5.1); fake but distinct
 * addresses. */
static int put_resource(const struct znb_dev *d, unsigned idx, const char *rel)
{
	char text[RESOURCE_LINES * 64], *p = text;
	uint64_t base = FAKE_BAR_BASE + idx * FAKE_DEV_STRIDE;

	for (unsigned i = 0; i < RESOURCE_LINES; i++) {
		uint64_t size = i < 7 ? d->bar_size[i] : 0, start = 0, end = 0, flags = 0;

		if (size) {
			uint32_t bar = i < 6 ? cfg32(d, 0x10 + 4 * i) : 0;

			start = base + i * FAKE_BAR_STRIDE;
			end = start + size - 1;
			if (bar & 1) {
				flags = IORESOURCE_IO | IORESOURCE_SIZEALIGN | 1;
			} else {
				flags = IORESOURCE_MEM | IORESOURCE_SIZEALIGN | (bar & 0xf);
				if ((bar & 6) == 4)
					flags |= IORESOURCE_MEM_64;
				if (bar & 8)
					flags |= IORESOURCE_PREFETCH;
			}
		}
		p += sprintf(p, "0x%016llx 0x%016llx 0x%016llx\n", (unsigned long long)start,
			     (unsigned long long)end, (unsigned long long)flags);
	}
	return put_file(rel, text, (size_t)(p - text));
}

static int put_device(struct znb_dev *d, unsigned idx, const char *numa)
{
	char dir[64], rel[128], target[128];
	uint16_t ven = cfg16(d, 0x00), dev = cfg16(d, 0x02);
	uint16_t sven = cfg16(d, 0x2c), sdev = cfg16(d, 0x2e);
	uint32_t class = cfg32(d, 0x08) >> 8;
	uint8_t rev = (uint8_t)cfg32(d, 0x08);
	char modalias[128];
	int rc = 0;

	snprintf(dir, sizeof(dir), "sys/bus/pci/devices/%s", d->bdf);
	snprintf(modalias, sizeof(modalias), "pci:v%08Xd%08Xsv%08Xsd%08Xbc%02Xsc%02Xi%02X",
		 ven, dev, sven, sdev, class >> 16, (class >> 8) & 0xff, class & 0xff);
	rc |= put_dir(dir);
#define F(name, ...) do { snprintf(rel, sizeof(rel), "%s/" name, dir); \
		rc |= put_text(rel, __VA_ARGS__); } while (0)
	F("vendor", "0x%04x\n", ven);
	F("device", "0x%04x\n", dev);
	F("subsystem_vendor", "0x%04x\n", sven);
	F("subsystem_device", "0x%04x\n", sdev);
	F("class", "0x%06x\n", class);
	F("revision", "0x%02x\n", rev);
	F("numa_node", "%s\n", numa);
	F("max_vfs", "0\n");
	F("sriov_numvfs", "0\n");
	F("sriov_totalvfs", "0\n");
	F("enable", "1\n");
	F("irq", "0\n");
	F("driver_override", "(null)\n");
	F("modalias", "%s\n", modalias);
	F("uevent", "DRIVER=vfio-pci\nPCI_CLASS=%X\nPCI_ID=%04X:%04X\nPCI_SUBSYS_ID=%04X:%04X\n"
	  "PCI_SLOT_NAME=%s\nMODALIAS=%s\n", class, ven, dev, sven, sdev, d->bdf, modalias);
#undef F
	snprintf(rel, sizeof(rel), "%s/config", dir);
	rc |= put_file(rel, d->config, d->config_size);
	snprintf(rel, sizeof(rel), "%s/resource", dir);
	rc |= put_resource(d, idx, rel);
	/* Relative links, as sysfs has them; they resolve inside the tree. */
	snprintf(rel, sizeof(rel), "%s/iommu_group", dir);
	snprintf(target, sizeof(target), "../../../../kernel/iommu_groups/%u", d->group);
	rc |= put_link(rel, target);
	snprintf(rel, sizeof(rel), "%s/driver", dir);
	rc |= put_link(rel, "../../../../bus/pci/drivers/vfio-pci");
	snprintf(rel, sizeof(rel), "%s/subsystem", dir);
	rc |= put_link(rel, "../../../../bus/pci");
	snprintf(rel, sizeof(rel), "sys/bus/pci/drivers/vfio-pci/%s", d->bdf);
	snprintf(target, sizeof(target), "../../devices/%s", d->bdf);
	rc |= put_link(rel, target);

	snprintf(dir, sizeof(dir), "sys/kernel/iommu_groups/%u", d->group);
	snprintf(rel, sizeof(rel), "%s/devices", dir);
	rc |= put_dir(rel);
	snprintf(rel, sizeof(rel), "%s/devices/%s", dir, d->bdf);
	snprintf(target, sizeof(target), "../../../../bus/pci/devices/%s", d->bdf);
	rc |= put_link(rel, target);
	snprintf(rel, sizeof(rel), "%s/type", dir);
	rc |= put_text(rel, "DMA\n");
	/* The x86 MSI window, which type1 keeps out of the IOVA space. */
	snprintf(rel, sizeof(rel), "%s/reserved_regions", dir);
	rc |= put_text(rel, "0x00000000fee00000 0x00000000feefffff msi\n");
	snprintf(rel, sizeof(rel), "dev/vfio/%u", d->group);
	rc |= put_text(rel, "%s", "");
	return rc;
}

static bool exists(const char *path)
{
	return access(path, F_OK) == 0;
}

/* Trees left by bridged processes that died by a signal (no destructor ran). */
static void remove_stale(const char *tmp)
{
	DIR *d = opendir(tmp);
	struct dirent *e;

	if (!d)
		return;
	while ((e = readdir(d))) {
		char path[ZNB_PATH_MAX];
		int pid = 0, n = 0, fd;

		if (sscanf(e->d_name, "znvfio.%d.%n", &pid, &n) != 1 || !n || pid <= 0 ||
		    pid == getpid() || kill(pid, 0) == 0 || errno != ESRCH)
			continue;
		if ((size_t)snprintf(path, sizeof(path), "%s/%s", tmp, e->d_name) >= sizeof(path))
			continue;
		fd = open(path, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
		if (fd >= 0)
			remove_tree(fd);
		rmdir(path);
	}
	closedir(d);
}

static void tree_build(void)
{
	const char *tmp = getenv("TMPDIR");
	const char *numa = exists("/sys/devices/system/node/node0") ? "0" : "-1";
	char rel[128];
	int rc = 0;

	znb_inside++;
	if (!tmp || !*tmp)
		tmp = "/tmp";
	remove_stale(tmp);
	snprintf(root, sizeof(root), "%s/znvfio.%d.XXXXXX", tmp, (int)getpid());
	if (!mkdtemp(root)) {
		zn_log(ZN_LOG_ERR, ZNB_LOG, "cannot create %s for the bridged sysfs: %s; no "
		       "device is shown", root, strerror(errno));
		root[0] = '\0';
		goto out;
	}
	tree_pid = getpid();
	real_driver = exists(VFIO_DRIVER);
	real_dev_vfio = exists(DEV_VFIO);
	for (unsigned i = 0; i < NMOD; i++) {
		snprintf(rel, sizeof(rel), "/sys/module/%s", vfio_modules[i]);
		real_module[i] = exists(rel);
	}
	rc |= put_dir("sys/bus/pci/devices");
	rc |= put_dir("sys/bus/pci/drivers/vfio-pci");
	rc |= put_dir("sys/kernel/iommu_groups");
	rc |= put_dir("dev/vfio");
	rc |= put_link("sys/devices", "/sys/devices");
	rc |= put_text("dev/vfio/vfio", "%s", "");
	rc |= put_dir("sys/module/vfio/parameters");
	rc |= put_text("sys/module/vfio/parameters/enable_unsafe_noiommu_mode", "N\n");
	rc |= put_dir("sys/module/vfio_pci/parameters");
	rc |= put_dir("sys/module/vfio_iommu_type1/parameters");
	rc |= put_text("sys/module/vfio_iommu_type1/parameters/dma_entry_limit", "65535\n");
	rc |= put_text("sys/module/vfio_iommu_type1/parameters/allow_unsafe_interrupts", "N\n");
	mirror_dir(PCI_DEVICES, "sys/bus/pci/devices", false);
	mirror_dir(IOMMU_GROUPS, "sys/kernel/iommu_groups", true);
	mirror_dir("/sys/module", "sys/module", true);
	for (unsigned i = 0; i < znb.ndev; i++)
		if (znb_dev_probe(&znb.dev[i]) == 0)
			rc |= put_device(&znb.dev[i], i, numa);
	if (rc) {
		zn_log(ZN_LOG_ERR, ZNB_LOG, "cannot write the bridged sysfs under %s; no device "
		       "is shown", root);
		goto out;
	}
	tree_ok = true;
out:
	znb_inside--;
}

/* ---- Look-ups ---- */

/* Copies path with runs of '/' collapsed and no trailing '/'. */
static bool normalize(const char *path, char *out, size_t len)
{
	size_t o = 0;

	for (const char *p = path; *p; p++) {
		if (*p == '/' && o && out[o - 1] == '/')
			continue;
		if (o + 1 >= len)
			return false;
		out[o++] = *p;
	}
	while (o > 1 && out[o - 1] == '/')
		o--;
	out[o] = '\0';
	return true;
}

/* path is prefix itself or prefix + "/..."; *rest gets what follows. */
static bool under(const char *path, const char *prefix, const char **rest)
{
	size_t n = strlen(prefix);

	if (strncmp(path, prefix, n) || (path[n] && path[n] != '/'))
		return false;
	if (rest)
		*rest = path + n;
	return true;
}

static bool parse_group(const char *s, unsigned *num, const char **rest)
{
	char *end;
	unsigned long v;

	if (*s < '0' || *s > '9')
		return false;
	v = strtoul(s, &end, 10);
	if ((*end && *end != '/') || v > 1u << 20)
		return false;
	*num = (unsigned)v;
	if (rest)
		*rest = end;
	return true;
}

static struct znb_dev *shown_dev(const char *bdf_and_rest)
{
	size_t n = strcspn(bdf_and_rest, "/");
	struct znb_dev *d = znb_dev_by_bdf(bdf_and_rest, n);

	return d && d->probed ? d : NULL;
}

static bool shown_group(unsigned num)
{
	struct znb_group *g = znb_group_by_num(num);

	return g && znb_group_dev(g)->probed;
}

static void tree_init(void)
{
	pthread_once(&tree_once, tree_build);
}

static bool wanted(const char *p, enum znb_lookup how)
{
	const char *rest;
	unsigned num;

	if (under(p, PCI_DEVICES, &rest)) {
		if (!*rest)
			return how == ZNB_LIST;
		if (!znb_dev_by_bdf(rest + 1, strcspn(rest + 1, "/")))
			return false;
		tree_init();
		return shown_dev(rest + 1) != NULL;
	}
	if (under(p, IOMMU_GROUPS, &rest)) {
		if (!*rest)
			return how == ZNB_LIST;
		return parse_group(rest + 1, &num, NULL) && znb_group_by_num(num) &&
		       (tree_init(), shown_group(num));
	}
	/* Listed by tools that look for loaded modules (dpdk-devbind.py). */
	if (!strcmp(p, "/sys/module") && how == ZNB_LIST)
		return tree_init(), !real_module[0] || !real_module[1] || !real_module[2];
	if (under(p, VFIO_DRIVER, NULL))
		return tree_init(), !real_driver;
	for (unsigned i = 0; i < NMOD; i++) {
		char mod[64];

		snprintf(mod, sizeof(mod), "/sys/module/%s", vfio_modules[i]);
		if (under(p, mod, NULL))
			return tree_init(), !real_module[i];
	}
	if (under(p, DEV_VFIO, &rest)) {
		if (!*rest)
			return tree_init(), !real_dev_vfio;
		if (!strcmp(rest, "/vfio"))
			return true;
		return parse_group(rest + 1, &num, &rest) && !*rest && znb_group_by_num(num) &&
		       (tree_init(), shown_group(num));
	}
	return false;
}

const char *znb_redirect(const char *path, char *buf, size_t len, enum znb_lookup how)
{
	char norm[ZNB_PATH_MAX];

	if (!path || path[0] != '/' || znb_inside)
		return path;
	if (strncmp(path, "/sys/", 5) && strncmp(path, DEV_VFIO, strlen(DEV_VFIO)))
		return path;
	znb_config_init();
	if (!znb.active || !normalize(path, norm, sizeof(norm)) || !wanted(norm, how))
		return path;
	tree_init();
	if (!tree_ok || (size_t)snprintf(buf, len, "%s%s", root, norm) >= len)
		return path;
	return buf;
}

int znb_dev_node(const char *path, struct znb_group **g)
{
	char norm[ZNB_PATH_MAX];
	const char *rest;
	unsigned num;

	if (!path || strncmp(path, DEV_VFIO, strlen(DEV_VFIO)) || znb_inside)
		return -1;
	znb_config_init();
	if (!znb.active || !normalize(path, norm, sizeof(norm)) || !under(norm, DEV_VFIO, &rest))
		return -1;
	if (!strcmp(rest, "/vfio"))
		return 0;
	if (*rest && parse_group(rest + 1, &num, &rest) && !*rest && (*g = znb_group_by_num(num))) {
		tree_init();
		return shown_group(num) ? 1 : -1;
	}
	return -1;
}

void znb_unredirect(char *path, size_t len)
{
	size_t n = strlen(root);

	(void)len;
	if (n && !strncmp(path, root, n) && (path[n] == '/' || !path[n]))
		memmove(path, path + n, strlen(path + n) + 1);
	if (!path[0])
		strcpy(path, "/");
}

/* ---- Clean-up ---- */

static void remove_tree(int dirfd)
{
	DIR *d = fdopendir(dirfd);
	struct dirent *e;

	if (!d) {
		close(dirfd);
		return;
	}
	while ((e = readdir(d))) {
		if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, ".."))
			continue;
		if (e->d_type == DT_DIR) {
			int sub = openat(dirfd, e->d_name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW |
					 O_CLOEXEC);

			if (sub >= 0)
				remove_tree(sub);
			unlinkat(dirfd, e->d_name, AT_REMOVEDIR);
		} else {
			unlinkat(dirfd, e->d_name, 0);
		}
	}
	closedir(d);
}

void znb_sysfs_cleanup(void)
{
	int fd;

	if (!root[0] || tree_pid != getpid())
		return;
	znb_inside++;
	fd = open(root, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (fd >= 0)
		remove_tree(fd);
	rmdir(root);
	root[0] = '\0';
	znb_inside--;
}
