/* SPDX-License-Identifier: MIT */
/*
 * zn-recv: a zero-copy UDP receiver written as a liburing zcrx program
 * would be (the shape of liburing's examples/zcrx.c); only the device and
 * socket set-up are zcnic calls.
 *
 *   netdev + UDP socket steered to queue q
 *   ring (CQE32 | SINGLE_ISSUER | DEFER_TASKRUN)
 *   io_uring_register_ifq: area (anonymous memory) + refill ring (ditto)
 *   RECV_ZC multishot --> data CQEs {res, off} --> check payload in place
 *                     --> refill entry {off | area token}
 *                     --> final CQE: re-arm (-ENOSPC, -ENOMEM) or stop
 */
#include <arpa/inet.h>
#include <errno.h>
#include <inttypes.h>
#include <liburing.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

#include "apps/common/open.h"
#include "apps/common/wait.h"
#include "recv.h"
#include "zcnic/netdev.h"
#include "zcnic/nicsim.h"
#include "zcnic/socket.h"
#include "zcnic/uring.h"
#include "zcnic/zcrx.h"

#define PAGE			4096ull
#define WAIT_SLICE_NS		(100ull * 1000 * 1000)	/* wake up to check limits */
#define SEND_HINT_IP		"10.0.0.1/24"
#define CPU_SAMPLE_NS		1000000ull	/* CPU time is read at most this often */

volatile sig_atomic_t stop_sig;

static void on_signal(int sig)
{
	stop_sig = sig;
}

uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

/* CPU time, user + sys, of the process (of the thread: a queue thread's);
 * *sys gets the sys part */
static uint64_t cpu_ns(const struct rx *r, uint64_t *sys)
{
	struct rusage ru;

	getrusage(r->stop ? RUSAGE_THREAD : RUSAGE_SELF, &ru);
	*sys = (uint64_t)ru.ru_stime.tv_sec * 1000000000ull + (uint64_t)ru.ru_stime.tv_usec * 1000ull;
	return (uint64_t)ru.ru_utime.tv_sec * 1000000000ull + (uint64_t)ru.ru_utime.tv_usec * 1000ull +
	       *sys;
}

static void *map_anon(size_t len)
{
	void *p = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	return p == MAP_FAILED ? NULL : p;
}

int rx_setup_zcrx(struct rx *r, struct zn_netdev *dev)
{
	struct io_uring_zcrx_area_reg area = { 0 };
	struct io_uring_region_desc region = { 0 };
	struct io_uring_zcrx_ifq_reg reg = { 0 };
	int rc;

	r->area_len = r->o.area_bytes;
	r->area = map_anon(r->area_len);
	/* one page of header, then the entries (liburing's examples/zcrx.c sizing) */
	r->rq_len = (r->o.rq_entries * sizeof(struct io_uring_zcrx_rqe) + PAGE + PAGE - 1) &
		    ~(PAGE - 1);
	r->rq_mem = map_anon(r->rq_len);
	if (!r->area || !r->rq_mem) {
		fprintf(stderr, "zn-recv: cannot map %zu bytes for the area and refill ring\n",
			r->area_len + r->rq_len);
		return -ENOMEM;
	}
	area.addr = (uint64_t)(uintptr_t)r->area;
	area.len = r->area_len;
	region.user_addr = (uint64_t)(uintptr_t)r->rq_mem;
	region.size = r->rq_len;
	region.flags = IORING_MEM_REGION_TYPE_USER;
	reg.if_idx = (uint32_t)zn_netdev_ifindex(dev);
	reg.if_rxq = r->o.queue;
	reg.rq_entries = r->o.rq_entries;
	reg.area_ptr = (uint64_t)(uintptr_t)&area;
	reg.region_ptr = (uint64_t)(uintptr_t)&region;
	rc = io_uring_register_ifq(&r->ring, &reg);
	if (rc) {
		fprintf(stderr, "zn-recv: io_uring_register_ifq (ifindex %u, queue %u): %s\n",
			reg.if_idx, reg.if_rxq, strerror(-rc));
		return rc;
	}
	r->zcrx_id = reg.zcrx_id;
	r->area_token = area.rq_area_token;
	r->rq.khead = (uint32_t *)((char *)r->rq_mem + reg.offsets.head);
	r->rq.ktail = (uint32_t *)((char *)r->rq_mem + reg.offsets.tail);
	r->rq.rqes = (struct io_uring_zcrx_rqe *)((char *)r->rq_mem + reg.offsets.rqes);
	r->rq.rq_tail = 0;
	r->rq.ring_entries = reg.rq_entries;
	r->rq.ring_ptr = r->rq_mem;
	return 0;
}

