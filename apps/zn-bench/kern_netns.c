/* SPDX-License-Identifier: MIT */
/*
 * zn-bench kernel path: the transports. loopback is 127.0.0.1 in our own
 * namespace. veth is a veth pair znb<pid>a / znb<pid>b between two network
 * namespaces made here, 10.213.<x>.<4y+1>/30 and .<4y+2>/30 (from the pid,
 * so that parallel runs do not collide), MTU 9000 so that 8000-byte
 * datagrams go unfragmented.
 *
 * The namespaces are anonymous (unshare(), held only by our fds and
 * sockets), not named ones under /run/netns: when zn-bench ends in any way,
 * even by SIGKILL, the kernel frees them and deletes the veth pair with
 * them; nothing is ever left in the root namespace. Teardown still deletes
 * the pair explicitly, so that it is gone before we exit. A socket belongs
 * to the namespace its creator was in when it was made, so a thread switches
 * in, makes the socket and switches back; `ip` runs inside a namespace by
 * being spawned from a thread that is in it.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <spawn.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include "kern.h"

#define VETH_NET_HI	213
#define VETH_MTU	"9000"
#define IP_MAX_ARGS	16

extern char **environ;

static int orig_ns = -1, ns_a = -1, ns_b = -1;
static char if_a[16], if_b[16];
static struct in_addr ip_a, ip_b;
static bool veth_failed;
static char veth_note[BENCH_NOTE_LEN];

static int self_ns(void)
{
	int fd = open("/proc/thread-self/ns/net", O_RDONLY | O_CLOEXEC);

	return fd < 0 ? -errno : fd;
}

static int enter(int fd)
{
	return setns(fd, CLONE_NEWNET) ? -errno : 0;
}

/* Runs `ip ARGS...` in the calling thread's namespace; 0 when it exits 0. */
static int run_ip(const char *const *args)
{
	const char *argv[IP_MAX_ARGS + 2] = { "ip" };
	posix_spawn_file_actions_t fa;
	int status, ret;
	unsigned n = 1;
	pid_t pid;

	for (; args[n - 1] && n <= IP_MAX_ARGS; n++)
		argv[n] = args[n - 1];
	argv[n] = NULL;
	posix_spawn_file_actions_init(&fa);
	posix_spawn_file_actions_addopen(&fa, STDOUT_FILENO, "/dev/null", O_WRONLY, 0);
	ret = -posix_spawnp(&pid, "ip", &fa, NULL, (char *const *)argv, environ);
	posix_spawn_file_actions_destroy(&fa);
	if (ret)
		return ret;
	while (waitpid(pid, &status, 0) < 0)
		if (errno != EINTR)
			return -errno;
	return WIFEXITED(status) && !WEXITSTATUS(status) ? 0 : -EIO;
}

/* A new anonymous namespace; the calling thread returns to orig_ns. */
static int new_ns(void)
{
	int fd, ret;

	if (unshare(CLONE_NEWNET))
		return -errno;
	fd = self_ns();
	ret = enter(orig_ns);
	if (ret) {
		if (fd >= 0)
			close(fd);
		return ret;
	}
	return fd;
}

static int ip_in(int ns, const char *const *args)
{
	int ret = enter(ns), back;

	if (ret)
		return ret;
	ret = run_ip(args);
	back = enter(orig_ns);
	return ret ? ret : back;
}

