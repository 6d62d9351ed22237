/* SPDX-License-Identifier: MIT */
/*
 * Helpers for the test programs that drive two ports on one wire through
 * include/zcnic/port.h only (bnxt_cycles, bnxt_steer): bring a port up with
 * our own payload buffers, send a frame, receive frames reassembled from the
 * header buffer and the payload segments, build IPv4/IPv6 test frames.
 * Header-only (static inline), like prog_tap.h.
 */
#ifndef ZN_TEST_BNXT_PAIR_H
#define ZN_TEST_BNXT_PAIR_H

#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#include "tests/progs/prog_tap.h"
#include "zcnic/mem.h"
#include "zcnic/port.h"

#define PT_MAX_Q	8
#define PT_BUF_SIZE	2048
#define PT_TX_BUFS	512
#define PT_RX_BUFS	2048	/* per RX queue */
#define PT_FRAME_MAX	9216
#define PT_BURST	32

struct pt_port;

struct pt_rxq {
	struct pt_port *pp;
	uint16_t q;
	struct zn_pool *pool;
	struct zn_buf_provider prov;
};

struct pt_port {
	struct zn_port *p;
	struct zn_port_info info;
	uint16_t nrxq, ntxq;
	struct zn_dma_region *r;
	bool mapped, stopped;
	bool own;		/* our pools are the providers (else core/port's) */
	struct zn_pool *tx;
	struct pt_rxq rxq[PT_MAX_Q];
	uint64_t bad_segs, bad_cookies;
};

struct pt_conf {
	uint16_t nrxq, ntxq;
	uint32_t mtu;		/* 0: the driver's default */
	uint32_t ring_size;	/* 0: the driver's default */
	uint32_t hds_thresh;
	bool own_payload;	/* true: our pools as providers; false: the driver's */
};

static inline uint32_t pt_provide(void *ctx, struct zn_buf *bufs, uint32_t n)
{
	struct pt_rxq *rq = ctx;
	uint32_t i;

	for (i = 0; i < n; i++) {
		uint8_t *b = zn_pool_get(rq->pool);
		uint32_t idx;

		if (!b)
			break;
		zn_pool_index(rq->pool, b, &idx);
		bufs[i].va = b;
		bufs[i].iova = rq->pp->r->iova + (uint64_t)(b - (uint8_t *)rq->pp->r->va);
		bufs[i].id = idx;
	}
	return i;
}

static inline void pt_put(void *ctx, const uint32_t *ids, uint32_t n)
{
	struct pt_rxq *rq = ctx;

	for (uint32_t i = 0; i < n; i++)
		if (ids[i] >= PT_RX_BUFS || zn_pool_put(rq->pool, zn_pool_buf(rq->pool, ids[i])))
			rq->pp->bad_segs++;
}

