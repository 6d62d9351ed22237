/* SPDX-License-Identifier: MIT */
/*
 * /dev/vfio/vfio: the container and its type1 IOMMU
 * [torvalds/linux: include/uapi/linux/vfio.h, drivers/vfio/container.c,
 * drivers/vfio/vfio_iommu_type1.c], with the checks and errors type1 gives.
 *
 * An IOMMU mapping becomes vfio-user DMA_MAPs on every open device of every
 * group in the container: one per file behind the memory (dma_src.c), IOVA
 * kept. A device opened later gets every mapping then (the kernel's domain
 * already holds them). The server drops a device's windows when it
 * disconnects, so closing a device needs no unmap.
 */
#include <errno.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <linux/vfio.h>

#include "bridge/bridge.h"
#include "zcnic/log.h"

#define PAGE		4096ull
/* What a VT-d IOMMU offers: 4 KiB, 2 MiB and 1 GiB pages. */
#define PGSIZES		(PAGE | (2ull << 20) | (1ull << 30))
/* A 48-bit IOVA space, as a 4-level VT-d page table has. */
#define IOVA_LAST	((1ull << 48) - 1)
/* vfio_iommu_type1's default dma_entry_limit. */
#define DMA_LIMIT	65535u

struct znb_map {
	uint64_t iova, size, vaddr;
	struct znb_piece *p;
	unsigned n;
};

struct znb_container {
	int type;			/* 0 until SET_IOMMU */
	bool fd_open;
	struct znb_group *groups;
	struct znb_map *maps;
	unsigned nmaps, cap;
};

static bool said_vaddr, said_dirty, said_ioctl;

int znb_container_open(bool cloexec)
{
	struct znb_container *c = calloc(1, sizeof(*c));
	struct znb_obj *o = calloc(1, sizeof(*o));
	int fd;

	if (!c || !o) {
		free(c);
		free(o);
		return -ENOMEM;
	}
	c->fd_open = true;
	o->kind = ZNB_CONTAINER;
	o->p = c;
	fd = znb_fd_new(o, "vfio-container", cloexec);
	if (fd < 0) {
		free(c);
		free(o);
	}
	return fd;
}

bool znb_container_has_iommu(const struct znb_container *c)
{
	return c->type != 0;
}

static void dev_unmap(struct znb_dev *d, const struct znb_map *m, unsigned upto)
{
	for (unsigned i = 0; i < upto; i++) {
		const struct znb_piece *p = &m->p[i];
		struct zn_dma_region r = {
			.va = (void *)(uintptr_t)p->va, .iova = p->iova, .len = p->len,
			.fd = p->fd, .fd_offset = p->off,
		};

		d->bus->ops->dma_unmap(d->bus, &r);
	}
}

static int dev_map(struct znb_dev *d, const struct znb_map *m)
{
	for (unsigned i = 0; i < m->n; i++) {
		const struct znb_piece *p = &m->p[i];
		struct zn_dma_region r = {
			.va = (void *)(uintptr_t)p->va, .iova = p->iova, .len = p->len,
			.fd = p->fd, .fd_offset = p->off,
		};
		int rc;

		snprintf(r.name, sizeof(r.name), "vfio-bridge");
		rc = d->bus->ops->dma_map(d->bus, &r);
		if (rc < 0) {
			zn_log(ZN_LOG_ERR, ZNB_LOG, "%s: DMA map of IOVA 0x%llx (+0x%llx) failed: %s",
			       d->bdf, (unsigned long long)p->iova, (unsigned long long)p->len,
			       strerror(-rc));
			dev_unmap(d, m, i);
			return rc;
		}
	}
	return 0;
}

/* Open devices of the container, for each do f. */
#define FOR_EACH_OPEN_DEV(c, g, d) \
	for (struct znb_group *g = (c)->groups; g; g = g->next_in_c) \
		for (struct znb_dev *d = znb_group_dev(g); d && d->bus; d = NULL)

int znb_container_replay(struct znb_container *c, struct znb_dev *d)
{
	for (unsigned i = 0; i < c->nmaps; i++) {
		int rc = dev_map(d, &c->maps[i]);

		if (rc < 0) {
			while (i--)
				dev_unmap(d, &c->maps[i], c->maps[i].n);
			return rc;
		}
	}
	return 0;
}

static void map_drop(struct znb_container *c, unsigned idx)
{
	struct znb_map *m = &c->maps[idx];

	FOR_EACH_OPEN_DEV(c, g, d)
		dev_unmap(d, m, m->n);
	znb_dma_pieces_free(m->p, m->n);
	*m = c->maps[--c->nmaps];
}

static void drop_all(struct znb_container *c)
{
	while (c->nmaps)
		map_drop(c, c->nmaps - 1);
	free(c->maps);
	c->maps = NULL;
	c->cap = 0;
}

