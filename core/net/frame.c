/* SPDX-License-Identifier: MIT */
/* A received frame in pieces (header buffer + payload segments): copies
 * and checksums across piece boundaries. */
#include <string.h>

#include "zcnic/net.h"

uint32_t zn_frame_copy(const struct zn_frame *f, uint32_t off, void *dst, uint32_t len)
{
	uint8_t *d = dst;
	uint32_t done = 0;

	for (uint32_t i = 0; i < f->npiece && done < len; i++) {
		uint32_t pl = f->piece[i].len, n;

		if (off >= pl) {
			off -= pl;
			continue;
		}
		n = pl - off < len - done ? pl - off : len - done;
		memcpy(d + done, f->piece[i].p + off, n);
		done += n;
		off = 0;
	}
	return done;
}

uint32_t zn_frame_csum(const struct zn_frame *f, uint32_t off, uint32_t len)
{
	uint32_t sum = 0, done = 0;

	for (uint32_t i = 0; i < f->npiece && done < len; i++) {
		uint32_t pl = f->piece[i].len, n, s;

		if (off >= pl) {
			off -= pl;
			continue;
		}
		n = pl - off < len - done ? pl - off : len - done;
		s = zn_csum_fold(zn_csum_add(0, f->piece[i].p + off, n));
		/* a piece at an odd offset of the stream: its bytes sit in the
		 * other half of each word (RFC 1071 2(B)) */
		if (done & 1)
			s = (uint16_t)__builtin_bswap16((uint16_t)s);
		sum += s;
		done += n;
		off = 0;
	}
	return sum;
}
