/* SPDX-License-Identifier: MIT */
/*
 * core/net's TCP engine (RFC 9293), internal: one engine per interface,
 * run to completion on the thread that polls it (no threads, locks or
 * syscalls). The engine knows nothing of frames below IPv4's payload: it is
 * given TCP segments (zn_tcp_input) and gives segments to send through the
 * environment's output hook, which prepends the Ethernet and IPv4 headers
 * (the netif) or records them (unit tests).
 *
 * Zero-copy both ways:
 *  - receive: a segment's payload stays in the buffers the NIC filled; the
 *    engine keeps the descriptor (struct zn_udp_rx: {va, buf_id, off, len}
 *    per buffer) on the connection's in-order or out-of-order queue, trims
 *    overlaps by moving off/len, and zn_tcp_recv hands the descriptors up.
 *    The caller gives the buffers back with zn_tcp_rx_release; until then
 *    they count against the advertised window. Buffers the engine does not
 *    keep go back through env.rx_put before zn_tcp_input returns.
 *  - send: zn_tcp_send queues the caller's segments by IOVA (and VA, which
 *    the software checksum reads) with a cookie; every transmission and
 *    retransmission points at them; the cookie comes back through the
 *    connection's tx_done once the peer acknowledged every byte of it (or
 *    with an error when the connection dies first).
 *
 * Time: env.clock_ns (injected in tests); zn_tcp_poll runs the timers.
 */
#ifndef ZCNIC_CORE_NET_TCP_H
#define ZCNIC_CORE_NET_TCP_H

#include <stdbool.h>
#include <stdint.h>

#include "core/net/netif.h"

struct zn_tcp;
struct zn_tcp_conn;

enum zn_tcp_state {
	ZN_TCP_CLOSED = 0,
	ZN_TCP_LISTEN,
	ZN_TCP_SYN_SENT,
	ZN_TCP_SYN_RCVD,
	ZN_TCP_ESTABLISHED,
	ZN_TCP_FIN_WAIT_1,
	ZN_TCP_FIN_WAIT_2,
	ZN_TCP_CLOSE_WAIT,
	ZN_TCP_CLOSING,
	ZN_TCP_LAST_ACK,
	ZN_TCP_TIME_WAIT,
	ZN_TCP_NSTATES
};

/* Header flags (byte 13). */
#define ZN_TCP_FIN	0x01
#define ZN_TCP_SYN	0x02
#define ZN_TCP_RST	0x04
#define ZN_TCP_PSH	0x08
#define ZN_TCP_ACK	0x10
#define ZN_TCP_URG	0x20
#define ZN_TCP_ECE	0x40
#define ZN_TCP_CWR	0x80

#define ZN_TCP_HLEN		20
#define ZN_TCP_MAX_HLEN		60
#define ZN_TCP_MAX_SACK		4
/* Payload pieces of one emitted segment: a netif frame has ZN_TX_MAX_SEGS
 * slots and the first holds the headers. */
#define ZN_TCP_OUT_PIECES	(ZN_TX_MAX_SEGS - 1)

/* A parsed TCP header: every field in host order. */
struct zn_tcp_hdr {
	uint16_t sport, dport;
	uint32_t seq, ack;
	uint8_t flags;
	uint16_t hlen;			/* bytes, 20..60 */
	uint16_t wnd;			/* as on the wire (not scaled) */
	uint16_t urp;
	/* options */
	bool has_mss, has_ws, has_ts, sack_ok;
	uint16_t mss;
	uint8_t ws;
	uint32_t tsval, tsecr;
	uint8_t nsack;
	uint32_t sack[ZN_TCP_MAX_SACK][2];	/* left, right edges */
};

/* Why a segment was not accepted by the parser. */
enum zn_tcp_parse_err {
	ZN_TCP_PARSE_OK = 0,
	ZN_TCP_PARSE_SHORT,		/* shorter than 20 bytes or than its data offset */
	ZN_TCP_PARSE_DOFF,		/* data offset < 5 */
	ZN_TCP_PARSE_OPT,		/* an option with a bad length or value */
	ZN_TCP_PARSE_FLAGS,		/* impossible flag combination (SYN+FIN, SYN+RST) */
	ZN_TCP_PARSE_CSUM,
	ZN_TCP_PARSE_NERR
};

/*
 * Parse and validate the header at h (avail contiguous bytes, at least the
 * header's data offset) of a segment of seg_len bytes (header + data).
 * Options: MSS (len 4, SYN only), window scale (len 3, shift clamped to 14
 * as RFC 7323 2.3 says), timestamps (len 10), SACK-permitted (len 2, SYN
 * only), SACK (len 2 + 8n, n 1..4); NOP and EOL; unknown options with a
 * sane length are skipped. Checksum not checked here (zn_tcp_csum_ok).
 */
