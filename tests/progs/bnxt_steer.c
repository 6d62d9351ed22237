/* SPDX-License-Identifier: MIT */
/*
 * bnxt_steer: RSS and n-tuple steering through include/zcnic/port.h, judged
 * by the test suite's own Toeplitz hash (tests/unit/support/toeplitz.c,
 * itself checked against Microsoft's published vectors).
 *
 *   bnxt_steer DEV0 DEV1            DEV0 sends, DEV1 (4 queues) receives
 *
 * 1. RSS with every hash type: IPv4/IPv6 x UDP/TCP/other-protocol flows; each
 *    frame must arrive on table[hash % table_size], hash = Toeplitz over the
 *    4-tuple (TCP, UDP) or the addresses (other protocols), and a reported
 *    rss_hash must equal it.
 * 2. RSS with the address-only types: the 2-tuple decides for every flow.
 * 3. n-tuple rules: a 5-tuple rule and a destination-port-only rule steer
 *    their flows to a queue RSS would not pick; other flows keep RSS; once
 *    the rules are freed their flows go back to the RSS queue.
 *
 * The table-index rule (hash % entries) is the model's choice (hw-docs/bnxt.md
 * section 15); the table given is exactly info.rss_table_size long, so that
 * any driver mapping of our table onto the device's is the identity.
 */
#include <arpa/inet.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>

#include "tests/progs/bnxt_pair.h"
#include "tests/unit/support/toeplitz.h"

#define NQ		4
#define KINDS		6	/* {v4, v6} x {UDP, TCP, other} */
#define FLOWS		(KINDS * 32)
#define RULE_FRAMES	16
#define RX_WAIT_MS	3000
#define FRAME_LEN	200
#define OTHER_PROTO	253	/* RFC 3692 experimental: no ports to hash */
#define SHOW_MAX	8

static struct pt_port p0, p1;
static struct pt_flow flows[FLOWS];

struct seen {
	int16_t queue;		/* -1: not arrived */
	uint32_t flags, hash;
	unsigned copies;
};

static struct seen seen[FLOWS + 2 * RULE_FRAMES];
static unsigned foreign;

static void make_flows(void)
{
	for (unsigned i = 0; i < FLOWS; i++) {
		struct pt_flow *f = &flows[i];
		unsigned kind = i % KINDS;

		memset(f, 0, sizeof(*f));
		f->ipv = kind < 3 ? 4 : 6;
		f->proto = (kind % 3) == 0 ? 17 : (kind % 3) == 1 ? 6 : OTHER_PROTO;
		if (f->ipv == 4) {
			uint8_t s[4] = { 10, 1, (uint8_t)(i >> 8), (uint8_t)(i * 37) };
			uint8_t d[4] = { 10, 2, 0, (uint8_t)(1 + i % 5) };

			memcpy(f->src, s, 4);
			memcpy(f->dst, d, 4);
		} else {
			uint8_t s[16] = { 0x20, 0x01, 0x0d, 0xb8, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
					  (uint8_t)(i >> 8), (uint8_t)(i * 59) };
			uint8_t d[16] = { 0x20, 0x01, 0x0d, 0xb8, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0,
					  (uint8_t)(1 + i % 3) };

			memcpy(f->src, s, 16);
			memcpy(f->dst, d, 16);
		}
		f->sport = (uint16_t)(1024 + i * 7);
		f->dport = (uint16_t)(5000 + i % 13);
	}
}

/* The queue RSS picks, by our own Toeplitz hash. */
static uint16_t predict(const struct zn_rss_conf *rss, const struct pt_flow *f, uint32_t *hash)
{
	uint32_t four_bit = f->ipv == 4 ? (f->proto == 6 ? ZN_RSS_IPV4_TCP : ZN_RSS_IPV4_UDP) :
					  (f->proto == 6 ? ZN_RSS_IPV6_TCP : ZN_RSS_IPV6_UDP);
	int four = pt_has_ports(f) && (rss->hash_types & four_bit);

	*hash = f->ipv == 4 ?
		toeplitz_v4(rss->key, ZN_RSS_KEY_LEN, f->src, f->dst, f->sport, f->dport, four) :
		toeplitz_v6(rss->key, ZN_RSS_KEY_LEN, f->src, f->dst, f->sport, f->dport, four);
	return rss->table[*hash % rss->table_size];
}

static void on_rx(void *arg, uint16_t q, const struct zn_rx_pkt *pkt, const uint8_t *f,
		  uint32_t len)
{
	uint64_t tag = pt_tag(f, len);
	struct seen *s;

	(void)arg;
	if (len != FRAME_LEN || tag >= sizeof(seen) / sizeof(seen[0]) || pkt->queue != q) {
		foreign++;
		return;
	}
	s = &seen[tag];
	if (s->copies++)
		return;
	s->queue = (int16_t)q;
	s->flags = pkt->flags;
	s->hash = pkt->rss_hash;
}

static unsigned arrived(void)
{
	unsigned n = 0;

	for (size_t i = 0; i < sizeof(seen) / sizeof(seen[0]); i++)
		n += seen[i].copies;
	return n;
}

