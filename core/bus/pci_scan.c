/* SPDX-License-Identifier: MIT */
/*
 * PCI scan: the devices under ROOT/bus/pci, with their IDs, class, driver,
 * IOMMU group and NUMA node.
 *
 * libpci (pciutils) is the enumeration path: its linux-sysfs method is given
 * "sysfs.path" = ROOT/bus/pci, so the same code reads the real /sys or a fake
 * tree made by a test (it needs vendor, device and class per device; config
 * and subsystem_* are optional). Its error callback must not return, and it
 * calls it for a device directory it cannot read, so:
 *   - the entries are checked first; if one is malformed, the whole scan
 *     reads sysfs directly instead (and skips that entry with a warning);
 *   - an error libpci still raises is caught with longjmp and also falls back
 *     to the direct reader.
 * Driver, IOMMU group and NUMA node are always read from sysfs (readlink
 * driver / iommu_group, numa_node), on either path.
 */
#include <dirent.h>
#include <errno.h>
#include <pci/pci.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/bus/pci_sysfs.h"
#include "zcnic/log.h"
#include "zcnic/pci.h"

#define LOG_COMP		"pci"
#define DOMAIN_MAX		0xffffffu	/* 6 hex digits fit ZN_PCI_BDF_LEN */
#define PCI_CFG_SUBSYS_VENDOR	0x2c	/* type 0 header */
#define PCI_CFG_IDS_LEN		0x30
#define NAME_BUF_LEN		256

struct dev_vec {
	struct zn_pci_dev *v;
	size_t n, cap;
};

struct bdf_parts {
	unsigned domain, bus, slot, func;
};

bool zn_pci_is_net(const struct zn_pci_dev *d)
{
	return (d->class >> 16) == ZN_PCI_CLASS_NETWORK;
}

void zn_pci_free(struct zn_pci_dev *devs)
{
	free(devs);
}

/* 1..maxd hex digits; advances *p. */
static bool parse_hex(const char **p, unsigned maxd, unsigned *v)
{
	unsigned val = 0, nd = 0;
	const char *s = *p;

	for (; nd < maxd; nd++, s++) {
		unsigned c = (unsigned char)*s, dig;

		if (c >= '0' && c <= '9')
			dig = c - '0';
		else if (c >= 'a' && c <= 'f')
			dig = c - 'a' + 10;
		else if (c >= 'A' && c <= 'F')
			dig = c - 'A' + 10;
		else
			break;
		val = val * 16 + dig;
	}
	if (nd == 0)
		return false;
	*p = s;
	*v = val;
	return true;
}

static int split_bdf(const char *in, struct bdf_parts *b)
{
	const char *p = in;
	unsigned a, c;

	if (!in)
		return -EINVAL;
	b->domain = 0;
	if (!parse_hex(&p, 6, &a) || *p++ != ':' || !parse_hex(&p, 2, &c))
		return -EINVAL;
	if (*p == ':') {		/* dddd:bb:ss.f */
		p++;
		b->domain = a;
		b->bus = c;
		if (!parse_hex(&p, 2, &b->slot))
			return -EINVAL;
	} else {			/* bb:ss.f */
		if (a > 0xff)
			return -EINVAL;
		b->bus = a;
		b->slot = c;
	}
	if (*p++ != '.' || !parse_hex(&p, 1, &b->func) || *p != '\0')
		return -EINVAL;
	if (b->domain > DOMAIN_MAX || b->bus > 0xff || b->slot > 0x1f || b->func > 7)
		return -EINVAL;
	return 0;
}

static void format_bdf(const struct bdf_parts *b, char out[ZN_PCI_BDF_LEN])
{
	snprintf(out, ZN_PCI_BDF_LEN, "%04x:%02x:%02x.%x", b->domain, b->bus,
		 b->slot, b->func);
}

int zn_pci_parse_bdf(const char *in, char out[ZN_PCI_BDF_LEN])
{
	struct bdf_parts b;
	int rc = split_bdf(in, &b);

	if (rc < 0)
		return rc;
	format_bdf(&b, out);
	return 0;
}

static int dev_path(char *buf, const char *bdf, const char *attr)
{
	return zn_sysfs_path(buf, ZN_SYSFS_PATH_MAX, "bus/pci/devices/%s/%s", bdf, attr);
}

static int read_attr_long(const char *bdf, const char *attr, long *v)
{
	char path[ZN_SYSFS_PATH_MAX];
	int rc = dev_path(path, bdf, attr);

	return rc < 0 ? rc : zn_sysfs_read_long(path, v);
}

