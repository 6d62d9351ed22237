/*
 * netdevs and sockets: bring-up over zn-nicsim bnxt models, ifindex
 * lookup, DMA-map counting, socket handles (as sqe->fd, in the registered
 * files table), the ring binding that polls a netdev, and tear-down in
 * either order (ring first, netdev first).
 */
#include <arpa/inet.h>
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "core/sock/sock.h"
#include "tests/unit/support/netdev_pair.h"
#include "tests/unit/uring_test.h"
#include "zcnic/socket.h"

static int setup(void **state)
{
	struct ndp *n = calloc(1, sizeof(*n));

	if (!n || ndp_open(n, "") < 0) {
		free(n);
		return -1;
	}
	*state = n;
	return 0;
}

static int teardown(void **state)
{
	ndp_close(*state);
	free(*state);
	return 0;
}

static void test_ifindex_and_conf(void **state)
{
	struct ndp *n = *state;
	int ia = zn_netdev_ifindex(n->a), ib = zn_netdev_ifindex(n->b);

	assert_true(ia >= 1 && ib >= 1 && ia != ib);
	assert_ptr_equal(zn_netdev_by_ifindex(ia), n->a);
	assert_ptr_equal(zn_netdev_by_ifindex(ib), n->b);
	assert_null(zn_netdev_by_ifindex(0));
	assert_null(zn_netdev_by_ifindex(ZN_NETDEV_MAX + 1));
	assert_int_equal(zn_netdev_conf(n->a)->nb_rxq, NDP_RXQ);
	assert_int_equal(zn_netdev_conf(n->a)->buf_size, ZN_NETDEV_DFLT_BUF);
	assert_int_equal(zn_netdev_conf(n->a)->mtu, 1500);
}

static void test_bad_conf(void **state)
{
	struct zn_netdev_conf c = { .ip = inet_addr("10.1.1.1"), .prefix_len = 0 };
	struct zn_netdev *d = NULL;

	(void)state;
	assert_int_equal(zn_netdev_open("vfio-user:/nonexistent", &c, &d), -EINVAL);
	c.prefix_len = 24;
	c.rx_ring = 100;
	assert_int_equal(zn_netdev_open("vfio-user:/nonexistent", &c, &d), -EINVAL);
	c.rx_ring = 0;
	assert_true(zn_netdev_open("vfio-user:/nonexistent", &c, &d) < 0);
	assert_null(d);
}

static void test_dma_map_counted(void **state)
{
	struct ndp *n = *state;
	struct zn_dma_region *r;
	uint64_t iova;

	assert_int_equal(zn_dma_region_alloc("t", 65536, -1, ZN_DMA_NO_HUGE, &r), 0);
	assert_int_equal(zn_netdev_iova(n->a, r->va, 64, &iova), -EFAULT);
	assert_int_equal(zn_netdev_dma_map(n->a, r), 0);
	assert_int_equal(zn_netdev_dma_map(n->a, r), 0);
	assert_int_equal(zn_netdev_iova(n->a, (char *)r->va + 100, 64, &iova), 0);
	assert_int_equal(iova, r->iova + 100);
	assert_int_equal(zn_netdev_iova(n->a, (char *)r->va + 65500, 64, &iova), -EFAULT);
	assert_int_equal(zn_netdev_dma_unmap(n->a, r), 0);
	assert_int_equal(zn_netdev_iova(n->a, r->va, 64, &iova), 0);
	assert_int_equal(zn_netdev_dma_unmap(n->a, r), 0);
	assert_int_equal(zn_netdev_iova(n->a, r->va, 64, &iova), -EFAULT);
	assert_int_equal(zn_netdev_dma_unmap(n->a, r), -ENOENT);
	zn_dma_region_free(r);
}

