/* SPDX-License-Identifier: MIT */
/*
 * echo_client: zcnic's client for zn-echo (tests/integration/zn_echo.sh).
 *
 *   echo_client SPEC IP/PREFIX DST_IP PORT CONNS BYTES
 *
 * Opens the netdev (vfio-user:SOCK or a PCI address), then everything
 * through the ring with liburing names: CONNS connections at once
 * (SOCKET, CONNECT), each SENDs BYTES of its own pattern in pieces and
 * RECVs the echo, every byte checked; then SHUTDOWN (FIN) and a RECV that
 * must return 0 (the server closed too), and CLOSE. Prints "ok - what" /
 * "not ok - what" lines; exit 0 when all are ok. Bounded waits.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <liburing.h>
#include <netinet/in.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>

#include "zcnic/net.h"
#include "zcnic/netdev.h"

#define MAX_CONNS	64
#define PIECE		3000	/* not a multiple of anything the stack uses */
#define RXBUF		8192
#define WAIT_S		20

enum { U_SOCK = 1, U_CONN, U_SEND, U_RECV, U_SHUT, U_CLOSE };
#define UD(what, i)	((uint64_t)(what) << 32 | (uint32_t)(i))

struct cl {
	int fd;
	uint64_t sent, got;
	bool sending, receiving, eof, shut, close_sent;
	int err;
	uint8_t rx[RXBUF];
	uint8_t tx[PIECE];	/* read by the SEND until its CQE */
};

static struct io_uring ring;

static uint8_t pat(uint64_t i, uint32_t c)
{
	return (uint8_t)((i * 13) ^ (i >> 11) ^ (c * 71));
}

static struct io_uring_sqe *sqe_for(uint64_t ud)
{
	struct io_uring_sqe *sqe = io_uring_get_sqe(&ring);

	if (!sqe) {
		io_uring_submit(&ring);
		sqe = io_uring_get_sqe(&ring);
	}
	io_uring_sqe_set_data64(sqe, ud);
	return sqe;
}

static int wait_one(struct io_uring_cqe **cqe)
{
	struct __kernel_timespec ts = { .tv_sec = WAIT_S };

	io_uring_submit(&ring);
	return io_uring_wait_cqe_timeout(&ring, cqe, &ts);
}