int rx_ring_init(struct rx *r, unsigned *cq_entries)
{
	struct io_uring_params p = { 0 };
	int rc;

	p.flags = IORING_SETUP_CQE32 | IORING_SETUP_SINGLE_ISSUER | IORING_SETUP_DEFER_TASKRUN |
		  IORING_SETUP_CQSIZE;
	p.cq_entries = r->o.cq_entries;
	rc = io_uring_queue_init_params(64, &r->ring, &p);
	if (rc) {
		fprintf(stderr, "zn-recv: ring set-up: %s\n", strerror(-rc));
		return rc;
	}
	*cq_entries = p.cq_entries;
	rc = zn_wait_apply("zn-recv", &r->ring, r->o.wait);
	if (rc)
		io_uring_queue_exit(&r->ring);
	return rc;
}

void rx_free_mem(struct rx *r)
{
	if (r->area)
		munmap(r->area, r->area_len);
	if (r->rq_mem)
		munmap(r->rq_mem, r->rq_len);
	r->area = r->rq_mem = NULL;
}

static int arm(struct rx *r)
{
	struct io_uring_sqe *sqe = io_uring_get_sqe(&r->ring);
	uint64_t left = 0;

	if (!sqe)
		return -EBUSY;
	if (r->o.expect && !r->o.tcp)
		left = r->o.expect > r->bytes ? r->o.expect - r->bytes : 0;
	/* liburing has no prep helper for RECV_ZC: this is how its users build it */
	io_uring_prep_rw(IORING_OP_RECV_ZC, sqe, r->fd, NULL,
			 left > UINT32_MAX ? 0 : (unsigned)left, 0);
	sqe->ioprio |= IORING_RECV_MULTISHOT;
	sqe->zcrx_ifq_idx = r->zcrx_id;
	sqe->user_data = 1;
	r->armed = true;
	return 0;
}

static void check_payload(struct rx *r, const uint8_t *p, uint32_t len)
{
	uint64_t pos = r->bytes % r->o.size;

	for (uint32_t i = 0; i < len; i++, pos++) {
		if (pos == r->o.size)
			pos = 0;
		if (p[i] != (uint8_t)('a' + pos % 26)) {
			if (!r->mismatches)
				r->first_bad = r->bytes + i;
			r->mismatches++;
		}
	}
}

/* Data arrived (in place or copied): time, CPU, check, count. */
void rx_account(struct rx *r, const uint8_t *p, uint32_t len)
{
	r->t_last = now_ns();
	/* CPU per MB over the span the data came in: the receiver busy-polls,
	 * so time before the first and after the last byte is not its cost */
	if (!r->t_first) {
		r->t_first = r->t_cpu_last = r->t_last;
		r->cpu_first = r->cpu_last = cpu_ns(r, &r->sys_first);
		r->sys_last = r->sys_first;
	} else if (r->t_last - r->t_cpu_last >= CPU_SAMPLE_NS) {
		r->t_cpu_last = r->t_last;
		r->cpu_last = cpu_ns(r, &r->sys_last);
	}
	if (r->o.check)
		check_payload(r, p, len);
	r->bytes += len;
}

/* One refill entry per data CQE; waits for room (zcnic consumes entries as
 * the NIC needs buffers, and in every poll pass). */
static void refill(struct rx *r, uint64_t zoff, uint32_t len)
{
	uint32_t mask = r->rq.ring_entries - 1;
	struct io_uring_zcrx_rqe *rqe;

	while (r->rq.rq_tail - io_uring_smp_load_acquire(r->rq.khead) >= r->rq.ring_entries) {
		r->refill_waits++;
		io_uring_get_events(&r->ring);
	}
	rqe = &r->rq.rqes[r->rq.rq_tail & mask];
	rqe->off = (zoff & ~IORING_ZCRX_AREA_MASK) | r->area_token;
	rqe->len = len;
	rqe->__pad = 0;
	io_uring_smp_store_release(r->rq.ktail, ++r->rq.rq_tail);
}

