/*
 * RECV_ZC end to end: datagrams from netdev B into a zcrx area on netdev A
 * (zn-nicsim bnxt models on a pair wire), received the way liburing's
 * examples/zcrx.c and apps/zn-recv do it: anonymous-mmap area and refill
 * ring, io_uring_register_ifq, RECV_ZC multishot built with
 * io_uring_prep_rw, one refill entry per data CQE.
 *
 * Every byte is checked in place against the stream of datagrams sent
 * (which datagram, which byte), so order and content are both asserted,
 * and the area's accounting is checked after every step.
 *
 * The RX queue is set up with a 64-entry ring: 127 payload buffers of
 * core/port's pool are posted when the area is swapped in. The bnxt driver
 * restarts the queue at the swap (zn_port_ops.rxq_restart) so that none is
 * received into; most tests here run the port without that op, as a driver
 * that lacks it, so that the frames in those buffers reach RECV_ZC through
 * the copy fallback, which they exercise. test_restart_zero_copy runs the
 * driver as it is.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>
#include <cmocka.h>

#include "core/net/netif.h"
#include "core/port/port_pool.h"
#include "core/zcrx/zcrx_priv.h"
#include "tests/unit/support/netdev_pair.h"
#include "tests/unit/uring_test.h"
#include "zcnic/socket.h"
#include "zcnic/uring.h"
#include "zcnic/zcrx.h"

#define PAGE		4096u
#define RX_RING		64		/* -> 128 AGG slots, 127 pool buffers posted */
#define POOL_POSTED	127
#define PORT_A		5000
#define PORT_B		7000
#define RXQ		1
#define MAX_DGRAMS	2048
#define TX_SLOT		9216u
#define TX_SLOTS	64u		/* sender buffers, used in turn */
#define TX_BATCH	16u		/* datagrams sent before waiting for B's NIC */
#define RQ_ENTRIES	256
#define WAIT_MS		5000		/* bound of every wait that must succeed */
#define UD		0x5a11
#define CQ_DEFAULT	4096

struct fx {
	struct ndp n;
	bool restart;			/* keep the driver's rxq_restart */
	uint32_t tx_done, tx_bad;	/* the sender's completions, and those not sent */
	bool ring_up;
	struct io_uring ring;
	int fd;
	/* zcrx, as the application holds it */
	uint8_t *area;
	size_t area_len;
	void *rq_mem;
	size_t rq_len;
	struct io_uring_zcrx_rq rq;
	uint64_t token;
	uint32_t zcrx_id;
	/* old areas of a ring that exited: unmapped at teardown */
	uint8_t *old_area;
	size_t old_len;
	void *old_rq;
	size_t old_rq_len;
	/* sender on B */
	struct zn_udp_ep *tx;
	struct zn_dma_region *txr;
	/* the stream: what was sent, where the receiver is */
	uint32_t nsent, sizes[MAX_DGRAMS];
	uint64_t sent_bytes;
	uint32_t rx_dg, rx_off;
	uint64_t rx_bytes, data_cqes;
	uint64_t rx_base;		/* rx_bytes before this ring's area */
	/* the current request */
	bool armed;
	int finals, final_res;
	uint64_t req_bytes;
	/* refill policy */
	bool auto_refill;
	unsigned bad_every;		/* > 0: an invalid entry after every nth valid one */
	unsigned bad_kind, nvalid;
	uint64_t bad_sent[ZN_ZCRX_RQE_ERRS];
	/* CQEs not yet returned (auto_refill off) */
	uint64_t held_off[MAX_DGRAMS * 4];
	uint32_t nheld;
};

static void dump(struct fx *f, const char *what);
static uint64_t rx_drops(struct fx *f, uint64_t want);

static uint8_t pat(uint32_t dg, uint32_t j)
{
	return (uint8_t)(dg * 251u + j * 31u + (j >> 8) + 1u);
}

static struct zn_uring *zr(struct fx *f)
{
	return zn_uring_from_handle(f->ring.ring_fd);
}

static void *map_anon(size_t len)
{
	void *p = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	assert_true(p != MAP_FAILED);
	return p;
}

/* The accounting invariant and the area's own recount. */
static void check_acct(struct fx *f, struct zn_zcrx_stats *out)
{
	struct zn_zcrx_stats st;
	struct zn_zcrx_ifq *ifq;

	assert_int_equal(zn_zcrx_get_stats(zr(f), f->zcrx_id, &st), 0);
	assert_int_equal(st.free + st.nic + st.stack + st.user, st.nbufs);
	assert_int_equal(st.nbufs, f->area_len / PAGE);
	assert_int_equal(st.bad_puts, 0);
	ifq = zn_zcrx_ifq_get(zr(f), f->zcrx_id);
	assert_non_null(ifq);
	assert_int_equal(zn_zcrx_area_check(&ifq->area), 0);
	zn_zcrx_ifq_put(ifq);
	if (out)
		*out = st;
}