int main(int argc, char **argv)
{
	struct zn_netdev_conf nc = { 0 };
	struct zn_netdev *dev;
	struct sockaddr_in dst = { .sin_family = AF_INET };
	struct io_uring_cqe *cqe;
	static struct cl c[MAX_CONNS];
	uint32_t conns, open = 0, bad = 0, done = 0;
	uint64_t bytes;
	int rc;

	if (argc != 7 || zn_ipv4_parse_cidr(argv[2], &nc.ip, &nc.prefix_len) ||
	    inet_pton(AF_INET, argv[3], &dst.sin_addr) != 1) {
		fprintf(stderr, "usage: echo_client SPEC IP/PREFIX DST_IP PORT CONNS BYTES\n");
		return 2;
	}
	dst.sin_port = htons((uint16_t)atoi(argv[4]));
	conns = (uint32_t)atoi(argv[5]);
	bytes = strtoull(argv[6], NULL, 0);
	if (!conns || conns > MAX_CONNS || !bytes)
		return 2;
	rc = zn_netdev_open(argv[1], &nc, &dev);
	if (rc || io_uring_queue_init(256, &ring, 0)) {
		printf("not ok - open %s: %s\n", argv[1], strerror(-rc));
		return 1;
	}
	/* SOCKET and CONNECT for every connection, all in flight at once */
	for (uint32_t i = 0; i < conns; i++) {
		io_uring_prep_socket(sqe_for(UD(U_SOCK, i)), AF_INET, SOCK_STREAM, 0, 0);
		if (wait_one(&cqe) || cqe->res <= 0) {
			printf("not ok - SOCKET %u\n", i);
			return 1;
		}
		c[i].fd = cqe->res;
		io_uring_cqe_seen(&ring, cqe);
		io_uring_prep_connect(sqe_for(UD(U_CONN, i)), c[i].fd, (struct sockaddr *)&dst,
				      sizeof(dst));
	}
	while (done < conns) {
		uint32_t what, i;

		if (wait_one(&cqe)) {
			printf("# no CQE for %d s: %u of %u connections done\n", WAIT_S, done, conns);
			break;
		}
		what = (uint32_t)(cqe->user_data >> 32);
		i = (uint32_t)cqe->user_data;
		rc = cqe->res;
		io_uring_cqe_seen(&ring, cqe);
		switch (what) {
		case U_CONN:
			if (rc) {
				printf("not ok - connection %u: CONNECT %s\n", i, strerror(-rc));
				c[i].err = rc;
				done++;
				continue;
			}
			open++;
			break;
		case U_SEND:
			c[i].sending = false;
			if (rc <= 0) {
				c[i].err = rc ? rc : -EIO;
				break;
			}
			c[i].sent += (uint64_t)rc;
			break;
		case U_RECV:
			c[i].receiving = false;
			if (rc < 0) {
				c[i].err = rc;
			} else if (rc == 0) {
				c[i].eof = true;
			} else {
				for (int k = 0; k < rc; k++)
					bad += c[i].rx[k] != pat(c[i].got + (uint64_t)k, i);
				c[i].got += (uint64_t)rc;
			}
			break;
		case U_SHUT:
			if (rc)
				c[i].err = rc;
			break;
		case U_CLOSE:
			done++;
			continue;
		}
		if (c[i].err || c[i].eof) {
			/* finished: CLOSE once nothing of it is in flight */
			if (!c[i].sending && !c[i].receiving && !c[i].close_sent) {
				io_uring_prep_close(sqe_for(UD(U_CLOSE, i)), c[i].fd);
				c[i].close_sent = true;
			}
			continue;
		}
		if (!c[i].sending && c[i].sent < bytes) {
			uint32_t k = bytes - c[i].sent < PIECE ? (uint32_t)(bytes - c[i].sent) : PIECE;

			/* one piece at a time: its bytes stay put until the SEND took them */
			for (uint32_t b = 0; b < k; b++)
				c[i].tx[b] = pat(c[i].sent + b, i);
			io_uring_prep_send(sqe_for(UD(U_SEND, i)), c[i].fd, c[i].tx, k, 0);
			c[i].sending = true;
		} else if (!c[i].sending && !c[i].shut && c[i].sent >= bytes) {
			io_uring_prep_shutdown(sqe_for(UD(U_SHUT, i)), c[i].fd, SHUT_WR);
			c[i].shut = true;
		}
		if (!c[i].receiving && !c[i].eof) {
			io_uring_prep_recv(sqe_for(UD(U_RECV, i)), c[i].fd, c[i].rx, RXBUF, 0);
			c[i].receiving = true;
		}
	}
	for (uint32_t i = 0; i < conns; i++) {
		bool ok = !c[i].err && c[i].sent == bytes && c[i].got == bytes && c[i].eof;

		if (!ok || i == conns - 1)
			printf("%s - connection %u: %llu bytes sent, %llu echoed, EOF %s%s%s\n",
			       ok ? "ok" : "not ok", i, (unsigned long long)c[i].sent,
			       (unsigned long long)c[i].got, c[i].eof ? "yes" : "no",
			       c[i].err ? ", error " : "", c[i].err ? strerror(-c[i].err) : "");
		bad += !ok;
	}
	printf("%s - %u connections through zn-echo, %llu bytes each, every byte intact\n",
	       bad ? "not ok" : "ok", conns, (unsigned long long)bytes);
	io_uring_queue_exit(&ring);
	zn_netdev_close(dev);
	return bad || open != conns ? 1 : 0;
}