static void reset_seen(void)
{
	for (size_t i = 0; i < sizeof(seen) / sizeof(seen[0]); i++)
		seen[i] = (struct seen){ .queue = -1 };
	foreign = 0;
}

/* Sends frame `tag` of flow f; the tag indexes seen[]. */
static bool send_flow(const struct pt_flow *f, uint64_t tag)
{
	uint8_t frame[FRAME_LEN];

	return pt_build(frame, FRAME_LEN, p1.info.mac, p0.info.mac, f, tag) &&
	       pt_send(&p0, 0, frame, FRAME_LEN) == 0;
}

static const char *kind_name(const struct pt_flow *f)
{
	static const char *const n[] = { "v4/udp", "v4/tcp", "v4/other", "v6/udp", "v6/tcp",
					 "v6/other" };

	return n[(f->ipv == 6 ? 3 : 0) + (f->proto == 17 ? 0 : f->proto == 6 ? 1 : 2)];
}

/* Phase 1/2: every flow once; each frame on its predicted queue. */
static void rss_phase(const struct zn_rss_conf *rss, const char *name)
{
	unsigned sent = 0, wrong_q = 0, wrong_h = 0, hashed = 0, lost = 0, dup = 0;
	unsigned per_q[NQ] = { 0 };
	int rc;

	rc = zn_port_rss_set(p1.p, rss);
	if (!tap_check(rc == 0, "%s: zn_port_rss_set (%s)", name, strerror(-rc)))
		return;
	reset_seen();
	for (unsigned i = 0; i < FLOWS; i++) {
		sent += send_flow(&flows[i], i);
		if (i % PT_BURST == PT_BURST - 1)	/* keep the RX ring from filling */
			pt_rx(&p1, on_rx, NULL);
	}
	for (uint64_t end = zn_now_ms() + RX_WAIT_MS; zn_now_ms() < end && arrived() < FLOWS;)
		pt_rx(&p1, on_rx, NULL);
	for (unsigned i = 0; i < FLOWS; i++) {
		uint32_t h;
		uint16_t want = predict(rss, &flows[i], &h);
		const struct seen *s = &seen[i];

		if (s->queue < 0) {
			lost++;
			continue;
		}
		dup += s->copies > 1;
		per_q[s->queue]++;
		if (s->queue != want && wrong_q++ < SHOW_MAX)
			tap_diag("%s: flow %u (%s) on queue %d, Toeplitz %#010x says entry %u -> "
				 "queue %u", name, i, kind_name(&flows[i]), s->queue, h,
				 h % rss->table_size, want);
		if (s->flags & ZN_RX_F_RSS_HASH) {
			hashed++;
			if (s->hash != h && wrong_h++ < SHOW_MAX)
				tap_diag("%s: flow %u (%s): rss_hash %#010x, Toeplitz %#010x", name,
					 i, kind_name(&flows[i]), s->hash, h);
		}
	}
	tap_check(sent == FLOWS && lost == 0 && dup == 0 && foreign == 0,
		  "%s: %u flows sent, every frame arrived once (lost %u, duplicated %u, foreign %u)",
		  name, sent, lost, dup, foreign);
	tap_check(wrong_q == 0 && lost < FLOWS,
		  "%s: every frame on the queue the Toeplitz hash picks (%u wrong)", name, wrong_q);
	tap_check(hashed == FLOWS - lost && wrong_h == 0,
		  "%s: rss_hash reported on %u of %u frames, equal to Toeplitz (%u differ)", name,
		  hashed, FLOWS - lost, wrong_h);
	tap_check(per_q[0] && per_q[1] && per_q[2] && per_q[3],
		  "%s: the flows cover every queue (%u %u %u %u), so the check means something",
		  name, per_q[0], per_q[1], per_q[2], per_q[3]);
}

/* Sends RULE_FRAMES frames of flow f (tags base..) plus every other flow once;
 * returns the queue each of f's frames used (-1: mixed or lost), and counts
 * other flows off their RSS queue in *others_wrong. */
static int rule_round(const struct zn_rss_conf *rss, unsigned fi, uint64_t base,
		      unsigned *others_wrong)
{
	int q = -2;

	reset_seen();
	for (unsigned k = 0; k < RULE_FRAMES; k++)
		send_flow(&flows[fi], base + k);
	pt_rx(&p1, on_rx, NULL);
	for (unsigned i = 0; i < FLOWS; i++) {
		if (i != fi)
			send_flow(&flows[i], i);
		if (i % PT_BURST == PT_BURST - 1)
			pt_rx(&p1, on_rx, NULL);
	}
	/* counts from the start of the round: pt_rx above may have taken some */
	for (uint64_t end = zn_now_ms() + RX_WAIT_MS;
	     zn_now_ms() < end && arrived() < FLOWS - 1 + RULE_FRAMES;)
		pt_rx(&p1, on_rx, NULL);
	for (unsigned k = 0; k < RULE_FRAMES; k++) {
		int got = seen[base + k].queue;

		q = q == -2 ? got : q == got ? q : -1;
	}
	*others_wrong = 0;
	for (unsigned i = 0; i < FLOWS; i++) {
		uint32_t h;

		if (i != fi && seen[i].queue != predict(rss, &flows[i], &h))
			(*others_wrong)++;
	}
	return q < 0 ? -1 : q;
}