static void setup_ring(struct fx *f, unsigned cq_entries, size_t area_len)
{
	struct io_uring_params p;
	struct io_uring_zcrx_area_reg area;
	struct io_uring_region_desc region;
	struct io_uring_zcrx_ifq_reg reg;

	memset(&p, 0, sizeof(p));
	p.flags = IORING_SETUP_CQE32 | IORING_SETUP_SINGLE_ISSUER | IORING_SETUP_DEFER_TASKRUN;
	/* default: room for every CQE of a test (zcrx CQEs never overflow) */
	p.flags |= IORING_SETUP_CQSIZE;
	p.cq_entries = cq_entries ? cq_entries : CQ_DEFAULT;
	assert_int_equal(io_uring_queue_init_params(8, &f->ring, &p), 0);
	f->ring_up = true;
	f->area_len = area_len;
	f->area = map_anon(area_len);
	/* liburing's examples/zcrx.c: one page of header, then the entries */
	f->rq_len = (RQ_ENTRIES * sizeof(struct io_uring_zcrx_rqe) + PAGE + PAGE - 1) & ~(PAGE - 1);
	f->rq_mem = map_anon(f->rq_len);
	memset(&area, 0, sizeof(area));
	memset(&region, 0, sizeof(region));
	memset(&reg, 0, sizeof(reg));
	area.addr = (uintptr_t)f->area;
	area.len = area_len;
	region.user_addr = (uintptr_t)f->rq_mem;
	region.size = f->rq_len;
	region.flags = IORING_MEM_REGION_TYPE_USER;
	reg.if_idx = (uint32_t)zn_netdev_ifindex(f->n.a);
	reg.if_rxq = RXQ;
	reg.rq_entries = RQ_ENTRIES;
	reg.area_ptr = (uintptr_t)&area;
	reg.region_ptr = (uintptr_t)&region;
	assert_int_equal(io_uring_register_ifq(&f->ring, &reg), 0);
	f->zcrx_id = reg.zcrx_id;
	f->token = area.rq_area_token;
	f->rq.khead = (uint32_t *)((char *)f->rq_mem + reg.offsets.head);
	f->rq.ktail = (uint32_t *)((char *)f->rq_mem + reg.offsets.tail);
	f->rq.rqes = (struct io_uring_zcrx_rqe *)((char *)f->rq_mem + reg.offsets.rqes);
	f->rq.rq_tail = 0;
	f->rq.ring_entries = reg.rq_entries;
	f->rq.ring_ptr = f->rq_mem;
	f->armed = false;
	check_acct(f, NULL);
}

static void tx_done_cb(void *arg, struct zn_udp_ep *ep, uint64_t cookie, int32_t status)
{
	struct fx *f = arg;

	(void)ep;
	(void)cookie;
	f->tx_done++;
	f->tx_bad += status != 0;
}

/* A's driver without rxq_restart: provider swaps take effect as it refills. */
static void drop_restart(struct zn_port *p)
{
	static struct zn_port_ops ops;

	ops = *p->ops;
	ops.rxq_restart = NULL;
	p->ops = &ops;
}

/* The pair, the socket on A (queue 1), the sender on B. */
static void fx_open(struct fx *f, uint32_t mtu)
{
	struct zn_udp_conf uc = { .local = { 0, htons(PORT_B) }, .no_steer = true,
				  .tx_done = tx_done_cb, .arg = f };

	assert_int_equal(ndp_open_ex(&f->n, "", mtu, RX_RING), 0);
	if (!f->restart)
		drop_restart(zn_netdev_port(f->n.a));
	assert_int_equal(ndp_resolve(&f->n, 3000), 0);
	f->fd = zn_udp_socket(f->n.a, &(struct zn_socket_conf){
		.local = { 0, htons(PORT_A) }, .rxq = RXQ });
	assert_true(f->fd > 0);
	assert_int_equal(zn_udp_open(zn_netdev_netif(f->n.b), &uc, &f->tx), 0);
	assert_int_equal(zn_dma_region_alloc("zcrx-test-tx", (size_t)TX_SLOT * TX_SLOTS, -1,
					     ZN_DMA_NO_HUGE, &f->txr), 0);
	assert_int_equal(zn_netdev_dma_map(f->n.b, f->txr), 0);
}

/* fx_open, then a ring with an ifq. */
static void fx_start(struct fx *f, uint32_t mtu, unsigned cq_entries, size_t area_len)
{
	fx_open(f, mtu);
	f->auto_refill = true;
	setup_ring(f, cq_entries, area_len);
}

static int setup(void **state)
{
	struct fx *f = calloc(1, sizeof(*f));

	if (!f)
		return -1;
	f->fd = -1;
	*state = f;
	return 0;
}

static int teardown(void **state)
{
	struct fx *f = *state;

	if (f->ring_up)
		io_uring_queue_exit(&f->ring);
	if (f->fd > 0)
		zn_socket_close(f->fd);
	if (f->tx)
		zn_udp_close(f->tx);
	if (f->txr && f->n.b)
		zn_netdev_dma_unmap(f->n.b, f->txr);
	if (f->n.a || f->n.b)
		ndp_close(&f->n);
	/* every area is released at netdev close at the latest */
	assert_int_equal(zn_zcrx_areas_pending(), 0);
	if (f->txr)
		zn_dma_region_free(f->txr);
	if (f->area)
		munmap(f->area, f->area_len);
	if (f->rq_mem)
		munmap(f->rq_mem, f->rq_len);
	if (f->old_area)
		munmap(f->old_area, f->old_len);
	if (f->old_rq)
		munmap(f->old_rq, f->old_rq_len);
	free(f);
	return 0;
}

static void arm(struct fx *f, uint32_t len)
{
	struct io_uring_sqe *sqe = io_uring_get_sqe(&f->ring);

	assert_non_null(sqe);
	assert_false(f->armed);
	io_uring_prep_rw(IORING_OP_RECV_ZC, sqe, f->fd, NULL, len, 0);
	sqe->ioprio |= IORING_RECV_MULTISHOT;
	sqe->zcrx_ifq_idx = f->zcrx_id;
	sqe->user_data = UD;
	f->armed = true;
	f->req_bytes = 0;
	assert_int_equal(io_uring_submit(&f->ring), 1);
}

