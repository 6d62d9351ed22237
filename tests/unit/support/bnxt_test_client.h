/* SPDX-License-Identifier: MIT */
/*
 * A minimal bnxt "driver" for testing the device model (sim/bnxt) through
 * the real vfio-user client (zn_bus_open) and DMA memory (core/mem), built
 * from drivers/bnxt/bnxt_hw.h and hw-docs/bnxt.md alone: it sends HWRM
 * commands, allocates rings and rings doorbells by hand, so that tests can
 * also send what a correct driver never would.
 *
 * And an in-process zn-nicsim: bnxt devices on a loop thread, optionally
 * joined by a pair wire.
 *
 * Every wait is bounded (BTC_TIMEOUT_MS).
 */
#ifndef ZCNIC_TEST_BNXT_TEST_CLIENT_H
#define ZCNIC_TEST_BNXT_TEST_CLIENT_H

#include <pthread.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "drivers/bnxt/bnxt_hw.h"
#include "sim/model.h"
#include "sim/wire.h"
#include "zcnic/bus.h"
#include "zcnic/mem.h"

#define BTC_TIMEOUT_MS		3000
#define BTC_MEM_LEN		(8u << 20)
#define BTC_STATS_LEN		sizeof(struct bnxt_ctx_hw_stats)

/* ---- in-process zn-nicsim ---- */

struct btc_sim {
	char dir[64];
	char path[2][96];
	struct zn_sim_device *dev[2];
	unsigned ndev;
	struct zn_sim_wire *wire;
	struct zn_vfu_loop *loop;
	pthread_t thread;
	bool running;
};

/* Devices "bnxt0=bnxt<opts0>" and, with opts1 non-NULL, "bnxt1=bnxt<opts1>"
 * (opts: "" or ",key=val,..."), joined by a pair wire if wire. 0 or -1. */
int btc_sim_start(struct btc_sim *s, const char *opts0, const char *opts1, bool wire);
void btc_sim_stop(struct btc_sim *s);
/* A model counter of device i ("rx_frames", "port.tx_frames", ...); aborts
 * the test if there is no such key. */
uint64_t btc_counter(struct btc_sim *s, unsigned i, const char *key);

/* ---- the client ---- */

struct btc_ring {
	uint8_t type;		/* BNXT_RING_TYPE_* */
	uint16_t id;
	uint32_t size;
	uint8_t *va;
	uint64_t iova;
	int dpi;		/* -1: the legacy doorbell */
	uint32_t prod, cons;	/* raw indices, the driver's side */
};

struct btc {
	struct zn_bus_dev *bus;
	struct zn_dma_region *mem;
	size_t brk;
	uint8_t *bar2;		/* BAR2 mapping (DPI pages), may be NULL */
	uint8_t *resp;
	uint8_t *req;		/* short command buffer */
	uint16_t seq;
	bool multidb;		/* FUNC_QCAPS said so, and FUNC_QCFG agreed */
	uint32_t next_dpi, end_dpi;
	uint8_t mac[6];
	uint16_t resp_len;	/* of the last response */
	bool window32;		/* write the request window with 32-bit stores */
	bool force_short;	/* send every request as a short command */
};

int btc_open(struct btc *c, const char *sock_path);
void btc_close(struct btc *c);
/* Bump allocation in the client's DMA region (zeroed); NULL when full. */
void *btc_alloc(struct btc *c, size_t len, size_t align);
uint64_t btc_iova(const struct btc *c, const void *va);

/*
 * One HWRM command: req (len bytes) with req_type set; seq_id, target_id
 * (0 -> 0xffff), cmpl_ring (0 -> NONE) and resp_addr (0 -> the client's
 * buffer) are filled in. Requests above 128 bytes go by short command.
 * Returns the response's error_code (0 success), -ETIMEDOUT if no valid
 * response came, or a bus error. resp (may be NULL) receives up to cap
 * bytes of the response; c->resp_len its length.
 */