/* driver, IOMMU group, NUMA node, and what zcnic knows of the ID. */
static void fill_sysfs_extras(struct zn_pci_dev *d)
{
	char path[ZN_SYSFS_PATH_MAX], grp[32], *end;
	long v;

	d->driver[0] = '\0';
	if (dev_path(path, d->bdf, "driver") == 0)
		(void)zn_sysfs_link_name(path, d->driver, sizeof(d->driver));

	d->iommu_group = -1;
	if (dev_path(path, d->bdf, "iommu_group") == 0 &&
	    zn_sysfs_link_name(path, grp, sizeof(grp)) == 0) {
		v = strtol(grp, &end, 10);
		if (end != grp && *end == '\0' && v >= 0 && v <= INT32_MAX)
			d->iommu_group = (int)v;
	}

	d->numa_node = -1;
	if (read_attr_long(d->bdf, "numa_node", &v) == 0 && v >= -1 && v <= INT32_MAX)
		d->numa_node = (int)v;

	const struct zn_pci_id *id = zn_pci_id_find(d->vendor, d->device);

	d->kind = id ? (enum zn_nic_kind)id->kind : ZN_NIC_OTHER;
	d->is_vf = id && (id->flags & ZN_PCI_ID_VF);
	d->model = id ? id->model : NULL;
	if (d->model)
		snprintf(d->name, sizeof(d->name), "%s", d->model);
}

/* IDs and class straight from sysfs files (the direct path). */
static int read_ids_sysfs(struct zn_pci_dev *d)
{
	char path[ZN_SYSFS_PATH_MAX];
	uint8_t cfg[PCI_CFG_IDS_LEN];
	long ven, dev, cls, sv, sd;
	int rc;

	if ((rc = read_attr_long(d->bdf, "vendor", &ven)) < 0 ||
	    (rc = read_attr_long(d->bdf, "device", &dev)) < 0 ||
	    (rc = read_attr_long(d->bdf, "class", &cls)) < 0)
		return rc;
	if (ven < 0 || ven > 0xffff || dev < 0 || dev > 0xffff || cls < 0 || cls > 0xffffff)
		return -EINVAL;
	d->vendor = (uint16_t)ven;
	d->device = (uint16_t)dev;
	d->class = (uint32_t)cls;

	if (read_attr_long(d->bdf, "subsystem_vendor", &sv) == 0 &&
	    read_attr_long(d->bdf, "subsystem_device", &sd) == 0) {
		d->subsys_vendor = (uint16_t)sv;
		d->subsys_device = (uint16_t)sd;
	} else if (dev_path(path, d->bdf, "config") == 0 &&
		   zn_sysfs_read_bin(path, cfg, sizeof(cfg)) == (int)sizeof(cfg)) {
		d->subsys_vendor = (uint16_t)(cfg[PCI_CFG_SUBSYS_VENDOR] |
					      cfg[PCI_CFG_SUBSYS_VENDOR + 1] << 8);
		d->subsys_device = (uint16_t)(cfg[PCI_CFG_SUBSYS_VENDOR + 2] |
					      cfg[PCI_CFG_SUBSYS_VENDOR + 3] << 8);
	}
	return 0;
}

int zn_pci_dev_get(const char *bdf, struct zn_pci_dev *out)
{
	char path[ZN_SYSFS_PATH_MAX];
	int rc;

	memset(out, 0, sizeof(*out));
	rc = zn_pci_parse_bdf(bdf, out->bdf);
	if (rc < 0)
		return rc;
	rc = zn_sysfs_path(path, sizeof(path), "bus/pci/devices/%s", out->bdf);
	if (rc < 0)
		return rc;
	if (!zn_sysfs_is_dir(path))
		return -ENODEV;
	rc = read_ids_sysfs(out);
	if (rc < 0)
		return rc;
	fill_sysfs_extras(out);
	return 0;
}

static int vec_push(struct dev_vec *vec, const struct zn_pci_dev *d)
{
	if (vec->n == vec->cap) {
		size_t cap = vec->cap ? vec->cap * 2 : 16;
		struct zn_pci_dev *nv = realloc(vec->v, cap * sizeof(*nv));

		if (!nv)
			return -ENOMEM;
		vec->v = nv;
		vec->cap = cap;
	}
	vec->v[vec->n++] = *d;
	return 0;
}