enum zn_tcp_parse_err zn_tcp_parse(const uint8_t *h, uint32_t avail, uint32_t seg_len,
				   struct zn_tcp_hdr *out);
/* The TCP checksum of a whole segment (header + data, seg_len bytes in f
 * from off) over IPv4 src/dst (network order): true when it verifies. */
bool zn_tcp_csum_ok(const struct zn_frame *f, uint32_t off, uint32_t seg_len, uint32_t src,
		    uint32_t dst);

/* ---- the engine --------------------------------------------------------- */

/* One segment to send: the TCP header (checksum filled) and the payload by
 * reference. src/dst in network order. */
struct zn_tcp_out {
	uint32_t src, dst;
	const uint8_t *hdr;
	uint32_t hlen;
	uint32_t npiece;
	struct zn_net_seg piece[ZN_TCP_OUT_PIECES];
	uint32_t len;			/* payload bytes */
	/* LSO (env.lso_max): len is more than one segment, the device cuts it
	 * into mss-byte segments; 0 otherwise. */
	uint32_t mss;
	/* The send chunks the payload points into (env.tx_track): indices
	 * ref_first .. ref_first + ref_n - 1 of conn's send queue. */
	struct zn_tcp_conn *conn;
	uint32_t ref_first, ref_n;
};

/* Congestion control (RFC 9438 CUBIC by default, as Linux). */
enum zn_tcp_cc {
	ZN_TCP_CC_CUBIC = 0,
	ZN_TCP_CC_NEWRENO,		/* RFC 5681 + RFC 6582 */
};

struct zn_tcp_env {
	uint32_t ip;			/* ours, network order */
	/* Send one segment: 0, or < 0 if it could not go (the engine treats it
	 * as lost on the wire: the retransmission timer recovers). */
	int (*output)(void *ctx, const struct zn_tcp_out *o);
	/* Give a received descriptor's buffers back to their provider. */
	void (*rx_put)(void *ctx, const struct zn_udp_rx *d);
	uint64_t (*clock_ns)(void *ctx);	/* NULL: CLOCK_MONOTONIC */
	/* Receive buffers RX queue q can still fill (posted or free to post),
	 * UINT32_MAX when it cannot say; NULL: no limit. A zcrx area the
	 * application keeps closes the window by it (zn_tcp_rx_room_grew
	 * reopens it). */
	uint32_t (*rx_room)(void *ctx, uint16_t q);
	void *ctx;
	/* Tuning; 0 = the default in parentheses. */
	uint32_t mss;			/* our MSS to advertise (1460) */
	uint32_t rcv_buf;		/* receive window bytes, incl. unreleased (4 MiB) */
	uint32_t ooo_max;		/* out-of-order bytes held (rcv_buf / 2) */
	uint64_t time_wait_ns;		/* TIME_WAIT (2 MSL = 60 s; tests: short) */
	uint64_t rto_min_ns;		/* (200 ms, as Linux; RFC 6298 says 1 s) */
	uint64_t rto_init_ns;		/* (1 s, RFC 6298 2.1) */
	uint64_t delack_ns;		/* (40 ms) */
	uint32_t syn_retries;		/* (6) */
	uint32_t data_retries;		/* (15) */
	bool nodelay;			/* Nagle off for every connection */
	enum zn_tcp_cc cc;		/* every new connection's (CUBIC) */
	/* The output's device fills the TCP checksum (ZN_TX_F_L4_CSUM): the
	 * engine leaves it 0. */
	bool tx_csum_offload;
	/* The output takes LSO segments of up to this many payload bytes
	 * (ZN_TX_F_LSO; 0: one MSS per segment): a run of full MSS segments
	 * goes out as one zn_tcp_out with mss set. */
	uint32_t lso_max;
	/*
	 * The output keeps references to the payload (a TX ring): for every
	 * segment it accepted with ref_n > 0 it calls zn_tcp_tx_complete once
	 * the device read it (or it was dropped unsent). A send's cookie then
	 * comes back only when its bytes are acknowledged and no frame pointing
	 * into them is still in the device. false: the output is done with the
	 * payload when it returns (tests).
	 */
	bool tx_track;
	const uint8_t *isn_key;		/* 16 bytes; NULL: random (RFC 6528 secret) */
};

