/*
 * core/net netif and UDP endpoints end to end, in process: two bnxt models
 * of zn-nicsim on a pair wire; port A carries the netif (10.1.0.2/24), port
 * B is a raw peer (10.1.0.1) that sends hand-built frames and checks what
 * comes back byte for byte. Covers ARP both ways (answer, learn, resolve
 * with queued frames, give up after retries), ICMP echo, UDP delivery with
 * n-tuple steering, zero-copy descriptors and buffer ownership (a counting
 * provider), the copy fallback for payloads left in the header buffer,
 * drops counted per reason, a full receive list, send completions.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <cmocka.h>

#include "base/clock.h"
#include "core/net/arp_cache.h"
#include "core/net/netif.h"
#include "tests/unit/support/bnxt_test_client.h"
#include "zcnic/log.h"
#include "zcnic/mem.h"
#include "zcnic/net.h"
#include "zcnic/port.h"

#define WAIT_NS		(3ull * 1000000000ull)
#define BUF		2048
#define NPROV		1024
#define PEER_MEM	(1u << 20)
#define EP_PORT		7000
#define PEER_PORT	9000

/* ---- a payload provider that counts who holds what ---- */

struct tprov {
	struct zn_buf_provider p;
	struct zn_dma_region *r;
	uint32_t free[NPROV], nfree;
	uint8_t out[NPROV];
	uint32_t bad_put;
};

static uint32_t tp_alloc(void *ctx, struct zn_buf *b, uint32_t n)
{
	struct tprov *t = ctx;
	uint32_t i;

	for (i = 0; i < n && t->nfree; i++) {
		uint32_t id = t->free[--t->nfree];

		t->out[id] = 1;
		b[i].id = id;
		b[i].va = (uint8_t *)t->r->va + (size_t)id * BUF;
		b[i].iova = t->r->iova + (uint64_t)id * BUF;
	}
	return i;
}

static void tp_put(void *ctx, const uint32_t *ids, uint32_t n)
{
	struct tprov *t = ctx;

	for (uint32_t i = 0; i < n; i++) {
		if (ids[i] >= NPROV || !t->out[ids[i]]) {
			t->bad_put++;
			continue;
		}
		t->out[ids[i]] = 0;
		t->free[t->nfree++] = ids[i];
	}
}

static uint8_t *tp_va(void *ctx, uint32_t id)
{
	struct tprov *t = ctx;

	return id < NPROV ? (uint8_t *)t->r->va + (size_t)id * BUF : NULL;
}

/* ---- fixture ---- */

static struct {
	struct btc_sim sim;
	struct zn_port *a, *b;
	struct zn_port_info ia, ib;
	struct tprov prov;
	struct zn_netif *nif;
	struct zn_dma_region *peer_mem, *a_mem;
	uint64_t clock_off;
	uint32_t ip_a, ip_b;
} F;

static uint64_t test_clock(void *ctx)
{
	(void)ctx;
	return zn_now_ns() + F.clock_off;
}

static int open_port(const char *path, struct zn_port **p, uint16_t nrxq,
		     const struct zn_rxq_conf *rq)
{
	struct zn_bus_open_opts o = { .timeout_ms = 3000 };
	struct zn_port_conf pc = { .nb_rxq = nrxq, .nb_txq = 1, .mtu = 1500 };
	struct zn_txq_conf tq = { .ring_size = 256, .numa_node = -1 };
	char spec[160];
	int rc;

	snprintf(spec, sizeof(spec), "vfio-user:%s", path);
	rc = zn_port_open(spec, &o, p);
	if (rc)
		return rc;
	rc = zn_port_configure(*p, &pc);
	for (uint16_t q = 0; !rc && q < nrxq; q++)
		rc = zn_port_rxq_setup(*p, q, &rq[q]);
	if (!rc)
		rc = zn_port_txq_setup(*p, 0, &tq);
	return rc;
}

