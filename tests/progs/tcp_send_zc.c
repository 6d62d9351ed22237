/* SPDX-License-Identifier: MIT */
/*
 * tcp_send_zc: a TCP send_zc client written as a liburing program (the
 * shape of liburing's examples/send-zerocopy.c), with liburing's names
 * only apart from the device set-up (tcp_liburing.h).
 *
 *   tcp_send_zc -d vfio-user:SOCK -a IP/PREFIX -D DST_IP -p PORT
 *               [-n REQUESTS] [-s SIZE] [-w WINDOW] [-F] [-W -q QUIET_MS]
 *
 *   SOCKET, CONNECT                          through the ring, "connected";
 *                                            -W: then a line on stdin first
 *   N SEND_ZC of SIZE bytes (4 KiB), at most WINDOW in flight, from WINDOW
 *   slots of one buffer (-F: a registered buffer, SEND_ZC fixed); a slot is
 *   written again only after its request's notification
 *   SHUTDOWN (our FIN), RECV until the peer's FIN (0), CLOSE, a linger
 *
 * The stream's byte i is tl_pat(i), so the receiver checks every byte. CQEs
 * are counted as send-zerocopy.c does: a result with F_MORE promises one
 * notification (F_NOTIF, same user_data, no F_MORE). Checked exactly: N
 * results of SIZE, N notifications, each after its result, in request
 * order (TCP acknowledges in sequence order); with -q, none in the first
 * QUIET_MS after the first submit while results do come (the test stops
 * the receiving process, then writes the line -W waits for, and lets the
 * receiver go on later: nothing is acknowledged meanwhile, so a
 * notification at the NIC's completion instead of the ACK shows).
 *
 * Prints "ok - what" / "not ok - what" lines and a "rate" line; exit 0
 * when every check passed. Every wait is bounded (TL_WAIT_S without a CQE).
 */
#include <getopt.h>
#include <stdlib.h>
#include <sys/mman.h>

#include "tests/progs/tcp_liburing.h"

#define MAX_WINDOW	1024

struct tx {
	struct io_uring ring;
	uint8_t *buf;
	size_t buf_len;
	uint32_t size, window;
	uint64_t n;
	bool fixed;
	bool wait_go;
	uint64_t quiet_ns, t_first;
	int fd;
	/* per slot (request % window) */
	uint64_t sent_ns[MAX_WINDOW];
	bool result_seen[MAX_WINDOW];
	bool busy[MAX_WINDOW];		/* the stack may still read it */
	/* counts */
	uint64_t queued, results, notifs, next_notif, inflight;
	uint64_t bad_res, no_more, bad_notif, early, out_of_order, quiet_results;
	uint64_t lat_min, lat_max;
};

static int connect_to(struct tx *t, uint32_t ip, int port)
{
	struct sockaddr_in sa = { .sin_family = AF_INET, .sin_port = htons((uint16_t)port),
				  .sin_addr.s_addr = ip };
	int rc;

	io_uring_prep_socket(io_uring_get_sqe(&t->ring), AF_INET, SOCK_STREAM, 0, 0);
	t->fd = tl_one_op(&t->ring);
	if (!tl_check(t->fd >= 0, "SOCKET AF_INET SOCK_STREAM: %d", t->fd))
		return t->fd;
	io_uring_prep_connect(io_uring_get_sqe(&t->ring), t->fd, (struct sockaddr *)&sa,
			      sizeof(sa));
	rc = tl_one_op(&t->ring);
	if (!tl_check(rc == 0, "CONNECT to port %d: %d", port, rc))
		return rc;
	printf("connected\n");
	fflush(stdout);
	if (t->wait_go) {
		char line[16];

		if (!tl_check(fgets(line, sizeof(line), stdin) != NULL, "the go line on stdin"))
			return -EIO;
	}
	return 0;
}

static void queue_sends(struct tx *t)
{
	while (t->queued < t->n && t->inflight < t->window) {
		uint32_t slot = (uint32_t)(t->queued % t->window);
		uint8_t *p = t->buf + (size_t)slot * t->size;
		uint64_t off = t->queued * t->size;
		struct io_uring_sqe *sqe = io_uring_get_sqe(&t->ring);

		if (t->busy[slot] || !sqe)
			break;
		for (uint32_t i = 0; i < t->size; i++)
			p[i] = tl_pat(off + i);
		if (t->fixed)
			io_uring_prep_send_zc_fixed(sqe, t->fd, p, t->size, 0, 0, 0);
		else
			io_uring_prep_send_zc(sqe, t->fd, p, t->size, 0, 0);
		io_uring_sqe_set_data64(sqe, t->queued);
		t->sent_ns[slot] = tl_now_ns();
		t->result_seen[slot] = false;
		t->busy[slot] = true;
		t->queued++;
		t->inflight++;
	}
}

