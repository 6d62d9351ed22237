/* SPDX-License-Identifier: MIT */
/*
 * Interface queues: IORING_REGISTER_ZCRX_IFQ, their life on a ring, and
 * their teardown.
 *
 * Registration follows the kernel's io_register_zcrx / io_register_zcrx_ifq
 * (reference/uring.md 1.3) check by check and code by code, minus
 * CAP_NET_ADMIN (zcnic needs no privilege beyond owning the device). The
 * departures, each with one log line: dmabuf areas are -EOPNOTSUPP; rx_buf_len other than 0 / 4096 is
 * -EOPNOTSUPP (buffers are the netdev's payload buffer size). A region
 * without IORING_MEM_REGION_TYPE_USER is allocated here (region.c) and
 * its mmap_offset written back, as io_create_region does.
 *
 * Life of an ifq (one reference each):
 *   registration  from register until ring exit (or netdev close)
 *   attached      from zn_port_rxq_set_provider(area) until the port says
 *                 detached(): every buffer the NIC had came back
 *   receivers     each RECV_ZC socket state that uses it
 * The area memory (and its DMA mapping) lives until the last one goes, so
 * the NIC never writes into memory the process gave back.
 */
#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "base/bits.h"
#include "core/mem/ucopy.h"
#include "core/net/netif.h"
#include "core/uring/uring_op.h"
#include "core/zcrx/zcrx_priv.h"
#include "zcnic/log.h"

#define ZCRX_PAGE		4096ull
/*
 * Free buffers the NIC may not take: the copy fallback's. Frames that need
 * a copy (those in pool buffers posted before the swap on a driver without
 * rxq_restart, core/net's copies) come before the frames in area buffers;
 * if the NIC could take every free buffer, a small area would deadlock: the
 * copies find none (-ENOMEM) and the application has nothing to give back.
 * With a reserve, each buffer returned lets one more copy through. At
 * most a quarter of the area.
 */
#define ZCRX_COPY_RESERVE	8

/* The interface queues of one ring (owner thread), and its poll hook. */
struct zn_zcrx_ring {
	struct zn_uring *ring;
	uint32_t next_id;
	struct zn_zcrx_ifq *ifqs;
	int hook_id, exit_id;
	struct zn_zcrx_ring *next;
};

/* Every live ifq, for "is this queue taken" across rings (control path). */
static pthread_mutex_t g_lock = PTHREAD_MUTEX_INITIALIZER;
static struct zn_zcrx_ring *g_rings;
static struct zn_zcrx_ifq *g_ifqs;
static unsigned g_pending;		/* torn down, NIC buffers not all back */

unsigned zn_zcrx_areas_pending(void)
{
	unsigned n;

	pthread_mutex_lock(&g_lock);
	n = g_pending;
	pthread_mutex_unlock(&g_lock);
	return n;
}

static void ifq_free(struct zn_zcrx_ifq *ifq)
{
	struct zn_zcrx_ifq **pp;

	pthread_mutex_lock(&g_lock);
	for (pp = &g_ifqs; *pp; pp = &(*pp)->gnext)
		if (*pp == ifq) {
			*pp = ifq->gnext;
			break;
		}
	if (!ifq->registered && g_pending)
		g_pending--;
	pthread_mutex_unlock(&g_lock);
	if (ifq->dev) {
		zn_netdev_on_close_del(ifq->dev, ifq->close_id);
		if (ifq->dma_mapped)
			zn_netdev_dma_unmap(ifq->dev, ifq->region);
	}
	if (ifq->region_owned)
		zn_dma_region_free(ifq->region);
	zn_zcrx_area_fini(&ifq->area);
	zn_zcrx_region_free(ifq);
	free(ifq);
}


void zn_zcrx_ifq_put(struct zn_zcrx_ifq *ifq)
{
	if (--ifq->refs == 0)
		ifq_free(ifq);
}

/* ---- the provider the RX queue takes area buffers from ---- */

void zn_zcrx_ifq_refill(struct zn_zcrx_ifq *ifq)
{
	zn_owner_enter(&ifq->owner, "zcrx ifq");
	/* after teardown the ring memory may be gone: never read it again */
	if (ifq->registered)
		zn_zcrx_refill(&ifq->rq, &ifq->area);
}