static int setup(void **state)
{
	struct zn_rxq_conf rqa[2] = {
		/* queue 0: short frames stay whole in the header buffer */
		{ .ring_size = 64, .hds_thresh = 256, .hdr_buf_size = 256,
		  .payload_buf_size = BUF, .numa_node = -1 },
		/* queue 1: every payload split off, into the counting provider */
		{ .ring_size = 64, .hds_thresh = 0, .hdr_buf_size = 256, .payload = &F.prov.p,
		  .numa_node = -1 },
	};
	struct zn_rxq_conf rqb = { .ring_size = 128, .hds_thresh = 0, .hdr_buf_size = 256,
				   .payload_buf_size = BUF, .numa_node = -1 };
	struct zn_netif_conf nc = { .prefix_len = 24, .nb_rxq = 2, .rxq = { 0, 1 }, .txq = 0,
				    .tx_slots = 256, .sw_csum = true, .clock_ns = test_clock };

	(void)state;
	memset(&F, 0, sizeof(F));
	F.ip_a = inet_addr("10.1.0.2");
	F.ip_b = inet_addr("10.1.0.1");
	if (btc_sim_start(&F.sim, "", "", true))
		return -1;
	if (zn_dma_region_alloc("test-prov", (size_t)NPROV * BUF, -1, ZN_DMA_NO_HUGE, &F.prov.r))
		return -1;
	F.prov.p = (struct zn_buf_provider){ .buf_size = BUF, .alloc = tp_alloc, .put = tp_put,
					     .ctx = &F.prov, .va = tp_va };
	for (uint32_t i = 0; i < NPROV; i++)
		F.prov.free[F.prov.nfree++] = NPROV - 1 - i;
	if (zn_port_open(NULL, NULL, &F.a) != -EINVAL)	/* argument check */
		return -1;
	{
		struct zn_bus_open_opts o = { .timeout_ms = 3000 };
		struct zn_port_conf pc = { .nb_rxq = 2, .nb_txq = 1, .mtu = 1500 };
		struct zn_txq_conf tq = { .ring_size = 256, .numa_node = -1 };
		char spec[160];

		snprintf(spec, sizeof(spec), "vfio-user:%s", F.sim.path[0]);
		if (zn_port_open(spec, &o, &F.a) || zn_port_configure(F.a, &pc))
			return -1;
		/* the provider's memory must be mapped before the queue posts it */
		if (zn_bus_dma_map(F.a->bus, F.prov.r))
			return -1;
		if (zn_port_rxq_setup(F.a, 0, &rqa[0]) || zn_port_rxq_setup(F.a, 1, &rqa[1]) ||
		    zn_port_txq_setup(F.a, 0, &tq) || zn_port_start(F.a))
			return -1;
	}
	if (open_port(F.sim.path[1], &F.b, 1, &rqb) || zn_port_start(F.b))
		return -1;
	zn_port_info(F.a, &F.ia);
	zn_port_info(F.b, &F.ib);
	if (zn_dma_region_alloc("test-peer", PEER_MEM, -1, ZN_DMA_NO_HUGE, &F.peer_mem) ||
	    zn_bus_dma_map(F.b->bus, F.peer_mem))
		return -1;
	if (zn_dma_region_alloc("test-a", PEER_MEM, -1, ZN_DMA_NO_HUGE, &F.a_mem) ||
	    zn_bus_dma_map(F.a->bus, F.a_mem))
		return -1;
	nc.ip = F.ip_a;
	return zn_netif_create(F.a, &nc, &F.nif) ? -1 : 0;
}

static int teardown(void **state)
{
	(void)state;
	zn_netif_destroy(F.nif);
	if (F.a_mem && F.a)
		zn_bus_dma_unmap(F.a->bus, F.a_mem);
	if (F.peer_mem && F.b)
		zn_bus_dma_unmap(F.b->bus, F.peer_mem);
	zn_port_close(F.b);
	zn_port_close(F.a);	/* gives the provider's posted buffers back */
	zn_dma_region_free(F.a_mem);
	zn_dma_region_free(F.peer_mem);
	zn_dma_region_free(F.prov.r);
	btc_sim_stop(&F.sim);
	return 0;
}

/* ---- the peer ---- */

static void peer_send(const uint8_t *frame, uint32_t len)
{
	struct zn_tx_pkt t = { .nseg = 1 };
	uint64_t c, t0 = zn_now_ns();

	memcpy(F.peer_mem->va, frame, len);
	t.seg[0].iova = F.peer_mem->iova;
	t.seg[0].len = len;
	assert_int_equal(zn_port_tx_burst(F.b, 0, &t, 1), 1);
	while (zn_port_tx_reap(F.b, 0, &c, 1) == 0)
		assert_true(zn_now_ns() - t0 < WAIT_NS);
}

