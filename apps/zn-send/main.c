/* SPDX-License-Identifier: MIT */
/*
 * zn-send: a UDP or TCP sender written as a liburing send_zc program would
 * be (the shape of liburing's examples/send-zerocopy.c); only the device,
 * the UDP socket and (without --fixed) buffer set-up are zcnic calls (the
 * TCP connection is made through the ring: tcp.c).
 *
 * A window of buffers, one per send in flight: a buffer is reused only
 * once its send completed and, for SEND_ZC, its notification came (the NIC
 * no longer reads it).
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
#include "apps/common/watch.h"
#include "send.h"
#include "zcnic/mem.h"
#include "zcnic/netdev.h"
#include "zcnic/nicsim.h"
#include "zcnic/socket.h"

#define WAIT_SLICE_NS	(100ll * 1000 * 1000)
#define DRAIN_MS	3000	/* at the end: wait this long for what is in flight */
/* sends in flight and no CQE for this long: they will not complete (a
 * driver that lost them); stop instead of waiting for ever */
#define STALL_MS	10000
#define BUF_ALIGN	64

enum { SLOT_FREE = 0, SLOT_SENT, SLOT_WAIT_NOTIF };

volatile sig_atomic_t send_stop_sig;

static void on_signal(int sig)
{
	send_stop_sig = sig;
}

uint64_t send_now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

uint64_t send_cpu_ns(bool thread, uint64_t *sys)
{
	struct rusage ru;

	getrusage(thread ? RUSAGE_THREAD : RUSAGE_SELF, &ru);
	*sys = (uint64_t)ru.ru_stime.tv_sec * 1000000000ull + (uint64_t)ru.ru_stime.tv_usec * 1000ull;
	return (uint64_t)ru.ru_utime.tv_sec * 1000000000ull + (uint64_t)ru.ru_utime.tv_usec * 1000ull +
	       *sys;
}