static void maybe_free(struct znb_container *c)
{
	if (c->fd_open || c->groups)
		return;
	drop_all(c);
	free(c);
}

void znb_container_release(struct znb_container *c)
{
	c->fd_open = false;
	maybe_free(c);
}

int znb_container_attach(struct znb_container *c, struct znb_group *g)
{
	g->c = c;
	g->next_in_c = c->groups;
	c->groups = g;
	return 0;
}

void znb_container_detach(struct znb_container *c, struct znb_group *g)
{
	for (struct znb_group **pp = &c->groups; *pp; pp = &(*pp)->next_in_c)
		if (*pp == g) {
			*pp = g->next_in_c;
			break;
		}
	g->c = NULL;
	g->next_in_c = NULL;
	/* The last group out takes the IOMMU (and its mappings) with it. */
	if (!c->groups) {
		drop_all(c);
		c->type = 0;
	}
	maybe_free(c);
}

static long check_extension(struct znb_container *c, unsigned long ext)
{
	switch (ext) {
	case VFIO_TYPE1_IOMMU:
	case VFIO_TYPE1v2_IOMMU:
	case VFIO_UNMAP_ALL:
		return 1;
	case VFIO_DMA_CC_IOMMU:
		return c->type ? 1 : 0;
	default:
		return 0;	/* no-IOMMU, sPAPR, nesting, UPDATE_VADDR */
	}
}

static long set_iommu(struct znb_container *c, unsigned long type)
{
	if (!c->groups || c->type)
		return -EINVAL;
	if (type != VFIO_TYPE1_IOMMU && type != VFIO_TYPE1v2_IOMMU)
		return -ENODEV;
	c->type = (int)type;
	return 0;
}

static long get_info(struct znb_container *c, void *arg)
{
	struct vfio_iommu_type1_info info = { 0 };
	struct {
		struct vfio_iommu_type1_info_cap_iova_range h;
		struct vfio_iova_range r;
	} iova = {
		.h = { .header = { .id = VFIO_IOMMU_TYPE1_INFO_CAP_IOVA_RANGE, .version = 1 },
		       .nr_iovas = 1 },
		.r = { .start = 0, .end = IOVA_LAST },
	};
	struct vfio_iommu_type1_info_dma_avail avail = {
		.header = { .id = VFIO_IOMMU_TYPE1_INFO_DMA_AVAIL, .version = 1 },
		.avail = DMA_LIMIT - c->nmaps,
	};
	size_t minsz = ZNB_OFFSETOFEND(struct vfio_iommu_type1_info, iova_pgsizes);
	size_t avail_sz = (sizeof(avail) + 7) & ~(size_t)7, caps = sizeof(iova) + avail_sz;

	if (!c->type)
		return -EINVAL;
	memcpy(&info, arg, minsz);
	if (info.argsz < minsz)
		return -EINVAL;
	/* As type1 does: the chain is announced (CAPS, the argsz it needs)
	 * whatever room was given, written only when it fits, and no more of
	 * the struct copied back than the caller's argsz covers. */
	minsz = info.argsz < sizeof(info) ? info.argsz : sizeof(info);
	info.flags = VFIO_IOMMU_INFO_PGSIZES | VFIO_IOMMU_INFO_CAPS;
	info.iova_pgsizes = PGSIZES;
	info.cap_offset = 0;
	if (info.argsz < sizeof(info) + caps) {
		info.argsz = (uint32_t)(sizeof(info) + caps);
	} else {
		uint8_t *out = (uint8_t *)arg + sizeof(info);

		iova.h.header.next = (uint32_t)(sizeof(info) + sizeof(iova));
		memcpy(out, &iova, sizeof(iova));
		memset(out + sizeof(iova), 0, avail_sz);
		memcpy(out + sizeof(iova), &avail, sizeof(avail));
		info.cap_offset = sizeof(info);
	}
	memcpy(arg, &info, minsz);
	return 0;
}