/* The next frame the peer receives (gathered), polling the netif meanwhile;
 * 0 if none within ms. */
static uint32_t peer_recv(uint8_t *buf, uint32_t cap, unsigned ms)
{
	uint64_t t0 = zn_now_ns();
	struct zn_rx_pkt p;

	do {
		zn_netif_poll(F.nif);
		if (zn_port_rx_burst(F.b, 0, &p, 1) == 1) {
			uint32_t off = p.hdr_len;

			assert_true(p.pkt_len <= cap);
			memcpy(buf, p.hdr, p.hdr_len);
			for (uint32_t k = 0; k < p.nseg; k++) {
				assert_ptr_equal(p.seg[k].va, zn_port_rx_payload(F.b, 0, p.seg[k].buf_id));
				memcpy(buf + off, zn_port_rx_payload(F.b, 0, p.seg[k].buf_id) +
				       p.seg[k].off, p.seg[k].len);
				off += p.seg[k].len;
				zn_port_rx_buf_put(F.b, 0, &p.seg[k].buf_id, 1);
			}
			return p.pkt_len;
		}
	} while (zn_now_ns() - t0 < (uint64_t)ms * 1000000u);
	return 0;
}

/* Poll the netif until cond or the deadline. */
#define POLL_UNTIL(cond) do { uint64_t t0_ = zn_now_ns();                             \
		while (!(cond) && zn_now_ns() - t0_ < WAIT_NS) zn_netif_poll(F.nif);   \
	} while (0)

static uint32_t udp_to_a(uint8_t *f, uint16_t sport, uint16_t dport, uint32_t len, uint32_t seed)
{
	uint8_t pay[1500];
	struct zn_addr4 s = { F.ip_b, htons(sport) }, d = { F.ip_a, htons(dport) };

	for (uint32_t i = 0; i < len; i++)
		pay[i] = (uint8_t)(seed * 31 + i * 7 + (i >> 8));
	return (uint32_t)zn_udp_frame_build(f, 1600, F.ia.mac, F.ib.mac, &s, &d, pay, len,
					    (uint16_t)seed);
}

static struct zn_netif_stats stats(void)
{
	struct zn_netif_stats st;

	zn_netif_stats(F.nif, &st);
	return st;
}

/* ---- tests ---- */

static void test_arp_answered_and_learnt(void **state)
{
	static const uint8_t bcast[6] = { 0xff, 0xff, 0xff, 0xff, 0xff, 0xff };
	uint8_t f[64], r[1600], mac[6];
	uint32_t n;
	struct zn_netif_stats s0 = stats();

	(void)state;
	assert_int_equal(zn_netif_arp_lookup(F.nif, F.ip_b, mac), -ENOENT);
	zn_arp_build(f, ZN_ARP_OP_REQUEST, bcast, F.ib.mac, F.ip_b, NULL, F.ip_a);
	peer_send(f, 42);
	n = peer_recv(r, sizeof(r), 3000);
	assert_true(n >= 42);
	/* the reply: to the asker, from us, op 2, sender = us, target = asker */
	zn_arp_build(f, ZN_ARP_OP_REPLY, F.ib.mac, F.ia.mac, F.ip_a, F.ib.mac, F.ip_b);
	assert_memory_equal(r, f, 42);
	assert_int_equal(zn_netif_arp_lookup(F.nif, F.ip_b, mac), 0);
	assert_memory_equal(mac, F.ib.mac, 6);
	assert_int_equal(stats().rx[ZN_NET_RX_ARP], s0.rx[ZN_NET_RX_ARP] + 1);
	assert_int_equal(stats().tx_arp_reply, s0.tx_arp_reply + 1);
	/* a request for another address: counted, not answered */
	zn_arp_build(f, ZN_ARP_OP_REQUEST, bcast, F.ib.mac, F.ip_b, NULL, inet_addr("10.1.0.99"));
	peer_send(f, 42);
	assert_int_equal(peer_recv(r, sizeof(r), 200), 0);
	assert_int_equal(stats().rx[ZN_NET_DROP_ARP], s0.rx[ZN_NET_DROP_ARP] + 1);
}

