/* SPDX-License-Identifier: MIT */
/*
 * zn-fwd internals: test frames (frame.c).
 *
 * A test frame is IPv4/UDP, built so that the receiver can check every byte
 * from the frame alone:
 *
 *    0  Ethernet  dst = port1 MAC, src = port0 MAC, type 0x0800
 *   14  IPv4      20 bytes, id = seq, DF, TTL 64, UDP, checksum valid,
 *                 FWD_SRC_IP -> FWD_DST_IP
 *   34  UDP       sport = FWD_SPORT0 + flow, dport = FWD_DPORT0 + flow, no checksum
 *   42  seq       u64, little-endian: the frame's sequence number
 *   50  flow      u32, little-endian
 *   54  len       u16, little-endian: the frame length
 *   56  pattern   byte at frame offset i = fwd_pattern[i + seq % FWD_PATTERN_PERIOD]
 *
 * Length, flow and everything else follow from seq (and the options), so a
 * frame that is damaged, shifted, truncated or swapped with another fails.
 */
#ifndef ZN_FWD_H
#define ZN_FWD_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "zcnic/port.h"

#define FWD_HDR_LEN		42	/* Ethernet + IPv4 + UDP */
#define FWD_META_LEN		56	/* headers + seq + flow + len */
#define FWD_MIN_FRAME		60	/* Ethernet minimum without FCS */
#define FWD_MAX_FRAME		9018	/* 9000 MTU + Ethernet header + VLAN room */
#define FWD_PATTERN_PERIOD	251	/* prime: no alignment lines up with it */
#define FWD_SPORT0		10000
#define FWD_DPORT0		20000
#define FWD_SRC_IP		0x0a000001u	/* 10.0.0.1 */
#define FWD_DST_IP		0x0a000002u	/* 10.0.0.2 */
#define FWD_MAX_SIZE_ITEMS	32

/* --sizes: a list of lengths and ranges; frame seq uses item seq % n. */
struct fwd_sizes {
	unsigned n;
	struct {
		uint32_t lo, hi;	/* lo == hi: a fixed length */
	} item[FWD_MAX_SIZE_ITEMS];
};

struct fwd_frame_cfg {
	uint8_t dst_mac[6], src_mac[6];
	uint32_t nflows;
	struct fwd_sizes sizes;
};

/* "64,1500,9000" / "60-9000" / "60-200,1500"; -EINVAL with a message. */
int fwd_sizes_parse(const char *s, struct fwd_sizes *out, char *err, size_t errlen);
uint32_t fwd_sizes_max(const struct fwd_sizes *s);
uint32_t fwd_frame_len(const struct fwd_frame_cfg *c, uint64_t seq);
uint32_t fwd_frame_flow(const struct fwd_frame_cfg *c, uint64_t seq);

void fwd_pattern_init(void);
/* Writes frame seq into buf (at least fwd_frame_len bytes); returns its length. */
uint32_t fwd_frame_build(const struct fwd_frame_cfg *c, uint64_t seq, uint8_t *buf);

/* A received frame as pieces: the header buffer, then payload segments. */
struct fwd_piece {
	const uint8_t *p;
	uint32_t len;
};

enum fwd_verdict {
	FWD_OK = 0,
	FWD_BAD_SHORT,		/* too short to carry seq/flow/len */
	FWD_BAD_LEN,		/* pieces, len field and seq disagree */
	FWD_BAD_HEAD,		/* headers or seq/flow/len fields wrong */
	FWD_BAD_PAYLOAD,	/* a pattern byte wrong */
};

/*
 * Checks every byte of a received frame given as pieces; on FWD_OK *seq is
 * its sequence number. On a payload mismatch *bad_off is the first wrong
 * frame offset.
 */
enum fwd_verdict fwd_frame_verify(const struct fwd_frame_cfg *c, const struct fwd_piece *pc,
				  unsigned npc, uint64_t *seq, uint32_t *bad_off);
const char *fwd_verdict_str(enum fwd_verdict v);

/* ---- The command line (opts.c) ---- */

#define MAX_QUEUES		64
#define MAX_RULES		16
#define MAX_BURST		256

struct fwd_rule {
	struct zn_flow_match m;
	uint16_t queue;
	uint32_t id;		/* from zn_port_flow_add */
	bool added;
	bool has_src, has_dst;
	uint32_t src, dst;	/* host order */
};

struct fwd_opts {
	const char *port0, *port1, *sim_opts;
	uint16_t queues;
	struct fwd_rule rules[MAX_RULES];
	unsigned nrules;
	uint64_t frames;
	double duration;	/* > 0: send for this long instead of `frames` */
	uint32_t burst, mtu, hds_thresh, hdr_buf, buf_size, ring_size, window, pace_us;
	uint32_t nflows;
	struct fwd_sizes sizes;
	bool check_hds;
	bool tx_split;		/* send headers and payload as two segments */
	bool quiet;		/* errors and the summary only */
};

/* Parses and checks the command line; exits 2 with a message on misuse. */
void fwd_parse_args(struct fwd_opts *o, int argc, char **argv);


#endif