/* Room in the refill ring: zcnic consumes entries in every ring pass. */
static void rq_push(struct fx *f, uint64_t off, uint32_t len, uint32_t pad)
{
	uint32_t mask = f->rq.ring_entries - 1;
	struct io_uring_zcrx_rqe *rqe;

	for (int i = 0; i < 1000 && f->rq.rq_tail - io_uring_smp_load_acquire(f->rq.khead) >=
					   f->rq.ring_entries; i++)
		io_uring_get_events(&f->ring);
	assert_true(f->rq.rq_tail - io_uring_smp_load_acquire(f->rq.khead) < f->rq.ring_entries);
	rqe = &f->rq.rqes[f->rq.rq_tail & mask];
	rqe->off = off;
	rqe->len = len;
	rqe->__pad = pad;
	f->rq.rq_tail++;
}

static void rq_publish(struct fx *f)
{
	io_uring_smp_store_release(f->rq.ktail, f->rq.rq_tail);
}

/* An invalid entry of the next kind in turn; valid_off is a buffer just returned. */
static void push_bad(struct fx *f, uint64_t valid_off)
{
	unsigned k = f->bad_kind++ % ZN_ZCRX_RQE_ERRS;
	uint64_t nb = f->area_len / PAGE;

	switch (k) {
	case ZN_ZCRX_RQE_OUTSIDE:
		rq_push(f, f->token | (nb + 3) * PAGE, 1, 0);
		break;
	case ZN_ZCRX_RQE_AREA:
		rq_push(f, (valid_off & ~IORING_ZCRX_AREA_MASK) | (1ull << IORING_ZCRX_AREA_SHIFT), 1, 0);
		break;
	case ZN_ZCRX_RQE_NOT_HELD:
		/* the same buffer again, in the same publication: returned twice */
		rq_push(f, valid_off, 1, 0);
		break;
	case ZN_ZCRX_RQE_PAD:
		rq_push(f, valid_off, 1, 1);
		break;
	}
	f->bad_sent[k]++;
}

static void give_back(struct fx *f, uint64_t zoff, uint32_t len)
{
	uint64_t off = (zoff & ~IORING_ZCRX_AREA_MASK) | f->token;

	rq_push(f, off, len, 0);
	f->nvalid++;
	/* a bad entry with pad or area set must come before the valid one's buffer is reused;
	 * a NOT_HELD one after it: both hold within one publication */
	if (f->bad_every && f->nvalid % f->bad_every == 0)
		push_bad(f, off);
	rq_publish(f);
}

/* Return every held CQE. */
static void give_back_held(struct fx *f)
{
	for (uint32_t i = 0; i < f->nheld; i++)
		give_back(f, f->held_off[i], 1);
	f->nheld = 0;
}

static void handle_cqe(struct fx *f, const struct io_uring_cqe *cqe)
{
	const struct io_uring_zcrx_cqe *z = (const struct io_uring_zcrx_cqe *)(cqe + 1);

	assert_int_equal(cqe->user_data, UD);
	assert_true(f->armed);
	if (!(cqe->flags & IORING_CQE_F_MORE)) {
		assert_true(cqe->res <= 0);
		f->armed = false;
		f->finals++;
		f->final_res = cqe->res;
		return;
	}
	{
		uint64_t off = z->off & ~IORING_ZCRX_AREA_MASK;
		uint32_t len = (uint32_t)cqe->res;
		const uint8_t *p = f->area + off;

		assert_true(cqe->res > 0);
		assert_int_equal(cqe->flags, IORING_CQE_F_MORE);
		assert_int_equal(z->off >> IORING_ZCRX_AREA_SHIFT, 0);
		assert_int_equal(z->__pad, 0);
		/* one buffer per CQE, inside the area */
		assert_true(off + len <= f->area_len);
		assert_true((off & (PAGE - 1)) + len <= PAGE);
		for (uint32_t i = 0; i < len; i++) {
			while (f->rx_dg < f->nsent && f->rx_off == f->sizes[f->rx_dg]) {
				f->rx_dg++;
				f->rx_off = 0;
			}
			assert_true(f->rx_dg < f->nsent);
			if (p[i] != pat(f->rx_dg, f->rx_off)) {
				dump(f, "mismatch");
				fail_msg("datagram %u byte %u: 0x%02x, want 0x%02x (CQE off %llu)",
					 f->rx_dg, f->rx_off, p[i], pat(f->rx_dg, f->rx_off),
					 (unsigned long long)off);
			}
			f->rx_off++;
		}
		f->rx_bytes += len;
		f->req_bytes += len;
		f->data_cqes++;
		if (f->auto_refill) {
			give_back(f, z->off, len);
		} else {
			assert_true(f->nheld < MAX_DGRAMS * 4);
			f->held_off[f->nheld++] = z->off;
		}
	}
}

/* Reap every CQE there is. */
static unsigned reap(struct fx *f)
{
	struct io_uring_cqe *cqe;
	unsigned head, n = 0;

	io_uring_for_each_cqe(&f->ring, head, cqe) {
		handle_cqe(f, cqe);
		n++;
	}
	io_uring_cq_advance(&f->ring, n);
	return n;
}

/* Run the ring (and reap) until `bytes` received in total or the request ended. */
static void pump_until(struct fx *f, uint64_t bytes, bool stop_at_final)
{
	uint64_t end = urt_now_ns() + WAIT_MS * 1000000ull;

	while (urt_now_ns() < end) {
		struct __kernel_timespec ts = { .tv_nsec = 1000000 };
		struct io_uring_cqe *cqe;

		io_uring_submit_and_wait_timeout(&f->ring, &cqe, 1, &ts, NULL);
		reap(f);
		if (f->rx_bytes >= bytes)
			return;
		if (stop_at_final && !f->armed)
			return;
	}
}

/* Let the ring run for ms without reaping. */
static void run_ms(struct fx *f, unsigned ms)
{
	uint64_t end = urt_now_ns() + ms * 1000000ull;

	while (urt_now_ns() < end)
		io_uring_get_events(&f->ring);
}

