/*
 * Interrupt wait mode (zn_uring_set_wait, core/uring/wait.c) over both
 * models: a ring whose wait has nothing to reap sleeps on its NIC queues'
 * MSI-X eventfds (its thread's CPU time stays far below the wall time of
 * the wait) and wakes for a frame from the model, for a MSG_RING from
 * another thread and at its timeout; an eventfd registered on the ring is
 * signalled when the NIC's CQEs are posted, not in a pass that posts none,
 * not while IORING_CQ_EVENTFD_DISABLED is set; an SQPOLL ring's thread
 * sleeps on them too while a request waits on the NIC.
 *
 * Layout: netdev B (10.78.0.2) on this thread, with the ring under test;
 * netdev A (10.78.0.1) on a sender thread of its own (a netdev belongs to
 * one thread), which sends datagrams through its own ring when told to.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <poll.h>
#include <pthread.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <unistd.h>
#include <cmocka.h>

#include "tests/unit/support/bnxt_test_client.h"
#include "tests/unit/support/mlx5_test_client.h"
#include "tests/unit/uring_test.h"
#include "zcnic/netdev.h"
#include "zcnic/socket.h"
#include "zcnic/uring.h"

#define IP_A		"10.78.0.1"
#define IP_B		"10.78.0.2"
#define PORT		6100
#define IDLE_MS		300	/* an idle wait whose CPU time is measured */
#define SEND_DELAY_MS	150	/* the sender waits this long before it sends */
#define DGRAM		200
#define SENDER_MAX_MS	8000	/* the sender thread's bound on everything */

struct sender {
	pthread_t th;
	const char *path;
	_Atomic int go;			/* datagrams asked for so far */
	_Atomic int sent;		/* handed to A's ring so far */
	_Atomic int quit;
	_Atomic int ready;		/* 1: A is up; -1: it failed */
	_Atomic uint64_t sent_ns;	/* when the last one was submitted */
};

struct fix {
	bool mlx5;
	struct btc_sim bsim;
	struct mtc_sim msim;
	struct zn_netdev *b;
	struct io_uring ring;
	int fd;
	struct sender s;
	uint8_t buf[DGRAM + 64];
};

static uint64_t thread_cpu_ns(void)
{
	struct rusage ru;

	getrusage(RUSAGE_THREAD, &ru);
	return (uint64_t)(ru.ru_utime.tv_sec + ru.ru_stime.tv_sec) * 1000000000ull +
	       (uint64_t)(ru.ru_utime.tv_usec + ru.ru_stime.tv_usec) * 1000ull;
}

static void payload(uint8_t *p, unsigned n, unsigned seq)
{
	for (unsigned i = 0; i < n; i++)
		p[i] = (uint8_t)('a' + (i + seq) % 26);
}

/* Netdev A, its ring and socket, all on this thread; sends datagram k
 * once go > k, polls A until quit. */
static void *sender_main(void *arg)
{
	struct sender *s = arg;
	struct zn_netdev_conf c = { .prefix_len = 24, .nb_rxq = 1, .rx_ring = 256, .tx_ring = 256 };
	struct sockaddr_in dst = { .sin_family = AF_INET, .sin_port = htons(PORT) };
	struct zn_netdev *a = NULL;
	struct io_uring ring;
	uint8_t buf[DGRAM];
	uint64_t end = urt_now_ns() + SENDER_MAX_MS * 1000000ull;
	char spec[128];
	int fd = -1;

	c.ip = inet_addr(IP_A);
	dst.sin_addr.s_addr = inet_addr(IP_B);
	snprintf(spec, sizeof(spec), "vfio-user:%s", s->path);
	if (zn_netdev_open(spec, &c, &a) < 0 || io_uring_queue_init(16, &ring, 0) < 0) {
		atomic_store(&s->ready, -1);
		zn_netdev_close(a);
		return NULL;
	}
	fd = zn_udp_socket(a, &(struct zn_socket_conf){ .local = { c.ip, htons(PORT) } });
	atomic_store(&s->ready, fd > 0 ? 1 : -1);
	while (fd > 0 && !atomic_load(&s->quit) && urt_now_ns() < end) {
		int k = atomic_load(&s->sent);

		if (k < atomic_load(&s->go)) {
			struct io_uring_sqe *sqe = io_uring_get_sqe(&ring);

			payload(buf, DGRAM, (unsigned)k);
			io_uring_prep_sendto(sqe, fd, buf, DGRAM, 0, (struct sockaddr *)&dst,
					     sizeof(dst));
			atomic_store(&s->sent_ns, urt_now_ns());
			io_uring_submit(&ring);
			atomic_store(&s->sent, k + 1);
		}
		/* A is polled (ARP, TX completions) and its CQEs reaped */
		io_uring_get_events(&ring);
		for (struct io_uring_cqe *cqe; io_uring_peek_cqe(&ring, &cqe) == 0;)
			io_uring_cqe_seen(&ring, cqe);
		usleep(200);
	}
	io_uring_queue_exit(&ring);
	if (fd > 0)
		zn_socket_close(fd);
	zn_netdev_close(a);
	return NULL;
}

