/* SPDX-License-Identifier: MIT */
/*
 * Inside the TCP engine: the connection block, its queues, the congestion
 * control ops and the functions the tcp_*.c files share.
 *
 * Send queue: a ring of chunks, one per zn_tcp_send, each with the caller's
 * pieces and cookie and the sequence number of its first byte. Bytes are
 * sent and resent straight from the chunks; a chunk is over once snd_una
 * passed its last byte (or the connection died), and leaves the ring (its
 * cookie to tx_done), in order, once it is over and no frame pointing into
 * it is still in the device (env.tx_track). A connection freed with such
 * frames out stays allocated, unhashed, until the last one completes.
 *
 * Receive queue: a ring of descriptors in sequence order starting at
 * rcv_q_seq; out-of-order descriptors wait in tcp_ooo.c's sorted array.
 * Window = rcv_buf - (queued + held by the application + out of order),
 * and no more than the RX queue's buffers can take (env.rx_room, an MSS
 * per buffer, less what the queues hold).
 */
#ifndef ZCNIC_CORE_NET_TCP_PRIV_H
#define ZCNIC_CORE_NET_TCP_PRIV_H

#include "core/net/tcp.h"

#define TCP_LOG			"tcp"
#define TCP_TXQ			256	/* send chunks per connection */
#define TCP_RXQ			512	/* in-order descriptors per connection */
#define TCP_OOO_MAX		256	/* out-of-order descriptors per connection */
#define TCP_HASH		1024	/* connection table buckets */
#define TCP_MAX_WS		14
#define TCP_EPH_LO		49152	/* ephemeral ports (RFC 6335) */
#define TCP_EPH_HI		65535
#define TCP_DUPACK_THRESH	3
/* SACK scoreboard ranges per connection (tcp_sack.c says what happens
 * past it): more holes than a receiver's out-of-order queue usually has */
#define TCP_SB_MAX		32
/* RACK's log of first-transmission times (tcp_rack.c): marks per connection */
#define TCP_XLOG		64
#define TCP_RTO_MAX_NS		(60ull * 1000000000ull)
#define TCP_DEFAULT_MSS		536	/* a peer that sent no MSS (RFC 9293 3.7.1) */
/* waits after the output refused a segment: from a few polls to well under
 * the smallest RTO */
#define TCP_OUT_BACKOFF_MIN_NS	(20ull * 1000u)
#define TCP_OUT_BACKOFF_MAX_NS	(20ull * 1000000u)

static inline bool seq_lt(uint32_t a, uint32_t b) { return (int32_t)(a - b) < 0; }
static inline bool seq_le(uint32_t a, uint32_t b) { return (int32_t)(a - b) <= 0; }
static inline bool seq_gt(uint32_t a, uint32_t b) { return (int32_t)(a - b) > 0; }
static inline bool seq_ge(uint32_t a, uint32_t b) { return (int32_t)(a - b) >= 0; }

struct tcp_chunk {
	uint32_t seq;			/* of its first byte */
	uint32_t len;
	uint32_t nseg;
	struct zn_net_seg seg[ZN_UDP_MAX_SEGS];
	uint64_t cookie;
	uint32_t frames;		/* in the device, pointing into it */
	int32_t status;			/* for tx_done, once over */
	bool over;			/* acknowledged, or failed with status */
	bool late;			/* counted in tx_done_late */
};

/* A SACKed range of the send sequence, [l, r). */
struct tcp_sb_range {
	uint32_t l, r;
};

/* The octets before end (after the previous mark) first went at ts. */
struct tcp_xmit_mark {
	uint32_t end;
	uint64_t ts;
};

struct tcp_ooo_ent {
	uint32_t seq;
	struct zn_udp_rx d;
};

struct zn_tcp_conn;

/* Congestion control: NewReno (tcp_cc.c) and CUBIC (tcp_cubic.c, the
 * default) behind the same ops. */