/*
 * Send count datagrams of the sizes in turn from B and wait until B's NIC
 * sent them; the ring on A runs meanwhile (reaping if reap).
 */
static void send_dgrams(struct fx *f, uint32_t count, const uint32_t *sizes, uint32_t nsizes,
			bool reap_too)
{
	struct zn_addr4 dst = { f->n.ip_a, htons(PORT_A) };

	for (uint32_t done = 0; done < count;) {
		uint32_t batch = count - done < TX_BATCH ? count - done : TX_BATCH, got = 0;
		uint64_t end = urt_now_ns() + WAIT_MS * 1000000ull;
		uint32_t done0 = f->tx_done;

		for (uint32_t i = 0; i < batch; i++) {
			uint32_t dg = f->nsent, size = sizes[dg % nsizes];
			uint8_t *buf = (uint8_t *)f->txr->va + (size_t)(dg % TX_SLOTS) * TX_SLOT;

			assert_true(dg < MAX_DGRAMS);
			for (uint32_t j = 0; j < size; j++)
				buf[j] = pat(dg, j);
			assert_int_equal(zn_udp_send_buf(f->tx, &dst, buf, size, dg), 0);
			f->sizes[dg] = size;
			f->nsent++;
			f->sent_bytes += size;
		}
		while (got < batch && urt_now_ns() < end) {
			zn_netdev_poll(f->n.b);
			assert_int_equal(f->tx_bad, 0);
			got = f->tx_done - done0;
			if (f->ring_up) {
				io_uring_get_events(&f->ring);
				if (reap_too)
					reap(f);
			}
		}
		assert_int_equal(got, batch);
		done += batch;
		/* paced: the NIC's 127 posted buffers never run out while A catches up */
		if (reap_too && f->auto_refill && f->armed)
			pump_until(f, f->sent_bytes, true);
	}
}

static void send_same(struct fx *f, uint32_t count, uint32_t size, bool reap_too)
{
	send_dgrams(f, count, &size, 1, reap_too);
}

static void dump(struct fx *f, const char *what)
{
	struct zn_zcrx_stats st;
	struct zn_queue_stats qs;

	zn_zcrx_get_stats(zr(f), f->zcrx_id, &st);
	zn_port_rxq_stats(zn_netdev_port(f->n.a), RXQ, &qs);
	print_message("%s: rx %llu/%llu bytes dg %u/%u cqes %llu armed %d finals %d res %d | "
		      "free %u nic %u stack %u user %u copies %llu zc %llu refill_ok %llu "
		      "short %llu | q pkts %llu drops %llu\n", what,
		      (unsigned long long)f->rx_bytes, (unsigned long long)f->sent_bytes, f->rx_dg,
		      f->nsent, (unsigned long long)f->data_cqes, f->armed, f->finals, f->final_res,
		      st.free, st.nic, st.stack, st.user, (unsigned long long)st.copies,
		      (unsigned long long)st.zc_bytes, (unsigned long long)st.refill_ok,
		      (unsigned long long)st.alloc_short, (unsigned long long)qs.packets,
		      (unsigned long long)qs.drops);
}

/* After everything came back: nothing with the user or the stack. */
static void check_all_back(struct fx *f)
{
	struct zn_zcrx_stats st;

	run_ms(f, 20);		/* the refill ring is read in every pass */
	check_acct(f, &st);
	assert_int_equal(st.user, 0);
	assert_int_equal(st.user_refs, 0);
	assert_int_equal(st.stack, 0);
	assert_int_equal(st.refill_ok, f->data_cqes);
	assert_int_equal(st.cqes, f->data_cqes);
	assert_int_equal(st.zc_bytes + st.copy_bytes, f->rx_bytes - f->rx_base);
	/* what is not free is posted to the NIC (its AGG ring holds at most 127) */
	assert_true(st.nic <= POOL_POSTED);
	assert_int_equal(st.free + st.nic, st.nbufs);
}

static void recv_sizes(struct fx *f, const uint32_t *sizes, uint32_t nsizes, uint32_t count)
{
	struct zn_zcrx_stats st;
	uint32_t min_cqes = 0;

	arm(f, 0);
	send_dgrams(f, count, sizes, nsizes, true);
	pump_until(f, f->sent_bytes, true);
	assert_int_equal(f->rx_bytes, f->sent_bytes);
	assert_int_equal(f->rx_dg, f->nsent - 1);
	assert_int_equal(f->rx_off, f->sizes[f->nsent - 1]);
	assert_true(f->armed);			/* multishot: still armed */
	assert_int_equal(f->finals, 0);
	for (uint32_t i = 0; i < count; i++)
		min_cqes += (f->sizes[i] + PAGE - 1) / PAGE;
	assert_true(f->data_cqes >= min_cqes);
	assert_int_equal(rx_drops(f, 0), 0);
	check_all_back(f);
	check_acct(f, &st);
	/* the frames in the pool's buffers were copied, the later ones were not */
	assert_int_equal(st.copies, POOL_POSTED);
	assert_true(st.zc_bytes > 0);
	print_message("copies %llu (%llu bytes), zero-copy %llu bytes, CQEs %llu\n",
		      (unsigned long long)st.copies, (unsigned long long)st.copy_bytes,
		      (unsigned long long)st.zc_bytes, (unsigned long long)st.cqes);
}

/* 1, 100, 1472 bytes at MTU 1500: more frames than the pool had posted. */
static void test_sizes_1500(void **state)
{
	struct fx *f = *state;
	const uint32_t sizes[] = { 1, 100, 1472 };

	fx_start(f, 0, 0, 1 << 20);
	recv_sizes(f, sizes, 3, 300);
}

