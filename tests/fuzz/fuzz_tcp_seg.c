/*
 * libFuzzer target: the TCP segment parser (core/net/tcp_opt.c) and the
 * engine behind it (core/net/tcp_*.c) fed arbitrary segments from one peer.
 *
 * Input: a sequence of records {u8 ctl, u16 len (big endian), len bytes of
 * TCP segment (header + data)} from 10.0.0.1 to 10.0.0.2, where a listener
 * waits on port 80 and a connection from port 81 to 10.0.0.1:40000 is in
 * SYN-SENT. ctl bit 0: the clock moves 300 ms and the timers run first;
 * bit 1: the application receives and releases everything; bit 2: it sends
 * 1000 bytes on every connection it has; bit 3: the payload is split over
 * two buffers; bit 4: it closes its connections (bit 5: by abort); bit 6:
 * the segment's ACK field becomes the end of the last segment the engine
 * sent, bit 7: its sequence field the last ACK the engine sent (so that
 * seeds can follow sequence numbers the engine picks).
 *
 * The output keeps references like a TX ring (env.tx_track): each data
 * segment is a frame in flight, and before every record the older half of
 * the frames in flight complete (so ACKs and completions interleave, and
 * connections closed with frames out must live until their last one).
 *
 * Checked: the parser stays inside the bytes and its results are sane;
 * every segment the engine emits parses and has a right checksum; every
 * payload buffer comes back exactly once (a second put traps) and none is
 * left when the engine is destroyed; every send completes exactly once;
 * a completion never reaches a freed connection (ASan).
 */
#include <errno.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "core/net/tcp.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define CHECK(c) do { if (!(c)) __builtin_trap(); } while (0)
#define NBUF	4096
#define US	0x0200000au	/* 10.0.0.2, network order on little endian */
#define PEER	0x0100000au
#define NCONN	16
#define NFRAME	1024

static uint8_t *bufs[NBUF];
static uint32_t nbufs, nheld;
static uint64_t now;
static uint32_t sends, dones;
static struct zn_tcp_conn *conns[NCONN];
static uint32_t nconns;
static uint8_t txdata[1000];
static uint32_t last_end, last_ack;
/* frames "in the TX ring": FIFO */
static struct { struct zn_tcp_conn *c; uint32_t first, n; } frames[NFRAME];
static uint32_t fhead, ftail;

static uint64_t clock_ns(void *ctx)
{
	(void)ctx;
	return now;
}

static int output(void *ctx, const struct zn_tcp_out *o)
{
	struct zn_tcp_hdr h;
	uint32_t s;
	uint16_t f;

	(void)ctx;
	CHECK(o->hlen >= ZN_TCP_HLEN && o->hlen <= ZN_TCP_MAX_HLEN && o->npiece <= ZN_TCP_OUT_PIECES);
	CHECK(zn_tcp_parse(o->hdr, o->hlen, o->hlen + o->len, &h) == ZN_TCP_PARSE_OK);
	CHECK(o->src == US && o->dst == PEER);
	last_end = h.seq + o->len + !!(h.flags & ZN_TCP_SYN) + !!(h.flags & ZN_TCP_FIN);
	last_ack = h.ack;
	s = zn_csum_fold(zn_ipv4_pseudo(o->src, o->dst, ZN_IPPROTO_TCP,
					(uint16_t)(o->hlen + o->len)));
	s += zn_csum_fold(zn_csum_add(0, o->hdr, o->hlen));
	{
		uint32_t len = 0, off = 0;
		uint8_t *flat;

		for (uint32_t k = 0; k < o->npiece; k++)
			len += o->piece[k].len;
		CHECK(len == o->len);
		flat = malloc(len ? len : 1);
		for (uint32_t k = 0; k < o->npiece; k++) {
			memcpy(flat + off, o->piece[k].va, o->piece[k].len);
			off += o->piece[k].len;
		}
		s += zn_csum_fold(zn_csum_add(0, flat, len));
		free(flat);
	}
	f = zn_csum_fold(s);
	CHECK(f == 0xffff);
	if (o->len && o->ref_n) {
		if (ftail - fhead == NFRAME)
			return -EAGAIN;	/* ring full: lost, the engine resends */
		CHECK(o->conn && o->ref_n <= o->npiece);
		frames[ftail % NFRAME].c = o->conn;
		frames[ftail % NFRAME].first = o->ref_first;
		frames[ftail % NFRAME].n = o->ref_n;
		ftail++;
	}
	return 0;
}

/* The NIC finished the older half of the frames in flight. */
static void complete_frames(struct zn_tcp *t, bool all)
{
	uint32_t n = all ? ftail - fhead : (ftail - fhead + 1) / 2;

	while (n--) {
		zn_tcp_tx_complete(t, frames[fhead % NFRAME].c, frames[fhead % NFRAME].first,
				   frames[fhead % NFRAME].n);
		fhead++;
	}
}

static void rx_put(void *ctx, const struct zn_udp_rx *d)
{
	(void)ctx;
	for (uint32_t k = 0; k < d->nseg; k++) {
		uint32_t id = d->seg[k].buf_id;

		CHECK(id < nbufs && bufs[id]);
		free(bufs[id]);
		bufs[id] = NULL;
		nheld--;
	}
}

static void tx_done(void *arg, struct zn_tcp_conn *c, uint64_t cookie, int32_t status)
{
	(void)arg;
	(void)c;
	(void)status;
	CHECK(cookie < sends);
	dones++;
}