/* What a connection tells its owner; from inside zn_tcp_input/zn_tcp_poll. */
enum {
	ZN_TCP_EV_CONNECTED = 1u << 0,	/* the handshake completed */
	ZN_TCP_EV_READABLE = 1u << 1,	/* data or EOF to receive */
	ZN_TCP_EV_WRITABLE = 1u << 2,	/* send queue room */
	ZN_TCP_EV_ACCEPT = 1u << 3,	/* a listener: a connection to accept */
	ZN_TCP_EV_ERROR = 1u << 4,	/* reset, refused, timed out: zn_tcp_error */
};

struct zn_tcp_cb {
	void (*event)(void *arg, struct zn_tcp_conn *c, unsigned ev);
	/* A send's cookie: status 0 when all of its bytes were acknowledged,
	 * < 0 (the connection's error) when they never will be. Must not call
	 * back into the engine. */
	void (*tx_done)(void *arg, struct zn_tcp_conn *c, uint64_t cookie, int32_t status);
	void *arg;
};

struct zn_tcp_stats {
	uint64_t rx_segs, tx_segs, tx_data_segs, tx_bytes, rx_bytes;
	uint64_t rx_bad[ZN_TCP_PARSE_NERR];	/* by parse error */
	uint64_t rx_no_conn;			/* answered with RST */
	uint64_t rx_out_of_window, rx_dup, rx_ooo, rx_ooo_drop, rx_paws;
	uint64_t rx_challenge;			/* challenge ACKs sent (RFC 5961) */
	/* retrans: segments resent (that the output took); sack_retrans: of
	 * those, holes resent in SACK recovery (RFC 6675) */
	uint64_t tx_rst, retrans, rto_fired, fast_retrans, sack_retrans, dup_acks, zwp;
	/* the SACK scoreboard: D-SACK blocks received (RFC 2883), ranges it
	 * had no room for, times the peer reneged (its board dropped),
	 * recovery episodes (RFC 6675) */
	uint64_t dsack_rx, sack_sb_full, sack_reneged, sack_recoveries;
	/* RACK-TLP (RFC 8985): tail loss probes sent; those that repaired a
	 * loss; recoveries RACK's time rule started (before DupThresh) */
	uint64_t tlp_probes, tlp_recovered, rack_recoveries;
	/* out_fail: segments the output refused (no TX slot, ARP pending):
	 * never counted as sent or resent; out_deferred: times a connection
	 * then waited (backed off) before trying again */
	uint64_t out_fail, out_deferred;
	uint64_t keepalive_probes, keepalive_drops;	/* drops: connections ended */
	uint64_t user_timeouts;
	uint64_t tx_done_late;			/* acked, cookie held for the device */
};

int zn_tcp_create(const struct zn_tcp_env *env, struct zn_tcp **out);
/* Aborts what is left (no RST), giving every buffer back and every cookie
 * its error. */
void zn_tcp_destroy(struct zn_tcp *t);
void zn_tcp_stats(const struct zn_tcp *t, struct zn_tcp_stats *st);

/*
 * A segment from the wire: src/dst IPv4 (network order), the TCP header's
 * contiguous bytes (at least its data offset), seg_len = header + data, and
 * the data by reference in d (d->len bytes, the engine takes ownership of
 * d's buffers: they go back through rx_put if not kept). d may be NULL when
 * there is no data. The checksum was verified by the caller.
 */
void zn_tcp_input(struct zn_tcp *t, uint32_t src, uint32_t dst, const uint8_t *h,
		  uint32_t avail, uint32_t seg_len, const struct zn_udp_rx *d);
/* The device is done with a segment output() accepted (env.tx_track):
 * o->conn, o->ref_first, o->ref_n as they were. */
void zn_tcp_tx_complete(struct zn_tcp *t, struct zn_tcp_conn *c, uint32_t ref_first,
			uint32_t ref_n);
/* rx_room grew (buffers came back): connections whose window was nearly
 * shut send a window update if it opened by an MSS. */
void zn_tcp_rx_room_grew(struct zn_tcp *t);
/* Timers (retransmission, delayed ACK, persist, TIME_WAIT). */
void zn_tcp_poll(struct zn_tcp *t);
/* The earliest timer deadline (ns), UINT64_MAX when none. */
uint64_t zn_tcp_next_timer(const struct zn_tcp *t);

/* Active open from lport (network order; 0 = an ephemeral port) to dst.
 * 0 and *out (SYN sent), or -EADDRINUSE, -EINVAL, -ENOMEM. */
int zn_tcp_conn_open(struct zn_tcp *t, uint16_t lport, const struct zn_addr4 *dst,
		   const struct zn_tcp_cb *cb, struct zn_tcp_conn **out);