struct zn_tcp_cc_ops {
	const char *name;
	void (*init)(struct zn_tcp_conn *c);
	/* snd_una advanced by acked bytes outside recovery */
	void (*on_ack)(struct zn_tcp_conn *c, uint32_t acked);
	/* third duplicate ACK: set ssthresh and cwnd for fast recovery */
	void (*on_loss)(struct zn_tcp_conn *c);
	/* recovery ends (the ACK covers recover) */
	void (*on_recovered)(struct zn_tcp_conn *c);
	void (*on_rto)(struct zn_tcp_conn *c);
};
extern const struct zn_tcp_cc_ops zn_tcp_newreno;
extern const struct zn_tcp_cc_ops zn_tcp_cubic;
const struct zn_tcp_cc_ops *zn_tcp_cc_of(enum zn_tcp_cc which);

/* NewReno's pieces CUBIC shares (RFC 5681 slow start, RFC 6582 recovery). */
void zn_tcp_reno_init(struct zn_tcp_conn *c);
void zn_tcp_reno_slow_start(struct zn_tcp_conn *c, uint32_t acked);
void zn_tcp_reno_on_recovered(struct zn_tcp_conn *c);

/* CUBIC's state (RFC 9438 4), windows in segments. */
struct tcp_cubic {
	uint64_t epoch_start;		/* ns; 0: no congestion avoidance epoch yet */
	double w_max;			/* the window at the last congestion event */
	double k;			/* s: when W_cubic reaches w_max again */
	double w_est;			/* the Reno-friendly estimate (4.3) */
	double cwnd_epoch;		/* cwnd when the epoch began */
};

