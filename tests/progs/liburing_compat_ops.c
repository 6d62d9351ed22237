/*
 * A second plain liburing program for the compat layer: the names, headers,
 * set-up flags and ops issue 15 asked for, used the way a Linux program uses
 * them, with only <liburing.h> included for io_uring and the system headers
 * a liburing program gets from it (fcntl, sched, sys/stat, inttypes, ...).
 * No zcnic header: if it builds unchanged and prints only "ok" lines, these
 * parts of liburing code port unchanged.
 *
 * Output: TAP lines; exit status 0 when everything passed.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE	/* CPU_SET, as for any program that pins threads */
#endif
#include <liburing.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/eventfd.h>
#include <sys/mman.h>
#include <unistd.h>

static int tests, failed;

static void check(int cond, const char *what)
{
	tests++;
	if (!cond)
		failed++;
	printf("%sok %d - %s\n", cond ? "" : "not ", tests, what);
}

/* One CQE: its res, or the wait's error; *ud gets its user_data. */
static int reap(struct io_uring *ring, __u64 *ud, unsigned *flags)
{
	struct __kernel_timespec ts = { .tv_sec = 5 };
	struct io_uring_cqe *cqe;
	int ret = io_uring_wait_cqe_timeout(ring, &cqe, &ts);

	if (ret)
		return ret;
	ret = cqe->res;
	if (ud)
		*ud = cqe->user_data;
	if (flags)
		*flags = cqe->flags;
	io_uring_cqe_seen(ring, cqe);
	return ret;
}

/* things liburing.h brings in: the program uses them without including them */
static void headers(void)
{
	cpu_set_t set;
	struct stat st;
	char buf[32];

	CPU_ZERO(&set);
	snprintf(buf, sizeof(buf), "%" PRIu64, (uint64_t)O_RDONLY);
	check(fstat(0, &st) == 0 || errno == EBADF, "fcntl.h, sched.h, sys/stat.h, inttypes.h come with liburing.h");
	check(uring_ptr_to_u64(buf) == (__u64)(uintptr_t)buf, "uring_ptr_to_u64");
}

static void probe(struct io_uring *ring)
{
	struct io_uring_probe *p = io_uring_get_probe_ring(ring);
	struct io_uring_probe *q = calloc(1, sizeof(*q) + 256 * sizeof(q->ops[0]));

	check(p && io_uring_opcode_supported(p, IORING_OP_TIMEOUT) &&
	      io_uring_opcode_supported(p, IORING_OP_ASYNC_CANCEL), "probe: TIMEOUT and ASYNC_CANCEL supported");
	check(io_uring_register_probe(ring, q, 256) == 0 && q->last_op == IORING_OP_LAST - 1 &&
	      io_uring_opcode_supported(q, IORING_OP_PROVIDE_BUFFERS), "io_uring_register_probe");
	io_uring_free_probe(p);
	free(q);
}

