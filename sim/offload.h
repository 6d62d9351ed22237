/* SPDX-License-Identifier: MIT */
/*
 * What every NIC model does the same way when it offloads TCP work:
 *
 *   TSO   cutting one large TCP frame (one set of headers, then up to 64 KiB
 *         of payload) into frames of mss payload bytes, each a correct TCP
 *         segment: the contract Linux's TSO features (NETIF_F_TSO,
 *         NETIF_F_TSO6, NETIF_F_TSO_ECN) ask of a device, the same as Linux's
 *         own software fallback (net/ipv4/tcp_offload.c tcp_gso_segment,
 *         net/ipv4/af_inet.c inet_gso_segment): IP length per frame, IPv4 id
 *         + 1 per frame, sequence + mss per frame, FIN and PSH on the last
 *         frame only, CWR on the first only. Checksums stay the model's own
 *         (each model fills them with its checksum code once a frame is cut).
 *
 *   GRO   whether a received TCP frame may join an open aggregate of its
 *         flow (bnxt TPA, mlx5 SHAMPO HW-GRO): the rules of Linux's
 *         net/ipv4/tcp_offload.c tcp_gro_receive, which a device's
 *         aggregates must satisfy for the stack to take them as one.
 *
 * The header parser here reads only the header bytes (lengths of the
 * packet are not trusted: a TSO frame's IP length is the driver's business).
 */
#ifndef ZN_SIM_OFFLOAD_H
#define ZN_SIM_OFFLOAD_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define ZN_SIM_TSO_MAX_PAYLOAD	65536u	/* TCP bytes one TSO frame may carry */
#define ZN_SIM_TCP_FIN		0x01
#define ZN_SIM_TCP_SYN		0x02
#define ZN_SIM_TCP_RST		0x04
#define ZN_SIM_TCP_PSH		0x08
#define ZN_SIM_TCP_ACK		0x10
#define ZN_SIM_TCP_URG		0x20
#define ZN_SIM_TCP_ECE		0x40
#define ZN_SIM_TCP_CWR		0x80

/* Where the headers of an Ethernet (one optional 802.1Q/802.1ad tag) + IPv4
 * (options allowed) or IPv6 (no extension headers) + TCP frame are. */
struct zn_sim_tcp_hdrs {
	unsigned l3, l4, hdr_len;	/* hdr_len: end of the TCP header */
	uint8_t ipv;			/* 4 or 6 */
};

/* 0 when the first len bytes of f hold such headers (IPv4: not a
 * fragment), -1 otherwise. */
int zn_sim_tcp_hdrs(const uint8_t *f, size_t len, struct zn_sim_tcp_hdrs *h);

struct zn_sim_tso {
	const uint8_t *frame;		/* the headers, then the payload */
	size_t len;			/* hdr_len + payload bytes */
	struct zn_sim_tcp_hdrs h;
	unsigned mss;			/* payload bytes per frame, > 0 */
	uint16_t ipid_mask;		/* 0xffff; 0x7fff: 15-bit ids, the MSB kept */
};

static inline unsigned zn_sim_tso_nseg(const struct zn_sim_tso *t)
{
	size_t pay = t->len - t->h.hdr_len;

	return pay ? (unsigned)((pay + t->mss - 1) / t->mss) : 1;
}

/* Frame i (0 .. nseg - 1) into out (room for hdr_len + mss bytes): its
 * length. The IPv4 header and TCP checksums are left for the caller. */
size_t zn_sim_tso_seg(const struct zn_sim_tso *t, unsigned i, uint8_t *out);

/* ---- receive aggregation (GRO) ---- */

/* What a device keeps of the aggregate open for a flow. */
struct zn_sim_gro {
	uint8_t hdr[128];		/* the first frame's headers */
	struct zn_sim_tcp_hdrs h;
	uint32_t next_seq;		/* sequence number the next frame must carry */
	uint32_t mss;			/* the first frame's payload bytes */
	uint32_t last_len;		/* the latest frame's payload bytes */
	uint32_t bytes;			/* payload bytes in the aggregate */
	unsigned segs;
};

enum zn_sim_gro_verdict {
	ZN_SIM_GRO_MERGE,		/* joins the aggregate */
	ZN_SIM_GRO_MERGE_LAST,		/* joins it, and closes it (PSH) */
	ZN_SIM_GRO_FLUSH,		/* closes it; the frame starts anew */
	ZN_SIM_GRO_OTHER,		/* another flow: the aggregate stays */
};

/* Can frame f (TCP, headers h, pay payload bytes) start an aggregate? Not
 * with a flag other than ACK/PSH, nor without payload, nor with IP
 * options or an IPv4 fragment bit, nor with headers longer than
 * sizeof(zn_sim_gro.hdr). */
bool zn_sim_gro_can_start(const uint8_t *f, const struct zn_sim_tcp_hdrs *h, size_t pay);
/* Opens g with frame f. */
void zn_sim_gro_start(struct zn_sim_gro *g, const uint8_t *f, const struct zn_sim_tcp_hdrs *h,
		      size_t pay);
/* Does frame f belong to g's flow (same addresses, ports, IP version)? */
bool zn_sim_gro_same_flow(const struct zn_sim_gro *g, const uint8_t *f,
			  const struct zn_sim_tcp_hdrs *h);
/* The verdict for frame f of g's flow, limited to max_segs frames and
 * max_bytes payload bytes. MERGE and MERGE_LAST update g. */
enum zn_sim_gro_verdict zn_sim_gro_offer(struct zn_sim_gro *g, const uint8_t *f,
					 const struct zn_sim_tcp_hdrs *h, size_t pay,
					 unsigned max_segs, uint32_t max_bytes);

#endif
