/* SPDX-License-Identifier: MIT */
/*
 * A device: realize from a model's description, listen on its socket, accept
 * clients one at a time, reset, statistics.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/bits.h"
#include "sim/vfu/priv.h"

#define LISTEN_BACKLOG	8	/* clients waiting while one is served */
#define MIN_MEM_BAR	16u	/* PCI: a memory BAR decodes at least 16 bytes */
#define MIN_IO_BAR	4u
#define MAX_IO_BAR	256u
#define MAX_MEM32_BAR	(1ull << 31)
#define MAX_MSIX	2048u

int zn_vfu_dev_new(const char *name, struct zn_vfu_dev **out)
{
	struct zn_vfu_dev *dev;
	size_t len = strlen(name);

	if (len == 0 || len > VFU_NAME_MAX)
		return -EINVAL;
	dev = calloc(1, sizeof(*dev));
	if (!dev)
		return -ENOMEM;
	memcpy(dev->name, name, len + 1);
	dev->listen_fd = -1;
	dev->conn.sock = -1;
	zn_vfu_dev_set_timeouts(dev, 0, 0);
	for (unsigned i = 0; i < ZN_VFU_NUM_BARS; i++)
		dev->bar_fd[i] = -1;
	*out = dev;
	return 0;
}

void zn_vfu_dev_set_dma_gate(struct zn_vfu_dev *dev, bool (*refuse)(void *ctx), void *ctx)
{
	dev->dma_gate = refuse;
	dev->dma_gate_ctx = ctx;
}

void zn_vfu_dev_set_timeouts(struct zn_vfu_dev *dev, uint32_t handshake_ms, uint32_t stall_ms)
{
	dev->handshake_ns = (handshake_ms ? handshake_ms : ZN_VFU_HANDSHAKE_MS) * 1000000ull;
	dev->stall_ns = (stall_ms ? stall_ms : ZN_VFU_STALL_MS) * 1000000ull;
}

const char *zn_vfu_dev_name(const struct zn_vfu_dev *dev)
{
	return dev->name;
}

const char *zn_vfu_dev_path(const struct zn_vfu_dev *dev)
{
	return dev->path;
}

bool zn_vfu_dev_connected(const struct zn_vfu_dev *dev)
{
	return dev->conn.active;
}

#define BAD(...)                                                          \
	do {                                                              \
		ZN_SIM_ERR("vfu", __VA_ARGS__);                           \
		return -EINVAL;                                           \
	} while (0)

static int check_range_in_bar(const struct zn_vfu_dev_desc *d, const char *name,
			      const char *what, unsigned bar, uint64_t off, uint64_t size)
{
	if (bar >= ZN_VFU_NUM_BARS || !d->bar[bar].size || d->bar[bar].type == ZN_VFU_BAR_IO)
		BAD("%s: %s in BAR%u, which is not a memory BAR", name, what, bar);
	if (off > d->bar[bar].size || size > d->bar[bar].size - off)
		BAD("%s: %s [%#llx, +%#llx) outside BAR%u", name, what, (unsigned long long)off,
		    (unsigned long long)size, bar);
	if (off & 7)
		BAD("%s: %s offset %#llx not 8-byte aligned", name, what, (unsigned long long)off);
	for (unsigned i = 0; i < d->bar[bar].nr_areas; i++) {
		const struct zn_vfu_area *a = &d->bar[bar].areas[i];

		if (off < a->offset + a->size && a->offset < off + size)
			BAD("%s: %s overlaps an mmap area of BAR%u", name, what, bar);
	}
	return 0;
}