static int veth_up(void)
{
	char peer_ns[64], cidr_a[32], cidr_b[32];
	unsigned pid = (unsigned)getpid();
	int ret;

	snprintf(if_a, sizeof(if_a), "znb%ua", pid);
	snprintf(if_b, sizeof(if_b), "znb%ub", pid);
	ip_a.s_addr = htonl((10u << 24) | (VETH_NET_HI << 16) | ((pid & 0xff) << 8) |
			    (((pid >> 8) % 64) * 4 + 1));
	ip_b.s_addr = htonl(ntohl(ip_a.s_addr) + 1);
	snprintf(cidr_a, sizeof(cidr_a), "%s/30", inet_ntoa(ip_a));
	snprintf(cidr_b, sizeof(cidr_b), "%s/30", inet_ntoa(ip_b));

	orig_ns = self_ns();
	if (orig_ns < 0)
		return orig_ns;
	ns_a = new_ns();
	if (ns_a < 0)
		return ns_a;
	ns_b = new_ns();
	if (ns_b < 0)
		return ns_b;
	snprintf(peer_ns, sizeof(peer_ns), "/proc/%u/fd/%d", pid, ns_b);

	ret = ip_in(ns_a, (const char *const[]){ "link", "add", if_a, "mtu", VETH_MTU, "type",
			"veth", "peer", "name", if_b, "mtu", VETH_MTU, "netns", peer_ns, NULL });
	if (!ret)
		ret = ip_in(ns_a, (const char *const[]){ "addr", "add", cidr_a, "dev", if_a, NULL });
	if (!ret)
		ret = ip_in(ns_a, (const char *const[]){ "link", "set", if_a, "up", NULL });
	if (!ret)
		ret = ip_in(ns_a, (const char *const[]){ "link", "set", "lo", "up", NULL });
	if (!ret)
		ret = ip_in(ns_b, (const char *const[]){ "addr", "add", cidr_b, "dev", if_b, NULL });
	if (!ret)
		ret = ip_in(ns_b, (const char *const[]){ "link", "set", if_b, "up", NULL });
	if (!ret)
		ret = ip_in(ns_b, (const char *const[]){ "link", "set", "lo", "up", NULL });
	return ret;
}

void kern_netns_cleanup(void)
{
	if (ns_a >= 0 && orig_ns >= 0 && if_a[0])
		ip_in(ns_a, (const char *const[]){ "link", "del", if_a, NULL });
	if (ns_a >= 0)
		close(ns_a);
	if (ns_b >= 0)
		close(ns_b);
	if (orig_ns >= 0)
		close(orig_ns);
	ns_a = ns_b = orig_ns = -1;
	if_a[0] = '\0';
}

int kern_net_get(enum bench_transport t, struct kern_net *n, char *note)
{
	int ret;

	switch (t) {
	case BENCH_T_LOOPBACK:
		n->tx_ns = n->rx_ns = -1;
		n->tx_ip.s_addr = n->rx_ip.s_addr = htonl(INADDR_LOOPBACK);
		return 0;
	case BENCH_T_VETH:
		if (veth_failed) {
			snprintf(note, BENCH_NOTE_LEN, "%s", veth_note);
			return -EOPNOTSUPP;
		}
		if (ns_a < 0) {
			ret = veth_up();
			if (ret) {
				snprintf(veth_note, sizeof(veth_note),
					 "veth pair in two namespaces: %s (needs root and iproute2)",
					 strerror(-ret));
				snprintf(note, BENCH_NOTE_LEN, "%s", veth_note);
				kern_netns_cleanup();
				veth_failed = true;
				return -EOPNOTSUPP;
			}
		}
		n->tx_ns = ns_a;
		n->rx_ns = ns_b;
		n->tx_ip = ip_a;
		n->rx_ip = ip_b;
		return 0;
	default:
		snprintf(note, BENCH_NOTE_LEN, "transport %s is not a kernel one",
			 bench_transport_name(t));
		return -EOPNOTSUPP;
	}
}

int kern_socket_in(int ns_fd, int domain, int type, int proto)
{
	int fd, ret;

	if (ns_fd < 0) {
		fd = socket(domain, type | SOCK_CLOEXEC, proto);
		return fd < 0 ? -errno : fd;
	}
	ret = enter(ns_fd);
	if (ret)
		return ret;
	fd = socket(domain, type | SOCK_CLOEXEC, proto);
	ret = fd < 0 ? -errno : 0;
	if (enter(orig_ns)) {
		/* stuck in the wrong namespace: nothing made afterwards would be right */
		if (fd >= 0)
			close(fd);
		return -EIO;
	}
	return ret ? ret : fd;
}