static void handle_cqe(struct rx *r, const struct io_uring_cqe *cqe)
{
	const struct io_uring_zcrx_cqe *z = (const struct io_uring_zcrx_cqe *)(cqe + 1);

	if (cqe->res > 0) {
		uint64_t off = z->off & ~IORING_ZCRX_AREA_MASK;

		if (off + (uint64_t)cqe->res > r->area_len) {
			r->last_err = -EFAULT;
			fprintf(stderr, "zn-recv: a CQE points outside the area (off %" PRIu64
				", len %d)\n", off, cqe->res);
			return;
		}
		rx_account(r, r->area + off, (uint32_t)cqe->res);
		r->data_cqes++;
		refill(r, z->off, (uint32_t)cqe->res);
	}
	if (cqe->flags & IORING_CQE_F_MORE)
		return;
	r->armed = false;
	if (r->o.tcp && cqe->res == -EOPNOTSUPP && !r->bytes) {
		/* RECV_ZC does not take this TCP socket: main falls back to RECV */
		r->zc_unsupported = true;
		return;
	}
	switch (cqe->res > 0 ? 0 : cqe->res) {
	case 0: r->finals[FIN_OK]++; break;
	case -ENOSPC: r->finals[FIN_ENOSPC]++; break;
	case -ENOMEM: r->finals[FIN_ENOMEM]++; break;
	default:
		r->final_other++;
		r->last_err = cqe->res;
		fprintf(stderr, "zn-recv: RECV_ZC ended with %s\n", strerror(-cqe->res));
		break;
	}
}

bool rx_done(struct rx *r, uint64_t t0)
{
	uint64_t now = now_ns();

	if (stop_sig || r->last_err || r->zc_unsupported || r->eof)
		return true;
	if (r->stop && atomic_load_explicit(r->stop, memory_order_relaxed))
		return true;
	if (r->port && zn_watch_gone(&r->watch, r->port)) {
		fprintf(stderr, "zn-recv: the device stopped answering (%s): stopping\n",
			strerror(-r->watch.err));
		r->last_err = r->watch.err;
		return true;
	}
	/* a stream ends at the sender's FIN, which follows the expected bytes */
	if (!r->o.tcp && r->o.expect && r->bytes >= r->o.expect)
		return true;
	if (r->o.duration_ms && now - t0 >= r->o.duration_ms * 1000000ull)
		return true;
	return r->o.idle_ms && r->t_last && now - r->t_last >= r->o.idle_ms * 1000000ull;
}

int rx_run(struct rx *r)
{
	uint64_t t0 = now_ns();
	uint64_t progress_at = t0;

	while (!rx_done(r, t0)) {
		struct __kernel_timespec ts = { .tv_nsec = (long long)WAIT_SLICE_NS };
		struct io_uring_cqe *cqe;
		unsigned head, n = 0;

		if (!r->armed) {
			if (r->finals[FIN_OK] && r->o.tcp) {
				r->eof = true;	/* a stream's RECV_ZC (no len limit) ends at EOF */
				break;
			}
			if (r->finals[FIN_OK] && r->o.expect && r->bytes >= r->o.expect)
				break;
			if (arm(r))
				return -EBUSY;
			r->rearms++;
		}
		io_uring_submit_and_wait_timeout(&r->ring, &cqe, 1, &ts, NULL);
		io_uring_for_each_cqe(&r->ring, head, cqe) {
			handle_cqe(r, cqe);
			n++;
		}
		io_uring_cq_advance(&r->ring, n);
		if (r->stop && n) {
			atomic_store_explicit(&r->pub_bytes, r->bytes, memory_order_relaxed);
			atomic_store_explicit(&r->pub_t_last, r->t_last, memory_order_relaxed);
		}
		if (!r->o.quiet && isatty(2) && now_ns() - progress_at > 500000000ull) {
			progress_at = now_ns();
			fprintf(stderr, "\rzn-recv: %" PRIu64 " bytes, %" PRIu64 " CQEs   ", r->bytes,
				r->data_cqes);
		}
	}
	if (!r->o.quiet && isatty(2))
		fputc('\n', stderr);
	return r->last_err;
}

