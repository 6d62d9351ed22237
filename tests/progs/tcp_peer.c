/*
 * tcp_peer: both ends of tests/integration/tcp_kernel_peer.sh, zcnic's TCP
 * against Linux's. Prints one line per check, "ok - what" or "not ok -
 * what" (the script numbers them), and "rate MiB/s" lines.
 *
 *   tcp_peer zcnic-send SOCK IP/PREFIX PEER_IP PORT MIB
 *       zcnic's client on a bnxt port of zn-nicsim ("vfio-user:SOCK"): a
 *       TCP socket connects to PEER_IP:PORT and sends MIB MiB through the
 *       ring with SEND_ZC from a registered buffer (its notifications come
 *       when the peer acknowledged the bytes), then shuts down and waits
 *       for the peer's FIN (RECV returns 0).
 *   tcp_peer zcnic-recv SOCK IP/PREFIX PORT MIB
 *       zcnic's server: listen, accept, RECV through the ring until EOF;
 *       every byte checked.
 *   tcp_peer zcnic-recvzc SOCK IP/PREFIX PORT MIB
 *       the same with RECV_ZC multishot into a zcrx area on the netdev's
 *       RX queue (liburing's examples/zcrx.c way: anonymous area and
 *       refill ring, one refill entry per CQE): every byte checked in
 *       place, the final CQE (res 0, no F_MORE) at EOF, the area's buffer
 *       accounting at the end (nothing held above the NIC once the socket
 *       closed and every CQE went back).
 *   tcp_peer kernel-recv IP PORT MIB     Linux's server (every byte checked)
 *   tcp_peer kernel-send IP PORT MIB     Linux's client
 *
 * The stream's byte i is tl_pat(i) (tests/progs/tcp_liburing.h, shared with
 * the liburing-style tcp_zcrx_recv and tcp_send_zc, which meet Linux here):
 * a reordered, lost or duplicated byte shows. Every wait is bounded (WAIT_S
 * without progress).
 */
#include <arpa/inet.h>
#include <errno.h>
#include <liburing.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <unistd.h>

#include "base/clock.h"
#include "core/net/tcp.h"
#include "tests/progs/tcp_liburing.h"
#include "zcnic/netdev.h"
#include "zcnic/socket.h"
#include "zcnic/uring.h"
#include "zcnic/zcrx.h"

#define WAIT_S		10
#define CHUNK		(64u * 1024u)
#define INFLIGHT	64
#define RXBUF		(256u * 1024u)
#define ZC_AREA		(16u << 20)
#define ZC_RQ		4096u
#define PAGE		4096u

static double mib_s(uint64_t bytes, uint64_t ns)
{
	return ns ? (double)bytes / (1024.0 * 1024.0) / ((double)ns / 1e9) : 0;
}

/* This process's CPU time (user + system), ns. */
static uint64_t cpu_ns(void)
{
	struct rusage ru;

	getrusage(RUSAGE_SELF, &ru);
	return ((uint64_t)ru.ru_utime.tv_sec + (uint64_t)ru.ru_stime.tv_sec) * 1000000000ull +
	       ((uint64_t)ru.ru_utime.tv_usec + (uint64_t)ru.ru_stime.tv_usec) * 1000ull;
}

static uint32_t ip_of(const char *s)
{
	struct in_addr a;

	return inet_pton(AF_INET, s, &a) == 1 ? a.s_addr : 0;
}

/* ---- zcnic ------------------------------------------------------------- */

/* The engine's counters, for the log. */
static void tcp_stats(struct zn_netdev *d)
{
	struct zn_netif_stats ns;
	struct zn_tcp_stats st;

	zn_tcp_stats(zn_netif_tcp(zn_netdev_netif(d)), &st);
	zn_netif_stats(zn_netdev_netif(d), &ns);
	printf("# tcp: rx %llu segs %llu bytes, ooo %llu (dropped %llu), dup %llu, out of window "
	       "%llu; tx %llu segs (%llu data), retrans %llu, rto %llu, fast retrans %llu, "
	       "dup acks %llu, output failed %llu; netif rx frames %llu, tcp %llu, no buffer %llu\n",
	       (unsigned long long)st.rx_segs, (unsigned long long)st.rx_bytes,
	       (unsigned long long)st.rx_ooo, (unsigned long long)st.rx_ooo_drop,
	       (unsigned long long)st.rx_dup, (unsigned long long)st.rx_out_of_window,
	       (unsigned long long)st.tx_segs, (unsigned long long)st.tx_data_segs,
	       (unsigned long long)st.retrans, (unsigned long long)st.rto_fired,
	       (unsigned long long)st.fast_retrans, (unsigned long long)st.dup_acks,
	       (unsigned long long)st.out_fail, (unsigned long long)ns.rx_frames,
	       (unsigned long long)ns.rx[ZN_NET_RX_TCP], (unsigned long long)ns.rx[ZN_NET_DROP_NOBUF]);
}

