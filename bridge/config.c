/* SPDX-License-Identifier: MIT */
/*
 * ZN_VFIO_DEVICES: "BDF=vfio-user:PATH[,BDF=vfio-user:PATH...]" names the
 * devices the bridge shows. Each gets an IOMMU group of its own, numbered
 * from ZN_VFIO_GROUP_BASE (default 100) upwards, skipping numbers the real
 * system already uses, so that a real group is never shadowed.
 *
 * The probe connects once to read what sysfs shows of a device (ids, class,
 * config space, BAR sizes) and disconnects: the device itself is opened only
 * by VFIO_GROUP_GET_DEVICE_FD, as the kernel opens it then.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "bridge/bridge.h"
#include "zcnic/log.h"

#define ENV_DEVICES	"ZN_VFIO_DEVICES"
#define ENV_GROUP_BASE	"ZN_VFIO_GROUP_BASE"
#define DEFAULT_GROUP_BASE 100u
#define SCHEME		"vfio-user:"
#define PROBE_TIMEOUT_MS 5000

struct znb_state znb;
pthread_mutex_t znb_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_once_t config_once = PTHREAD_ONCE_INIT;

void znb_warn_once(bool *said, const char *fmt, ...)
{
	va_list ap;

	if (__atomic_exchange_n(said, true, __ATOMIC_RELAXED))
		return;
	va_start(ap, fmt);
	zn_vlog(ZN_LOG_ERR, ZNB_LOG, fmt, ap);
	va_end(ap);
}

/* "0000:3b:00.0" exactly, lower-case hex: the form sysfs and VFIO use. */
static bool valid_bdf(const char *s, size_t n)
{
	unsigned dom, bus, dev, fn;
	char canon[ZNB_BDF_LEN], in[ZNB_BDF_LEN];
	int used = 0;

	if (n != 12)
		return false;
	memcpy(in, s, n);
	in[n] = '\0';
	if (sscanf(in, "%4x:%2x:%2x.%1x%n", &dom, &bus, &dev, &fn, &used) != 4 ||
	    used != 12 || dev > 0x1f || fn > 7)
		return false;
	snprintf(canon, sizeof(canon), "%04x:%02x:%02x.%x", dom, bus, dev, fn);
	return !strcmp(canon, in);
}

static bool group_taken(unsigned num)
{
	char path[64];

	snprintf(path, sizeof(path), "/sys/kernel/iommu_groups/%u", num);
	if (access(path, F_OK) == 0)
		return true;
	snprintf(path, sizeof(path), "/dev/vfio/%u", num);
	return access(path, F_OK) == 0;
}

static int add_device(const char *item, size_t len, unsigned *next_group)
{
	const char *eq = memchr(item, '=', len);
	struct znb_dev *d;
	size_t plen;

	if (!eq || !valid_bdf(item, (size_t)(eq - item)) ||
	    (size_t)(item + len - (eq + 1)) <= strlen(SCHEME) ||
	    strncmp(eq + 1, SCHEME, strlen(SCHEME))) {
		zn_log(ZN_LOG_ERR, ZNB_LOG, "%s: '%.*s' is not BDF=vfio-user:PATH (e.g. "
		       "0000:3b:00.0=vfio-user:/tmp/sim/bnxt0.sock); ignored", ENV_DEVICES,
		       (int)len, item);
		return -EINVAL;
	}
	if (znb_dev_by_bdf(item, (size_t)(eq - item))) {
		zn_log(ZN_LOG_ERR, ZNB_LOG, "%s: %.*s is named twice; the first one counts",
		       ENV_DEVICES, (int)(eq - item), item);
		return -EEXIST;
	}
	if (znb.ndev == ZNB_MAX_DEVS) {
		zn_log(ZN_LOG_ERR, ZNB_LOG, "%s: more than %d devices; the rest are ignored",
		       ENV_DEVICES, ZNB_MAX_DEVS);
		return -E2BIG;
	}
	plen = (size_t)(item + len - (eq + 1)) - strlen(SCHEME);
	if (plen >= sizeof(d->sock)) {
		zn_log(ZN_LOG_ERR, ZNB_LOG, "%s: socket path of %.12s too long", ENV_DEVICES, item);
		return -ENAMETOOLONG;
	}
	d = &znb.dev[znb.ndev];
	memcpy(d->bdf, item, 12);
	d->bdf[12] = '\0';
	memcpy(d->sock, eq + 1 + strlen(SCHEME), plen);
	d->sock[plen] = '\0';
	while (group_taken(*next_group))
		(*next_group)++;
	d->group = (*next_group)++;
	znb.group[znb.ndev].num = d->group;
	znb.ndev++;
	return 0;
}