static void test_ping_answered(void **state)
{
	uint8_t f[1600], r[1600], want[1600];
	struct zn_frame fr;
	struct zn_net_rx_info in;

	(void)state;
	for (uint32_t len = 0; len <= 1472; len += 368) {
		uint8_t *ip = f + 14, *ic = f + 34;
		uint16_t c;
		uint32_t n;

		zn_eth_build(f, F.ia.mac, F.ib.mac, ZN_ETH_P_IPV4);
		zn_ipv4_build(ip, F.ip_b, F.ip_a, ZN_IPPROTO_ICMP, (uint16_t)(8 + len), 7, 64);
		ic[0] = 8, ic[1] = 0, ic[2] = ic[3] = 0;
		ic[4] = 0x12, ic[5] = 0x34, ic[6] = 0, ic[7] = (uint8_t)len;
		for (uint32_t i = 0; i < len; i++)
			ic[8 + i] = (uint8_t)(i ^ len);
		c = (uint16_t)~zn_csum_fold(zn_csum_add(0, ic, 8 + len));
		memcpy(ic + 2, &c, 2);
		peer_send(f, 42 + len);
		n = peer_recv(r, sizeof(r), 3000);
		assert_int_equal(n, len + 42 < 60 ? 60 : len + 42);
		/* what a correct reply is, from the request */
		fr.npiece = 1;
		fr.piece[0].p = f;
		fr.piece[0].len = fr.len = 42 + len;
		assert_int_equal(zn_net_rx_parse(&fr, 0, true, F.ia.mac, F.ip_a, &in),
				 ZN_NET_RX_ICMP_ECHO);
		assert_int_equal(zn_icmp_echo_reply(&fr, &in, F.ia.mac, 0, want, sizeof(want)),
				 42 + len);
		assert_memory_equal(r, want, 18);		/* Ethernet, version..length */
		assert_memory_equal(r + 20, want + 20, 4);	/* flags, TTL, protocol */
		assert_memory_equal(r + 26, want + 26, 16 + len);	/* addresses, ICMP */
		assert_int_equal(zn_csum_fold(zn_csum_add(0, r + 14, 20)), 0xffff);
	}
}

static void test_udp_delivery_zero_copy(void **state)
{
	static const uint32_t lens[] = { 1, 17, 18, 100, 215, 1000, 1472, 0 };
	struct zn_udp_conf uc = { .local = { 0, htons(EP_PORT) }, .rxq = 1 };
	struct zn_udp_ep *ep;
	struct zn_netif_stats s0 = stats();
	uint32_t held0;
	uint8_t f[1600];

	(void)state;
	assert_int_equal(zn_udp_open(F.nif, &uc, &ep), 0);
	assert_int_equal(zn_udp_by_id(F.nif, zn_udp_id(ep)), ep);
	{
		struct zn_udp_ep *dup;

		assert_int_equal(zn_udp_open(F.nif, &uc, &dup), -EADDRINUSE);
	}
	zn_netif_poll(F.nif);
	held0 = NPROV - F.prov.nfree;	/* what the NIC holds posted */
	for (unsigned i = 0; i < 8; i++) {
		uint32_t n = udp_to_a(f, (uint16_t)(5000 + i), EP_PORT, lens[i], i);

		peer_send(f, n);
	}
	POLL_UNTIL(zn_udp_rx_pending(ep) == 8);
	assert_int_equal(zn_udp_rx_pending(ep), 8);
	for (unsigned i = 0; i < 8; i++) {
		struct zn_udp_rx d;
		uint32_t got = 0;
		uint8_t want[1600];

		assert_int_equal(zn_udp_recv(ep, &d, 1), 1);
		assert_int_equal(d.queue, 1);		/* steered by the n-tuple rule */
		assert_int_equal(d.src.ip, F.ip_b);
		assert_int_equal(d.src.port, htons(5000 + i));
		assert_int_equal(d.len, lens[i]);
		assert_int_equal(d.hdr_len, 42);
		assert_memory_equal(d.hdr + 6, F.ib.mac, 6);
		udp_to_a(want, (uint16_t)(5000 + i), EP_PORT, lens[i], i);
		for (uint32_t k = 0; k < d.nseg; k++) {
			const uint8_t *p = zn_udp_rx_data(ep, &d, k);

			assert_non_null(p);
			/* zero-copy: the bytes are in the provider's buffers */
			assert_true(p >= (uint8_t *)F.prov.r->va &&
				    p < (uint8_t *)F.prov.r->va + NPROV * BUF);
			assert_memory_equal(p, want + 42 + got, d.seg[k].len);
			got += d.seg[k].len;
		}
		assert_int_equal(got, lens[i]);
		zn_udp_rx_release(ep, &d);
	}
	assert_int_equal(stats().rx_delivered, s0.rx_delivered + 8);
	assert_int_equal(stats().rx_copied, s0.rx_copied);
	assert_null(zn_udp_rx_data(ep, &(struct zn_udp_rx){ .nseg = 0 }, 0));
	/* every buffer is back: the provider holds what the NIC had posted */
	zn_netif_poll(F.nif);
	assert_int_equal(NPROV - F.prov.nfree, held0);
	assert_int_equal(F.prov.bad_put, 0);
	zn_udp_close(ep);
	/* closed: the port is free again, datagrams to it have no endpoint */
	udp_to_a(f, 5000, EP_PORT, 10, 1);
	peer_send(f, 52);
	POLL_UNTIL(stats().rx[ZN_NET_DROP_NO_EP] == s0.rx[ZN_NET_DROP_NO_EP] + 1);
	assert_int_equal(stats().rx[ZN_NET_DROP_NO_EP], s0.rx[ZN_NET_DROP_NO_EP] + 1);
	assert_int_equal(NPROV - F.prov.nfree, held0);
}