/* A closed connection's last segments (FIN, the ACK of the peer's) go out
 * on later polls: keep polling a while before the netdev goes. */
static void linger(struct zn_netdev *d, int ms)
{
	uint64_t end = zn_now_ms() + (uint64_t)ms;

	while (zn_now_ms() < end)
		zn_netdev_poll(d);
}

static struct zn_netdev *open_dev(const char *sock, const char *cidr)
{
	struct zn_netdev_conf c = { .nb_rxq = 1 };
	struct zn_netdev *d;
	char spec[512];
	int rc;

	if (zn_ipv4_parse_cidr(cidr, &c.ip, &c.prefix_len)) {
		tl_check(false, "address %s", cidr);
		return NULL;
	}
	snprintf(spec, sizeof(spec), "vfio-user:%s", sock);
	rc = zn_netdev_open(spec, &c, &d);
	tl_check(rc == 0, "zn_netdev_open %s %s: %d", spec, cidr, rc);
	return rc ? NULL : d;
}

/* RECV until EOF; bytes checked from *off on. 0 at EOF, else -errno. */
static int ring_recv_all(struct io_uring *ring, int fd, uint8_t *buf, uint64_t *off,
			 uint64_t *bad, uint64_t limit)
{
	for (;;) {
		int rc;

		io_uring_prep_recv(io_uring_get_sqe(ring), fd, buf, RXBUF, 0);
		rc = tl_one_op(ring);
		if (rc <= 0)
			return rc;
		*bad += tl_bad_bytes(buf, *off, (size_t)rc);
		*off += (uint64_t)rc;
		if (*off > limit)
			return -EMSGSIZE;
	}
}

