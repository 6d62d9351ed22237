/*
 * A liburing-style send_zc program, written with liburing's names only
 * (include/compat/liburing.h); the sockets are the one zcnic-specific part
 * (zn_udp_socket on two netdevs of an in-process zn-nicsim pair, as a
 * kernel program would use socket/bind/connect).
 *
 * ROUNDS rounds; each queues a RECV on B and one send from A, cycling
 * through io_uring_prep_send_zc (plain memory), io_uring_prep_send_zc_fixed
 * (registered buffer), io_uring_prep_sendmsg_zc (three iovecs, destination
 * in msg_name) and io_uring_prep_send with io_uring_prep_send_set_addr.
 * CQEs are reaped with io_uring_wait_cqe/io_uring_cqe_seen the way the
 * kernel's examples/send-zerocopy.c does: F_MORE on a send result counts an
 * outstanding notification, F_NOTIF takes one off; a notification with
 * F_MORE, or before its result, is an error. Every datagram is checked
 * byte for byte (payload 'a' + i % 26, shifted per round).
 */
#include <arpa/inet.h>
#include <errno.h>
#include <liburing.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "tests/progs/prog_tap.h"
#include "tests/unit/support/netdev_pair.h"
#include "zcnic/socket.h"

#define ROUNDS		64
#define SIZE		1200
#define PORT_A		7300
#define PORT_B		7301
#define RESULT_UD	0x1000

static void pattern(uint8_t *p, size_t n, unsigned round)
{
	for (size_t i = 0; i < n; i++)
		p[i] = (uint8_t)('a' + (i + round) % 26);
}

int main(void)
{
	struct io_uring_params params = { 0 };
	struct sockaddr_in to_b = { .sin_family = AF_INET, .sin_port = htons(PORT_B) };
	uint8_t *plain, *fixed, rx[2048];
	struct io_uring ring;
	struct iovec reg;
	struct ndp n;
	unsigned bad_data = 0, bad_order = 0, notifs_out = 0, notifs = 0, results = 0;
	int fa, fb, rc;

	if (ndp_open(&n, "") || ndp_resolve(&n, 3000)) {
		TAP_CHECK(false, "netdev pair up");
		return tap_done("liburing_send_zc");
	}
	to_b.sin_addr.s_addr = n.ip_b;
	fa = zn_udp_socket(n.a, &(struct zn_socket_conf){ .local = { 0, htons(PORT_A) },
							  .remote = { n.ip_b, htons(PORT_B) } });
	fb = zn_udp_socket(n.b, &(struct zn_socket_conf){ .local = { 0, htons(PORT_B) } });
	TAP_CHECK(fa > 0 && fb > 0, "sockets %d %d", fa, fb);
	rc = io_uring_queue_init_params(32, &ring, &params);
	TAP_CHECK(rc == 0, "io_uring_queue_init_params: %d", rc);
	plain = malloc(SIZE);
	fixed = mmap(NULL, 65536, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	reg = (struct iovec){ fixed, 65536 };
	rc = io_uring_register_buffers(&ring, &reg, 1);
	TAP_CHECK(rc == 0, "io_uring_register_buffers: %d", rc);

	for (unsigned r = 0; r < ROUNDS; r++) {
		struct io_uring_sqe *sqe;
		struct io_uring_cqe *cqe;
		uint8_t want[SIZE], *src = r % 4 == 1 ? fixed + 4096 * (r % 8) : plain;
		struct iovec iov[3] = { { src, 100 }, { src + 100, 700 }, { src + 800, 400 } };
		struct msghdr msg = { .msg_name = &to_b, .msg_namelen = sizeof(to_b),
				      .msg_iov = iov, .msg_iovlen = 3 };
		bool got_recv = false, got_result = false;
		unsigned want_cqes = r % 4 == 3 ? 2 : 3;

		pattern(src, SIZE, r);
		memcpy(want, src, SIZE);
		memset(rx, 0, sizeof(rx));
		sqe = io_uring_get_sqe(&ring);
		io_uring_prep_recv(sqe, fb, rx, sizeof(rx), 0);
		io_uring_sqe_set_data64(sqe, r);
		sqe = io_uring_get_sqe(&ring);
		switch (r % 4) {
		case 0:
			io_uring_prep_send_zc(sqe, fa, src, SIZE, 0, IORING_SEND_ZC_REPORT_USAGE);
			break;
		case 1:
			io_uring_prep_send_zc_fixed(sqe, fa, src, SIZE, 0, 0, 0);
			break;
		case 2:
			io_uring_prep_sendmsg_zc(sqe, fa, &msg, 0);
			break;
		default:
			io_uring_prep_send(sqe, fa, src, SIZE, 0);
			io_uring_prep_send_set_addr(sqe, (const struct sockaddr *)&to_b, sizeof(to_b));
			break;
		}
		io_uring_sqe_set_data64(sqe, RESULT_UD + r);
		if (io_uring_submit(&ring) != 2) {
			TAP_CHECK(false, "round %u: submit", r);
			break;
		}
		for (unsigned k = 0; k < want_cqes; k++) {
			rc = io_uring_wait_cqe(&ring, &cqe);
			if (rc) {
				TAP_CHECK(false, "round %u: io_uring_wait_cqe: %d", r, rc);
				goto out;
			}
			if (io_uring_cqe_get_data64(cqe) == r) {
				got_recv = true;
				if (cqe->res != SIZE || memcmp(rx, want, SIZE))
					bad_data++;
			} else if (cqe->flags & IORING_CQE_F_NOTIF) {
				if ((cqe->flags & IORING_CQE_F_MORE) || !got_result || !notifs_out)
					bad_order++;
				notifs_out--;
				notifs++;
			} else {
				got_result = true;
				results++;
				if (cqe->res != SIZE)
					bad_data++;
				if (cqe->flags & IORING_CQE_F_MORE)
					notifs_out++;
			}
			io_uring_cqe_seen(&ring, cqe);
		}
		if (!got_recv)
			bad_data++;
	}
	TAP_CHECK(results == ROUNDS, "%u send results", results);
	TAP_CHECK(notifs == ROUNDS / 4 * 3 && notifs_out == 0, "%u notifications, %u outstanding",
		  notifs, notifs_out);
	TAP_CHECK(bad_order == 0, "every notification after its result, without F_MORE (%u bad)",
		  bad_order);
	TAP_CHECK(bad_data == 0, "every datagram byte-exact (%u bad)", bad_data);
	{
		struct io_uring_cqe *cqe;

		TAP_CHECK(io_uring_peek_cqe(&ring, &cqe) == -EAGAIN, "CQ empty at the end");
	}
out:
	io_uring_unregister_buffers(&ring);
	io_uring_queue_exit(&ring);
	zn_socket_close(fa);
	zn_socket_close(fb);
	ndp_close(&n);
	munmap(fixed, 65536);
	free(plain);
	return tap_done("liburing_send_zc");
}