static uint32_t copy_reserve(const struct zn_zcrx_area *a)
{
	return a->nbufs / 4 < ZCRX_COPY_RESERVE ? a->nbufs / 4 : ZCRX_COPY_RESERVE;
}

static uint32_t prov_alloc(void *ctx, struct zn_buf *bufs, uint32_t n)
{
	struct zn_zcrx_ifq *ifq = ctx;
	struct zn_zcrx_area *a = &ifq->area;
	uint32_t keep = copy_reserve(a), avail;

	zn_owner_enter(&ifq->owner, "zcrx ifq");
	if (a->nfree < n + keep)
		zn_zcrx_ifq_refill(ifq);
	avail = a->nfree > keep ? a->nfree - keep : 0;
	if (n > avail) {
		a->st.alloc_short++;
		n = avail;
	}
	return n ? zn_zcrx_area_alloc(a, bufs, n) : 0;
}

/*
 * Buffers the queue can still fill: free ones past the copy reserve and
 * those at the NIC (posted, or holding data core/net has not handed up).
 * TCP keeps its window within this, so an application that keeps its
 * buffers closes the window instead of making the NIC drop.
 */
static uint32_t ifq_room(void *ctx)
{
	struct zn_zcrx_ifq *ifq = ctx;
	const struct zn_zcrx_area *a = &ifq->area;
	uint32_t have = a->nfree + a->cnt[ZB_NIC], keep = copy_reserve(a);

	return have > keep ? have - keep : 0;
}

static void room_watch(struct zn_zcrx_ifq *ifq, bool on)
{
	struct zn_netif *nif = ifq->dev ? zn_netdev_netif(ifq->dev) : NULL;

	if (nif)
		zn_netif_rx_room_set(nif, ifq->rxq, on ? ifq_room : NULL, on ? ifq : NULL);
}

static void prov_put(void *ctx, const uint32_t *ids, uint32_t n)
{
	zn_zcrx_area_put(&((struct zn_zcrx_ifq *)ctx)->area, ids, n);
}

static uint8_t *prov_va(void *ctx, uint32_t id)
{
	struct zn_zcrx_ifq *ifq = ctx;

	return id < ifq->area.nbufs ? ifq->area.base + ((size_t)id << ZN_ZCRX_BUF_SHIFT) : NULL;
}

static void prov_detached(void *ctx)
{
	struct zn_zcrx_ifq *ifq = ctx;

	if (!ifq->attached)
		return;
	ifq->attached = false;
	zn_zcrx_ifq_put(ifq);
}

/* ---- per ring ---- */

void zn_zcrx_waiter_add(struct zn_zcrx_ifq *ifq, struct zn_zcrx_waiter *w)
{
	zn_owner_enter(&ifq->owner, "zcrx ifq");
	if (w->linked)
		return;
	w->prev = NULL;
	w->next = ifq->waiters;
	if (w->next)
		w->next->prev = w;
	ifq->waiters = w;
	w->linked = true;
}

void zn_zcrx_waiter_del(struct zn_zcrx_ifq *ifq, struct zn_zcrx_waiter *w)
{
	zn_owner_enter(&ifq->owner, "zcrx ifq");
	if (!w->linked)
		return;
	if (w->prev)
		w->prev->next = w->next;
	else
		ifq->waiters = w->next;
	if (w->next)
		w->next->prev = w->prev;
	w->linked = false;
}

/* Once per ring pass: the refill ring, then receivers that kept data. */
static int ring_poll(struct zn_uring *r, void *arg)
{
	struct zn_zcrx_ring *rc = arg;
	int work = 0;

	(void)r;
	for (struct zn_zcrx_ifq *ifq = rc->ifqs; ifq; ifq = ifq->next) {
		struct zn_zcrx_waiter *w, *next;

		uint32_t room;

		work += (int)zn_zcrx_refill(&ifq->rq, &ifq->area);
		room = ifq_room(ifq);
		if (room > ifq->room_seen && ifq->dev)
			zn_netif_rx_room_grew(zn_netdev_netif(ifq->dev));
		ifq->room_seen = room;
		for (w = ifq->waiters; w; w = next) {
			next = w->next;
			w->poll(w);
		}
	}
	return work;
}

