/*
 * sim/wire_afpacket: a model port joined to a Linux interface. The test
 * moves itself into a network namespace of its own (unshare) and uses its
 * loopback interface, which hands every frame sent on it back as received:
 * frames a port sends arrive at another port on the same interface byte
 * for byte; frames the kernel sends with checksum offload (a UDP socket
 * on 127.0.0.1) arrive with their checksum completed; bad arguments fail
 * with the errno and message documented; a frame the interface's MTU does
 * not allow is dropped and counted. Skipped without CAP_SYS_ADMIN.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <net/if.h>
#include <sched.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>
#include <cmocka.h>

#include "base/clock.h"
#include "sim/log.h"
#include "sim/wire.h"
#include "zcnic/net.h"

#define WAIT_NS	(2ull * 1000000000ull)

struct end {
	struct zn_sim_port port;
	unsigned got;
	uint8_t f[16][ZN_SIM_FRAME_MAX];
	size_t len[16];
};

static bool netns_ok;

static void rx(void *opaque, const void *frame, size_t len)
{
	struct end *e = opaque;

	if (e->got < 16) {
		memcpy(e->f[e->got], frame, len);
		e->len[e->got] = len;
	}
	e->got++;
}

struct counter {
	const char *key;
	uint64_t v;
};

static void get_counter(void *ctx, const char *key, uint64_t v)
{
	struct counter *c = ctx;

	if (!strcmp(key, c->key))
		c->v = v;
}

static uint64_t counter(const struct zn_sim_wire *w, const char *key)
{
	struct counter c = { key, UINT64_MAX };

	zn_sim_wire_stats(w, get_counter, &c);
	assert_int_not_equal(c.v, UINT64_MAX);
	return c.v;
}

static void init(struct end *e, const char *name)
{
	memset(e, 0, sizeof(*e));
	e->port.name = name;
	e->port.rx = rx;
	e->port.opaque = e;
}

static void pump(struct zn_sim_wire **w, unsigned nw, struct end *e, unsigned want)
{
	uint64_t t0 = zn_now_ns(), dl = UINT64_MAX;

	while (e->got < want && zn_now_ns() - t0 < WAIT_NS)
		for (unsigned i = 0; i < nw; i++)
			zn_sim_wire_poll(w[i], 0, &dl);
}

static int group_setup(void **state)
{
	struct ifreq ifr = { 0 };
	int fd;

	(void)state;
	zn_sim_log_configure("err");
	if (unshare(CLONE_NEWNET))
		return 0;	/* netns_ok stays false: the tests skip */
	fd = socket(AF_INET, SOCK_DGRAM, 0);
	snprintf(ifr.ifr_name, sizeof(ifr.ifr_name), "lo");
	if (fd >= 0 && !ioctl(fd, SIOCGIFFLAGS, &ifr)) {
		ifr.ifr_flags |= IFF_UP;
		netns_ok = !ioctl(fd, SIOCSIFFLAGS, &ifr);
		/* an Ethernet-sized MTU, so that a jumbo frame is refused */
		ifr.ifr_mtu = 1500;
		netns_ok = netns_ok && !ioctl(fd, SIOCSIFMTU, &ifr);
	}
	if (fd >= 0)
		close(fd);
	return 0;
}