/* Every step logs one diagnostic when it fails; returns 0 or a negative errno. */
static inline int pt_open(struct pt_port *pp, const char *dev, const struct pt_conf *c)
{
	struct zn_port_conf pc = { .nb_rxq = c->nrxq, .nb_txq = c->ntxq, .mtu = c->mtu };
	size_t tx_len = (size_t)PT_TX_BUFS * PT_FRAME_MAX;
	size_t rx_len = (size_t)PT_RX_BUFS * PT_BUF_SIZE;
	int rc;

	memset(pp, 0, sizeof(*pp));
	pp->nrxq = c->nrxq;
	pp->ntxq = c->ntxq;
	pp->own = c->own_payload;
	if (c->nrxq > PT_MAX_Q)
		return -EINVAL;
	rc = zn_port_open(dev, NULL, &pp->p);
	if (rc) {
		tap_diag("zn_port_open %s: %s", dev, strerror(-rc));
		return rc;
	}
	zn_port_info(pp->p, &pp->info);
	rc = zn_dma_region_alloc("pt", tx_len + rx_len * c->nrxq, -1, 0, &pp->r);
	if (rc)
		return rc;
	rc = zn_pool_create(pp->r, 0, PT_FRAME_MAX, PT_TX_BUFS, &pp->tx);
	for (uint16_t q = 0; !rc && q < c->nrxq; q++) {
		struct pt_rxq *rq = &pp->rxq[q];

		rq->pp = pp;
		rq->q = q;
		rc = zn_pool_create(pp->r, tx_len + q * rx_len, PT_BUF_SIZE, PT_RX_BUFS, &rq->pool);
		rq->prov = (struct zn_buf_provider){ .buf_size = PT_BUF_SIZE, .alloc = pt_provide,
						     .put = pt_put, .ctx = rq };
	}
	if (rc)
		return rc;
	rc = zn_port_configure(pp->p, &pc);
	if (rc) {
		tap_diag("%s: configure %u/%u queues: %s", dev, c->nrxq, c->ntxq, strerror(-rc));
		return rc;
	}
	rc = zn_bus_dma_map(pp->p->bus, pp->r);
	if (rc && rc != -EEXIST) {
		tap_diag("%s: dma_map: %s", dev, strerror(-rc));
		return rc;
	}
	pp->mapped = rc == 0;
	for (uint16_t q = 0; q < c->nrxq; q++) {
		struct zn_rxq_conf rc_ = { .ring_size = c->ring_size, .hds_thresh = c->hds_thresh,
					   .numa_node = -1,
					   .payload = c->own_payload ? &pp->rxq[q].prov : NULL };

		rc = zn_port_rxq_setup(pp->p, q, &rc_);
		if (rc) {
			tap_diag("%s: rxq %u setup: %s", dev, q, strerror(-rc));
			return rc;
		}
	}
	for (uint16_t q = 0; q < c->ntxq; q++) {
		struct zn_txq_conf tc = { .ring_size = c->ring_size, .numa_node = -1 };

		rc = zn_port_txq_setup(pp->p, q, &tc);
		if (rc) {
			tap_diag("%s: txq %u setup: %s", dev, q, strerror(-rc));
			return rc;
		}
	}
	rc = zn_port_start(pp->p);
	if (rc)
		tap_diag("%s: start: %s", dev, strerror(-rc));
	return rc;
}

/*
 * Stops the port; returns how many of our payload buffers the driver still
 * holds (none may stay: port.h, ownership).
 */
static inline uint32_t pt_stop(struct pt_port *pp)
{
	uint32_t missing = 0;

	if (!pp->p || pp->stopped)
		return 0;
	zn_port_stop(pp->p);
	pp->stopped = true;
	for (uint16_t q = 0; q < PT_MAX_Q; q++)
		if (pp->rxq[q].pool)
			missing += zn_pool_count(pp->rxq[q].pool) - zn_pool_avail(pp->rxq[q].pool);
	return missing;
}

static inline void pt_close(struct pt_port *pp)
{
	if (pp->p) {
		if (!pp->stopped)
			zn_port_stop(pp->p);
		if (pp->mapped)
			zn_bus_dma_unmap(pp->p->bus, pp->r);
		zn_port_close(pp->p);
	}
	for (uint16_t q = 0; q < PT_MAX_Q; q++)
		if (pp->rxq[q].pool)
			zn_pool_destroy(pp->rxq[q].pool);
	if (pp->tx)
		zn_pool_destroy(pp->tx);
	if (pp->r)
		zn_dma_region_free(pp->r);
	memset(pp, 0, sizeof(*pp));
}

static inline void pt_reap(struct pt_port *pp)
{
	uint64_t cookies[PT_BURST];

	for (uint16_t q = 0; q < pp->ntxq; q++) {
		uint32_t n;

		while ((n = zn_port_tx_reap(pp->p, q, cookies, PT_BURST)) > 0)
			for (uint32_t i = 0; i < n; i++)
				if (cookies[i] >= PT_TX_BUFS ||
				    zn_pool_put(pp->tx, zn_pool_buf(pp->tx, (uint32_t)cookies[i])))
					pp->bad_cookies++;
	}
}

/* Sends one frame (copied into a TX buffer) on queue q; -EAGAIN if the ring
 * or the buffers are full for longer than a second. */