/* MTU 9000: 4000 and 8972 bytes span buffers; some 1472 in between. */
static void test_sizes_jumbo(void **state)
{
	struct fx *f = *state;
	const uint32_t sizes[] = { 4000, 8972, 1472, 8972 };

	fx_start(f, 9000, 0, 4 << 20);
	recv_sizes(f, sizes, 4, 300);
}

/* Let the ring run for ms, reaping. */
static void pump_ms(struct fx *f, unsigned ms)
{
	uint64_t end = urt_now_ns() + ms * 1000000ull;

	while (urt_now_ns() < end) {
		struct __kernel_timespec ts = { .tv_nsec = 1000000 };
		struct io_uring_cqe *cqe;

		io_uring_submit_and_wait_timeout(&f->ring, &cqe, 1, &ts, NULL);
		reap(f);
	}
}

/* Re-arm (len 0) until everything sent arrived; rounds bounded. */
static void recv_rest(struct fx *f)
{
	for (int i = 0; i < 200 && f->rx_bytes < f->sent_bytes; i++) {
		if (!f->armed) {
			give_back_held(f);
			arm(f, 0);
		}
		pump_until(f, f->sent_bytes, true);
	}
	assert_int_equal(f->rx_bytes, f->sent_bytes);
}

/*
 * Past core/port's pool buffers: what follows lands in the area. Paced, 4
 * datagrams at a time, so that a small area never leaves the NIC without
 * buffers.
 */
static void send_paced(struct fx *f, uint32_t count, uint32_t size)
{
	for (uint32_t i = 0; i < count; i += 4) {
		send_same(f, count - i < 4 ? count - i : 4, size, true);
		pump_until(f, f->sent_bytes, false);
		assert_int_equal(f->rx_bytes, f->sent_bytes);
	}
}

static void warm_up(struct fx *f)
{
	if (!f->armed)
		arm(f, 0);
	send_paced(f, POOL_POSTED + 40, 1000);
	check_all_back(f);
}

static uint64_t rx_drops_now(struct fx *f)
{
	struct zn_queue_stats qs;

	assert_int_equal(zn_port_rxq_stats(zn_netdev_port(f->n.a), RXQ, &qs), 0);
	return qs.drops;
}

/* The NIC's drop counter reaches the driver every 250 ms: wait for want. */
static uint64_t rx_drops(struct fx *f, uint64_t want)
{
	uint64_t end = urt_now_ns() + 1000 * 1000000ull, d;

	while ((d = rx_drops_now(f)) != want && urt_now_ns() < end)
		usleep(10000);
	return d;
}

/* K datagrams to a plain endpoint on queue RXQ, received and checked:
 * the queue has been receiving into (and cycling) the pool's buffers. */
static void receive_plain(struct fx *f, uint32_t k, uint32_t size)
{
	struct zn_udp_conf uc = { .local = { 0, htons(PORT_A + 1) }, .rxq = RXQ };
	struct zn_addr4 dst = { f->n.ip_a, htons(PORT_A + 1) };
	uint8_t *buf = f->txr->va;
	struct zn_udp_ep *ep;
	uint32_t got = 0;

	assert_int_equal(zn_udp_open(zn_netdev_netif(f->n.a), &uc, &ep), 0);
	for (uint32_t i = 0; i < k; i++) {
		uint64_t end = urt_now_ns() + WAIT_MS * 1000000ull;
		uint32_t done0 = f->tx_done;
		struct zn_udp_rx d;

		for (uint32_t j = 0; j < size; j++)
			buf[j] = pat(i + 7777, j);
		assert_int_equal(zn_udp_send_buf(f->tx, &dst, buf, size, i), 0);
		while ((f->tx_done == done0 || zn_udp_rx_pending(ep) == 0) &&
		       urt_now_ns() < end) {
			zn_netdev_poll(f->n.b);
			zn_netdev_poll(f->n.a);
		}
		assert_int_equal(f->tx_done, done0 + 1);
		assert_int_equal(zn_udp_recv(ep, &d, 1), 1);
		assert_int_equal(d.len, size);
		for (uint32_t sg = 0, off = 0; sg < d.nseg; off += d.seg[sg].len, sg++) {
			const uint8_t *p = zn_udp_rx_data(ep, &d, sg);

			for (uint32_t j = 0; j < d.seg[sg].len; j++)
				assert_int_equal(p[j], pat(i + 7777, off + j));
		}
		zn_udp_rx_release(ep, &d);
		got++;
	}
	assert_int_equal(got, k);
	assert_int_equal(f->tx_bad, 0);
	zn_udp_close(ep);
}

/*
 * rxq_restart: an ifq registered on a queue that has been receiving. The
 * port restarts the queue at the swap, so the pool's posted buffers come
 * back at once and every datagram after the registration lands in the
 * area: none copied, every byte checked. Unregistering restarts it again:
 * the area's buffers come back with the ring's exit.
 */
