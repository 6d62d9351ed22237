/* SPDX-License-Identifier: MIT */
/*
 * The afpacket wire: a model port joined to a Linux network interface.
 *
 * Receive: a TPACKET_V3 ring (Linux Documentation/networking/packet_mmap.rst):
 * the kernel fills blocks of frames and hands a block to us by setting
 * TP_STATUS_USER in its descriptor; we deliver every frame in it to the
 * model and give the block back (TP_STATUS_KERNEL). A block is handed over
 * when full or after tp_retire_blk_tov ms, so a lone frame waits at most that.
 * Frames the interface transmits (PACKET_OUTGOING: the host's own traffic)
 * are not for the model and are skipped.
 *
 * A frame the kernel sent with checksum offload (TP_STATUS_CSUMNOTREADY:
 * e.g. from a veth peer) carries only the pseudo-header sum in its UDP/TCP
 * checksum field; a real NIC would have completed it before the wire, so
 * the wire does (RFC 1071 sum from the L4 header to the end of the IP
 * datagram).
 *
 * Transmit: send(2) on the same socket, bound to the interface. A frame the
 * kernel refuses (queue full, interface down) is dropped and counted.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <linux/if_packet.h>
#include <net/ethernet.h>
#include <net/if.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <unistd.h>

#include "sim/log.h"
#include "sim/wire_priv.h"

#define AFP_LOG		"wire"
#define AFP_BLOCK_SIZE	(1u << 18)	/* 256 KiB: many frames, or a few jumbo ones */
#define AFP_BLOCK_NR	8
#define AFP_FRAME_SIZE	(1u << 11)	/* only a sizing hint for TPACKET_V3 */
#define AFP_RETIRE_MS	1		/* a lone frame waits at most this long */
#define AFP_BLOCK_BUDGET 2		/* blocks delivered per poll */

#ifndef PACKET_IGNORE_OUTGOING
#define PACKET_IGNORE_OUTGOING 23	/* Linux 4.20 */
#endif

struct afp {
	struct zn_sim_wire base;
	struct zn_sim_port *port;
	int fd;
	int ifindex;
	char ifname[IF_NAMESIZE];
	uint8_t *ring;
	size_t ring_len;
	unsigned cur;			/* next block to look at */
	uint64_t rx_truncated, rx_outgoing, rx_csum_fixed, tx_errors;
	struct zn_sim_ratelimit rl;
};

static uint16_t be16(const uint8_t *p)
{
	return (uint16_t)(p[0] << 8 | p[1]);
}

static uint32_t sum16(uint32_t s, const uint8_t *p, size_t len)
{
	for (; len >= 2; p += 2, len -= 2)
		s += be16(p);
	if (len)
		s += (uint32_t)p[0] << 8;
	return s;
}

/* Complete a partial UDP/TCP checksum (see the file comment). */
static bool csum_complete(uint8_t *f, size_t len)
{
	size_t l3 = 14, l4, end;
	uint16_t et;
	uint8_t proto;
	unsigned off;
	uint32_t s;
	uint16_t c;

	if (len < 14)
		return false;
	et = be16(f + 12);
	if (et == 0x8100 && len >= 18) {
		et = be16(f + 16);
		l3 = 18;
	}
	if (et == 0x0800) {
		if (len < l3 + 20 || (f[l3] >> 4) != 4)
			return false;
		l4 = l3 + (f[l3] & 0xfu) * 4u;
		end = l3 + be16(f + l3 + 2);
		proto = f[l3 + 9];
	} else if (et == 0x86dd) {
		if (len < l3 + 40)
			return false;
		l4 = l3 + 40;
		end = l4 + be16(f + l3 + 4);
		proto = f[l3 + 6];
	} else {
		return false;
	}
	off = proto == 17 ? 6 : proto == 6 ? 16 : 0;
	if (!off || end > len || l4 + off + 2 > end)
		return false;
	s = sum16(0, f + l4, end - l4);	/* the field holds the pseudo-header sum */
	while (s >> 16)
		s = (s & 0xffff) + (s >> 16);
	c = (uint16_t)~s;
	if (proto == 17 && c == 0)
		c = 0xffff;
	f[l4 + off] = (uint8_t)(c >> 8);
	f[l4 + off + 1] = (uint8_t)c;
	return true;
}