static int setup_common(struct fix *f)
{
	struct zn_netdev_conf c = { .prefix_len = 24, .nb_rxq = 2, .rx_ring = 256, .tx_ring = 256 };
	const char *pa, *pb;
	char spec[128];

	if (f->mlx5) {
		if (mtc_sim_start(&f->msim, "mlx5", "mlx5", true) < 0)
			return -1;
		pa = f->msim.path[0];
		pb = f->msim.path[1];
	} else {
		if (btc_sim_start(&f->bsim, "", "", true) < 0)
			return -1;
		pa = f->bsim.path[0];
		pb = f->bsim.path[1];
	}
	c.ip = inet_addr(IP_B);
	snprintf(spec, sizeof(spec), "vfio-user:%s", pb);
	if (zn_netdev_open(spec, &c, &f->b) < 0)
		return -1;
	if (io_uring_queue_init(64, &f->ring, 0) < 0)
		return -1;
	f->fd = zn_udp_socket(f->b, &(struct zn_socket_conf){ .local = { c.ip, htons(PORT) },
							       .rxq = 1 });
	if (f->fd <= 0)
		return -1;
	f->s.path = pa;
	if (pthread_create(&f->s.th, NULL, sender_main, &f->s))
		return -1;
	for (int i = 0; i < 5000 && !atomic_load(&f->s.ready); i++)
		usleep(1000);
	return atomic_load(&f->s.ready) == 1 ? 0 : -1;
}

static int setup_bnxt(void **state)
{
	struct fix *f = calloc(1, sizeof(*f));

	*state = f;
	return f ? setup_common(f) : -1;
}

static int setup_mlx5(void **state)
{
	struct fix *f = calloc(1, sizeof(*f));

	*state = f;
	if (!f)
		return -1;
	f->mlx5 = true;
	return setup_common(f);
}

static int teardown(void **state)
{
	struct fix *f = *state;

	atomic_store(&f->s.quit, 1);
	if (f->s.path)
		pthread_join(f->s.th, NULL);
	if (f->ring.ring_fd > 0)
		io_uring_queue_exit(&f->ring);
	if (f->fd > 0)
		zn_socket_close(f->fd);
	zn_netdev_close(f->b);
	if (f->mlx5)
		mtc_sim_stop(&f->msim);
	else
		btc_sim_stop(&f->bsim);
	free(f);
	return 0;
}

/* MSI-X interrupts B's device raised so far (the model's counter). */
static uint64_t b_irqs(struct fix *f)
{
	return f->mlx5 ? mtc_counter(&f->msim, 1, "irqs") : btc_counter(&f->bsim, 1, "irqs");
}

static struct zn_uring *zr(struct fix *f)
{
	return zn_uring_from_handle(f->ring.ring_fd);
}

static void arm_recv(struct fix *f)
{
	struct io_uring_sqe *sqe = io_uring_get_sqe(&f->ring);

	io_uring_prep_recv(sqe, f->fd, f->buf, sizeof(f->buf), 0);
	sqe->user_data = 7;
	assert_int_equal(io_uring_submit(&f->ring), 1);
}

