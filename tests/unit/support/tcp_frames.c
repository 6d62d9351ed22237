#include <string.h>

#include "tests/unit/support/tcp_frames.h"

static void be16(uint8_t *p, uint32_t v)
{
	p[0] = (uint8_t)(v >> 8);
	p[1] = (uint8_t)v;
}

static void be32(uint8_t *p, uint32_t v)
{
	be16(p, v >> 16);
	be16(p + 2, v);
}

static uint32_t sum_raw(uint32_t s, const uint8_t *p, size_t n)
{
	for (size_t i = 0; i + 1 < n; i += 2)
		s += (uint32_t)(p[i] << 8 | p[i + 1]);
	if (n & 1)
		s += (uint32_t)p[n - 1] << 8;
	return s;
}

static uint16_t fold(uint32_t s)
{
	while (s >> 16)
		s = (s & 0xffff) + (s >> 16);
	return (uint16_t)s;
}

uint16_t tf_sum(const uint8_t *p, size_t n)
{
	return fold(sum_raw(0, p, n));
}

static size_t l3_len(const struct tf_flow *fl)
{
	return fl->ipv == 4 ? 20 : 40;
}

static size_t l4_hlen(const struct tf_flow *fl)
{
	return fl->proto == 6 ? 20u + fl->opt_len : 8u;
}

size_t tf_hdr_len(const struct tf_flow *fl)
{
	return 14 + l3_len(fl) + l4_hlen(fl);
}

void tf_fix_csum(uint8_t *f, const struct tf_flow *fl)
{
	uint8_t *ip = f + 14, *l4 = ip + l3_len(fl);
	size_t l4len;
	uint32_t s;
	uint16_t c;
	unsigned o = fl->proto == 6 ? 16 : 6;

	if (fl->ipv == 4) {
		l4len = (size_t)(ip[2] << 8 | ip[3]) - 20;
		ip[10] = ip[11] = 0;
		be16(ip + 10, (uint16_t)~tf_sum(ip, 20));
		s = sum_raw(0, ip + 12, 8);
	} else {
		l4len = (size_t)(ip[4] << 8 | ip[5]);
		s = sum_raw(0, ip + 8, 32);
	}
	s += fl->proto + (uint32_t)l4len;
	l4[o] = l4[o + 1] = 0;
	c = (uint16_t)~fold(sum_raw(s, l4, l4len));
	if (!c && fl->proto == 17)
		c = 0xffff;
	be16(l4 + o, c);
}

/* Headers for a frame of payload bytes, seq and flags as given. */
static void headers(uint8_t *f, const struct tf_flow *fl, size_t payload, uint16_t id,
		    uint32_t seq, uint8_t flags)
{
	uint8_t *ip = f + 14, *l4 = ip + l3_len(fl);
	size_t l4len = l4_hlen(fl) + payload;

	memset(f, 0, tf_hdr_len(fl));
	memcpy(f, fl->dmac, 6);
	memcpy(f + 6, fl->smac, 6);
	if (fl->ipv == 4) {
		be16(f + 12, 0x0800);
		ip[0] = 0x45;
		be16(ip + 2, (uint32_t)(20 + l4len));
		be16(ip + 4, id);
		ip[6] = 0x40;	/* DF */
		ip[8] = 64;
		ip[9] = fl->proto;
		memcpy(ip + 12, fl->src, 4);
		memcpy(ip + 16, fl->dst, 4);
	} else {
		be16(f + 12, 0x86dd);
		ip[0] = 0x60;
		be16(ip + 4, (uint32_t)l4len);
		ip[6] = fl->proto;
		ip[7] = 64;
		memcpy(ip + 8, fl->src, 16);
		memcpy(ip + 24, fl->dst, 16);
	}
	be16(l4, fl->sport);
	be16(l4 + 2, fl->dport);
	if (fl->proto == 17) {
		be16(l4 + 4, (uint32_t)l4len);
		return;
	}
	be32(l4 + 4, seq);
	be32(l4 + 8, fl->ack);
	l4[12] = (uint8_t)((20 + fl->opt_len) / 4 << 4);
	l4[13] = flags;
	be16(l4 + 14, fl->win);
	if (fl->opt_len >= 12) {
		/* NOP, NOP, timestamp (kind 8, length 10): RFC 7323 appendix A */
		uint8_t *o = l4 + 20;

		memset(o, 1, fl->opt_len);
		o[2] = 8;
		o[3] = 10;
		be32(o + 4, fl->tsval);
		be32(o + 8, 0);
	} else if (fl->opt_len) {
		memset(l4 + 20, 1, fl->opt_len);
	}
}

void tf_addr6(struct tf_flow *fl)
{
	memset(fl->src, 0, 16);
	memset(fl->dst, 0, 16);
	fl->src[0] = fl->dst[0] = 0xfd;
	fl->src[15] = 1;
	fl->dst[15] = 2;
}

size_t tf_build(uint8_t *f, const struct tf_flow *fl, size_t payload, uint8_t seed,
		bool zero_csum)
{
	size_t h = tf_hdr_len(fl);

	headers(f, fl, payload, fl->ip_id, fl->seq, fl->flags);
	for (size_t i = 0; i < payload; i++)
		f[h + i] = (uint8_t)(seed + 7 * i);
	if (!zero_csum)
		tf_fix_csum(f, fl);
	return h + payload;
}

size_t tf_tso_seg(uint8_t *out, const struct tf_flow *fl, size_t payload, uint8_t seed,
		  unsigned mss, unsigned i)
{
	size_t h = tf_hdr_len(fl), off = (size_t)i * mss;
	size_t n = payload - off < mss ? payload - off : mss;
	bool last = off + n >= payload;
	uint8_t flags = fl->flags;

	if (i)
		flags &= (uint8_t)~0x80;		/* CWR on the first only */
	if (!last)
		flags &= (uint8_t)~(0x01 | 0x08);	/* FIN, PSH on the last only */
	headers(out, fl, n, (uint16_t)(fl->ip_id + i), fl->seq + (uint32_t)off, flags);
	for (size_t k = 0; k < n; k++)
		out[h + k] = (uint8_t)(seed + 7 * (off + k));
	tf_fix_csum(out, fl);
	return h + n;
}