int send_setup_buffers(struct tx *t, struct zn_netdev *dev)
{
	uint32_t n = t->o.window;
	int rc;

	t->stride = (t->o.size + BUF_ALIGN - 1) & ~(size_t)(BUF_ALIGN - 1);
	t->mem_len = (t->stride * n + 4095) & ~(size_t)4095;
	if (t->o.fixed) {
		struct iovec iov;

		/* ordinary memory, as a liburing program has: registering it is what
		 * lets zcnic hand it to the NIC */
		t->mem = mmap(NULL, t->mem_len, PROT_READ | PROT_WRITE,
			      MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		if (t->mem == MAP_FAILED) {
			t->mem = NULL;
			return -ENOMEM;
		}
		iov.iov_base = t->mem;
		iov.iov_len = t->mem_len;
		rc = io_uring_register_buffers(&t->ring, &iov, 1);
		if (rc) {
			fprintf(stderr, "zn-send: io_uring_register_buffers: %s\n", strerror(-rc));
			return rc;
		}
	} else {
		rc = zn_dma_region_alloc("zn-send", t->mem_len, -1, 0, &t->region);
		if (rc == 0)
			rc = zn_netdev_dma_map(dev, t->region);
		if (rc) {
			fprintf(stderr, "zn-send: DMA memory for %u buffers: %s\n", n, strerror(-rc));
			return rc;
		}
		t->mem = t->region->va;
	}
	for (uint32_t s = 0; s < n; s++)
		for (uint32_t i = 0; i < t->o.size; i++)
			t->mem[s * t->stride + i] = t->o.pattern ? (uint8_t)('a' + i % 26) : 0;
	t->state = calloc(n, 1);
	t->done_off = calloc(n, sizeof(*t->done_off));
	t->free_slots = calloc(n, sizeof(*t->free_slots));
	if (!t->state || !t->free_slots || !t->done_off)
		return -ENOMEM;
	for (uint32_t s = 0; s < n; s++)
		t->free_slots[t->nfree++] = n - 1 - s;
	return 0;
}

static void slot_free(struct tx *t, uint32_t s)
{
	t->state[s] = SLOT_FREE;
	t->free_slots[t->nfree++] = s;
	t->inflight--;
}

static void handle_cqe(struct tx *t, const struct io_uring_cqe *cqe)
{
	uint32_t s = (uint32_t)cqe->user_data;

	if (s >= t->o.window || t->state[s] == SLOT_FREE) {
		fprintf(stderr, "zn-send: a CQE for slot %u, which has nothing in flight\n", s);
		t->first_err = t->first_err ? t->first_err : -EPROTO;
		return;
	}
	if (cqe->flags & IORING_CQE_F_NOTIF) {
		t->notifs++;
		if (cqe->res & (int32_t)IORING_NOTIF_USAGE_ZC_COPIED)
			t->copied++;
		slot_free(t, s);
		return;
	}
	if (cqe->res >= 0 && t->o.tcp && !t->o.zc &&
	    t->done_off[s] + (uint32_t)cqe->res < t->o.size) {
		/* a stream's short SEND: the rest of the record goes next (one
		 * in flight in this mode, so the byte order holds) */
		t->done_off[s] += (uint32_t)cqe->res;
		t->bytes += (uint64_t)cqe->res;
		t->resend = s + 1;
		return;
	}
	if (cqe->res >= 0 && t->o.tcp && t->o.zc && (uint32_t)cqe->res != t->o.size) {
		fprintf(stderr, "zn-send: SEND_ZC on TCP sent %d of %u bytes\n", cqe->res,
			t->o.size);
		t->first_err = t->first_err ? t->first_err : -EPROTO;
	}
	if (cqe->res >= 0) {
		t->sent++;
		t->bytes += (uint64_t)cqe->res;
		t->done_off[s] = 0;
	} else {
		t->errors++;
		if (!t->first_err) {
			t->first_err = cqe->res;
			fprintf(stderr, "zn-send: a send failed: %s\n", strerror(-cqe->res));
		}
	}
	if (cqe->flags & IORING_CQE_F_MORE)
		t->state[s] = SLOT_WAIT_NOTIF;
	else
		slot_free(t, s);
}

static void queue_one(struct tx *t, uint32_t s)
{
	struct io_uring_sqe *sqe = io_uring_get_sqe(&t->ring);
	uint8_t *buf = t->mem + (size_t)s * t->stride;

	if (!t->o.zc)
		io_uring_prep_send(sqe, t->fd, buf + t->done_off[s], t->o.size - t->done_off[s], 0);
	else if (t->o.fixed)
		io_uring_prep_send_zc_fixed(sqe, t->fd, buf, t->o.size, 0,
					    IORING_SEND_ZC_REPORT_USAGE, 0);
	else
		io_uring_prep_send_zc(sqe, t->fd, buf, t->o.size, 0, IORING_SEND_ZC_REPORT_USAGE);
	sqe->user_data = s;
	t->state[s] = SLOT_SENT;
	t->inflight++;
	t->submitted++;
}

static unsigned reap(struct tx *t)
{
	struct io_uring_cqe *cqe;
	unsigned head, n = 0;

	io_uring_for_each_cqe(&t->ring, head, cqe) {
		handle_cqe(t, cqe);
		n++;
	}
	io_uring_cq_advance(&t->ring, n);
	return n;
}

void send_run(struct tx *t)
{
	uint64_t t0 = send_now_ns(), end = t0 + t->o.duration_ms * 1000000ull, progress_at = t0;
	uint64_t drain_end = 0, cqe_at = t0;
	bool tty = !t->o.quiet && isatty(2);

	for (;;) {
		struct __kernel_timespec ts = { .tv_nsec = WAIT_SLICE_NS };
		struct io_uring_cqe *cqe;
		uint32_t q = 0;
		bool more;

		if (t->resend) {
			/* the record's rest: ahead of anything new */
			uint32_t s = t->resend - 1;
			struct io_uring_sqe *sqe = io_uring_get_sqe(&t->ring);

			io_uring_prep_send(sqe, t->fd, t->mem + (size_t)s * t->stride + t->done_off[s],
					   t->o.size - t->done_off[s], 0);
			io_uring_sqe_set_data64(sqe, s);
			t->resend = 0;
			q++;
		}
		if (t->port && zn_watch_gone(&t->watch, t->port)) {
			/* nothing in flight will complete: no drain */
			fprintf(stderr, "zn-send: the device stopped answering (%s): stopping\n",
				strerror(-t->watch.err));
			if (!t->first_err)
				t->first_err = t->watch.err;
			break;
		}
		more = !send_stop_sig && !t->first_err &&
			    (t->o.count ? t->submitted < t->o.count : send_now_ns() < end);

		if (!more) {
			/* what is in flight still completes (bounded) */
			if (!t->inflight)
				break;
			if (!drain_end)
				drain_end = send_now_ns() + DRAIN_MS * 1000000ull;
			else if (send_now_ns() > drain_end)
				break;
		}
		if (more && (!t->o.wait_notif || !t->inflight)) {
			/* pacing: the datagrams due by now, no burst above a batch */
			uint64_t due = t->o.pps ? (send_now_ns() - t0) * t->o.pps / 1000000000ull + 1 :
				       UINT64_MAX;

			while (q < t->o.batch && t->nfree && t->submitted < due &&
			       (!t->o.count || t->submitted < t->o.count)) {
				queue_one(t, t->free_slots[--t->nfree]);
				q++;
			}
		}
		/* Wait for one CQE only when a buffer is what we lack; a paced
		 * sender that is early just polls (the ring polls the NIC). */
		io_uring_submit_and_wait_timeout(&t->ring, &cqe,
						 q || (more && t->nfree && !t->o.wait_notif) ? 0 : 1,
						 &ts, NULL);
		if (reap(t) || !t->inflight)
			cqe_at = send_now_ns();
		else if (send_now_ns() - cqe_at > STALL_MS * 1000000ull) {
			fprintf(stderr, "zn-send: no completion for %u ms with %u sends in flight: "
				"stopping\n", STALL_MS, t->inflight);
			if (!t->first_err)
				t->first_err = -ETIMEDOUT;
			break;
		}
		if (tty && send_now_ns() - progress_at > 500000000ull) {
			progress_at = send_now_ns();
			fprintf(stderr, "\rzn-send: %" PRIu64 " datagrams, %.1f MB   ", t->sent,
				(double)t->bytes / 1e6);
		}
	}
	if (tty)
		fputc('\n', stderr);
}

int send_ring_init(struct tx *t)
{
	uint32_t w = t->o.window * 2;
	int rc = io_uring_queue_init(w > 4096 ? 4096 : w < 8 ? 8 : w, &t->ring,
				     IORING_SETUP_SINGLE_ISSUER | IORING_SETUP_DEFER_TASKRUN);

	if (rc)
		fprintf(stderr, "zn-send: ring set-up: %s\n", strerror(-rc));
	else if ((rc = zn_wait_apply("zn-send", &t->ring, t->o.wait)))
		io_uring_queue_exit(&t->ring);
	t->ring_up = rc == 0;
	return rc;
}

void send_report(const struct tx *t, const char *who)
{
	uint64_t ns = t->ns, cpu = t->cpu, sys = t->sys;

	printf("zn-send%s: %" PRIu64 " %s of %u B, %.3f MB in %.3f s: %.0f req/s, %.1f MB/s "
	       "(%s%s%s)\n", who, t->sent, t->o.tcp ? "TCP sends" : "datagrams", t->o.size,
	       (double)t->bytes / 1e6, (double)ns / 1e9,
	       (double)t->sent * 1e9 / (double)(ns ? ns : 1),
	       (double)t->bytes * 1e3 / (double)(ns ? ns : 1), t->o.zc ? "SEND_ZC" : "SEND",
	       t->o.fixed ? ", registered buffers" : "",
	       t->o.wait_notif ? ", waiting for notifications" : "");
	printf("zn-send%s: %" PRIu64 " notifications (%" PRIu64 " copied), %" PRIu64 " errors, "
	       "%" PRIu64 " still in flight; CPU %.0f ns per request (%s: %.0f user + "
	       "%.0f sys)\n", who, t->notifs, t->copied, t->errors, (uint64_t)t->inflight,
	       t->sent ? (double)cpu / (double)t->sent : 0.0,
	       t->dev ? "its thread" : t->o.queues ? "the queue threads, summed" :
	       "zn-send process",
	       t->sent ? (double)(cpu - sys) / (double)t->sent : 0.0,
	       t->sent ? (double)sys / (double)t->sent : 0.0);
}

void send_free(struct tx *t, struct zn_netdev *dev)
{
	if (t->ring_up)
		io_uring_queue_exit(&t->ring);
	t->ring_up = false;
	if (t->fd >= 0)
		zn_socket_close(t->fd);
	t->fd = -1;
	if (t->region && dev)
		zn_netdev_dma_unmap(dev, t->region);
}

/* What must outlive the netdev's close: the memory the NIC read. */
void send_free_mem(struct tx *t)
{
	zn_dma_region_free(t->region);
	if (t->o.fixed && t->mem)
		munmap(t->mem, t->mem_len);
	free(t->state);
	free(t->done_off);
	free(t->free_slots);
}

int main(int argc, char **argv)
{
	struct zn_netdev_conf nc = { 0 };
	struct sigaction sa = { .sa_handler = on_signal };
	struct zn_nicsim sim = { .pid = -1 };
	struct zn_netdev *dev = NULL;
	struct tx t;
	const char *spec;
	uint64_t t0, cpu0, sys0;
	int rc, status = 1, tcp_rc = -ECANCELED;

	memset(&t, 0, sizeof(t));
	t.fd = -1;
	send_parse_args(&t.o, argc, argv);
	if (t.o.quiet)
		zn_quiet_logs();
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	spec = t.o.dev;
	if (!spec) {
		if (zn_nicsim_start(&sim, "zn-send", t.o.sim_opts))
			return 1;
		spec = sim.port[0];
		if (!t.o.quiet)
			printf("zn-send: no --dev: started zn-nicsim (pid %d) with two bnxt ports on a "
			       "pair wire; sending from %s\n", (int)sim.pid, spec);
		fflush(stdout);	/* the pid, for whoever watches the output */
	}
	if (t.o.queues) {
		status = send_queues_main(&t.o, spec);
		goto out_sim;
	}
	nc.ip = t.o.ip;
	nc.prefix_len = t.o.prefix;
	nc.mtu = !t.o.tcp && t.o.size + 28 > 1500 ? 9000 : 1500;
	if (t.o.tcp && !t.o.zc)
		t.o.window = t.o.batch = 1;	/* short sends: their rest goes next */
	zn_open_watch();
	rc = zn_netdev_open(spec, &nc, &dev);
	zn_open_said("zn-send", spec, rc);
	if (rc)
		goto out;
	if (!t.o.tcp) {
		t.fd = zn_udp_socket(dev, &(struct zn_socket_conf){
			.local = { t.o.ip, htons(t.o.src_port) },
			.remote = { t.o.dst_ip, htons(t.o.dst_port) } });
		if (t.fd < 0) {
			fprintf(stderr, "zn-send: UDP socket: %s\n", strerror(-t.fd));
			goto out;
		}
	}
	if (send_ring_init(&t))
		goto out;
	if (t.o.tcp) {
		/* the ring picks the netdev: the one on whose subnet --dst is */
		t.fd = send_tcp_connect(&t.ring, &t.o);
		if (t.fd < 0)
			goto out;
	}
	if (send_setup_buffers(&t, dev))
		goto out;
	t0 = send_now_ns();
	cpu0 = send_cpu_ns(false, &sys0);
	t.port = zn_netdev_port(dev);
	send_run(&t);
	if (t.o.tcp && !t.first_err && !t.inflight)
		tcp_rc = send_tcp_finish(&t.ring, t.fd, DRAIN_MS * 10);
	t.ns = send_now_ns() - t0;
	t.cpu = send_cpu_ns(false, &t.sys) - cpu0;
	t.sys -= sys0;
	send_report(&t, "");
	if (t.inflight && !t.watch.err && t.first_err != -ETIMEDOUT) {
		char ip[INET_ADDRSTRLEN];

		inet_ntop(AF_INET, &t.o.dst_ip, ip, sizeof(ip));
		printf("zn-send: sends were still waiting at exit: does %s answer ARP? (zcnic queues "
		       "a few datagrams per unresolved address and holds the rest back; run "
		       "zn-recv there)\n", ip);
	}
	if (t.o.tcp)
		printf("zn-send: TCP: %s\n", tcp_rc == -ECANCELED ? "sends failed or did not "
		       "complete: no FIN" : tcp_rc ? "the receiver did not close after the FIN" :
		       "FIN sent, the receiver read everything and closed");
	status = t.errors || t.first_err || t.inflight || (t.o.tcp && tcp_rc) ? 1 : 0;
out:
	send_free(&t, dev);
	zn_netdev_close(dev);
	send_free_mem(&t);
out_sim:
	zn_nicsim_stop(&sim);
	return zn_exit_status(send_stop_sig, status);
}