/* On queue 0 short datagrams land whole in the header buffer: copied out. */
static void test_copy_fallback(void **state)
{
	struct zn_udp_conf uc = { .local = { 0, htons(EP_PORT + 1) }, .rxq = 0 };
	struct zn_udp_ep *ep;
	struct zn_netif_stats s0 = stats();
	uint8_t f[1600], want[1600];
	struct zn_udp_rx d;
	uint32_t n;

	(void)state;
	assert_int_equal(zn_udp_open(F.nif, &uc, &ep), 0);
	n = udp_to_a(f, 4444, EP_PORT + 1, 150, 77);
	peer_send(f, n);
	POLL_UNTIL(zn_udp_rx_pending(ep) == 1);
	assert_int_equal(zn_udp_recv(ep, &d, 1), 1);
	assert_int_equal(d.queue, 0);
	assert_int_equal(d.len, 150);
	assert_int_equal(d.nseg, 1);
	udp_to_a(want, 4444, EP_PORT + 1, 150, 77);
	assert_memory_equal(zn_udp_rx_data(ep, &d, 0), want + 42, 150);
	assert_int_equal(stats().rx_copied, s0.rx_copied + 1);
	zn_udp_rx_release(ep, &d);
	zn_udp_close(ep);
}

static void test_drops_counted(void **state)
{
	struct zn_udp_conf uc = { .local = { 0, htons(EP_PORT + 2) }, .rxq = 1, .rx_ring = 4 };
	struct zn_udp_ep *ep;
	struct zn_netif_stats s0 = stats(), s1;
	uint8_t f[1600];
	uint32_t n;

	(void)state;
	assert_int_equal(zn_udp_open(F.nif, &uc, &ep), 0);
	n = udp_to_a(f, 1, EP_PORT + 2, 64, 1);
	f[n - 1] ^= 0xff;			/* UDP checksum */
	peer_send(f, n);
	n = udp_to_a(f, 1, EP_PORT + 2, 64, 1);
	f[24] ^= 0xff;				/* IP header checksum */
	peer_send(f, n);
	n = udp_to_a(f, 1, EP_PORT + 2, 64, 1);
	f[20] |= 0x20;				/* more fragments */
	{
		uint16_t c;

		f[24] = f[25] = 0;
		c = zn_ipv4_csum(f + 14, 20);
		memcpy(f + 24, &c, 2);
	}
	peer_send(f, n);
	n = udp_to_a(f, 1, EP_PORT + 3, 64, 1);	/* nobody there */
	peer_send(f, n);
	/* six datagrams into a list of four */
	for (unsigned i = 0; i < 6; i++) {
		n = udp_to_a(f, 1, EP_PORT + 2, 64, i);
		peer_send(f, n);
	}
	POLL_UNTIL(stats().rx_frames >= s0.rx_frames + 10);
	s1 = stats();
	assert_int_equal(s1.rx_frames, s0.rx_frames + 10);
	assert_int_equal(s1.rx[ZN_NET_DROP_UDP_CSUM], s0.rx[ZN_NET_DROP_UDP_CSUM] + 1);
	assert_int_equal(s1.rx[ZN_NET_DROP_IP_CSUM], s0.rx[ZN_NET_DROP_IP_CSUM] + 1);
	assert_int_equal(s1.rx[ZN_NET_DROP_FRAG], s0.rx[ZN_NET_DROP_FRAG] + 1);
	assert_int_equal(s1.rx[ZN_NET_DROP_NO_EP], s0.rx[ZN_NET_DROP_NO_EP] + 1);
	assert_int_equal(s1.rx[ZN_NET_DROP_EP_FULL], s0.rx[ZN_NET_DROP_EP_FULL] + 2);
	assert_int_equal(zn_udp_rx_pending(ep), 4);
	/* close gives back the undelivered datagrams' buffers */
	zn_udp_close(ep);
	zn_netif_poll(F.nif);
	assert_int_equal(F.prov.bad_put, 0);
}