static void on_cqe(struct tx *t, const struct io_uring_cqe *cqe)
{
	uint64_t req = cqe->user_data;
	uint32_t slot = (uint32_t)(req % t->window);

	if (req >= t->queued || req + t->window < t->queued) {
		t->bad_notif++;	/* no such request in flight */
		return;
	}
	if (cqe->flags & IORING_CQE_F_NOTIF) {
		uint64_t lat = tl_now_ns() - t->sent_ns[slot];

		if ((cqe->flags & IORING_CQE_F_MORE) || !t->result_seen[slot])
			t->bad_notif++;
		if (req != t->next_notif)
			t->out_of_order++;
		t->next_notif = req + 1;
		if (tl_now_ns() - t->t_first < t->quiet_ns)
			t->early++;
		if (!t->notifs || lat < t->lat_min)
			t->lat_min = lat;
		if (lat > t->lat_max)
			t->lat_max = lat;
		t->notifs++;
		t->inflight--;
		t->busy[slot] = false;
		return;
	}
	t->results++;
	t->result_seen[slot] = true;
	if (tl_now_ns() - t->t_first < t->quiet_ns)
		t->quiet_results++;
	if (cqe->res != (int)t->size && !t->bad_res++)
		printf("# request %llu: result %d\n", (unsigned long long)req, cqe->res);
	if (!(cqe->flags & IORING_CQE_F_MORE)) {
		t->no_more++;	/* no notification will come for it */
		t->inflight--;
		t->busy[slot] = false;
	}
}

static int run(struct tx *t)
{
	uint64_t t0 = tl_now_ns(), t1;

	t->t_first = t0;

	while (t->notifs + t->no_more < t->n) {
		struct io_uring_cqe *cqe;
		unsigned head, k = 0;
		int rc;

		queue_sends(t);
		io_uring_submit(&t->ring);
		rc = tl_wait_cqe(&t->ring, &cqe);
		if (rc) {
			tl_check(false, "a CQE within %d s (%llu results, %llu notifications of "
				 "%llu): %d", TL_WAIT_S, (unsigned long long)t->results,
				 (unsigned long long)t->notifs, (unsigned long long)t->n, rc);
			return rc;
		}
		io_uring_for_each_cqe(&t->ring, head, cqe) {
			on_cqe(t, cqe);
			k++;
		}
		io_uring_cq_advance(&t->ring, k);
	}
	t1 = tl_now_ns();
	tl_check(t->results == t->n && !t->bad_res && !t->no_more,
		 "%llu SEND_ZC of %u bytes%s: %llu results of %u bytes with F_MORE (%llu wrong, "
		 "%llu without F_MORE)", (unsigned long long)t->n, t->size,
		 t->fixed ? " (registered buffer)" : "", (unsigned long long)t->results, t->size,
		 (unsigned long long)t->bad_res, (unsigned long long)t->no_more);
	tl_check(t->notifs == t->n && !t->bad_notif, "%llu notifications, one per request, each "
		 "after its result and without F_MORE (%llu wrong)", (unsigned long long)t->notifs,
		 (unsigned long long)t->bad_notif);
	tl_check(!t->out_of_order, "notifications in request order (%llu out of order)",
		 (unsigned long long)t->out_of_order);
	if (t->quiet_ns)
		tl_check(!t->early && t->quiet_results, "while the receiver could not acknowledge "
			 "(%llu ms): %llu results, %llu notifications",
			 (unsigned long long)(t->quiet_ns / 1000000),
			 (unsigned long long)t->quiet_results, (unsigned long long)t->early);
	printf("# notification latency after submit: min %.2f ms, max %.2f ms\n",
	       (double)t->lat_min / 1e6, (double)t->lat_max / 1e6);
	printf("rate tcp_send_zc %.1f MiB/s, %.0f requests/s\n",
	       (double)(t->n * t->size) / (1 << 20) / ((double)(t1 - t0) / 1e9),
	       (double)t->n / ((double)(t1 - t0) / 1e9));
	return 0;
}