static inline int pt_send(struct pt_port *pp, uint16_t q, const void *frame, uint32_t len)
{
	uint64_t deadline = zn_now_ms() + 1000;
	struct zn_tx_pkt pkt = { .nseg = 1 };
	uint8_t *b;
	uint32_t idx;

	while (!(b = zn_pool_get(pp->tx))) {
		pt_reap(pp);
		if (zn_now_ms() > deadline)
			return -EAGAIN;
	}
	memcpy(b, frame, len);
	zn_pool_index(pp->tx, b, &idx);
	pkt.seg[0].iova = pp->r->iova + (uint64_t)(b - (uint8_t *)pp->r->va);
	pkt.seg[0].len = len;
	pkt.cookie = idx;
	while (zn_port_tx_burst(pp->p, q, &pkt, 1) != 1) {
		pt_reap(pp);
		if (zn_now_ms() > deadline) {
			zn_pool_put(pp->tx, b);
			return -EAGAIN;
		}
	}
	return 0;
}

/* A received frame, reassembled. */
typedef void (*pt_rx_fn)(void *arg, uint16_t q, const struct zn_rx_pkt *pkt,
			 const uint8_t *frame, uint32_t len);

/* The bytes of a payload segment, or NULL if its buffer id is out of range. */
static inline const uint8_t *pt_seg_va(struct pt_port *pp, uint16_t q, uint32_t id)
{
	if (!pp->own)
		return zn_port_rx_payload(pp->p, q, id);
	return id < PT_RX_BUFS ? zn_pool_buf(pp->rxq[q].pool, id) : NULL;
}

static inline void pt_seg_put(struct pt_port *pp, uint16_t q, uint32_t id)
{
	if (!pp->own)
		zn_port_rx_buf_put(pp->p, q, &id, 1);
	else if (id >= PT_RX_BUFS || zn_pool_put(pp->rxq[q].pool, zn_pool_buf(pp->rxq[q].pool, id)))
		pp->bad_segs++;
}

/* One RX burst on every queue; payload buffers go back to their owner. */
static inline uint32_t pt_rx(struct pt_port *pp, pt_rx_fn fn, void *arg)
{
	static uint8_t frame[PT_FRAME_MAX];
	struct zn_rx_pkt pkts[PT_BURST];
	uint32_t total = 0;

	for (uint16_t q = 0; q < pp->nrxq; q++) {
		uint32_t n = zn_port_rx_burst(pp->p, q, pkts, PT_BURST);

		for (uint32_t i = 0; i < n; i++) {
			const struct zn_rx_pkt *k = &pkts[i];
			uint32_t len = 0;
			bool ok = k->hdr_len <= PT_FRAME_MAX && k->nseg <= ZN_RX_MAX_SEGS;

			if (ok) {
				memcpy(frame, k->hdr, k->hdr_len);
				len = k->hdr_len;
			}
			for (uint32_t s = 0; ok && s < k->nseg; s++) {
				const uint8_t *va = pt_seg_va(pp, q, k->seg[s].buf_id);

				if (!va || k->seg[s].off + (uint64_t)k->seg[s].len > PT_BUF_SIZE ||
				    len + k->seg[s].len > PT_FRAME_MAX) {
					ok = false;
					break;
				}
				memcpy(frame + len, va + k->seg[s].off, k->seg[s].len);
				len += k->seg[s].len;
			}
			if (!ok || len != k->pkt_len)
				pp->bad_segs++;
			else
				fn(arg, q, k, frame, len);
			for (uint32_t s = 0; s < k->nseg && s < ZN_RX_MAX_SEGS; s++)
				pt_seg_put(pp, q, k->seg[s].buf_id);
		}
		total += n;
	}
	return total;
}

/* Receives until `want` frames arrived or timeout_ms passed; returns the count. */
static inline uint32_t pt_rx_wait(struct pt_port *pp, uint32_t want, uint32_t timeout_ms,
				  pt_rx_fn fn, void *arg)
{
	uint64_t deadline = zn_now_ms() + timeout_ms;
	uint32_t got = 0;

	while (got < want && zn_now_ms() < deadline)
		got += pt_rx(pp, fn, arg);
	return got;
}

/* ---- frames ---- */

