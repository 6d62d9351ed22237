/* SPDX-License-Identifier: MIT */
/*
 * zcnic's TCP against itself: two netdevs over an in-process zn-nicsim
 * bnxt pair (tests/unit/support/netdev_pair.c), the public socket API for
 * set-up (zn_tcp_socket / connect / listen / accept / shutdown) and the ring
 * for data: SEND_ZC from a registered buffer one way (a notification per
 * request once B acknowledged it all), SEND (copied) the other, RECV on
 * both, every byte checked, EOF both ways, also while the models drop
 * frames; a connect to a port nobody listens on is refused, one to an
 * address nobody answers for times out at the socket's user timeout. One thread drives both ends, so the
 * set-up calls are used without waiting (timeout 0) between polls of both
 * netdevs.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <liburing.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <cmocka.h>

#include "base/clock.h"
#include "core/net/netif.h"
#include "core/net/tcp.h"
#include "sim/model.h"
#include "tests/unit/support/netdev_pair.h"
#include "zcnic/socket.h"

#define PORT		5300
#define A_TO_B		(4u << 20)
#define A_SEND		1400		/* under a bounce buffer: SEND copies */
#define B_TO_A		(700u * A_SEND)
#define CHUNK		(64u * 1024u)
#define RXBUF		(128u * 1024u)
#define WAIT_MS		10000
/* Per CQE and for the whole transfer: losses in the model under load cost
 * RTOs with backoff (200 ms, 400 ms, ...) before the data moves again. */
#define CQE_WAIT_MS	30000
#define XFER_WAIT_MS	90000
#define TXBUF_MAX	(4u << 20)		/* B's buffer, sent over again past it */
#define A_BUF_MAX	(2996u * A_SEND)	/* about 4 MiB, whole sends */
#define A_WINDOW	700			/* SENDs waiting in the ring */

static inline uint8_t pat(uint64_t i, uint8_t salt)
{
	return (uint8_t)(i ^ (i >> 9) ^ (i >> 17) ^ salt);
}

static void poll_both(struct ndp *n)
{
	zn_netdev_poll(n->a);
	zn_netdev_poll(n->b);
}

/* B connects to A:port; A accepts. The accepted handle, B's in *bfd. */
static int pair_connect(struct ndp *n, int lfd, int *bfd)
{
	struct zn_addr4 dst = { .ip = n->ip_a, .port = htons(PORT) }, peer;
	uint64_t end = zn_now_ms() + WAIT_MS;
	int afd = -EAGAIN, rc;

	*bfd = zn_tcp_socket(n->b, &(struct zn_socket_conf){ 0 });
	assert_true(*bfd > 0);
	assert_int_equal(zn_tcp_connect(*bfd, &dst, 0), -EINPROGRESS);
	assert_int_equal(zn_tcp_connect(*bfd, &dst, 0), -EALREADY);
	while (afd == -EAGAIN && zn_now_ms() < end) {
		poll_both(n);
		afd = zn_tcp_accept(lfd, &peer, 0);
	}
	assert_true(afd > 0);
	assert_int_equal(peer.ip, n->ip_b);
	/* B's side completes with the same polls */
	while ((rc = zn_tcp_connect(*bfd, &dst, 0)) == -EALREADY && zn_now_ms() < end)
		poll_both(n);
	assert_int_equal(rc, -EISCONN);
	return afd;
}

static int wait_cqe(struct io_uring *ring, struct io_uring_cqe **cqe)
{
	struct __kernel_timespec ts = { .tv_sec = CQE_WAIT_MS / 1000 };

	return io_uring_wait_cqe_timeout(ring, cqe, &ts);
}

