/* SPDX-License-Identifier: MIT */
/*
 * Regions: DEVICE_GET_REGION_INFO and REGION_READ / REGION_WRITE (vfio-user
 * spec sections of those names).
 *
 * PCI indices: BAR0-5 = 0-5, ROM = 6 (none), config = 7, VGA = 8 (none).
 * A BAR with mmap areas is backed by its own memfd, one fd per region as
 * libvfio-user does; the region info carries a SPARSE_MMAP capability listing
 * the areas (even one covering the whole BAR) and that fd, but only when the
 * client's argsz can hold the full reply: otherwise it gets the fixed part,
 * with argsz saying how much to offer next time, and no fd. Its mmap offset
 * is 0. A client that said max_msg_fds 0 cannot take an fd, so it is offered
 * no mapping at all.
 *
 * REGION_READ/WRITE reach every byte of a region, mapped or not (spec: "all
 * of these operations must be supported ... even if the corresponding memory
 * or device region has been shared as mappable"). A BAR access is split at
 * the boundaries of what it touches: mmap areas (the shared memory itself),
 * the MSI-X table and PBA (emulated here), the rest (the model's callback).
 * BARs answer only while COMMAND.MEMORY (or .IO for an I/O BAR) is set, as
 * vfio-pci does (-EIO otherwise).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "sim/vfu/priv.h"

static bool bar_has_areas(const struct zn_vfu_dev *dev, unsigned bar)
{
	return bar < ZN_VFU_NUM_BARS && dev->desc.bar[bar].nr_areas > 0;
}

int vfu_regions_alloc(struct zn_vfu_dev *dev)
{
	for (unsigned i = 0; i < ZN_VFU_NUM_BARS; i++) {
		const struct zn_vfu_bar *b = &dev->desc.bar[i];
		char name[64];
		int fd;
		void *va;

		dev->bar_fd[i] = -1;
		dev->bar_va[i] = NULL;
		if (!bar_has_areas(dev, i))
			continue;
		snprintf(name, sizeof(name), "zn-nicsim-%s-bar%u", dev->name, i);
		fd = memfd_create(name, MFD_CLOEXEC);
		if (fd < 0)
			goto fail;
		if (ftruncate(fd, (off_t)b->size) < 0) {
			close(fd);
			goto fail;
		}
		va = mmap(NULL, b->size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
		if (va == MAP_FAILED) {
			close(fd);
			goto fail;
		}
		dev->bar_fd[i] = fd;
		dev->bar_va[i] = va;
	}
	return 0;
fail:
	ZN_SIM_ERR("vfu", "%s: cannot create BAR memory: %s", dev->name, strerror(errno));
	vfu_regions_free(dev);
	return -ENOMEM;
}

void vfu_regions_free(struct zn_vfu_dev *dev)
{
	for (unsigned i = 0; i < ZN_VFU_NUM_BARS; i++) {
		if (dev->bar_va[i])
			munmap(dev->bar_va[i], dev->desc.bar[i].size);
		if (dev->bar_fd[i] >= 0)
			close(dev->bar_fd[i]);
		dev->bar_va[i] = NULL;
		dev->bar_fd[i] = -1;
	}
}

void *zn_vfu_bar_mem(struct zn_vfu_dev *dev, unsigned bar)
{
	return bar < ZN_VFU_NUM_BARS ? dev->bar_va[bar] : NULL;
}

uint64_t vfu_region_size(const struct zn_vfu_dev *dev, unsigned index)
{
	if (index < ZN_VFU_NUM_BARS)
		return dev->desc.bar[index].size;
	if (index == ZN_VFU_PCI_CONFIG_REGION)
		return dev->cfg_size;
	return 0;
}

int vfu_handle_region_info(struct zn_vfu_dev *dev, struct vfu_req *rq)
{
	struct zn_vfu_region_info in, info = { 0 };
	struct zn_vfu_cap_sparse_mmap cap = { 0 };
	uint8_t out[sizeof(info) + sizeof(cap) +
		    ZN_VFU_MAX_AREAS * sizeof(struct zn_vfu_sparse_area)];
	uint32_t full = sizeof(info);
	int fd = -1;

	/* The request is sized by msg_size, not argsz (spec, "Message sizes"): a
	 * client may send its whole argsz-sized reply buffer. What follows the
	 * structure is that buffer, and is ignored. */
	if (rq->len < sizeof(in))
		return vfu_refuse(dev, rq, ZN_VFU_ERR_BAD_SIZE, 0, "payload %u < %zu",
				  rq->len, sizeof(in));
	memcpy(&in, rq->data, sizeof(in));
	if (in.argsz < sizeof(in))
		return vfu_refuse(dev, rq, ZN_VFU_ERR_BAD_ARGSZ, 0, "argsz %u < %zu", in.argsz,
				  sizeof(in));
	if (in.index >= ZN_VFU_PCI_NUM_REGIONS)
		return vfu_refuse(dev, rq, ZN_VFU_ERR_BAD_INDEX, 0, "index %u", in.index);
	/* "index ... is the only field that is required to be set ... all other
	 * fields must be zero" */
	if (in.flags || in.cap_offset || in.size || in.offset)
		return vfu_refuse(dev, rq, ZN_VFU_ERR_NONZERO_FIELD, 0,
				  "flags/cap_offset/size/offset must be zero");

	info.index = in.index;
	info.size = vfu_region_size(dev, in.index);
	if (info.size)
		info.flags = ZN_VFU_REGION_F_READ | ZN_VFU_REGION_F_WRITE;
	if (bar_has_areas(dev, in.index) && dev->bar_fd[in.index] >= 0 &&
	    dev->conn.client_max_fds > 0) {
		const struct zn_vfu_bar *b = &dev->desc.bar[in.index];

		info.flags |= ZN_VFU_REGION_F_MMAP;
		full += (uint32_t)(sizeof(cap) + b->nr_areas * sizeof(struct zn_vfu_sparse_area));
		if (in.argsz >= full) {
			info.flags |= ZN_VFU_REGION_F_CAPS;
			info.cap_offset = sizeof(info);
			cap.header.id = ZN_VFU_REGION_CAP_SPARSE_MMAP;
			cap.header.version = ZN_VFU_REGION_CAP_SPARSE_MMAP_VERSION;
			cap.header.next = 0;
			cap.nr_areas = b->nr_areas;
			memcpy(out + sizeof(info), &cap, sizeof(cap));
			for (unsigned i = 0; i < b->nr_areas; i++) {
				struct zn_vfu_sparse_area area = { b->areas[i].offset,
								   b->areas[i].size };

				memcpy(out + sizeof(info) + sizeof(cap) + i * sizeof(area), &area,
				       sizeof(area));
			}
			fd = dev->bar_fd[in.index];
		}
	}
	info.argsz = full;
	memcpy(out, &info, sizeof(info));
	/* The reply is what fits in argsz: all of it, or the fixed part. */
	return vfu_reply(dev, rq, out, fd >= 0 ? full : sizeof(info), &fd, fd >= 0 ? 1 : 0);
}