static int validate(const struct zn_vfu_dev_desc *d, const char *name)
{
	for (unsigned i = 0; i < ZN_VFU_NUM_BARS; i++) {
		const struct zn_vfu_bar *b = &d->bar[i];

		if (!b->size) {
			if (b->nr_areas)
				BAD("%s: BAR%u has areas but no size", name, i);
			continue;
		}
		if (!zn_is_pow2(b->size))
			BAD("%s: BAR%u size %#llx is not a power of two", name, i,
			    (unsigned long long)b->size);
		if (b->type == ZN_VFU_BAR_IO &&
		    (b->size < MIN_IO_BAR || b->size > MAX_IO_BAR || b->nr_areas || b->prefetch))
			BAD("%s: BAR%u: I/O BARs are 4-256 bytes, not mappable", name, i);
		if (b->type != ZN_VFU_BAR_IO && b->size < MIN_MEM_BAR)
			BAD("%s: BAR%u smaller than %u bytes", name, i, MIN_MEM_BAR);
		if (b->type == ZN_VFU_BAR_MEM32 && b->size > MAX_MEM32_BAR)
			BAD("%s: BAR%u too big for 32 bits", name, i);
		if (b->type == ZN_VFU_BAR_MEM64) {
			if (i == ZN_VFU_NUM_BARS - 1 || d->bar[i + 1].size)
				BAD("%s: 64-bit BAR%u needs BAR%u free", name, i, i + 1);
			i++;	/* the upper half */
		}
		if (b->nr_areas > ZN_VFU_MAX_AREAS)
			BAD("%s: BAR%u has %u areas, max %u", name, i, b->nr_areas, ZN_VFU_MAX_AREAS);
		for (unsigned k = 0; k < b->nr_areas; k++) {
			const struct zn_vfu_area *a = &b->areas[k];

			if (!a->size || ((a->offset | a->size) & (ZN_VFU_PAGE_SIZE - 1)) ||
			    a->offset > b->size || a->size > b->size - a->offset)
				BAD("%s: BAR area %u: [%#llx, +%#llx) not page-aligned inside the BAR",
				    name, k, (unsigned long long)a->offset,
				    (unsigned long long)a->size);
			for (unsigned j = 0; j < k; j++)
				if (a->offset < b->areas[j].offset + b->areas[j].size &&
				    b->areas[j].offset < a->offset + a->size)
					BAD("%s: BAR areas %u and %u overlap", name, j, k);
		}
	}
	if (d->msi_vectors && (!zn_is_pow2(d->msi_vectors) || d->msi_vectors > 32))
		BAD("%s: MSI vectors %u: want 1, 2, 4, 8, 16 or 32", name, d->msi_vectors);
	if (d->msix_vectors > MAX_MSIX)
		BAD("%s: %u MSI-X vectors, max %u", name, d->msix_vectors, MAX_MSIX);
	if (d->msix_vectors) {
		uint64_t tbl = (uint64_t)d->msix_vectors * PCI_MSIX_ENTRY_SIZE;
		uint64_t pba = ((d->msix_vectors + 63u) / 64u) * 8u;

		if (check_range_in_bar(d, name, "MSI-X table", d->msix_table_bar,
				       d->msix_table_offset, tbl) ||
		    check_range_in_bar(d, name, "MSI-X PBA", d->msix_pba_bar, d->msix_pba_offset,
				       pba))
			return -EINVAL;
		if (d->msix_table_bar == d->msix_pba_bar &&
		    d->msix_table_offset < d->msix_pba_offset + pba &&
		    d->msix_pba_offset < d->msix_table_offset + tbl)
			BAD("%s: MSI-X table and PBA overlap", name);
	}
	if (d->intx_pin > 4)
		BAD("%s: interrupt pin %u", name, d->intx_pin);
	return 0;
}

static void msix_reset(struct zn_vfu_dev *dev)
{
	if (!dev->desc.msix_vectors)
		return;
	memset(dev->msix_table, 0, (size_t)dev->desc.msix_vectors * PCI_MSIX_ENTRY_SIZE);
	/* PCI 3.0 6.8.2.9: every vector comes out of reset masked. */
	for (unsigned v = 0; v < dev->desc.msix_vectors; v++)
		dev->msix_table[v * PCI_MSIX_ENTRY_SIZE + 12] = 1;
	memset(dev->msix_pba, 0, dev->msix_pba_size);
}

void vfu_dev_reset(struct zn_vfu_dev *dev, enum zn_vfu_reset_why why)
{
	if (why != ZN_VFU_RESET_DEVICE) {
		/* Power-on state for a new client: fresh BAR pages (the old client
		 * may keep its mapping of the old ones), config space, MSI-X. */
		if (why == ZN_VFU_RESET_LOST_CONN) {
			vfu_regions_free(dev);
			if (vfu_regions_alloc(dev))
				ZN_SIM_ERR("vfu", "%s: BAR memory lost; mmap areas disabled",
					   dev->name);
		}
		vfu_pci_reset(dev);
		msix_reset(dev);
		dev->intx_masked = false;
	} else {
		/* Like vfio-pci, which saves and restores config space around a
		 * function reset: COMMAND, BARs and MSI-X survive, only the
		 * device's own state goes. */
		VFU_INC(dev->stats.resets);
	}
	dev->intx_level = false;
	vfu_pci_set_status(dev, PCI_STATUS_INTERRUPT, false);
	if (dev->desc.ops && dev->desc.ops->reset)
		dev->desc.ops->reset(dev->desc.opaque, why);
}

