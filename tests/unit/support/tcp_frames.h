/*
 * TCP/UDP frames for the models' offload tests, built and checksummed here
 * independently of the models: Ethernet + IPv4 or IPv6 + TCP (with optional
 * options) or UDP, and the frames a correct TSO must produce from one
 * large frame (what Linux's software segmentation would put on the wire).
 */
#ifndef ZN_TESTS_TCP_FRAMES_H
#define ZN_TESTS_TCP_FRAMES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct tf_flow {
	uint8_t ipv;			/* 4 or 6 */
	uint8_t proto;			/* 6 TCP, 17 UDP */
	uint8_t dmac[6], smac[6];
	uint8_t src[16], dst[16];
	uint16_t sport, dport;
	uint16_t ip_id;			/* IPv4 */
	uint32_t seq, ack;		/* TCP */
	uint8_t flags;			/* TCP */
	uint16_t win;			/* TCP */
	uint8_t opt_len;		/* TCP options bytes (multiple of 4), NOPs + a timestamp */
	uint32_t tsval;			/* with opt_len >= 12 */
};

/* fd00::1 -> fd00::2 as the flow's addresses. */
void tf_addr6(struct tf_flow *fl);
/* Headers + payload (byte i = seed + 7i) into f; checksums right unless
 * zero_csum (then both are 0). The length (no padding). */
size_t tf_build(uint8_t *f, const struct tf_flow *fl, size_t payload, uint8_t seed,
		bool zero_csum);
/* Header bytes of fl's frames. */
size_t tf_hdr_len(const struct tf_flow *fl);
/* Recomputes the IPv4 header and the L4 checksum of a tf_build frame. */
void tf_fix_csum(uint8_t *f, const struct tf_flow *fl);
/* The ones' complement sum (not inverted) of n bytes from p. */
uint16_t tf_sum(const uint8_t *p, size_t n);
/* Frame i of the TSO of fl (payload bytes as tf_build's with seed) into
 * out, mss payload bytes a frame: the length. */
size_t tf_tso_seg(uint8_t *out, const struct tf_flow *fl, size_t payload, uint8_t seed,
		  unsigned mss, unsigned i);

#endif