static void rule_phase(const struct zn_rss_conf *rss, unsigned fi, bool port_only,
		       unsigned shift, const char *name)
{
	struct pt_flow *f = &flows[fi];
	struct zn_flow_match m = { .ip_version = f->ipv, .ip_proto = f->proto };
	uint64_t base = FLOWS + (port_only ? RULE_FRAMES : 0);
	unsigned wrong;
	uint32_t h, id = 0;
	uint16_t rss_q, k;
	int got, rc;

	/* The port-only rule needs a destination port no other flow has. */
	if (port_only)
		f->dport = 7777;
	rss_q = predict(rss, f, &h);
	k = (uint16_t)((rss_q + shift) % NQ);
	m.dst_port = htons(f->dport);
	if (!port_only) {
		memcpy(m.src_ip, f->src, f->ipv == 4 ? 4 : 16);
		memcpy(m.dst_ip, f->dst, f->ipv == 4 ? 4 : 16);
		m.src_port = htons(f->sport);
	}
	rc = zn_port_flow_add(p1.p, &m, k, &id);
	if (!tap_check(rc == 0, "%s: zn_port_flow_add to queue %u (%s)", name, k, strerror(-rc)))
		return;
	got = rule_round(rss, fi, base, &wrong);
	tap_check(got == k, "%s: all %d frames of the flow on queue %u, not RSS's %u (got %d)",
		  name, RULE_FRAMES, k, rss_q, got);
	tap_check(wrong == 0, "%s: every other flow kept its RSS queue (%u did not)", name, wrong);
	rc = zn_port_flow_del(p1.p, id);
	tap_check(rc == 0, "%s: zn_port_flow_del (%s)", name, strerror(-rc));
	got = rule_round(rss, fi, base, &wrong);
	tap_check(got == rss_q && wrong == 0,
		  "%s: freed: the flow is back on its RSS queue %u (got %d; %u others off)", name,
		  rss_q, got, wrong);
}

int main(int argc, char **argv)
{
	const struct pt_conf c0 = { .nrxq = 1, .ntxq = 1 };
	const struct pt_conf c1 = { .nrxq = NQ, .ntxq = 1, .own_payload = true };
	struct zn_rss_conf rss = { .hash_types = ZN_RSS_IPV4 | ZN_RSS_IPV4_TCP | ZN_RSS_IPV4_UDP |
					      ZN_RSS_IPV6 | ZN_RSS_IPV6_TCP | ZN_RSS_IPV6_UDP };

	if (argc != 3) {
		fprintf(stderr, "usage: bnxt_steer DEV0 DEV1\n");
		return 2;
	}
	if (!tap_check(pt_open(&p0, argv[1], &c0) == 0 && pt_open(&p1, argv[2], &c1) == 0,
		       "both ports up, port1 with %d queues", NQ))
		goto out;
	make_flows();
	/* Any key will do; not the well-known one, so that a model that ignores
	 * the key we give cannot pass. */
	for (int i = 0; i < ZN_RSS_KEY_LEN; i++)
		rss.key[i] = toeplitz_ms_key[(i * 7) % ZN_RSS_KEY_LEN] ^ (uint8_t)(i * 29);
	rss.table_size = p1.info.rss_table_size ? p1.info.rss_table_size : 64;
	if (rss.table_size > ZN_RSS_MAX_TABLE)
		rss.table_size = ZN_RSS_MAX_TABLE;
	/* irregular, so that an entry off by one lands elsewhere */
	for (uint32_t i = 0; i < rss.table_size; i++)
		rss.table[i] = (uint16_t)((i * 5 + i / 7 + 1) % NQ);
	tap_diag("RSS table %u entries", rss.table_size);

	rss_phase(&rss, "RSS 4-tuple");
	rss.hash_types = ZN_RSS_IPV4 | ZN_RSS_IPV6;
	rss_phase(&rss, "RSS 2-tuple");
	rss.hash_types = ZN_RSS_IPV4 | ZN_RSS_IPV4_TCP | ZN_RSS_IPV4_UDP | ZN_RSS_IPV6 |
			 ZN_RSS_IPV6_TCP | ZN_RSS_IPV6_UDP;
	if (zn_port_rss_set(p1.p, &rss) == 0) {
		rule_phase(&rss, 0, false, 1, "5-tuple rule (v4/udp)");
		rule_phase(&rss, 4, true, 2, "dst-port rule (v6/tcp)");
	}
	tap_check(p1.bad_segs == 0 && p0.bad_cookies == 0,
		  "segments and cookies from the driver were all valid (%" PRIu64 ", %" PRIu64 ")",
		  p1.bad_segs, p0.bad_cookies);
out:
	pt_close(&p1);
	pt_close(&p0);
	return tap_done("bnxt_steer");
}