/* One datagram from A (sequence k), received intact; returns the time
 * from A's submit to our CQE. */
static uint64_t recv_one(struct fix *f, unsigned k)
{
	struct io_uring_cqe c;
	uint8_t want[DGRAM];
	uint64_t t;

	arm_recv(f);
	/* the wait below starts first: the sender is told to send later */
	atomic_store(&f->s.go, (int)k + 1);
	assert_int_equal(urt_get_cqe(&f->ring, &c, URT_WAIT_MS), 0);
	t = urt_now_ns();
	assert_int_equal(c.user_data, 7);
	assert_int_equal(c.res, DGRAM);
	payload(want, DGRAM, k);
	assert_memory_equal(f->buf, want, DGRAM);
	return t - atomic_load(&f->s.sent_ns);
}

/* The sender sends one more after SEND_DELAY_MS. */
static void *go_later(void *arg)
{
	struct fix *f = arg;

	usleep(SEND_DELAY_MS * 1000);
	atomic_fetch_add(&f->s.go, 1);
	return NULL;
}

static void test_idle_sleeps(void **state)
{
	struct fix *f = *state;
	struct zn_uring_stats st0, st1;
	struct io_uring_cqe c;
	uint64_t t0, cpu0, wall, cpu, poll_cpu;

	/* the first datagram also resolves ARP both ways */
	assert_int_equal(zn_uring_set_wait(zr(f), ZN_URING_WAIT_IRQ, 0), 0);
	recv_one(f, 0);
	arm_recv(f);
	/* poll mode: the same idle wait, for the record */
	assert_int_equal(zn_uring_set_wait(zr(f), ZN_URING_WAIT_POLL, 0), 0);
	cpu0 = thread_cpu_ns();
	t0 = urt_now_ns();
	assert_int_equal(urt_get_cqe(&f->ring, &c, IDLE_MS), -ETIME);
	poll_cpu = thread_cpu_ns() - cpu0;
	/* interrupt mode */
	assert_int_equal(zn_uring_set_wait(zr(f), ZN_URING_WAIT_IRQ, 0), 0);
	zn_uring_get_stats(zr(f), &st0);
	cpu0 = thread_cpu_ns();
	t0 = urt_now_ns();
	assert_int_equal(urt_get_cqe(&f->ring, &c, IDLE_MS), -ETIME);
	wall = urt_now_ns() - t0;
	cpu = thread_cpu_ns() - cpu0;
	zn_uring_get_stats(zr(f), &st1);
	printf("  %s: idle wait of %u ms: CPU %.1f ms polling, %.1f ms in interrupt mode "
	       "(%llu sleeps)\n", f->mlx5 ? "mlx5" : "bnxt", IDLE_MS, poll_cpu / 1e6, cpu / 1e6,
	       (unsigned long long)(st1.irq_sleeps - st0.irq_sleeps));
	/* the timeout ends it, on time */
	assert_true(wall >= IDLE_MS * 1000000ull);
	assert_true(wall < (IDLE_MS + 200) * 1000000ull);
	assert_true(st1.irq_sleeps > st0.irq_sleeps);
	/* asleep: far below the wall time (a tenth) */
	assert_true(cpu < wall / 10);
	/* still armed: the datagram that comes now is received */
	atomic_store(&f->s.go, 2);
	assert_int_equal(urt_get_cqe(&f->ring, &c, URT_WAIT_MS), 0);
	assert_int_equal(c.res, DGRAM);
}