static void test_restart_zero_copy(void **state)
{
	static const uint32_t sizes[] = { 1000, 1472, 1, 600 };
	struct fx *f = *state;
	struct zn_zcrx_stats st;
	struct zn_port *pa;
	uint32_t avail0, count = 2 * POOL_POSTED + 50;

	f->restart = true;
	fx_open(f, 0);
	pa = zn_netdev_port(f->n.a);
	receive_plain(f, POOL_POSTED + 30, 1000);	/* past one turn of the ring */
	avail0 = zn_port_rxq_pool_avail(pa, RXQ);
	assert_int_not_equal(avail0, UINT32_MAX);
	f->auto_refill = true;
	setup_ring(f, 0, 1 << 20);
	/* every pool buffer the NIC held is back; the area's are posted */
	assert_int_equal(zn_port_rxq_pool_avail(pa, RXQ), avail0 + POOL_POSTED);
	check_acct(f, &st);
	assert_int_equal(st.nic, POOL_POSTED);

	arm(f, 0);
	for (uint32_t i = 0; i < count; i += 4) {
		send_dgrams(f, count - i < 4 ? count - i : 4, sizes, 4, true);
		pump_until(f, f->sent_bytes, false);
		assert_int_equal(f->rx_bytes, f->sent_bytes);
	}
	assert_int_equal(f->rx_dg, f->nsent - 1);
	assert_int_equal(f->rx_off, f->sizes[f->nsent - 1]);
	assert_int_equal(rx_drops(f, 0), 0);
	check_all_back(f);
	check_acct(f, &st);
	assert_int_equal(st.copies, 0);
	assert_int_equal(st.copy_bytes, 0);
	assert_int_equal(st.zc_bytes, f->sent_bytes);
	assert_int_equal(zn_port_rxq_pool_avail(pa, RXQ), avail0 + POOL_POSTED);
	print_message("%u datagrams, %llu bytes: all zero copy, %llu CQEs\n", f->nsent,
		      (unsigned long long)st.zc_bytes, (unsigned long long)st.cqes);

	/* unregistering restarts the queue: the area is released at once, and
	 * the pool posts as many buffers as before the registration */
	io_uring_queue_exit(&f->ring);
	f->ring_up = false;
	assert_int_equal(zn_zcrx_areas_pending(), 0);
	assert_int_equal(zn_port_rxq_pool_avail(pa, RXQ), avail0);
	receive_plain(f, 40, 1472);
	assert_int_equal(zn_port_rxq_pool_avail(pa, RXQ), avail0);
}

/*
 * Area exhausted by the copy fallback (the first frames sit in pool
 * buffers): -ENOMEM; the data stays and comes, in order, once buffers
 * are returned.
 */
static void test_area_exhausted_copy(void **state)
{
	struct fx *f = *state;
	struct zn_zcrx_stats st;

	fx_start(f, 0, 0, 64 << 10);	/* 16 buffers */
	f->auto_refill = false;
	arm(f, 0);
	send_same(f, 40, 1000, false);
	pump_until(f, f->sent_bytes, true);
	assert_false(f->armed);
	assert_int_equal(f->finals, 1);
	assert_int_equal(f->final_res, -ENOMEM);
	assert_true(f->data_cqes > 0 && f->data_cqes < 40);
	check_acct(f, &st);
	assert_int_equal(st.copies, f->data_cqes);
	assert_int_equal(st.user, f->nheld);
	assert_int_equal(st.user_refs, f->nheld);
	assert_int_equal(st.free, 0);
	recv_rest(f);
	give_back_held(f);
	assert_int_equal(rx_drops(f, 0), 0);
	check_all_back(f);
}

/*
 * IORING_REGISTER_ZCRX_CTRL, ZCRX_CTRL_FLUSH_RQ: the refill ring is consumed
 * at once, with no ring pass; Linux's argument errors.
 */
static void test_ctrl_flush_rq(void **state)
{
	struct fx *f = *state;
	struct zn_zcrx_stats st;
	struct zcrx_ctrl ctrl;

	fx_start(f, 0, 0, 64 << 10);
	f->auto_refill = false;
	arm(f, 0);
	send_same(f, 8, 1000, false);
	pump_until(f, f->sent_bytes, false);
	check_acct(f, &st);
	assert_true(f->nheld > 0);
	assert_int_equal(st.user, f->nheld);
	/* published, not yet read: the next pass would */
	give_back_held(f);
	check_acct(f, &st);
	assert_int_equal(st.user, f->data_cqes);
	memset(&ctrl, 0, sizeof(ctrl));
	ctrl.op = ZCRX_CTRL_FLUSH_RQ;
	assert_int_equal(io_uring_register(f->ring.ring_fd, IORING_REGISTER_ZCRX_CTRL, &ctrl, 1),
			 -EINVAL);
	ctrl.zcrx_id = 7;
	assert_int_equal(io_uring_register_zcrx_ctrl(&f->ring, &ctrl), -ENXIO);
	ctrl.zcrx_id = 0;
	ctrl.__resv[1] = 1;
	assert_int_equal(io_uring_register_zcrx_ctrl(&f->ring, &ctrl), -EFAULT);
	ctrl.__resv[1] = 0;
	ctrl.zc_flush.__resv[5] = 1;
	assert_int_equal(io_uring_register_zcrx_ctrl(&f->ring, &ctrl), -EINVAL);
	ctrl.zc_flush.__resv[5] = 0;
	assert_int_equal(io_uring_register_zcrx_ctrl(&f->ring, &ctrl), 0);
	check_acct(f, &st);
	assert_int_equal(st.user, 0);
	assert_int_equal(st.refill_ok, f->data_cqes);
	ctrl.op = ZCRX_CTRL_EXPORT;
	assert_int_equal(io_uring_register_zcrx_ctrl(&f->ring, &ctrl), -EOPNOTSUPP);
	ctrl.op = 99;
	assert_int_equal(io_uring_register_zcrx_ctrl(&f->ring, &ctrl), -EOPNOTSUPP);
	f->auto_refill = true;
	recv_rest(f);
	check_all_back(f);
}

/*
 * Area exhausted on the zero-copy path: the NIC runs out of buffers and
 * drops (counted); RECV_ZC stays armed; returned buffers restart it.
 */
