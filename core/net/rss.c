/* SPDX-License-Identifier: MIT */
/* RSS: the Toeplitz hash and the spreading table; see include/zcnic/rss.h. */
#include <arpa/inet.h>
#include <errno.h>
#include <string.h>

#include "zcnic/rss.h"

#define PICK_TRIES	4096

static const uint8_t default_key[ZN_RSS_KEY_LEN] = {
	0x6d, 0x5a, 0x56, 0xda, 0x25, 0x5b, 0x0e, 0xc2, 0x41, 0x67, 0x25, 0x3d, 0x43, 0xa3,
	0x8f, 0xb0, 0xd0, 0xca, 0x2b, 0xcb, 0xae, 0x7b, 0x30, 0xb4, 0x77, 0xcb, 0x2d, 0xa3,
	0x80, 0x30, 0xf2, 0x0c, 0x6a, 0x42, 0xb7, 0x3b, 0xbe, 0xac, 0x01, 0xfa,
};

const uint8_t *zn_rss_default_key(void)
{
	return default_key;
}

uint32_t zn_rss_toeplitz(const uint8_t key[ZN_RSS_KEY_LEN], const uint8_t *in, size_t len)
{
	uint32_t hash = 0;
	/* the window holds key bits [i*8 + b, +32); it gains one key bit per input bit */
	uint32_t win = (uint32_t)key[0] << 24 | (uint32_t)key[1] << 16 |
		       (uint32_t)key[2] << 8 | key[3];

	for (size_t i = 0; i < len; i++) {
		uint8_t next = i + 4 < ZN_RSS_KEY_LEN ? key[i + 4] : 0;

		for (int b = 7; b >= 0; b--) {
			if ((in[i] >> b) & 1u)
				hash ^= win;
			win = win << 1 | ((next >> b) & 1u);
		}
	}
	return hash;
}

uint32_t zn_rss_hash_v4(const uint8_t key[ZN_RSS_KEY_LEN], uint32_t src, uint32_t dst,
			uint16_t sport, uint16_t dport)
{
	uint8_t in[12];

	memcpy(in, &src, 4);
	memcpy(in + 4, &dst, 4);
	memcpy(in + 8, &sport, 2);
	memcpy(in + 10, &dport, 2);
	return zn_rss_toeplitz(key, in, sizeof(in));
}

int zn_rss_spread(struct zn_rss_conf *rss, uint32_t dev_entries, uint16_t first, uint16_t n)
{
	uint32_t size = ZN_RSS_SPREAD_ENTRIES;

	if (!dev_entries)
		dev_entries = ZN_RSS_SPREAD_ENTRIES;
	if (dev_entries < size)
		size = dev_entries;
	if (!n || (uint32_t)first + n > ZN_PORT_MAX_QUEUES || dev_entries % size)
		return -EINVAL;
	memset(rss, 0, sizeof(*rss));
	memcpy(rss->key, default_key, ZN_RSS_KEY_LEN);
	rss->hash_types = ZN_RSS_IPV4 | ZN_RSS_IPV4_TCP | ZN_RSS_IPV4_UDP | ZN_RSS_IPV6 |
			  ZN_RSS_IPV6_TCP | ZN_RSS_IPV6_UDP;
	rss->table_size = size;
	for (uint32_t i = 0; i < size; i++)
		rss->table[i] = (uint16_t)(first + i % n);
	return 0;
}

uint16_t zn_rss_queue(const struct zn_rss_conf *rss, uint32_t hash)
{
	return rss->table[hash % rss->table_size];
}

int zn_rss_pick_sport(uint32_t src, uint32_t dst, uint16_t dport, uint16_t base, uint16_t n,
		      uint16_t want)
{
	struct zn_rss_conf rss;

	if (zn_rss_spread(&rss, 0, 0, n) < 0 || want >= n)
		return -ENOENT;
	for (uint32_t i = 0; i < PICK_TRIES; i++) {
		uint16_t p = (uint16_t)(base + i);

		if (p && zn_rss_queue(&rss, zn_rss_hash_v4(rss.key, src, dst, htons(p),
							   htons(dport))) == want)
			return p;
	}
	return -ENOENT;
}