static void test_wakes_for_frame(void **state)
{
	struct fix *f = *state;
	struct zn_uring_stats st0, st1;
	struct io_uring_cqe c;
	uint8_t want[DGRAM];
	uint64_t best = UINT64_MAX, cpu0, t0, wall, cpu;
	pthread_t th;

	assert_int_equal(zn_uring_set_wait(zr(f), ZN_URING_WAIT_IRQ, 0), 0);
	recv_one(f, 0);	/* ARP */
	for (unsigned k = 1; k <= 3; k++) {
		uint64_t lat, irqs0;

		arm_recv(f);
		irqs0 = b_irqs(f);
		zn_uring_get_stats(zr(f), &st0);
		assert_int_equal(pthread_create(&th, NULL, go_later, f), 0);
		cpu0 = thread_cpu_ns();
		t0 = urt_now_ns();
		assert_int_equal(urt_get_cqe(&f->ring, &c, URT_WAIT_MS), 0);
		wall = urt_now_ns() - t0;
		cpu = thread_cpu_ns() - cpu0;
		lat = urt_now_ns() - atomic_load(&f->s.sent_ns);
		pthread_join(th, NULL);
		zn_uring_get_stats(zr(f), &st1);
		assert_int_equal(c.res, DGRAM);
		payload(want, DGRAM, k);
		assert_memory_equal(f->buf, want, DGRAM);
		assert_true(st1.irq_sleeps > st0.irq_sleeps);
		/* the device's interrupt woke us (not the sleep's 100 ms bound) */
		assert_true(b_irqs(f) > irqs0);
		assert_true(wall >= SEND_DELAY_MS * 1000000ull / 2);
		assert_true(cpu < wall / 4);
		if (lat < best)
			best = lat;
	}
	printf("  %s: woken by a frame: %.0f us from the sender's submit to our CQE (best of 3)\n",
	       f->mlx5 ? "mlx5" : "bnxt", best / 1e3);
}

struct msg_arg {
	int ring_fd;
	uint64_t sent_ns;
};

static void *msg_later(void *arg)
{
	struct msg_arg *m = arg;

	usleep(SEND_DELAY_MS * 1000);
	m->sent_ns = urt_now_ns();
	zn_uring_msg(m->ring_fd, 99, 5, 0);
	return NULL;
}

static void test_wakes_for_msg_ring(void **state)
{
	struct fix *f = *state;
	struct zn_uring_stats st0, st1;
	struct msg_arg m = { .ring_fd = f->ring.ring_fd };
	struct io_uring_cqe c;
	uint64_t cpu0, t0, wall, cpu;
	pthread_t th;

	assert_int_equal(zn_uring_set_wait(zr(f), ZN_URING_WAIT_IRQ, 0), 0);
	arm_recv(f);	/* the socket's netdev is polled: a busy hook */
	zn_uring_get_stats(zr(f), &st0);
	assert_int_equal(pthread_create(&th, NULL, msg_later, &m), 0);
	cpu0 = thread_cpu_ns();
	t0 = urt_now_ns();
	assert_int_equal(urt_get_cqe(&f->ring, &c, URT_WAIT_MS), 0);
	wall = urt_now_ns() - t0;
	cpu = thread_cpu_ns() - cpu0;
	pthread_join(th, NULL);
	zn_uring_get_stats(zr(f), &st1);
	assert_int_equal(c.user_data, 99);
	assert_int_equal(c.res, 5);
	assert_true(st1.irq_sleeps > st0.irq_sleeps);
	assert_true(wall >= SEND_DELAY_MS * 1000000ull / 2);
	assert_true(cpu < wall / 4);
	/* its eventfd woke us: far sooner than the sleep's 100 ms bound would */
	assert_true(t0 + wall - m.sent_ns < 50 * 1000000ull);
	printf("  %s: woken by a MSG_RING: %.0f us after it was sent\n", f->mlx5 ? "mlx5" : "bnxt",
	       (t0 + wall - m.sent_ns) / 1e3);
}

static uint64_t evfd_read(int fd)
{
	uint64_t v = 0;

	if (read(fd, &v, sizeof(v)) != (ssize_t)sizeof(v))
		return 0;
	return v;
}

