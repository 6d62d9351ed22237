/* SPDX-License-Identifier: MIT */
/*
 * tcp_zcrx_recv: a TCP zero-copy receiver written as a liburing program
 * (the shape of liburing's examples/zcrx.c), with liburing's names only
 * apart from the device set-up (tcp_liburing.h: a netdev on a zn-nicsim
 * port, where a kernel program names an interface).
 *
 *   tcp_zcrx_recv -d vfio-user:SOCK -a IP/PREFIX -p PORT -b BYTES [-A AREA_MIB]
 *
 *   SOCKET, BIND, LISTEN                     through the ring
 *   io_uring_register_ifq                    area (anonymous memory) and
 *                                            refill ring (ditto) on RX queue 0
 *   multishot ACCEPT --> the connection      then ASYNC_CANCEL of the accept
 *   RECV_ZC multishot --> {res, off} CQEs    every byte checked in the area
 *                                            against the stream pattern, the
 *                                            buffer returned by the refill ring
 *   the final CQE (res 0, no F_MORE): EOF    CLOSE, a linger; the refill
 *                                            ring read to its tail
 *
 * Prints "listening" once the listener is up (the script starts the sender
 * then), "ok - what" / "not ok - what" lines, a "rate" line; exit 0 when
 * every check passed. Every wait is bounded (TL_WAIT_S without a CQE).
 */
#include <getopt.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <unistd.h>

#include "tests/progs/tcp_liburing.h"

#define CQ_ENTRIES	4096
#define RQ_ENTRIES	4096
#define PAGE		4096u

enum { UD_ACCEPT = 1, UD_RX, UD_CANCEL, UD_CLOSE };

struct rx {
	struct io_uring ring;
	uint8_t *area;
	size_t area_len;
	void *rq_mem;
	size_t rq_len;
	struct io_uring_zcrx_rq rq;
	uint64_t area_token;
	uint32_t zcrx_id;
	int lfd, fd;
	uint64_t received, bad, cqes, rearms;
	int accept_end, cancel_res, final;
	bool accept_live, extra_conn;
};

static int setup_zcrx(struct rx *r, unsigned ifindex)
{
	struct io_uring_zcrx_area_reg area_reg = { 0 };
	struct io_uring_region_desc region_reg = { 0 };
	struct io_uring_zcrx_ifq_reg reg = { 0 };
	int rc;

	r->area = mmap(NULL, r->area_len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS,
		       -1, 0);
	/* the entries and one page for the head and tail */
	r->rq_len = (RQ_ENTRIES * sizeof(struct io_uring_zcrx_rqe) + 2 * PAGE - 1) & ~(PAGE - 1);
	r->rq_mem = mmap(NULL, r->rq_len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS,
			 -1, 0);
	if (r->area == MAP_FAILED || r->rq_mem == MAP_FAILED)
		return -ENOMEM;
	area_reg.addr = uring_ptr_to_u64(r->area);
	area_reg.len = r->area_len;
	region_reg.user_addr = uring_ptr_to_u64(r->rq_mem);
	region_reg.size = r->rq_len;
	region_reg.flags = IORING_MEM_REGION_TYPE_USER;
	reg.if_idx = ifindex;
	reg.if_rxq = 0;
	reg.rq_entries = RQ_ENTRIES;
	reg.area_ptr = uring_ptr_to_u64(&area_reg);
	reg.region_ptr = uring_ptr_to_u64(&region_reg);
	rc = io_uring_register_ifq(&r->ring, &reg);
	tl_check(rc == 0, "io_uring_register_ifq: ifindex %u queue 0, %zu MiB area, %u refill "
		 "entries: %d", ifindex, r->area_len >> 20, RQ_ENTRIES, rc);
	if (rc)
		return rc;
	r->zcrx_id = reg.zcrx_id;
	r->area_token = area_reg.rq_area_token;
	r->rq.khead = (unsigned *)((char *)r->rq_mem + reg.offsets.head);
	r->rq.ktail = (unsigned *)((char *)r->rq_mem + reg.offsets.tail);
	r->rq.rqes = (struct io_uring_zcrx_rqe *)((char *)r->rq_mem + reg.offsets.rqes);
	r->rq.rq_tail = 0;
	r->rq.ring_entries = reg.rq_entries;
	return 0;
}

static int listen_on(struct rx *r, struct in_addr ip, int port)
{
	struct sockaddr_in sa = { .sin_family = AF_INET, .sin_port = htons((uint16_t)port),
				  .sin_addr = ip };
	int rc;

	io_uring_prep_socket(io_uring_get_sqe(&r->ring), AF_INET, SOCK_STREAM, 0, 0);
	r->lfd = tl_one_op(&r->ring);
	if (!tl_check(r->lfd >= 0, "SOCKET AF_INET SOCK_STREAM: %d", r->lfd))
		return r->lfd;
	io_uring_prep_bind(io_uring_get_sqe(&r->ring), r->lfd, (struct sockaddr *)&sa,
			   sizeof(sa));
	rc = tl_one_op(&r->ring);
	if (!tl_check(rc == 0, "BIND :%d: %d", port, rc))
		return rc;
	io_uring_prep_listen(io_uring_get_sqe(&r->ring), r->lfd, 8);
	rc = tl_one_op(&r->ring);
	tl_check(rc == 0, "LISTEN: %d", rc);
	return rc;
}