static bool keep(unsigned flags, const struct zn_pci_dev *d)
{
	return !(flags & ZN_PCI_SCAN_NET) || zn_pci_is_net(d);
}

/*
 * Entries libpci would choke on (its error callback is fatal): a name that is
 * not a canonical address, or a missing vendor/device/class file.
 */
static bool entry_ok_for_libpci(const char *name)
{
	static const char *const attrs[] = { "vendor", "device", "class" };
	char bdf[ZN_PCI_BDF_LEN], path[ZN_SYSFS_PATH_MAX];

	if (zn_pci_parse_bdf(name, bdf) < 0 || strcmp(bdf, name) != 0)
		return false;
	for (size_t i = 0; i < sizeof(attrs) / sizeof(attrs[0]); i++)
		if (dev_path(path, bdf, attrs[i]) < 0 || !zn_sysfs_exists(path))
			return false;
	return true;
}

/* 1: entries fine for libpci, 0: not, -errno: cannot read the directory. */
static int check_entries(const char *devdir)
{
	struct dirent *e;
	int ok = 1;
	DIR *dir = opendir(devdir);

	if (!dir)
		return -errno;
	while ((e = readdir(dir))) {
		if (e->d_name[0] == '.')
			continue;
		if (!entry_ok_for_libpci(e->d_name)) {
			ZN_WARN(LOG_COMP, "%s/%s is not a readable PCI device; "
				"reading sysfs directly instead of through libpci",
				devdir, e->d_name);
			ok = 0;
			break;
		}
	}
	closedir(dir);
	return ok;
}

static int scan_direct(const char *devdir, unsigned flags, struct dev_vec *vec)
{
	struct dirent *e;
	int rc = 0;
	DIR *dir = opendir(devdir);

	if (!dir)
		return -errno;
	while ((e = readdir(dir))) {
		struct zn_pci_dev d;
		char bdf[ZN_PCI_BDF_LEN];

		if (e->d_name[0] == '.')
			continue;
		if (zn_pci_parse_bdf(e->d_name, bdf) < 0 || strcmp(bdf, e->d_name)) {
			ZN_WARN(LOG_COMP, "skipping %s/%s: not a PCI address", devdir, e->d_name);
			continue;
		}
		memset(&d, 0, sizeof(d));
		memcpy(d.bdf, bdf, sizeof(d.bdf));
		if (read_ids_sysfs(&d) < 0) {
			ZN_WARN(LOG_COMP, "skipping %s/%s: vendor, device or class unreadable",
				devdir, e->d_name);
			continue;
		}
		if (!keep(flags, &d))
			continue;
		fill_sysfs_extras(&d);
		rc = vec_push(vec, &d);
		if (rc < 0)
			break;
	}
	closedir(dir);
	return rc;
}

/* libpci's callbacks: errors must not return, so they jump back to the scan. */
static __thread jmp_buf *libpci_jmp;
static __thread char libpci_err[256];

__attribute__((noreturn, format(printf, 1, 2)))
static void libpci_error(char *msg, ...)
{
	va_list ap;

	va_start(ap, msg);
	vsnprintf(libpci_err, sizeof(libpci_err), msg, ap);
	va_end(ap);
	longjmp(*libpci_jmp, 1);
}

__attribute__((format(printf, 1, 2)))
static void libpci_debug(char *msg, ...)
{
	char buf[256];
	va_list ap;

	va_start(ap, msg);
	vsnprintf(buf, sizeof(buf), msg, ap);
	va_end(ap);
	ZN_DEBUG(LOG_COMP, "libpci: %s", buf);
}

#ifdef PCI_FILL_CLASS_EXT
#define FILL_FLAGS (PCI_FILL_IDENT | PCI_FILL_CLASS | PCI_FILL_CLASS_EXT | PCI_FILL_SUBSYS)
#else
#define FILL_FLAGS (PCI_FILL_IDENT | PCI_FILL_CLASS | PCI_FILL_SUBSYS)
#endif

static void from_libpci(struct pci_access *a, struct pci_dev *p, struct zn_pci_dev *d)
{
	char name[NAME_BUF_LEN];

	memset(d, 0, sizeof(*d));
	snprintf(d->bdf, sizeof(d->bdf), "%04x:%02x:%02x.%x", (unsigned)p->domain,
		 p->bus, p->dev, p->func);
	d->vendor = p->vendor_id;
	d->device = p->device_id;
	d->class = (uint32_t)p->device_class << 8;
#ifdef PCI_FILL_CLASS_EXT
	d->class |= p->prog_if;
#endif
	d->subsys_vendor = p->subsys_vendor_id;
	d->subsys_device = p->subsys_id;
	fill_sysfs_extras(d);
	if (!d->model && pci_lookup_name(a, name, sizeof(name),
					 PCI_LOOKUP_VENDOR | PCI_LOOKUP_DEVICE |
					 PCI_LOOKUP_NO_NUMBERS,
					 d->vendor, d->device))
		snprintf(d->name, sizeof(d->name), "%.*s", (int)sizeof(d->name) - 1, name);
}