static int afp_tx(struct zn_sim_wire *base, struct zn_sim_port *p, const void *frame, size_t len)
{
	struct afp *w = (struct afp *)base;
	ssize_t n;

	(void)p;
	n = send(w->fd, frame, len, MSG_DONTWAIT);
	if (n == (ssize_t)len)
		return 0;
	w->tx_errors++;
	ZN_SIM_LOG_RL_AT(&w->rl, ZN_SIM_LOG_WARN, AFP_LOG, "%s: frame of %zu bytes not sent: %s",
			 w->ifname, len, n < 0 ? strerror(errno) : "short write");
	return n < 0 && (errno == EMSGSIZE) ? -EMSGSIZE : -ENOBUFS;
}

static unsigned afp_room(const struct zn_sim_wire *base, const struct zn_sim_port *p)
{
	(void)base;
	(void)p;
	/* the kernel queues; a refusal is counted as a drop */
	return ZN_SIM_WIRE_SLOTS;
}

static int deliver_block(struct afp *w, struct tpacket_block_desc *bd)
{
	uint8_t *h = (uint8_t *)bd + bd->hdr.bh1.offset_to_first_pkt;
	uint32_t n = bd->hdr.bh1.num_pkts;
	int work = 0;

	for (uint32_t i = 0; i < n; i++) {
		struct tpacket3_hdr *t = (struct tpacket3_hdr *)h;
		const struct sockaddr_ll *sll = (const struct sockaddr_ll *)
			(h + TPACKET_ALIGN(sizeof(struct tpacket3_hdr)));
		uint8_t *data = h + t->tp_mac;

		if (sll->sll_pkttype == PACKET_OUTGOING) {
			w->rx_outgoing++;
		} else if (t->tp_snaplen != t->tp_len || t->tp_len > ZN_SIM_FRAME_MAX) {
			w->rx_truncated++;
		} else {
			if ((t->tp_status & TP_STATUS_CSUMNOTREADY) && csum_complete(data, t->tp_snaplen))
				w->rx_csum_fixed++;
			w->port->rx_frames++;
			zn_sim_wire_tap_in(w->port, data, t->tp_snaplen);
			if (w->port->rx)
				w->port->rx(w->port->opaque, data, t->tp_snaplen);
			work++;
		}
		if (!t->tp_next_offset)
			break;
		h += t->tp_next_offset;
	}
	return work ? work : 1;
}

static int afp_poll(struct zn_sim_wire *base, uint64_t now_ns, uint64_t *deadline_ns)
{
	struct afp *w = (struct afp *)base;
	int work = 0;

	(void)now_ns;
	(void)deadline_ns;
	for (unsigned b = 0; b < AFP_BLOCK_BUDGET; b++) {
		struct tpacket_block_desc *bd = (struct tpacket_block_desc *)
			(w->ring + (size_t)w->cur * AFP_BLOCK_SIZE);

		if (!(__atomic_load_n(&bd->hdr.bh1.block_status, __ATOMIC_ACQUIRE) & TP_STATUS_USER))
			break;
		work += deliver_block(w, bd);
		/* the frames were consumed before the kernel may refill the block */
		__atomic_store_n(&bd->hdr.bh1.block_status, TP_STATUS_KERNEL, __ATOMIC_RELEASE);
		w->cur = (w->cur + 1) % AFP_BLOCK_NR;
	}
	return work;
}

static int afp_fd(const struct zn_sim_wire *base)
{
	return ((const struct afp *)base)->fd;
}

static void afp_stats(const struct zn_sim_wire *base,
		      void (*emit)(void *ctx, const char *key, uint64_t v), void *ctx)
{
	const struct afp *w = (const struct afp *)base;

	emit(ctx, "rx_frames", w->port->rx_frames);
	emit(ctx, "rx_skipped_outgoing", w->rx_outgoing);
	emit(ctx, "rx_skipped_truncated", w->rx_truncated);
	emit(ctx, "rx_csum_completed", w->rx_csum_fixed);
	emit(ctx, "tx_frames", w->port->tx_frames);
	emit(ctx, "tx_errors", w->tx_errors);
}

static void afp_free(struct zn_sim_wire *base)
{
	struct afp *w = (struct afp *)base;

	ZN_SIM_DEBUG(AFP_LOG, "%s: closed (rx skipped: %llu outgoing, %llu truncated; %llu "
		     "checksums completed; %llu tx errors)", w->ifname,
		     (unsigned long long)w->rx_outgoing, (unsigned long long)w->rx_truncated,
		     (unsigned long long)w->rx_csum_fixed, (unsigned long long)w->tx_errors);
	w->port->wire = NULL;
	if (w->ring)
		munmap(w->ring, w->ring_len);
	if (w->fd >= 0)
		close(w->fd);
	free(w);
}

static const struct zn_sim_wire_ops afp_ops = {
	.tx = afp_tx,
	.room = afp_room,
	.poll = afp_poll,
	.fd = afp_fd,
	.stats = afp_stats,
	.free = afp_free,
};

