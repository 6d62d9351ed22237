/* SPDX-License-Identifier: MIT */
/*
 * Moving a PCI device between its kernel driver and vfio-pci, through sysfs,
 * the way DPDK's usertools/dpdk-devbind.py does (bind_one/unbind_one; Linux
 * Documentation/ABI/testing/sysfs-bus-pci for driver_override):
 *
 *   bind:   devices/BDF/driver_override  <- "vfio-pci"
 *           drivers/OLD/unbind           <- BDF        (when bound)
 *           drivers_probe                <- BDF        (the override steers the probe)
 *           then devices/BDF/driver must name vfio-pci.
 *   unbind: drivers/CUR/unbind           <- BDF        (when bound)
 *           devices/BDF/driver_override  <- "\n"       (clears it)
 *           drivers_probe                <- BDF        (only with reprobe)
 *
 * driver_override needs Linux >= 3.15; the older new_id route is not taken
 * because it grabs every device with the same ID. Unlike dpdk-devbind, bind
 * leaves the override in place so that a rescan or a reload of the kernel
 * driver cannot take the device back behind the application's back; unbind
 * clears it.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "core/bus/pci_sysfs.h"
#include "zcnic/log.h"
#include "zcnic/pci.h"

#define LOG_COMP	"pci"
#define CLEAR_OVERRIDE	"\n"	/* the kernel strips it and clears the override */

__attribute__((format(printf, 2, 3)))
static void say(const struct zn_pci_bind_opts *o, const char *fmt, ...)
{
	va_list ap;

	if (!o->out)
		return;
	va_start(ap, fmt);
	vfprintf(o->out, fmt, ap);
	va_end(ap);
	fputc('\n', o->out);
}

/* Data for messages: newlines and other control bytes shown escaped. */
static const char *printable(const char *data, size_t len, char *buf, size_t blen)
{
	size_t j = 0;

	for (size_t i = 0; i < len && j + 5 < blen; i++) {
		unsigned char c = (unsigned char)data[i];

		if (c == '\n')
			j += (size_t)snprintf(buf + j, blen - j, "\\n");
		else if (c < 0x20 || c >= 0x7f)
			j += (size_t)snprintf(buf + j, blen - j, "\\x%02x", c);
		else
			buf[j++] = (char)c;
	}
	buf[j] = '\0';
	return buf;
}

static const char *errno_hint(int err)
{
	return err == EACCES || err == EPERM ? " (binding drivers needs root)" : "";
}

static int sysfs_write_str(const struct zn_pci_bind_opts *o, const char *path,
			   const char *data)
{
	char shown[64];
	size_t len = strlen(data);
	int rc;

	printable(data, len, shown, sizeof(shown));
	if (o->dry_run) {
		say(o, "would write \"%s\" to %s", shown, path);
		return 0;
	}
	rc = zn_sysfs_write(path, data, len);
	if (rc < 0) {
		ZN_ERR(LOG_COMP, "cannot write \"%s\" to %s: %s%s", shown, path,
		       strerror(-rc), errno_hint(-rc));
		return rc;
	}
	if (o->on_write)
		o->on_write(path, data, len, o->on_write_arg);
	return 0;
}

/* The device, checked to be one we may touch. Logs why not. */
static int lookup(const char *bdf, const struct zn_pci_bind_opts *o,
		  const char *verb, struct zn_pci_dev *d)
{
	char canon[ZN_PCI_BDF_LEN], path[ZN_SYSFS_PATH_MAX];
	int rc;

	if (zn_pci_parse_bdf(bdf, canon) < 0) {
		ZN_ERR(LOG_COMP, "'%s' is not a PCI address (expected dddd:bb:dd.f or bb:dd.f)",
		       bdf ? bdf : "(null)");
		return -EINVAL;
	}
	rc = zn_pci_dev_get(canon, d);
	if (rc == -ENODEV) {
		zn_sysfs_path(path, sizeof(path), "bus/pci/devices/%s", canon);
		ZN_ERR(LOG_COMP, "no PCI device %s (%s does not exist)", canon, path);
		return rc;
	}
	if (rc < 0) {
		ZN_ERR(LOG_COMP, "cannot read PCI device %s: %s", canon, strerror(-rc));
		return rc;
	}
	if (!zn_pci_is_net(d) && !o->force) {
		ZN_ERR(LOG_COMP, "%s is not a network device (class %06x); use --force to %s it anyway",
		       d->bdf, d->class, verb);
		return -EINVAL;
	}
	return 0;
}

