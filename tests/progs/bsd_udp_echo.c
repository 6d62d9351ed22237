/* SPDX-License-Identifier: MIT */
/*
 * bsd_udp_echo: a UDP echo client written as a kernel program would be,
 * with zcnic's BSD calls (include/zcnic/bsd.h) for everything:
 *
 *   bsd_udp_echo DST_IP PORT COUNT
 *
 * The netdev comes from $ZN_NETDEVS (zn_env_netdev). COUNT datagrams of
 * sizes 1..8000 (a pattern per datagram) go to DST_IP:PORT from a socket
 * connect()ed there; each answer must come back whole and byte-exact
 * (an echo server: liburing's examples/io_uring-udp.c, or
 * tests/progs/bsd_udp_echo itself with "serve"). Prints "ok - what" /
 * "not ok - what"; exit 0 when all are ok. Every wait is bounded.
 *
 *   bsd_udp_echo serve PORT COUNT    answers COUNT datagrams, then exits
 */
#include <arpa/inet.h>
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>

#include "zcnic/bsd.h"

#define MAX_DGRAM	8000
#define WAIT_S		10	/* no datagram for this long: the run failed */

static uint64_t now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec;
}

/* recvmsg with MSG_DONTWAIT until a datagram or WAIT_S: each try polls
 * the netdev once (a ring pass). */
static ssize_t recvmsg_bounded(int fd, struct msghdr *m)
{
	uint64_t end = now_s() + WAIT_S;
	ssize_t n;

	do
		n = zn_recvmsg(fd, m, MSG_DONTWAIT);
	while (n < 0 && errno == EAGAIN && now_s() < end);
	return n;
}

static uint8_t pat(unsigned seq, unsigned i)
{
	return (uint8_t)(seq * 31u + i * 7u + (i >> 8));
}

static int serve(int port, int count)
{
	struct sockaddr_in sa = { .sin_family = AF_INET, .sin_port = htons((uint16_t)port) };
	static uint8_t buf[MAX_DGRAM];
	int fd = zn_socket(AF_INET, SOCK_DGRAM, 0);

	if (fd < 0 || zn_bind(fd, (struct sockaddr *)&sa, sizeof(sa))) {
		printf("not ok - serve: socket/bind: %s\n", strerror(errno));
		return 1;
	}
	printf("listening\n");
	fflush(stdout);
	for (int i = 0; i < count; i++) {
		struct iovec iov = { buf, sizeof(buf) };
		struct msghdr m = { .msg_name = &sa, .msg_namelen = sizeof(sa),
				    .msg_iov = &iov, .msg_iovlen = 1 };
		ssize_t n = recvmsg_bounded(fd, &m);

		iov.iov_len = n > 0 ? (size_t)n : 0;
		if (n < 0 || zn_sendmsg(fd, &m, 0) != n) {
			printf("not ok - serve: datagram %d: %s\n", i, strerror(errno));
			return 1;
		}
	}
	printf("ok - served %d datagrams\n", count);
	zn_socket_close(fd);
	return 0;
}

int main(int argc, char **argv)
{
	struct sockaddr_in dst = { .sin_family = AF_INET };
	static uint8_t out[MAX_DGRAM], in[MAX_DGRAM + 1];
	int fd, count, bad = 0;

	setvbuf(stdout, NULL, _IOLBF, 0);
	if (argc == 4 && !strcmp(argv[1], "serve"))
		return serve(atoi(argv[2]), atoi(argv[3]));
	if (argc != 4 || inet_pton(AF_INET, argv[1], &dst.sin_addr) != 1) {
		fprintf(stderr, "usage: %s DST_IP PORT COUNT | serve PORT COUNT\n", argv[0]);
		return 2;
	}
	dst.sin_port = htons((uint16_t)atoi(argv[2]));
	count = atoi(argv[3]);
	fd = zn_socket(AF_INET, SOCK_DGRAM, 0);
	if (fd < 0 || zn_connect(fd, (struct sockaddr *)&dst, sizeof(dst))) {
		printf("not ok - socket/connect to %s: %s\n", argv[1], strerror(errno));
		return 1;
	}
	printf("ok - connected to %s:%s\n", argv[1], argv[2]);
	for (int i = 0; i < count; i++) {
		size_t len = 1 + (size_t)(i * 997u) % MAX_DGRAM;
		ssize_t n;

		for (size_t j = 0; j < len; j++)
			out[j] = pat((unsigned)i, (unsigned)j);
		if (zn_send(fd, out, len, 0) != (ssize_t)len) {
			printf("not ok - send %d (%zu bytes): %s\n", i, len, strerror(errno));
			return 1;
		}
		n = recvmsg_bounded(fd, &(struct msghdr){ .msg_iov = &(struct iovec){ in, sizeof(in) },
							   .msg_iovlen = 1 });
		if (n != (ssize_t)len || memcmp(in, out, len)) {
			printf("# datagram %d: sent %zu, got %zd\n", i, len, n);
			bad++;
		}
	}
	printf("%s - %d datagrams of 1..%d bytes echoed whole and byte-exact\n",
	       bad ? "not ok" : "ok", count, MAX_DGRAM);
	zn_socket_close(fd);
	return bad ? 1 : 0;
}