int zn_sim_wire_afpacket(struct zn_sim_port *p, const char *ifname, struct zn_sim_wire **out,
			 char *err, size_t errlen)
{
	struct tpacket_req3 req = {
		.tp_block_size = AFP_BLOCK_SIZE,
		.tp_block_nr = AFP_BLOCK_NR,
		.tp_frame_size = AFP_FRAME_SIZE,
		.tp_frame_nr = AFP_BLOCK_SIZE / AFP_FRAME_SIZE * AFP_BLOCK_NR,
		.tp_retire_blk_tov = AFP_RETIRE_MS,
	};
	int v3 = TPACKET_V3, one = 1, rc;
	struct packet_mreq mr = { 0 };
	struct sockaddr_ll sll = { 0 };
	const char *step;
	struct afp *w;

	if (p->wire) {
		snprintf(err, errlen, "the port is already wired");
		return -EBUSY;
	}
	if (!ifname || !*ifname || strlen(ifname) >= IF_NAMESIZE) {
		snprintf(err, errlen, "'%s' is not an interface name (1-%d characters)",
			 ifname ? ifname : "", IF_NAMESIZE - 1);
		return -EINVAL;
	}
	w = calloc(1, sizeof(*w));
	if (!w) {
		snprintf(err, errlen, "out of memory");
		return -ENOMEM;
	}
	w->base.ops = &afp_ops;
	w->port = p;
	snprintf(w->ifname, sizeof(w->ifname), "%s", ifname);
	w->ifindex = (int)if_nametoindex(ifname);
	if (!w->ifindex) {
		rc = -errno;
		snprintf(err, errlen, "no network interface '%s' (in this network namespace): %s",
			 ifname, strerror(errno));
		w->fd = -1;
		goto err;
	}
	/* Protocol 0: the socket receives nothing until bind names the
	 * interface, so no other interface's frame slips into the ring. */
	w->fd = socket(AF_PACKET, SOCK_RAW | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	if (w->fd < 0) {
		rc = -errno;
		snprintf(err, errlen, "AF_PACKET socket: %s%s", strerror(errno),
			 errno == EPERM ? " (needs CAP_NET_RAW: run as root)" : "");
		goto err;
	}
	step = "PACKET_VERSION TPACKET_V3";
	if (setsockopt(w->fd, SOL_PACKET, PACKET_VERSION, &v3, sizeof(v3)))
		goto err_sys;
	/* Best effort: the pkttype check below covers older kernels. */
	(void)setsockopt(w->fd, SOL_PACKET, PACKET_IGNORE_OUTGOING, &one, sizeof(one));
	step = "PACKET_RX_RING";
	if (setsockopt(w->fd, SOL_PACKET, PACKET_RX_RING, &req, sizeof(req)))
		goto err_sys;
	w->ring_len = (size_t)AFP_BLOCK_SIZE * AFP_BLOCK_NR;
	w->ring = mmap(NULL, w->ring_len, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_LOCKED, w->fd, 0);
	if (w->ring == MAP_FAILED)
		w->ring = mmap(NULL, w->ring_len, PROT_READ | PROT_WRITE, MAP_SHARED, w->fd, 0);
	step = "mmap of the ring";
	if (w->ring == MAP_FAILED) {
		w->ring = NULL;
		goto err_sys;
	}
	sll.sll_family = AF_PACKET;
	sll.sll_protocol = htons(ETH_P_ALL);
	sll.sll_ifindex = w->ifindex;
	step = "bind";
	if (bind(w->fd, (struct sockaddr *)&sll, sizeof(sll)))
		goto err_sys;
	/* The model has its own MAC: frames to it must not be filtered. */
	mr.mr_ifindex = w->ifindex;
	mr.mr_type = PACKET_MR_PROMISC;
	step = "PACKET_MR_PROMISC";
	if (setsockopt(w->fd, SOL_PACKET, PACKET_ADD_MEMBERSHIP, &mr, sizeof(mr)))
		goto err_sys;
	p->wire = &w->base;
	p->end = 0;
	*out = &w->base;
	ZN_SIM_INFO(AFP_LOG, "%s joined to interface %s (ifindex %d)", p->name ? p->name : "port",
		    ifname, w->ifindex);
	return 0;

err_sys:
	rc = -errno;
	snprintf(err, errlen, "%s on %s: %s", step, ifname, strerror(errno));
err:
	if (w->ring)
		munmap(w->ring, w->ring_len);
	if (w->fd >= 0)
		close(w->fd);
	free(w);
	return rc;
}