/* ---- MSI-X table and PBA ---- */

static bool in_range(uint64_t pos, uint64_t start, uint64_t size)
{
	return pos >= start && pos - start < size;
}

static void msix_access(struct zn_vfu_dev *dev, bool table, uint64_t off, uint8_t *buf,
			uint32_t count, bool is_write)
{
	uint8_t *mem = table ? dev->msix_table : dev->msix_pba;

	if (!is_write) {
		memcpy(buf, mem + off, count);
		return;
	}
	/* The PBA is read-only; pending bits are ours to set. */
	if (table)
		memcpy(mem + off, buf, count);
}

/* One BAR access, split where it crosses what it touches. */
static int bar_access(struct zn_vfu_dev *dev, unsigned bar, uint64_t off, uint8_t *buf,
		      uint32_t count, bool is_write)
{
	const struct zn_vfu_dev_desc *d = &dev->desc;
	const struct zn_vfu_bar *b = &d->bar[bar];
	uint64_t end = off + count;
	uint64_t tbl_size = (uint64_t)d->msix_vectors * PCI_MSIX_ENTRY_SIZE;
	bool has_tbl = d->msix_vectors && d->msix_table_bar == bar;
	bool has_pba = d->msix_vectors && d->msix_pba_bar == bar;

	while (off < end) {
		uint64_t seg_end = end;
		int kind = 0;		/* 0 trapped, 1 area, 2 table, 3 pba */
		uint64_t base = 0;

#define CONSIDER(k, start, size)                                             \
	do {                                                                 \
		if (in_range(off, (start), (size))) {                        \
			kind = (k);                                          \
			base = (start);                                      \
			if ((start) + (size) < seg_end)                      \
				seg_end = (start) + (size);                  \
		} else if ((start) > off && (start) < seg_end) {             \
			seg_end = (start);                                   \
		}                                                            \
	} while (0)
		for (unsigned i = 0; i < b->nr_areas; i++)
			CONSIDER(1, b->areas[i].offset, b->areas[i].size);
		if (has_tbl)
			CONSIDER(2, (uint64_t)d->msix_table_offset, tbl_size);
		if (has_pba)
			CONSIDER(3, (uint64_t)d->msix_pba_offset, (uint64_t)dev->msix_pba_size);
#undef CONSIDER
		uint32_t n = (uint32_t)(seg_end - off);

		switch (kind) {
		case 1: {
			uint8_t *mem;

			if (!dev->bar_va[bar])
				return -EIO;	/* lost to a failed memfd_create */
			mem = (uint8_t *)dev->bar_va[bar] + off;
			if (is_write)
				memcpy(mem, buf, n);
			else
				memcpy(buf, mem, n);
			break;
		}
		case 2:
		case 3:
			msix_access(dev, kind == 2, off - base, buf, n, is_write);
			break;
		default: {
			int ret = -EINVAL;

			if (d->ops && d->ops->bar_access)
				ret = d->ops->bar_access(d->opaque, bar, off, buf, n, is_write);
			if (ret)
				return ret;
		}
		}
		buf += n;
		off += n;
	}
	return 0;
}

