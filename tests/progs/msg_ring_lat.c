/*
 * MSG_RING latency probe: time from a sender thread preparing a MSG_RING
 * SQE to the target thread holding the CQE, in ns (CLOCK_MONOTONIC, the
 * send time travels in the message's user_data). The target ring is
 * SINGLE_ISSUER | DEFER_TASKRUN and waits with io_uring_wait_cqe.
 *
 *   msg_ring_lat [-n COUNT] [-g GAP_US] [-t]
 *     -n  messages per run (default 100000)
 *     -g  pause between messages: 0 = the target keeps spinning, a pause
 *         past its spin budget (50 us) measures the futex wake-up path
 *     -t  throughput instead: the sender streams, the target counts
 *
 * Ping-pong: the sender sends the next message only after the target
 * reaped the previous one, so no queueing hides in the figures.
 * Output: one line "msg_ring_lat: ..." with median/p99/p99.9/max.
 */
#include <errno.h>
#include <liburing.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

struct shared {
	unsigned count;
	int stream;
	_Atomic int ring_fd;
	_Atomic unsigned reaped;
	uint64_t *lat;
	uint64_t t_end;
	int rc;
};

static void *target(void *arg)
{
	struct shared *sh = arg;
	struct io_uring_params p;
	struct io_uring ring;
	unsigned got = 0;

	memset(&p, 0, sizeof(p));
	p.flags = IORING_SETUP_SINGLE_ISSUER | IORING_SETUP_DEFER_TASKRUN;
	sh->rc = io_uring_queue_init_params(64, &ring, &p);
	if (sh->rc) {
		atomic_store(&sh->ring_fd, -2);
		return NULL;
	}
	atomic_store(&sh->ring_fd, ring.ring_fd);
	while (got < sh->count) {
		struct io_uring_cqe *cqe;
		unsigned head, n = 0;

		sh->rc = io_uring_wait_cqe(&ring, &cqe);
		if (sh->rc)
			break;
		io_uring_for_each_cqe(&ring, head, cqe) {
			uint64_t t = now_ns();

			if (!sh->stream)
				sh->lat[got + n] = t - cqe->user_data;
			n++;
		}
		io_uring_cq_advance(&ring, n);
		got += n;
		atomic_store_explicit(&sh->reaped, got, memory_order_release);
	}
	sh->t_end = now_ns();
	io_uring_queue_exit(&ring);
	return NULL;
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

int main(int argc, char **argv)
{
	struct shared sh = { .count = 100000, .ring_fd = -1 };
	unsigned gap_us = 0, i;
	struct io_uring ring;
	uint64_t t0;
	pthread_t t;
	int opt, fd;

	while ((opt = getopt(argc, argv, "n:g:t")) != -1) {
		switch (opt) {
		case 'n': sh.count = (unsigned)strtoul(optarg, NULL, 0); break;
		case 'g': gap_us = (unsigned)strtoul(optarg, NULL, 0); break;
		case 't': sh.stream = 1; break;
		default:
			fprintf(stderr, "usage: %s [-n COUNT] [-g GAP_US] [-t]\n", argv[0]);
			return 2;
		}
	}
	if (!sh.count)
		return 2;
	sh.lat = calloc(sh.count, sizeof(*sh.lat));
	if (!sh.lat || io_uring_queue_init(64, &ring, IORING_SETUP_SINGLE_ISSUER))
		return 1;
	pthread_create(&t, NULL, target, &sh);
	while ((fd = atomic_load(&sh.ring_fd)) == -1)
		usleep(100);
	if (fd < 0)
		return 1;
	t0 = now_ns();
	for (i = 0; i < sh.count; i++) {
		struct io_uring_sqe *sqe;

		if (!sh.stream) {
			while (atomic_load_explicit(&sh.reaped, memory_order_acquire) < i)
				;
			if (gap_us)
				usleep(gap_us);
		}
		while (!(sqe = io_uring_get_sqe(&ring)))
			io_uring_submit(&ring);
		io_uring_prep_msg_ring(sqe, fd, 0, now_ns(), 0);
		sqe->flags = IOSQE_CQE_SKIP_SUCCESS;
		if (!sh.stream || (i & 15) == 15)
			io_uring_submit(&ring);
	}
	io_uring_submit(&ring);
	pthread_join(t, NULL);
	if (sh.rc) {
		fprintf(stderr, "msg_ring_lat: target failed: %s\n", strerror(-sh.rc));
		return 1;
	}
	if (sh.stream) {
		double s = (double)(sh.t_end - t0) / 1e9;

		printf("msg_ring_lat: stream n=%u %.2f Mmsg/s\n", sh.count, sh.count / s / 1e6);
	} else {
		qsort(sh.lat, sh.count, sizeof(*sh.lat), cmp_u64);
		printf("msg_ring_lat: gap=%uus n=%u median=%llu p99=%llu p99.9=%llu max=%llu ns\n",
		       gap_us, sh.count, (unsigned long long)sh.lat[sh.count / 2],
		       (unsigned long long)sh.lat[(uint64_t)sh.count * 99 / 100],
		       (unsigned long long)sh.lat[(uint64_t)sh.count * 999 / 1000],
		       (unsigned long long)sh.lat[sh.count - 1]);
	}
	io_uring_queue_exit(&ring);
	free(sh.lat);
	return 0;
}