/* Our FIN, then the peer's: it read everything and closed. */
static void finish(struct tx *t)
{
	uint8_t b[256];
	int rc;

	io_uring_prep_shutdown(io_uring_get_sqe(&t->ring), t->fd, SHUT_WR);
	rc = tl_one_op(&t->ring);
	tl_check(rc == 0, "SHUTDOWN SHUT_WR: %d", rc);
	io_uring_prep_recv(io_uring_get_sqe(&t->ring), t->fd, b, sizeof(b), 0);
	rc = tl_one_op(&t->ring);
	tl_check(rc == 0, "RECV after the peer read everything: %d (0: its FIN)", rc);
	io_uring_prep_close(io_uring_get_sqe(&t->ring), t->fd);
	rc = tl_one_op(&t->ring);
	tl_check(rc == 0, "CLOSE: %d", rc);
	t->fd = -1;
}

int main(int argc, char **argv)
{
	struct tx t = { .size = 4096, .window = 64, .n = 1024, .fd = -1 };
	const char *spec = NULL, *cidr = NULL, *dst = NULL;
	struct zn_netdev *d;
	struct in_addr dip = { 0 };
	struct iovec reg;
	int port = 0, c, rc;

	setvbuf(stdout, NULL, _IOLBF, 0);
	while ((c = getopt(argc, argv, "d:a:D:p:n:s:w:FWq:")) != -1) {
		switch (c) {
		case 'd': spec = optarg; break;
		case 'a': cidr = optarg; break;
		case 'D': dst = optarg; break;
		case 'p': port = atoi(optarg); break;
		case 'n': t.n = strtoull(optarg, NULL, 0); break;
		case 's': t.size = (uint32_t)strtoul(optarg, NULL, 0); break;
		case 'w': t.window = (uint32_t)strtoul(optarg, NULL, 0); break;
		case 'F': t.fixed = true; break;
		case 'W': t.wait_go = true; break;
		case 'q': t.quiet_ns = strtoull(optarg, NULL, 0) * 1000000ull; break;
		default: spec = NULL; optind = argc; break;
		}
	}
	if (!spec || !cidr || !dst || inet_pton(AF_INET, dst, &dip) != 1 || port <= 0 ||
	    port > 65535 || !t.n || !t.size || t.size > (1u << 20) || !t.window ||
	    t.window > MAX_WINDOW) {
		fprintf(stderr, "usage: tcp_send_zc -d vfio-user:SOCK -a IP/PREFIX -D DST_IP -p PORT "
			"[-n REQUESTS] [-s SIZE] [-w WINDOW<=%d] [-F] [-W -q QUIET_MS]\n",
			MAX_WINDOW);
		return 2;
	}
	d = tl_dev_open(spec, cidr, NULL, NULL);
	if (!d)
		return 1;
	/* room in the CQ for every result and notification in flight */
	rc = io_uring_queue_init(t.window < 64 ? 64 : t.window, &t.ring, 0);
	if (!tl_check(rc == 0, "io_uring_queue_init: %d", rc))
		goto out_dev;
	t.buf_len = (size_t)t.window * t.size;
	t.buf = mmap(NULL, t.buf_len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (!tl_check(t.buf != MAP_FAILED, "%u slots of %u bytes", t.window, t.size))
		goto out;
	if (t.fixed) {
		reg = (struct iovec){ t.buf, t.buf_len };
		rc = io_uring_register_buffers(&t.ring, &reg, 1);
		if (!tl_check(rc == 0, "io_uring_register_buffers: %d", rc))
			goto out;
	}
	if (connect_to(&t, dip.s_addr, port) == 0 && run(&t) == 0)
		finish(&t);
	if (t.fd >= 0) {
		io_uring_prep_close(io_uring_get_sqe(&t.ring), t.fd);
		tl_one_op(&t.ring);
	}
	tl_ring_sleep(&t.ring, TL_LINGER_MS);
out:
	io_uring_queue_exit(&t.ring);
	if (t.buf && t.buf != MAP_FAILED)
		munmap(t.buf, t.buf_len);
out_dev:
	tl_dev_close(d);
	return tl_failures ? 1 : 0;
}