static void add_recvzc(struct rx *r)
{
	struct io_uring_sqe *sqe = io_uring_get_sqe(&r->ring);

	/* liburing has no prep helper for RECV_ZC: examples/zcrx.c's way */
	io_uring_prep_rw(IORING_OP_RECV_ZC, sqe, r->fd, NULL, 0, 0);
	sqe->ioprio |= IORING_RECV_MULTISHOT;
	sqe->zcrx_ifq_idx = r->zcrx_id;
	io_uring_sqe_set_data64(sqe, UD_RX);
}

static void on_accept(struct rx *r, const struct io_uring_cqe *cqe)
{
	if (!(cqe->flags & IORING_CQE_F_MORE)) {
		r->accept_live = false;
		r->accept_end = cqe->res;
		if (cqe->res >= 0 && r->fd < 0)
			r->fd = cqe->res;	/* a connection in the last CQE */
		else if (cqe->res < 0)
			return;
	} else if (cqe->res < 0 || r->fd >= 0) {
		r->extra_conn = true;	/* one connection is all the test makes */
		return;
	} else {
		r->fd = cqe->res;
	}
	tl_check(r->fd >= 0, "multishot ACCEPT: connection %d", r->fd);
	add_recvzc(r);
	if (r->accept_live) {
		struct io_uring_sqe *sqe = io_uring_get_sqe(&r->ring);

		io_uring_prep_cancel64(sqe, UD_ACCEPT, 0);
		io_uring_sqe_set_data64(sqe, UD_CANCEL);
	}
}

/* The area offset and length in the CQE's second half: check the bytes
 * where the NIC put them, then hand the buffer back. */
static void on_rx(struct rx *r, const struct io_uring_cqe *cqe)
{
	const struct io_uring_zcrx_cqe *rcqe = (const struct io_uring_zcrx_cqe *)(cqe + 1);
	uint64_t at = rcqe->off & ~IORING_ZCRX_AREA_MASK;
	struct io_uring_zcrx_rqe *rqe;

	if (!(cqe->flags & IORING_CQE_F_MORE)) {
		if (cqe->res == -ENOSPC) {	/* CQ overflow ended it: arm again */
			r->rearms++;
			add_recvzc(r);
			return;
		}
		r->final = cqe->res;
		return;
	}
	if (cqe->res <= 0 || at + (uint64_t)cqe->res > r->area_len) {
		r->bad++;
		return;
	}
	r->bad += tl_bad_bytes(r->area + at, r->received, (size_t)cqe->res);
	r->received += (uint64_t)cqe->res;
	r->cqes++;
	if (r->rq.rq_tail - io_uring_smp_load_acquire(r->rq.khead) == r->rq.ring_entries) {
		r->bad++;	/* cannot be: every buffer in the area has one entry */
		return;
	}
	rqe = &r->rq.rqes[r->rq.rq_tail & (r->rq.ring_entries - 1)];
	rqe->off = at | r->area_token;
	rqe->len = (uint32_t)cqe->res;
	rqe->__pad = 0;
	r->rq.rq_tail++;
}

static int run(struct rx *r, uint64_t want)
{
	uint64_t t0 = 0, t1;
	struct io_uring_sqe *sqe = io_uring_get_sqe(&r->ring);

	io_uring_prep_multishot_accept(sqe, r->lfd, NULL, NULL, 0);
	io_uring_sqe_set_data64(sqe, UD_ACCEPT);
	r->accept_live = true;
	printf("listening\n");
	fflush(stdout);
	while (r->final == 1) {
		struct __kernel_timespec ts = { .tv_sec = TL_WAIT_S };
		struct io_uring_cqe *cqe;
		unsigned head, n = 0;
		int rc = io_uring_submit_and_wait_timeout(&r->ring, &cqe, 1, &ts, NULL);

		if (rc == -ETIME) {
			tl_check(false, "a CQE within %d s (%llu of %llu bytes)", TL_WAIT_S,
				 (unsigned long long)r->received, (unsigned long long)want);
			return -ETIME;
		}
		if (rc < 0) {
			tl_check(false, "io_uring_submit_and_wait_timeout: %d", rc);
			return rc;
		}
		io_uring_for_each_cqe(&r->ring, head, cqe) {
			switch (cqe->user_data) {
			case UD_ACCEPT:
				on_accept(r, cqe);
				t0 = tl_now_ns();
				break;
			case UD_RX:
				on_rx(r, cqe);
				break;
			case UD_CANCEL:
				r->cancel_res = cqe->res;
				break;
			default:
				r->bad++;
			}
			n++;
		}
		io_uring_cq_advance(&r->ring, n);
		/* the entries written above before the tail that publishes them */
		io_uring_smp_store_release(r->rq.ktail, r->rq.rq_tail);
	}
	t1 = tl_now_ns();
	tl_check(r->final == 0, "RECV_ZC multishot until EOF: the final CQE has res %d, no F_MORE "
		 "(%llu re-armed after -ENOSPC)", r->final, (unsigned long long)r->rearms);
	tl_check(r->received == want && !r->bad, "%llu of %llu bytes in %llu zcrx CQEs, %llu wrong, "
		 "every buffer returned by the refill ring", (unsigned long long)r->received,
		 (unsigned long long)want, (unsigned long long)r->cqes, (unsigned long long)r->bad);
	printf("rate tcp_zcrx_recv %.1f MiB/s\n", t1 > t0 ?
	       (double)r->received / (1 << 20) / ((double)(t1 - t0) / 1e9) : 0.0);
	return 0;
}