struct zn_tcp_conn {
	struct zn_tcp *t;
	struct zn_tcp_conn *hnext;	/* hash chain (connected and listening) */
	struct zn_tcp_conn *lnext;	/* the engine's list of all connections */
	struct zn_tcp_conn *lprev;
	uint32_t lip, rip;		/* network order */
	uint16_t lport, rport;		/* network order */
	uint8_t state;
	bool hashed;
	bool user_closed;		/* the handle is gone: free when CLOSED */
	bool nodelay;
	bool cork, more;		/* TCP_CORK; the last send had MSG_MORE */
	int err;
	struct zn_tcp_cb cb;
	/* listener */
	uint32_t backlog, nq;		/* accept queue: complete connections */
	struct zn_tcp_conn *aq_head, *aq_tail;
	uint32_t nembryo;
	/* a passive child */
	struct zn_tcp_conn *parent;	/* its listener until accepted */
	struct zn_tcp_conn *aq_next;
	/* send sequence (RFC 9293 3.3.1) */
	uint32_t iss, snd_una, snd_nxt, snd_max;
	uint32_t snd_hi;		/* snd_max less a zero-window probe's byte */
	uint32_t snd_wnd, snd_wl1, snd_wl2, max_wnd;
	uint8_t snd_ws;			/* shift of the peer's windows */
	uint32_t mss;			/* what we send: min(peer's MSS, ours) */
	uint32_t snd_end;		/* sequence after the last byte queued */
	struct tcp_chunk *txq;
	uint32_t txq_head, txq_tail;
	bool fin_queued;		/* shutdown: FIN at snd_end */
	/* receive sequence */
	uint32_t irs, rcv_nxt, rcv_adv;	/* rcv_adv: right edge advertised */
	uint8_t rcv_ws;
	uint32_t rcv_buf;
	struct zn_udp_rx *rxq;
	uint32_t rxq_head, rxq_tail;
	uint32_t rx_queued;		/* bytes on rxq */
	uint32_t rx_held;		/* bytes handed up, not yet released */
	uint32_t rx_split;		/* bytes of rxq's head already handed up */
	uint16_t rx_q;			/* RX queue its data last came on */
	bool rx_q_known;
	bool fin_rcvd;
	struct tcp_ooo_ent *ooo;		/* sorted by seq, no overlaps */
	uint32_t nooo, ooo_bytes;
	uint32_t ooo_last;		/* seq of the newest out-of-order arrival */
	bool out_blocked;		/* output refused a segment: retry at out_retry_at */
	bool rexmit_pending;		/* the refused segment was a retransmission */
	uint64_t out_retry_at, out_backoff;	/* ns */
	uint32_t tx_frames;		/* frames in the device pointing into txq */
	bool zombie;			/* freed, waiting for tx_frames to reach 0 */
	/* options */
	bool ts_ok, sack_ok, ws_ok;
	uint32_t ts_recent;
	uint64_t ts_recent_at;
	/* RTT and RTO (RFC 6298), µs */
	uint32_t srtt, rttvar;
	uint64_t rto;			/* ns */
	uint32_t nrexmit;		/* consecutive RTO expirations */
	bool rtt_timing;
	uint32_t rtt_seq;
	uint64_t rtt_start;
	/* timers: absolute ns, 0 = off */
	uint64_t rto_at, delack_at, persist_at, tw_at, ka_at;
	/* the user timeout (ns, 0: off): unacknowledged this long since the
	 * ACKs last moved (unacked_since) ends the connection */
	uint64_t user_timeout, unacked_since;
	/* keepalive (RFC 9293 3.8.4): idle, interval ns; probes before giving up */
	bool ka_on;
	uint64_t ka_idle, ka_intvl, last_rx;
	uint32_t ka_cnt, ka_probes;
	uint32_t unacked_segs;		/* received and not yet ACKed */
	bool ack_now;
	/* congestion */
	const struct zn_tcp_cc_ops *cc;
	struct tcp_cubic cubic;
	uint32_t cwnd, ssthresh;
	uint32_t dupacks;
	bool in_recovery;
	uint32_t recover;		/* RecoveryPoint (RFC 6675), recover (RFC 6582) */
	/* SACK scoreboard and RFC 6675 recovery (tcp_sack.c) */
	struct tcp_sb_range sb[TCP_SB_MAX];	/* sorted, disjoint, in (snd_una, snd_max] */
	uint32_t nsb;
	uint32_t high_rxt;		/* HighRxt: past the last hole resent */
	uint32_t rescue_rxt;		/* RescueRxt: past it, one rescue may go */
	/* RACK-TLP (RFC 8985, tcp_rack.c); times in ns */
	struct tcp_xmit_mark xlog[TCP_XLOG];
	uint32_t xlog_head, xlog_n;
	uint32_t rexmit_hi;		/* past the highest octet ever resent */
	uint64_t rack_ts;		/* RACK.xmit_ts (0: nothing delivered yet) */
	uint32_t rack_end;		/* RACK.end_seq */
	uint64_t rack_rtt, rack_min_rtt;
	uint32_t rack_fack;		/* past the highest octet delivered */
	bool rack_reo;			/* RACK.reordering_seen */
	uint32_t rack_lost;		/* unSACKed octets below it are lost */
	uint64_t rack_at;		/* the reordering timer */
	uint64_t tlp_at;		/* the probe timeout */
	bool tlp_out, tlp_rexmit;	/* a probe is out; it was a resend */
	uint32_t tlp_end, tlp_tsval;
	uint64_t tlp_ts;
};

struct zn_tcp {
	struct zn_tcp_env env;
	uint8_t isn_key[16];
	uint16_t eph_next;
	struct zn_tcp_conn *hash[TCP_HASH];
	struct zn_tcp_conn *all;
	uint32_t nconn;
	struct zn_tcp_stats st;
	bool destroying;
};

/* tcp.c */
uint64_t zn_tcp_now(const struct zn_tcp *t);
struct zn_tcp_conn *zn_tcp_lookup(struct zn_tcp *t, uint32_t lip, uint16_t lport, uint32_t rip,
				  uint16_t rport);
struct zn_tcp_conn *zn_tcp_conn_new(struct zn_tcp *t);
void zn_tcp_hash_add(struct zn_tcp_conn *c);
void zn_tcp_set_state(struct zn_tcp_conn *c, uint8_t st);
/* Drop to CLOSED with err (0: orderly): cookies get err, buffers go back,
 * the owner hears ZN_TCP_EV_ERROR when err; freed if the handle is gone. */
