/* SPDX-License-Identifier: MIT */
/*
 * zn-echo: a TCP echo server as a liburing program writes one; only the
 * device set-up is a zcnic call.
 *
 *   netdev; ring; one registered buffer, a slice per connection
 *   SOCKET, BIND, LISTEN; ACCEPT multishot (re-armed if it ends)
 *   per connection:  RECV into its slice
 *                    -> SEND_ZC of what came (fixed buffer: zero copy)
 *                    -> its notification (the client acknowledged it all)
 *                    -> RECV again ...
 *                    RECV 0 (the client's FIN) or an error -> CLOSE
 *
 * The slice is read again by retransmissions until the notification, so
 * the next RECV into it waits for it; and a connection is closed only with
 * nothing unacknowledged, so CLOSE is an orderly FIN.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <inttypes.h>
#include <liburing.h>
#include <netinet/in.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <time.h>

#include "apps/common/open.h"
#include "apps/common/watch.h"
#include "echo.h"
#include "zcnic/netdev.h"
#include "zcnic/nicsim.h"

#define WAIT_SLICE_NS	(100ll * 1000 * 1000)
#define RING_ENTRIES	256

/* user_data: what << 32 | connection index */
enum { U_SETUP = 1, U_ACCEPT, U_RECV, U_SEND, U_CLOSE };
#define UD(what, i)	((uint64_t)(what) << 32 | (uint32_t)(i))

enum { C_FREE = 0, C_RECV, C_SEND, C_CLOSING };

struct conn {
	int fd;
	uint8_t state;
	bool notif_due;			/* a SEND_ZC's notification is still to come */
	uint32_t len, off;		/* bytes to echo, echoed */
};

struct echo {
	struct echo_opts o;
	struct io_uring ring;
	uint8_t *mem;
	size_t mem_len;
	struct conn *c;
	int lfd;
	bool accept_armed;
	uint64_t accepted, ended, resets, turned_away, bytes, sends;
	int err;
};

static volatile sig_atomic_t stop_sig;

static void on_signal(int sig)
{
	stop_sig = sig;
}

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

static struct io_uring_sqe *sqe_for(struct echo *e, uint64_t ud)
{
	struct io_uring_sqe *sqe = io_uring_get_sqe(&e->ring);

	if (!sqe) {
		io_uring_submit(&e->ring);
		sqe = io_uring_get_sqe(&e->ring);
	}
	io_uring_sqe_set_data64(sqe, ud);
	return sqe;
}

/* Set-up step: submit, its CQE's res. */
static int setup_op(struct echo *e)
{
	struct io_uring_cqe *cqe;
	int rc;

	io_uring_submit(&e->ring);
	rc = io_uring_wait_cqe(&e->ring, &cqe);
	if (rc)
		return rc;
	rc = cqe->res;
	io_uring_cqe_seen(&e->ring, cqe);
	return rc;
}

static int listen_on(struct echo *e)
{
	struct sockaddr_in sa = { .sin_family = AF_INET, .sin_port = htons(e->o.port),
				  .sin_addr.s_addr = e->o.ip };
	const char *step = "SOCKET";
	int rc;

	io_uring_prep_socket(sqe_for(e, UD(U_SETUP, 0)), AF_INET, SOCK_STREAM, 0, 0);
	rc = e->lfd = setup_op(e);
	if (rc >= 0) {
		step = "BIND";
		io_uring_prep_bind(sqe_for(e, UD(U_SETUP, 0)), e->lfd, (struct sockaddr *)&sa,
				   sizeof(sa));
		rc = setup_op(e);
	}
	if (rc >= 0) {
		step = "LISTEN";
		io_uring_prep_listen(sqe_for(e, UD(U_SETUP, 0)), e->lfd, (int)e->o.max_conns);
		rc = setup_op(e);
	}
	if (rc < 0)
		fprintf(stderr, "zn-echo: %s: %s\n", step, strerror(-rc));
	return rc < 0 ? rc : 0;
}

static void arm_accept(struct echo *e)
{
	io_uring_prep_multishot_accept(sqe_for(e, UD(U_ACCEPT, 0)), e->lfd, NULL, NULL, 0);
	e->accept_armed = true;
}