static void timeouts(struct io_uring *ring)
{
	struct __kernel_timespec ts = { .tv_nsec = 10 * 1000 * 1000 }, longer = { .tv_sec = 30 };
	struct io_uring_sqe *sqe;
	__u64 ud;
	int ret;

	sqe = io_uring_get_sqe(ring);
	io_uring_prep_timeout(sqe, &ts, 0, 0);
	io_uring_sqe_set_data64(sqe, 1);
	io_uring_submit(ring);
	check(reap(ring, &ud, NULL) == -ETIME && ud == 1, "timeout expires with -ETIME");

	sqe = io_uring_get_sqe(ring);
	io_uring_prep_timeout(sqe, &longer, 1, 0);
	io_uring_sqe_set_data64(sqe, 2);
	sqe = io_uring_get_sqe(ring);
	io_uring_prep_nop(sqe);
	io_uring_sqe_set_data64(sqe, 3);
	io_uring_submit(ring);
	ret = reap(ring, &ud, NULL);
	check(ret == 0 && ud == 3, "the NOP first");
	check(reap(ring, &ud, NULL) == 0 && ud == 2, "a count timeout completes with 0");

	/* a link timeout guarding a timeout that would take 30 s */
	sqe = io_uring_get_sqe(ring);
	io_uring_prep_timeout(sqe, &longer, 0, 0);
	io_uring_sqe_set_data64(sqe, 4);
	sqe->flags |= IOSQE_IO_LINK;
	sqe = io_uring_get_sqe(ring);
	io_uring_prep_link_timeout(sqe, &ts, 0);
	io_uring_sqe_set_data64(sqe, 5);
	check(io_uring_submit(ring) == 2, "timeout + link timeout submitted");
	check(reap(ring, &ud, NULL) == -ECANCELED && ud == 4, "linked request cancelled");
	check(reap(ring, &ud, NULL) == -ETIME && ud == 5, "link timeout -ETIME");

	/* remove */
	sqe = io_uring_get_sqe(ring);
	io_uring_prep_timeout(sqe, &longer, 0, 0);
	io_uring_sqe_set_data64(sqe, 6);
	sqe = io_uring_get_sqe(ring);
	io_uring_prep_timeout_remove(sqe, 6, 0);
	io_uring_sqe_set_data64(sqe, 7);
	io_uring_submit(ring);
	check(reap(ring, &ud, NULL) == -ECANCELED && ud == 6, "removed timeout -ECANCELED");
	check(reap(ring, &ud, NULL) == 0 && ud == 7, "timeout remove 0");
}

static void cancel(struct io_uring *ring)
{
	struct __kernel_timespec longer = { .tv_sec = 30 };
	struct io_uring_sqe *sqe;
	__u64 ud;
	int i;

	for (i = 0; i < 3; i++) {
		sqe = io_uring_get_sqe(ring);
		io_uring_prep_timeout(sqe, &longer, 0, 0);
		io_uring_sqe_set_data64(sqe, 10);
	}
	sqe = io_uring_get_sqe(ring);
	io_uring_prep_cancel64(sqe, 10, IORING_ASYNC_CANCEL_ALL);
	io_uring_sqe_set_data64(sqe, 11);
	io_uring_submit(ring);
	for (i = 0; i < 3; i++)
		check(reap(ring, &ud, NULL) == -ECANCELED && ud == 10, "cancel ALL: each -ECANCELED");
	check(reap(ring, &ud, NULL) == 3 && ud == 11, "cancel ALL returns 3");
	sqe = io_uring_get_sqe(ring);
	io_uring_prep_cancel64(sqe, 10, 0);
	io_uring_submit(ring);
	check(reap(ring, NULL, NULL) == -ENOENT, "cancel of nothing: -ENOENT");
}

static void buffers(struct io_uring *ring)
{
	static char mem[4 * 256];
	struct io_uring_buf_ring *br;
	struct io_uring_sqe *sqe;
	int err;

	sqe = io_uring_get_sqe(ring);
	io_uring_prep_provide_buffers(sqe, mem, 256, 4, 1, 0);
	io_uring_submit(ring);
	check(reap(ring, NULL, NULL) == 0, "PROVIDE_BUFFERS");
	sqe = io_uring_get_sqe(ring);
	io_uring_prep_remove_buffers(sqe, 8, 1);
	io_uring_submit(ring);
	check(reap(ring, NULL, NULL) == 4, "REMOVE_BUFFERS removes 4");
	br = io_uring_setup_buf_ring(ring, 8, 2, 0, &err);
	check(br != NULL && err == 0, "io_uring_setup_buf_ring");
	if (!br)
		return;
	for (int i = 0; i < 4; i++)
		io_uring_buf_ring_add(br, mem + i * 256, 256, (unsigned short)i,
				      io_uring_buf_ring_mask(8), i);
	io_uring_buf_ring_advance(br, 4);
	check(io_uring_buf_ring_available(ring, br, 2) == 4, "buf ring: 4 available");
	check(io_uring_free_buf_ring(ring, br, 8, 2) == 0, "io_uring_free_buf_ring");
}