int vfu_handle_region_rw(struct zn_vfu_dev *dev, struct vfu_req *rq)
{
	bool is_write = rq->hdr.cmd == ZN_VFU_REGION_WRITE;
	struct zn_vfu_region_access a;
	struct zn_vfu_region_access *out = NULL;
	uint8_t *buf;
	uint64_t size;
	int ret;

	if (rq->len < sizeof(a))
		return vfu_refuse(dev, rq, ZN_VFU_ERR_BAD_SIZE, 0, "payload %u < %zu", rq->len,
				  sizeof(a));
	memcpy(&a, rq->data, sizeof(a));
	/* "The count field must not exceed the value of max_data_xfer_size" */
	if (a.count > ZN_VFU_MAX_XFER)
		return vfu_refuse(dev, rq, ZN_VFU_ERR_XFER_TOO_BIG, 0, "count %u > %u", a.count,
				  ZN_VFU_MAX_XFER);
	if (rq->len != sizeof(a) + (is_write ? a.count : 0))
		return vfu_refuse(dev, rq, ZN_VFU_ERR_BAD_SIZE, 0, "payload %u for count %u",
				  rq->len, a.count);
	if (a.region >= ZN_VFU_PCI_NUM_REGIONS)
		return vfu_refuse(dev, rq, ZN_VFU_ERR_BAD_INDEX, 0, "region %u", a.region);
	size = vfu_region_size(dev, a.region);
	if (a.offset > size || a.count > size - a.offset)
		return vfu_refuse(dev, rq, ZN_VFU_ERR_BAD_RANGE, 0,
				  "[%#llx, +%u) outside region %u of %#llx bytes",
				  (unsigned long long)a.offset, a.count, a.region,
				  (unsigned long long)size);
	if (a.region < ZN_VFU_NUM_BARS && a.count) {
		uint16_t need = dev->desc.bar[a.region].type == ZN_VFU_BAR_IO ?
					PCI_COMMAND_IO : PCI_COMMAND_MEMORY;

		if (!(vfu_pci_cmd(dev) & need))
			return vfu_refuse(dev, rq, ZN_VFU_ERR_MEM_DISABLED, 0,
					  "BAR%u while COMMAND.%s is off", a.region,
					  need == PCI_COMMAND_IO ? "IO" : "MEMORY");
	}

	out = malloc(sizeof(*out) + (is_write ? 0 : a.count));
	if (!out) {
		vfu_send_error(dev, &rq->hdr, ENOMEM);
		return -ENOMEM;
	}
	*out = a;
	buf = is_write ? rq->data + sizeof(a) : out->data;
	if (!is_write)
		memset(buf, 0, a.count);
	ret = 0;
	if (!a.count)
		;
	else if (a.region == ZN_VFU_PCI_CONFIG_REGION && is_write)
		vfu_pci_write(dev, a.offset, buf, a.count);
	else if (a.region == ZN_VFU_PCI_CONFIG_REGION)
		vfu_pci_read(dev, a.offset, buf, a.count);
	else
		ret = bar_access(dev, a.region, a.offset, buf, a.count, is_write);
	if (ret < 0) {
		free(out);
		return vfu_refuse(dev, rq, ZN_VFU_ERR_DEVICE_ERROR, -ret,
				  "BAR%u [%#llx, +%u) %s refused by the device", a.region,
				  (unsigned long long)a.offset, a.count, is_write ? "write" : "read");
	}
	ret = vfu_reply(dev, rq, out, sizeof(*out) + (is_write ? 0 : a.count), NULL, 0);
	free(out);
	return ret;
}
