/* SPDX-License-Identifier: MIT */
/* zn-fwd: building and checking test frames (layout in fwd.h). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fwd.h"

static uint8_t fwd_pattern[FWD_MAX_FRAME + FWD_PATTERN_PERIOD];

void fwd_pattern_init(void)
{
	/* 151 is odd, so the 251 values of one period are all different. */
	for (size_t j = 0; j < sizeof(fwd_pattern); j++)
		fwd_pattern[j] = (uint8_t)((j % FWD_PATTERN_PERIOD) * 151u + 89u);
}

static int parse_u32(const char *s, char **end, uint32_t *v)
{
	unsigned long x;

	errno = 0;
	x = strtoul(s, end, 10);
	if (errno || *end == s || x > UINT32_MAX)
		return -EINVAL;
	*v = (uint32_t)x;
	return 0;
}

int fwd_sizes_parse(const char *s, struct fwd_sizes *out, char *err, size_t errlen)
{
	const char *p = s;

	out->n = 0;
	for (;;) {
		uint32_t lo, hi;
		char *end;

		if (out->n == FWD_MAX_SIZE_ITEMS) {
			snprintf(err, errlen, "--sizes %s: at most %d items", s, FWD_MAX_SIZE_ITEMS);
			return -EINVAL;
		}
		if (parse_u32(p, &end, &lo))
			goto bad;
		hi = lo;
		if (*end == '-' && parse_u32(end + 1, &end, &hi))
			goto bad;
		if (lo > hi || lo < FWD_MIN_FRAME || hi > FWD_MAX_FRAME) {
			snprintf(err, errlen, "--sizes %s: frame lengths are %d to %d bytes "
				 "(Ethernet header included, FCS excluded)", s, FWD_MIN_FRAME,
				 FWD_MAX_FRAME);
			return -EINVAL;
		}
		out->item[out->n].lo = lo;
		out->item[out->n].hi = hi;
		out->n++;
		if (*end == '\0')
			return 0;
		if (*end != ',')
			goto bad;
		p = end + 1;
	}
bad:
	snprintf(err, errlen, "--sizes %s: want lengths and ranges such as 64,1500,9000 or 60-9000",
		 s);
	return -EINVAL;
}

uint32_t fwd_sizes_max(const struct fwd_sizes *s)
{
	uint32_t m = 0;

	for (unsigned i = 0; i < s->n; i++)
		if (s->item[i].hi > m)
			m = s->item[i].hi;
	return m;
}

/* splitmix64's finaliser: spreads consecutive sequence numbers over a range. */
static uint64_t mix(uint64_t x)
{
	x += 0x9e3779b97f4a7c15ull;
	x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
	x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
	return x ^ (x >> 31);
}

uint32_t fwd_frame_len(const struct fwd_frame_cfg *c, uint64_t seq)
{
	uint32_t lo = c->sizes.item[seq % c->sizes.n].lo;
	uint32_t hi = c->sizes.item[seq % c->sizes.n].hi;

	return lo == hi ? lo : lo + (uint32_t)(mix(seq) % (hi - lo + 1));
}

uint32_t fwd_frame_flow(const struct fwd_frame_cfg *c, uint64_t seq)
{
	return (uint32_t)(seq % c->nflows);
}

static void put16be(uint8_t *p, uint32_t v)
{
	p[0] = (uint8_t)(v >> 8);
	p[1] = (uint8_t)v;
}

static void put32be(uint8_t *p, uint32_t v)
{
	put16be(p, v >> 16);
	put16be(p + 2, v);
}

static uint16_t ip_csum(const uint8_t *p, size_t len)
{
	uint32_t sum = 0;

	for (size_t i = 0; i + 1 < len; i += 2)
		sum += (uint32_t)p[i] << 8 | p[i + 1];
	while (sum >> 16)
		sum = (sum & 0xffff) + (sum >> 16);
	return (uint16_t)~sum;
}

