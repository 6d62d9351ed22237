/*
 * SEND, RECV, SEND_ZC and SENDMSG_ZC over zcnic sockets, end to end: two
 * netdevs on an in-process zn-nicsim (two bnxt models, pair wire), one
 * ring driving both, through the liburing-compatible API. Mirrors the
 * kernel's test/send-zerocopy.c and test/send_recv.c where they apply:
 * CQE order (result with F_MORE, then exactly one F_NOTIF with the same
 * user_data), REPORT_USAGE, fault and flag errors, vectored sends, bytes
 * exact at the receiver both ways, truncation, CQ overflow with many
 * notifications, close and ring exit with sends in flight, fixed files,
 * CQE_SKIP_SUCCESS and links.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <cmocka.h>

#include "core/sock/net_ops.h"
#include "tests/unit/support/netdev_pair.h"
#include "tests/unit/uring_test.h"
#include "zcnic/mem.h"
#include "zcnic/socket.h"

#define PORT_A		7000
#define PORT_B		7001
#define PORT_U		7201
#define MAXPAY		1472	/* MTU 1500 - 28 */
#define WAIT_MS		3000
#define MAX_CQES	2048

static struct {
	struct ndp n;
	struct io_uring ring;
	int fa, fb;		/* A connected to B, B connected to A */
	int fu;			/* B, port PORT_U, not connected: takes any sender */
	struct zn_dma_region *zr;	/* DMA memory mapped to A */
	uint8_t *rxbuf;
} F;

static int open_ring(unsigned cq)
{
	/* SUBMIT_ALL: a batch goes on past an SQE that fails at prep */
	struct io_uring_params p = { .flags = IORING_SETUP_SUBMIT_ALL };

	if (cq) {
		p.flags |= IORING_SETUP_CQSIZE;
		p.cq_entries = cq;
	}
	return io_uring_queue_init_params(cq && cq < 64 ? cq : 64, &F.ring, &p);
}

/* Each pair on new ports: datagrams still on the wire for an earlier pair
 * must not reach the next one. */
static int open_socks(void)
{
	static uint16_t gen;
	uint16_t pa = (uint16_t)(PORT_A + 10 * gen), pb = (uint16_t)(PORT_B + 10 * gen);

	gen++;
	F.fa = zn_udp_socket(F.n.a, &(struct zn_socket_conf){
		.local = { 0, htons(pa) }, .remote = { F.n.ip_b, htons(pb) }, .rxq = 1 });
	F.fb = zn_udp_socket(F.n.b, &(struct zn_socket_conf){
		.local = { 0, htons(pb) }, .remote = { F.n.ip_a, htons(pa) }, .rxq = 1 });
	return F.fa > 0 && F.fb > 0 ? 0 : -1;
}

/* A RECV on the unconnected socket of B. */
static void prep_recv_u(size_t len, uint64_t ud)
{
	io_uring_prep_recv(io_uring_get_sqe(&F.ring), F.fu, F.rxbuf, len, 0);
	F.ring.sq.sqes[(F.ring.sq.sqe_tail - 1) & F.ring.sq.ring_mask].user_data = ud;
}

static int setup(void **state)
{
	(void)state;
	memset(&F, 0, sizeof(F));
	if (ndp_open(&F.n, "") || ndp_resolve(&F.n, WAIT_MS))
		return -1;
	if (open_socks() || open_ring(0))
		return -1;
	F.fu = zn_udp_socket(F.n.b, &(struct zn_socket_conf){ .local = { 0, htons(PORT_U) },
							       .rxq = 1 });
	if (F.fu < 0)
		return -1;
	if (zn_dma_region_alloc("test-send", 1u << 20, -1, ZN_DMA_NO_HUGE, &F.zr) ||
	    zn_netdev_dma_map(F.n.a, F.zr))
		return -1;
	F.rxbuf = malloc(65536);
	return F.rxbuf ? 0 : -1;
}

static int teardown(void **state)
{
	(void)state;
	io_uring_queue_exit(&F.ring);
	if (F.fa > 0)
		zn_socket_close(F.fa);
	if (F.fb > 0)
		zn_socket_close(F.fb);
	if (F.fu > 0)
		zn_socket_close(F.fu);
	if (F.zr)
		zn_netdev_dma_unmap(F.n.a, F.zr);
	ndp_close(&F.n);
	zn_dma_region_free(F.zr);
	free(F.rxbuf);
	return 0;
}

/* ---- helpers ---- */

static struct io_uring_sqe *sqe_get(void)
{
	struct io_uring_sqe *sqe = io_uring_get_sqe(&F.ring);

	assert_non_null(sqe);
	return sqe;
}

/* Submit, then collect exactly n CQEs (bounded wait); fails on fewer. */
static void reap(struct io_uring_cqe *out, unsigned n)
{
	assert_true(io_uring_submit(&F.ring) >= 0);
	for (unsigned i = 0; i < n; i++) {
		int rc = urt_get_cqe(&F.ring, &out[i], WAIT_MS);

		if (rc)
			fail_msg("CQE %u of %u: %s", i + 1, n, strerror(-rc));
	}
}

/* Nothing more arrives within a few polls. */
static void assert_quiet(void)
{
	struct io_uring_cqe c;

	assert_int_equal(urt_get_cqe(&F.ring, &c, 20), -ETIME);
}

static void fill(uint8_t *p, size_t n, unsigned seed)
{
	for (size_t i = 0; i < n; i++)
		p[i] = (uint8_t)(seed + i * 7 + (i >> 8));
}

/* A RECV on B into F.rxbuf (len), user_data ud. */
static void prep_recv_b(size_t len, uint64_t ud, int flags)
{
	struct io_uring_sqe *sqe = sqe_get();

	io_uring_prep_recv(sqe, F.fb, F.rxbuf, len, flags);
	sqe->user_data = ud;
}