void rx_report(const struct rx *r, const char *who)
{
	double secs = r->t_last > r->t_first ? (double)(r->t_last - r->t_first) / 1e9 : 0;
	double mb = (double)r->bytes / 1e6;
	double cpu = (double)(r->cpu_last - r->cpu_first), sys = (double)(r->sys_last - r->sys_first);

	printf("zn-recv%s: %" PRIu64 " bytes in %" PRIu64 " data CQEs; final CQEs: %" PRIu64
	       " ok, %" PRIu64 " -ENOSPC, %" PRIu64 " -ENOMEM, %" PRIu64 " other; %" PRIu64
	       " arms\n", who, r->bytes, r->data_cqes, r->finals[FIN_OK], r->finals[FIN_ENOSPC],
	       r->finals[FIN_ENOMEM], r->final_other, r->rearms);
	if (r->o.check)
		printf("zn-recv%s: payload check ('a' + i %% 26 per %u-byte datagram): %s",
		       who, r->o.size, r->mismatches ? "MISMATCH" :
		       r->bytes ? "every byte intact\n" : "nothing came, nothing checked\n");
	if (r->o.check && r->mismatches)
		printf(": %" PRIu64 " bytes differ, the first at byte %" PRIu64 "\n",
		       r->mismatches, r->first_bad);
	printf("zn-recv%s: %.3f s from first to last byte: %.3f Gbit/s; CPU %.2f us per MB "
	       "(%s: user + sys = %.2f + %.2f; %s)\n", who, secs,
	       secs > 0 ? mb * 8 / 1e3 / secs : 0.0, mb > 0 ? cpu / 1e3 / mb : 0.0,
	       r->stop ? "its thread" : r->o.queues ? "the queue threads, summed" : "zn-recv process",
	       mb > 0 ? (cpu - sys) / 1e3 / mb : 0.0, mb > 0 ? sys / 1e3 / mb : 0.0,
	       r->o.wait ? "--wait irq: it sleeps when idle" : "it busy-polls");
}