struct notes {
	unsigned calls, ev;
	struct {
		uint64_t cookie;
		int32_t status;
	} done[8];
	uint32_t ndone;
};

static void on_note(void *arg, struct zn_udp_ep *ep, unsigned ev)
{
	struct notes *n = arg;

	(void)ep;
	n->calls++;
	n->ev |= ev;
}

static void on_done(void *arg, struct zn_udp_ep *ep, uint64_t cookie, int32_t status)
{
	struct notes *n = arg;

	(void)ep;
	assert_true(n->ndone < 8);
	n->done[n->ndone].cookie = cookie;
	n->done[n->ndone].status = status;
	n->ndone++;
}

/* zcnic sends: ARP resolves the peer first, the frames waited for it. */
static void test_udp_send(void **state)
{
	struct notes nt = { 0 };
	struct zn_udp_conf uc = { .local = { 0, htons(EP_PORT + 4) }, .rxq = 1,
				  .notify = on_note, .tx_done = on_done, .arg = &nt };
	struct zn_addr4 dst = { F.ip_b, htons(PEER_PORT) };
	struct zn_udp_ep *ep;
	uint8_t *pay = F.a_mem->va, r[1600];
	static const uint32_t lens[] = { 0, 1, 18, 333, 1472 };
	uint32_t got = 0, off = 0;

	(void)state;
	assert_int_equal(zn_udp_open(F.nif, &uc, &ep), 0);
	/* forget the peer so that the first send must resolve it */
	F.clock_off += 2 * ZN_ARP_TTL_NS;
	zn_netif_poll(F.nif);	/* sends see the time of the last poll */
	assert_int_equal(zn_netif_arp_lookup(F.nif, F.ip_b, r), -ENOENT);
	for (unsigned i = 0; i < 5; i++) {
		for (uint32_t k = 0; k < lens[i]; k++)
			pay[off + k] = (uint8_t)(i * 13 + k);
		if (i == 4) {
			/* more than fits waiting for ARP */
			assert_int_equal(zn_udp_send_buf(ep, &dst, pay + off, lens[i], 100 + i),
					 -EAGAIN);
			break;
		}
		assert_int_equal(zn_udp_send_buf(ep, &dst, pay + off, lens[i], 100 + i), 0);
		off += 2048;
	}
	/* the peer sees an ARP request first and answers it */
	{
		uint8_t want[64];
		static const uint8_t bcast[6] = { 0xff, 0xff, 0xff, 0xff, 0xff, 0xff };

		assert_true(peer_recv(r, sizeof(r), 3000) >= 42);
		zn_arp_build(want, ZN_ARP_OP_REQUEST, bcast, F.ia.mac, F.ip_a, NULL, F.ip_b);
		assert_memory_equal(r, want, 42);
		zn_arp_build(want, ZN_ARP_OP_REPLY, F.ia.mac, F.ib.mac, F.ip_b, F.ia.mac, F.ip_a);
		peer_send(want, 42);
	}
	/* (only 4 could wait; the 5th went now that the peer is known) */
	assert_int_equal(zn_udp_send_buf(ep, &dst, pay + off, lens[4], 104), -EAGAIN);
	POLL_UNTIL(nt.ndone > 0);
	assert_int_equal(zn_udp_send_buf(ep, &dst, pay + off, lens[4], 104), 0);
	for (unsigned i = 0; i < 5; i++) {
		uint8_t want[1600];
		struct zn_frame fr;
		struct zn_net_rx_info in;
		struct zn_addr4 s = { F.ip_a, htons(EP_PORT + 4) };
		uint32_t n = peer_recv(r, sizeof(r), 3000), wl;

		assert_true(n > 0);
		fr.npiece = 1;
		fr.piece[0].p = r;
		fr.piece[0].len = fr.len = n;
		/* checksums verified in software, as a receiver would */
		assert_int_equal(zn_net_rx_parse(&fr, 0, true, F.ib.mac, F.ip_b, &in),
				 ZN_NET_RX_UDP);
		assert_int_equal(in.payload_len, lens[i]);
		wl = (uint32_t)zn_udp_frame_build(want, sizeof(want), F.ib.mac, F.ia.mac, &s, &dst,
						  pay + (i < 4 ? i * 2048 : off), lens[i],
						  (uint16_t)(r[18] << 8 | r[19]));
		assert_memory_equal(r, want, wl);
		got++;
	}
	assert_int_equal(got, 5);
	{
		uint64_t t0 = zn_now_ns();

		while (nt.ndone < 5 && zn_now_ns() - t0 < WAIT_NS)
			zn_netif_poll(F.nif);
	}
	assert_int_equal(nt.ndone, 5);
	for (unsigned i = 0; i < 5; i++) {
		assert_int_equal(nt.done[i].cookie, 100 + i);
		assert_int_equal(nt.done[i].status, 0);
	}
	zn_udp_close(ep);
}