static void test_area_exhausted_nic(void **state)
{
	struct fx *f = *state;
	struct zn_zcrx_stats st;
	uint64_t drops0, cqes0;
	uint32_t first, got;

	fx_start(f, 0, 0, 64 << 10);
	warm_up(f);
	drops0 = rx_drops(f, 0);
	cqes0 = f->data_cqes;
	f->auto_refill = false;
	first = f->nsent;
	send_same(f, 40, 1000, true);
	pump_ms(f, 100);
	got = (uint32_t)(f->data_cqes - cqes0);
	/* the NIC had every buffer but the copy reserve (a quarter of 16) */
	assert_int_equal(got, 12);
	assert_true(f->armed);
	assert_int_equal(f->finals, 0);
	check_acct(f, &st);
	assert_int_equal(st.user, got);
	assert_int_equal(st.nic, 0);
	/* every datagram not delivered was dropped by the NIC for want of a buffer */
	assert_int_equal(rx_drops(f, drops0 + 40 - got) - drops0, 40 - got);
	for (uint32_t i = first + got; i < f->nsent; i++) {
		f->sent_bytes -= f->sizes[i];
		f->sizes[i] = 0;
	}
	assert_int_equal(f->rx_bytes, f->sent_bytes);
	f->auto_refill = true;
	give_back_held(f);
	/* the buffers go back to the NIC in the ring's next passes: sending
	 * before they are posted would have the NIC drop again */
	for (uint64_t end = urt_now_ns() + WAIT_MS * 1000000ull; urt_now_ns() < end;) {
		pump_ms(f, 1);
		check_acct(f, &st);
		if (st.nic >= got)
			break;
	}
	assert_true(st.nic >= got);
	pump_ms(f, 20);		/* and the model saw the doorbell */
	send_paced(f, 40, 1000);
	assert_int_equal(rx_drops(f, drops0 + 40 - got) - drops0, 40 - got);
	check_all_back(f);
}

/* CQ full: -ENOSPC, nothing lost, re-armed requests get the rest in order. */
static void test_cq_full(void **state)
{
	struct fx *f = *state;
	struct zn_zcrx_stats st;
	int enospc = 0;

	fx_start(f, 0, 16, 1 << 20);
	arm(f, 0);
	send_same(f, 40, 1000, false);
	run_ms(f, 50);
	assert_int_equal(io_uring_cq_ready(&f->ring), 16);
	pump_until(f, f->sent_bytes, true);
	assert_false(f->armed);
	assert_int_equal(f->final_res, -ENOSPC);
	assert_int_equal(f->data_cqes, 16);
	check_acct(f, &st);
	assert_int_equal(st.cqes, 16);
	for (int i = 0; i < 200 && f->rx_bytes < f->sent_bytes; i++) {
		if (!f->armed) {
			enospc += f->final_res == -ENOSPC;
			arm(f, 0);
		}
		pump_until(f, f->sent_bytes, true);
	}
	assert_int_equal(f->rx_bytes, f->sent_bytes);
	assert_true(enospc >= 1);
	assert_int_equal(rx_drops(f, 0), 0);
	check_all_back(f);
}

static void recv_len(struct fx *f, uint32_t len)
{
	uint64_t before = f->rx_bytes;

	arm(f, len);
	pump_until(f, UINT64_MAX, true);
	assert_false(f->armed);
	assert_int_equal(f->final_res, 0);
	assert_int_equal(f->req_bytes, len);
	assert_int_equal(f->rx_bytes - before, len);
	check_acct(f, NULL);
}

/* len: the final CQE (0) after exactly len bytes; the rest follows. */
static void test_len_limit(void **state)
{
	struct fx *f = *state;
	int round;

	fx_start(f, 0, 0, 1 << 20);
	for (round = 0; round < 2; round++) {
		uint64_t base;

		if (round)
			warm_up(f);	/* second round: zero-copy */
		if (f->armed) {
			/* end the multishot request of the warm-up with a len one after it */
			zn_socket_close(f->fd);
			pump_until(f, UINT64_MAX, true);
			assert_int_equal(f->final_res, -ECANCELED);
			f->fd = zn_udp_socket(f->n.a, &(struct zn_socket_conf){
				.local = { 0, htons(PORT_A) }, .rxq = RXQ });
			assert_true(f->fd > 0);
		}
		base = f->rx_bytes;
		send_same(f, 10, 1000, false);
		recv_len(f, 2500);	/* 1000 + 1000 + 500 */
		recv_len(f, 1700);	/* 500 + 1000 + 200 */
		recv_len(f, 1);
		arm(f, 0);
		pump_until(f, f->sent_bytes, false);
		assert_int_equal(f->rx_bytes - base, 10000);
		assert_int_equal(f->rx_bytes, f->sent_bytes);
		check_all_back(f);
	}
}

/* Invalid refill entries among valid ones: counted per reason, the valid recycle. */
static void test_bad_refills(void **state)
{
	struct fx *f = *state;
	struct zn_zcrx_stats st;
	const uint32_t sizes[] = { 1000, 64, 1472 };

	fx_start(f, 0, 0, 1 << 20);
	f->bad_every = 1;
	arm(f, 0);
	send_dgrams(f, 300, sizes, 3, true);
	pump_until(f, f->sent_bytes, false);
	assert_int_equal(f->rx_bytes, f->sent_bytes);
	check_all_back(f);
	check_acct(f, &st);
	for (int k = 0; k < ZN_ZCRX_RQE_ERRS; k++) {
		assert_true(f->bad_sent[k] > 0);
		assert_int_equal(st.refill_invalid[k], f->bad_sent[k]);
	}
	assert_int_equal(st.refill_ok, f->data_cqes);
}

/*
 * Ring exit with RECV_ZC armed and buffers held: the area waits for the
 * NIC's buffers, the queue takes a new ring's area at once, and the old
 * area is released as the NIC uses its buffers up.
 */