static void test_frames_cross_the_interface(void **state)
{
	static struct end a, b;
	struct zn_sim_wire *w[2];
	char err[256];
	uint8_t f[1514];

	(void)state;
	if (!netns_ok)
		skip();
	init(&a, "a");
	init(&b, "b");
	assert_int_equal(zn_sim_wire_afpacket(&a.port, "lo", &w[0], err, sizeof(err)), 0);
	assert_int_equal(zn_sim_wire_afpacket(&b.port, "lo", &w[1], err, sizeof(err)), 0);
	assert_true(zn_sim_wire_fd(w[0]) >= 0);
	for (unsigned i = 0; i < 3; i++) {
		size_t len = i == 2 ? sizeof(f) : 60 + i;

		memset(f, 0, 12);
		f[0] = 0x02;
		f[5] = (uint8_t)i;
		f[6] = 0x02;
		f[12] = 0x88;	/* a local experimental ethertype (IEEE 802 0x88b5) */
		f[13] = 0xb5;
		for (size_t k = 14; k < len; k++)
			f[k] = (uint8_t)(k * 3 + i);
		assert_int_equal(zn_sim_port_tx(&a.port, f, len), 0);
	}
	assert_int_equal(a.port.tx_frames, 3);
	pump(w, 2, &b, 3);
	assert_int_equal(b.got, 3);
	for (unsigned i = 0; i < 3; i++) {
		size_t len = i == 2 ? sizeof(f) : 60 + i;

		assert_int_equal(b.len[i], len);
		assert_int_equal(b.f[i][5], i);
		assert_int_equal(b.f[i][len - 1], (uint8_t)((len - 1) * 3 + i));
	}
	assert_int_equal(b.port.rx_frames, 3);
	assert_int_equal(counter(w[1], "rx_frames"), 3);
	/* lo hands the sender its own frames back too; the kernel's copies of
	 * what we sent are skipped as outgoing */
	assert_int_equal(counter(w[0], "tx_frames"), 3);
	/* a frame longer than the interface takes is dropped and counted */
	{
		static uint8_t big[9000];

		memcpy(big, f, 14);
		assert_int_equal(zn_sim_port_tx(&a.port, big, sizeof(big)), -EMSGSIZE);
		assert_int_equal(a.port.tx_dropped, 1);
	}
	zn_sim_wire_free(w[0]);
	zn_sim_wire_free(w[1]);
	assert_null(a.port.wire);
	assert_int_equal(zn_sim_port_tx(&a.port, f, 60), -ENOTCONN);
}

/* The kernel's UDP over loopback leaves the checksum to "hardware": the
 * wire completes it, as a NIC would have before the frame hit the wire. */
static void test_partial_checksum_completed(void **state)
{
	static struct end a;
	struct zn_sim_wire *w;
	struct sockaddr_in to = { .sin_family = AF_INET, .sin_port = htons(5555) };
	char err[256];
	int fd;
	const char msg[] = "an odd-length payload, 43 bytes long......";

	(void)state;
	if (!netns_ok)
		skip();
	init(&a, "a");
	assert_int_equal(zn_sim_wire_afpacket(&a.port, "lo", &w, err, sizeof(err)), 0);
	to.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	fd = socket(AF_INET, SOCK_DGRAM, 0);
	assert_true(fd >= 0);
	assert_int_equal(sendto(fd, msg, strlen(msg), 0, (struct sockaddr *)&to, sizeof(to)),
			 (ssize_t)strlen(msg));
	pump(&w, 1, &a, 1);
	close(fd);
	assert_true(a.got >= 1);
	for (unsigned i = 0; i < a.got && i < 16; i++) {
		const uint8_t *f = a.f[i];
		uint32_t src, dst;
		uint16_t c;

		if (a.len[i] < 42 || f[12] != 0x08 || f[13] != 0 || f[23] != 17)
			continue;
		assert_int_equal(a.len[i], 42 + strlen(msg));
		memcpy(&src, f + 26, 4);
		memcpy(&dst, f + 30, 4);
		c = zn_udp_csum(src, dst, f + 34, f + 42, strlen(msg), NULL, 0);
		assert_memory_equal(&c, f + 40, 2);
		/* it was the wire that filled it in */
		assert_true(counter(w, "rx_csum_completed") >= 1);
		zn_sim_wire_free(w);
		return;
	}
	fail_msg("no UDP frame came through");
}

static void test_bad_arguments(void **state)
{
	static struct end a, b;
	struct zn_sim_wire *w, *w2;
	char err[256];

	(void)state;
	init(&a, "a");
	init(&b, "b");
	assert_int_equal(zn_sim_wire_afpacket(&a.port, "", &w, err, sizeof(err)), -EINVAL);
	assert_int_equal(zn_sim_wire_afpacket(&a.port, "a-name-longer-than-15", &w, err,
					      sizeof(err)), -EINVAL);
	assert_non_null(strstr(err, "not an interface name"));
	assert_int_equal(zn_sim_wire_afpacket(&a.port, "zn-nosuch0", &w, err, sizeof(err)), -ENODEV);
	assert_non_null(strstr(err, "no network interface 'zn-nosuch0'"));
	assert_int_equal(zn_sim_wire_pair(&a.port, &b.port, &w), 0);
	assert_int_equal(zn_sim_wire_afpacket(&a.port, "lo", &w2, err, sizeof(err)), -EBUSY);
	assert_int_equal(zn_sim_wire_fd(w), -1);	/* a pair has no fd */
	zn_sim_wire_free(w);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_frames_cross_the_interface),
		cmocka_unit_test(test_partial_checksum_completed),
		cmocka_unit_test(test_bad_arguments),
	};

	return cmocka_run_group_tests(tests, group_setup, NULL);
}