static void test_eventfd_on_nic_cqes(void **state)
{
	struct fix *f = *state;
	struct io_uring_cqe c;
	int efd = eventfd(0, EFD_NONBLOCK);

	assert_true(efd >= 0);
	assert_int_equal(io_uring_register_eventfd(&f->ring, efd), 0);
	assert_int_equal(zn_uring_set_wait(zr(f), ZN_URING_WAIT_IRQ, 0), 0);
	recv_one(f, 0);
	assert_true(evfd_read(efd) >= 1);
	/* passes that post nothing signal nothing */
	arm_recv(f);
	evfd_read(efd);
	assert_int_equal(urt_get_cqe(&f->ring, &c, 50), -ETIME);
	assert_int_equal(evfd_read(efd), 0);
	/* the NIC's CQE signals it */
	atomic_store(&f->s.go, 2);
	assert_int_equal(urt_get_cqe(&f->ring, &c, URT_WAIT_MS), 0);
	assert_int_equal(c.res, DGRAM);
	assert_true(evfd_read(efd) >= 1);
	/* not while the application disabled it */
	*f->ring.cq.kflags |= IORING_CQ_EVENTFD_DISABLED;
	arm_recv(f);
	atomic_store(&f->s.go, 3);
	assert_int_equal(urt_get_cqe(&f->ring, &c, URT_WAIT_MS), 0);
	assert_int_equal(c.res, DGRAM);
	assert_int_equal(evfd_read(efd), 0);
	*f->ring.cq.kflags &= ~IORING_CQ_EVENTFD_DISABLED;
	assert_int_equal(io_uring_unregister_eventfd(&f->ring), 0);
	close(efd);
}

/* CPU time of this process's thread named name, from /proc (tick
 * granularity); UINT64_MAX if there is none. */
static uint64_t named_thread_cpu_ns(const char *name)
{
	char path[64], comm[32], stat[512];
	long tick = sysconf(_SC_CLK_TCK);

	for (int tid = getpid(), n = 0; n < 100000; tid++, n++) {
		unsigned long ut, st;
		const char *p;
		FILE *fp;

		snprintf(path, sizeof(path), "/proc/self/task/%d/comm", tid);
		fp = fopen(path, "r");
		if (!fp)
			continue;
		if (!fgets(comm, sizeof(comm), fp))
			comm[0] = 0;
		fclose(fp);
		if (strncmp(comm, name, strlen(name)))
			continue;
		snprintf(path, sizeof(path), "/proc/self/task/%d/stat", tid);
		fp = fopen(path, "r");
		if (!fp || !fgets(stat, sizeof(stat), fp)) {
			if (fp)
				fclose(fp);
			return UINT64_MAX;
		}
		fclose(fp);
		/* fields 14 and 15 (utime, stime) follow the ")" of the name */
		p = strrchr(stat, ')');
		if (!p || sscanf(p + 2, "%*c %*d %*d %*d %*d %*d %*u %*u %*u %*u %*u %lu %lu",
				 &ut, &st) != 2)
			return UINT64_MAX;
		return (uint64_t)(ut + st) * (1000000000ull / (uint64_t)tick);
	}
	return UINT64_MAX;
}

/*
 * SQPOLL in interrupt mode: with a RECV in flight on the NIC and nothing
 * arriving, the polling thread sleeps on the queue's interrupt (with
 * IORING_SQ_NEED_WAKEUP set) instead of spinning; a frame wakes it and the
 * CQE reaches the application; a submit while it sleeps wakes it too.
 */