int zn_vfu_dev_realize(struct zn_vfu_dev *dev, const struct zn_vfu_dev_desc *desc)
{
	int ret;

	if (dev->realized)
		return -EBUSY;
	if (validate(desc, dev->name))
		return -EINVAL;
	dev->desc = *desc;
	ret = vfu_irq_init(dev);
	if (ret)
		goto err_irq;
	if (desc->msix_vectors) {
		dev->msix_pba_size = ((desc->msix_vectors + 63u) / 64u) * 8u;
		dev->msix_table = calloc(desc->msix_vectors, PCI_MSIX_ENTRY_SIZE);
		dev->msix_pba = calloc(1, dev->msix_pba_size);
		ret = -ENOMEM;
		if (!dev->msix_table || !dev->msix_pba)
			goto err_msix;
	}
	ret = vfu_regions_alloc(dev);
	if (ret)
		goto err_msix;
	vfu_pci_build(dev);
	dev->realized = true;
	vfu_dev_reset(dev, ZN_VFU_RESET_REALIZE);
	return 0;

err_msix:
	free(dev->msix_table);
	free(dev->msix_pba);
	dev->msix_table = dev->msix_pba = NULL;
err_irq:
	vfu_irq_fini(dev);
	return ret;
}

/* Is someone serving on path? */
static bool socket_alive(const struct sockaddr_un *sa)
{
	int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	bool alive;

	if (fd < 0)
		return true;	/* cannot tell: do not remove it */
	alive = connect(fd, (const struct sockaddr *)sa, sizeof(*sa)) == 0 ||
		errno != ECONNREFUSED;
	close(fd);
	return alive;
}