void zn_tcp_done(struct zn_tcp_conn *c, int err);
uint32_t zn_tcp_isn(const struct zn_tcp *t, uint32_t lip, uint16_t lport, uint32_t rip,
		    uint16_t rport);
void zn_tcp_event(struct zn_tcp_conn *c, unsigned ev);
/* Free c now, or once its frames left the device (zombie). */
void zn_tcp_conn_free(struct zn_tcp_conn *c);
uint32_t zn_tcp_rcv_wnd(const struct zn_tcp_conn *c);
uint32_t zn_tcp_tsval(const struct zn_tcp *t);

/* tcp_opt.c: write our options; returns the header length */
uint32_t zn_tcp_write_hdr(const struct zn_tcp_conn *c, uint8_t *h, uint32_t seq, uint32_t ack,
			  uint8_t flags, uint16_t wnd, bool syn_opts, bool ts, uint32_t tsval);

/* tcp_output.c */
/* Send what the windows and Nagle allow, and an ACK if one is due. */
void zn_tcp_output(struct zn_tcp_conn *c);
void zn_tcp_send_ack(struct zn_tcp_conn *c);
void zn_tcp_send_syn(struct zn_tcp_conn *c);
/* Resend from snd_una: one segment (fast retransmit, RTO). */
void zn_tcp_retransmit(struct zn_tcp_conn *c);
/* Resend up to len bytes at seq (and the FIN if they end the data): the
 * sequence space it covered, or < 0 when the output refused it. */
int zn_tcp_send_range(struct zn_tcp_conn *c, uint32_t seq, uint32_t len);
/* A tail loss probe: one new segment if the peer's window takes it, else
 * the last segment again (*rexmit). Bytes sent or < 0 (refused). */
int zn_tcp_send_tlp(struct zn_tcp_conn *c, bool *rexmit);
void zn_tcp_send_probe(struct zn_tcp_conn *c);
/* A keepalive probe: no data, SEG.SEQ = SND.UNA - 1 (RFC 9293 3.8.4). */
void zn_tcp_send_keepalive(struct zn_tcp_conn *c);
/* The same to a window under an MSS: the peer answers with its window. */
void zn_tcp_send_wnd_probe(struct zn_tcp_conn *c);
/* A RST answering a segment (RFC 9293 3.10.7.1) or aborting c. */
void zn_tcp_send_rst_for(struct zn_tcp *t, uint32_t src, uint32_t dst,
			 const struct zn_tcp_hdr *h, uint32_t seg_len);
void zn_tcp_send_rst(struct zn_tcp_conn *c);
/* Chunks snd_una passed are over (status 0); over chunks at the head with
 * no frame in the device leave, their cookies to tx_done. */
void zn_tcp_tx_acked(struct zn_tcp_conn *c);

/* tcp_ooo.c */
/* Add d (seq..seq+d->len) past rcv_nxt: true if kept. */
bool zn_tcp_ooo_add(struct zn_tcp_conn *c, uint32_t seq, struct zn_udp_rx *d);
/* Move what became in order onto the receive queue. */
void zn_tcp_ooo_drain(struct zn_tcp_conn *c);
void zn_tcp_ooo_free(struct zn_tcp_conn *c);
/* Cut k bytes off the front of d (by reference). */
void zn_tcp_rx_trim_front(struct zn_tcp *t, struct zn_udp_rx *d, uint32_t k);
void zn_tcp_rx_trim_back(struct zn_tcp *t, struct zn_udp_rx *d, uint32_t len);
/* Append in-order data; false if the queue is full (d not kept). */
bool zn_tcp_rxq_push(struct zn_tcp_conn *c, const struct zn_udp_rx *d);

/* tcp_sack.c: the scoreboard (RFC 6675 4) */
/* Update(): merge h's SACK blocks; the bytes newly SACKed, *fresh_hi
 * past the highest of them, *dsack whether h carried a D-SACK. */