static uint8_t *slice(struct echo *e, uint32_t i)
{
	return e->mem + (size_t)i * e->o.buf;
}

static void arm_recv(struct echo *e, uint32_t i)
{
	e->c[i].state = C_RECV;
	io_uring_prep_recv(sqe_for(e, UD(U_RECV, i)), e->c[i].fd, slice(e, i), e->o.buf, 0);
}

static void send_rest(struct echo *e, uint32_t i)
{
	struct conn *c = &e->c[i];

	c->state = C_SEND;
	io_uring_prep_send_zc_fixed(sqe_for(e, UD(U_SEND, i)), c->fd, slice(e, i) + c->off,
				    c->len - c->off, 0, 0, 0);
	e->sends++;
}

static void close_conn(struct echo *e, uint32_t i)
{
	e->c[i].state = C_CLOSING;
	io_uring_prep_close(sqe_for(e, UD(U_CLOSE, i)), e->c[i].fd);
}

static void on_accept(struct echo *e, const struct io_uring_cqe *cqe)
{
	if (!(cqe->flags & IORING_CQE_F_MORE))
		e->accept_armed = false;	/* re-armed by the loop */
	if (cqe->res < 0) {
		if (cqe->res != -ECANCELED)
			fprintf(stderr, "zn-echo: ACCEPT: %s\n", strerror(-cqe->res));
		return;
	}
	e->accepted++;
	for (uint32_t i = 0; i < e->o.max_conns; i++) {
		if (e->c[i].state != C_FREE)
			continue;
		e->c[i] = (struct conn){ .fd = cqe->res };
		arm_recv(e, i);
		return;
	}
	/* full: this one is closed at once (more wait in the backlog, not here) */
	e->turned_away++;
	io_uring_prep_close(sqe_for(e, UD(U_SETUP, 0)), cqe->res);
}

static void on_recv(struct echo *e, uint32_t i, int res)
{
	struct conn *c = &e->c[i];

	if (res <= 0) {
		if (res < 0)
			e->resets++;	/* the client reset: nothing more to echo */
		close_conn(e, i);
		return;
	}
	c->len = (uint32_t)res;
	c->off = 0;
	send_rest(e, i);
}

static void on_send(struct echo *e, uint32_t i, const struct io_uring_cqe *cqe)
{
	struct conn *c = &e->c[i];

	if (cqe->flags & IORING_CQE_F_NOTIF) {
		c->notif_due = false;
	} else {
		c->notif_due = cqe->flags & IORING_CQE_F_MORE;
		if (cqe->res < 0) {
			e->resets++;
			c->len = c->off = 0;
			c->state = C_CLOSING;	/* closed once the notification came */
		} else {
			c->off += (uint32_t)cqe->res;
			e->bytes += (uint64_t)cqe->res;
		}
	}
	if (c->notif_due)
		return;
	/* the slice is free again */
	if (c->state == C_CLOSING)
		close_conn(e, i);
	else if (c->off < c->len)
		send_rest(e, i);
	else
		arm_recv(e, i);
}

static void on_cqe(struct echo *e, const struct io_uring_cqe *cqe)
{
	uint32_t what = (uint32_t)(cqe->user_data >> 32), i = (uint32_t)cqe->user_data;

	switch (what) {
	case U_ACCEPT:
		on_accept(e, cqe);
		break;
	case U_RECV:
		on_recv(e, i, cqe->res);
		break;
	case U_SEND:
		on_send(e, i, cqe);
		break;
	case U_CLOSE:
		e->c[i].state = C_FREE;
		e->ended++;
		break;
	default:
		break;
	}
}

static bool done(const struct echo *e, uint64_t t0)
{
	if (stop_sig || e->err)
		return true;
	if (e->o.conns && e->ended >= e->o.conns)
		return true;
	return e->o.duration_ms && now_ns() - t0 >= e->o.duration_ms * 1000000ull;
}