/* The result and notification of a SEND_ZC: in that order, same user_data. */
static void check_zc_pair(const struct io_uring_cqe *c, uint64_t ud, int res, int notif_res)
{
	assert_int_equal(c[0].user_data, ud);
	assert_int_equal(c[0].res, res);
	assert_int_equal(c[0].flags, IORING_CQE_F_MORE);
	assert_int_equal(c[1].user_data, ud);
	assert_int_equal(c[1].res, notif_res);
	assert_int_equal(c[1].flags, IORING_CQE_F_NOTIF);
}

/* Among n CQEs: ud's result (F_MORE) and then its one notification. */
static void check_zc(const struct io_uring_cqe *c, unsigned n, uint64_t ud, int res, int nres)
{
	unsigned k = 0;

	for (unsigned i = 0; i < n; i++) {
		if (c[i].user_data != ud)
			continue;
		if (k == 0) {
			assert_int_equal(c[i].res, res);
			assert_int_equal(c[i].flags, IORING_CQE_F_MORE);
		} else {
			assert_int_equal(c[i].res, nres);
			assert_int_equal(c[i].flags, IORING_CQE_F_NOTIF);
		}
		k++;
	}
	assert_int_equal(k, 2);
}

static void set_ud(uint64_t ud)
{
	/* the SQE prepared last */
	F.ring.sq.sqes[(F.ring.sq.sqe_tail - 1) & F.ring.sq.ring_mask].user_data = ud;
}

/* ---- SEND / RECV ---- */

static void test_send_recv_sizes(void **state)
{
	static const size_t sizes[] = { 1, 2, 3, 7, 64, 100, 511, 1000, 1471, MAXPAY };
	uint8_t buf[MAXPAY];

	(void)state;
	for (unsigned dir = 0; dir < 2; dir++)
		for (unsigned i = 0; i < sizeof(sizes) / sizeof(sizes[0]); i++) {
			struct io_uring_cqe c[2];
			int from = dir ? F.fb : F.fa, to = dir ? F.fa : F.fb;
			struct io_uring_sqe *sqe;

			fill(buf, sizes[i], i + dir * 50);
			memset(F.rxbuf, 0xee, MAXPAY + 16);
			sqe = sqe_get();
			io_uring_prep_recv(sqe, to, F.rxbuf, MAXPAY + 16, 0);
			sqe->user_data = 1;
			sqe = sqe_get();
			io_uring_prep_send(sqe, from, buf, sizes[i], 0);
			sqe->user_data = 2;
			reap(c, 2);
			for (unsigned k = 0; k < 2; k++) {
				assert_int_equal(c[k].res, (int)sizes[i]);
				assert_int_equal(c[k].flags, 0);
			}
			assert_memory_equal(F.rxbuf, buf, sizes[i]);
			assert_int_equal(F.rxbuf[sizes[i]], 0xee);
		}
	assert_quiet();
}

static void test_recv_truncate(void **state)
{
	uint8_t buf[300];
	struct io_uring_cqe c[4];

	(void)state;
	fill(buf, sizeof(buf), 3);
	memset(F.rxbuf, 0, 64);
	prep_recv_b(10, 1, 0);
	prep_recv_b(64, 2, MSG_TRUNC);
	io_uring_prep_send(sqe_get(), F.fa, buf, 100, 0);
	io_uring_prep_send(sqe_get(), F.fa, buf + 100, 200, 0);
	reap(c, 4);
	for (unsigned k = 0; k < 4; k++) {
		if (c[k].user_data == 1)
			assert_int_equal(c[k].res, 10);	/* cut, the rest lost */
		else if (c[k].user_data == 2)
			assert_int_equal(c[k].res, 200);	/* MSG_TRUNC: real length */
	}
	/* second datagram's first 64 bytes in the buffer (RECVs served in order) */
	assert_memory_equal(F.rxbuf, buf + 100, 64);
}

static void test_send_errors(void **state)
{
	struct sockaddr_in sin = { .sin_family = AF_INET, .sin_port = htons(PORT_B) };
	uint8_t buf[MAXPAY + 1] = { 0 };
	struct io_uring_cqe c[6];
	struct io_uring_sqe *sqe;
	int lone;

	(void)state;
	sin.sin_addr.s_addr = F.n.ip_b;
	lone = zn_udp_socket(F.n.a, &(struct zn_socket_conf){ .local = { 0, htons(7100) } });
	assert_true(lone > 0);
	io_uring_prep_send(sqe_get(), lone, buf, 10, 0);		/* no peer */
	set_ud(1);
	io_uring_prep_send(sqe_get(), F.fa, buf, MAXPAY + 1, 0);	/* above the MTU */
	set_ud(2);
	sqe = sqe_get();
	io_uring_prep_sendto(sqe, lone, buf, 10, 0, (struct sockaddr *)&sin, 8);	/* short name */
	set_ud(3);
	sqe = sqe_get();
	sin.sin_family = AF_INET6;
	io_uring_prep_sendto(sqe, lone, buf, 10, 0, (struct sockaddr *)&sin, sizeof(sin));
	set_ud(4);
	io_uring_prep_send(sqe_get(), F.fa, NULL, 10, 0);		/* bad buffer */
	set_ud(5);
	io_uring_prep_send(sqe_get(), F.fa, buf, 10, MSG_OOB);
	set_ud(6);
	reap(c, 6);
	for (unsigned i = 0; i < 6; i++) {
		static const int want[] = { -EDESTADDRREQ, -EMSGSIZE, -EINVAL, -EAFNOSUPPORT,
					    -EFAULT, -EOPNOTSUPP };

		assert_int_equal(c[i].user_data, i + 1);
		assert_int_equal(c[i].res, want[i]);
		assert_int_equal(c[i].flags, 0);
	}
	zn_socket_close(lone);
	assert_quiet();
}