static void test_refused(void **state)
{
	struct ndp n;
	struct zn_addr4 dst;
	uint64_t end;
	int fd, rc;

	(void)state;
	assert_int_equal(ndp_open(&n, ""), 0);
	assert_int_equal(ndp_resolve(&n, 3000), 0);
	dst = (struct zn_addr4){ .ip = n.ip_a, .port = htons(PORT + 1) };
	fd = zn_tcp_socket(n.b, &(struct zn_socket_conf){ 0 });
	assert_true(fd > 0);
	assert_int_equal(zn_tcp_connect(fd, &dst, 0), -EINPROGRESS);
	end = zn_now_ms() + WAIT_MS;
	while ((rc = zn_tcp_connect(fd, &dst, 0)) == -EALREADY && zn_now_ms() < end)
		poll_both(&n);
	assert_int_equal(rc, -ECONNREFUSED);
	assert_int_equal(zn_tcp_listen(fd + 1000, 1), -EBADF);
	assert_int_equal(zn_tcp_shutdown(fd), -ENOTCONN);
	zn_socket_close(fd);
	ndp_close(&n);
}

/* A connect to an address nobody answers for (no ARP reply, no SYN-ACK),
 * with a 300 ms user timeout set through the socket: -ETIMEDOUT in about
 * that time, not after the SYN retries (over a minute); the options' errors. */
static void test_connect_silent(void **state)
{
	struct ndp n;
	struct zn_addr4 dst;
	uint64_t t0, took;
	int fd, rc;

	(void)state;
	assert_int_equal(ndp_open(&n, ""), 0);
	assert_int_equal(ndp_resolve(&n, 3000), 0);
	dst = (struct zn_addr4){ .ip = (n.ip_a & htonl(0xffffff00u)) | htonl(99),
				 .port = htons(PORT) };
	fd = zn_tcp_socket(n.b, &(struct zn_socket_conf){ 0 });
	assert_true(fd > 0);
	assert_int_equal(zn_tcp_user_timeout(fd, 300), 0);
	assert_int_equal(zn_tcp_congestion(fd, "vegas"), -ENOENT);
	assert_int_equal(zn_tcp_congestion(fd, "reno"), 0);
	assert_int_equal(zn_tcp_keepalive(fd, true, 1000, 100, 3), 0);
	assert_int_equal(zn_tcp_cork(fd + 1000, true), -EBADF);
	t0 = zn_now_ms();
	rc = zn_tcp_connect(fd, &dst, WAIT_MS);
	took = zn_now_ms() - t0;
	assert_int_equal(rc, -ETIMEDOUT);
	assert_true(took >= 290 && took < 3000);
	zn_socket_close(fd);
	ndp_close(&n);
}

/* The engine's and the interface's counters, printed when a transfer came
 * up short: where the bytes stopped (lost, refused by the output, waiting
 * for a TX slot or for ARP). */
static void tcp_counters(const char *who, struct zn_netdev *d, uint32_t peer)
{
	struct zn_netif *nif = zn_netdev_netif(d);
	struct zn_netif_stats ns;
	struct zn_tcp_stats st;
	uint8_t mac[6];

	zn_tcp_stats(zn_netif_tcp(nif), &st);
	zn_netif_stats(nif, &ns);
	print_message("tcp %s: rx %llu segs, ooo %llu (dropped %llu), dup %llu, out of window "
		      "%llu; tx %llu segs, retrans %llu, rto %llu, fast retrans %llu, sack retrans "
		      "%llu, output refused %llu, deferred %llu, zwp %llu\n", who,
		      (unsigned long long)st.rx_segs, (unsigned long long)st.rx_ooo,
		      (unsigned long long)st.rx_ooo_drop, (unsigned long long)st.rx_dup,
		      (unsigned long long)st.rx_out_of_window, (unsigned long long)st.tx_segs,
		      (unsigned long long)st.retrans, (unsigned long long)st.rto_fired,
		      (unsigned long long)st.fast_retrans, (unsigned long long)st.sack_retrans,
		      (unsigned long long)st.out_fail, (unsigned long long)st.out_deferred,
		      (unsigned long long)st.zwp);
	print_message("tcp %s: paws %llu, bad csum %llu, challenge %llu, dsack %llu, tlp %llu (repaired "
		      "%llu), rack recoveries %llu, sack recoveries %llu\n", who,
		      (unsigned long long)st.rx_paws, (unsigned long long)st.rx_bad[ZN_TCP_PARSE_CSUM],
		      (unsigned long long)st.rx_challenge, (unsigned long long)st.dsack_rx,
		      (unsigned long long)st.tlp_probes, (unsigned long long)st.tlp_recovered,
		      (unsigned long long)st.rack_recoveries, (unsigned long long)st.sack_recoveries);
	print_message("netif %s: rx %llu, no buffer %llu; tx tcp %llu, completed %llu, no slot "
		      "%llu, ring refused %llu, unresolved %llu; arp %s, requests %llu, learned "
		      "%llu, expired %llu, failed %llu\n", who, (unsigned long long)ns.rx_frames,
		      (unsigned long long)ns.rx[ZN_NET_DROP_NOBUF], (unsigned long long)ns.tx_tcp,
		      (unsigned long long)ns.tx_completed, (unsigned long long)ns.tx_no_slot,
		      (unsigned long long)ns.tx_refused, (unsigned long long)ns.tx_unresolved,
		      zn_netif_arp_lookup(nif, peer, mac) == 0 ? "resolved" : "NOT resolved",
		      (unsigned long long)ns.tx_arp_request, (unsigned long long)ns.arp_learned,
		      (unsigned long long)ns.arp_expired, (unsigned long long)ns.arp_failed);
}