/* 0, or -EIO when libpci raised an error (vec then holds nothing). */
static int scan_libpci(const char *busdir, unsigned flags, struct dev_vec *vec)
{
	struct pci_access *volatile acc = NULL;
	volatile int rc = 0;
	jmp_buf jb;

	acc = pci_alloc();
	acc->error = libpci_error;
	acc->warning = libpci_debug;
	acc->debug = libpci_debug;
	acc->method = PCI_ACCESS_SYS_BUS_PCI;
	libpci_jmp = &jb;
	if (setjmp(jb)) {
		ZN_WARN(LOG_COMP, "libpci: %s; reading sysfs directly", libpci_err);
		vec->n = 0;
		rc = -EIO;
		goto out;
	}
	/* libpci copies the string; the cast drops a const its API lacks. */
	pci_set_param(acc, "sysfs.path", (char *)busdir);
	/* Names from pci.ids only, so that listings do not depend on udev. */
	pci_set_param(acc, "hwdb.disable", "1");
	pci_init(acc);
	pci_scan_bus(acc);
	for (struct pci_dev *p = acc->devices; p; p = p->next) {
		struct zn_pci_dev d;

		pci_fill_info(p, FILL_FLAGS);
		from_libpci(acc, p, &d);
		if (!keep(flags, &d))
			continue;
		if (vec_push(vec, &d) < 0) {
			rc = -ENOMEM;
			break;
		}
	}
out:
	libpci_jmp = NULL;
	pci_cleanup(acc);
	return rc;
}

static int bdf_cmp(const void *a, const void *b)
{
	struct bdf_parts x, y;
	const struct zn_pci_dev *da = a, *db = b;

	/* Both come from sysfs names that parsed; compare numerically. */
	if (split_bdf(da->bdf, &x) < 0 || split_bdf(db->bdf, &y) < 0)
		return strcmp(da->bdf, db->bdf);
	if (x.domain != y.domain)
		return x.domain < y.domain ? -1 : 1;
	if (x.bus != y.bus)
		return x.bus < y.bus ? -1 : 1;
	if (x.slot != y.slot)
		return x.slot < y.slot ? -1 : 1;
	if (x.func != y.func)
		return x.func < y.func ? -1 : 1;
	return 0;
}

int zn_pci_scan(unsigned flags, struct zn_pci_dev **devs, size_t *n)
{
	char busdir[ZN_SYSFS_PATH_MAX], devdir[ZN_SYSFS_PATH_MAX];
	struct dev_vec vec = { 0 };
	int rc, ok;

	if (!devs || !n)
		return -EINVAL;
	*devs = NULL;
	*n = 0;
	if ((rc = zn_sysfs_path(busdir, sizeof(busdir), "bus/pci")) < 0 ||
	    (rc = zn_sysfs_path(devdir, sizeof(devdir), "bus/pci/devices")) < 0)
		return rc;

	ok = check_entries(devdir);
	if (ok == -ENOENT || ok == -ENOTDIR) {
		ZN_DEBUG(LOG_COMP, "%s: no PCI bus here", devdir);
		return 0;
	}
	if (ok < 0) {
		ZN_ERR(LOG_COMP, "cannot read %s: %s", devdir, strerror(-ok));
		return ok;
	}
	rc = -EIO;
	if (ok && !(flags & ZN_PCI_SCAN_NO_LIBPCI))
		rc = scan_libpci(busdir, flags, &vec);
	if (rc == -EIO)
		rc = scan_direct(devdir, flags, &vec);
	if (rc < 0) {
		ZN_ERR(LOG_COMP, "PCI scan of %s failed: %s", devdir, strerror(-rc));
		free(vec.v);
		return rc;
	}
	if (vec.n == 0) {
		free(vec.v);
		return 0;
	}
	qsort(vec.v, vec.n, sizeof(vec.v[0]), bdf_cmp);
	*devs = vec.v;
	*n = vec.n;
	return 0;
}