/* The accept's end and the cancel's answer may come after EOF. */
static void end_accept(struct rx *r)
{
	while (r->accept_live || r->cancel_res == 1) {
		struct io_uring_cqe *cqe;

		if (tl_wait_cqe(&r->ring, &cqe))
			break;
		if (cqe->user_data == UD_CANCEL)
			r->cancel_res = cqe->res;
		else if (cqe->user_data == UD_ACCEPT && !(cqe->flags & IORING_CQE_F_MORE)) {
			r->accept_live = false;
			r->accept_end = cqe->res;
		}
		io_uring_cqe_seen(&r->ring, cqe);
	}
	tl_check(!r->extra_conn && r->cancel_res == 0 && r->accept_end == -ECANCELED,
		 "ASYNC_CANCEL of the multishot ACCEPT: %d, the accept ended with %d, no other "
		 "connection", r->cancel_res, r->accept_end);
}

static int close_fd(struct rx *r, int fd)
{
	struct io_uring_sqe *sqe = io_uring_get_sqe(&r->ring);

	io_uring_prep_close(sqe, fd);
	io_uring_sqe_set_data64(sqe, UD_CLOSE);
	return tl_one_op(&r->ring);
}

int main(int argc, char **argv)
{
	struct io_uring_params p = {
		.flags = IORING_SETUP_COOP_TASKRUN | IORING_SETUP_SINGLE_ISSUER |
			 IORING_SETUP_DEFER_TASKRUN | IORING_SETUP_SUBMIT_ALL |
			 IORING_SETUP_CQE32 | IORING_SETUP_CQSIZE,
		.cq_entries = CQ_ENTRIES,
	};
	struct rx r = { .lfd = -1, .fd = -1, .final = 1, .cancel_res = 1, .accept_end = 1,
			.area_len = 16u << 20 };
	const char *spec = NULL, *cidr = NULL;
	struct zn_netdev *d;
	struct in_addr ip;
	unsigned ifindex;
	uint64_t want = 0;
	int port = 0, c, rc;

	setvbuf(stdout, NULL, _IOLBF, 0);
	while ((c = getopt(argc, argv, "d:a:p:b:A:")) != -1) {
		switch (c) {
		case 'd': spec = optarg; break;
		case 'a': cidr = optarg; break;
		case 'p': port = atoi(optarg); break;
		case 'b': want = strtoull(optarg, NULL, 0); break;
		case 'A': r.area_len = (size_t)strtoul(optarg, NULL, 0) << 20; break;
		default: spec = NULL; optind = argc; break;
		}
	}
	if (!spec || !cidr || port <= 0 || port > 65535 || !want || !r.area_len) {
		fprintf(stderr, "usage: tcp_zcrx_recv -d vfio-user:SOCK -a IP/PREFIX -p PORT "
			"-b BYTES [-A AREA_MIB]\n");
		return 2;
	}
	d = tl_dev_open(spec, cidr, &ip, &ifindex);
	if (!d)
		return 1;
	rc = io_uring_queue_init_params(64, &r.ring, &p);
	if (!tl_check(rc == 0, "io_uring_queue_init_params CQE32 DEFER_TASKRUN: %d", rc))
		goto out_dev;
	if (setup_zcrx(&r, ifindex) || listen_on(&r, ip, port))
		goto out;
	if (run(&r, want) == 0)
		end_accept(&r);
	if (r.fd >= 0) {
		rc = close_fd(&r, r.fd);
		tl_check(rc == 0, "CLOSE of the connection: %d", rc);
	}
	rc = close_fd(&r, r.lfd);
	tl_check(rc == 0, "CLOSE of the listener: %d", rc);
	r.lfd = -1;
	tl_ring_sleep(&r.ring, TL_LINGER_MS);
	tl_check(io_uring_smp_load_acquire(r.rq.khead) == r.rq.rq_tail,
		 "the refill ring read to its tail: head %u, tail %u",
		 io_uring_smp_load_acquire(r.rq.khead), r.rq.rq_tail);
out:
	io_uring_queue_exit(&r.ring);
out_dev:
	tl_dev_close(d);
	if (r.area && r.area != MAP_FAILED)
		munmap(r.area, r.area_len);
	if (r.rq_mem && r.rq_mem != MAP_FAILED)
		munmap(r.rq_mem, r.rq_len);
	return tl_failures ? 1 : 0;
}