static void add_conn(struct zn_tcp_conn *c)
{
	if (nconns < NCONN)
		conns[nconns++] = c;
	else
		zn_tcp_close(c, true);
}

static void app(struct zn_tcp_conn *l, uint8_t ctl)
{
	struct zn_tcp_cb cb = { .tx_done = tx_done };
	struct zn_tcp_conn *c;

	while (zn_tcp_conn_accept(l, &cb, &c) == 0)
		add_conn(c);
	for (uint32_t i = 0; i < nconns; i++) {
		struct zn_udp_rx d[8];
		uint32_t n;

		if (ctl & 2)
			while ((n = zn_tcp_recv(conns[i], d, 8, 700)))
				for (uint32_t k = 0; k < n; k++)
					zn_tcp_rx_release(conns[i], &d[k]);
		if (ctl & 4) {
			struct zn_net_seg s = { .iova = 0x1000, .va = txdata, .len = sizeof(txdata) };

			if (zn_tcp_send(conns[i], &s, 1, sends) == 0)
				sends++;
		}
	}
	if (ctl & 16) {
		for (uint32_t i = 0; i < nconns; i++)
			zn_tcp_close(conns[i], ctl & 32);
		nconns = 0;
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const uint8_t key[16] = { 7 };
	struct zn_tcp_env env = { .ip = US, .output = output, .rx_put = rx_put,
				  .clock_ns = clock_ns, .rcv_buf = 65536, .ooo_max = 8192,
				  .time_wait_ns = 1000000000ull, .isn_key = key, .tx_track = true };
	struct zn_tcp_cb cb = { .tx_done = tx_done };
	struct zn_addr4 dst = { .ip = PEER, .port = __builtin_bswap16(40000) };
	struct zn_tcp *t;
	struct zn_tcp_conn *l, *c;
	size_t off = 0;

	now = 1000000000ull;
	last_end = last_ack = 0;
	nbufs = nheld = sends = dones = nconns = 0;
	fhead = ftail = 0;
	CHECK(zn_tcp_create(&env, &t) == 0);
	CHECK(zn_tcp_conn_listen(t, __builtin_bswap16(80), 4, &cb, &l) == 0);
	CHECK(zn_tcp_conn_open(t, __builtin_bswap16(81), &dst, &cb, &c) == 0);
	add_conn(c);
	while (off + 3 <= size && nbufs + 2 <= NBUF) {
		uint8_t ctl = data[off];
		uint32_t len = (uint32_t)data[off + 1] << 8 | data[off + 2];
		uint8_t *seg;
		struct zn_tcp_hdr h;
		struct zn_udp_rx d = { 0 };
		bool ok;

		off += 3;
		complete_frames(t, false);
		if (len > size - off)
			len = (uint32_t)(size - off);
		/* exactly len bytes in their own allocation: ASan sees any overread */
		seg = malloc(len ? len : 1);
		memcpy(seg, data + off, len);
		off += len;
		if ((ctl & 64) && len >= 12) {
			seg[8] = (uint8_t)(last_end >> 24);
			seg[9] = (uint8_t)(last_end >> 16);
			seg[10] = (uint8_t)(last_end >> 8);
			seg[11] = (uint8_t)last_end;
		}
		if ((ctl & 128) && len >= 8) {
			seg[4] = (uint8_t)(last_ack >> 24);
			seg[5] = (uint8_t)(last_ack >> 16);
			seg[6] = (uint8_t)(last_ack >> 8);
			seg[7] = (uint8_t)last_ack;
		}
		if (ctl & 1) {
			now += 300000000ull;
			zn_tcp_poll(t);
		}
		ok = zn_tcp_parse(seg, len, len, &h) == ZN_TCP_PARSE_OK;
		if (ok) {
			CHECK(h.hlen >= ZN_TCP_HLEN && h.hlen <= len && h.hlen % 4 == 0);
			CHECK(h.nsack <= ZN_TCP_MAX_SACK && h.ws <= 14);
			CHECK(!(h.flags & ZN_TCP_SYN) || !(h.flags & (ZN_TCP_FIN | ZN_TCP_RST)));
			d.len = len - h.hlen;
		}
		if (ok && d.len) {
			uint32_t n1 = (ctl & 8) ? d.len / 2 : d.len, parts = n1 < d.len ? 2 : 1;

			for (uint32_t p = 0; p < parts; p++) {
				uint32_t from = p ? n1 : 0, n = p ? d.len - n1 : n1;

				bufs[nbufs] = malloc(n + 8);
				memcpy(bufs[nbufs] + 8, seg + h.hlen + from, n);
				d.seg[p].va = bufs[nbufs];
				d.seg[p].buf_id = nbufs;
				d.seg[p].off = 8;
				d.seg[p].len = n;
				nbufs++;
				nheld++;
			}
			d.nseg = (uint16_t)parts;
		}
		zn_tcp_input(t, PEER, US, seg, len, len, d.len ? &d : NULL);
		free(seg);
		app(l, ctl);
	}
	for (uint32_t i = 0; i < nconns; i++)
		zn_tcp_close(conns[i], false);
	zn_tcp_close(l, false);
	complete_frames(t, true);
	zn_tcp_destroy(t);
	CHECK(nheld == 0);
	CHECK(dones == sends);
	for (uint32_t i = 0; i < nbufs; i++)
		CHECK(!bufs[i]);
	return 0;
}