static void test_sendto_unconnected(void **state)
{
	struct sockaddr_in sin = { .sin_family = AF_INET, .sin_port = htons(PORT_U) };
	uint8_t buf[200];
	struct io_uring_cqe c[2];
	int lone;

	(void)state;
	sin.sin_addr.s_addr = F.n.ip_b;
	lone = zn_udp_socket(F.n.a, &(struct zn_socket_conf){ .local = { 0, htons(7101) } });
	assert_true(lone > 0);
	fill(buf, sizeof(buf), 9);
	prep_recv_u(sizeof(buf), 1);
	io_uring_prep_sendto(sqe_get(), lone, buf, sizeof(buf), 0, (struct sockaddr *)&sin,
			     sizeof(sin));
	set_ud(2);
	/* the address was read at submission: zeroing it now changes nothing */
	assert_int_equal(io_uring_submit(&F.ring), 2);
	memset(&sin, 0, sizeof(sin));
	reap(c, 2);
	assert_int_equal(c[0].res, 200);
	assert_int_equal(c[1].res, 200);
	assert_memory_equal(F.rxbuf, buf, sizeof(buf));
	zn_socket_close(lone);
}

static void test_recv_bad_flags(void **state)
{
	struct io_uring_cqe c[3];
	struct io_uring_sqe *sqe;

	(void)state;
	sqe = sqe_get();
	io_uring_prep_recv_multishot(sqe, F.fb, NULL, 0, 0);
	sqe->flags |= IOSQE_BUFFER_SELECT;
	set_ud(1);
	sqe = sqe_get();
	io_uring_prep_recv_multishot(sqe, F.fb, F.rxbuf, 10, 0);
	set_ud(2);
	sqe = sqe_get();
	io_uring_prep_recv(sqe, F.fb, NULL, 10, 0);
	sqe->flags |= IOSQE_BUFFER_SELECT;
	set_ud(3);
	reap(c, 3);
	/* multishot needs BUFFER_SELECT (-EINVAL); with it, and no buffer group,
	 * the kernel's io_recv selects first: -ENOBUFS */
	for (unsigned i = 0; i < 3; i++) {
		assert_int_equal(c[i].user_data, i + 1);
		assert_int_equal(c[i].res, i == 1 ? -EINVAL : -ENOBUFS);
	}
	/* nothing to read: DONTWAIT says so at once */
	prep_recv_b(10, 4, MSG_DONTWAIT);
	reap(c, 1);
	assert_int_equal(c[0].user_data, 4);
	assert_int_equal(c[0].res, -EAGAIN);
	assert_quiet();
}

/* ---- SEND_ZC ---- */

static void test_zc_plain_copied(void **state)
{
	uint8_t *buf = malloc(1000);
	struct io_uring_cqe c[3];
	struct io_uring_sqe *sqe;

	(void)state;
	fill(buf, 1000, 1);
	prep_recv_b(2000, 9, 0);
	sqe = sqe_get();
	io_uring_prep_send_zc(sqe, F.fa, buf, 1000, 0, IORING_SEND_ZC_REPORT_USAGE);
	sqe->user_data = 77;
	reap(c, 3);
	/* the RECV may land anywhere; the pair keeps its order */
	{
		struct io_uring_cqe z[2];
		unsigned k = 0;

		for (unsigned i = 0; i < 3; i++)
			if (c[i].user_data == 77)
				z[k++] = c[i];
			else
				assert_int_equal(c[i].res, 1000);
		assert_int_equal(k, 2);
		check_zc_pair(z, 77, 1000, (int)IORING_NOTIF_USAGE_ZC_COPIED);
	}
	assert_memory_equal(F.rxbuf, buf, 1000);
	assert_quiet();
	free(buf);
}

static void test_zc_region_not_copied(void **state)
{
	uint8_t *buf = (uint8_t *)F.zr->va + 4096;
	struct io_uring_cqe c[3];
	struct io_uring_sqe *sqe;

	(void)state;
	fill(buf, MAXPAY, 5);
	prep_recv_b(2000, 9, 0);
	sqe = sqe_get();
	io_uring_prep_send_zc(sqe, F.fa, buf, MAXPAY, 0, IORING_SEND_ZC_REPORT_USAGE);
	sqe->user_data = 78;
	reap(c, 3);
	for (unsigned i = 0, k = 0; i < 3; i++)
		if (c[i].user_data == 78) {
			assert_int_equal(c[i].flags, k ? IORING_CQE_F_NOTIF : IORING_CQE_F_MORE);
			assert_int_equal(c[i].res, k ? 0 : MAXPAY);
			k++;
		}
	assert_memory_equal(F.rxbuf, buf, MAXPAY);
}

