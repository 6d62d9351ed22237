/* SPDX-License-Identifier: MIT */
/* A fake sysfs tree for PCI tests; see fake_sysfs.h. */
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "tests/unit/support/fake_sysfs.h"

#define PCI_CFG_SIZE		256
#define NATIVE_DIR		"fake-native"	/* per device: the driver drivers_probe picks */
#define VFIO_PCI		"vfio-pci"

const char *fake_sysfs_path(const struct fake_sysfs *fs, const char *rel, char *buf)
{
	snprintf(buf, FAKE_SYSFS_PATH_MAX, "%s/%s", fs->root, rel);
	return buf;
}

static int write_file(const struct fake_sysfs *fs, const char *rel, const void *data,
		      size_t len)
{
	char path[FAKE_SYSFS_PATH_MAX];
	int fd, rc = 0;

	fd = open(fake_sysfs_path(fs, rel, path), O_WRONLY | O_CREAT | O_TRUNC, 0644);
	if (fd < 0)
		return -errno;
	if (write(fd, data, len) != (ssize_t)len)
		rc = -EIO;
	close(fd);
	return rc;
}

__attribute__((format(printf, 3, 4)))
static int write_fmt(const struct fake_sysfs *fs, const char *rel, const char *fmt, ...)
{
	char buf[128];
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	return write_file(fs, rel, buf, (size_t)n);
}

static int make_dir(const struct fake_sysfs *fs, const char *rel)
{
	char path[FAKE_SYSFS_PATH_MAX];

	if (mkdir(fake_sysfs_path(fs, rel, path), 0755) < 0 && errno != EEXIST)
		return -errno;
	return 0;
}

static int make_link(const struct fake_sysfs *fs, const char *target, const char *rel)
{
	char path[FAKE_SYSFS_PATH_MAX];

	if (symlink(target, fake_sysfs_path(fs, rel, path)) < 0)
		return -errno;
	return 0;
}

static bool exists(const struct fake_sysfs *fs, const char *rel)
{
	char path[FAKE_SYSFS_PATH_MAX];
	struct stat st;

	return lstat(fake_sysfs_path(fs, rel, path), &st) == 0;
}

int fake_sysfs_create(struct fake_sysfs *fs)
{
	static const char *const dirs[] = {
		"bus", "bus/pci", "bus/pci/devices", "bus/pci/drivers",
		"kernel", "kernel/iommu_groups", NATIVE_DIR,
	};
	const char *tmp = getenv("TMPDIR");
	int rc;

	memset(fs, 0, sizeof(*fs));
	snprintf(fs->root, sizeof(fs->root), "%s/zn-fakesys-XXXXXX",
		 tmp && *tmp ? tmp : "/tmp");
	if (!mkdtemp(fs->root))
		return -errno;
	for (size_t i = 0; i < sizeof(dirs) / sizeof(dirs[0]); i++)
		if ((rc = make_dir(fs, dirs[i])) < 0)
			return rc;
	return write_file(fs, "bus/pci/drivers_probe", "", 0);
}

static int rm_one(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
	(void)st; (void)ftw;
	return flag == FTW_DP ? rmdir(path) : unlink(path);
}

void fake_sysfs_destroy(struct fake_sysfs *fs)
{
	if (fs->root[0])
		nftw(fs->root, rm_one, 16, FTW_DEPTH | FTW_PHYS);
	fs->root[0] = '\0';
}

int fake_sysfs_add_driver(struct fake_sysfs *fs, const char *name)
{
	static const char *const files[] = { "bind", "unbind", "new_id" };
	char rel[FAKE_SYSFS_PATH_MAX];
	int rc;

	snprintf(rel, sizeof(rel), "bus/pci/drivers/%s", name);
	if (exists(fs, rel))
		return 0;
	if ((rc = make_dir(fs, rel)) < 0)
		return rc;
	for (size_t i = 0; i < sizeof(files) / sizeof(files[0]); i++) {
		snprintf(rel, sizeof(rel), "bus/pci/drivers/%s/%s", name, files[i]);
		if ((rc = write_file(fs, rel, "", 0)) < 0)
			return rc;
	}
	return 0;
}

static int bind_link(struct fake_sysfs *fs, const char *bdf, const char *driver)
{
	char rel[FAKE_SYSFS_PATH_MAX], target[FAKE_SYSFS_PATH_MAX];

	snprintf(rel, sizeof(rel), "bus/pci/devices/%s/driver", bdf);
	snprintf(target, sizeof(target), "../../../../bus/pci/drivers/%s", driver);
	return make_link(fs, target, rel);
}

static void put_le16(uint8_t *p, uint16_t v)
{
	p[0] = (uint8_t)v;
	p[1] = (uint8_t)(v >> 8);
}