static long map_dma(struct znb_container *c, void *arg)
{
	struct vfio_iommu_type1_dma_map m;
	size_t minsz = ZNB_OFFSETOFEND(struct vfio_iommu_type1_dma_map, size);
	struct znb_map nm = { 0 };
	int rc;

	memcpy(&m, arg, minsz);
	if (!c->type || m.argsz < minsz)
		return -EINVAL;
	if (m.flags & VFIO_DMA_MAP_FLAG_VADDR) {
		znb_warn_once(&said_vaddr, "VFIO_IOMMU_MAP_DMA with VFIO_DMA_MAP_FLAG_VADDR "
			      "(live update) is not emulated: EINVAL");
		return -EINVAL;
	}
	if (m.flags & ~(uint32_t)(VFIO_DMA_MAP_FLAG_READ | VFIO_DMA_MAP_FLAG_WRITE))
		return -EINVAL;
	if (!m.size || ((m.iova | m.vaddr | m.size) & (PAGE - 1)) ||
	    m.iova + m.size - 1 < m.iova || m.vaddr + m.size - 1 < m.vaddr ||
	    m.iova + m.size - 1 > IOVA_LAST)
		return -EINVAL;
	for (unsigned i = 0; i < c->nmaps; i++)
		if (m.iova < c->maps[i].iova + c->maps[i].size &&
		    c->maps[i].iova < m.iova + m.size)
			return -EEXIST;
	if (c->nmaps >= DMA_LIMIT)
		return -ENOSPC;
	if (c->nmaps == c->cap) {
		unsigned cap = c->cap ? c->cap * 2 : 16;
		struct znb_map *n = realloc(c->maps, cap * sizeof(*n));

		if (!n)
			return -ENOMEM;
		c->maps = n;
		c->cap = cap;
	}
	rc = znb_dma_pieces(m.vaddr, m.iova, m.size, &nm.p, &nm.n);
	if (rc < 0)
		return rc;
	nm.iova = m.iova;
	nm.size = m.size;
	nm.vaddr = m.vaddr;
	FOR_EACH_OPEN_DEV(c, g, d) {
		rc = dev_map(d, &nm);
		if (rc < 0) {
			for (struct znb_group *h = c->groups; h != g; h = h->next_in_c)
				if (znb_group_dev(h)->bus)
					dev_unmap(znb_group_dev(h), &nm, nm.n);
			znb_dma_pieces_free(nm.p, nm.n);
			return rc;
		}
	}
	c->maps[c->nmaps++] = nm;
	return 0;
}

static long unmap_dma(struct znb_container *c, void *arg)
{
	struct vfio_iommu_type1_dma_unmap u;
	size_t minsz = ZNB_OFFSETOFEND(struct vfio_iommu_type1_dma_unmap, size);
	uint64_t done = 0, end;

	memcpy(&u, arg, minsz);
	if (!c->type || u.argsz < minsz)
		return -EINVAL;
	if (u.flags & VFIO_DMA_UNMAP_FLAG_GET_DIRTY_BITMAP) {
		znb_warn_once(&said_dirty, "VFIO_IOMMU_UNMAP_DMA with GET_DIRTY_BITMAP is not "
			      "emulated (no dirty tracking): EINVAL");
		return -EINVAL;
	}
	if (u.flags & ~(uint32_t)VFIO_DMA_UNMAP_FLAG_ALL)
		return -EINVAL;
	if (u.flags & VFIO_DMA_UNMAP_FLAG_ALL) {
		if (u.iova || u.size)
			return -EINVAL;
		for (unsigned i = 0; i < c->nmaps; i++)
			done += c->maps[i].size;
		while (c->nmaps)
			map_drop(c, c->nmaps - 1);
		goto out;
	}
	if (!u.size || ((u.iova | u.size) & (PAGE - 1)) || u.iova + u.size - 1 < u.iova)
		return -EINVAL;
	end = u.iova + u.size;
	/* type1v2: a mapping is removed whole or not at all. */
	if (c->type == VFIO_TYPE1v2_IOMMU)
		for (unsigned i = 0; i < c->nmaps; i++) {
			const struct znb_map *m = &c->maps[i];

			if (m->iova < end && u.iova < m->iova + m->size &&
			    (m->iova < u.iova || m->iova + m->size > end))
				return -EINVAL;
		}
	for (unsigned i = 0; i < c->nmaps; ) {
		const struct znb_map *m = &c->maps[i];

		if (m->iova < end && u.iova < m->iova + m->size) {
			done += m->size;
			map_drop(c, i);
		} else {
			i++;
		}
	}
out:
	u.size = done;
	memcpy(arg, &u, minsz);
	return 0;
}

long znb_container_ioctl(struct znb_container *c, unsigned long req, void *arg)
{
	switch (req) {
	case VFIO_GET_API_VERSION:
		return VFIO_API_VERSION;
	case VFIO_CHECK_EXTENSION:
		return check_extension(c, (unsigned long)(uintptr_t)arg);
	case VFIO_SET_IOMMU:
		return set_iommu(c, (unsigned long)(uintptr_t)arg);
	}
	if (!arg)
		return -EFAULT;
	switch (req) {
	case VFIO_IOMMU_GET_INFO:
		return get_info(c, arg);
	case VFIO_IOMMU_MAP_DMA:
		return map_dma(c, arg);
	case VFIO_IOMMU_UNMAP_DMA:
		return unmap_dma(c, arg);
	}
	znb_warn_once(&said_ioctl, "ioctl 0x%lx on a VFIO container is not emulated (only "
		      "the type1 IOMMU is: API version, extensions, SET_IOMMU, GET_INFO, "
		      "MAP_DMA, UNMAP_DMA): ENOTTY", req);
	return -ENOTTY;
}