static int zcnic_send(const char *sock, const char *cidr, const char *peer, int port, uint64_t mib)
{
	uint64_t total = mib << 20, queued = 0, done_bytes = 0, t0, t1, bad = 0, rx = 0;
	struct io_uring ring;
	struct zn_netdev *d = open_dev(sock, cidr);
	struct zn_addr4 dst = { .ip = ip_of(peer), .port = htons((uint16_t)port) };
	unsigned results = 0, notifs = 0, inflight = 0, errors = 0;
	struct iovec reg;
	uint8_t *buf, rxb[4096];
	int fd, rc;

	if (!d)
		return 1;
	buf = mmap(NULL, total, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	for (uint64_t i = 0; i < total; i++)
		buf[i] = tl_pat(i);
	rc = io_uring_queue_init(256, &ring, 0);
	tl_check(rc == 0, "io_uring_queue_init: %d", rc);
	reg = (struct iovec){ buf, total };
	rc = io_uring_register_buffers(&ring, &reg, 1);
	tl_check(rc == 0, "io_uring_register_buffers %llu MiB: %d", (unsigned long long)mib, rc);
	fd = zn_tcp_socket(d, &(struct zn_socket_conf){ 0 });
	tl_check(fd > 0, "zn_tcp_socket: %d", fd);
	rc = zn_tcp_connect(fd, &dst, 5000);
	tl_check(rc == 0, "zn_tcp_connect to Linux %s:%d: %d", peer, port, rc);
	if (rc)
		goto out;
	t0 = zn_now_ns();
	while (done_bytes < total) {
		struct io_uring_cqe *cqe;

		while (queued < total && inflight < INFLIGHT) {
			struct io_uring_sqe *sqe = io_uring_get_sqe(&ring);
			uint32_t n = total - queued < CHUNK ? (uint32_t)(total - queued) : CHUNK;

			io_uring_prep_send_zc_fixed(sqe, fd, buf + queued, n, 0, 0, 0);
			io_uring_sqe_set_data64(sqe, n);
			queued += n;
			inflight++;
		}
		io_uring_submit(&ring);
		rc = tl_wait_cqe(&ring, &cqe);
		if (rc) {
			tl_check(false, "SEND_ZC: no completion in %d s (%llu of %llu bytes acked)",
			      WAIT_S, (unsigned long long)done_bytes, (unsigned long long)total);
			goto out;
		}
		if (cqe->flags & IORING_CQE_F_NOTIF) {
			/* the peer acknowledged every byte of that send */
			notifs++;
			inflight--;
			done_bytes += io_uring_cqe_get_data64(cqe);
		} else {
			results++;
			if (cqe->res != (int)io_uring_cqe_get_data64(cqe))
				errors++;
			if (!(cqe->flags & IORING_CQE_F_MORE)) {
				inflight--;	/* no notification will come */
				errors++;
			}
		}
		io_uring_cqe_seen(&ring, cqe);
		if (errors)
			break;
	}
	t1 = zn_now_ns();
	tl_check(!errors && done_bytes == total, "%u SEND_ZC of %llu MiB: results right, %u "
	      "notifications (all bytes acknowledged by Linux)", results,
	      (unsigned long long)mib, notifs);
	printf("rate zcnic->linux %.1f MiB/s\n", mib_s(total, t1 - t0));
	tcp_stats(d);
	rc = zn_tcp_shutdown(fd);
	tl_check(rc == 0, "zn_tcp_shutdown: %d", rc);
	rc = ring_recv_all(&ring, fd, rxb, &rx, &bad, 0);
	tl_check(rc == 0 && rx == 0, "the peer's FIN: RECV returns 0 (rc %d)", rc);
out:
	if (fd > 0)
		zn_socket_close(fd);
	io_uring_queue_exit(&ring);
	linger(d, 300);
	zn_netdev_close(d);
	munmap(buf, total);
	return tl_failures ? 1 : 0;
}

static int zcnic_recv(const char *sock, const char *cidr, int port, uint64_t mib)
{
	uint64_t total = mib << 20, off = 0, bad = 0, t0, t1, c0, c1;
	struct zn_netdev *d = open_dev(sock, cidr);
	struct zn_addr4 peer;
	struct io_uring ring;
	uint8_t *buf = malloc(RXBUF);
	int lfd, fd, rc;

	if (!d)
		return 1;
	rc = io_uring_queue_init(64, &ring, 0);
	tl_check(rc == 0, "io_uring_queue_init: %d", rc);
	lfd = zn_tcp_socket(d, &(struct zn_socket_conf){ .local = { 0, htons((uint16_t)port) } });
	tl_check(lfd > 0, "zn_tcp_socket: %d", lfd);
	rc = zn_tcp_listen(lfd, 4);
	tl_check(rc == 0, "zn_tcp_listen :%d: %d", port, rc);
	printf("listening\n");
	fflush(stdout);
	fd = zn_tcp_accept(lfd, &peer, 20000);
	tl_check(fd > 0, "zn_tcp_accept: %d", fd);
	if (fd <= 0)
		goto out;
	t0 = zn_now_ns();
	c0 = cpu_ns();
	rc = ring_recv_all(&ring, fd, buf, &off, &bad, total);
	t1 = zn_now_ns();
	c1 = cpu_ns();
	tl_check(rc == 0, "RECV until EOF: %d", rc);
	tl_check(off == total && !bad, "%llu of %llu bytes from Linux, %llu wrong",
	      (unsigned long long)off, (unsigned long long)total, (unsigned long long)bad);
	printf("rate linux->zcnic %.1f MiB/s\n", mib_s(off, t1 - t0));
	printf("cpu linux->zcnic RECV %.1f us/MiB\n",
	       off ? (double)(c1 - c0) / 1e3 / ((double)off / (1 << 20)) : 0.0);
	tcp_stats(d);
	zn_socket_close(fd);
out:
	zn_socket_close(lfd);
	io_uring_queue_exit(&ring);
	linger(d, 300);
	zn_netdev_close(d);
	free(buf);
	return tl_failures ? 1 : 0;
}

/* The receiver's zcrx state: area, refill ring, what was checked. */
struct zc_rx {
	struct io_uring ring;
	uint8_t *area;
	void *rq_mem;
	size_t rq_len;
	struct io_uring_zcrx_rq rq;
	uint64_t token;
	uint32_t id;
	uint64_t off, bad, cqes;
	int final;
	bool ring_up;
};

static int zc_setup(struct zc_rx *z, struct zn_netdev *d)
{
	struct io_uring_params p = {
		.flags = IORING_SETUP_CQE32 | IORING_SETUP_SINGLE_ISSUER |
			 IORING_SETUP_DEFER_TASKRUN | IORING_SETUP_CQSIZE,
		.cq_entries = 4 * ZC_RQ,
	};
	struct io_uring_zcrx_area_reg area = { 0 };
	struct io_uring_region_desc region = { 0 };
	struct io_uring_zcrx_ifq_reg reg = { 0 };
	int rc;

	rc = io_uring_queue_init_params(64, &z->ring, &p);
	tl_check(rc == 0, "io_uring_queue_init CQE32 DEFER_TASKRUN: %d", rc);
	if (rc)
		return rc;
	z->ring_up = true;
	z->area = mmap(NULL, ZC_AREA, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	z->rq_len = (ZC_RQ * sizeof(struct io_uring_zcrx_rqe) + 2 * PAGE - 1) & ~(PAGE - 1);
	z->rq_mem = mmap(NULL, z->rq_len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS,
			 -1, 0);
	if (z->area == MAP_FAILED || z->rq_mem == MAP_FAILED)
		return -ENOMEM;
	area.addr = (uintptr_t)z->area;
	area.len = ZC_AREA;
	region.user_addr = (uintptr_t)z->rq_mem;
	region.size = z->rq_len;
	region.flags = IORING_MEM_REGION_TYPE_USER;
	reg.if_idx = (uint32_t)zn_netdev_ifindex(d);
	reg.if_rxq = 0;
	reg.rq_entries = ZC_RQ;
	reg.area_ptr = (uintptr_t)&area;
	reg.region_ptr = (uintptr_t)&region;
	rc = io_uring_register_ifq(&z->ring, &reg);
	tl_check(rc == 0, "io_uring_register_ifq: rx queue 0, %u MiB area: %d", ZC_AREA >> 20, rc);
	if (rc)
		return rc;
	z->id = reg.zcrx_id;
	z->token = area.rq_area_token;
	z->rq.khead = (uint32_t *)((char *)z->rq_mem + reg.offsets.head);
	z->rq.ktail = (uint32_t *)((char *)z->rq_mem + reg.offsets.tail);
	z->rq.rqes = (struct io_uring_zcrx_rqe *)((char *)z->rq_mem + reg.offsets.rqes);
	z->rq.ring_entries = reg.rq_entries;
	return 0;
}

static void zc_arm(struct zc_rx *z, int fd)
{
	struct io_uring_sqe *sqe = io_uring_get_sqe(&z->ring);

	io_uring_prep_rw(IORING_OP_RECV_ZC, sqe, fd, NULL, 0, 0);
	sqe->ioprio |= IORING_RECV_MULTISHOT;
	sqe->zcrx_ifq_idx = z->id;
	z->final = 1;
}

/* One CQE: check its bytes in place, give the buffer back. */
static void zc_cqe(struct zc_rx *z, const struct io_uring_cqe *cqe)
{
	const struct io_uring_zcrx_cqe *rc = (const struct io_uring_zcrx_cqe *)(cqe + 1);
	struct io_uring_zcrx_rqe *rqe;
	uint64_t at = rc->off & ~IORING_ZCRX_AREA_MASK;

	if (!(cqe->flags & IORING_CQE_F_MORE)) {
		z->final = cqe->res;
		return;
	}
	if (cqe->res <= 0 || at + (uint64_t)cqe->res > ZC_AREA) {
		z->bad++;
		return;
	}
	z->bad += tl_bad_bytes(z->area + at, z->off, (size_t)cqe->res);
	z->off += (uint64_t)cqe->res;
	z->cqes++;
	rqe = &z->rq.rqes[z->rq.rq_tail & (z->rq.ring_entries - 1)];
	rqe->off = at | z->token;
	rqe->len = (uint32_t)cqe->res;
	rqe->__pad = 0;
	z->rq.rq_tail++;
}

static int zcnic_recvzc(const char *sock, const char *cidr, int port, uint64_t mib)
{
	uint64_t total = mib << 20, t0 = 0, t1, c0 = 0, c1;
	struct zn_netdev *d = open_dev(sock, cidr);
	struct zn_zcrx_stats st;
	struct zn_addr4 peer;
	struct zc_rx z = { 0 };
	int lfd, fd = -1, rc;

	if (!d)
		return 1;
	lfd = zn_tcp_socket(d, &(struct zn_socket_conf){ .local = { 0, htons((uint16_t)port) } });
	tl_check(lfd > 0, "zn_tcp_socket: %d", lfd);
	rc = zn_tcp_listen(lfd, 4);
	tl_check(rc == 0, "zn_tcp_listen :%d: %d", port, rc);
	if (zc_setup(&z, d))
		goto out;
	printf("listening\n");
	fflush(stdout);
	fd = zn_tcp_accept(lfd, &peer, 20000);
	tl_check(fd > 0, "zn_tcp_accept: %d", fd);
	if (fd <= 0)
		goto out;
	zc_arm(&z, fd);
	t0 = zn_now_ns();
	c0 = cpu_ns();
	while (z.final == 1) {
		struct __kernel_timespec ts = { .tv_sec = WAIT_S };
		struct io_uring_cqe *cqe;
		unsigned head, n = 0;

		rc = io_uring_submit_and_wait_timeout(&z.ring, &cqe, 1, &ts, NULL);
		if (rc < 0 && rc != -ETIME) {
			tl_check(false, "io_uring_submit_and_wait_timeout: %d", rc);
			break;
		}
		if (rc == -ETIME) {
			tl_check(false, "RECV_ZC: nothing in %d s (%llu of %llu bytes)", WAIT_S,
			      (unsigned long long)z.off, (unsigned long long)total);
			break;
		}
		io_uring_for_each_cqe(&z.ring, head, cqe) {
			zc_cqe(&z, cqe);
			n++;
		}
		io_uring_cq_advance(&z.ring, n);
		io_uring_smp_store_release(z.rq.ktail, z.rq.rq_tail);
	}
	t1 = zn_now_ns();
	c1 = cpu_ns();
	tl_check(z.final == 0, "RECV_ZC multishot until EOF: final CQE res %d without F_MORE",
	      z.final);
	tl_check(z.off == total && !z.bad, "%llu of %llu bytes from Linux in %llu zcrx CQEs, %llu wrong",
	      (unsigned long long)z.off, (unsigned long long)total, (unsigned long long)z.cqes,
	      (unsigned long long)z.bad);
	printf("rate linux->zcnic-zc %.1f MiB/s\n", mib_s(z.off, t1 - t0));
	printf("cpu linux->zcnic RECV_ZC %.1f us/MiB\n",
	       z.off ? (double)(c1 - c0) / 1e3 / ((double)z.off / (1 << 20)) : 0.0);
	tcp_stats(d);
	zn_socket_close(fd);
	fd = -1;
	for (int i = 0; i < 100; i++)
		io_uring_get_events(&z.ring);
	rc = zn_zcrx_get_stats(zn_uring_from_handle(z.ring.ring_fd), z.id, &st);
	printf("# area: %llu bytes zero copy, %llu copied; free %u nic %u stack %u user %u of %u\n",
	       (unsigned long long)st.zc_bytes, (unsigned long long)st.copy_bytes, st.free, st.nic,
	       st.stack, st.user, st.nbufs);
	tl_check(rc == 0 && st.free + st.nic + st.stack + st.user == st.nbufs && !st.stack &&
	      !st.user && !st.user_refs && st.zc_bytes + st.copy_bytes == total,
	      "area accounting: free + nic == all buffers after the close, zero copy + copied "
	      "== bytes received");
out:
	if (fd > 0)
		zn_socket_close(fd);
	zn_socket_close(lfd);
	if (z.ring_up)
		io_uring_queue_exit(&z.ring);
	linger(d, 300);
	zn_netdev_close(d);
	if (z.area && z.area != MAP_FAILED)
		munmap(z.area, ZC_AREA);
	if (z.rq_mem && z.rq_mem != MAP_FAILED)
		munmap(z.rq_mem, z.rq_len);
	return tl_failures ? 1 : 0;
}

/* ---- Linux ------------------------------------------------------------- */

static void timeouts(int fd)
{
	struct timeval tv = { .tv_sec = WAIT_S };

	setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
	setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof(tv));
}

static int kernel_recv(const char *ip, int port, uint64_t mib)
{
	struct sockaddr_in a = { .sin_family = AF_INET, .sin_port = htons((uint16_t)port),
				 .sin_addr.s_addr = ip_of(ip) };
	uint64_t total = mib << 20, off = 0, bad = 0, t0 = 0, t1;
	uint8_t *buf = malloc(RXBUF);
	int one = 1, l = socket(AF_INET, SOCK_STREAM, 0), fd;
	struct timeval tv = { .tv_sec = 30 };
	ssize_t n;

	setsockopt(l, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
	setsockopt(l, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
	if (bind(l, (struct sockaddr *)&a, sizeof(a)) || listen(l, 4)) {
		tl_check(false, "kernel listen %s:%d: %s", ip, port, strerror(errno));
		return 1;
	}
	printf("listening\n");
	fflush(stdout);
	fd = accept(l, NULL, NULL);
	tl_check(fd >= 0, "kernel accept: %s", fd < 0 ? strerror(errno) : "ok");
	if (fd < 0)
		return 1;
	timeouts(fd);
	t0 = zn_now_ns();
	while ((n = recv(fd, buf, RXBUF, 0)) > 0) {
		bad += tl_bad_bytes(buf, off, (size_t)n);
		off += (uint64_t)n;
	}
	t1 = zn_now_ns();
	tl_check(n == 0, "kernel recv until EOF: %s", n ? strerror(errno) : "EOF");
	tl_check(off == total && !bad, "Linux received %llu of %llu bytes from zcnic, %llu wrong",
	      (unsigned long long)off, (unsigned long long)total, (unsigned long long)bad);
	printf("rate kernel-recv %.1f MiB/s\n", mib_s(off, t1 - t0));
	close(fd);
	close(l);
	free(buf);
	return tl_failures ? 1 : 0;
}

static int kernel_send(const char *ip, int port, uint64_t mib)
{
	struct sockaddr_in a = { .sin_family = AF_INET, .sin_port = htons((uint16_t)port),
				 .sin_addr.s_addr = ip_of(ip) };
	uint64_t total = mib << 20, off = 0, t0, t1;
	uint8_t *buf = malloc(RXBUF), tmp[64];
	int fd = -1, rc = -1;
	ssize_t n;

	/* the server may still be starting: a few tries */
	for (int i = 0; i < 50 && rc; i++) {
		if (fd >= 0)
			close(fd);
		fd = socket(AF_INET, SOCK_STREAM, 0);
		timeouts(fd);
		rc = connect(fd, (struct sockaddr *)&a, sizeof(a));
		if (rc)
			usleep(100000);
	}
	tl_check(rc == 0, "kernel connect %s:%d: %s", ip, port, rc ? strerror(errno) : "ok");
	if (rc)
		return 1;
	t0 = zn_now_ns();
	while (off < total) {
		uint64_t m = total - off < RXBUF ? total - off : RXBUF;

		for (uint64_t i = 0; i < m; i++)
			buf[i] = tl_pat(off + i);
		n = send(fd, buf, m, MSG_NOSIGNAL);
		if (n <= 0)
			break;
		off += (uint64_t)n;
	}
	tl_check(off == total, "Linux sent %llu of %llu bytes", (unsigned long long)off,
	      (unsigned long long)total);
	shutdown(fd, SHUT_WR);
	n = recv(fd, tmp, sizeof(tmp), 0);
	t1 = zn_now_ns();
	tl_check(n == 0, "zcnic's FIN after it read everything: %s", n ? "no" : "EOF");
	printf("rate kernel-send %.1f MiB/s\n", mib_s(total, t1 - t0));
	close(fd);
	free(buf);
	return tl_failures ? 1 : 0;
}

int main(int argc, char **argv)
{
	setvbuf(stdout, NULL, _IOLBF, 0);
	if (argc == 7 && !strcmp(argv[1], "zcnic-send"))
		return zcnic_send(argv[2], argv[3], argv[4], atoi(argv[5]), strtoull(argv[6], 0, 0));
	if (argc == 6 && !strcmp(argv[1], "zcnic-recv"))
		return zcnic_recv(argv[2], argv[3], atoi(argv[4]), strtoull(argv[5], 0, 0));
	if (argc == 6 && !strcmp(argv[1], "zcnic-recvzc"))
		return zcnic_recvzc(argv[2], argv[3], atoi(argv[4]), strtoull(argv[5], 0, 0));
	if (argc == 5 && !strcmp(argv[1], "kernel-recv"))
		return kernel_recv(argv[2], atoi(argv[3]), strtoull(argv[4], 0, 0));
	if (argc == 5 && !strcmp(argv[1], "kernel-send"))
		return kernel_send(argv[2], atoi(argv[3]), strtoull(argv[4], 0, 0));
	fprintf(stderr, "usage: tcp_peer zcnic-send SOCK IP/PREFIX PEER_IP PORT MIB\n"
		"       tcp_peer zcnic-recv SOCK IP/PREFIX PORT MIB\n"
		"       tcp_peer zcnic-recvzc SOCK IP/PREFIX PORT MIB\n"
		"       tcp_peer kernel-recv IP PORT MIB | kernel-send IP PORT MIB\n");
	return 2;
}