/* The first FWD_META_LEN bytes of frame seq of length len. */
static void build_head(const struct fwd_frame_cfg *c, uint64_t seq, uint32_t len, uint8_t *h)
{
	uint32_t flow = fwd_frame_flow(c, seq);
	uint8_t *ip = h + 14, *udp = h + 34, *meta = h + FWD_HDR_LEN;

	memcpy(h, c->dst_mac, 6);
	memcpy(h + 6, c->src_mac, 6);
	put16be(h + 12, 0x0800);
	ip[0] = 0x45;
	ip[1] = 0;
	put16be(ip + 2, len - 14);
	put16be(ip + 4, (uint32_t)seq & 0xffff);
	put16be(ip + 6, 0x4000);	/* DF */
	ip[8] = 64;
	ip[9] = 17;			/* UDP */
	put16be(ip + 10, 0);
	put32be(ip + 12, FWD_SRC_IP);
	put32be(ip + 16, FWD_DST_IP);
	put16be(ip + 10, ip_csum(ip, 20));
	put16be(udp, FWD_SPORT0 + flow);
	put16be(udp + 2, FWD_DPORT0 + flow);
	put16be(udp + 4, len - 34);
	put16be(udp + 6, 0);		/* no checksum: allowed for UDP over IPv4 */
	for (int i = 0; i < 8; i++)
		meta[i] = (uint8_t)(seq >> (8 * i));
	for (int i = 0; i < 4; i++)
		meta[8 + i] = (uint8_t)(flow >> (8 * i));
	meta[12] = (uint8_t)len;
	meta[13] = (uint8_t)(len >> 8);
}

uint32_t fwd_frame_build(const struct fwd_frame_cfg *c, uint64_t seq, uint8_t *buf)
{
	uint32_t len = fwd_frame_len(c, seq);

	build_head(c, seq, len, buf);
	memcpy(buf + FWD_META_LEN, fwd_pattern + FWD_META_LEN + seq % FWD_PATTERN_PERIOD,
	       len - FWD_META_LEN);
	return len;
}

/* Copies frame bytes [0, n) out of the pieces; false if they hold fewer. */
static bool gather(const struct fwd_piece *pc, unsigned npc, uint8_t *out, uint32_t n)
{
	uint32_t got = 0;

	for (unsigned i = 0; i < npc && got < n; i++) {
		uint32_t take = pc[i].len < n - got ? pc[i].len : n - got;

		memcpy(out + got, pc[i].p, take);
		got += take;
	}
	return got == n;
}

enum fwd_verdict fwd_frame_verify(const struct fwd_frame_cfg *c, const struct fwd_piece *pc,
				  unsigned npc, uint64_t *seq, uint32_t *bad_off)
{
	uint8_t head[FWD_META_LEN], want[FWD_META_LEN];
	uint32_t total = 0, off = 0, rot;
	uint64_t s = 0;

	*bad_off = 0;
	for (unsigned i = 0; i < npc; i++)
		total += pc[i].len;
	if (total < FWD_META_LEN || !gather(pc, npc, head, FWD_META_LEN))
		return FWD_BAD_SHORT;
	for (int i = 7; i >= 0; i--)
		s = s << 8 | head[FWD_HDR_LEN + i];
	*seq = s;
	if (total != fwd_frame_len(c, s) ||
	    total != ((uint32_t)head[FWD_HDR_LEN + 12] | (uint32_t)head[FWD_HDR_LEN + 13] << 8))
		return FWD_BAD_LEN;
	build_head(c, s, total, want);
	if (memcmp(head, want, FWD_META_LEN)) {
		for (*bad_off = 0; head[*bad_off] == want[*bad_off]; (*bad_off)++)
			;
		return FWD_BAD_HEAD;
	}
	rot = (uint32_t)(s % FWD_PATTERN_PERIOD);
	for (unsigned i = 0; i < npc; off += pc[i].len, i++) {
		uint32_t skip = off < FWD_META_LEN ? FWD_META_LEN - off : 0;
		const uint8_t *exp;

		if (skip >= pc[i].len)
			continue;
		exp = fwd_pattern + rot + off + skip;
		if (memcmp(pc[i].p + skip, exp, pc[i].len - skip)) {
			uint32_t k = skip;

			while (pc[i].p[k] == fwd_pattern[rot + off + k])
				k++;
			*bad_off = off + k;
			return FWD_BAD_PAYLOAD;
		}
	}
	return FWD_OK;
}

const char *fwd_verdict_str(enum fwd_verdict v)
{
	switch (v) {
	case FWD_OK: return "ok";
	case FWD_BAD_SHORT: return "too short for the test header";
	case FWD_BAD_LEN: return "length differs from what its sequence number says";
	case FWD_BAD_HEAD: return "header or sequence fields wrong";
	case FWD_BAD_PAYLOAD: return "payload byte wrong";
	}
	return "?";
}
