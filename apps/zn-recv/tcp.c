/* SPDX-License-Identifier: MIT */
/*
 * zn-recv --proto tcp: the listener and the accept go through the ring as
 * a kernel io_uring program writes them (io_uring_prep_socket, _bind,
 * _listen, _accept); the data comes by RECV_ZC when the socket takes it
 * (main.c), else by plain RECV into one buffer (here), until the sender
 * closes.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <inttypes.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>

#include "recv.h"

#define COPY_BUF	(256u * 1024u)
#define WAIT_SLICE_NS	(100ll * 1000 * 1000)
#define LINGER_NS	(300ull * 1000 * 1000)

/* One SQE, its CQE; with a deadline for ACCEPT (signals and --duration-ms). */
static int one_op(struct rx *r, uint64_t t0)
{
	struct io_uring_cqe *cqe;
	int res;

	io_uring_submit(&r->ring);
	for (;;) {
		struct __kernel_timespec ts = { .tv_nsec = WAIT_SLICE_NS };

		if (io_uring_wait_cqe_timeout(&r->ring, &cqe, &ts) == 0)
			break;
		if (rx_done(r, t0))
			return -EINTR;
	}
	res = cqe->res;
	io_uring_cqe_seen(&r->ring, cqe);
	return res;
}

int rx_tcp_accept(struct rx *r)
{
	struct sockaddr_in sa = { .sin_family = AF_INET, .sin_port = htons(r->o.port),
				  .sin_addr.s_addr = r->o.ip }, peer;
	socklen_t plen = sizeof(peer);
	char ip[INET_ADDRSTRLEN];
	const char *step;
	int rc;

	step = "SOCKET";
	io_uring_prep_socket(io_uring_get_sqe(&r->ring), AF_INET, SOCK_STREAM, 0, 0);
	rc = one_op(r, now_ns());
	if (rc < 0)
		goto err;
	r->lfd = rc;
	step = "BIND";
	io_uring_prep_bind(io_uring_get_sqe(&r->ring), r->lfd, (struct sockaddr *)&sa, sizeof(sa));
	if ((rc = one_op(r, now_ns())) < 0)
		goto err;
	step = "LISTEN";
	io_uring_prep_listen(io_uring_get_sqe(&r->ring), r->lfd, 1);
	if ((rc = one_op(r, now_ns())) < 0)
		goto err;
	inet_ntop(AF_INET, &r->o.ip, ip, sizeof(ip));
	printf("zn-recv: ready on %s:%u (TCP), waiting for a connection\n", ip, r->o.port);
	fflush(stdout);
	step = "ACCEPT";
	io_uring_prep_accept(io_uring_get_sqe(&r->ring), r->lfd, (struct sockaddr *)&peer, &plen,
			     0);
	if ((rc = one_op(r, now_ns())) < 0)
		goto err;
	r->fd = rc;
	inet_ntop(AF_INET, &peer.sin_addr, ip, sizeof(ip));
	if (!r->o.quiet)
		printf("zn-recv: connection from %s:%u\n", ip, ntohs(peer.sin_port));
	return 0;
err:
	if (rc != -EINTR)
		fprintf(stderr, "zn-recv: TCP %s: %s\n", step, strerror(-rc));
	return rc;
}

int rx_tcp_copy(struct rx *r)
{
	uint8_t *buf = malloc(COPY_BUF);
	uint64_t t0 = now_ns();
	int rc = 0;

	if (!buf)
		return -ENOMEM;
	while (!rx_done(r, t0)) {
		io_uring_prep_recv(io_uring_get_sqe(&r->ring), r->fd, buf, COPY_BUF, 0);
		rc = one_op(r, t0);
		if (rc == -EINTR) {
			rc = 0;
			break;
		}
		if (rc < 0) {
			fprintf(stderr, "zn-recv: RECV: %s\n", strerror(-rc));
			r->last_err = rc;
			break;
		}
		r->data_cqes++;
		if (rc == 0) {
			r->eof = true;
			r->finals[FIN_OK]++;
			break;
		}
		rx_account(r, buf, (uint32_t)rc);
		rc = 0;
	}
	free(buf);
	return rc;
}

void rx_tcp_close(struct rx *r)
{
	struct io_uring_cqe *cqe;
	uint64_t end = now_ns() + LINGER_NS;

	if (r->fd < 0)
		return;
	/* our FIN, then the ring keeps polling the NIC a moment so that it
	 * leaves and its ACK comes back before the netdev closes */
	io_uring_prep_shutdown(io_uring_get_sqe(&r->ring), r->fd, SHUT_WR);
	io_uring_submit(&r->ring);
	while (now_ns() < end) {
		struct __kernel_timespec ts = { .tv_nsec = (long long)(end - now_ns()) };

		if (io_uring_wait_cqe_timeout(&r->ring, &cqe, &ts) == 0)
			io_uring_cqe_seen(&r->ring, cqe);
	}
}