static void test_sqpoll_sleeps(void **state)
{
	struct fix *f = *state;
	struct io_uring_params p = { .flags = IORING_SETUP_SQPOLL, .sq_thread_idle = 5000 };
	struct zn_uring_stats st0, st1;
	struct io_uring_cqe c;
	uint8_t want[DGRAM];
	uint64_t cpu0, poll_cpu, cpu, t0, wall;

	io_uring_queue_exit(&f->ring);
	assert_int_equal(io_uring_queue_init_params(64, &f->ring, &p), 0);
	assert_true(named_thread_cpu_ns("zn-sqpoll") != UINT64_MAX);
	recv_one(f, 0);	/* ARP both ways */
	arm_recv(f);
	/* poll mode, for the record: the thread spins */
	cpu0 = named_thread_cpu_ns("zn-sqpoll");
	assert_int_equal(urt_get_cqe(&f->ring, &c, IDLE_MS), -ETIME);
	poll_cpu = named_thread_cpu_ns("zn-sqpoll") - cpu0;
	assert_int_equal(zn_uring_set_wait(zr(f), ZN_URING_WAIT_IRQ, 0), 0);
	zn_uring_get_stats(zr(f), &st0);
	cpu0 = named_thread_cpu_ns("zn-sqpoll");
	t0 = urt_now_ns();
	assert_int_equal(urt_get_cqe(&f->ring, &c, IDLE_MS), -ETIME);
	wall = urt_now_ns() - t0;
	cpu = named_thread_cpu_ns("zn-sqpoll") - cpu0;
	zn_uring_get_stats(zr(f), &st1);
	printf("  %s: SQPOLL thread, %u ms with a RECV in flight: CPU %.0f ms polling, %.0f ms "
	       "in interrupt mode (%llu sleeps)\n", f->mlx5 ? "mlx5" : "bnxt", IDLE_MS,
	       poll_cpu / 1e6, cpu / 1e6, (unsigned long long)(st1.irq_sleeps - st0.irq_sleeps));
	assert_true(st1.irq_sleeps > st0.irq_sleeps);
	assert_true(cpu < wall / 4);
	/* the frame wakes it: the armed RECV completes, bytes intact */
	atomic_store(&f->s.go, 2);
	assert_int_equal(urt_get_cqe(&f->ring, &c, URT_WAIT_MS), 0);
	assert_int_equal(c.user_data, 7);
	assert_int_equal(c.res, DGRAM);
	payload(want, DGRAM, 1);
	assert_memory_equal(f->buf, want, DGRAM);
	/* a submit while it sleeps wakes it (liburing enters on NEED_WAKEUP) */
	arm_recv(f);
	usleep(20000);
	assert_true(*f->ring.sq.kflags & IORING_SQ_NEED_WAKEUP);
	io_uring_prep_nop(io_uring_get_sqe(&f->ring));
	io_uring_sqe_set_data64(f->ring.sq.sqes + ((f->ring.sq.sqe_tail - 1) & *f->ring.sq.kring_mask), 8);
	t0 = urt_now_ns();
	assert_int_equal(io_uring_submit(&f->ring), 1);
	assert_int_equal(urt_get_cqe(&f->ring, &c, URT_WAIT_MS), 0);
	assert_int_equal(c.user_data, 8);
	/* far sooner than the sleep's 100 ms bound */
	assert_true(urt_now_ns() - t0 < 50 * 1000000ull);
	atomic_store(&f->s.go, 3);
	assert_int_equal(urt_get_cqe(&f->ring, &c, URT_WAIT_MS), 0);
	assert_int_equal(c.user_data, 7);
	assert_int_equal(c.res, DGRAM);
}

static void test_set_wait_args(void **state)
{
	struct fix *f = *state;

	assert_int_equal(zn_uring_set_wait(zr(f), 2, 0), -EINVAL);
	assert_int_equal(zn_uring_set_wait(zr(f), ZN_URING_WAIT_IRQ, 1000001), -EINVAL);
	assert_int_equal(zn_uring_set_wait(NULL, ZN_URING_WAIT_IRQ, 0), -EINVAL);
	assert_int_equal(zn_uring_set_wait(zr(f), ZN_URING_WAIT_IRQ, 20), 0);
	assert_int_equal(zn_uring_set_wait(zr(f), ZN_URING_WAIT_POLL, 0), 0);
}

#define BOTH(t)							\
	cmocka_unit_test_setup_teardown(t, setup_bnxt, teardown),	\
	cmocka_unit_test_setup_teardown(t, setup_mlx5, teardown)

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_set_wait_args, setup_bnxt, teardown),
		BOTH(test_idle_sleeps),
		BOTH(test_wakes_for_frame),
		BOTH(test_wakes_for_msg_ring),
		BOTH(test_eventfd_on_nic_cqes),
		BOTH(test_sqpoll_sleeps),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
