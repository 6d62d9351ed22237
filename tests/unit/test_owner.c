/*
 * The owner assertion (core/debug/owner.h): a port queue, a netif and a zcrx
 * ifq, each entered first by this thread, are entered by a second thread,
 * and the assertion names the object. Two netdevs over an in-process
 * zn-nicsim; the violation hook records instead of aborting, and one test
 * runs the default hook in a child that must die of SIGABRT with its line.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <pthread.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>
#include <cmocka.h>

#include "core/debug/owner.h"
#include "core/net/netif.h"
#include "core/zcrx/zcrx_priv.h"
#include "tests/unit/support/netdev_pair.h"
#include "zcnic/net.h"
#include "zcnic/netdev.h"
#include "zcnic/port.h"
#include "zcnic/socket.h"
#include "zcnic/uring.h"
#include "liburing.h"

#define MAX_SEEN	64
#define RQ_ENTRIES	64
#define AREA_LEN	(1u << 20)
#define PAGE		4096u

static const char *seen[MAX_SEEN];
static unsigned nseen;

static void record(const char *what, const char *file, int line)
{
	(void)file;
	(void)line;
	if (nseen < MAX_SEEN)
		seen[nseen] = what;
	nseen++;
}

/* How many recorded violations name what. */
static unsigned count(const char *what)
{
	unsigned n = 0;

	for (unsigned i = 0; i < nseen && i < MAX_SEEN; i++)
		n += strcmp(seen[i], what) == 0;
	return n;
}

static void (*default_hook)(const char *, const char *, int);

/* make OWNER=0 compiles the assertion out: nothing to test. */
static void need_owner(void)
{
#ifndef ZN_DEBUG_OWNER
	skip();
#endif
}

static int setup(void **state)
{
	struct ndp *n;

	need_owner();
	n = calloc(1, sizeof(*n));
	if (!n || ndp_open(n, "") < 0) {
		free(n);
		return -1;
	}
	default_hook = zn_owner_violation;
	zn_owner_violation = record;
	nseen = 0;
	*state = n;
	return 0;
}

static int teardown(void **state)
{
	ndp_close(*state);
	free(*state);
	zn_owner_violation = default_hook;
	return 0;
}

/* Runs fn(arg) on a thread of its own, to its end. */
static void on_other_thread(void *(*fn)(void *), void *arg)
{
	pthread_t t;

	assert_int_equal(pthread_create(&t, NULL, fn, arg), 0);
	assert_int_equal(pthread_join(t, NULL), 0);
}

static void *rx_burst0(void *arg)
{
	struct zn_rx_pkt pkts[4];

	zn_port_rx_burst(arg, 0, pkts, 4);
	return NULL;
}

static void *tx_reap0(void *arg)
{
	uint64_t cookies[4];

	zn_port_tx_reap(arg, 0, cookies, 4);
	return NULL;
}

static void test_port_queues(void **state)
{
	struct ndp *n = *state;
	struct zn_port *p = zn_netdev_port(n->a);
	struct zn_rx_pkt pkts[4];
	uint64_t cookies[4];

	zn_port_rx_burst(p, 0, pkts, 4);	/* this thread owns RX queue 0 */
	zn_port_tx_reap(p, 0, cookies, 4);	/* and TX queue 0 */
	zn_port_rx_burst(p, 0, pkts, 4);
	assert_int_equal(nseen, 0);

	on_other_thread(rx_burst0, p);
	assert_int_equal(nseen, 1);
	assert_int_equal(count("RX queue"), 1);
	on_other_thread(tx_reap0, p);
	assert_int_equal(nseen, 2);
	assert_int_equal(count("TX queue"), 1);

	/* A stopped and restarted port's queues go to the first thread again. */
	zn_port_stop(p);
	assert_int_equal(zn_port_start(p), 0);
	on_other_thread(rx_burst0, p);
	assert_int_equal(nseen, 2);
	zn_port_rx_burst(p, 0, pkts, 4);
	assert_int_equal(count("RX queue"), 2);
}

static void *netif_poll(void *arg)
{
	zn_netif_poll(arg);
	return NULL;
}

static void test_netif(void **state)
{
	struct ndp *n = *state;
	struct zn_netif *nif = zn_netdev_netif(n->b);

	assert_int_equal(ndp_resolve(n, 3000), 0);	/* this thread polls both */
	assert_int_equal(nseen, 0);
	on_other_thread(netif_poll, nif);
	/* The netif first; its poll then enters its queues too. */
	assert_true(nseen >= 1);
	assert_string_equal(seen[0], "netif");
	assert_int_equal(count("netif"), nseen - count("RX queue") - count("TX queue"));
}

static void *ifq_refill(void *arg)
{
	zn_zcrx_ifq_refill(arg);
	return NULL;
}

static void *map_anon(size_t len)
{
	void *p = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	assert_true(p != MAP_FAILED);
	return p;
}