int main(int argc, char **argv)
{
	struct zn_netdev_conf nc = { 0 };
	unsigned cq_entries = 0;
	struct sigaction sa = { .sa_handler = on_signal };
	struct zn_nicsim sim = { .pid = -1 };
	struct zn_netdev *dev = NULL;
	struct rx r;
	const char *spec;
	int rc, status = 1;

	memset(&r, 0, sizeof(r));
	r.fd = -1;
	r.lfd = -1;
	recv_parse_args(&r.o, argc, argv);
	if (r.o.quiet)
		zn_quiet_logs();
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	spec = r.o.dev;
	if (!spec) {
		char ip[INET_ADDRSTRLEN];

		if (zn_nicsim_start(&sim, "zn-recv", r.o.sim_opts))
			return 1;
		spec = sim.port[1];
		inet_ntop(AF_INET, &r.o.ip, ip, sizeof(ip));
		if (!r.o.quiet)
			printf("zn-recv: no --dev: started zn-nicsim (pid %d) with two bnxt ports on a "
			       "pair wire; receiving on %s. Send with:\n  zn-send --dev %s --ip %s "
			       "--dst %s:%u%s\n", (int)sim.pid, spec, sim.port[0], SEND_HINT_IP, ip,
			       r.o.port, r.o.tcp ? " --proto tcp" : "");
		fflush(stdout);
	}
	if (r.o.queues) {
		status = rx_queues_main(&r.o, spec);
		goto out_sim;
	}
	nc.ip = r.o.ip;
	nc.prefix_len = r.o.prefix;
	nc.nb_rxq = (uint16_t)(r.o.queue + 1);
	nc.mtu = r.o.size + 28 > 1500 ? 9000 : 1500;
	zn_open_watch();
	rc = zn_netdev_open(spec, &nc, &dev);
	zn_open_said("zn-recv", spec, rc);
	if (rc)
		goto out;
	r.port = zn_netdev_port(dev);
	if (!r.o.tcp)
		r.fd = zn_udp_socket(dev, &(struct zn_socket_conf){
			.local = { r.o.ip, htons(r.o.port) }, .rxq = r.o.queue });
	if (!r.o.tcp && r.fd < 0) {
		fprintf(stderr, "zn-recv: UDP socket on port %u: %s\n", r.o.port, strerror(-r.fd));
		goto out;
	}
	rc = rx_ring_init(&r, &cq_entries);
	if (rc)
		goto out;
	if (rx_setup_zcrx(&r, dev))
		goto out_ring;
	if (r.o.tcp) {
		if (rx_tcp_accept(&r))
			goto out_ring;
	} else {
		char ip[INET_ADDRSTRLEN];

		inet_ntop(AF_INET, &r.o.ip, ip, sizeof(ip));
		/* also with --quiet: scripts start the sender on this line */
		printf("zn-recv: ready on %s:%u, RX queue %u, area %zu MiB, refill ring %u, CQ %u\n",
		       ip, r.o.port, r.o.queue, r.area_len >> 20, r.rq.ring_entries,
		       cq_entries);
		fflush(stdout);
	}
	rc = rx_run(&r);
	if (r.zc_unsupported) {
		/* The hook for zcrx over TCP: once RECV_ZC takes TCP sockets, the
		 * path above is used and this fallback is not */
		printf("zn-recv: RECV_ZC does not take TCP sockets in this build "
		       "(-EOPNOTSUPP): receiving with RECV (copy) instead\n");
		fflush(stdout);
		r.zc_unsupported = false;
		r.copy = true;
		rc = rx_tcp_copy(&r);
	}
	if (r.o.tcp)
		rx_tcp_close(&r);
	rx_report(&r, "");
	if (r.o.tcp) {
		printf("zn-recv: TCP connection: %s, %s\n",
		       r.copy ? "RECV (copy)" : "RECV_ZC (zero copy)",
		       r.eof ? "the sender closed (EOF)" : "still open at exit");
	} else {
		struct zn_queue_stats qs;

		/* UDP has no flow control: say what the NIC could not place */
		if (zn_port_rxq_stats(zn_netdev_port(dev), r.o.queue, &qs) == 0)
			printf("zn-recv: RX queue %u: %" PRIu64 " frames, %" PRIu64 " dropped by the "
			       "NIC for want of a buffer, %" PRIu64 " errors\n", r.o.queue, qs.packets,
			       qs.drops, qs.errors);
	}
	if (!r.copy && !r.o.tcp) {
		struct zn_zcrx_stats zs;

		/* the area's books: a driver that lost or doubled a buffer shows here */
		if (zn_zcrx_get_stats(zn_uring_from_handle(r.ring.ring_fd), r.zcrx_id, &zs) == 0)
			printf("zn-recv: area: %u buffers: %u free, %u at the NIC, %u in the stack, "
			       "%u with the application; %" PRIu64 " bad puts\n", zs.nbufs, zs.free,
			       zs.nic, zs.stack, zs.user, zs.bad_puts);
	}
	status = rc || r.mismatches || (r.o.expect && r.bytes < r.o.expect) ? 1 : 0;
	if (r.o.expect && r.bytes < r.o.expect)
		printf("zn-recv: SHORT: %" PRIu64 " of %" PRIu64 " expected bytes\n", r.bytes,
		       r.o.expect);
out_ring:
	io_uring_queue_exit(&r.ring);
out:
	if (r.fd >= 0)
		zn_socket_close(r.fd);
	if (r.lfd >= 0)
		zn_socket_close(r.lfd);
	zn_netdev_close(dev);
	if (zn_zcrx_areas_pending())
		printf("zn-recv: %u areas still have buffers at the NIC after close\n",
		       zn_zcrx_areas_pending());
	/* after the ring and the netdev: nothing of zcnic uses them any more */
	rx_free_mem(&r);
out_sim:
	zn_nicsim_stop(&sim);
	return zn_exit_status(stop_sig, status);
}
