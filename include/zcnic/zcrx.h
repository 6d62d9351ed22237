/* SPDX-License-Identifier: MIT */
/*
 * core/zcrx: zero-copy receive interface queues (IORING_REGISTER_ZCRX_IFQ
 * and IORING_OP_RECV_ZC), the native face: buffer accounting for tests and
 * zn-stat. Registration itself goes through io_uring_register_ifq() /
 * zn_uring_register_ifq(), RECV_ZC through the ring.
 *
 * An interface queue (ifq) binds one RX queue of a netdev to one area of
 * application memory, cut into ZN_ZCRX_BUF_SIZE buffers ("niovs"). Every
 * buffer is in exactly one state:
 *
 *   FREE   on the area's free list
 *   NIC    handed to the RX queue (posted to the NIC, or received and
 *          waiting on a socket's receive list for RECV_ZC to take it)
 *   STACK  taken by RECV_ZC from the socket, not yet in a CQE (a datagram
 *          kept when the CQ filled up in the middle of it)
 *   USER   in one or more CQEs, held by the application: one user
 *          reference per CQE pointing into it
 *
 *   FREE --alloc (NIC refill)--> NIC --RECV_ZC takes the datagram--> STACK
 *   STACK --CQE posted (user ref + 1)--> USER
 *   USER --refill entry (user ref - 1, reaching 0)--> FREE
 *   NIC / STACK --dropped by the stack, socket closed--> FREE
 *   FREE --copy fallback--> USER (data the NIC did not place in the area)
 *
 * so free + nic + stack + user == nbufs at every moment.
 *
 * The NIC never takes the last min(8, nbufs / 4) free buffers: they are
 * the copy fallback's, so the frames that sit in the queue's pool buffers
 * from before registration can always move into the area once the
 * application returns buffers (else a small area deadlocks at -ENOMEM).
 *
 * No privilege is checked at registration (the kernel wants CAP_NET_ADMIN):
 * zcnic needs none beyond owning the device, which the process already does.
 */
#ifndef ZCNIC_ZCRX_H
#define ZCNIC_ZCRX_H

#include <stdint.h>

#pragma GCC visibility push(default)	/* the library's ABI: core/libzcnic.map */

struct zn_uring;

#define ZN_ZCRX_BUF_SHIFT	12
#define ZN_ZCRX_BUF_SIZE	(1u << ZN_ZCRX_BUF_SHIFT)	/* = the netdev's payload buffer */
#define ZN_ZCRX_MAX_RQ_ENTRIES	32768	/* the kernel's IO_RQ_MAX_ENTRIES */

/* Why a refill ring entry was ignored (the kernel ignores them silently). */
enum zn_zcrx_refill_err {
	ZN_ZCRX_RQE_OUTSIDE = 0,	/* buffer index past the area */
	ZN_ZCRX_RQE_AREA,		/* area id (off >> 48) not an area of this ifq */
	ZN_ZCRX_RQE_NOT_HELD,		/* buffer not held by the user (never handed out, returned twice) */
	ZN_ZCRX_RQE_PAD,		/* __pad != 0 */
	ZN_ZCRX_RQE_ERRS
};

struct zn_zcrx_stats {
	uint32_t nbufs;			/* buffers in the area */
	uint32_t free, nic, stack, user;	/* per state; the sum is nbufs */
	uint64_t user_refs;		/* CQEs the application still holds */
	uint64_t refill_ok;		/* refill entries that dropped a user reference */
	uint64_t refill_invalid[ZN_ZCRX_RQE_ERRS];
	uint64_t refill_runs;		/* refill ring passes */
	uint64_t alloc_short;		/* NIC refills that found fewer free buffers than asked */
	uint64_t copies;		/* copy-fallback CQEs */
	uint64_t copy_bytes;
	uint64_t cqes;			/* data CQEs (zero-copy + copies) */
	uint64_t zc_bytes;		/* bytes delivered zero-copy */
	uint64_t scrubbed;		/* buffers taken back from the user at teardown */
	uint64_t bad_puts;		/* put() of a buffer the stack did not hold (a bug below) */
};

/*
 * The accounting of interface queue zcrx_id of ring r (its owner thread).
 * 0, -ENXIO (no such ifq), -EINVAL (NULL).
 */
int zn_zcrx_get_stats(struct zn_uring *r, uint32_t zcrx_id, struct zn_zcrx_stats *st);

/* Areas whose NIC buffers have not all come back yet (teardown pending). */
unsigned zn_zcrx_areas_pending(void);

#pragma GCC visibility pop

#endif