static void eventfd_and_enable(void)
{
	struct io_uring ring;
	struct pollfd pfd;
	uint64_t v;
	int efd = eventfd(0, EFD_NONBLOCK);

	check(io_uring_queue_init(8, &ring, IORING_SETUP_R_DISABLED) == 0, "R_DISABLED ring");
	io_uring_prep_nop(io_uring_get_sqe(&ring));
	check(io_uring_submit(&ring) == -EBADFD, "submit on a disabled ring: -EBADFD");
	check(io_uring_register_eventfd(&ring, efd) == 0, "io_uring_register_eventfd");
	check(io_uring_enable_rings(&ring) == 0, "io_uring_enable_rings");
	check(io_uring_submit(&ring) == 1 && reap(&ring, NULL, NULL) == 0, "NOP after enable");
	pfd = (struct pollfd){ .fd = efd, .events = POLLIN };
	check(poll(&pfd, 1, 1000) == 1 && read(efd, &v, sizeof(v)) == sizeof(v) && v >= 1,
	      "eventfd signalled by the CQE");
	check(io_uring_unregister_eventfd(&ring) == 0, "io_uring_unregister_eventfd");
	/* POLL_ADD on the eventfd: ready once it is written */
	io_uring_prep_poll_add(io_uring_get_sqe(&ring), efd, POLLIN);
	check(io_uring_submit(&ring) == 1, "POLL_ADD on an eventfd");
	v = 1;
	check(write(efd, &v, sizeof(v)) == sizeof(v) && reap(&ring, NULL, NULL) == POLLIN,
	      "POLL_ADD completes with POLLIN");
	check(read(efd, &v, sizeof(v)) == sizeof(v), "eventfd read back");
	{
		cpu_set_t set;

		CPU_ZERO(&set);
		CPU_SET(0, &set);
		check(io_uring_register_iowq_aff(&ring, sizeof(set), &set) == 0,
		      "io_uring_register_iowq_aff (no workers to pin)");
	}
	io_uring_queue_exit(&ring);
	close(efd);
}

static void sqpoll(void)
{
	struct io_uring_params p = { .flags = IORING_SETUP_SQPOLL, .sq_thread_idle = 50 };
	struct io_uring ring;

	check(io_uring_queue_init_params(8, &ring, &p) == 0, "SQPOLL ring");
	for (int i = 0; i < 3; i++) {
		io_uring_prep_nop(io_uring_get_sqe(&ring));
		check(io_uring_submit(&ring) == 1 && reap(&ring, NULL, NULL) == 0, "SQPOLL NOP");
		usleep(80 * 1000);	/* past sq_thread_idle: the next submit wakes it */
	}
	io_uring_queue_exit(&ring);
	check(io_uring_queue_init(8, &ring, IORING_SETUP_SQE128 | IORING_SETUP_NO_SQARRAY) == 0,
	      "SQE128 | NO_SQARRAY ring");
	io_uring_prep_nop(io_uring_get_sqe(&ring));
	check(io_uring_submit(&ring) == 1 && reap(&ring, NULL, NULL) == 0, "NOP on it");
	io_uring_queue_exit(&ring);
}

static void query(void)
{
	struct io_uring_query_zcrx zq = { 0 };
	struct io_uring_query_hdr h = {
		.query_data = uring_ptr_to_u64(&zq), .query_op = IO_URING_QUERY_ZCRX,
		.size = sizeof(zq),
	};

	check(io_uring_register_query(&h) == 0 && h.result == 0 && zq.rq_hdr_size > 0,
	      "IO_URING_QUERY_ZCRX");
}

int main(void)
{
	struct io_uring ring;

	if (io_uring_queue_init(32, &ring, 0)) {
		printf("not ok 1 - io_uring_queue_init\n");
		return 1;
	}
	headers();
	probe(&ring);
	timeouts(&ring);
	cancel(&ring);
	buffers(&ring);
	io_uring_queue_exit(&ring);
	eventfd_and_enable();
	sqpoll();
	query();
	printf("1..%d\n", tests);
	return failed ? 1 : 0;
}
