/*
 * udp_peer: both ends of tests/integration/net_kernel_peer.sh. Prints one
 * line per check, "ok - what" or "not ok - what"; the script numbers them.
 *
 *   udp_peer zcnic SOCK IP/PREFIX PEER_IP NECHO
 *       zcnic's side, on a bnxt port of zn-nicsim ("vfio-user:SOCK") joined
 *       to a veth by the afpacket wire: a netif with IP/PREFIX and a UDP
 *       endpoint on ZN_PORT. Sends HELLO datagrams to PEER_IP:K_PORT (core/net
 *       resolves the peer by ARP), then answers every datagram with one of
 *       the same length and a pattern of its own, until the kernel side says
 *       bye or the time is up. Answers pings meanwhile.
 *   udp_peer kernel MY_IP ZCNIC_IP NECHO
 *       the kernel's side (run inside the namespace): a UDP socket on
 *       MY_IP:K_PORT checks the hellos, then sends NECHO datagrams of sizes
 *       up to the MTU and checks each answer byte for byte; some datagrams
 *       go without a UDP checksum (SO_NO_CHECK).
 *   udp_peer bye ZCNIC_IP     tells zcnic's side to stop
 *
 * Payload patterns: byte 0-3 the sequence number (little endian), then
 * pattern(seq, i); zcnic answers with pattern(seq ^ REPLY_SALT, i).
 */
#include <arpa/inet.h>
#include <errno.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <time.h>
#include <unistd.h>

#include "base/clock.h"
#include "core/net/netif.h"
#include "zcnic/bus.h"
#include "zcnic/log.h"
#include "zcnic/mem.h"
#include "zcnic/net.h"
#include "zcnic/port.h"

#define ZN_PORT		7000
#define K_PORT		9000
#define RUN_SECONDS	90	/* zcnic side: longest life */
#define WAIT_MS		3000	/* kernel side: per answer */
#define HELLO_SEQ	0x48000000u
#define REPLY_SALT	0x5a5a5a5au
#define NSLOT		64
#define SLOT_SIZE	2048
#define BYE		"ZN-BYE"

static const uint32_t hello_len[] = { 1, 100, 1000, 1472 };
static const uint32_t echo_len[] = { 4, 17, 18, 100, 215, 512, 1000, 1400, 1471, 1472 };
#define NHELLO (sizeof(hello_len) / sizeof(hello_len[0]))
#define NSIZES (sizeof(echo_len) / sizeof(echo_len[0]))

static int failures;