static void test_ring_exit(void **state)
{
	struct fx *f = *state;
	struct zn_zcrx_stats st;

	fx_start(f, 0, 0, 1 << 20);
	f->auto_refill = false;
	arm(f, 0);
	send_same(f, POOL_POSTED + 40, 1000, true);
	pump_until(f, f->sent_bytes, false);
	assert_int_equal(f->rx_bytes, f->sent_bytes);
	check_acct(f, &st);
	assert_int_equal(st.user, f->nheld);
	assert_true(st.nic > 0);
	assert_int_equal(zn_zcrx_areas_pending(), 0);
	io_uring_queue_exit(&f->ring);
	f->ring_up = false;
	assert_int_equal(zn_zcrx_areas_pending(), 1);
	f->old_area = f->area;
	f->old_len = f->area_len;
	f->old_rq = f->rq_mem;
	f->old_rq_len = f->rq_len;
	f->area = NULL;
	f->rq_mem = NULL;
	f->nheld = 0;
	f->auto_refill = true;
	setup_ring(f, 0, 1 << 20);
	f->data_cqes = 0;
	f->rx_base = f->rx_bytes;
	arm(f, 0);
	send_same(f, POOL_POSTED + 40, 1000, true);
	pump_until(f, f->sent_bytes, false);
	assert_int_equal(f->rx_bytes, f->sent_bytes);
	assert_int_equal(zn_zcrx_areas_pending(), 0);
	check_all_back(f);
}

/* Socket close with RECV_ZC armed: -ECANCELED; held buffers still go back. */
static void test_socket_close(void **state)
{
	struct fx *f = *state;

	fx_start(f, 0, 0, 1 << 20);
	f->auto_refill = false;
	arm(f, 0);
	send_same(f, 5, 1000, true);
	pump_until(f, f->sent_bytes, false);
	assert_int_equal(f->rx_bytes, 5000);
	assert_int_equal(zn_socket_close(f->fd), 0);
	pump_until(f, UINT64_MAX, true);
	assert_false(f->armed);
	assert_int_equal(f->finals, 1);
	assert_int_equal(f->final_res, -ECANCELED);
	f->fd = -1;
	give_back_held(f);
	check_all_back(f);
}

/*
 * Bad RECV_ZC SQEs on a ring with a live ifq (reference/uring.md 1.6, the
 * kernel's io_recvzc_prep): each one CQE, no F_MORE, the exact error; the
 * ifq is untouched and a good request still works afterwards.
 */
static void test_bad_sqes(void **state)
{
	struct fx *f = *state;
	struct zn_zcrx_stats st;
	struct io_uring_cqe cqe;
	enum { N = 9 };
	static const int want[N] = { -EINVAL, -EINVAL, -EINVAL, -EINVAL, -EINVAL, -EINVAL,
				     -EINVAL, -ENOTSOCK, -EBADF };

	fx_start(f, 0, 0, 1 << 20);
	for (unsigned i = 0; i < N; i++) {
		struct io_uring_sqe *sqe = io_uring_get_sqe(&f->ring);

		assert_non_null(sqe);
		io_uring_prep_rw(IORING_OP_RECV_ZC, sqe, f->fd, NULL, 0, 0);
		sqe->ioprio |= IORING_RECV_MULTISHOT;
		sqe->zcrx_ifq_idx = f->zcrx_id;
		sqe->user_data = 100 + i;
		switch (i) {
		case 0: sqe->ioprio = 0; break;				/* not multishot */
		case 1: sqe->ioprio |= 1u << 5; break;			/* unknown ioprio bit */
		case 2: sqe->addr = 0x1000; break;
		case 3: sqe->off = 8; break;
		case 4: sqe->addr3 = 1; break;
		case 5: sqe->msg_flags = MSG_DONTWAIT; break;
		case 6: sqe->zcrx_ifq_idx = f->zcrx_id + 7; break;	/* no such ifq */
		case 7: sqe->fd = f->ring.ring_fd; break;		/* a handle, not a socket */
		case 8: sqe->fd = 0; break;				/* an OS fd, not a handle */
		}
		/* one by one: without SUBMIT_ALL a failing SQE ends its batch */
		assert_int_equal(io_uring_submit(&f->ring), 1);
		assert_int_equal(urt_get_cqe(&f->ring, &cqe, WAIT_MS), 0);
		assert_int_equal(cqe.user_data, 100 + i);
		assert_int_equal(cqe.res, want[i]);
		assert_int_equal(cqe.flags & IORING_CQE_F_MORE, 0);
	}
	assert_int_equal(io_uring_cq_ready(&f->ring), 0);
	assert_int_equal(zn_zcrx_get_stats(zn_uring_from_handle(f->ring.ring_fd), f->zcrx_id,
					   &st), 0);
	assert_int_equal(st.cqes, 0);
	assert_int_equal(st.free + st.nic + st.stack + st.user, st.nbufs);
	/* the ifq still serves a good request */
	arm(f, 0);
	send_paced(f, 8, 100);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_bad_sqes, setup, teardown),
		cmocka_unit_test_setup_teardown(test_sizes_1500, setup, teardown),
		cmocka_unit_test_setup_teardown(test_sizes_jumbo, setup, teardown),
		cmocka_unit_test_setup_teardown(test_area_exhausted_copy, setup, teardown),
		cmocka_unit_test_setup_teardown(test_restart_zero_copy, setup, teardown),
		cmocka_unit_test_setup_teardown(test_area_exhausted_nic, setup, teardown),
		cmocka_unit_test_setup_teardown(test_ctrl_flush_rq, setup, teardown),
		cmocka_unit_test_setup_teardown(test_cq_full, setup, teardown),
		cmocka_unit_test_setup_teardown(test_len_limit, setup, teardown),
		cmocka_unit_test_setup_teardown(test_bad_refills, setup, teardown),
		cmocka_unit_test_setup_teardown(test_ring_exit, setup, teardown),
		cmocka_unit_test_setup_teardown(test_socket_close, setup, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
