/*
 * bnxt_port: two bnxt ports of zn-nicsim joined by a pair wire, driven
 * through include/zcnic/port.h. Prints one line per check, "ok - what" or
 * "not ok - what"; tests/integration/bnxt_port.sh numbers them.
 *
 *   bnxt_port full DIR     bring-up, UDP frames A -> B byte-exact with
 *                          header-data split (threshold 0 and 256), RSS
 *                          (hash and queue), n-tuple rules, statistics,
 *                          start/stop and open/close 20 times
 *   bnxt_port basic DIR    bring-up and byte-exact traffic only (for the
 *                          model's legacy-doorbell mode)
 *
 * DIR holds bnxt0.sock and bnxt1.sock.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "base/clock.h"
#include "zcnic/bus.h"
#include "zcnic/log.h"
#include "zcnic/mem.h"
#include "zcnic/port.h"

#define WAIT_MS		3000
#define RX_RING		64
#define TX_RING		256
#define BUF_SIZE	2048
#define HDR_LEN		42	/* Ethernet + IPv4 + UDP */
#define MAX_FRAME	1514
#define NQ_B		4
#define SLAB		(64 * 1024)
#define BURST		32

static int failures;
static char dir[512];

static bool check_line(bool ok, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
#define check(cond, ...) ({ bool ok_ = (cond); check_line(ok_, __VA_ARGS__); })

static bool check_line(bool ok, const char *fmt, ...)
{
	va_list ap;

	printf("%s - ", ok ? "ok" : "not ok");
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	printf("\n");
	fflush(stdout);
	if (!ok)
		failures++;
	return ok;
}

/* ---- Toeplitz, as hw-docs/bnxt.md §11 describes it --------------------- */

static uint32_t toeplitz(const uint8_t *key, const uint8_t *in, size_t len)
{
	uint32_t h = 0, v = (uint32_t)key[0] << 24 | (uint32_t)key[1] << 16 |
			    (uint32_t)key[2] << 8 | key[3];

	for (size_t i = 0; i < len; i++) {
		for (int b = 7; b >= 0; b--) {
			if (in[i] & (1u << b))
				h ^= v;
			v <<= 1;
			if (i + 4 < ZN_RSS_KEY_LEN && (key[i + 4] & (1u << b)))
				v |= 1;
		}
	}
	return h;
}

/* ---- one side --------------------------------------------------------- */

struct side {
	const char *name;
	struct zn_port *p;
	struct zn_port_info info;
	uint16_t nrxq;
	/* TX memory: header slab and payloads, mapped to this port's device */
	struct zn_dma_region *tx_mem;
	uint32_t tx_off;
};

static int side_open(struct side *s, const char *dev, uint16_t nrxq, uint32_t hds_thresh)
{
	struct zn_bus_open_opts o = { .timeout_ms = WAIT_MS };
	struct zn_port_conf pc = { .nb_rxq = nrxq, .nb_txq = 1, .mtu = 1500 };
	struct zn_rxq_conf rq = { .ring_size = RX_RING, .hds_thresh = hds_thresh,
				  .hdr_buf_size = 256, .payload_buf_size = BUF_SIZE,
				  .numa_node = -1 };
	struct zn_txq_conf tq = { .ring_size = TX_RING, .numa_node = -1 };
	char spec[600];
	int rc;

	s->name = dev;
	s->nrxq = nrxq;
	snprintf(spec, sizeof(spec), "vfio-user:%s/%s.sock", dir, dev);
	rc = zn_port_open(spec, &o, &s->p);
	if (rc < 0)
		return rc;
	zn_port_info(s->p, &s->info);
	rc = zn_port_configure(s->p, &pc);
	for (uint16_t q = 0; rc == 0 && q < nrxq; q++)
		rc = zn_port_rxq_setup(s->p, q, &rq);
	if (rc == 0)
		rc = zn_port_txq_setup(s->p, 0, &tq);
	if (rc == 0 && !s->tx_mem) {
		rc = zn_dma_region_alloc("bnxt-port-tx", SLAB, -1, ZN_DMA_NO_HUGE, &s->tx_mem);
		if (rc == 0)
			rc = zn_bus_dma_map(s->p->bus, s->tx_mem);
	}
	if (rc == 0)
		rc = zn_port_start(s->p);
	if (rc < 0) {
		zn_port_close(s->p);
		s->p = NULL;
	}
	return rc;
}

static void side_close(struct side *s)
{
	if (s->tx_mem && s->p)
		zn_bus_dma_unmap(s->p->bus, s->tx_mem);
	zn_port_close(s->p);
	zn_dma_region_free(s->tx_mem);
	s->tx_mem = NULL;
	s->p = NULL;
}

/* ---- frames ----------------------------------------------------------- */

struct flow {
	uint8_t sip[4], dip[4];
	uint16_t sport, dport;
};

static uint16_t ip_csum(const uint8_t *h)
{
	uint32_t s = 0;

	for (int i = 0; i < 20; i += 2)
		s += (uint32_t)h[i] << 8 | h[i + 1];
	while (s >> 16)
		s = (s & 0xffff) + (s >> 16);
	return (uint16_t)~s;
}

/* Header (42 bytes) at hdr, payload of plen bytes at pay, from A to B. */
static void build(uint8_t *hdr, uint8_t *pay, uint32_t plen, const struct side *a,
		  const struct side *b, const struct flow *f, uint32_t seed)
{
	uint16_t iplen = (uint16_t)(20 + 8 + plen), ulen = (uint16_t)(8 + plen), c;

	memcpy(hdr, b->info.mac, 6);
	memcpy(hdr + 6, a->info.mac, 6);
	hdr[12] = 0x08, hdr[13] = 0x00;
	memset(hdr + 14, 0, 28);
	hdr[14] = 0x45;
	hdr[16] = (uint8_t)(iplen >> 8), hdr[17] = (uint8_t)iplen;
	hdr[22] = 64, hdr[23] = 17;
	memcpy(hdr + 26, f->sip, 4);
	memcpy(hdr + 30, f->dip, 4);
	c = ip_csum(hdr + 14);
	hdr[24] = (uint8_t)(c >> 8), hdr[25] = (uint8_t)c;
	hdr[34] = (uint8_t)(f->sport >> 8), hdr[35] = (uint8_t)f->sport;
	hdr[36] = (uint8_t)(f->dport >> 8), hdr[37] = (uint8_t)f->dport;
	hdr[38] = (uint8_t)(ulen >> 8), hdr[39] = (uint8_t)ulen;
	for (uint32_t i = 0; i < plen; i++)
		pay[i] = (uint8_t)(seed * 97 + i * 13 + (i >> 7));
	if (plen >= 4)
		memcpy(pay, &seed, 4);
}

struct sent {
	uint32_t len;		/* frame bytes */
	uint8_t frame[MAX_FRAME];
	struct flow f;
	bool got;
};

/*
 * Send n frames of the given payload lengths from a to b; frames are kept
 * for comparison. Returns frames accepted.
 */
static uint32_t send_frames(struct side *a, const struct side *b, struct sent *out,
			    const uint32_t *plen, const struct flow *flows, uint32_t n,
			    uint32_t seed0)
{
	struct zn_tx_pkt tx[BURST] = { 0 };	/* no offload flags */
	uint32_t sent = 0;

	while (sent < n) {
		uint32_t m = n - sent < BURST ? n - sent : BURST, acc, off = 0;

		for (uint32_t i = 0; i < m; i++) {
			uint8_t *h = (uint8_t *)a->tx_mem->va + off;
			uint8_t *pay = h + 64;
			struct sent *s = &out[sent + i];
			uint32_t pl = plen[sent + i];

			build(h, pay, pl, a, b, &flows[sent + i], seed0 + sent + i);
			s->len = HDR_LEN + pl;
			memcpy(s->frame, h, HDR_LEN);
			memcpy(s->frame + HDR_LEN, pay, pl);
			s->f = flows[sent + i];
			s->got = false;
			tx[i].nseg = pl ? 2 : 1;
			tx[i].seg[0].iova = a->tx_mem->iova + off;
			tx[i].seg[0].len = HDR_LEN;
			tx[i].seg[1].iova = a->tx_mem->iova + off + 64;
			tx[i].seg[1].len = pl;
			tx[i].cookie = sent + i;
			off += (64 + pl + 63) & ~63u;
		}
		acc = zn_port_tx_burst(a->p, 0, tx, m);
		if (acc != m)
			return sent + acc;
		/* Wait for the completions: the slab is reused. */
		{
			uint64_t cookies[BURST], t0 = zn_now_ms();
			uint32_t got = 0;

			while (got < m && zn_now_ms() - t0 < WAIT_MS) {
				uint32_t r = zn_port_tx_reap(a->p, 0, cookies + got, m - got);

				for (uint32_t i = 0; i < r; i++)
					if (cookies[got + i] != sent + got + i)
						return sent + got + i;	/* out of order */
				got += r;
			}
			if (got < m)
				return sent + got;
		}
		sent += m;
	}
	return sent;
}

static struct sent sent_buf[128];

struct rx_result {
	uint32_t total;		/* frames sent, matched by seed - seed0 */
	uint32_t got, exact, split, whole, wrong_queue, rss_ok, rss_bad, per_q[NQ_B];
	uint32_t seen_q[64];	/* queue of each received frame, by seed order */
};

/* Receive n frames on b's queues; match each with what was sent. */
static void recv_frames(struct side *b, struct sent *s, uint32_t n, uint32_t seed0,
			const uint8_t *key, int want_q, struct rx_result *r)
{
	struct zn_rx_pkt pkts[BURST];
	uint8_t buf[MAX_FRAME + 64];
	uint64_t t0 = zn_now_ms();
	uint32_t want = r->got + n;

	while (r->got < want && zn_now_ms() - t0 < WAIT_MS) {
		for (uint16_t q = 0; q < b->nrxq; q++) {
			uint32_t m = zn_port_rx_burst(b->p, q, pkts, BURST);

			for (uint32_t i = 0; i < m; i++) {
				const struct zn_rx_pkt *p = &pkts[i];
				uint32_t off = p->hdr_len, seed = 0, idx;

				if (p->pkt_len > sizeof(buf))
					continue;
				memcpy(buf, p->hdr, p->hdr_len);
				for (uint32_t k = 0; k < p->nseg; k++) {
					const uint8_t *pay = zn_port_rx_payload(b->p, q, p->seg[k].buf_id);

					if (pay && off + p->seg[k].len <= sizeof(buf))
						memcpy(buf + off, pay + p->seg[k].off, p->seg[k].len);
					off += p->seg[k].len;
					zn_port_rx_buf_put(b->p, q, &p->seg[k].buf_id, 1);
				}
				r->got++;
				r->per_q[q < NQ_B ? q : 0]++;
				if (p->flags & ZN_RX_F_SPLIT)
					r->split++;
				else
					r->whole++;
				if (p->pkt_len >= HDR_LEN + 4)
					memcpy(&seed, buf + HDR_LEN, 4);
				idx = seed - seed0;
				if (idx < r->total && !s[idx].got && s[idx].len == p->pkt_len &&
				    !memcmp(buf, s[idx].frame, p->pkt_len)) {
					s[idx].got = true;
					r->exact++;
					if (idx < 64)
						r->seen_q[idx] = q;
					if (key) {
						uint8_t t[12];
						uint32_t h;

						memcpy(t, s[idx].f.sip, 4);
						memcpy(t + 4, s[idx].f.dip, 4);
						t[8] = (uint8_t)(s[idx].f.sport >> 8);
						t[9] = (uint8_t)s[idx].f.sport;
						t[10] = (uint8_t)(s[idx].f.dport >> 8);
						t[11] = (uint8_t)s[idx].f.dport;
						h = toeplitz(key, t, 12);
						if ((p->flags & ZN_RX_F_RSS_HASH) && p->rss_hash == h)
							r->rss_ok++;
						else
							r->rss_bad++;
					}
				}
				if (want_q >= 0 && q != want_q)
					r->wrong_queue++;
			}
		}
	}
	/* Done with the headers: a burst of 0 gives their buffers back. */
	for (uint16_t q = 0; q < b->nrxq; q++)
		zn_port_rx_burst(b->p, q, pkts, 0);
}

/*
 * Send n frames from a to b in bursts, receiving each burst before the next
 * (the RX rings are small); results accumulate in r.
 */
static uint32_t xfer(struct side *a, struct side *b, const uint32_t *plen,
		     const struct flow *flows, uint32_t n, uint32_t seed0, const uint8_t *key,
		     int want_q, struct rx_result *r)
{
	uint32_t done = 0;

	memset(r, 0, sizeof(*r));
	r->total = n;
	while (done < n) {
		uint32_t m = n - done < BURST ? n - done : BURST;
		uint32_t s = send_frames(a, b, sent_buf + done, plen + done, flows + done, m,
					 seed0 + done);

		if (s != m)
			return done + s;
		recv_frames(b, sent_buf, m, seed0, key, want_q, r);
		done += m;
	}
	return done;
}

static void flows_fill(struct flow *f, uint32_t n, uint16_t dport)
{
	for (uint32_t i = 0; i < n; i++) {
		static const uint8_t sip[4] = { 10, 0, 0, 1 }, dip[4] = { 10, 0, 0, 2 };

		memcpy(f[i].sip, sip, 4);
		memcpy(f[i].dip, dip, 4);
		f[i].sport = (uint16_t)(1000 + i * 7);
		f[i].dport = dport;
	}
}

/* The Microsoft key the driver installs by default (bnxt_filter.c). */
static const uint8_t ms_key[ZN_RSS_KEY_LEN] = {
	0x6d, 0x5a, 0x56, 0xda, 0x25, 0x5b, 0x0e, 0xc2, 0x41, 0x67,
	0x25, 0x3d, 0x43, 0xa3, 0x8f, 0xb0, 0xd0, 0xca, 0x2b, 0xcb,
	0xae, 0x7b, 0x30, 0xb4, 0x77, 0xcb, 0x2d, 0xa3, 0x80, 0x30,
	0xf2, 0x0c, 0x6a, 0x42, 0xb7, 0x3b, 0xbe, 0xac, 0x01, 0xfa,
};

static void traffic(struct side *a, struct side *b, uint32_t thresh, const char *what)
{
	static const uint32_t lens[] = { 18, 58, 100, 214, 215, 400, 1000, 1472 };
	uint32_t plen[64];
	struct flow f[64];
	struct rx_result r;
	uint32_t n = 64, seed0 = 1000 + thresh, whole_want = 0, s;

	flows_fill(f, n, 5000);
	for (uint32_t i = 0; i < n; i++) {
		plen[i] = lens[i % 8];
		if (HDR_LEN + plen[i] <= thresh)
			whole_want++;
	}
	s = xfer(a, b, plen, f, n, seed0, ms_key, -1, &r);
	check(s == n, "%s: %u of %u frames sent (2 segments: header + payload), cookies in order",
	      what, s, n);
	check(r.got == n && r.exact == n, "%s: %u of %u frames received byte-exact", what,
	      r.exact, n);
	check(r.whole == whole_want && r.split == n - whole_want,
	      "%s: header-data split with threshold %u: %u split, %u whole (want %u whole)",
	      what, thresh, r.split, r.whole, whole_want);
	check(r.rss_ok == r.exact && r.rss_bad == 0,
	      "%s: RSS hash of every frame is the Toeplitz hash of its 4-tuple (%u ok, %u not)",
	      what, r.rss_ok, r.rss_bad);
}

static void test_rss_and_ntuple(struct side *a, struct side *b)
{
	uint32_t plen[64], n = 64, seed0 = 7000;
	struct flow f[64];
	struct rx_result r;
	bool spread_ok = true;
	uint32_t used = 0;

	for (uint32_t i = 0; i < n; i++)
		plen[i] = 200;
	/* Default table: entry i -> queue i % 4; entry = hash % 64 (model choice). */
	flows_fill(f, n, 6000);
	xfer(a, b, plen, f, n, seed0, ms_key, -1, &r);
	for (uint32_t i = 0; i < n; i++) {
		uint8_t t[12];
		uint32_t h;

		memcpy(t, f[i].sip, 4);
		memcpy(t + 4, f[i].dip, 4);
		t[8] = (uint8_t)(f[i].sport >> 8), t[9] = (uint8_t)f[i].sport;
		t[10] = (uint8_t)(f[i].dport >> 8), t[11] = (uint8_t)f[i].dport;
		h = toeplitz(ms_key, t, 12);
		if (!sent_buf[i].got || r.seen_q[i] != (h % 64) % NQ_B)
			spread_ok = false;
	}
	for (int q = 0; q < NQ_B; q++)
		used += r.per_q[q] > 0;
	check(r.exact == n && spread_ok && used == NQ_B,
	      "RSS: 64 flows over %u queues (%u/%u/%u/%u), each on queue (hash %% 64) %% 4",
	      used, r.per_q[0], r.per_q[1], r.per_q[2], r.per_q[3]);

	/* A table that names queue 2 only. */
	{
		struct zn_rss_conf rc;

		memset(&rc, 0, sizeof(rc));
		memcpy(rc.key, ms_key, ZN_RSS_KEY_LEN);
		rc.hash_types = ZN_RSS_IPV4 | ZN_RSS_IPV4_UDP | ZN_RSS_IPV4_TCP;
		rc.table_size = 1;
		rc.table[0] = 2;
		check(zn_port_rss_set(b->p, &rc) == 0, "RSS: table set to queue 2 only");
		xfer(a, b, plen, f, 32, seed0 + 100, ms_key, 2, &r);
		check(r.exact == 32 && r.wrong_queue == 0,
		      "RSS: %u of 32 frames on queue 2, %u elsewhere", r.exact, r.wrong_queue);
		rc.table_size = 3;	/* does not divide 64 */
		check(zn_port_rss_set(b->p, &rc) == -EINVAL, "RSS: a 3-entry table is refused");
		rc.table_size = 4;
		for (int i = 0; i < 4; i++)
			rc.table[i] = (uint16_t)i;
		check(zn_port_rss_set(b->p, &rc) == 0, "RSS: table back to 4 queues");
	}

	/* n-tuple: UDP to port 7777 on queue 3, whatever RSS says. */
	{
		struct zn_flow_match m = { .ip_version = 4, .ip_proto = 17 };
		uint32_t rule;

		m.dst_port = __builtin_bswap16(7777);
		check(zn_port_flow_add(b->p, &m, 3, &rule) == 0, "n-tuple: rule UDP dport 7777 -> queue 3");
		flows_fill(f, 32, 7777);
		xfer(a, b, plen, f, 32, seed0 + 200, NULL, 3, &r);
		check(r.exact == 32 && r.wrong_queue == 0,
		      "n-tuple: %u of 32 frames of 32 flows on queue 3, %u elsewhere", r.exact,
		      r.wrong_queue);
		/* Other ports still spread. */
		flows_fill(f, 32, 7778);
		xfer(a, b, plen, f, 32, seed0 + 300, NULL, -1, &r);
		check(r.exact == 32 && r.per_q[3] < 32,
		      "n-tuple: port 7778 is not matched (%u of 32 on queue 3)", r.per_q[3]);
		check(zn_port_flow_del(b->p, rule) == 0, "n-tuple: rule deleted");
		flows_fill(f, 32, 7777);
		xfer(a, b, plen, f, 32, seed0 + 400, NULL, -1, &r);
		check(r.exact == 32 && r.per_q[3] < 32,
		      "n-tuple: after delete, port 7777 spreads again (%u of 32 on queue 3)",
		      r.per_q[3]);
	}
}

static void test_stats(struct side *a, struct side *b)
{
	struct zn_queue_stats st, rs = { 0 };

	check(zn_port_txq_stats(a->p, 0, &st) == 0 && st.packets > 0 && st.bad_cmpl == 0 &&
	      st.errors == 0, "stats: port A txq 0 sent %llu frames, %llu bytes, no errors",
	      (unsigned long long)st.packets, (unsigned long long)st.bytes);
	for (uint16_t q = 0; q < b->nrxq; q++) {
		struct zn_queue_stats x;

		if (zn_port_rxq_stats(b->p, q, &x) == 0) {
			rs.packets += x.packets;
			rs.bad_cmpl += x.bad_cmpl;
			rs.errors += x.errors;
		}
	}
	check(rs.packets == st.packets && rs.bad_cmpl == 0 && rs.errors == 0,
	      "stats: port B received %llu frames over its queues (A sent %llu), no bad "
	      "completions", (unsigned long long)rs.packets, (unsigned long long)st.packets);
	check(zn_port_rxq_stats(b->p, 9, &st) == -EINVAL, "stats: queue 9 does not exist");
}

static int run(bool full)
{
	struct side a = { 0 }, b = { 0 };
	struct zn_link link;
	int rc;

	rc = side_open(&a, "bnxt0", 1, 0);
	check(rc == 0, "port A (bnxt0) opened, configured and started: %s", strerror(-rc));
	rc = side_open(&b, "bnxt1", full ? NQ_B : 1, 0);
	check(rc == 0, "port B (bnxt1) opened, configured and started: %s", strerror(-rc));
	if (!a.p || !b.p)
		goto out;
	check(!strcmp(a.info.driver, "bnxt") && a.info.vendor == 0x14e4 && a.info.device == 0x1750 &&
	      a.info.hds && (a.info.mac[0] | a.info.mac[5]) != 0,
	      "info: driver %s, %04x:%04x, MAC %02x:..:%02x, HDS", a.info.driver, a.info.vendor,
	      a.info.device, a.info.mac[0], a.info.mac[5]);
	check(zn_port_link(a.p, &link) == 0 && link.up, "link of A is up (%u Mb/s)",
	      link.speed_mbps);

	traffic(&a, &b, 0, "A->B");
	if (!full)
		goto out;
	traffic(&b, &a, 0, "B->A");
	test_rss_and_ntuple(&a, &b);
	test_stats(&a, &b);

	/* Threshold 256: reopen B with it. */
	side_close(&b);
	rc = side_open(&b, "bnxt1", 1, 256);
	check(rc == 0, "port B reopened with header-split threshold 256");
	if (b.p)
		traffic(&a, &b, 256, "threshold 256");

	/* Start/stop 20 times on an open port, open/close 20 times. */
	{
		int ok = 0;

		for (int i = 0; i < 20; i++) {
			zn_port_stop(a.p);
			ok += zn_port_start(a.p) == 0;
		}
		check(ok == 20, "port A stopped and started 20 times (%d)", ok);
		traffic(&a, &b, 256, "after 20 restarts");
		ok = 0;
		for (int i = 0; i < 20; i++) {
			side_close(&a);
			ok += side_open(&a, "bnxt0", 1, 0) == 0;
		}
		check(ok == 20, "port A closed and opened 20 times (%d)", ok);
		if (a.p)
			traffic(&a, &b, 256, "after 20 reopens");
	}
out:
	side_close(&a);
	side_close(&b);
	return failures ? 1 : 0;
}

int main(int argc, char **argv)
{
	if (argc != 3 || (strcmp(argv[1], "full") && strcmp(argv[1], "basic"))) {
		fprintf(stderr, "usage: bnxt_port full|basic DIR\n");
		return 2;
	}
	snprintf(dir, sizeof(dir), "%s", argv[2]);
	zn_log_configure(getenv("ZN_LOG") ? NULL : "warn");
	return run(!strcmp(argv[1], "full"));
}