static int current_driver(const char *bdf, char *buf, size_t len)
{
	char path[ZN_SYSFS_PATH_MAX];
	int rc = zn_sysfs_path(path, sizeof(path), "bus/pci/devices/%s/driver", bdf);

	buf[0] = '\0';
	if (rc < 0)
		return rc;
	rc = zn_sysfs_link_name(path, buf, len);
	if (rc == -ENOENT) {
		buf[0] = '\0';
		return 0;
	}
	return rc;
}

/* Paths every bind/unbind needs. */
struct bind_paths {
	char override[ZN_SYSFS_PATH_MAX];
	char probe[ZN_SYSFS_PATH_MAX];
	char unbind[ZN_SYSFS_PATH_MAX];		/* of the current driver, if any */
};

static int make_paths(const struct zn_pci_dev *d, struct bind_paths *p)
{
	int rc;

	p->unbind[0] = '\0';
	if ((rc = zn_sysfs_path(p->override, sizeof(p->override),
				"bus/pci/devices/%s/driver_override", d->bdf)) < 0 ||
	    (rc = zn_sysfs_path(p->probe, sizeof(p->probe), "bus/pci/drivers_probe")) < 0)
		return rc;
	if (d->driver[0])
		rc = zn_sysfs_path(p->unbind, sizeof(p->unbind), "bus/pci/drivers/%s/unbind",
				   d->driver);
	return rc;
}

/*
 * Undo a bind that went wrong part way: clear the override and, if the device
 * had lost its driver, ask the kernel to probe it again. Best effort; the
 * first error is what the caller returns.
 */
static void undo_bind(const struct zn_pci_bind_opts *o, const struct zn_pci_dev *d,
		      const struct bind_paths *p, bool unbound)
{
	char now[64];

	(void)sysfs_write_str(o, p->override, CLEAR_OVERRIDE);
	if (unbound && d->driver[0]) {
		(void)sysfs_write_str(o, p->probe, d->bdf);
		if (current_driver(d->bdf, now, sizeof(now)) == 0 && strcmp(now, d->driver))
			ZN_WARN(LOG_COMP, "%s could not be given back to %s (driver now: %s)",
				d->bdf, d->driver, now[0] ? now : "none");
	}
}

