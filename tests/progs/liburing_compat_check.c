/*
 * A liburing program, written the way one is written for Linux, built
 * against zcnic's compat header (-I include/compat, or pkg-config zcnic
 * once installed) and linked with libzcnic. It uses no zcnic header: if it
 * builds and prints only "ok" lines, liburing code ports unchanged.
 *
 * Output: TAP lines "ok N - what" / "not ok N - what"; exit status 0 when
 * everything passed.
 */
#include <errno.h>
#include <liburing.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int tests, failed;

static void check(int cond, const char *what)
{
	tests++;
	if (!cond)
		failed++;
	printf("%sok %d - %s\n", cond ? "" : "not ", tests, what);
}

static int nop_round_trip(struct io_uring *ring)
{
	struct io_uring_cqe *cqe;
	struct io_uring_sqe *sqe;
	unsigned head, seen = 0;
	int i, ret;

	for (i = 0; i < 4; i++) {
		sqe = io_uring_get_sqe(ring);
		if (!sqe)
			return -1;
		io_uring_prep_nop(sqe);
		io_uring_sqe_set_data64(sqe, 100 + i);
	}
	ret = io_uring_submit_and_wait(ring, 4);
	if (ret != 4)
		return -1;
	io_uring_for_each_cqe(ring, head, cqe) {
		if (cqe->res != 0 || io_uring_cqe_get_data64(cqe) != 100 + seen)
			return -1;
		seen++;
	}
	io_uring_cq_advance(ring, seen);
	return seen == 4 ? 0 : -1;
}

struct remote {
	struct io_uring ring;
	int ready;
	pthread_mutex_t lock;
	pthread_cond_t cond;
	__u64 got_data;
	int got_res, rc;
};

static void *remote_thread(void *arg)
{
	struct remote *rm = arg;
	struct io_uring_params p;
	struct io_uring_cqe *cqe;
	struct __kernel_timespec ts = { .tv_sec = 5 };

	memset(&p, 0, sizeof(p));
	p.flags = IORING_SETUP_SINGLE_ISSUER | IORING_SETUP_DEFER_TASKRUN;
	rm->rc = io_uring_queue_init_params(8, &rm->ring, &p);
	pthread_mutex_lock(&rm->lock);
	rm->ready = 1;
	pthread_cond_signal(&rm->cond);
	pthread_mutex_unlock(&rm->lock);
	if (rm->rc)
		return NULL;
	rm->rc = io_uring_wait_cqe_timeout(&rm->ring, &cqe, &ts);
	if (!rm->rc) {
		rm->got_data = cqe->user_data;
		rm->got_res = cqe->res;
		io_uring_cqe_seen(&rm->ring, cqe);
	}
	io_uring_queue_exit(&rm->ring);
	return NULL;
}

int main(void)
{
	struct io_uring ring;
	struct io_uring_params p;
	struct io_uring_cqe *cqe;
	struct io_uring_sqe *sqe;
	struct __kernel_timespec ts = { .tv_sec = 0, .tv_nsec = 10 * 1000 * 1000 };
	struct remote rm = { .lock = PTHREAD_MUTEX_INITIALIZER, .cond = PTHREAD_COND_INITIALIZER };
	static char buf[4096];
	struct iovec iov = { .iov_base = buf, .iov_len = sizeof(buf) };
	pthread_t t;
	int ret;

	memset(&p, 0, sizeof(p));
	p.flags = IORING_SETUP_COOP_TASKRUN | IORING_SETUP_SUBMIT_ALL;
	ret = io_uring_queue_init_params(16, &ring, &p);
	check(ret == 0, "io_uring_queue_init_params");
	if (ret)
		return 1;
	check(p.features & IORING_FEAT_NODROP, "IORING_FEAT_NODROP reported");
	check(nop_round_trip(&ring) == 0, "NOPs through submit_and_wait and for_each_cqe");

	ret = io_uring_wait_cqe_timeout(&ring, &cqe, &ts);
	check(ret == -ETIME, "wait_cqe_timeout on an idle ring gives -ETIME");

	check(io_uring_register_buffers(&ring, &iov, 1) == 0, "register_buffers");
	sqe = io_uring_get_sqe(&ring);
	io_uring_prep_send_zc_fixed(sqe, 0, buf, 64, 0, 0, 0);
	sqe->user_data = 7;
	io_uring_submit(&ring);
	ret = io_uring_wait_cqe(&ring, &cqe);
	/* fd 0 is no zcnic socket: -ENOTSOCK, and the notification after it */
	check(ret == 0 && cqe->user_data == 7 && cqe->res == -ENOTSOCK &&
	      cqe->flags == IORING_CQE_F_MORE, "SEND_ZC on a non-socket: -ENOTSOCK with F_MORE");
	io_uring_cqe_seen(&ring, cqe);
	ret = io_uring_wait_cqe(&ring, &cqe);
	check(ret == 0 && cqe->user_data == 7 && cqe->res == 0 && cqe->flags == IORING_CQE_F_NOTIF,
	      "then its notification");
	io_uring_cqe_seen(&ring, cqe);
	check(io_uring_unregister_buffers(&ring) == 0, "unregister_buffers");

	pthread_create(&t, NULL, remote_thread, &rm);
	pthread_mutex_lock(&rm.lock);
	while (!rm.ready)
		pthread_cond_wait(&rm.cond, &rm.lock);
	pthread_mutex_unlock(&rm.lock);
	sqe = io_uring_get_sqe(&ring);
	io_uring_prep_msg_ring(sqe, rm.ring.ring_fd, 0x20, 0x5aa5, 0);
	sqe->user_data = 1;
	io_uring_submit(&ring);
	ret = io_uring_wait_cqe(&ring, &cqe);
	check(ret == 0 && cqe->user_data == 1 && cqe->res == 0, "MSG_RING sender CQE");
	io_uring_cqe_seen(&ring, cqe);
	pthread_join(t, NULL);
	check(rm.rc == 0 && rm.got_data == 0x5aa5 && rm.got_res == 0x20,
	      "MSG_RING reaches a DEFER_TASKRUN ring waited on by another thread");

	sqe = io_uring_get_sqe(&ring);
	io_uring_prep_msg_ring(sqe, 1, 0, 0, 0);
	io_uring_submit(&ring);
	ret = io_uring_wait_cqe(&ring, &cqe);
	check(ret == 0 && cqe->res == -EBADFD, "MSG_RING to a non-ring fd gives -EBADFD");
	io_uring_cqe_seen(&ring, cqe);

	io_uring_queue_exit(&ring);
	printf("# liburing_compat_check: %d passed, %d failed\n", tests - failed, failed);
	return failed ? 1 : 0;
}