uint32_t zn_tcp_sb_update(struct zn_tcp_conn *c, const struct zn_tcp_hdr *h, uint32_t *fresh_hi,
			  bool *dsack);
/* snd_una moved: drop what it covers (and everything, if it shows the
 * receiver reneged). */
void zn_tcp_sb_acked(struct zn_tcp_conn *c);
void zn_tcp_sb_clear(struct zn_tcp_conn *c);
bool zn_tcp_sb_is_lost(const struct zn_tcp_conn *c, uint32_t seq);
/* SetPipe(): bytes the sender thinks are in the network. */
uint32_t zn_tcp_sb_pipe(const struct zn_tcp_conn *c);
/* SACKed bytes in [snd_una, seq). */
uint32_t zn_tcp_sb_sacked_below(const struct zn_tcp_conn *c, uint32_t seq);
/* Moves *seq past a SACKed range it is in; the bytes from there to the
 * next SACKed range (UINT32_MAX: none above). */
uint32_t zn_tcp_sb_next_sacked(const struct zn_tcp_conn *c, uint32_t *seq);
/* NextSeg() for retransmissions (rule 2, new data, is the output's):
 * which rule found [*seq, *seq + *len), of the rules asked for. */
enum tcp_nextseg {
	TCP_NEXTSEG_NONE = 0,
	TCP_NEXTSEG_LOST = 1u << 0,	/* rule 1 */
	TCP_NEXTSEG_UNSACKED = 1u << 2,	/* rule 3 */
	TCP_NEXTSEG_RESCUE = 1u << 3,	/* rule 4 */
};
enum tcp_nextseg zn_tcp_sb_next_seg(const struct zn_tcp_conn *c, unsigned rules, uint32_t *seq,
				    uint32_t *len);
/* RFC 6675 5 (4): enter loss recovery (fast retransmit). */
void zn_tcp_sack_enter(struct zn_tcp_conn *c);
/* Enter it if DupThresh duplicates or IsLost(snd_una) say so: true if so. */
bool zn_tcp_sack_check(struct zn_tcp_conn *c);

/* tcp_rack.c: RACK-TLP (RFC 8985) */
void zn_tcp_rack_init(struct zn_tcp_conn *c);
/* [seq, end) went (new data past snd_max is logged with the time). */
void zn_tcp_rack_sent(struct zn_tcp_conn *c, uint32_t seq, uint32_t end);
/* A SACK block newly covered [l, r) (reordering, if below the highest). */
void zn_tcp_rack_fresh(struct zn_tcp_conn *c, uint32_t l, uint32_t r);
/* After an ACK's scoreboard update: RACK's newest delivered segment, RTT,
 * then loss marking (rack_lost) and the reordering timer. */
void zn_tcp_rack_acked(struct zn_tcp_conn *c, uint32_t old_una, uint32_t fresh_hi, bool dsack,
		       const struct zn_tcp_hdr *h);
void zn_tcp_rack_timer(struct zn_tcp_conn *c, uint64_t now);
void zn_tcp_tlp_arm(struct zn_tcp_conn *c);
void zn_tcp_tlp_fire(struct zn_tcp_conn *c);
/* Step (C): resend what NextSeg finds by rules while cwnd - pipe has an
 * SMSS; the segments sent, or < 0 when the output refused one. */
int zn_tcp_sack_output(struct zn_tcp_conn *c, unsigned rules);

/* tcp_timer.c */
void zn_tcp_rto_arm(struct zn_tcp_conn *c);
void zn_tcp_rtt_sample(struct zn_tcp_conn *c, uint64_t rtt_ns);
void zn_tcp_conn_timers(struct zn_tcp_conn *c, uint64_t now);
/* A segment arrived on c: the keepalive idle time starts again. */
void zn_tcp_ka_heard(struct zn_tcp_conn *c, uint64_t now);

/* tcp_input.c */
void zn_tcp_input_conn(struct zn_tcp_conn *c, const struct zn_tcp_hdr *h, uint32_t dlen,
		       struct zn_udp_rx *d, bool *kept);

#endif