int fake_sysfs_add_dev(struct fake_sysfs *fs, const struct fake_pci_dev *d)
{
	char rel[FAKE_SYSFS_PATH_MAX], target[FAKE_SYSFS_PATH_MAX];
	uint8_t cfg[PCI_CFG_SIZE] = { 0 };
	const char *native = d->native_driver ? d->native_driver : d->driver;
	int rc;

#define DEV_FILE(attr) (snprintf(rel, sizeof(rel), "bus/pci/devices/%s/%s", d->bdf, (attr)), rel)
	snprintf(rel, sizeof(rel), "bus/pci/devices/%s", d->bdf);
	if ((rc = make_dir(fs, rel)) < 0 ||
	    (rc = write_fmt(fs, DEV_FILE("vendor"), "0x%04x\n", d->vendor)) < 0 ||
	    (rc = write_fmt(fs, DEV_FILE("device"), "0x%04x\n", d->device)) < 0 ||
	    (rc = write_fmt(fs, DEV_FILE("class"), "0x%06x\n", d->class)) < 0 ||
	    (rc = write_fmt(fs, DEV_FILE("numa_node"), "%d\n", d->numa_node)) < 0)
		return rc;
	if (!d->no_subsys_files &&
	    ((rc = write_fmt(fs, DEV_FILE("subsystem_vendor"), "0x%04x\n", d->subsys_vendor)) < 0 ||
	     (rc = write_fmt(fs, DEV_FILE("subsystem_device"), "0x%04x\n", d->subsys_device)) < 0))
		return rc;
	if (!d->no_driver_override && (rc = write_file(fs, DEV_FILE("driver_override"), "", 0)) < 0)
		return rc;

	/* Config space: IDs, class code (prog-if, subclass, base), type 0 header, subsystem. */
	put_le16(cfg + 0x00, d->vendor);
	put_le16(cfg + 0x02, d->device);
	cfg[0x09] = (uint8_t)d->class;
	cfg[0x0a] = (uint8_t)(d->class >> 8);
	cfg[0x0b] = (uint8_t)(d->class >> 16);
	cfg[0x0e] = 0;
	put_le16(cfg + 0x2c, d->subsys_vendor);
	put_le16(cfg + 0x2e, d->subsys_device);
	if ((rc = write_file(fs, DEV_FILE("config"), cfg, sizeof(cfg))) < 0)
		return rc;

	if (d->iommu_group >= 0) {
		snprintf(rel, sizeof(rel), "kernel/iommu_groups/%d", d->iommu_group);
		if ((rc = make_dir(fs, rel)) < 0)
			return rc;
		snprintf(rel, sizeof(rel), "kernel/iommu_groups/%d/devices", d->iommu_group);
		if ((rc = make_dir(fs, rel)) < 0)
			return rc;
		snprintf(rel, sizeof(rel), "kernel/iommu_groups/%d/devices/%s", d->iommu_group, d->bdf);
		snprintf(target, sizeof(target), "../../../../bus/pci/devices/%s", d->bdf);
		if ((rc = make_link(fs, target, rel)) < 0)
			return rc;
		snprintf(target, sizeof(target), "../../../../kernel/iommu_groups/%d", d->iommu_group);
		if ((rc = make_link(fs, target, DEV_FILE("iommu_group"))) < 0)
			return rc;
	}
	if (native) {
		if ((rc = fake_sysfs_add_driver(fs, native)) < 0)
			return rc;
		snprintf(rel, sizeof(rel), NATIVE_DIR "/%s", d->bdf);
		if ((rc = write_fmt(fs, rel, "%s", native)) < 0)
			return rc;
	}
	if (d->driver) {
		if ((rc = fake_sysfs_add_driver(fs, d->driver)) < 0 ||
		    (rc = bind_link(fs, d->bdf, d->driver)) < 0)
			return rc;
	}
#undef DEV_FILE
	return 0;
}

int fake_sysfs_add_rdma(struct fake_sysfs *fs, const char *name, const char *bdf,
			const char *const *netdevs, unsigned nnet)
{
	char rel[FAKE_SYSFS_PATH_MAX], target[FAKE_SYSFS_PATH_MAX];
	int rc;

	if ((rc = make_dir(fs, "class")) || (rc = make_dir(fs, "class/infiniband")))
		return rc;
	snprintf(rel, sizeof(rel), "class/infiniband/%s", name);
	if ((rc = make_dir(fs, rel)) || !bdf)
		return rc;
	snprintf(target, sizeof(target), "../../../bus/pci/devices/%s", bdf);
	snprintf(rel, sizeof(rel), "class/infiniband/%s/device", name);
	if ((rc = make_link(fs, target, rel)))
		return rc;
	snprintf(rel, sizeof(rel), "bus/pci/devices/%s/net", bdf);
	if (nnet && (rc = make_dir(fs, rel)))
		return rc;
	for (unsigned i = 0; i < nnet; i++) {
		snprintf(rel, sizeof(rel), "bus/pci/devices/%s/net/%s", bdf, netdevs[i]);
		if ((rc = make_dir(fs, rel)))
			return rc;
	}
	return 0;
}

