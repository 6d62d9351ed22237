/* SPDX-License-Identifier: MIT */
/*
 * core/zcrx internals: the area's set-up and refill side, the refill
 * ring, the interface queue. Other layers use core/zcrx/zcrx.h (which also
 * says what a buffer's references are); include/zcnic/zcrx.h has the states.
 */
#ifndef ZCNIC_CORE_ZCRX_PRIV_H
#define ZCNIC_CORE_ZCRX_PRIV_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "compat/liburing/io_uring.h"
#include "core/debug/owner.h"
#include "core/zcrx/zcrx.h"
#include "zcnic/mem.h"
#include "zcnic/netdev.h"
#include "zcnic/port.h"
#include "zcnic/zcrx.h"

int zn_zcrx_area_init(struct zn_zcrx_area *a, void *base, size_t len, uint64_t iova);
void zn_zcrx_area_fini(struct zn_zcrx_area *a);
/* Provider alloc: FREE -> NIC (nic ref taken); how many it gave. */
uint32_t zn_zcrx_area_alloc(struct zn_zcrx_area *a, struct zn_buf *bufs, uint32_t n);
/* Provider put: the stack drops its reference; ids outside the area ignored (counted). */
void zn_zcrx_area_put(struct zn_zcrx_area *a, const uint32_t *ids, uint32_t n);
/* One refill entry: -1 when it dropped a reference, else the reason it was ignored. */
int zn_zcrx_area_rqe(struct zn_zcrx_area *a, const struct io_uring_zcrx_rqe *rqe);
/* Teardown: the user's references are gone (the kernel's io_zcrx_scrub). */
void zn_zcrx_area_scrub(struct zn_zcrx_area *a);
/* Recount every state from the buffers: 0 when consistent, else -1. */
int zn_zcrx_area_check(const struct zn_zcrx_area *a);
void zn_zcrx_area_stats(const struct zn_zcrx_area *a, struct zn_zcrx_stats *st);

/*
 * The refill ring in application memory (current kernels' layout):
 *
 *   +0    head   u32, written by zcnic (store-release): entries before it are consumed
 *   +64   tail   u32, written by the application (store-release) after filling rqes
 *   +128  rqes   rq_entries x struct io_uring_zcrx_rqe
 *
 * The application owns the slots from head to head + entries not yet
 * published; zcnic reads the slots from its cached head to tail. zcnic
 * never trusts tail: at most `entries` slots are read per pass, whatever
 * tail says, and head advances by what was read.
 */
#define ZN_ZCRX_RQ_HEAD_OFF	0
#define ZN_ZCRX_RQ_TAIL_OFF	64
#define ZN_ZCRX_RQ_RQES_OFF	128

struct zn_zcrx_rq {
	uint32_t *khead, *ktail;
	struct io_uring_zcrx_rqe *rqes;
	uint32_t entries, mask;
	uint32_t cached_head;
};

void zn_zcrx_rq_init(struct zn_zcrx_rq *rq, void *mem, uint32_t entries);
/* One pass over the refill ring: entries consumed. */
uint32_t zn_zcrx_refill(struct zn_zcrx_rq *rq, struct zn_zcrx_area *a);

/* ---- interface queues (ifq.c) ---- */

struct zn_zcrx_ring;

struct zn_zcrx_ifq {
	struct zn_uring *ring;
	struct zn_zcrx_ring *rctx;
	uint32_t id;
	struct zn_netdev *dev;		/* NULL once the netdev closed */
	uint16_t rxq;
	struct zn_zcrx_area area;
	struct zn_zcrx_rq rq;
	struct zn_dma_region *region;
	bool region_owned;		/* adopted by us: freed with the area */
	bool dma_mapped;
	bool attached;			/* our provider is (or was, until detached) the queue's */
	bool registered;		/* still in its ring's list */
	int close_id;
	unsigned refs;
	struct zn_owner owner;		/* the thread that refills and receives */
	struct zn_buf_provider prov;
	struct zn_zcrx_waiter *waiters;
	uint32_t room_seen;		/* room at the last pass (TCP window updates) */
	struct zn_zcrx_ifq *next;	/* ring's list */
	struct zn_zcrx_ifq *gnext;	/* process-wide list (queue ownership) */
	/* a refill region zcnic allocated (region.c); rq_mem NULL: the program's */
	void *rq_mem;
	struct zn_dma_region *rq_region;	/* the memfd and zcnic's mapping of it */
	uint64_t rq_len, rq_off;	/* its size, the mmap offset it answers to */
	int rq_fd;			/* the memfd behind it */
};

/* region.c: a refill region for a program that passed none: shared memory
 * of size bytes answering to mmap offset off. 0 or -errno. */
int zn_zcrx_region_alloc(struct zn_zcrx_ifq *ifq, uint64_t size, uint64_t off);
void zn_zcrx_region_free(struct zn_zcrx_ifq *ifq);
/* The mmap offset of ifq id's allocated region (Linux's zcrx region offsets). */
uint64_t zn_zcrx_region_off(uint32_t id);

#endif
