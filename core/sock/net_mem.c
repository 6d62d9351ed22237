/* SPDX-License-Identifier: MIT */
/*
 * Memory the send ops hand to the NIC, and the ring-side state they keep.
 *
 * Per netdev (struct net_dev): a pool of bounce buffers in one DMA region
 * mapped to the netdev, for payloads the device cannot reach (plain
 * application memory) and for SEND, which must copy (its buffer is the
 * application's again at the CQE). Made on first use; freed when the netdev
 * closes and the last socket let go of it (reference counted: sockets
 * close during the same netdev close, before or after our closer runs).
 *
 * Per ring (struct net_ring):
 *  - registered buffers made DMA-reachable, per (buffer index, netdev), on
 *    first use: the page-rounded range is adopted into a zn region
 *    (zn_mem_adopt) and mapped to the netdev. A mapping lives while cached
 *    (until unregister, ring exit or netdev close) and while frames that
 *    use it are in flight: the NIC may still read after an unregister, as
 *    the kernel keeps pages pinned for its notifications.
 *  - notifications of failed sends, posted by a poll hook after the core
 *    posted their result CQE.
 * Plain (unregistered) application memory is never adopted per send: that
 * would remap the application's pages on its hot path and race with its
 * own use of them. It is copied, and REPORT_USAGE says so.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "core/sock/net_ops.h"
#include "zcnic/log.h"

#define NET_LOG			"uring-net"
#define BOUNCE_BUFS		1024	/* per netdev: sends in flight that copied */
#define BOUNCE_ALIGN		64

struct net_dev {
	struct zn_netdev *dev;
	int close_id;
	uint32_t refs;			/* 1 while the netdev is open + users */
	bool closed;
	struct zn_dma_region *r;	/* bounce pool, made on first copy */
	struct zn_pool *pool;
	uint32_t buf_size;
	bool pool_failed;
	struct net_fixmap *maps;	/* cached registered-buffer mappings on it */
	struct net_dev *next;
};

struct net_fixmap {
	struct net_ring *nr;		/* NULL once out of the ring's cache */
	unsigned idx;
	uintptr_t base;			/* the registered iovec it was made for */
	size_t len;
	struct net_dev *nd;
	struct zn_dma_region *region;
	bool adopted, mapped, ok;
	uint32_t refs;			/* 1 while cached + frames in flight */
	struct net_fixmap *ring_next, *dev_next;
};

struct net_notif {
	uint64_t user_data;
	int32_t res;
};

struct net_ring {
	struct zn_uring *r;
	int exit_id, hook_id;
	struct net_fixmap *maps;
	struct net_notif *defer;
	uint32_t ndefer, cap;
	struct net_ring *next;
};

static __thread struct net_dev *net_devs;
static __thread struct net_ring *net_rings;

/* ---- per netdev ---------------------------------------------------------- */

static void fixmap_uncache(struct net_fixmap *fm);

static void net_dev_free(struct net_dev *nd)
{
	struct net_dev **pp;

	if (nd->pool)
		zn_pool_destroy(nd->pool);
	if (nd->r) {
		zn_netdev_dma_unmap(nd->dev, nd->r);
		zn_dma_region_free(nd->r);
	}
	if (!nd->closed)
		zn_netdev_on_close_del(nd->dev, nd->close_id);
	for (pp = &net_devs; *pp; pp = &(*pp)->next)
		if (*pp == nd) {
			*pp = nd->next;
			break;
		}
	free(nd);
}

void zn_net_dev_put(struct net_dev *nd)
{
	if (nd && !--nd->refs)
		net_dev_free(nd);
}

/* The netdev closes: drop its cached mappings; what sockets still hold
 * goes when they let go (during this same close). */
static void net_dev_close(void *arg, struct zn_netdev *d)
{
	struct net_dev *nd = arg;

	(void)d;
	nd->closed = true;
	while (nd->maps)
		fixmap_uncache(nd->maps);
	zn_net_dev_put(nd);
}

struct net_dev *zn_net_dev_get(struct zn_netdev *dev)
{
	struct net_dev *nd;
	int rc;

	for (nd = net_devs; nd; nd = nd->next)
		if (nd->dev == dev && !nd->closed) {
			nd->refs++;
			return nd;
		}
	nd = calloc(1, sizeof(*nd));
	if (!nd)
		return NULL;
	nd->dev = dev;
	rc = zn_netdev_on_close(dev, net_dev_close, nd);
	if (rc < 0) {
		ZN_ERR(NET_LOG, "netdev %d: no room for one more close callback (%s)",
		       zn_netdev_ifindex(dev), strerror(-rc));
		free(nd);
		return NULL;
	}
	nd->close_id = rc;
	nd->refs = 2;	/* the open netdev's and the caller's */
	nd->next = net_devs;
	net_devs = nd;
	return nd;
}

