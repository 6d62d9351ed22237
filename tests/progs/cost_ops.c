/* SPDX-License-Identifier: MIT */
/*
 * cost_ops: fixed workloads of the ring's operations for callgrind
 * (scripts/cost.sh): per round, BATCH requests prepared and submitted,
 * then their CQEs reaped, all in this (the application's) thread.
 *
 *   nop        NOP submit and reap
 *   msgring    MSG_RING from one ring to a second ring of this thread
 *              (CQE_SKIP_SUCCESS on the sender, as a real sender would),
 *              the target's CQEs reaped: post to CQE seen by the target
 *   send_zc    UDP SEND_ZC of 64-byte payloads from a registered buffer on
 *              a connected zcnic socket (bnxt model pair, in process):
 *              prep, submit, validation, headers, TX descriptor, doorbell,
 *              then the TX completion, result and notification CQEs
 *   send       UDP SEND (copy) of 64 bytes from a zcnic DMA region
 *   send_user  the same from ordinary memory
 *
 * What callgrind counts are the two noinline functions measured_submit and
 * measured_reap (cost.sh toggles collection on them), called only in the
 * measured rounds: warm-up rounds call the same work directly, so set-up
 * and first-use costs are never collected. Waiting is outside both: for
 * the sends, this thread sleeps until the model's port counter says the
 * batch left the wire (and a little more for its completions), so that
 * the reap finds them all in one pass; a pass that still comes short is
 * counted as an extra poll and reported.
 *
 *   cost_ops MODE [ROUNDS]        (default 16 measured rounds)
 *
 * Prints "cost_ops: MODE: R rounds, N ops, E extra polls".
 */
#include <arpa/inet.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/uio.h>
#include <unistd.h>

#include "liburing.h"
#include "base/clock.h"
#include "tests/unit/support/netdev_pair.h"
#include "zcnic/mem.h"
#include "zcnic/socket.h"

#define BATCH		32u
#define WARMUP		8u
#define PAYLOAD		64u
#define STRIDE		256u
#define PORT_A		5000
#define PORT_B		7000
#define SETTLE_US	2000u			/* after the wire: the completions */
#define WAIT_NS		(60ull * 1000000000ull)	/* generous: valgrind, shared cores */

#define DIE(...) do { fprintf(stderr, "cost_ops: " __VA_ARGS__); fputc('\n', stderr); \
		      exit(1); } while (0)

enum mode { M_NOP, M_MSGRING, M_SEND_ZC, M_SEND, M_SEND_USER };

static const char *const mode_names[] = { "nop", "msgring", "send_zc", "send", "send_user" };

static enum mode mode;
static struct io_uring ring, target;
static struct ndp n;
static int fd = -1;
static uint8_t *buf;
static struct zn_dma_region *src_region;
static uint64_t want_tx, extra_polls;
static unsigned got;		/* CQEs of this round (results + notifications) */

static bool net_mode(void)
{
	return mode == M_SEND_ZC || mode == M_SEND || mode == M_SEND_USER;
}

/* The next SQE, user_data i. */
static inline struct io_uring_sqe *next_sqe(unsigned i)
{
	struct io_uring_sqe *sqe = io_uring_get_sqe(&ring);

	if (!sqe)
		DIE("SQ full");
	sqe->user_data = i;
	return sqe;
}

/* One loop per mode, as an application has: no test of the mode per SQE. */
static void prep_batch(void)
{
	unsigned i;

	switch (mode) {
	case M_NOP:
		for (i = 0; i < BATCH; i++)
			io_uring_prep_nop(next_sqe(i));
		break;
	case M_MSGRING:
		for (i = 0; i < BATCH; i++) {
			struct io_uring_sqe *sqe = next_sqe(i);

			io_uring_prep_msg_ring(sqe, target.ring_fd, 0, i, 0);
			sqe->flags |= IOSQE_CQE_SKIP_SUCCESS;
		}
		break;
	case M_SEND_ZC:
		for (i = 0; i < BATCH; i++)
			io_uring_prep_send_zc_fixed(next_sqe(i), fd, buf + (size_t)i * STRIDE,
						    PAYLOAD, 0, 0, 0);
		break;
	case M_SEND:
	case M_SEND_USER:
		for (i = 0; i < BATCH; i++)
			io_uring_prep_send(next_sqe(i), fd, buf + (size_t)i * STRIDE, PAYLOAD, 0);
		break;
	}
	if (io_uring_submit(&ring) != (int)BATCH)
		DIE("submit");
}