/* Nobody answers: ZN_ARP_RETRIES requests, then the sends fail. */
static void test_arp_gives_up(void **state)
{
	struct notes nt = { 0 };
	struct zn_udp_conf uc = { .local = { 0, htons(EP_PORT + 5) }, .rxq = 1,
				  .tx_done = on_done, .arg = &nt };
	struct zn_addr4 dst = { inet_addr("10.1.0.77"), htons(PEER_PORT) };
	struct zn_addr4 far = { inet_addr("192.168.7.7"), htons(PEER_PORT) };
	struct zn_udp_ep *ep;
	struct zn_netif_stats s0 = stats();
	uint8_t r[1600];
	unsigned reqs = 0;

	(void)state;
	assert_int_equal(zn_udp_open(F.nif, &uc, &ep), 0);
	assert_int_equal(zn_udp_send_buf(ep, &far, F.a_mem->va, 10, 1), -ENETUNREACH);
	assert_int_equal(zn_udp_send_buf(ep, &dst, F.a_mem->va, 10, 1), 0);
	assert_int_equal(zn_udp_send_buf(ep, &dst, F.a_mem->va, 20, 2), 0);
	for (unsigned round = 0; round < ZN_ARP_RETRIES + 1; round++) {
		uint32_t n;

		while ((n = peer_recv(r, sizeof(r), 100)) > 0)
			if (r[12] == 0x08 && r[13] == 0x06 && !memcmp(r + 38, &dst.ip, 4))
				reqs++;
		F.clock_off += 600ull * 1000000ull;	/* past the retry time */
	}
	POLL_UNTIL(nt.ndone >= 2);
	assert_int_equal(reqs, ZN_ARP_RETRIES);
	assert_int_equal(nt.ndone, 2);
	assert_int_equal(nt.done[0].cookie, 1);
	assert_int_equal(nt.done[0].status, -EHOSTUNREACH);
	assert_int_equal(nt.done[1].cookie, 2);
	assert_int_equal(nt.done[1].status, -EHOSTUNREACH);
	assert_int_equal(stats().tx_unresolved, s0.tx_unresolved + 2);
	assert_int_equal(stats().arp_failed, s0.arp_failed + 1);
	zn_udp_close(ep);
}

struct closer {
	struct zn_udp_ep *ep[2];
	unsigned calls;
};

/* A notify callback may close its own endpoint and another one: the first
 * to run closes both, and the other's callback must then not run. */
static void close_both(void *arg, struct zn_udp_ep *ep, unsigned ev)
{
	struct closer *c = arg;

	c->calls++;
	assert_true(ev & ZN_UDP_EV_RX);
	assert_true(ep == c->ep[0] || ep == c->ep[1]);
	for (int i = 0; i < 2; i++) {
		zn_udp_close(c->ep[i]);
		c->ep[i] = NULL;
	}
}