static int bounce_pool_make(struct net_dev *nd)
{
	const struct zn_netdev_conf *c = zn_netdev_conf(nd->dev);
	uint32_t payload = c->mtu - ZN_IPV4_HLEN - ZN_UDP_HLEN;
	size_t bsz = (payload + BOUNCE_ALIGN - 1) & ~(size_t)(BOUNCE_ALIGN - 1);
	int rc;

	rc = zn_dma_region_alloc("uring-bounce", bsz * BOUNCE_BUFS, -1, 0, &nd->r);
	if (rc < 0)
		goto err;
	rc = zn_netdev_dma_map(nd->dev, nd->r);
	if (rc < 0)
		goto err_region;
	rc = zn_pool_create(nd->r, 0, bsz, BOUNCE_BUFS, &nd->pool);
	if (rc < 0)
		goto err_map;
	nd->buf_size = payload;
	return 0;

err_map:
	zn_netdev_dma_unmap(nd->dev, nd->r);
err_region:
	zn_dma_region_free(nd->r);
	nd->r = NULL;
err:
	ZN_ERR(NET_LOG, "netdev %d: no bounce buffers for sends that copy (%s); "
	       "such sends fail with -ENOMEM", zn_netdev_ifindex(nd->dev), strerror(-rc));
	nd->pool_failed = true;
	return -ENOMEM;
}

int zn_net_bounce_get(struct net_dev *nd, uint32_t len, void **va, uint64_t *iova)
{
	void *b;

	if (!nd->pool && (nd->pool_failed || bounce_pool_make(nd) < 0))
		return -ENOMEM;
	if (len > nd->buf_size)
		return -EMSGSIZE;
	b = zn_pool_get(nd->pool);
	if (!b)
		return -EAGAIN;
	*va = b;
	*iova = nd->r->iova + (uint64_t)((uint8_t *)b - (uint8_t *)nd->r->va);
	return 0;
}

uint32_t zn_net_bounce_size(struct net_dev *nd)
{
	if (!nd->pool && !nd->pool_failed)
		bounce_pool_make(nd);
	return nd->buf_size;
}

void zn_net_bounce_put(struct net_dev *nd, void *va)
{
	if (nd->pool && va)
		zn_pool_put(nd->pool, va);
}

/* ---- per ring: registered buffers --------------------------------------- */

static void fixmap_free(struct net_fixmap *fm)
{
	if (fm->mapped)
		zn_netdev_dma_unmap(fm->nd->dev, fm->region);
	if (fm->adopted)
		zn_dma_region_free(fm->region);	/* forgets it; the pages stay the app's */
	zn_net_dev_put(fm->nd);
	free(fm);
}

void zn_net_fixmap_put(struct net_fixmap *fm)
{
	if (fm && !--fm->refs)
		fixmap_free(fm);
}

static void fixmap_uncache(struct net_fixmap *fm)
{
	struct net_fixmap **pp;

	if (fm->nr) {
		for (pp = &fm->nr->maps; *pp; pp = &(*pp)->ring_next)
			if (*pp == fm) {
				*pp = fm->ring_next;
				break;
			}
		fm->nr = NULL;
	}
	for (pp = &fm->nd->maps; *pp; pp = &(*pp)->dev_next)
		if (*pp == fm) {
			*pp = fm->dev_next;
			break;
		}
	zn_net_fixmap_put(fm);
}

static struct net_ring *net_ring_find(struct zn_uring *r)
{
	struct net_ring *nr;

	for (nr = net_rings; nr; nr = nr->next)
		if (nr->r == r)
			return nr;
	return NULL;
}

static void net_ring_uncache_all(struct net_ring *nr)
{
	while (nr->maps)
		fixmap_uncache(nr->maps);
}

/* io_uring_unregister_buffers: mappings go (once their frames are done). */
void zn_sock_bufs_unregistering(struct zn_uring *r)
{
	struct net_ring *nr = net_ring_find(r);

	if (nr)
		net_ring_uncache_all(nr);
}

static void net_ring_exit(struct zn_uring *r, void *arg)
{
	struct net_ring *nr = arg, **pp;

	(void)r;
	net_ring_uncache_all(nr);
	for (pp = &net_rings; *pp; pp = &(*pp)->next)
		if (*pp == nr) {
			*pp = nr->next;
			break;
		}
	free(nr->defer);	/* the ring is gone: nobody to tell */
	free(nr);
}

static int net_ring_hook(struct zn_uring *r, void *arg)
{
	struct net_ring *nr = arg;
	uint32_t n = nr->ndefer;

	for (uint32_t i = 0; i < n; i++)
		zn_uring_post_cqe(r, nr->defer[i].user_data, nr->defer[i].res,
				  IORING_CQE_F_NOTIF, NULL, 0);
	nr->ndefer = 0;
	return (int)n;
}

