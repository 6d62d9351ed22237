/* SPDX-License-Identifier: MIT */
/*
 * zn_env_netdev (include/zcnic/bsd.h): the netdevs $ZN_NETDEVS names,
 * brought up once, and what a bad list gives; then the BSD calls on them.
 */
#include <errno.h>
#include <netinet/in.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>
#include <cmocka.h>

#include "tests/unit/support/bnxt_test_client.h"
#include "zcnic/bsd.h"

/* In a child: the env is read once per process. */
static int child_env(const char *list)
{
	pid_t pid = fork();
	int st;

	if (pid == 0) {
		setenv("ZN_NETDEVS", list, 1);
		if (zn_env_netdev(0) || errno != EINVAL)
			_exit(1);
		if (zn_env_netdev(0) || errno != EINVAL)	/* the failure is kept */
			_exit(2);
		errno = 0;
		if (zn_socket(AF_INET, SOCK_DGRAM, 0) != -1 || errno != EINVAL)
			_exit(3);
		_exit(0);
	}
	if (pid < 0 || waitpid(pid, &st, 0) != pid || !WIFEXITED(st))
		return -1;
	return WEXITSTATUS(st);
}

static void test_bad_lists(void **state)
{
	(void)state;
	assert_int_equal(child_env("vfio-user:/nonexistent.sock"), 0);	/* no @IP/LEN */
	assert_int_equal(child_env("vfio-user:/x.sock@10.0.0.1/99"), 0);	/* bad prefix */
	assert_int_equal(child_env("a@10.0.0.1/24,b@10.0.0.2/24,c@10.0.0.3/24"), 0);
}

static void test_two_netdevs(void **state)
{
	static struct btc_sim sim;
	char list[256];
	struct zn_netdev *a, *b;
	struct sockaddr_in sa = { .sin_family = AF_INET };
	socklen_t len = sizeof(sa);
	int l, c, s;

	(void)state;
	assert_int_equal(btc_sim_start(&sim, "", "", true), 0);
	snprintf(list, sizeof(list), "vfio-user:%s@10.0.0.1/24,vfio-user:%s@10.0.0.2/24",
		 sim.path[0], sim.path[1]);
	setenv("ZN_NETDEVS", list, 1);
	setenv("ZN_NETDEV_MTU", "4000", 1);
	a = zn_env_netdev(0);
	b = zn_env_netdev(1);
	assert_non_null(a);
	assert_non_null(b);
	assert_ptr_equal(zn_env_netdev(0), a);		/* once */
	assert_int_not_equal(zn_netdev_ifindex(a), zn_netdev_ifindex(b));
	assert_int_equal(zn_netdev_conf(a)->ip, htonl(0x0a000001));
	assert_int_equal(zn_netdev_conf(b)->prefix_len, 24);
	assert_int_equal(zn_netdev_conf(b)->mtu, 4000);
	errno = 0;
	assert_null(zn_env_netdev(2));
	assert_int_equal(errno, ENODEV);

	/* a connection between them, from this thread */
	l = zn_socket(AF_INET, SOCK_STREAM, 0);
	sa.sin_addr.s_addr = zn_netdev_conf(a)->ip;
	assert_int_equal(zn_bind(l, (struct sockaddr *)&sa, sizeof(sa)), 0);
	assert_int_equal(zn_listen(l, 4), 0);
	assert_int_equal(zn_getsockname(l, (struct sockaddr *)&sa, &len), 0);
	c = zn_socket(AF_INET, SOCK_STREAM, 0);
	assert_int_equal(zn_connect(c, (struct sockaddr *)&sa, sizeof(sa)), 0);
	s = zn_accept(l, NULL, NULL);
	assert_true(s > 0);
	assert_int_equal(zn_send(c, "ping", 4, 0), 4);
	{
		char buf[8] = { 0 };

		assert_int_equal(zn_recv(s, buf, sizeof(buf), 0), 4);
		assert_memory_equal(buf, "ping", 4);
	}
	assert_int_equal(zn_shutdown(c, SHUT_WR), 0);
	zn_socket_close(s);
	zn_socket_close(c);
	zn_socket_close(l);
	/* the netdevs close at exit, before the process's simulator goes */
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_bad_lists),
		cmocka_unit_test(test_two_netdevs),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