struct pt_flow {
	uint8_t ipv;		/* 4 or 6 */
	uint8_t proto;		/* 6 TCP, 17 UDP, anything else: no ports */
	uint8_t src[16], dst[16];
	uint16_t sport, dport;
};

static inline uint32_t pt_csum_add(uint32_t sum, const uint8_t *p, size_t len)
{
	for (size_t i = 0; i + 1 < len; i += 2)
		sum += (uint32_t)p[i] << 8 | p[i + 1];
	if (len & 1)
		sum += (uint32_t)p[len - 1] << 8;
	return sum;
}

static inline uint16_t pt_csum_fold(uint32_t sum)
{
	while (sum >> 16)
		sum = (sum & 0xffff) + (sum >> 16);
	return (uint16_t)~sum;
}

static inline void pt_put16(uint8_t *p, uint32_t v)
{
	p[0] = (uint8_t)(v >> 8);
	p[1] = (uint8_t)v;
}

static inline bool pt_has_ports(const struct pt_flow *f)
{
	return f->proto == 6 || f->proto == 17;
}

/*
 * An Ethernet frame of len bytes (at least 14 + IP header + L4 header + 8)
 * of flow f; its last 8 bytes carry tag (little-endian) for the receiver.
 * Checksums are valid. Returns len, or 0 if len is too short.
 */
static inline uint32_t pt_build(uint8_t *b, uint32_t len, const uint8_t dmac[6],
				const uint8_t smac[6], const struct pt_flow *f, uint64_t tag)
{
	uint32_t iph = f->ipv == 4 ? 20 : 40;
	uint32_t l4h = f->proto == 6 ? 20 : f->proto == 17 ? 8 : 0;
	uint32_t l4len = len - 14 - iph;
	uint8_t *ip = b + 14, *l4 = ip + iph;
	uint32_t sum;

	if (len < 14 + iph + l4h + 8 || len > PT_FRAME_MAX)
		return 0;
	memset(b, 0, len);
	memcpy(b, dmac, 6);
	memcpy(b + 6, smac, 6);
	pt_put16(b + 12, f->ipv == 4 ? 0x0800 : 0x86dd);
	for (uint32_t i = 14 + iph + l4h; i < len - 8; i++)
		b[i] = (uint8_t)(i * 13 + tag);
	for (int i = 0; i < 8; i++)
		b[len - 8 + i] = (uint8_t)(tag >> (8 * i));
	if (f->ipv == 4) {
		ip[0] = 0x45;
		pt_put16(ip + 2, len - 14);
		pt_put16(ip + 6, 0x4000);
		ip[8] = 64;
		ip[9] = f->proto;
		memcpy(ip + 12, f->src, 4);
		memcpy(ip + 16, f->dst, 4);
		pt_put16(ip + 10, pt_csum_fold(pt_csum_add(0, ip, 20)));
	} else {
		ip[0] = 0x60;
		pt_put16(ip + 4, l4len);
		ip[6] = f->proto;
		ip[7] = 64;
		memcpy(ip + 8, f->src, 16);
		memcpy(ip + 24, f->dst, 16);
	}
	if (!l4h)
		return len;
	pt_put16(l4, f->sport);
	pt_put16(l4 + 2, f->dport);
	if (f->proto == 17) {
		pt_put16(l4 + 4, l4len);
	} else {
		l4[12] = 0x50;		/* data offset 5 words */
		l4[13] = 0x18;		/* PSH ACK */
		pt_put16(l4 + 14, 0xffff);
	}
	/* pseudo header: addresses, protocol, L4 length */
	sum = pt_csum_add(0, f->ipv == 4 ? ip + 12 : ip + 8, f->ipv == 4 ? 8 : 32);
	sum += f->proto + l4len;
	sum = pt_csum_add(sum, l4, l4len);
	pt_put16(l4 + (f->proto == 17 ? 6 : 16), pt_csum_fold(sum) ? pt_csum_fold(sum) : 0xffff);
	return len;
}

static inline uint64_t pt_tag(const uint8_t *frame, uint32_t len)
{
	uint64_t t = 0;

	for (int i = 7; i >= 0; i--)
		t = t << 8 | frame[len - 8 + i];
	return t;
}

#endif