static void test_zc_fixed(void **state)
{
	/* registered buffers go zero-copy: inside DMA memory as they are,
	 * plain anonymous memory once adopted by core/mem */
	void *plain = mmap(NULL, 8192, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	struct iovec iov[2] = { { (uint8_t *)F.zr->va + 65536, 8192 }, { plain, 4096 } };
	struct io_uring_cqe c[6];
	struct io_uring_sqe *sqe;

	(void)state;
	assert_int_equal(io_uring_register_buffers(&F.ring, iov, 2), 0);
	fill(iov[0].iov_base, 8192, 11);
	fill(iov[1].iov_base, 4096, 12);
	for (unsigned b = 0; b < 2; b++) {
		prep_recv_b(2000, 9, 0);
		sqe = sqe_get();
		io_uring_prep_send_zc_fixed(sqe, F.fa, (uint8_t *)iov[b].iov_base + 100, 1200, 0,
					    IORING_SEND_ZC_REPORT_USAGE, b);
		sqe->user_data = 80 + b;
		reap(c, 3);
		for (unsigned i = 0, k = 0; i < 3; i++) {
			if (c[i].user_data != 80 + b)
				continue;
			assert_int_equal(c[i].flags, k ? IORING_CQE_F_NOTIF : IORING_CQE_F_MORE);
			if (!k)
				assert_int_equal(c[i].res, 1200);
			else	/* in a zn region, or adopted (private anonymous) */
				assert_int_equal(c[i].res, 0);
			k++;
		}
		assert_memory_equal(F.rxbuf, (uint8_t *)iov[b].iov_base + 100, 1200);
	}
	/* out of range, bad index: -EFAULT with F_MORE, then a notification */
	sqe = sqe_get();
	io_uring_prep_send_zc_fixed(sqe, F.fa, (uint8_t *)iov[0].iov_base + 8000, 1000, 0, 0, 0);
	sqe->user_data = 90;
	sqe = sqe_get();
	io_uring_prep_send_zc_fixed(sqe, F.fa, iov[0].iov_base, 100, 0, 0, 7);
	sqe->user_data = 91;
	reap(c, 4);
	check_zc(c, 4, 90, -EFAULT, 0);
	check_zc(c, 4, 91, -EFAULT, 0);
	assert_int_equal(io_uring_unregister_buffers(&F.ring), 0);
	munmap(plain, 8192);
	assert_quiet();
}

static void test_zc_faults_and_flags(void **state)
{
	uint8_t buf[64] = { 0 };
	struct io_uring_cqe c[8];
	struct io_uring_sqe *sqe;
	void *gone = mmap(NULL, 8192, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	struct sockaddr_in *bad_addr;

	(void)state;
	assert_true(gone != MAP_FAILED);
	munmap(gone, 8192);
	bad_addr = gone;
	/* NULL, unmapped, bad sockaddr pointer, zc_flags ~0 */
	sqe = sqe_get();
	io_uring_prep_send_zc(sqe, F.fa, NULL, 10, 0, 0);
	sqe->user_data = 1;
	sqe = sqe_get();
	io_uring_prep_send_zc(sqe, F.fa, gone, 100, 0, 0);
	sqe->user_data = 2;
	sqe = sqe_get();
	io_uring_prep_send_zc(sqe, F.fa, buf, 10, 0, 0);
	io_uring_prep_send_set_addr(sqe, (struct sockaddr *)bad_addr, sizeof(*bad_addr));
	sqe->user_data = 3;
	sqe = sqe_get();
	io_uring_prep_send_zc(sqe, F.fa, buf, 10, 0, ~0u);
	sqe->user_data = 4;
	reap(c, 8);
	check_zc(c, 8, 1, -EFAULT, 0);
	check_zc(c, 8, 2, -EFAULT, 0);
	check_zc(c, 8, 3, -EFAULT, 0);
	check_zc(c, 8, 4, -EINVAL, 0);
	for (unsigned i = 0; i < 4; i++)	/* results in order, then the notifications */
		assert_int_equal(c[i].flags, IORING_CQE_F_MORE);
	/* rejected before a notification exists: one CQE, no F_MORE */
	sqe = sqe_get();
	io_uring_prep_send_zc(sqe, F.fa, buf, 10, 0, 0);
	sqe->__pad2[0] = 1;
	sqe->user_data = 5;
	sqe = sqe_get();
	io_uring_prep_send_zc(sqe, F.fa, buf, 10, 0, 0);
	sqe->flags |= IOSQE_CQE_SKIP_SUCCESS;
	sqe->user_data = 6;
	reap(c, 2);
	for (unsigned i = 0; i < 2; i++) {
		assert_int_equal(c[i].user_data, 5 + i);
		assert_int_equal(c[i].res, -EINVAL);
		assert_int_equal(c[i].flags, 0);
	}
	/* REPORT_USAGE on a failure: nothing went zero-copy */
	sqe = sqe_get();
	io_uring_prep_send_zc(sqe, F.fa, NULL, 10, 0, IORING_SEND_ZC_REPORT_USAGE);
	sqe->user_data = 7;
	reap(c, 2);
	check_zc_pair(c, 7, -EFAULT, (int)IORING_NOTIF_USAGE_ZC_COPIED);
	/* not a socket: the ring itself */
	sqe = sqe_get();
	io_uring_prep_send_zc(sqe, F.ring.ring_fd, buf, 10, 0, 0);
	sqe->user_data = 8;
	reap(c, 2);
	check_zc_pair(c, 8, -ENOTSOCK, 0);
	assert_quiet();
}

static void test_sendmsg_zc_iovecs(void **state)
{
	uint8_t *a = (uint8_t *)F.zr->va + 200000, b[300], *cc = malloc(500);
	struct sockaddr_in sin = { .sin_family = AF_INET, .sin_port = htons(PORT_U) };
	struct iovec iov[3] = { { a, 100 }, { b, 300 }, { cc, 500 } };
	struct msghdr m = { .msg_name = &sin, .msg_namelen = sizeof(sin), .msg_iov = iov,
			    .msg_iovlen = 3 };
	uint8_t want[900];
	struct io_uring_cqe c[6];
	struct io_uring_sqe *sqe;
	int lone;

	(void)state;
	sin.sin_addr.s_addr = F.n.ip_b;
	lone = zn_udp_socket(F.n.a, &(struct zn_socket_conf){ .local = { 0, htons(7102) } });
	assert_true(lone > 0);
	fill(a, 100, 1);
	fill(b, 300, 2);
	fill(cc, 500, 3);
	memcpy(want, a, 100);
	memcpy(want + 100, b, 300);
	memcpy(want + 400, cc, 500);
	for (unsigned n = 2; n <= 3; n++) {
		uint32_t len = n == 2 ? 400 : 900;

		m.msg_iovlen = n;
		prep_recv_u(2000, 9);
		sqe = sqe_get();
		io_uring_prep_sendmsg_zc(sqe, lone, &m, 0);
		sqe->ioprio = IORING_SEND_ZC_REPORT_USAGE;
		sqe->user_data = 50 + n;
		reap(c, 3);
		for (unsigned i = 0, k = 0; i < 3; i++) {
			if (c[i].user_data == 9) {
				assert_int_equal(c[i].res, (int)len);
				continue;
			}
			assert_int_equal(c[i].flags, k ? IORING_CQE_F_NOTIF : IORING_CQE_F_MORE);
			assert_int_equal(c[i].res, k ? (int)IORING_NOTIF_USAGE_ZC_COPIED : (int)len);
			k++;
		}
		assert_memory_equal(F.rxbuf, want, len);
	}
	/* all pieces in DMA memory: zero copy, still byte-exact */
	iov[1].iov_base = a + 1000;
	iov[2].iov_base = a + 3000;
	fill(a + 1000, 300, 4);
	fill(a + 3000, 500, 5);
	memcpy(want + 100, a + 1000, 300);
	memcpy(want + 400, a + 3000, 500);
	prep_recv_u(2000, 9);
	sqe = sqe_get();
	io_uring_prep_sendmsg_zc(sqe, lone, &m, 0);
	sqe->ioprio = IORING_SEND_ZC_REPORT_USAGE;
	sqe->user_data = 60;
	reap(c, 3);
	for (unsigned i = 0, k = 0; i < 3; i++)
		if (c[i].user_data == 60) {
			assert_int_equal(c[i].res, k ? 0 : 900);
			k++;
		}
	assert_memory_equal(F.rxbuf, want, 900);
	/* NULL msghdr, addr2 set: errors with their notification */
	sqe = sqe_get();
	io_uring_prep_sendmsg_zc(sqe, lone, NULL, 0);
	sqe->user_data = 61;
	sqe = sqe_get();
	io_uring_prep_sendmsg_zc(sqe, lone, &m, 0);
	sqe->addr2 = 1;
	sqe->user_data = 62;
	reap(c, 4);
	check_zc(c, 4, 61, -EFAULT, 0);
	check_zc(c, 4, 62, -EINVAL, 0);
	/* a malformed msghdr, field by field: each its error, each with its
	 * notification (the kernel's ___sys_sendmsg / udp_sendmsg codes) */
	{
		struct sockaddr_in6 s6 = { .sin6_family = AF_INET6, .sin6_port = htons(PORT_U) };
		struct iovec bad_iov[1] = { { (void *)(uintptr_t)4096, 100 } };
		struct msghdr bad[5];
		static const int want_res[5] = { -EMSGSIZE, -EINVAL, -EAFNOSUPPORT, -EFAULT,
						 -EFAULT };
		struct io_uring_cqe c10[10];
		char ctl[32];

		for (unsigned i = 0; i < 5; i++)
			bad[i] = m;
		bad[0].msg_iovlen = 1025;			/* > UIO_MAXIOV */
		bad[1].msg_control = ctl;			/* no cmsgs on zcnic UDP */
		bad[1].msg_controllen = sizeof(ctl);
		bad[2].msg_name = &s6;				/* not IPv4 */
		bad[2].msg_namelen = sizeof(s6);
		bad[3].msg_iov = bad_iov;			/* unmapped payload */
		bad[3].msg_iovlen = 1;
		bad[4].msg_iov = (struct iovec *)(uintptr_t)4096;	/* unmapped iovec array */
		for (unsigned i = 0; i < 5; i++) {
			sqe = sqe_get();
			io_uring_prep_sendmsg_zc(sqe, lone, &bad[i], 0);
			sqe->user_data = 70 + i;
		}
		reap(c10, 10);
		for (unsigned i = 0; i < 5; i++)
			check_zc(c10, 10, 70 + i, want_res[i], 0);
	}
	zn_socket_close(lone);
	free(cc);
	assert_quiet();
}

/* Many sends in flight, a CQ smaller than their CQEs: nothing lost, and
 * every notification after its result. */
static void test_zc_many_overflow(void **state)
{
	enum { N = 200 };
	static struct io_uring_cqe c[2 * N];
	uint8_t *buf = (uint8_t *)F.zr->va + 300000;
	uint8_t seen[N] = { 0 };

	(void)state;
	io_uring_queue_exit(&F.ring);
	assert_int_equal(open_ring(8), 0);
	fill(buf, 256, 7);
	for (unsigned i = 0; i < N; i++) {
		struct io_uring_sqe *sqe = io_uring_get_sqe(&F.ring);

		if (!sqe) {
			assert_true(io_uring_submit(&F.ring) > 0);
			sqe = sqe_get();
		}
		io_uring_prep_send_zc(sqe, F.fa, buf + (i % 64), 64, 0, 0);
		sqe->user_data = 1000 + i;
	}
	reap(c, 2 * N);
	for (unsigned i = 0; i < 2 * N; i++) {
		unsigned k = (unsigned)(c[i].user_data - 1000);

		assert_true(k < N);
		if (c[i].flags & IORING_CQE_F_NOTIF) {
			assert_int_equal(seen[k], 1);	/* result first */
			assert_int_equal(c[i].flags, IORING_CQE_F_NOTIF);
			assert_int_equal(c[i].res, 0);
			seen[k] = 2;
		} else {
			assert_int_equal(seen[k], 0);
			assert_int_equal(c[i].res, 64);
			assert_int_equal(c[i].flags, IORING_CQE_F_MORE);
			seen[k] = 1;
		}
	}
	for (unsigned i = 0; i < N; i++)
		assert_int_equal(seen[i], 2);
	assert_quiet();
	/* B's socket collected the datagrams; drop them (not read here) */
	io_uring_queue_exit(&F.ring);
	zn_socket_close(F.fb);
	zn_socket_close(F.fa);
	assert_int_equal(open_socks(), 0);
	assert_int_equal(open_ring(0), 0);
}

/*
 * The send path's one in-flight limit, ZN_SOCK_SEND_MAX, is all usable: as
 * many zero-copy sends get their result at once, before any completion can
 * come back; the one past it waits (no CQE, no error) until a completion
 * frees a slot, then goes. Every send: result, then exactly one notification.
 */
static void test_zc_limit_reachable(void **state)
{
	enum { N = ZN_SOCK_SEND_MAX + 1 };
	static struct io_uring_cqe c[2 * N];
	struct io_uring_params p = { .flags = IORING_SETUP_SUBMIT_ALL };
	uint8_t *buf = (uint8_t *)F.zr->va + 400000;
	uint8_t seen[N] = { 0 };
	unsigned notifs_before_last = 0, got;

	(void)state;
	io_uring_queue_exit(&F.ring);
	assert_int_equal(io_uring_queue_init_params(1024, &F.ring, &p), 0);
	fill(buf, 256, 9);
	for (unsigned i = 0; i < N; i++) {
		struct io_uring_sqe *sqe = sqe_get();

		io_uring_prep_send_zc(sqe, F.fa, buf + (i % 64), 64, 0, 0);
		sqe->user_data = 5000 + i;
	}
	/* one submit: every send is issued, then one poll pass posts the frames
	 * (its reap ran before they were posted: nothing completed yet) */
	assert_int_equal(io_uring_submit(&F.ring), N);
	assert_int_equal(io_uring_cq_ready(&F.ring), ZN_SOCK_SEND_MAX);
	for (got = 0; got < ZN_SOCK_SEND_MAX; got++) {
		struct io_uring_cqe *cqe;

		assert_int_equal(io_uring_peek_cqe(&F.ring, &cqe), 0);
		c[got] = *cqe;
		io_uring_cqe_seen(&F.ring, cqe);
		assert_int_equal(c[got].user_data, 5000 + got);
		assert_int_equal(c[got].res, 64);
		assert_int_equal(c[got].flags, IORING_CQE_F_MORE);
		seen[got] = 1;
	}
	/* the rest: the last one's result and every notification */
	for (; got < 2 * N; got++) {
		unsigned k;
		int rc = urt_get_cqe(&F.ring, &c[got], WAIT_MS);

		if (rc)
			fail_msg("CQE %u of %u: %s", got + 1, 2 * N, strerror(-rc));
		k = (unsigned)(c[got].user_data - 5000);
		assert_true(k < N);
		if (c[got].flags & IORING_CQE_F_NOTIF) {
			assert_int_equal(seen[k], 1);	/* result first */
			assert_int_equal(c[got].flags, IORING_CQE_F_NOTIF);
			assert_int_equal(c[got].res, 0);
			seen[k] = 2;
			if (seen[N - 1] == 0)
				notifs_before_last++;
		} else {
			assert_int_equal(k, N - 1);
			assert_int_equal(seen[k], 0);
			assert_int_equal(c[got].res, 64);
			assert_int_equal(c[got].flags, IORING_CQE_F_MORE);
			seen[k] = 1;
		}
	}
	/* the one past the limit went only after a completion freed a slot */
	assert_true(notifs_before_last >= 1);
	for (unsigned i = 0; i < N; i++)
		assert_int_equal(seen[i], 2);
	assert_quiet();
	io_uring_queue_exit(&F.ring);
	zn_socket_close(F.fb);
	zn_socket_close(F.fa);
	assert_int_equal(open_socks(), 0);
	assert_int_equal(open_ring(0), 0);
}

/* More sends than the TX path holds at once: they wait, none fails. */
static void test_send_flood_waits(void **state)
{
	enum { N = 700 };
	uint8_t *buf = malloc(N * 8);
	static struct io_uring_cqe c[N];

	(void)state;
	for (unsigned i = 0; i < N; i++) {
		struct io_uring_sqe *sqe = io_uring_get_sqe(&F.ring);

		if (!sqe) {
			assert_true(io_uring_submit(&F.ring) > 0);
			sqe = sqe_get();
		}
		io_uring_prep_send(sqe, F.fa, buf + i * 8, 8, 0);
		sqe->user_data = i;
	}
	reap(c, N);
	for (unsigned i = 0; i < N; i++) {
		assert_int_equal(c[i].user_data, i);	/* in submission order */
		assert_int_equal(c[i].res, 8);
	}
	free(buf);
	io_uring_queue_exit(&F.ring);
	zn_socket_close(F.fb);
	zn_socket_close(F.fa);
	assert_int_equal(open_socks(), 0);
	assert_int_equal(open_ring(0), 0);
}

static void test_close_inflight(void **state)
{
	uint8_t *buf = (uint8_t *)F.zr->va + 400000;
	struct io_uring_cqe c[64];
	unsigned notifs = 0, results = 0;

	(void)state;
	for (unsigned i = 0; i < 16; i++) {
		io_uring_prep_send_zc(sqe_get(), F.fa, buf, 512, 0, 0);
		set_ud(i);
	}
	assert_int_equal(io_uring_submit(&F.ring), 16);
	/* close right away: the notifications still come, after the results */
	assert_int_equal(zn_socket_close(F.fa), 0);
	F.fa = -1;
	for (unsigned i = 0; i < 32; i++) {
		assert_int_equal(urt_get_cqe(&F.ring, &c[i], WAIT_MS), 0);
		if (c[i].flags & IORING_CQE_F_NOTIF)
			notifs++;
		else
			results++;
		assert_true(results >= notifs);
	}
	assert_int_equal(notifs, 16);
	assert_quiet();
	/* ring exit with sends and a RECV in flight: no CQE, no leak */
	zn_socket_close(F.fb);
	assert_int_equal(open_socks(), 0);
	for (unsigned i = 0; i < 8; i++)
		io_uring_prep_send_zc(sqe_get(), F.fa, buf, 512, 0, 0);
	prep_recv_b(10, 1, 0);
	io_uring_prep_send(sqe_get(), F.fb, buf, 100, 0);
	F.ring.sq.sqes[(F.ring.sq.sqe_tail - 1) & F.ring.sq.ring_mask].ioprio =
		IORING_RECVSEND_POLL_FIRST;
	assert_int_equal(io_uring_submit(&F.ring), 10);
	io_uring_queue_exit(&F.ring);
	assert_int_equal(open_ring(0), 0);
	zn_socket_close(F.fa);
	zn_socket_close(F.fb);
	assert_int_equal(open_socks(), 0);
}

/* MSG_MORE on UDP (udp_sendmsg corking): pieces make one datagram, each
 * send's CQE is its own byte count; ZC pieces are notified only once the
 * datagram went; a total above the limit fails and drops the datagram. */
static void test_udp_cork(void **state)
{
	uint8_t *zbuf = (uint8_t *)F.zr->va + 600000, pay[MAXPAY + 1];
	struct io_uring_cqe c[16];
	struct io_uring_sqe *sqe;

	(void)state;
	fill(pay, sizeof(pay), 11);
	memcpy(zbuf, pay + 300, 200);
	/* SEND 100 + MORE, SEND_ZC 200 + MORE, SEND 50: one 350-byte datagram */
	io_uring_prep_send(sqe_get(), F.fa, pay, 100, MSG_MORE);
	set_ud(1);
	reap(c, 1);
	assert_int_equal(c[0].res, 100);
	assert_int_equal(c[0].flags, 0);
	io_uring_prep_send_zc(sqe_get(), F.fa, zbuf, 200, MSG_MORE, 0);
	set_ud(2);
	reap(c, 1);
	assert_int_equal(c[0].user_data, 2);
	assert_int_equal(c[0].res, 200);
	assert_int_equal(c[0].flags, IORING_CQE_F_MORE);
	assert_quiet();	/* nothing sent yet: no notification, nothing received */
	io_uring_prep_send(sqe_get(), F.fa, pay + 500, 50, 0);
	set_ud(3);
	prep_recv_b(2048, 4, 0);
	reap(c, 3);
	for (unsigned i = 0; i < 3; i++) {
		if (c[i].user_data == 2) {
			assert_int_equal(c[i].res, 0);
			assert_int_equal(c[i].flags, IORING_CQE_F_NOTIF);
		} else if (c[i].user_data == 3) {
			assert_int_equal(c[i].res, 50);
		} else {
			assert_int_equal(c[i].user_data, 4);
			assert_int_equal(c[i].res, 350);
		}
	}
	assert_memory_equal(F.rxbuf, pay, 100);
	assert_memory_equal(F.rxbuf + 100, pay + 300, 250);	/* zbuf, then pay + 500 */
	assert_quiet();

	/* SENDMSG with MORE, then an empty SEND ends it */
	{
		struct iovec iov[2] = { { pay, 10 }, { pay + 10, 20 } };
		struct msghdr m = { .msg_iov = iov, .msg_iovlen = 2 };

		io_uring_prep_sendmsg(sqe_get(), F.fa, &m, MSG_MORE);
		set_ud(5);
		reap(c, 1);
		assert_int_equal(c[0].res, 30);
	}
	io_uring_prep_send(sqe_get(), F.fa, pay, 0, 0);
	set_ud(6);
	prep_recv_b(2048, 7, 0);
	reap(c, 2);
	for (unsigned i = 0; i < 2; i++)
		assert_int_equal(c[i].res, c[i].user_data == 6 ? 0 : 30);
	assert_memory_equal(F.rxbuf, pay, 30);

	/* more pieces than a frame's segments: copied together, still one datagram */
	for (unsigned i = 0; i < ZN_UDP_MAX_SEGS + 2; i++) {
		io_uring_prep_send_zc(sqe_get(), F.fa, zbuf + i * 10, 10, MSG_MORE, 0);
		set_ud(100 + i);
		reap(c, 1);
		assert_int_equal(c[0].res, 10);
	}
	io_uring_prep_send(sqe_get(), F.fa, pay, 5, 0);
	set_ud(8);
	prep_recv_b(2048, 9, 0);
	{
		unsigned n = ZN_UDP_MAX_SEGS + 2 + 2, notifs = 0;
		struct io_uring_cqe cc[ZN_UDP_MAX_SEGS + 4];

		reap(cc, n);
		for (unsigned i = 0; i < n; i++) {
			if (cc[i].flags & IORING_CQE_F_NOTIF) {
				assert_int_equal(cc[i].user_data, 100 + notifs);
				notifs++;
			} else if (cc[i].user_data == 9) {
				assert_int_equal(cc[i].res, (ZN_UDP_MAX_SEGS + 2) * 10 + 5);
			} else {
				assert_int_equal(cc[i].user_data, 8);
				assert_int_equal(cc[i].res, 5);
			}
		}
		assert_int_equal(notifs, ZN_UDP_MAX_SEGS + 2);
	}
	assert_memory_equal(F.rxbuf, zbuf, (ZN_UDP_MAX_SEGS + 2) * 10);
	assert_memory_equal(F.rxbuf + (ZN_UDP_MAX_SEGS + 2) * 10, pay, 5);

	/* the limit counts the whole datagram: -EMSGSIZE drops what was pending */
	io_uring_prep_send_zc(sqe_get(), F.fa, zbuf, 1000, MSG_MORE, 0);
	set_ud(10);
	reap(c, 1);
	assert_int_equal(c[0].res, 1000);
	io_uring_prep_send(sqe_get(), F.fa, pay, MAXPAY - 999, MSG_MORE);
	set_ud(11);
	reap(c, 2);
	/* the dropped piece's notification is posted while 11 is issued */
	assert_int_equal(c[0].user_data, 10);
	assert_int_equal(c[0].flags, IORING_CQE_F_NOTIF);
	assert_int_equal(c[1].user_data, 11);
	assert_int_equal(c[1].res, -EMSGSIZE);
	sqe = sqe_get();
	io_uring_prep_send(sqe, F.fa, pay, 7, 0);
	sqe->user_data = 12;
	prep_recv_b(2048, 13, 0);
	reap(c, 2);
	for (unsigned i = 0; i < 2; i++)
		assert_int_equal(c[i].res, 7);
	assert_memory_equal(F.rxbuf, pay, 7);
	assert_quiet();

	/* a pending datagram dropped at close: its ZC piece is still notified */
	io_uring_prep_send_zc(sqe_get(), F.fa, zbuf, 64, MSG_MORE, 0);
	set_ud(14);
	reap(c, 1);
	assert_int_equal(c[0].res, 64);
	assert_int_equal(zn_socket_close(F.fa), 0);
	F.fa = -1;
	reap(c, 1);
	assert_int_equal(c[0].user_data, 14);
	assert_int_equal(c[0].flags, IORING_CQE_F_NOTIF);
	zn_socket_close(F.fb);
	assert_int_equal(open_socks(), 0);
}

static void test_fixed_file_skip_link(void **state)
{
	int files[2];
	uint8_t buf[3][100];
	struct io_uring_cqe c[8];
	struct io_uring_sqe *sqe;

	(void)state;
	files[0] = F.fa;
	files[1] = F.fb;
	assert_int_equal(io_uring_register_files(&F.ring, files, 2), 0);
	for (unsigned i = 0; i < 3; i++)
		fill(buf[i], 100, 20 + i);
	/* a linked chain of three SENDs through fixed file 0; the middle one
	 * posts nothing on success */
	for (unsigned i = 0; i < 3; i++) {
		sqe = sqe_get();
		io_uring_prep_send(sqe, 0, buf[i], 100, 0);
		sqe->flags |= IOSQE_FIXED_FILE | (i < 2 ? IOSQE_IO_LINK : 0) |
			      (i == 1 ? IOSQE_CQE_SKIP_SUCCESS : 0);
		sqe->user_data = 10 + i;
	}
	reap(c, 2);
	assert_int_equal(c[0].user_data, 10);
	assert_int_equal(c[1].user_data, 12);
	assert_int_equal(c[0].res, 100);
	assert_int_equal(c[1].res, 100);
	/* they arrive in chain order, read through fixed file 1 */
	for (unsigned i = 0; i < 3; i++) {
		sqe = sqe_get();
		io_uring_prep_recv(sqe, 1, F.rxbuf + i * 100, 100, 0);
		sqe->flags |= IOSQE_FIXED_FILE;
		sqe->user_data = 20 + i;
	}
	reap(c, 3);
	for (unsigned i = 0; i < 3; i++) {
		assert_int_equal(c[i].user_data, 20 + i);
		assert_int_equal(c[i].res, 100);
		assert_memory_equal(F.rxbuf + i * 100, buf[i], 100);
	}
	/* a failing SKIP_SUCCESS send posts its CQE and cancels its link */
	sqe = sqe_get();
	io_uring_prep_send(sqe, 0, buf[0], MAXPAY + 1, 0);
	sqe->flags |= IOSQE_FIXED_FILE | IOSQE_IO_LINK | IOSQE_CQE_SKIP_SUCCESS;
	sqe->user_data = 30;
	sqe = sqe_get();
	io_uring_prep_send(sqe, 0, buf[0], 10, 0);
	sqe->flags |= IOSQE_FIXED_FILE;
	sqe->user_data = 31;
	reap(c, 1);
	assert_int_equal(c[0].user_data, 30);
	assert_int_equal(c[0].res, -EMSGSIZE);
	assert_quiet();
	assert_int_equal(io_uring_unregister_files(&F.ring), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_send_recv_sizes),
		cmocka_unit_test(test_recv_truncate),
		cmocka_unit_test(test_send_errors),
		cmocka_unit_test(test_sendto_unconnected),
		cmocka_unit_test(test_recv_bad_flags),
		cmocka_unit_test(test_zc_plain_copied),
		cmocka_unit_test(test_zc_region_not_copied),
		cmocka_unit_test(test_zc_fixed),
		cmocka_unit_test(test_zc_faults_and_flags),
		cmocka_unit_test(test_sendmsg_zc_iovecs),
		cmocka_unit_test(test_zc_many_overflow),
		cmocka_unit_test(test_zc_limit_reachable),
		cmocka_unit_test(test_send_flood_waits),
		cmocka_unit_test(test_close_inflight),
		cmocka_unit_test(test_fixed_file_skip_link),
		cmocka_unit_test(test_udp_cork),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