int btc_hwrm(struct btc *c, void *req, size_t len, void *resp, size_t cap);
/* The same, for a request already complete (no fields filled in), sent by
 * window; waits for a response at resp_addr in the client's region only if
 * wait. */
int btc_hwrm_raw(struct btc *c, const void *req, size_t len, bool wait);

/* VER_GET .. QUEUE_QPORTCFG of hw-docs/bnxt.md 4 (steps 2-8), with the
 * backing store configured; 0 or the failing step's code. */
int btc_bringup(struct btc *c);
int btc_backing_store(struct btc *c);

struct btc_ring_opts {
	uint16_t nq_id, cmpl_ring_id, rx_ring_id;
	int stat_ctx;		/* -1: none */
	uint16_t rx_buf_size;
	uint16_t logical_id;
	uint64_t cq_handle;
	uint8_t int_mode;
	bool legacy_db;		/* no DPI even in multi-doorbell mode */
};
/* RING_ALLOC with ring memory from the region; the ring gets a DPI when the
 * function has multi-doorbell mode (unless o->legacy_db). 0 or the code. */
int btc_ring_alloc(struct btc *c, struct btc_ring *r, uint8_t type, uint32_t size,
		   const struct btc_ring_opts *o);
int btc_ring_free(struct btc *c, struct btc_ring *r, uint16_t cmpl_ring);
int btc_stat_alloc(struct btc *c, uint32_t *id, void **stats);

/* Doorbell of type t with index idx (masked to the ring) on the ring's DPI
 * page (a store) or the legacy page (trapped). */
void btc_db(struct btc *c, const struct btc_ring *r, enum bnxt_dbr_type t, uint32_t idx);
void btc_db_raw(struct btc *c, int dpi, uint64_t v);

/* Completion slot at cons + off if its V bit says it is new; copies 16 bytes. */
bool btc_cq_peek(const struct btc_ring *cq, uint32_t off, void *out);
/* Waits until n slots from cons are valid; false on timeout. */
bool btc_cq_wait(const struct btc_ring *cq, uint32_t n, int timeout_ms);
/* No slot at cons becomes valid within ms. */
bool btc_cq_quiet(const struct btc_ring *cq, int ms);

/* ---- a whole port: NQ, one TX queue, up to BTC_MAX_Q RX queues ----
 * RX queue i: CQ, RX ring of PKT BDs (buffer of slot s: rxbuf + s *
 * rx_buf), AGG ring (aggbuf + s * agg_buf); the default VNIC on queue 0 with
 * an L2 filter for the port's MAC and BCAST; RSS over all queues if asked. */
#define BTC_MAX_Q		4
#define BTC_TX_CHUNK		2048	/* bytes per TX BD; longer frames take more */
#define BTC_TX_TRACK		4096

struct btc_q {
	struct btc_ring cq, rx, agg;
	uint8_t *rxbuf, *aggbuf;
	uint32_t stat;
	struct bnxt_ctx_hw_stats *stats;
	uint16_t vnic;			/* its own VNIC (n-tuple target), 0xffff */
};

struct btc_port_cfg {
	unsigned nq;			/* RX queues, 1..BTC_MAX_Q */
	uint32_t tx_size, rx_size, agg_size, cq_size;
	uint16_t rx_buf, agg_buf;
	uint32_t plc_flags;		/* VNIC_PLCMODES_CFG flags, 0: not sent */
	uint16_t hds_threshold, jumbo_thresh;
	uint32_t rss_hash_type;		/* 0: no RSS */
	const uint8_t *rss_key;		/* 40 bytes */
	uint32_t vnic_flags;		/* VNIC_CFG flags (VLAN strip) */
	uint32_t stats_period_ms;
	bool legacy_db;
	bool no_fill;			/* leave the RX and AGG rings empty */
	uint32_t rx_batch;		/* re-post buffers and ring the CQ doorbell every
					 * rx_batch packets (0, 1: every packet) */
};