static void config_parse(void)
{
	const char *env = getenv(ENV_DEVICES), *base = getenv(ENV_GROUP_BASE);
	unsigned next_group = DEFAULT_GROUP_BASE;

	if (!env || !*env)
		return;
	znb_inside++;
	if (base && *base) {
		char *end;
		unsigned long v = strtoul(base, &end, 10);

		if (*end || v > 1u << 20)
			zn_log(ZN_LOG_ERR, ZNB_LOG, "%s='%s' is not a group number; using %u",
			       ENV_GROUP_BASE, base, DEFAULT_GROUP_BASE);
		else
			next_group = (unsigned)v;
	}
	for (const char *p = env; *p; ) {
		size_t n = strcspn(p, ",");

		if (n)
			add_device(p, n, &next_group);
		p += n + (p[n] == ',');
	}
	znb.active = znb.ndev > 0;
	znb_inside--;
}

void znb_config_init(void)
{
	pthread_once(&config_once, config_parse);
}

struct znb_dev *znb_dev_by_bdf(const char *bdf, size_t len)
{
	for (unsigned i = 0; i < znb.ndev; i++)
		if (len == strlen(znb.dev[i].bdf) && !strncmp(znb.dev[i].bdf, bdf, len))
			return &znb.dev[i];
	return NULL;
}

struct znb_group *znb_group_by_num(unsigned num)
{
	for (unsigned i = 0; i < znb.ndev; i++)
		if (znb.group[i].num == num)
			return &znb.group[i];
	return NULL;
}

struct znb_dev *znb_group_dev(struct znb_group *g)
{
	return &znb.dev[g - znb.group];
}

int znb_dev_probe(struct znb_dev *d)
{
	struct zn_bus_open_opts opts = { .timeout_ms = PROBE_TIMEOUT_MS };
	struct zn_region_info ri;
	struct zn_bus_dev *bus;
	int rc = zn_vfio_user_open(d->sock, &opts, &bus);

	if (rc < 0) {
		zn_log(ZN_LOG_ERR, ZNB_LOG, "%s: cannot reach its vfio-user server at %s: %s; "
		       "the device is not shown", d->bdf, d->sock, strerror(-rc));
		return rc;
	}
	rc = bus->ops->get_region_info(bus, ZN_BUS_CONFIG, &ri);
	if (rc == 0) {
		d->config_size = ri.size < ZNB_CONFIG_MAX ? (uint32_t)ri.size : ZNB_CONFIG_MAX;
		rc = bus->ops->region_read(bus, ZN_BUS_CONFIG, 0, d->config, d->config_size);
	}
	for (uint32_t i = 0; rc == 0 && i < 7 && i < bus->info.num_regions; i++)
		if (bus->ops->get_region_info(bus, i, &ri) == 0)
			d->bar_size[i] = ri.size;
	bus->ops->close(bus);
	if (rc < 0) {
		zn_log(ZN_LOG_ERR, ZNB_LOG, "%s: cannot read the config space of %s: %s; the "
		       "device is not shown", d->bdf, d->sock, strerror(-rc));
		return rc;
	}
	d->probed = true;
	return 0;
}