/* Reap what is there; every CQE is checked. */
static void reap(void)
{
	struct io_uring *r = mode == M_MSGRING ? &target : &ring;
	int32_t sent = net_mode() ? (int32_t)PAYLOAD : 0;	/* a result CQE's res */
	struct io_uring_cqe *cqe;
	unsigned head, k = 0;

	if (mode != M_NOP)
		io_uring_get_events(r);	/* the inbox, the netdev's completions */
	io_uring_for_each_cqe(r, head, cqe) {
		int32_t want = cqe->flags & IORING_CQE_F_NOTIF ? 0 : sent;

		if (cqe->res != want || cqe->user_data >= BATCH)
			DIE("CQE ud %llu res %d flags %x", (unsigned long long)cqe->user_data,
			    cqe->res, cqe->flags);
		k++;
	}
	io_uring_cq_advance(r, k);
	got += k;
}

static __attribute__((noinline)) void measured_submit(void)
{
	prep_batch();
}

static __attribute__((noinline)) void measured_reap(void)
{
	reap();
}

static unsigned cqes_per_round(void)
{
	return mode == M_SEND_ZC ? 2 * BATCH : BATCH;
}

/* The batch left A's port: the model is done with it (not collected). */
static void wait_tx(void)
{
	uint64_t end = zn_now_ns() + WAIT_NS;

	want_tx += BATCH;
	while (btc_counter(&n.sim, 0, "port.tx_frames") < want_tx) {
		if (zn_now_ns() > end)
			DIE("the model did not send");
		usleep(200);	/* the model's thread runs (valgrind runs one thread at a time) */
	}
	usleep(SETTLE_US);
}

static void round_once(bool measured)
{
	uint64_t end = zn_now_ns() + WAIT_NS;
	unsigned passes = 0;

	got = 0;
	if (measured)
		measured_submit();
	else
		prep_batch();
	if (net_mode())
		wait_tx();
	while (got < cqes_per_round()) {
		if (zn_now_ns() > end)
			DIE("%u of %u CQEs", got, cqes_per_round());
		if (passes++) {
			if (measured)
				extra_polls++;
			usleep(1000);
		}
		if (measured)
			measured_reap();
		else
			reap();
	}
	if (got != cqes_per_round())
		DIE("%u CQEs, want %u", got, cqes_per_round());
}

static void setup_net(void)
{
	struct iovec iov;

	if (ndp_open(&n, "") || ndp_resolve(&n, 5000))
		DIE("netdev pair");
	fd = zn_udp_socket(n.a, &(struct zn_socket_conf){
		.local = { 0, htons(PORT_A) }, .remote = { n.ip_b, htons(PORT_B) } });
	if (fd <= 0)
		DIE("socket");
	if (mode == M_SEND) {
		if (zn_dma_region_alloc("cost-src", (size_t)BATCH * STRIDE, -1, ZN_DMA_NO_HUGE,
					&src_region))
			DIE("region");
		buf = src_region->va;
	} else {
		buf = aligned_alloc(4096, (size_t)BATCH * STRIDE);
		if (!buf)
			DIE("memory");
	}
	for (size_t i = 0; i < (size_t)BATCH * STRIDE; i++)
		buf[i] = (uint8_t)i;
	iov.iov_base = buf;
	iov.iov_len = (size_t)BATCH * STRIDE;
	if (mode == M_SEND_ZC && io_uring_register_buffers(&ring, &iov, 1))
		DIE("register buffers");
}

int main(int argc, char **argv)
{
	unsigned rounds = argc > 2 ? (unsigned)strtoul(argv[2], NULL, 0) : 16;
	unsigned m;

	for (m = 0; argc > 1 && m < sizeof(mode_names) / sizeof(mode_names[0]); m++)
		if (!strcmp(argv[1], mode_names[m]))
			break;
	if (argc < 2 || m == sizeof(mode_names) / sizeof(mode_names[0]))
		DIE("usage: cost_ops nop|msgring|send_zc|send|send_user [ROUNDS]");
	mode = (enum mode)m;
	if (io_uring_queue_init(4 * BATCH, &ring,
				IORING_SETUP_SINGLE_ISSUER | IORING_SETUP_DEFER_TASKRUN))
		DIE("ring");
	if (mode == M_MSGRING &&
	    io_uring_queue_init(4 * BATCH, &target,
				IORING_SETUP_SINGLE_ISSUER | IORING_SETUP_DEFER_TASKRUN))
		DIE("target ring");
	if (net_mode())
		setup_net();
	for (unsigned r = 0; r < WARMUP; r++)
		round_once(false);
	for (unsigned r = 0; r < rounds; r++)
		round_once(true);
	printf("cost_ops: %s: %u rounds, %u ops, %llu extra polls\n", mode_names[mode], rounds,
	       rounds * BATCH, (unsigned long long)extra_polls);
	if (net_mode())
		zn_socket_close(fd);
	io_uring_queue_exit(&ring);
	if (mode == M_MSGRING)
		io_uring_queue_exit(&target);
	if (net_mode()) {
		ndp_close(&n);
		if (src_region)
			zn_dma_region_free(src_region);
		else
			free(buf);
	}
	return 0;
}
