/* SPDX-License-Identifier: MIT */
/* Tests: a zcrx interface queue registered the way a liburing program does it. */
#ifndef ZN_TEST_ZCRX_USER_H
#define ZN_TEST_ZCRX_USER_H

#include <stddef.h>
#include <stdint.h>

#include "liburing.h"

struct zcrx_user {
	uint8_t *area;			/* anonymous memory, area_len bytes */
	struct io_uring_zcrx_rq rq;	/* the refill ring, in a user region */
	uint64_t token;			/* the area's rq_area_token */
	uint32_t zcrx_id;
};

/* Registers an ifq on ring for queue rxq of the netdev with ifindex: an
 * area of area_len bytes and a refill ring of rq_entries. 0 or the
 * register call's error. */
int zcrx_user_register(struct io_uring *ring, int ifindex, uint32_t rxq, size_t area_len,
		       uint32_t rq_entries, struct zcrx_user *z);

#endif