static void serve(struct echo *e)
{
	uint64_t t0 = now_ns();

	while (!done(e, t0)) {
		struct __kernel_timespec ts = { .tv_nsec = WAIT_SLICE_NS };
		struct io_uring_cqe *cqe;
		unsigned head, n = 0;

		if (!e->accept_armed)
			arm_accept(e);
		io_uring_submit_and_wait_timeout(&e->ring, &cqe, 1, &ts, NULL);
		io_uring_for_each_cqe(&e->ring, head, cqe) {
			on_cqe(e, cqe);
			n++;
		}
		io_uring_cq_advance(&e->ring, n);
	}
}

int main(int argc, char **argv)
{
	struct zn_netdev_conf nc = { 0 };
	struct sigaction sa = { .sa_handler = on_signal };
	struct zn_nicsim sim = { .pid = -1 };
	struct zn_netdev *dev = NULL;
	struct iovec reg;
	struct echo e;
	char ip[INET_ADDRSTRLEN];
	const char *spec;
	int rc, status = 1;

	memset(&e, 0, sizeof(e));
	e.lfd = -1;
	echo_parse_args(&e.o, argc, argv);
	if (e.o.quiet)
		zn_quiet_logs();
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	inet_ntop(AF_INET, &e.o.ip, ip, sizeof(ip));
	spec = e.o.dev;
	if (!spec) {
		if (zn_nicsim_start(&sim, "zn-echo", e.o.sim_opts))
			return 1;
		spec = sim.port[1];
		if (!e.o.quiet)
			printf("zn-echo: no --dev: started zn-nicsim (pid %d) with two bnxt ports "
			       "on a pair wire; serving on %s; clients open %s\n", (int)sim.pid,
			       spec, sim.port[0]);
	}
	nc.ip = e.o.ip;
	nc.prefix_len = e.o.prefix;
	nc.gateway = e.o.gateway;
	zn_open_watch();
	rc = zn_netdev_open(spec, &nc, &dev);
	zn_open_said("zn-echo", spec, rc);
	if (rc)
		goto out;
	rc = io_uring_queue_init(RING_ENTRIES, &e.ring, IORING_SETUP_SINGLE_ISSUER |
				 IORING_SETUP_DEFER_TASKRUN);
	if (rc) {
		fprintf(stderr, "zn-echo: ring set-up: %s\n", strerror(-rc));
		goto out;
	}
	e.mem_len = (size_t)e.o.max_conns * e.o.buf;
	e.mem = mmap(NULL, e.mem_len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	e.c = calloc(e.o.max_conns, sizeof(*e.c));
	if (e.mem == MAP_FAILED || !e.c) {
		e.mem = NULL;
		fprintf(stderr, "zn-echo: no memory for %u connections\n", e.o.max_conns);
		goto out_ring;
	}
	reg = (struct iovec){ e.mem, e.mem_len };
	rc = io_uring_register_buffers(&e.ring, &reg, 1);
	if (rc) {
		fprintf(stderr, "zn-echo: io_uring_register_buffers: %s\n", strerror(-rc));
		goto out_ring;
	}
	if (listen_on(&e))
		goto out_ring;
	printf("zn-echo: ready on %s:%u (TCP), up to %u connections\n", ip, e.o.port,
	       e.o.max_conns);
	fflush(stdout);
	serve(&e);
	printf("zn-echo: %" PRIu64 " connections (%" PRIu64 " ended, %" PRIu64 " reset by the "
	       "client, %" PRIu64 " turned away), %" PRIu64 " bytes echoed in %" PRIu64
	       " SEND_ZC\n", e.accepted, e.ended, e.resets, e.turned_away, e.bytes, e.sends);
	{
		struct zn_queue_stats qs;

		/* frames the NIC could not place: a stalled echo shows here */
		if (zn_port_rxq_stats(zn_netdev_port(dev), 0, &qs) == 0)
			printf("zn-echo: RX queue 0: %" PRIu64 " frames, %" PRIu64 " dropped by the "
			       "NIC for want of a buffer, %" PRIu64 " errors\n", qs.packets, qs.drops,
			       qs.errors);
	}
	status = e.err ? 1 : 0;
out_ring:
	io_uring_queue_exit(&e.ring);	/* closes nothing: the sockets go with the netdev */
out:
	zn_netdev_close(dev);
	if (e.mem)
		munmap(e.mem, e.mem_len);
	free(e.c);
	zn_nicsim_stop(&sim);
	return zn_exit_status(stop_sig, status);
}