/* Passive open on port (network order): -EADDRINUSE, -EINVAL, -ENOMEM. */
int zn_tcp_conn_listen(struct zn_tcp *t, uint16_t port, uint32_t backlog, const struct zn_tcp_cb *cb,
		  struct zn_tcp_conn **out);
/* A connection that completed its handshake: 0, or -EAGAIN (none yet). */
int zn_tcp_conn_accept(struct zn_tcp_conn *l, const struct zn_tcp_cb *cb, struct zn_tcp_conn **out);
/* Would zn_tcp_conn_accept find a connection (a listener's poll)? */
bool zn_tcp_accept_ready(const struct zn_tcp_conn *l);

/*
 * Queue nseg segments (IOVA mapped to the device, VA for the checksum) to
 * send, one cookie for all of them. 0, -EAGAIN (send queue full), -EPIPE
 * (shut down for writing or closed), the connection's error, -EINVAL.
 */
int zn_tcp_send(struct zn_tcp_conn *c, const struct zn_net_seg *segs, uint32_t nseg,
		uint64_t cookie);
/* zn_tcp_send's flags: MSG_MORE's meaning, more comes soon: a segment
 * shorter than the MSS waits until a send without it (or shutdown). */
#define ZN_TCP_SEND_MORE	1u
int zn_tcp_send_flags(struct zn_tcp_conn *c, const struct zn_net_seg *segs, uint32_t nseg,
		      uint64_t cookie, unsigned flags);
/* TCP_CORK: while on, only full segments go; off sends what waits (no
 * 200 ms ceiling as Linux has: the application uncorks). */
void zn_tcp_set_cork(struct zn_tcp_conn *c, bool on);
/* In-order data: up to n descriptors, at most max bytes (a descriptor is
 * split: the rest stays queued and owns the buffers it still points into).
 * 0 with zn_tcp_eof: the peer closed. */
uint32_t zn_tcp_recv(struct zn_tcp_conn *c, struct zn_udp_rx *out, uint32_t n, uint32_t max);
/* Give received data back (buffers to their provider; window reopens). */
void zn_tcp_rx_release(struct zn_tcp_conn *c, const struct zn_udp_rx *d);
uint32_t zn_tcp_rx_bytes(const struct zn_tcp_conn *c);	/* queued in order */
bool zn_tcp_eof(const struct zn_tcp_conn *c);
/* No more sends: FIN after the queued data. 0 or -ENOTCONN. */
int zn_tcp_conn_shutdown(struct zn_tcp_conn *c);
/* Orderly close (FIN) or, with unread data or abort set, RST. The handle
 * is gone; the engine finishes the connection (FIN_WAIT, TIME_WAIT). */
void zn_tcp_close(struct zn_tcp_conn *c, bool abort);
int zn_tcp_error(const struct zn_tcp_conn *c);
enum zn_tcp_state zn_tcp_state(const struct zn_tcp_conn *c);
const char *zn_tcp_state_name(unsigned s);
void zn_tcp_set_nodelay(struct zn_tcp_conn *c, bool on);
/*
 * Keepalive (SO_KEEPALIVE with TCP_KEEPIDLE, TCP_KEEPINTVL, TCP_KEEPCNT):
 * after idle_ms without a segment from the peer, a probe every intvl_ms;
 * cnt probes unanswered end the connection with -ETIMEDOUT (and a RST).
 * 0 for a value: Linux's default (7200 s, 75 s, 9). -EINVAL when off is
 * not asked and a connection cannot have it (listener).
 */
int zn_tcp_set_keepalive(struct zn_tcp_conn *c, bool on, uint32_t idle_ms, uint32_t intvl_ms,
			 uint32_t cnt);
/* TCP_USER_TIMEOUT: data (or a SYN) unacknowledged for ms since the ACKs
 * last moved ends the connection with -ETIMEDOUT; the retransmission timer
 * never waits past it. 0: off (the retry counts decide). */
void zn_tcp_set_user_timeout(struct zn_tcp_conn *c, uint32_t ms);
/* Switch c's congestion control (its window carries over): 0 or -EINVAL. */
int zn_tcp_set_cc(struct zn_tcp_conn *c, enum zn_tcp_cc which);
const char *zn_tcp_cc_name(const struct zn_tcp_conn *c);
uint32_t zn_tcp_cwnd(const struct zn_tcp_conn *c);	/* bytes */
uint32_t zn_tcp_ssthresh(const struct zn_tcp_conn *c);
/* Replace the owner's callbacks (NULL: none). */
void zn_tcp_set_cb(struct zn_tcp_conn *c, const struct zn_tcp_cb *cb);
void zn_tcp_addrs(const struct zn_tcp_conn *c, struct zn_addr4 *local, struct zn_addr4 *remote);

#endif