struct btc_port {
	struct btc *c;
	struct btc_port_cfg cfg;
	struct btc_ring nq, txcq, tx;
	uint8_t *txbuf;			/* tx_size chunks of BTC_TX_CHUNK bytes */
	uint32_t tx_seq;		/* packets queued; the opaque of the next */
	uint32_t tx_end[BTC_TX_TRACK];	/* raw producer after packet seq */
	uint32_t tx_stat;
	struct bnxt_ctx_hw_stats *tx_stats;
	uint32_t tx_done;		/* TX completions seen */
	struct btc_q q[BTC_MAX_Q];
	uint16_t vnic;
	uint64_t l2;
	struct bnxt_rss_entry_p5 *rss_tbl;
	uint8_t *rss_key;
	uint32_t rx_pend[BTC_MAX_Q], agg_pend[BTC_MAX_Q], pkt_pend[BTC_MAX_Q];
};

#define BTC_TX_BUF		9216

int btc_port_open(struct btc *c, struct btc_port *p, const struct btc_port_cfg *cfg);
/* A VNIC whose default ring is queue qi (for n-tuple rules). */
int btc_port_queue_vnic(struct btc_port *p, unsigned qi);
/* Post n RX BDs and as many AGG BDs (AGG doorbell first). */
void btc_rx_post(struct btc_port *p, unsigned qi, uint32_t n_rx, uint32_t n_agg);
/* Queue one frame on the TX ring: short BDs of up to BTC_TX_CHUNK bytes,
 * BD_CNT and LHINT right, PACKET_END on the last, flags (NO_CMPL) added to
 * the first. Returns its opaque (a sequence number), or UINT32_MAX if the
 * ring is full. btc_tx_kick rings the doorbell. */
uint32_t btc_tx_queue(struct btc_port *p, const void *frame, size_t len, uint16_t flags);
uint32_t btc_tx_space(const struct btc_port *p);
void btc_tx_kick(struct btc_port *p);
/* TX completions now valid: consumed, counted in tx_done, CQ doorbell.
 * Copies each into out[] (up to max) if out. Returns how many. */
unsigned btc_tx_reap(struct btc_port *p, struct bnxt_tx_cmpl *out, unsigned max);

struct btc_rx_pkt {
	struct bnxt_rx_pkt_cmpl lo;
	struct bnxt_rx_pkt_cmpl_hi hi;
	struct bnxt_rx_agg_cmpl agg[8];
	unsigned nagg;
	uint8_t data[BTC_TX_BUF + 64];	/* RX buffer bytes then AGG bytes */
	size_t len;
};
/* The next RX packet of queue qi if its records are all valid: copied out,
 * consumed, the buffers re-posted and the CQ doorbell rung. */
bool btc_rx_next(struct btc_port *p, unsigned qi, struct btc_rx_pkt *out);
/* The same, waiting up to timeout_ms. */
bool btc_rx_wait(struct btc_port *p, unsigned qi, struct btc_rx_pkt *out, int timeout_ms);
/* Re-post what rx_batch held back, ring the CQ doorbell. */
void btc_rx_flush(struct btc_port *p, unsigned qi);

/* An Ethernet/IPv4/UDP frame (10.0.0.1:40000 -> 10.0.0.2:4791, IP checksum
 * right, UDP checksum 0) with payload bytes seed + 7i; padded to 60. */
size_t btc_udp4_frame(uint8_t *f, const uint8_t *dst, const uint8_t *src, size_t payload,
		      uint8_t seed);
/* Frames/s from tx's port into rx's queue 0: total frames of len bytes in
 * bursts of 32 (one completion per burst), at most 128 in flight (fewer when
 * the receiver's AGG ring could not hold them); *got says how many arrived
 * with their length (bounded by 20 s). */
double btc_pair_rate(struct btc_port *tx, struct btc_port *rx, const uint8_t *frame, size_t len,
		     unsigned total, unsigned *got);

void btc_sleep_ms(int ms);
int64_t btc_now_ms(void);

#endif