/*
 * Both ways at once over model opts (lossy: ",drop=N"): a_to_b bytes (a
 * multiple of CHUNK) by SEND_ZC from B, b_to_a (a multiple of A_SEND) by
 * SEND from A, every byte checked. Sizes past TXBUF_MAX send their buffer
 * over again (the pattern repeats with it), so a long run needs no more
 * memory than a short one.
 */
/* What a transfer cost in recovery: both ends' engines summed. */
struct xfer_cost {
	uint64_t ms, rto, fast, sack_retrans, retrans;
};

static void xfer_cost_add(struct xfer_cost *x, struct zn_netdev *d)
{
	struct zn_tcp_stats st;

	zn_tcp_stats(zn_netif_tcp(zn_netdev_netif(d)), &st);
	x->rto += st.rto_fired;
	x->fast += st.fast_retrans;
	x->sack_retrans += st.sack_retrans;
	x->retrans += st.retrans;
}

static void transfer_both_ways(const char *opts, const char *faults, bool agg, uint64_t a_to_b,
			       uint64_t b_to_a, uint64_t wait_ms, struct xfer_cost *cost)
{
	struct io_uring ring;
	struct iovec reg;
	struct ndp n;
	uint8_t *txa, *txb, *rxa, *rxb;
	uint64_t got_a = 0, got_b = 0, sent_b = 0, acked_b = 0, sent_a = 0, sends_a = 0, notifs = 0;
	uint64_t end;
	uint32_t len_a = b_to_a < A_BUF_MAX ? (uint32_t)b_to_a : A_BUF_MAX;
	uint32_t len_b = a_to_b < TXBUF_MAX ? (uint32_t)a_to_b : TXBUF_MAX;
	unsigned inflight = 0, bad = 0, pending_a = 0;
	bool eof_a = false, eof_b = false, recv_a = false, recv_b = false;
	int lfd, afd, bfd;

	uint64_t t0;

	assert_int_equal(ndp_open_agg(&n, opts, 0, 0, agg), 0);
	assert_int_equal(ndp_resolve(&n, 3000), 0);
	if (faults) {
		char err[256];

		for (unsigned i = 0; i < 2; i++)
			assert_int_equal(zn_sim_device_faults(n.sim.dev[i], faults, err, sizeof(err)),
					 0);
	}
	t0 = zn_now_ms();
	lfd = zn_tcp_socket(n.a, &(struct zn_socket_conf){ .local = { 0, htons(PORT) } });
	assert_true(lfd > 0);
	assert_int_equal(zn_tcp_listen(lfd, 4), 0);
	afd = pair_connect(&n, lfd, &bfd);

	txb = mmap(NULL, len_b, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	txa = malloc(len_a);
	rxa = malloc(RXBUF);
	rxb = malloc(RXBUF);
	for (uint32_t i = 0; i < len_b; i++)
		txb[i] = pat(i, 0x11);
	for (uint32_t i = 0; i < len_a; i++)
		txa[i] = pat(i, 0x22);
	assert_int_equal(io_uring_queue_init(256, &ring, 0), 0);
	reg = (struct iovec){ txb, len_b };
	assert_int_equal(io_uring_register_buffers(&ring, &reg, 1), 0);

	/* B -> A by SEND_ZC (registered buffer), A -> B by SEND in chunks the
	 * size of a bounce buffer; RECVs on both; until both saw EOF */
	end = zn_now_ms() + wait_ms;
	while ((!eof_a || !eof_b) && zn_now_ms() < end) {
		struct io_uring_sqe *sqe;
		struct io_uring_cqe *cqe;

		while (sent_b < a_to_b && inflight < 32) {
			uint32_t k = a_to_b - sent_b < CHUNK ? (uint32_t)(a_to_b - sent_b) : CHUNK;

			sqe = io_uring_get_sqe(&ring);
			io_uring_prep_send_zc_fixed(sqe, bfd, txb + sent_b % len_b, k, 0, 0, 0);
			io_uring_sqe_set_data64(sqe, 1ull << 32 | k);
			sent_b += k;
			inflight++;
		}
		/* up to A_WINDOW SENDs parked in the ring at once */
		while (sent_a < b_to_a && pending_a < A_WINDOW) {
			sqe = io_uring_get_sqe(&ring);
			io_uring_prep_send(sqe, afd, txa + sent_a % len_a, A_SEND, 0);
			io_uring_sqe_set_data64(sqe, 2ull << 32);
			if (io_uring_submit(&ring) < 0)
				bad++;
			sent_a += A_SEND;
			pending_a++;
		}
		if (!recv_a && !eof_a) {
			sqe = io_uring_get_sqe(&ring);
			io_uring_prep_recv(sqe, afd, rxa, RXBUF, 0);
			io_uring_sqe_set_data64(sqe, 3ull << 32);
			recv_a = true;
		}
		if (!recv_b && !eof_b) {
			sqe = io_uring_get_sqe(&ring);
			io_uring_prep_recv(sqe, bfd, rxb, RXBUF, 0);
			io_uring_sqe_set_data64(sqe, 4ull << 32);
			recv_b = true;
		}
		io_uring_submit(&ring);
		if (wait_cqe(&ring, &cqe))
			break;
		switch (io_uring_cqe_get_data64(cqe) >> 32) {
		case 1:
			if (cqe->flags & IORING_CQE_F_NOTIF) {
				notifs++;
				inflight--;
				acked_b += (uint32_t)io_uring_cqe_get_data64(cqe);
				if (acked_b == a_to_b)
					assert_int_equal(zn_tcp_shutdown(bfd), 0);
			} else if (cqe->res != (int)(uint32_t)io_uring_cqe_get_data64(cqe) ||
				   !(cqe->flags & IORING_CQE_F_MORE)) {
				bad++;
			}
			break;
		case 2:
			bad += cqe->res != A_SEND;
			pending_a--;
			/* every SEND taken: then the FIN */
			if (++sends_a == b_to_a / A_SEND)
				assert_int_equal(zn_tcp_shutdown(afd), 0);
			break;
		case 3:
			recv_a = false;
			if (cqe->res <= 0) {
				eof_a = true;
				bad += cqe->res != 0;
				break;
			}
			for (int i = 0; i < cqe->res; i++)
				bad += rxa[i] != pat((got_a + (uint64_t)i) % len_b, 0x11);
			got_a += (uint64_t)cqe->res;
			break;
		case 4:
			recv_b = false;
			if (cqe->res <= 0) {
				eof_b = true;
				bad += cqe->res != 0;
				break;
			}
			for (int i = 0; i < cqe->res; i++)
				bad += rxb[i] != pat((got_b + (uint64_t)i) % len_a, 0x22);
			got_b += (uint64_t)cqe->res;
			break;
		default:
			bad++;
		}
		io_uring_cqe_seen(&ring, cqe);
	}
	if (got_a != a_to_b || got_b != b_to_a || getenv("ZN_TCP_VERBOSE")) {
		tcp_counters("a", n.a, n.ip_b);
		tcp_counters("b", n.b, n.ip_a);
	}
	if (cost) {
		*cost = (struct xfer_cost){ .ms = zn_now_ms() - t0 };
		xfer_cost_add(cost, n.a);
		xfer_cost_add(cost, n.b);
		print_message("%s%s rx_agg %s: %llu + %llu bytes intact in %llu ms; rto %llu, fast "
			      "retransmits %llu, sack resends %llu, resends %llu\n", opts,
			      faults ? faults : "", agg ? "on" : "off", (unsigned long long)got_a,
			      (unsigned long long)got_b, (unsigned long long)cost->ms,
			      (unsigned long long)cost->rto, (unsigned long long)cost->fast,
			      (unsigned long long)cost->sack_retrans, (unsigned long long)cost->retrans);
	}
	assert_int_equal(bad, 0);
	assert_int_equal(got_a, a_to_b);
	assert_int_equal(got_b, b_to_a);
	assert_int_equal(acked_b, a_to_b);
	assert_int_equal(notifs, a_to_b / CHUNK);
	assert_true(eof_a && eof_b);
	zn_socket_close(afd);
	zn_socket_close(bfd);
	zn_socket_close(lfd);
	io_uring_queue_exit(&ring);
	ndp_close(&n);
	munmap(txb, len_b);
	free(txa);
	free(rxa);
	free(rxb);
}

static void test_transfer_both_ways(void **state)
{
	(void)state;
	transfer_both_ways("", NULL, false, A_TO_B, B_TO_A, XFER_WAIT_MS, NULL);
}

/*
 * The same while each model drops every 97th frame it receives: both ends
 * hold out-of-order data at once, so every data segment carries SACK
 * blocks (which must come out of its payload, not push it past the MTU),
 * and every loss is repaired; with receive aggregation (one ACK per
 * aggregate) too. What the recovery cost is printed.
 */
static void test_transfer_lossy(void **state)
{
	struct xfer_cost off, on;

	(void)state;
	transfer_both_ways(",drop=97", NULL, false, A_TO_B, B_TO_A, XFER_WAIT_MS, &off);
	transfer_both_ways(",drop=97", NULL, true, A_TO_B, B_TO_A, XFER_WAIT_MS, &on);
}

/* Random wire faults both ways (the wire drops, duplicates, reorders and
 * corrupts frames; the receiving MAC drops a bad FCS), aggregation on. */
static void test_transfer_wire_faults(void **state)
{
	const char *f = getenv("ZN_TCP_FAULTS"), *agg = getenv("ZN_TCP_AGG");
	struct xfer_cost on;

	(void)state;
	transfer_both_ways("", f ? f : "seed=7,after=50,wire-drop=0.01,wire-dup=0.005,"
			   "wire-reorder=0.01,wire-corrupt=0.002,wire-csum=0.002",
			   agg ? atoi(agg) != 0 : true, A_TO_B, B_TO_A, XFER_WAIT_MS, &on);
}

/* make test-long: ZN_TCP_LONG_MIB MiB each way (skipped without it; the
 * A side to a multiple of its 1400-byte sends). */
static void test_transfer_long(void **state)
{
	const char *e = getenv("ZN_TCP_LONG_MIB");
	uint64_t mib = e ? strtoull(e, NULL, 10) : 0;

	(void)state;
	if (!mib) {
		skip();
		return;
	}
	print_message("%llu MiB each way\n", (unsigned long long)mib);
	transfer_both_ways("", NULL, false, mib << 20, (mib << 20) / A_SEND * A_SEND, 1200000, NULL);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_refused),
		cmocka_unit_test(test_connect_silent),
		cmocka_unit_test(test_transfer_both_ways),
		cmocka_unit_test(test_transfer_lossy),
		cmocka_unit_test(test_transfer_wire_faults),
		cmocka_unit_test(test_transfer_long),
	};

	if (getenv("ZN_TEST_CASE"))
		cmocka_set_test_filter(getenv("ZN_TEST_CASE"));
	return cmocka_run_group_tests(tests, NULL, NULL);
}