static void check(bool ok, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static void check(bool ok, const char *fmt, ...)
{
	va_list ap;

	printf("%s - ", ok ? "ok" : "not ok");
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	printf("\n");
	fflush(stdout);
	failures += !ok;
}

static void fill(uint8_t *p, uint32_t len, uint32_t seq, uint32_t salt)
{
	uint32_t s = seq ^ salt;

	for (uint32_t i = 0; i < len; i++)
		p[i] = (uint8_t)(s * 131u + i * 7u + (i >> 8) + (s >> 8));
	memcpy(p, &seq, len < 4 ? len : 4);
}

static bool matches(const uint8_t *p, uint32_t len, uint32_t seq, uint32_t salt)
{
	uint8_t want[1500];

	if (len > sizeof(want))
		return false;
	fill(want, len, seq, salt);
	return !memcmp(p, want, len);
}

/* ---- zcnic's side ------------------------------------------------------- */

struct zside {
	struct zn_port *p;
	struct zn_netif *nif;
	struct zn_udp_ep *ep;
	struct zn_dma_region *mem;
	bool busy[NSLOT];
	uint32_t inflight;
	uint32_t done_ok, done_bad;
};

/* A send's completion, from inside zn_netif_poll. */
static void tx_done(void *arg, struct zn_udp_ep *ep, uint64_t cookie, int32_t status)
{
	struct zside *z = arg;

	(void)ep;
	if (cookie < NSLOT && z->busy[cookie] && status == 0)
		z->done_ok++;
	else
		z->done_bad++;
	if (cookie < NSLOT)
		z->busy[cookie] = false;
	z->inflight--;
}

/* Send a patterned datagram from a free slot; with_csum: give the VA so
 * that core/net fills the UDP checksum, else it goes without one. */
static int zsend(struct zside *z, const struct zn_addr4 *to, uint32_t seq, uint32_t salt,
		 uint32_t len, bool with_csum)
{
	uint64_t t0 = zn_now_ms();
	uint32_t s;
	int rc;

	for (;;) {
		for (s = 0; s < NSLOT && z->busy[s]; s++)
			;
		if (s < NSLOT)
			break;
		if (zn_now_ms() - t0 > WAIT_MS)
			return -ETIMEDOUT;
		zn_netif_poll(z->nif);
	}
	{
		uint8_t *buf = (uint8_t *)z->mem->va + (size_t)s * SLOT_SIZE;
		struct zn_net_seg seg = { .iova = z->mem->iova + (uint64_t)s * SLOT_SIZE,
					  .va = with_csum ? buf : NULL, .len = len };

		fill(buf, len, seq, salt);
		rc = zn_udp_send(z->ep, to, &seg, 1, s);
	}
	if (rc == 0) {
		z->busy[s] = true;
		z->inflight++;
	}
	return rc;
}

static int zcnic_side(const char *sock, const char *cidr, const char *peer, uint32_t necho)
{
	struct zn_bus_open_opts o = { .timeout_ms = 5000 };
	struct zn_port_conf pc = { .nb_rxq = 2, .nb_txq = 1, .mtu = 1500 };
	struct zn_rxq_conf rq = { .ring_size = 256, .hds_thresh = 0, .hdr_buf_size = 256,
				  .payload_buf_size = 2048, .numa_node = -1 };
	struct zn_txq_conf tq = { .ring_size = 256, .numa_node = -1 };
	struct zn_netif_conf nc = { .nb_rxq = 2, .rxq = { 0, 1 }, .txq = 0, .mtu = 1500 };
	struct zside z = { 0 };
	struct zn_udp_conf uc = { .local = { 0, htons(ZN_PORT) }, .rxq = 1, .tx_done = tx_done,
				  .arg = &z };
	struct zn_addr4 kpeer = { inet_addr(peer), htons(K_PORT) };
	struct zn_netif_stats st;
	char spec[600], ipbuf[32], *slash;
	uint32_t got = 0, bad = 0, wrong_queue = 0, replies = 0, send_err = 0, csum0 = 0;
	uint64_t t0;
	bool bye = false;
	int rc;

	snprintf(ipbuf, sizeof(ipbuf), "%s", cidr);
	slash = strchr(ipbuf, '/');
	if (!slash)
		return 2;
	*slash = '\0';
	nc.ip = inet_addr(ipbuf);
	nc.prefix_len = (uint8_t)atoi(slash + 1);
	snprintf(spec, sizeof(spec), "vfio-user:%s", sock);
	rc = zn_port_open(spec, &o, &z.p);
	if (rc == 0)
		rc = zn_port_configure(z.p, &pc);
	if (rc == 0)
		rc = zn_port_rxq_setup(z.p, 0, &rq);
	if (rc == 0)
		rc = zn_port_rxq_setup(z.p, 1, &rq);
	if (rc == 0)
		rc = zn_port_txq_setup(z.p, 0, &tq);
	if (rc == 0)
		rc = zn_port_start(z.p);
	if (rc == 0)
		rc = zn_dma_region_alloc("udp-peer-tx", NSLOT * SLOT_SIZE, -1, ZN_DMA_NO_HUGE, &z.mem);
	if (rc == 0)
		rc = zn_bus_dma_map(z.p->bus, z.mem);
	if (rc == 0)
		rc = zn_netif_create(z.p, &nc, &z.nif);
	if (rc == 0)
		rc = zn_udp_open(z.nif, &uc, &z.ep);
	check(rc == 0, "zcnic: bnxt port on the afpacket wire, netif %s, UDP endpoint :%u steered "
	      "to RX queue 1 (%s)", cidr, ZN_PORT, rc ? strerror(-rc) : "up");
	if (rc)
		goto out;

	/* zcnic speaks first: its ARP request finds the kernel peer. */
	for (uint32_t i = 0; i < NHELLO; i++) {
		rc = zsend(&z, &kpeer, HELLO_SEQ + i, 0, hello_len[i], true);
		if (rc)
			send_err++;
	}
	t0 = zn_now_ms();
	while (!bye && zn_now_ms() - t0 < RUN_SECONDS * 1000u) {
		struct zn_udp_rx d[32];
		uint32_t n;

		zn_netif_poll(z.nif);
		n = zn_udp_recv(z.ep, d, 32);
		for (uint32_t i = 0; i < n; i++) {
			uint8_t buf[1500];
			uint32_t off = 0, seq = 0;

			for (uint32_t k = 0; k < d[i].nseg && off + d[i].seg[k].len <= sizeof(buf); k++) {
				memcpy(buf + off, zn_udp_rx_data(z.ep, &d[i], k), d[i].seg[k].len);
				off += d[i].seg[k].len;
			}
			zn_udp_rx_release(z.ep, &d[i]);
			if (d[i].len == strlen(BYE) && off == d[i].len && !memcmp(buf, BYE, off)) {
				bye = true;
				continue;
			}
			if (d[i].queue != 1)
				wrong_queue++;
			if (off >= 4)
				memcpy(&seq, buf, 4);
			if (off != d[i].len || off < 4 || !matches(buf, off, seq, 0) ||
			    d[i].src.ip != kpeer.ip || d[i].src.port != kpeer.port) {
				bad++;
				continue;
			}
			got++;
			/* every third answer without a UDP checksum (RFC 768 allows it) */
			rc = zsend(&z, &d[i].src, seq, REPLY_SALT, off, seq % 3 != 2);
			if (rc)
				send_err++;
			else {
				replies++;
				csum0 += seq % 3 == 2;
			}
		}
	}
	/* let the last completions come back */
	for (uint64_t t1 = zn_now_ms(); z.inflight && zn_now_ms() - t1 < WAIT_MS;)
		zn_netif_poll(z.nif);
	zn_netif_stats(z.nif, &st);
	check(bye, "zcnic: the kernel side said bye within %u s", RUN_SECONDS);
	check(st.tx_arp_request >= 1 && st.arp_learned >= 1,
	      "zcnic: the kernel peer resolved by ARP (%llu requests sent, %llu learnt)",
	      (unsigned long long)st.tx_arp_request, (unsigned long long)st.arp_learned);
	check(got == necho && bad == 0,
	      "zcnic: %u of %u datagrams from the kernel received byte-exact (sizes 4-1472), "
	      "%u wrong", got, necho, bad);
	check(wrong_queue == 0, "zcnic: every datagram arrived on RX queue 1 (n-tuple rule), "
	      "%u elsewhere", wrong_queue);
	check(replies == necho && send_err == 0 && z.done_ok == necho + NHELLO && z.done_bad == 0,
	      "zcnic: %u answers + %zu hellos sent (%u without UDP checksum), %u completions with "
	      "status 0, %u other, %u send errors", replies, NHELLO, csum0, z.done_ok, z.done_bad,
	      send_err);
	check(st.rx[ZN_NET_RX_ICMP_ECHO] == st.tx_icmp_reply && st.tx_icmp_reply >= 1,
	      "zcnic: %llu ICMP echo requests, %llu replies",
	      (unsigned long long)st.rx[ZN_NET_RX_ICMP_ECHO],
	      (unsigned long long)st.tx_icmp_reply);
	{
		uint64_t malformed = 0;

		for (unsigned k = ZN_NET_DROP_RUNT; k <= ZN_NET_DROP_UDP_CSUM; k++)
			if (k != ZN_NET_DROP_L2 && k != ZN_NET_DROP_ETHERTYPE &&
			    k != ZN_NET_DROP_NOT_OURS && k != ZN_NET_DROP_ARP)
				malformed += st.rx[k];
		check(malformed == 0 && st.rx[ZN_NET_DROP_NOBUF] == 0 &&
		      st.rx[ZN_NET_DROP_EP_FULL] == 0,
		      "zcnic: no frame from the kernel dropped as malformed, bad checksum, no buffer "
		      "or full list (%llu)", (unsigned long long)malformed);
		for (unsigned k = 0; k < ZN_NET_RX_KINDS; k++)
			if (st.rx[k])
				printf("stat: rx %s %llu\n", zn_net_rx_kind_name(k),
				       (unsigned long long)st.rx[k]);
	}
out:
	zn_netif_destroy(z.nif);
	if (z.mem && z.p)
		zn_bus_dma_unmap(z.p->bus, z.mem);
	zn_port_close(z.p);
	zn_dma_region_free(z.mem);
	return failures ? 1 : 0;
}

/* ---- the kernel's side -------------------------------------------------- */

static int kernel_side(const char *my_ip, const char *zip, uint32_t necho)
{
	struct sockaddr_in me = { .sin_family = AF_INET, .sin_port = htons(K_PORT) };
	struct sockaddr_in z = { .sin_family = AF_INET, .sin_port = htons(ZN_PORT) };
	struct timeval tv = { .tv_sec = 20 };	/* the first hello waits for zcnic's start */
	uint8_t buf[2048], out[1500];
	uint32_t hellos = 0, ok = 0, bad = 0, lost = 0, nocsum = 0;
	int fd, one = 1, zero = 0;

	me.sin_addr.s_addr = inet_addr(my_ip);
	z.sin_addr.s_addr = inet_addr(zip);
	fd = socket(AF_INET, SOCK_DGRAM, 0);
	if (fd < 0 || bind(fd, (struct sockaddr *)&me, sizeof(me)) ||
	    setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv))) {
		check(false, "kernel: UDP socket on %s:%u: %s", my_ip, K_PORT, strerror(errno));
		return 1;
	}
	/* Hellos: zcnic found us by ARP; lengths and bytes as sent. The socket
	 * exists before zcnic starts, so none is lost to timing. */
	for (uint32_t i = 0; i < NHELLO; i++) {
		struct sockaddr_in from;
		socklen_t fl = sizeof(from);
		ssize_t n = recvfrom(fd, buf, sizeof(buf), 0, (struct sockaddr *)&from, &fl);

		if (n < 0)
			break;
		if ((uint32_t)n == hello_len[i] && matches(buf, (uint32_t)n, HELLO_SEQ + i, 0) &&
		    from.sin_addr.s_addr == z.sin_addr.s_addr && from.sin_port == z.sin_port)
			hellos++;
	}
	tv.tv_sec = WAIT_MS / 1000;
	setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
	check(hellos == NHELLO, "kernel: %u of %zu hello datagrams from zcnic byte-exact "
	      "(sizes 1-1472, from %s:%u)", hellos, NHELLO, zip, ZN_PORT);
	for (uint32_t seq = 0; seq < necho; seq++) {
		uint32_t len = echo_len[seq % NSIZES];
		bool no_csum = seq % 4 == 3;
		ssize_t n;

		/* some without a UDP checksum: zcnic must take checksum 0 */
		setsockopt(fd, SOL_SOCKET, SO_NO_CHECK, no_csum ? &one : &zero, sizeof(int));
		nocsum += no_csum;
		fill(out, len, seq, 0);
		if (sendto(fd, out, len, 0, (struct sockaddr *)&z, sizeof(z)) != (ssize_t)len) {
			bad++;
			continue;
		}
		for (;;) {
			n = recv(fd, buf, sizeof(buf), 0);
			if (n < 0) {
				lost++;
				break;
			}
			/* a late answer to an earlier datagram would be counted bad */
			if ((uint32_t)n == len && matches(buf, len, seq, REPLY_SALT))
				ok++;
			else
				bad++;
			break;
		}
	}
	check(ok == necho && bad == 0 && lost == 0,
	      "kernel: %u of %u datagrams (sizes 4-1472, %u sent without checksum) answered "
	      "byte-exact by zcnic, the kernel checked the answers' checksums; %u wrong, %u lost",
	      ok, necho, nocsum, bad, lost);
	close(fd);
	return failures ? 1 : 0;
}