/* Unbind from the queue and drop the registration reference. */
static void ifq_teardown(struct zn_zcrx_ifq *ifq)
{
	struct zn_zcrx_ifq **pp;

	for (pp = &ifq->rctx->ifqs; *pp; pp = &(*pp)->next)
		if (*pp == ifq) {
			*pp = ifq->next;
			break;
		}
	pthread_mutex_lock(&g_lock);
	ifq->registered = false;
	g_pending++;
	pthread_mutex_unlock(&g_lock);
	/* the application's references end with the ring (io_zcrx_scrub) */
	zn_zcrx_area_scrub(&ifq->area);
	room_watch(ifq, false);
	if (ifq->dev && ifq->attached) {
		int rc = zn_port_rxq_set_provider(zn_netdev_port(ifq->dev), ifq->rxq, NULL);

		if (rc < 0)
			ZN_ERR(ZCRX_LOG, "ifq %u: cannot give rx queue %u back to the port: %s; "
			       "the area stays until the netdev closes", ifq->id, ifq->rxq,
			       strerror(-rc));
	}
	zn_zcrx_ifq_put(ifq);
}

static void ring_exit(struct zn_uring *r, void *arg)
{
	struct zn_zcrx_ring *rc = arg, **pp;

	(void)r;
	while (rc->ifqs)
		ifq_teardown(rc->ifqs);
	pthread_mutex_lock(&g_lock);
	for (pp = &g_rings; *pp; pp = &(*pp)->next)
		if (*pp == rc) {
			*pp = rc->next;
			break;
		}
	pthread_mutex_unlock(&g_lock);
	free(rc);
}

static struct zn_zcrx_ring *ring_ctx(struct zn_uring *r, bool create)
{
	struct zn_zcrx_ring *rc;

	pthread_mutex_lock(&g_lock);
	for (rc = g_rings; rc; rc = rc->next)
		if (rc->ring == r)
			break;
	pthread_mutex_unlock(&g_lock);
	if (rc || !create)
		return rc;
	rc = calloc(1, sizeof(*rc));
	if (!rc)
		return NULL;
	rc->ring = r;
	rc->hook_id = zn_uring_hook_add(r, ring_poll, rc, 0);
	if (rc->hook_id < 0)
		goto err;
	rc->exit_id = zn_uring_on_exit(r, ring_exit, rc);
	if (rc->exit_id < 0)
		goto err_hook;
	pthread_mutex_lock(&g_lock);
	rc->next = g_rings;
	g_rings = rc;
	pthread_mutex_unlock(&g_lock);
	return rc;

err_hook:
	zn_uring_hook_del(r, rc->hook_id);
err:
	free(rc);
	return NULL;
}

struct zn_zcrx_ifq *zn_zcrx_ifq_get(struct zn_uring *r, uint32_t id)
{
	struct zn_zcrx_ring *rc = ring_ctx(r, false);

	for (struct zn_zcrx_ifq *ifq = rc ? rc->ifqs : NULL; ifq; ifq = ifq->next)
		if (ifq->id == id) {
			ifq->refs++;
			return ifq;
		}
	return NULL;
}

int zn_zcrx_get_stats(struct zn_uring *r, uint32_t zcrx_id, struct zn_zcrx_stats *st)
{
	struct zn_zcrx_ifq *ifq;

	if (!r || !st)
		return -EINVAL;
	ifq = zn_zcrx_ifq_get(r, zcrx_id);
	if (!ifq)
		return -ENXIO;
	zn_zcrx_area_stats(&ifq->area, st);
	zn_zcrx_ifq_put(ifq);
	return 0;
}

/* The netdev closes under the ifq: the port stops using the area. */
static void ifq_dev_close(void *arg, struct zn_netdev *d)
{
	struct zn_zcrx_ifq *ifq = arg;

	(void)d;
	room_watch(ifq, false);
	if (ifq->attached) {
		zn_port_rxq_set_provider(zn_netdev_port(ifq->dev), ifq->rxq, NULL);
		/* the port returns every buffer as it closes (detached then) */
	}
	ifq->dev = NULL;		/* its close drops every DMA mapping itself */
	ifq->dma_mapped = false;
}

