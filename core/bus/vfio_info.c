/* SPDX-License-Identifier: MIT */
/*
 * The argsz convention of VFIO INFO ioctls and their capability chains
 * [torvalds/linux: include/uapi/linux/vfio.h, comment above
 * struct vfio_info_cap_header]: when the caller's argsz is too small for the
 * capabilities, the kernel succeeds, writes the size it needs into argsz and
 * leaves cap_offset 0; the caller asks again with a buffer that big. Chains
 * are offsets from the start of the buffer, 0 ends them.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <linux/vfio.h>

#include "core/bus/vfio_priv.h"
#include "core/bus/vfio_sys.h"

/* A kernel asking for more than this is not believed. */
#define INFO_MAX_BYTES (64u << 10)
/* Longest capability chain walked before calling it a loop. */
#define CAP_CHAIN_MAX 64

int zn_vfio_info_ioctl(int fd, unsigned long req, const void *tmpl, size_t minsz,
		       void **out, size_t *out_len)
{
	size_t len = minsz;
	uint8_t *buf = NULL;

	for (int attempt = 0; attempt < 2; attempt++) {
		uint32_t want;
		uint8_t *nbuf = realloc(buf, len);

		if (!nbuf) {
			free(buf);
			return -ENOMEM;
		}
		buf = nbuf;
		memset(buf, 0, len);
		memcpy(buf, tmpl, minsz);
		want = (uint32_t)len;
		memcpy(buf, &want, sizeof(want));	/* argsz */
		if (zn_vfio_sys->ioctl(fd, req, buf) < 0) {
			int err = errno;

			free(buf);
			return -err;
		}
		memcpy(&want, buf, sizeof(want));
		if (want <= len || attempt == 1)
			break;
		if (want > INFO_MAX_BYTES) {
			free(buf);
			return -EOVERFLOW;
		}
		len = want;
	}
	*out = buf;
	*out_len = len;
	return 0;
}

const void *zn_vfio_find_cap(const void *buf, size_t len, uint32_t first,
			     size_t minoff, uint16_t id, size_t cap_minsz)
{
	const uint8_t *p = buf;
	uint32_t off = first;

	for (int i = 0; off && i < CAP_CHAIN_MAX; i++) {
		struct vfio_info_cap_header h;

		if (off < minoff || off > len || len - off < sizeof(h))
			return NULL;
		memcpy(&h, p + off, sizeof(h));
		if (h.id == id)
			return len - off >= cap_minsz ? p + off : NULL;
		off = h.next;
	}
	return NULL;
}