static int bye_side(const char *zip)
{
	struct sockaddr_in z = { .sin_family = AF_INET, .sin_port = htons(ZN_PORT) };
	int fd = socket(AF_INET, SOCK_DGRAM, 0);

	z.sin_addr.s_addr = inet_addr(zip);
	/* a few times: one is enough, but UDP promises nothing */
	for (int i = 0; fd >= 0 && i < 3; i++) {
		sendto(fd, BYE, strlen(BYE), 0, (struct sockaddr *)&z, sizeof(z));
		usleep(50000);
	}
	if (fd >= 0)
		close(fd);
	return 0;
}

int main(int argc, char **argv)
{
	setvbuf(stdout, NULL, _IOLBF, 0);
	if (argc == 6 && !strcmp(argv[1], "zcnic"))
		return zcnic_side(argv[2], argv[3], argv[4], (uint32_t)atoi(argv[5]));
	if (argc == 5 && !strcmp(argv[1], "kernel"))
		return kernel_side(argv[2], argv[3], (uint32_t)atoi(argv[4]));
	if (argc == 3 && !strcmp(argv[1], "bye"))
		return bye_side(argv[2]);
	fprintf(stderr, "usage: udp_peer zcnic SOCK IP/PREFIX PEER_IP NECHO\n"
			"       udp_peer kernel MY_IP ZCNIC_IP NECHO\n"
			"       udp_peer bye ZCNIC_IP\n");
	return 2;
}
