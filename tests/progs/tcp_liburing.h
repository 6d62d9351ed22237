/* SPDX-License-Identifier: MIT */
/*
 * What tcp_zcrx_recv.c and tcp_send_zc.c share: the one zcnic-specific
 * step (a netdev on a zn-nicsim port, where a kernel program would name an
 * interface), the stream pattern both check (tcp_peer.c, their Linux peer,
 * uses it too), and the "ok - what" lines the integration scripts number.
 * Everything else in the two programs is liburing.
 */
#ifndef ZN_TCP_LIBURING_H
#define ZN_TCP_LIBURING_H

#include <arpa/inet.h>
#include <errno.h>
#include <liburing.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "zcnic/net.h"
#include "zcnic/netdev.h"

#define TL_WAIT_S	10	/* no CQE for this long: the run failed */
#define TL_LINGER_MS	300	/* the last segments of a close leave on later polls */
#define TL_RX_RING	256	/* RX descriptors */

static int tl_failures;

static inline bool tl_check(bool ok, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static inline bool tl_check(bool ok, const char *fmt, ...)
{
	va_list ap;

	printf("%s - ", ok ? "ok" : "not ok");
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	printf("\n");
	fflush(stdout);
	tl_failures += !ok;
	return ok;
}

/* Byte i of the stream (tcp_peer's pattern: a lost, duplicated or
 * reordered byte shows). */
static inline uint8_t tl_pat(uint64_t i)
{
	return (uint8_t)(i ^ (i >> 9) ^ (i >> 17) ^ 0x5a);
}

static inline uint64_t tl_bad_bytes(const uint8_t *p, uint64_t off, size_t n)
{
	uint64_t bad = 0;

	for (size_t i = 0; i < n; i++)
		bad += p[i] != tl_pat(off + i);
	return bad;
}

static inline uint64_t tl_now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

/* Device set-up, the zcnic-specific part: the netdev SPEC with the address
 * CIDR, one RX queue; *ip and *ifindex (either may be NULL) are what a
 * kernel program has from its configuration and if_nametoindex. The
 * buffers posted on the queue before io_uring_register_ifq swaps the area
 * in come first, through RECV_ZC's copy fallback: a short ring makes that
 * the first TL_RX_RING frames, not the default ring's. */
static inline struct zn_netdev *tl_dev_open(const char *spec, const char *cidr,
					    struct in_addr *ip, unsigned *ifindex)
{
	struct zn_netdev_conf c = { .nb_rxq = 1, .rx_ring = TL_RX_RING };
	struct zn_netdev *d = NULL;
	int rc = zn_ipv4_parse_cidr(cidr, &c.ip, &c.prefix_len);

	if (!rc)
		rc = zn_netdev_open(spec, &c, &d);
	tl_check(rc == 0, "netdev %s with %s: %d", spec, cidr, rc);
	if (rc)
		return NULL;
	if (ip)
		ip->s_addr = c.ip;
	if (ifindex)
		*ifindex = (unsigned)zn_netdev_ifindex(d);
	return d;
}

static inline void tl_dev_close(struct zn_netdev *d)
{
	zn_netdev_close(d);
}

static inline int tl_wait_cqe(struct io_uring *ring, struct io_uring_cqe **cqe)
{
	struct __kernel_timespec ts = { .tv_sec = TL_WAIT_S };

	return io_uring_wait_cqe_timeout(ring, cqe, &ts);
}

/* Submit what is queued and take the next CQE's res (a set-up step's:
 * nothing else is in flight then). */
static inline int tl_one_op(struct io_uring *ring)
{
	struct io_uring_cqe *cqe;
	int rc;

	io_uring_submit(ring);
	rc = tl_wait_cqe(ring, &cqe);
	if (rc)
		return rc;
	rc = cqe->res;
	io_uring_cqe_seen(ring, cqe);
	return rc;
}

/* A TIMEOUT of ms, waited for: the ring keeps polling the netdev
 * meanwhile (after a close: its FIN or last ACK goes out before the netdev
 * does). CQEs of anything else that ends meanwhile are dropped. */
static inline void tl_ring_sleep(struct io_uring *ring, uint64_t ms)
{
	struct __kernel_timespec ts = { .tv_sec = (long long)(ms / 1000),
					.tv_nsec = (long long)(ms % 1000) * 1000000ll };
	struct io_uring_sqe *sqe = io_uring_get_sqe(ring);
	uint64_t end = tl_now_ns() + (2 * ms + TL_WAIT_S * 1000ull) * 1000000ull;

	io_uring_prep_timeout(sqe, &ts, 0, 0);
	io_uring_sqe_set_data64(sqe, UINT64_MAX);
	io_uring_submit(ring);
	while (tl_now_ns() < end) {
		struct io_uring_cqe *cqe;
		bool mine;

		if (tl_wait_cqe(ring, &cqe))
			break;
		mine = cqe->user_data == UINT64_MAX;
		io_uring_cqe_seen(ring, cqe);
		if (mine)
			break;
	}
}

#endif