int zn_pci_bind_vfio(const char *bdf, const struct zn_pci_bind_opts *opts)
{
	static const struct zn_pci_bind_opts defaults;
	const struct zn_pci_bind_opts *o = opts ? opts : &defaults;
	char vfio_dir[ZN_SYSFS_PATH_MAX], now[64];
	struct bind_paths p;
	struct zn_pci_dev d;
	int rc;

	rc = lookup(bdf, o, "bind", &d);
	if (rc < 0)
		return rc;
	if (!strcmp(d.driver, ZN_PCI_VFIO_DRIVER)) {
		say(o, "%s already bound to %s", d.bdf, ZN_PCI_VFIO_DRIVER);
		return 0;
	}
	rc = zn_sysfs_path(vfio_dir, sizeof(vfio_dir), "bus/pci/drivers/%s", ZN_PCI_VFIO_DRIVER);
	if (rc < 0)
		return rc;
	if (!zn_sysfs_is_dir(vfio_dir)) {
		/* A dry run shows the whole plan, the module load first. */
		if (o->dry_run) {
			say(o, "vfio-pci is not loaded (no %s): would need 'modprobe vfio-pci' first",
			    vfio_dir);
		} else {
			ZN_ERR(LOG_COMP, "vfio-pci is not loaded (no %s): run 'modprobe vfio-pci' "
			       "first", vfio_dir);
			return -ENOENT;
		}
	}
	rc = make_paths(&d, &p);
	if (rc < 0)
		return rc;
	if (!zn_sysfs_exists(p.override)) {
		ZN_ERR(LOG_COMP, "%s has no driver_override (%s): the kernel is older than 3.15",
		       d.bdf, p.override);
		return -EOPNOTSUPP;
	}
	/* vfio-pci refuses such a device unless no-IOMMU mode is enabled. */
	if (d.iommu_group < 0)
		ZN_WARN(LOG_COMP, "%s has no IOMMU group: vfio-pci takes it only in no-IOMMU mode",
			d.bdf);

	rc = sysfs_write_str(o, p.override, ZN_PCI_VFIO_DRIVER);
	if (rc < 0)
		return rc;
	if (d.driver[0]) {
		rc = sysfs_write_str(o, p.unbind, d.bdf);
		if (rc < 0) {
			undo_bind(o, &d, &p, false);
			return rc;
		}
	}
	rc = sysfs_write_str(o, p.probe, d.bdf);
	if (rc < 0) {
		undo_bind(o, &d, &p, true);
		return rc;
	}
	if (o->dry_run)
		return 0;

	/* The kernel probes synchronously inside the drivers_probe write. */
	rc = current_driver(d.bdf, now, sizeof(now));
	if (rc == 0 && !strcmp(now, ZN_PCI_VFIO_DRIVER)) {
		if (d.driver[0])
			say(o, "%s bound to %s (was %s)", d.bdf, ZN_PCI_VFIO_DRIVER, d.driver);
		else
			say(o, "%s bound to %s", d.bdf, ZN_PCI_VFIO_DRIVER);
		return 0;
	}
	ZN_ERR(LOG_COMP, "%s: vfio-pci did not take the device (driver now: %s); see dmesg",
	       d.bdf, rc == 0 && now[0] ? now : "none");
	undo_bind(o, &d, &p, true);
	return -EIO;
}

int zn_pci_unbind(const char *bdf, const struct zn_pci_bind_opts *opts)
{
	static const struct zn_pci_bind_opts defaults;
	const struct zn_pci_bind_opts *o = opts ? opts : &defaults;
	struct bind_paths p;
	struct zn_pci_dev d;
	char now[64];
	int rc;

	rc = lookup(bdf, o, "unbind", &d);
	if (rc < 0)
		return rc;
	rc = make_paths(&d, &p);
	if (rc < 0)
		return rc;
	if (d.driver[0]) {
		rc = sysfs_write_str(o, p.unbind, d.bdf);
		if (rc < 0)
			return rc;
	} else {
		say(o, "%s is not bound to any driver", d.bdf);
	}
	if (zn_sysfs_exists(p.override)) {
		rc = sysfs_write_str(o, p.override, CLEAR_OVERRIDE);
		if (rc < 0)
			return rc;
	}
	if (o->reprobe) {
		rc = sysfs_write_str(o, p.probe, d.bdf);
		if (rc < 0)
			return rc;
	}
	if (o->dry_run)
		return 0;

	rc = current_driver(d.bdf, now, sizeof(now));
	if (rc < 0) {
		ZN_ERR(LOG_COMP, "cannot read the driver of %s: %s", d.bdf, strerror(-rc));
		return rc;
	}
	if (!o->reprobe && now[0]) {
		ZN_ERR(LOG_COMP, "%s is still bound to %s after unbind; see dmesg", d.bdf, now);
		return -EIO;
	}
	if (d.driver[0])
		say(o, "%s unbound from %s", d.bdf, d.driver);
	if (o->reprobe)
		say(o, "%s now %s%s", d.bdf, now[0] ? "bound to " : "has no driver", now);
	return 0;
}