int zn_vfu_dev_listen(struct zn_vfu_dev *dev, const char *path)
{
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	struct stat st;
	int fd, ret;

	if (!dev->realized || dev->listen_fd >= 0)
		return -EBUSY;
	if (strlen(path) >= sizeof(sa.sun_path)) {
		ZN_SIM_ERR("vfu", "%s: socket path '%s' longer than %zu bytes", dev->name, path,
			   sizeof(sa.sun_path) - 1);
		return -ENAMETOOLONG;
	}
	memcpy(sa.sun_path, path, strlen(path) + 1);
	fd = socket(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return -errno;
	if (bind(fd, (struct sockaddr *)&sa, sizeof(sa)) < 0) {
		if (errno != EADDRINUSE)
			goto fail;
		/* A socket file left by a server that died is replaced. */
		if (lstat(path, &st) || !S_ISSOCK(st.st_mode)) {
			ZN_SIM_ERR("vfu", "%s: '%s' exists and is not a socket", dev->name, path);
			close(fd);
			return -EEXIST;
		}
		if (socket_alive(&sa)) {
			ZN_SIM_ERR("vfu", "%s: another server listens on '%s'", dev->name, path);
			close(fd);
			return -EADDRINUSE;
		}
		unlink(path);
		if (bind(fd, (struct sockaddr *)&sa, sizeof(sa)) < 0)
			goto fail;
	}
	if (listen(fd, LISTEN_BACKLOG) < 0) {
		ret = -errno;
		unlink(path);
		close(fd);
		return ret;
	}
	dev->listen_fd = fd;
	memcpy(dev->path, path, strlen(path) + 1);
	ZN_SIM_INFO("vfu", "%s: listening on %s", dev->name, path);
	return 0;
fail:
	ret = -errno;
	ZN_SIM_ERR("vfu", "%s: cannot bind '%s': %s", dev->name, path, strerror(errno));
	close(fd);
	return ret;
}

int vfu_dev_accept(struct zn_vfu_dev *dev)
{
	int fd;

	if (dev->conn.active)
		return 0;
	fd = accept4(dev->listen_fd, NULL, NULL, SOCK_NONBLOCK | SOCK_CLOEXEC);
	if (fd < 0)
		return errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR ? 0 : -errno;
	vfu_conn_open(dev, fd);
	ZN_SIM_INFO("vfu", "%s: client connected", dev->name);
	return 1;
}

void zn_vfu_dev_free(struct zn_vfu_dev *dev)
{
	if (!dev)
		return;
	if (dev->conn.active)
		vfu_conn_close(dev, "server shutting down");
	if (dev->listen_fd >= 0) {
		close(dev->listen_fd);
		unlink(dev->path);
	}
	vfu_dma_unmap_all(dev);
	vfu_irq_fini(dev);
	vfu_regions_free(dev);
	free(dev->msix_table);
	free(dev->msix_pba);
	free(dev);
}

int zn_vfu_dev_poll(struct zn_vfu_dev *dev)
{
	uint64_t deadline = UINT64_MAX;

	if (!dev->realized || !dev->desc.ops || !dev->desc.ops->poll)
		return 0;
	return dev->desc.ops->poll(dev->desc.opaque, zn_vfu_now_ns(), &deadline);
}

/* ---- Statistics ---- */

void zn_vfu_dev_stats(const struct zn_vfu_dev *dev, struct zn_vfu_stats *out)
{
	const uint64_t *src = (const uint64_t *)&dev->stats;
	uint64_t *dst = (uint64_t *)out;

	_Static_assert(sizeof(*out) % sizeof(uint64_t) == 0, "stats are u64s");
	for (size_t i = 0; i < sizeof(*out) / sizeof(uint64_t); i++)
		dst[i] = __atomic_load_n(&src[i], __ATOMIC_RELAXED);
}

static void emit1(zn_vfu_emit_fn emit, void *ctx, const struct zn_vfu_dev *dev,
		  const char *key, uint64_t v)
{
	char full[VFU_NAME_MAX + 2 + 96];

	snprintf(full, sizeof(full), "%s.%s", dev->name, key);
	emit(ctx, full, v);
}

void zn_vfu_dev_stats_emit(const struct zn_vfu_dev *dev, zn_vfu_emit_fn emit, void *ctx)
{
	static const char *const irq_keys[ZN_VFU_PCI_NUM_IRQS] = {
		"irq.intx", "irq.msi", "irq.msix", "irq.err", "irq.req" };
	struct zn_vfu_stats s;
	char key[96];

	zn_vfu_dev_stats(dev, &s);
	for (unsigned c = 0; c < ZN_VFU_MAX_COMMAND; c++) {
		if (c == 14)	/* the removed DIRTY_PAGES: counted as UNKNOWN */
			continue;
		snprintf(key, sizeof(key), "msgs.%s", zn_vfu_cmd_name(c));
		emit1(emit, ctx, dev, key, s.msgs[c]);
	}
	for (unsigned e = 0; e < ZN_VFU_ERR_COUNT; e++) {
		snprintf(key, sizeof(key), "errors.%s", zn_vfu_err_name(e));
		emit1(emit, ctx, dev, key, s.errors[e]);
	}
	emit1(emit, ctx, dev, "clients", s.clients);
	emit1(emit, ctx, dev, "disconnects", s.disconnects);
	emit1(emit, ctx, dev, "connected", dev->conn.active);
	emit1(emit, ctx, dev, "resets", s.resets);
	emit1(emit, ctx, dev, "dma.maps", s.dma_maps);
	emit1(emit, ctx, dev, "dma.unmaps", s.dma_unmaps);
	emit1(emit, ctx, dev, "dma.windows", zn_vfu_dev_dma_windows(dev));
	emit1(emit, ctx, dev, "dma.err_unmapped", s.dma_err_unmapped);
	emit1(emit, ctx, dev, "dma.err_no_master", s.dma_err_no_master);
	emit1(emit, ctx, dev, "dma.err_no_fd", s.dma_err_no_fd);
	emit1(emit, ctx, dev, "dma.err_perm", s.dma_err_perm);
	emit1(emit, ctx, dev, "dma.err_bus", s.dma_err_bus);
	for (unsigned i = 0; i < ZN_VFU_PCI_NUM_IRQS; i++)
		emit1(emit, ctx, dev, irq_keys[i], s.irqs[i]);
	emit1(emit, ctx, dev, "irq.no_eventfd", s.irq_no_eventfd);
	emit1(emit, ctx, dev, "irq.no_master", s.irq_no_master);
	emit1(emit, ctx, dev, "irq.masked", s.irq_masked);
	emit1(emit, ctx, dev, "irq.bad_vector", s.irq_bad_vector);
}
