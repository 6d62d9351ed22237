/* SPDX-License-Identifier: MIT */
/*
 * vfio-user reply payloads: validated before anything in them is used. Each
 * parser works on a plain buffer so that the fuzzer can drive it.
 *
 * Layouts and rules from the specification (QEMU docs/interop/vfio-user.rst,
 * sections VERSION, DEVICE_GET_INFO, DEVICE_GET_REGION_INFO with the VFIO cap
 * chain and sparse mmap cap, DEVICE_GET_IRQ_INFO, REGION_READ/WRITE,
 * DMA_UNMAP) and the VFIO structures of Linux include/uapi/linux/vfio.h.
 * The server is not trusted: a size, offset or count it gives is checked
 * against the reply's own bounds and against what we asked for.
 */
#include <errno.h>
#include <inttypes.h>
#include <string.h>

#include "core/bus/vfio_user_priv.h"
#include "zcnic/log.h"

#define PERR(who, cmd, fmt, ...) \
	ZN_ERR(ZN_VFUC_LOG, "%s: %s reply: " fmt, who, cmd, ##__VA_ARGS__)

int zn_vfuc_parse_version(const void *p, size_t len, struct zn_vfuc_caps *caps,
			 const char *who)
{
	struct zn_vfu_version v;
	const char *json = (const char *)p + sizeof(v);
	size_t jlen;

	if (len < sizeof(v)) {
		PERR(who, "VERSION", "%zu bytes, need at least %zu", len, sizeof(v));
		return -EPROTO;
	}
	jlen = len - sizeof(v);
	memcpy(&v, p, sizeof(v));
	/* The reply keeps our major and may lower the minor, never raise it. */
	if (v.major != ZN_VFU_VERSION_MAJOR || v.minor > ZN_VFU_VERSION_MINOR) {
		PERR(who, "VERSION", "server speaks vfio-user %u.%u, we speak %u.0 to %u.%u; "
		     "use a compatible server", v.major, v.minor, ZN_VFU_VERSION_MAJOR,
		     ZN_VFU_VERSION_MAJOR, ZN_VFU_VERSION_MINOR);
		return -EPROTONOSUPPORT;
	}
	*caps = (struct zn_vfuc_caps){
		.major = v.major,
		.minor = v.minor,
		.max_msg_fds = ZN_VFU_DEFAULT_MAX_MSG_FDS,
		.max_data_xfer_size = ZN_VFU_DEFAULT_MAX_XFER,
		.max_dma_maps = ZN_VFU_DEFAULT_MAX_DMA_MAPS,
		.pgsizes = ZN_VFU_DEFAULT_PGSIZES,
	};
	/* The JSON is optional; when present it is NUL-terminated. */
	if (jlen == 0 || (jlen == 1 && json[0] == '\0'))
		return 0;
	if (json[jlen - 1] != '\0') {
		PERR(who, "VERSION", "capabilities JSON is not NUL-terminated");
		return -EPROTO;
	}
	return zn_vfuc_parse_version_json(json, jlen - 1, caps, who);
}

int zn_vfuc_parse_device_info(const void *p, size_t len,
			     struct zn_device_info *info, const char *who)
{
	struct zn_vfu_device_info di;

	if (len < sizeof(di)) {
		PERR(who, "DEVICE_GET_INFO", "%zu bytes, need %zu", len, sizeof(di));
		return -EPROTO;
	}
	memcpy(&di, p, sizeof(di));
	if (di.argsz < sizeof(di)) {
		PERR(who, "DEVICE_GET_INFO", "argsz %u, less than the %zu-byte structure",
		     di.argsz, sizeof(di));
		return -EPROTO;
	}
	*info = (struct zn_device_info){
		.flags = di.flags, .num_regions = di.num_regions, .num_irqs = di.num_irqs,
	};
	return 0;
}

static int parse_sparse(const uint8_t *p, uint32_t argsz, uint32_t off,
			struct zn_region_info *info, const char *who)
{
	struct zn_vfu_cap_sparse_mmap cap;
	uint64_t room;

	if ((uint64_t)off + sizeof(cap) > argsz) {
		PERR(who, "DEVICE_GET_REGION_INFO", "region %u: sparse mmap cap at %u does not "
		     "fit in %u bytes", info->index, off, argsz);
		return -EPROTO;
	}
	memcpy(&cap, p + off, sizeof(cap));
	if (cap.header.version != ZN_VFU_REGION_CAP_SPARSE_MMAP_VERSION) {
		PERR(who, "DEVICE_GET_REGION_INFO", "region %u: sparse mmap cap version %u, "
		     "only %u is defined", info->index, cap.header.version,
		     ZN_VFU_REGION_CAP_SPARSE_MMAP_VERSION);
		return -EPROTO;
	}
	room = (argsz - off - sizeof(cap)) / sizeof(struct zn_vfu_sparse_area);
	if (cap.nr_areas > room) {
		PERR(who, "DEVICE_GET_REGION_INFO", "region %u: %u sparse areas do not fit "
		     "in the %u-byte reply", info->index, cap.nr_areas, argsz);
		return -EPROTO;
	}
	if (cap.nr_areas > ZN_BUS_MAX_SPARSE) {
		ZN_ERR(ZN_VFUC_LOG, "%s: region %u has %u sparse mmap areas, zcnic handles "
		       "at most %u", who, info->index, cap.nr_areas, ZN_BUS_MAX_SPARSE);
		return -E2BIG;
	}
	for (uint32_t i = 0; i < cap.nr_areas; i++) {
		struct zn_vfu_sparse_area a;

		memcpy(&a, p + off + sizeof(cap) + i * sizeof(a), sizeof(a));
		if (a.size == 0 || a.offset > info->size || a.size > info->size - a.offset) {
			PERR(who, "DEVICE_GET_REGION_INFO", "region %u: sparse area "
			     "[%#" PRIx64 ", +%#" PRIx64 ") is empty or outside the region of "
			     "size %#" PRIx64, info->index, a.offset, a.size, info->size);
			return -EPROTO;
		}
		for (uint32_t j = 0; j < i; j++) {
			if (a.offset < info->sparse[j].offset + info->sparse[j].size &&
			    info->sparse[j].offset < a.offset + a.size) {
				PERR(who, "DEVICE_GET_REGION_INFO", "region %u: sparse areas "
				     "%u and %u overlap", info->index, j, i);
				return -EPROTO;
			}
		}
		info->sparse[i].offset = a.offset;
		info->sparse[i].size = a.size;
	}
	info->nr_sparse = cap.nr_areas;
	return 0;
}

/* Walk the chain at cap_offset; offsets are from the start of the reply. */
static int parse_caps(const uint8_t *p, uint32_t argsz, uint32_t cap_offset,
		      struct zn_region_info *info, bool *sparse, const char *who)
{
	const uint32_t fixed = sizeof(struct zn_vfu_region_info);
	/* A chain cannot hold more headers than fit after the fixed part: more
	 * hops than that means it loops. */
	uint32_t max_hops = (argsz - fixed) / sizeof(struct zn_vfu_cap_header);
	uint32_t hops = 0;

	for (uint32_t off = cap_offset; off; ) {
		struct zn_vfu_cap_header h;
		int rc;

		if (off < fixed || (uint64_t)off + sizeof(h) > argsz) {
			PERR(who, "DEVICE_GET_REGION_INFO", "region %u: capability at offset %u "
			     "is outside the %u-byte reply", info->index, off, argsz);
			return -EPROTO;
		}
		if (++hops > max_hops) {
			PERR(who, "DEVICE_GET_REGION_INFO", "region %u: capability chain loops "
			     "(offset %u seen again)", info->index, off);
			return -EPROTO;
		}
		memcpy(&h, p + off, sizeof(h));
		if (h.id == ZN_VFU_REGION_CAP_SPARSE_MMAP) {
			if (*sparse) {
				PERR(who, "DEVICE_GET_REGION_INFO", "region %u: two sparse mmap "
				     "capabilities", info->index);
				return -EPROTO;
			}
			rc = parse_sparse(p, argsz, off, info, who);
			if (rc < 0)
				return rc;
			*sparse = true;
		}
		/* Other capabilities (TYPE, MSIX_MAPPABLE, ...) are not ours to use. */
		off = h.next;
	}
	return 0;
}

int zn_vfuc_parse_region_info(const void *p, size_t len, uint32_t index,
			     uint32_t offered_argsz, unsigned nfds,
			     struct zn_region_info *info, const char *who)
{
	struct zn_vfu_region_info ri;
	bool mmap, sparse = false;
	unsigned want_fds;
	int rc;

	if (len < sizeof(ri)) {
		PERR(who, "DEVICE_GET_REGION_INFO", "%zu bytes, need %zu", len, sizeof(ri));
		return -EPROTO;
	}
	memcpy(&ri, p, sizeof(ri));
	if (ri.index != index) {
		PERR(who, "DEVICE_GET_REGION_INFO", "describes region %u, asked for %u",
		     ri.index, index);
		return -EPROTO;
	}
	if (ri.argsz < sizeof(ri)) {
		PERR(who, "DEVICE_GET_REGION_INFO", "region %u: argsz %u, less than the "
		     "%zu-byte structure", index, ri.argsz, sizeof(ri));
		return -EPROTO;
	}
	/* A reply that needs more room than we offered is cut short on purpose;
	 * the caller asks again with the size it names. */
	if (ri.argsz > offered_argsz) {
		if (ri.argsz > ZN_VFUC_REGION_INFO_ARGSZ_MAX) {
			PERR(who, "DEVICE_GET_REGION_INFO", "region %u needs %u bytes of info, "
			     "more than the %u we take", index, ri.argsz,
			     ZN_VFUC_REGION_INFO_ARGSZ_MAX);
			return -EMSGSIZE;
		}
		return (int)ri.argsz;
	}
	if (len != ri.argsz) {
		PERR(who, "DEVICE_GET_REGION_INFO", "region %u: %zu bytes, but argsz says %u",
		     index, len, ri.argsz);
		return -EPROTO;
	}
	mmap = ri.flags & ZN_VFU_REGION_F_MMAP;
	if (ri.offset + ri.size < ri.offset || (mmap && ri.size == 0)) {
		PERR(who, "DEVICE_GET_REGION_INFO", "region %u: offset %#" PRIx64 " size %#"
		     PRIx64 " is not a mappable range", index, ri.offset, ri.size);
		return -EPROTO;
	}
	memset(info, 0, sizeof(*info));
	info->index = index;
	info->flags = ri.flags & (ZN_REGION_F_READ | ZN_REGION_F_WRITE | ZN_REGION_F_MMAP);
	info->size = ri.size;
	info->offset = ri.offset;

	/* One fd per mappable region, none otherwise. */
	want_fds = mmap ? 1 : 0;
	if (nfds != want_fds) {
		PERR(who, "DEVICE_GET_REGION_INFO", "region %u: %u fds came with it, expected %u",
		     index, nfds, want_fds);
		return -EPROTO;
	}
	if (ri.flags & ZN_VFU_REGION_F_CAPS) {
		rc = parse_caps(p, ri.argsz, ri.cap_offset, info, &sparse, who);
		if (rc < 0)
			return rc;
	}
	if (sparse && !mmap) {
		/* Areas without an fd to map them from mean nothing. */
		info->nr_sparse = 0;
	} else if (sparse && info->nr_sparse == 0) {
		/* Mappable, but no part of it may be mapped. */
		info->flags &= ~(uint32_t)ZN_REGION_F_MMAP;
	}
	return 0;
}

int zn_vfuc_parse_irq_info(const void *p, size_t len, uint32_t index,
			  struct zn_irq_info *info, const char *who)
{
	struct zn_vfu_irq_info ii;

	if (len < sizeof(ii)) {
		PERR(who, "DEVICE_GET_IRQ_INFO", "%zu bytes, need %zu", len, sizeof(ii));
		return -EPROTO;
	}
	memcpy(&ii, p, sizeof(ii));
	if (ii.argsz < sizeof(ii) || ii.index != index) {
		PERR(who, "DEVICE_GET_IRQ_INFO", "argsz %u index %u, expected argsz >= %zu "
		     "and index %u", ii.argsz, ii.index, sizeof(ii), index);
		return -EPROTO;
	}
	*info = (struct zn_irq_info){ .index = index, .flags = ii.flags, .count = ii.count };
	return 0;
}

int zn_vfuc_parse_region_access(const void *p, size_t len, uint16_t cmd,
			       uint32_t region, uint64_t offset, uint32_t count,
			       void *data, const char *who)
{
	const char *name = zn_vfuc_cmd_name(cmd);
	struct zn_vfu_region_access ra;
	size_t want;

	if (len < sizeof(ra)) {
		PERR(who, name, "%zu bytes, need %zu", len, sizeof(ra));
		return -EPROTO;
	}
	memcpy(&ra, p, sizeof(ra));
	if (ra.region != region || ra.offset != offset || ra.count > count) {
		PERR(who, name, "is for region %u offset %#" PRIx64 " count %u, asked region "
		     "%u offset %#" PRIx64 " count %u", ra.region, ra.offset, ra.count,
		     region, offset, count);
		return -EPROTO;
	}
	want = sizeof(ra) + (cmd == ZN_VFU_REGION_READ ? ra.count : 0);
	if (len != want) {
		PERR(who, name, "%zu bytes for a count of %u, expected %zu", len, ra.count, want);
		return -EPROTO;
	}
	if (ra.count < count) {
		ZN_ERR(ZN_VFUC_LOG, "%s: %s: region %u offset %#" PRIx64 ": short transfer, "
		       "%u of %u bytes", who, name, region, offset, ra.count, count);
		return -EIO;
	}
	if (data)
		memcpy(data, (const uint8_t *)p + sizeof(ra), count);
	return 0;
}

int zn_vfuc_parse_dma_unmap(const void *p, size_t len, uint64_t addr,
			   uint64_t size, const char *who)
{
	struct zn_vfu_dma_unmap u;

	/* The specification has the server echo the entry it unmapped. */
	if (len != sizeof(u)) {
		PERR(who, "DMA_UNMAP", "%zu bytes, expected the %zu-byte entry", len, sizeof(u));
		return -EPROTO;
	}
	memcpy(&u, p, sizeof(u));
	if (u.argsz < sizeof(u) || u.addr != addr || u.size != size) {
		PERR(who, "DMA_UNMAP", "echoes [%#" PRIx64 ", +%#" PRIx64 ") argsz %u, we "
		     "unmapped [%#" PRIx64 ", +%#" PRIx64 ")", u.addr, u.size, u.argsz, addr, size);
		return -EPROTO;
	}
	return 0;
}