char *fake_sysfs_read(const struct fake_sysfs *fs, const char *rel, size_t *len)
{
	char path[FAKE_SYSFS_PATH_MAX], *buf;
	struct stat st;
	ssize_t n;
	int fd = open(fake_sysfs_path(fs, rel, path), O_RDONLY);

	if (fd < 0)
		return NULL;
	if (fstat(fd, &st) < 0 || !(buf = malloc((size_t)st.st_size + 1))) {
		close(fd);
		return NULL;
	}
	n = read(fd, buf, (size_t)st.st_size);
	close(fd);
	if (n < 0) {
		free(buf);
		return NULL;
	}
	buf[n] = '\0';
	if (len)
		*len = (size_t)n;
	return buf;
}

int fake_sysfs_driver_of(const struct fake_sysfs *fs, const char *bdf, char *buf, size_t len)
{
	char rel[FAKE_SYSFS_PATH_MAX], path[FAKE_SYSFS_PATH_MAX], target[FAKE_SYSFS_PATH_MAX];
	const char *base;
	ssize_t n;

	snprintf(rel, sizeof(rel), "bus/pci/devices/%s/driver", bdf);
	n = readlink(fake_sysfs_path(fs, rel, path), target, sizeof(target) - 1);
	if (n < 0) {
		if (errno != ENOENT)
			return -errno;
		buf[0] = '\0';
		return 0;
	}
	target[n] = '\0';
	base = strrchr(target, '/');
	snprintf(buf, len, "%s", base ? base + 1 : target);
	return 0;
}

/* A file's text without trailing newlines ("" when missing). */
static void read_value(const struct fake_sysfs *fs, const char *rel, char *buf, size_t len)
{
	char *s = fake_sysfs_read(fs, rel, NULL);
	size_t n;

	snprintf(buf, len, "%s", s ? s : "");
	free(s);
	n = strlen(buf);
	while (n > 0 && buf[n - 1] == '\n')
		buf[--n] = '\0';
}

static void emulate_probe(struct fake_sysfs *fs, const char *bdf)
{
	char rel[FAKE_SYSFS_PATH_MAX], want[64];

	snprintf(rel, sizeof(rel), "bus/pci/devices/%s/driver", bdf);
	if (exists(fs, rel))
		return;
	snprintf(rel, sizeof(rel), "bus/pci/devices/%s/driver_override", bdf);
	read_value(fs, rel, want, sizeof(want));
	if (!strcmp(want, "(null)"))
		want[0] = '\0';
	if (!want[0]) {
		snprintf(rel, sizeof(rel), NATIVE_DIR "/%s", bdf);
		read_value(fs, rel, want, sizeof(want));
	} else if (!strcmp(want, VFIO_PCI)) {
		/* vfio-pci's probe fails for a device outside any IOMMU group. */
		snprintf(rel, sizeof(rel), "bus/pci/devices/%s/iommu_group", bdf);
		if (!exists(fs, rel))
			return;
	}
	if (!want[0])
		return;
	snprintf(rel, sizeof(rel), "bus/pci/drivers/%s", want);
	if (exists(fs, rel))
		(void)bind_link(fs, bdf, want);
}

void fake_sysfs_on_write(const char *path, const char *data, size_t len, void *arg)
{
	struct fake_sysfs *fs = arg;
	size_t rlen = strlen(fs->root);
	const char *rel = path;
	char bdf[64], drv[64], value[64], tail[16];
	struct fake_sysfs_write *w;

	if (!strncmp(path, fs->root, rlen) && path[rlen] == '/')
		rel = path + rlen + 1;
	if (fs->nwrites < FAKE_SYSFS_MAX_WRITES) {
		w = &fs->writes[fs->nwrites];
		snprintf(w->path, sizeof(w->path), "%s", rel);
		w->len = len < sizeof(w->data) - 1 ? len : sizeof(w->data) - 1;
		memcpy(w->data, data, w->len);
		w->data[w->len] = '\0';
	}
	fs->nwrites++;
	if (!fs->emulate)
		return;

	snprintf(value, sizeof(value), "%.*s", (int)(len < sizeof(value) ? len : sizeof(value) - 1), data);
	while (value[0] && value[strlen(value) - 1] == '\n')
		value[strlen(value) - 1] = '\0';

	if (sscanf(rel, "bus/pci/drivers/%63[^/]/%15s", drv, tail) == 2 && !strcmp(tail, "unbind")) {
		char link[FAKE_SYSFS_PATH_MAX], p[FAKE_SYSFS_PATH_MAX], cur[64];

		if (fake_sysfs_driver_of(fs, value, cur, sizeof(cur)) == 0 && !strcmp(cur, drv)) {
			snprintf(link, sizeof(link), "bus/pci/devices/%s/driver", value);
			unlink(fake_sysfs_path(fs, link, p));
		}
	} else if (sscanf(rel, "bus/pci/devices/%63[^/]/%15s", bdf, tail) == 2 &&
		   !strcmp(tail, "driver_override")) {
		(void)write_file(fs, rel, value, strlen(value));
	} else if (!strcmp(rel, "bus/pci/drivers_probe")) {
		emulate_probe(fs, value);
	}
}