static struct net_ring *net_ring_get(struct zn_uring *r)
{
	struct net_ring *nr = net_ring_find(r);

	if (nr)
		return nr;
	nr = calloc(1, sizeof(*nr));
	if (!nr)
		return NULL;
	nr->r = r;
	nr->hook_id = -1;
	nr->exit_id = zn_uring_on_exit(r, net_ring_exit, nr);
	if (nr->exit_id < 0) {
		ZN_ERR(NET_LOG, "ring %d: no room for one more exit callback", zn_uring_handle(r));
		free(nr);
		return NULL;
	}
	nr->next = net_rings;
	net_rings = nr;
	return nr;
}

/* Make registered buffer idx reachable by dev; fm->ok says if it worked. */
static struct net_fixmap *fixmap_make(struct net_ring *nr, unsigned idx, struct zn_netdev *dev)
{
	const struct iovec *iov = zn_uring_buf(nr->r, idx);
	uintptr_t base = (uintptr_t)iov->iov_base;
	uintptr_t lo = base & ~(uintptr_t)(ZN_PAGE_4K - 1);
	uintptr_t hi = (base + iov->iov_len + ZN_PAGE_4K - 1) & ~(uintptr_t)(ZN_PAGE_4K - 1);
	struct net_fixmap *fm;
	int rc = -EOPNOTSUPP;

	fm = calloc(1, sizeof(*fm));
	if (!fm)
		return NULL;
	fm->nd = zn_net_dev_get(dev);
	if (!fm->nd) {
		free(fm);
		return NULL;
	}
	fm->idx = idx;
	fm->base = base;
	fm->len = iov->iov_len;
	/* already DMA memory (a zn region): nothing to adopt */
	fm->region = hi > lo ? zn_mem_find((void *)lo) : NULL;
	if (fm->region && hi <= (uintptr_t)fm->region->va + fm->region->len)
		rc = 1;
	else if (hi > lo)
		rc = zn_mem_adopt((void *)lo, hi - lo, &fm->region);
	if (rc >= 0) {
		fm->adopted = rc == 0;
		rc = zn_netdev_dma_map(dev, fm->region);
		fm->mapped = rc == 0;
	}
	fm->ok = rc == 0;
	if (!fm->ok)
		ZN_INFO(NET_LOG, "ring %d: registered buffer %u (%zu bytes) cannot be made "
			"DMA-reachable for netdev %d (%s): sends from it are copied",
			zn_uring_handle(nr->r), idx, fm->len, zn_netdev_ifindex(dev), strerror(-rc));
	fm->refs = 1;
	fm->nr = nr;
	fm->ring_next = nr->maps;
	nr->maps = fm;
	fm->dev_next = fm->nd->maps;
	fm->nd->maps = fm;
	return fm;
}

int zn_net_fixmap_get(struct zn_uring *r, unsigned idx, struct zn_netdev *dev, uint64_t addr,
		      uint32_t len, uint64_t *iova, struct net_fixmap **out)
{
	struct net_ring *nr;
	struct net_fixmap *fm;
	const struct iovec *iov;

	(void)len;	/* checked against the buffer by the caller */
	iov = zn_uring_buf(r, idx);
	if (!iov)
		return 0;
	nr = net_ring_get(r);
	if (!nr)
		return 0;
	for (fm = nr->maps; fm; fm = fm->ring_next)
		if (fm->idx == idx && fm->nd->dev == dev)
			break;
	if (fm && (fm->base != (uintptr_t)iov->iov_base || fm->len != iov->iov_len)) {
		fixmap_uncache(fm);	/* made for an earlier registration */
		fm = NULL;
	}
	if (!fm)
		fm = fixmap_make(nr, idx, dev);
	if (!fm || !fm->ok)
		return 0;
	*iova = fm->region->iova + (addr - (uintptr_t)fm->region->va);
	fm->refs++;
	*out = fm;
	return 1;
}

int zn_net_notif_defer(struct zn_uring *r, uint64_t user_data, int32_t res)
{
	struct net_ring *nr = net_ring_get(r);

	if (!nr)
		return -ENOMEM;
	if (nr->hook_id < 0) {
		nr->hook_id = zn_uring_hook_add(r, net_ring_hook, nr, 0);
		if (nr->hook_id < 0) {
			ZN_ERR(NET_LOG, "ring %d: no poll hook slot for send notifications",
			       zn_uring_handle(r));
			return -ENOMEM;
		}
	}
	if (nr->ndefer == nr->cap) {
		uint32_t cap = nr->cap ? 2 * nr->cap : 16;
		struct net_notif *n = realloc(nr->defer, cap * sizeof(*n));

		if (!n)
			return -ENOMEM;
		nr->defer = n;
		nr->cap = cap;
	}
	nr->defer[nr->ndefer++] = (struct net_notif){ user_data, res };
	return 0;
}
