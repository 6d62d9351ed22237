/* SPDX-License-Identifier: MIT */
/*
 * zn-send --proto tcp: the connection is made and ended through the ring,
 * as a kernel io_uring program does it (io_uring_prep_socket, _connect,
 * _shutdown, _recv). The sends in between are main.c's.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <liburing.h>
#include <netinet/in.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>

#include "send.h"

#define UD_TCP		(1ull << 63)	/* apart from the window slots' user_data */

/* Submit, then the CQE of UD_TCP (send CQEs still coming are not ours to
 * take: the sends are all done when these run). -ETIME after wait_ms. */
static int one_op(struct io_uring *ring, uint64_t wait_ms)
{
	struct __kernel_timespec ts = { .tv_sec = (long long)(wait_ms / 1000),
					.tv_nsec = (long long)(wait_ms % 1000) * 1000000 };
	struct io_uring_cqe *cqe;
	int rc;

	io_uring_submit(ring);
	for (;;) {
		rc = io_uring_wait_cqe_timeout(ring, &cqe, &ts);
		if (rc)
			return rc;
		if (cqe->user_data == UD_TCP)
			break;
		io_uring_cqe_seen(ring, cqe);
	}
	rc = cqe->res;
	io_uring_cqe_seen(ring, cqe);
	return rc;
}

int send_tcp_connect(struct io_uring *ring, const struct send_opts *o)
{
	struct sockaddr_in dst = { .sin_family = AF_INET, .sin_port = htons(o->dst_port),
				   .sin_addr.s_addr = o->dst_ip };
	struct io_uring_sqe *sqe;
	char ip[INET_ADDRSTRLEN];
	int fd, rc;

	sqe = io_uring_get_sqe(ring);
	io_uring_prep_socket(sqe, AF_INET, SOCK_STREAM, 0, 0);
	sqe->user_data = UD_TCP;
	fd = one_op(ring, 1000);
	if (fd < 0) {
		fprintf(stderr, "zn-send: TCP SOCKET: %s\n", strerror(-fd));
		return fd;
	}
	sqe = io_uring_get_sqe(ring);
	io_uring_prep_connect(sqe, fd, (struct sockaddr *)&dst, sizeof(dst));
	sqe->user_data = UD_TCP;
	/* the engine's SYN retries end a connect that gets no answer (-ETIMEDOUT) */
	rc = one_op(ring, 180000);
	if (rc < 0) {
		inet_ntop(AF_INET, &o->dst_ip, ip, sizeof(ip));
		fprintf(stderr, "zn-send: TCP CONNECT to %s:%u: %s\n", ip, o->dst_port,
			strerror(-rc));
		return rc;
	}
	return fd;
}

int send_tcp_finish(struct io_uring *ring, int fd, uint64_t wait_ms)
{
	struct io_uring_sqe *sqe;
	char buf[256];
	int rc;

	sqe = io_uring_get_sqe(ring);
	io_uring_prep_shutdown(sqe, fd, SHUT_WR);
	sqe->user_data = UD_TCP;
	rc = one_op(ring, 1000);
	if (rc < 0) {
		fprintf(stderr, "zn-send: TCP SHUTDOWN: %s\n", strerror(-rc));
		return rc;
	}
	/* the receiver closes once it has everything: our RECV sees EOF */
	do {
		sqe = io_uring_get_sqe(ring);
		io_uring_prep_recv(sqe, fd, buf, sizeof(buf), 0);
		sqe->user_data = UD_TCP;
		rc = one_op(ring, wait_ms);
	} while (rc > 0);
	if (rc < 0)
		fprintf(stderr, "zn-send: waiting for the receiver to close: %s\n",
			strerror(-rc));
	return rc;
}