static void test_zcrx_ifq(void **state)
{
	struct ndp *n = *state;
	struct io_uring_params p = {
		.flags = IORING_SETUP_CQE32 | IORING_SETUP_SINGLE_ISSUER | IORING_SETUP_DEFER_TASKRUN,
	};
	struct io_uring_zcrx_area_reg area = { .len = AREA_LEN };
	size_t rq_len = (RQ_ENTRIES * sizeof(struct io_uring_zcrx_rqe) + 2 * PAGE - 1) & ~(PAGE - 1);
	struct io_uring_region_desc region = { .size = rq_len,
					       .flags = IORING_MEM_REGION_TYPE_USER };
	struct io_uring_zcrx_ifq_reg reg = { .if_rxq = 0, .rq_entries = RQ_ENTRIES };
	void *area_mem = map_anon(AREA_LEN), *rq_mem = map_anon(rq_len);
	struct zn_zcrx_ifq *ifq;
	struct zn_uring *r;

	assert_int_equal(zn_uring_create(8, &p, &r), 0);
	area.addr = (uintptr_t)area_mem;
	region.user_addr = (uintptr_t)rq_mem;
	reg.if_idx = (uint32_t)zn_netdev_ifindex(n->a);
	reg.area_ptr = (uintptr_t)&area;
	reg.region_ptr = (uintptr_t)&region;
	assert_int_equal(zn_uring_register_ifq(r, &reg), 0);
	ifq = zn_zcrx_ifq_get(r, reg.zcrx_id);
	assert_non_null(ifq);

	zn_zcrx_ifq_refill(ifq);		/* this thread owns the ifq */
	zn_netdev_poll(n->a);			/* the queue takes area buffers */
	assert_int_equal(nseen, 0);
	on_other_thread(ifq_refill, ifq);
	assert_int_equal(nseen, 1);
	assert_int_equal(count("zcrx ifq"), 1);

	zn_zcrx_ifq_put(ifq);
	zn_uring_destroy(r);
	munmap(rq_mem, rq_len);
	munmap(area_mem, AREA_LEN);
}

/* A SEND on sock from a ring of the calling thread; its CQE's res. */
static int send_on(int sock)
{
	static const char msg[] = "owner";
	struct io_uring ring;
	struct io_uring_cqe *cqe;
	struct io_uring_sqe *sqe;
	int res;

	assert_int_equal(io_uring_queue_init(4, &ring, 0), 0);
	sqe = io_uring_get_sqe(&ring);
	io_uring_prep_send(sqe, sock, msg, sizeof(msg), 0);
	assert_int_equal(io_uring_submit_and_wait(&ring, 1), 1);
	assert_int_equal(io_uring_peek_cqe(&ring, &cqe), 0);
	res = cqe->res;
	io_uring_cqe_seen(&ring, cqe);
	io_uring_queue_exit(&ring);
	return res;
}

static int other_sock, other_res;

static void *send_other(void *arg)
{
	(void)arg;
	other_res = send_on(other_sock);
	return NULL;
}

static void test_socket(void **state)
{
	struct ndp *n = *state;
	struct zn_socket_conf sc = { .local = { 0, htons(4000) },
				     .remote = { n->ip_b, htons(4001) } };
	int fd = zn_udp_socket(n->a, &sc);

	struct io_uring hold;
	struct io_uring_sqe *sqe;

	assert_true(fd > 0);
	assert_int_equal(ndp_resolve(n, 3000), 0);
	/* A ring of this thread holds the socket (a send armed it there):
	 * another thread's ring is told -EBUSY before it touches the socket,
	 * so the owner check never sees it. */
	assert_int_equal(io_uring_queue_init(4, &hold, 0), 0);
	sqe = io_uring_get_sqe(&hold);
	io_uring_prep_send(sqe, fd, "owner", 6, 0);
	assert_int_equal(io_uring_submit_and_wait(&hold, 1), 1);
	other_sock = fd;
	on_other_thread(send_other, NULL);
	assert_int_equal(other_res, -EBUSY);
	assert_int_equal(count("socket"), 0);
	/* Its last ring gone, this thread lets go of the socket and of the
	 * netdev: the other thread takes both over, and that is no violation. */
	io_uring_queue_exit(&hold);
	on_other_thread(send_other, NULL);
	assert_int_equal(other_res, 6);
	assert_int_equal(nseen, 0);
	zn_socket_close(fd);
}

static struct zn_owner child_obj;

static void *enter_child_obj(void *arg)
{
	(void)arg;
	zn_owner_enter(&child_obj, "test object");
	return NULL;
}

/* The default hook: one line on stderr naming the object, then abort(). */
static void test_default_aborts(void **state)
{
	char buf[512] = "";
	int fds[2], status;
	ssize_t len;
	pid_t pid;

	(void)state;
	need_owner();
	assert_int_equal(pipe(fds), 0);
	pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		dup2(fds[1], STDERR_FILENO);
		zn_owner_enter(&child_obj, "test object");
		on_other_thread(enter_child_obj, NULL);		/* aborts */
		_exit(0);
	}
	close(fds[1]);
	len = read(fds[0], buf, sizeof(buf) - 1);
	close(fds[0]);
	assert_int_equal(waitpid(pid, &status, 0), pid);
	assert_true(WIFSIGNALED(status));
	assert_int_equal(WTERMSIG(status), SIGABRT);
	assert_true(len > 0);
	assert_non_null(strstr(buf, "test object entered by a second thread"));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_port_queues, setup, teardown),
		cmocka_unit_test_setup_teardown(test_netif, setup, teardown),
		cmocka_unit_test_setup_teardown(test_zcrx_ifq, setup, teardown),
		cmocka_unit_test_setup_teardown(test_socket, setup, teardown),
		cmocka_unit_test(test_default_aborts),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