static void test_close_in_notify_and_broadcast(void **state)
{
	static const uint8_t bcast[6] = { 0xff, 0xff, 0xff, 0xff, 0xff, 0xff };
	struct closer c = { 0 };
	struct zn_udp_conf uc = { .local = { 0, htons(EP_PORT + 6) }, .rxq = 1,
				  .notify = close_both, .arg = &c };
	struct zn_udp_ep *e1, *e2, *e3;
	uint32_t id1, id2, n;
	uint8_t f[1600], r[1600];

	(void)state;
	assert_int_equal(zn_udp_open(F.nif, &uc, &e1), 0);
	uc.local.port = htons(EP_PORT + 7);
	assert_int_equal(zn_udp_open(F.nif, &uc, &e2), 0);
	c.ep[0] = e1;
	c.ep[1] = e2;
	id1 = zn_udp_id(e1);
	id2 = zn_udp_id(e2);
	n = udp_to_a(f, 1, EP_PORT + 6, 10, 1);
	peer_send(f, n);
	n = udp_to_a(f, 1, EP_PORT + 7, 10, 2);
	peer_send(f, n);
	POLL_UNTIL(c.calls >= 1);
	zn_netif_poll(F.nif);
	assert_null(zn_udp_by_id(F.nif, id1));
	assert_null(zn_udp_by_id(F.nif, id2));
	assert_int_equal(c.calls, 1);
	assert_int_equal(F.prov.bad_put, 0);

	/* the subnet's broadcast: no ARP, the broadcast MAC */
	uc = (struct zn_udp_conf){ .local = { 0, htons(EP_PORT + 8) }, .rxq = 1 };
	assert_int_equal(zn_udp_open(F.nif, &uc, &e3), 0);
	{
		struct zn_addr4 d = { inet_addr("10.1.0.255"), htons(PEER_PORT) };

		memcpy(F.a_mem->va, "broadcast!", 10);
		assert_int_equal(zn_udp_send_buf(e3, &d, F.a_mem->va, 10, 5), 0);
		n = peer_recv(r, sizeof(r), 3000);
		assert_int_equal(n, 60);
		assert_memory_equal(r, bcast, 6);
		assert_memory_equal(r + 30, &d.ip, 4);
		assert_memory_equal(r + 42, "broadcast!", 10);
	}
	zn_udp_close(e3);
}

static void test_bad_conf(void **state)
{
	struct zn_netif_conf nc = { .ip = F.ip_a, .prefix_len = 33, .nb_rxq = 1, .rxq = { 0 } };
	struct zn_udp_conf uc = { .local = { 0, htons(1) }, .rxq = 5 };
	struct zn_netif *n2;
	struct zn_udp_ep *ep;

	(void)state;
	assert_int_equal(zn_netif_create(F.a, &nc, &n2), -EINVAL);
	nc.prefix_len = 24;
	nc.rxq[0] = 7;		/* not set up */
	assert_int_equal(zn_netif_create(F.a, &nc, &n2), -EINVAL);
	assert_int_equal(zn_udp_open(F.nif, &uc, &ep), -EINVAL);	/* queue not polled */
	uc.rxq = 1;
	uc.local.ip = inet_addr("10.1.0.3");				/* not our address */
	assert_int_equal(zn_udp_open(F.nif, &uc, &ep), -EINVAL);
	uc.local.ip = 0;
	uc.local.port = 0;
	assert_int_equal(zn_udp_open(F.nif, &uc, &ep), -EINVAL);
	uc.local.port = htons(1);
	uc.rx_ring = 3;
	assert_int_equal(zn_udp_open(F.nif, &uc, &ep), -EINVAL);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_arp_answered_and_learnt),
		cmocka_unit_test(test_ping_answered),
		cmocka_unit_test(test_udp_delivery_zero_copy),
		cmocka_unit_test(test_copy_fallback),
		cmocka_unit_test(test_drops_counted),
		cmocka_unit_test(test_udp_send),
		cmocka_unit_test(test_arp_gives_up),
		cmocka_unit_test(test_close_in_notify_and_broadcast),
		cmocka_unit_test(test_bad_conf),
	};

	zn_log_configure("off");
	return cmocka_run_group_tests(tests, setup, teardown);
}