/* ---- registration ---- */

/* Region descriptor checks of the kernel's io_create_region, in its order. */
static int check_region(const struct io_uring_region_desc *rd, uint64_t need)
{
	if (need > rd->size)
		return -EINVAL;
	return zn_uring_region_check(rd);	/* zcnic allocates without TYPE_USER */
}

/* Area checks of the kernel's io_import_area / io_validate_user_buf_range. */
static int check_area(const struct io_uring_zcrx_area_reg *ar)
{
	if (ar->flags & ~(uint32_t)IORING_ZCRX_AREA_DMABUF)
		return -EINVAL;
	if (ar->rq_area_token)
		return -EINVAL;
	if (ar->__resv2[0] || ar->__resv2[1])
		return -EINVAL;
	if (!ar->len)
		return -EFAULT;
	if (ar->addr + ar->len < ar->addr)
		return -EOVERFLOW;
	if ((ar->addr | ar->len) & (ZCRX_PAGE - 1))
		return -EINVAL;
	if (ar->flags & IORING_ZCRX_AREA_DMABUF) {
		ZN_ERR(ZCRX_LOG, "area: dmabuf areas are not supported by zcnic; register "
		       "process memory (anonymous or hugetlb) instead");
		return -EOPNOTSUPP;
	}
	if (ar->dmabuf_fd)
		return -EINVAL;
	if (!ar->addr)
		return -EFAULT;
	return 0;
}

/*
 * A queue is taken by a registered ifq. One torn down whose buffers are
 * still in the NIC does not block a new registration: core/port's mux
 * routes their return to it while the new area fills the queue.
 */
static bool queue_taken(struct zn_netdev *d, uint16_t q)
{
	bool taken = false;

	pthread_mutex_lock(&g_lock);
	for (struct zn_zcrx_ifq *i = g_ifqs; i; i = i->gnext)
		if (i->dev == d && i->rxq == q && i->registered)
			taken = true;
	pthread_mutex_unlock(&g_lock);
	return taken;
}

/* The area as DMA memory: made DMA-capable in place, mapped to the device. */
static int area_import(struct zn_zcrx_ifq *ifq, const struct io_uring_zcrx_area_reg *ar)
{
	void *va = (void *)(uintptr_t)ar->addr;
	uint64_t iova;
	int rc;

	rc = zn_mem_adopt(va, ar->len, &ifq->region);
	if (rc < 0) {
		ZN_ERR(ZCRX_LOG, "area %p+%llu: cannot use it for DMA: %s (it must be private "
		       "anonymous or hugetlb memory, mapped read-write)", va,
		       (unsigned long long)ar->len, strerror(-rc));
		return rc == -EINVAL ? -EINVAL : -EFAULT;
	}
	ifq->region_owned = rc == 0;
	rc = zn_netdev_dma_map(ifq->dev, ifq->region);
	if (rc < 0) {
		ZN_ERR(ZCRX_LOG, "area %p+%llu: DMA mapping to the device failed: %s", va,
		       (unsigned long long)ar->len, strerror(-rc));
		goto err_region;
	}
	ifq->dma_mapped = true;
	rc = zn_netdev_iova(ifq->dev, va, ar->len, &iova);
	if (rc < 0)
		goto err_map;
	rc = zn_zcrx_area_init(&ifq->area, va, ar->len, iova);
	if (rc < 0)
		goto err_map;
	return 0;

err_map:
	zn_netdev_dma_unmap(ifq->dev, ifq->region);
	ifq->dma_mapped = false;
err_region:
	if (ifq->region_owned)
		zn_dma_region_free(ifq->region);
	ifq->region = NULL;
	return rc;
}

static int copy_in(const struct io_uring_zcrx_ifq_reg *reg, struct io_uring_zcrx_area_reg *ar,
		   struct io_uring_region_desc *rd)
{
	/* what copy_from_user / the write-back would fault on: -EFAULT */
	if (!reg->area_ptr || !reg->region_ptr)
		return -EFAULT;
	if (zn_user_range_ok(reg->area_ptr, sizeof(*ar), true) ||
	    zn_user_range_ok(reg->region_ptr, sizeof(*rd), true))
		return -EFAULT;
	memcpy(ar, (const void *)(uintptr_t)reg->area_ptr, sizeof(*ar));
	memcpy(rd, (const void *)(uintptr_t)reg->region_ptr, sizeof(*rd));
	return 0;
}