static void test_socket_handles(void **state)
{
	struct ndp *n = *state;
	struct zn_socket_conf c = { .local = { 0, htons(5000) }, .rxq = 1 };
	int fd = zn_udp_socket(n->a, &c), fd2;

	assert_true(fd > 0);
	assert_int_equal(zn_handle_type(fd), ZN_HANDLE_SOCKET);
	assert_non_null(zn_sock_from_handle(fd));
	assert_int_equal(zn_udp_socket(n->a, &c), -EADDRINUSE);
	c.rxq = 7;
	c.local.port = htons(5001);
	assert_int_equal(zn_udp_socket(n->a, &c), -EINVAL);
	assert_int_equal(zn_socket_close(fd), 0);
	assert_int_equal(zn_socket_close(fd), -EBADF);
	assert_null(zn_sock_from_handle(fd));
	c.rxq = 1;
	c.local.port = htons(5000);
	fd2 = zn_udp_socket(n->a, &c);	/* the port is free again */
	assert_true(fd2 > 0);
	assert_int_not_equal(fd2, fd);
	assert_int_equal(zn_socket_close(fd2), 0);
}

static int polls;

static void count_rx(struct zn_sock *s)
{
	struct zn_udp_rx d;

	while (zn_sock_recv(s, &d, 1)) {
		polls++;
		zn_sock_rx_release(s, &d);
	}
}

/* A socket bound to a ring is served inside the ring's wait. */
static void test_ring_binding_polls(void **state)
{
	struct ndp *n = *state;
	struct zn_socket_conf c = { .local = { 0, htons(6000) }, .rxq = 1 };
	struct io_uring ring;
	struct zn_udp_ep *tx;
	struct zn_udp_conf uc = { .local = { 0, htons(6001) }, .no_steer = true };
	struct zn_addr4 dst = { n->ip_a, htons(6000) };
	struct zn_sock *s;
	struct io_uring_cqe *cqe;
	struct __kernel_timespec ts = { .tv_nsec = 2000000 };
	int fd, files[1];

	assert_int_equal(ndp_resolve(n, 3000), 0);
	assert_int_equal(io_uring_queue_init(8, &ring, 0), 0);
	fd = zn_udp_socket(n->a, &c);
	assert_true(fd > 0);
	files[0] = fd;
	assert_int_equal(io_uring_register_files(&ring, files, 1), 0);
	s = zn_sock_from_handle(fd);
	assert_int_equal(zn_sock_bind(s, zn_uring_from_handle(ring.ring_fd)), 0);
	assert_int_equal(zn_sock_bind(s, zn_uring_from_handle(ring.ring_fd)), 0);
	s->rx_serve = count_rx;
	assert_int_equal(zn_udp_open(zn_netdev_netif(n->b), &uc, &tx), 0);
	polls = 0;
	for (int i = 0; i < 5; i++)
		assert_int_equal(zn_udp_send(tx, &dst, NULL, 0, (uint64_t)i), 0);
	for (int i = 0; i < 2000 && polls < 5; i++) {
		zn_netdev_poll(n->b);
		io_uring_wait_cqe_timeout(&ring, &cqe, &ts);
	}
	assert_int_equal(polls, 5);
	zn_udp_close(tx);
	/* ring exit first: the socket is free to bind to another ring */
	io_uring_queue_exit(&ring);
	assert_null(s->ring);
	assert_null(s->rx_serve);
	assert_int_equal(io_uring_queue_init(8, &ring, 0), 0);
	assert_int_equal(zn_sock_bind(s, zn_uring_from_handle(ring.ring_fd)), 0);
	/* netdev close under a live ring: the binding and socket go */
	zn_netdev_close(n->a);
	n->a = NULL;
	assert_null(zn_sock_from_handle(fd));
	assert_int_equal(io_uring_wait_cqe_timeout(&ring, &cqe, &ts), -ETIME);
	io_uring_queue_exit(&ring);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_ifindex_and_conf, setup, teardown),
		cmocka_unit_test(test_bad_conf),
		cmocka_unit_test_setup_teardown(test_dma_map_counted, setup, teardown),
		cmocka_unit_test_setup_teardown(test_socket_handles, setup, teardown),
		cmocka_unit_test_setup_teardown(test_ring_binding_polls, setup, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