int zn_zcrx_register(struct zn_uring *r, struct io_uring_zcrx_ifq_reg *reg)
{
	struct io_uring_zcrx_area_reg ar;
	struct io_uring_region_desc rd;
	struct zn_zcrx_ring *rctx;
	struct zn_zcrx_ifq *ifq;
	struct zn_netdev *dev;
	uint32_t entries;
	int rc;

	/* RECV_ZC posts data CQEs from the owner's poll, with the zcrx half */
	if (!(zn_uring_flags(r) & IORING_SETUP_DEFER_TASKRUN) ||
	    !(zn_uring_flags(r) & IORING_SETUP_CQE32))
		return -EINVAL;
	if (!reg || zn_user_range_ok((uintptr_t)reg, sizeof(*reg), true))
		return -EFAULT;
	rc = copy_in(reg, &ar, &rd);
	if (rc)
		return rc;
	/* reserved fields and flags must be zero so the ABI can grow */
	if (reg->zcrx_id || reg->flags || reg->__resv[0] || reg->__resv[1] || reg->__resv[2] ||
	    reg->offsets.__resv2 || reg->offsets.__resv[0] || reg->offsets.__resv[1])
		return -EINVAL;
	if (reg->if_rxq == UINT32_MAX || !reg->rq_entries)
		return -EINVAL;
	entries = reg->rq_entries;
	if (entries > ZN_ZCRX_MAX_RQ_ENTRIES) {
		if (!(zn_uring_flags(r) & IORING_SETUP_CLAMP))
			return -EINVAL;
		entries = ZN_ZCRX_MAX_RQ_ENTRIES;
	}
	entries = (uint32_t)zn_roundup_pow2(entries);
	if (reg->rx_buf_len && (!zn_is_pow2(reg->rx_buf_len) || reg->rx_buf_len < ZCRX_PAGE))
		return -EINVAL;
	if (reg->rx_buf_len && reg->rx_buf_len != ZN_ZCRX_BUF_SIZE) {
		ZN_ERR(ZCRX_LOG, "rx_buf_len %u: zcnic's buffers are the netdev's payload "
		       "buffers of %u bytes; pass 0 or %u", reg->rx_buf_len, ZN_ZCRX_BUF_SIZE,
		       ZN_ZCRX_BUF_SIZE);
		return -EOPNOTSUPP;
	}
	if (ar.rq_area_token)
		return -EINVAL;
	rc = check_region(&rd, ZN_ZCRX_RQ_RQES_OFF + (uint64_t)entries * sizeof(struct io_uring_zcrx_rqe));
	if (rc)
		return rc;
	dev = zn_netdev_by_ifindex((int)reg->if_idx);
	if (!dev || reg->if_idx > INT32_MAX)
		return -ENODEV;
	if (!zn_netdev_polls_rxq(dev, reg->if_rxq))
		return -EINVAL;
	if (queue_taken(dev, (uint16_t)reg->if_rxq))
		return -EBUSY;
	rc = check_area(&ar);
	if (rc)
		return rc;

	rctx = ring_ctx(r, true);
	if (!rctx)
		return -ENOMEM;
	ifq = calloc(1, sizeof(*ifq));
	if (!ifq)
		return -ENOMEM;
	ifq->ring = r;
	ifq->rctx = rctx;
	ifq->dev = dev;
	ifq->rxq = (uint16_t)reg->if_rxq;
	ifq->close_id = -1;
	rc = area_import(ifq, &ar);
	if (rc)
		goto err_free;
	if (!(rd.flags & IORING_MEM_REGION_TYPE_USER)) {
		rd.mmap_offset = zn_zcrx_region_off(rctx->next_id);
		rc = zn_zcrx_region_alloc(ifq, rd.size, rd.mmap_offset);
		if (rc)
			goto err_area;
		rd.user_addr = (uintptr_t)ifq->rq_mem;
	}
	zn_zcrx_rq_init(&ifq->rq, (void *)(uintptr_t)rd.user_addr, entries);
	ifq->prov = (struct zn_buf_provider){
		.buf_size = ZN_ZCRX_BUF_SIZE, .alloc = prov_alloc, .put = prov_put,
		.va = prov_va, .ctx = ifq,
	};
	ifq->prov.detached = prov_detached;
	rc = zn_netdev_on_close(dev, ifq_dev_close, ifq);
	if (rc < 0)
		goto err_area;
	ifq->close_id = rc;
	ifq->refs = 1;			/* registration */
	ifq->registered = true;
	ifq->id = rctx->next_id;
	pthread_mutex_lock(&g_lock);
	ifq->gnext = g_ifqs;
	g_ifqs = ifq;
	pthread_mutex_unlock(&g_lock);
	rc = zn_port_rxq_set_provider(zn_netdev_port(dev), ifq->rxq, &ifq->prov);
	if (rc < 0) {
		ZN_ERR(ZCRX_LOG, "ifq: rx queue %u of netdev %u would not take the area: %s",
		       ifq->rxq, reg->if_idx, strerror(-rc));
		pthread_mutex_lock(&g_lock);
		g_pending++;		/* ifq_free's bookkeeping expects a torn-down ifq */
		ifq->registered = false;
		pthread_mutex_unlock(&g_lock);
		zn_zcrx_ifq_put(ifq);
		return rc;
	}
	ifq->attached = true;
	ifq->refs++;			/* until detached */
	room_watch(ifq, true);
	rctx->next_id++;
	ifq->next = rctx->ifqs;
	rctx->ifqs = ifq;

	reg->rq_entries = entries;
	reg->zcrx_id = ifq->id;
	reg->rx_buf_len = ZN_ZCRX_BUF_SIZE;
	reg->offsets.head = ZN_ZCRX_RQ_HEAD_OFF;
	reg->offsets.tail = ZN_ZCRX_RQ_TAIL_OFF;
	reg->offsets.rqes = ZN_ZCRX_RQ_RQES_OFF;
	((struct io_uring_zcrx_area_reg *)(uintptr_t)reg->area_ptr)->rq_area_token =
		(uint64_t)0 << IORING_ZCRX_AREA_SHIFT;
	if (ifq->rq_mem)	/* where the program maps it: the ring handle at this offset */
		((struct io_uring_region_desc *)(uintptr_t)reg->region_ptr)->mmap_offset =
			ifq->rq_off;
	ZN_INFO(ZCRX_LOG, "ifq %u: netdev %u rx queue %u, area %p+%llu (%u buffers), "
		"refill ring %u entries", ifq->id, reg->if_idx, ifq->rxq, ifq->area.base,
		(unsigned long long)ifq->area.len, ifq->area.nbufs, entries);
	return 0;

err_area:
	zn_zcrx_region_free(ifq);
	zn_netdev_dma_unmap(dev, ifq->region);
	if (ifq->region_owned)
		zn_dma_region_free(ifq->region);
	zn_zcrx_area_fini(&ifq->area);
err_free:
	free(ifq);
	return rc;
}

struct zn_zcrx_area *zn_zcrx_ifq_area(struct zn_zcrx_ifq *ifq)
{
	return &ifq->area;
}

uint16_t zn_zcrx_ifq_rxq(const struct zn_zcrx_ifq *ifq)
{
	return ifq->rxq;
}

struct zn_netdev *zn_zcrx_ifq_dev(const struct zn_zcrx_ifq *ifq)
{
	return ifq->dev;
}

uint32_t zn_zcrx_ifq_id(const struct zn_zcrx_ifq *ifq)
{
	return ifq->id;
}

void zn_zcrx_ifq_hold(struct zn_zcrx_ifq *ifq)
{
	ifq->refs++;
}

int zn_zcrx_region_fd(struct zn_uring *r, uint64_t off, uint64_t len)
{
	struct zn_zcrx_ring *rctx = ring_ctx(r, false);

	for (struct zn_zcrx_ifq *q = rctx ? rctx->ifqs : NULL; q; q = q->next)
		if (q->rq_mem && q->rq_off == off)
			return len && len <= q->rq_len ? q->rq_fd : -EINVAL;
	return -EINVAL;
}
