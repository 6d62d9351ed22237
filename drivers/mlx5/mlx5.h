/* SPDX-License-Identifier: MIT */
/*
 * drivers/mlx5: the ConnectX-6 Dx / ConnectX-7 poll-mode driver's own state
 * and the functions its files share. The hardware interface is
 * drivers/mlx5/mlx5_hw.h, explained in hw-docs/mlx5.md; section numbers
 * below ("§4") refer to that document.
 *
 *   mlx5_cmd.c     command transport (§5): the ops boundary, the command
 *                  queue back end (entry, mailbox chains, token, ownership,
 *                  timeouts), status/syndrome decoding and its log line
 *   mlx5_devx.c    the other transport: rdma-core DevX (§16), objects kept
 *                  as handles, memory as umems, UAR and EQ from the kernel
 *   mlx5_pages.c   page supply (§6): give, take back, bookkeeping
 *   mlx5_init.c    HCA bring-up and teardown (§4 steps 2-17), health (§13)
 *   mlx5_recover.c recovery from a function reset or a timed-out command
 *                  (§13b): reset, bring-up again, the port as it was
 *   mlx5_eq.c      the event queue, polled (§8): page requests, port change
 *   mlx5_rx.c      striding RQ with SHAMPO (§12), CQE validation, RX burst
 *   mlx5_shampo.c  HW-GRO (§12.6): SHAMPO sessions into ZN_RX_F_AGG aggregates
 *   mlx5_tx.c      SQ (§14), WQE building, TX burst and reap
 *   mlx5_queue.c   CQ/RQ/SQ/TIS objects and their memory (§9, §12.1, §14.1)
 *   mlx5_steer.c   RQT, TIRs, flow table, n-tuple rules, RSS (§11)
 *   mlx5_port.c    the zn_port_ops table, PCI ID match, probe, link, stats
 *
 * Threading follows include/zcnic/port.h: a queue's data path belongs to one
 * thread; every command runs on the control thread while no data-path call
 * runs. The command channel is synchronous: one command in flight, slot 0.
 */
#ifndef ZCNIC_DRIVERS_MLX5_H
#define ZCNIC_DRIVERS_MLX5_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core/debug/owner.h"
#include "drivers/mlx5/mlx5_hw.h"
#include "zcnic/bus.h"
#include "zcnic/mem.h"
#include "zcnic/port.h"

#define MLX5_LOG "mlx5"

/* Tunables. */
#define MLX5_MAX_QUEUES		ZN_PORT_MAX_QUEUES
#define MLX5_RX_RING_DFLT	256	/* RQ WQEs = payload buffers posted */
#define MLX5_TX_RING_DFLT	512	/* SQ WQEBBs */
#define MLX5_RING_MIN		16
#define MLX5_RX_RING_MAX	8192
#define MLX5_TX_RING_MAX	16384
#define MLX5_HDR_ENTRY_DFLT	256	/* SHAMPO header entry bytes (§12.1, as Linux) */
#define MLX5_HDR_ENTRY_MIN	64
#define MLX5_HDR_ENTRY_MAX	1024
#define MLX5_MTU_DFLT		1500
#define MLX5_MTU_MIN		68
#define MLX5_MTU_MAX		9000
#define MLX5_HW_MTU_OVERHEAD	22	/* §13a: Ethernet 14 + VLAN 4 + FCS 4 */
#define MLX5_EQ_LOG_SIZE	7	/* 128 EQEs: page requests and port changes only */
#define MLX5_IRQ_EQ_LOG_SIZE	6	/* completion EQ of a queue pair: one EQE per armed CQ */
#define MLX5_MAX_FLOWS		1000	/* n-tuple rules, flow indices 0.. */
#define MLX5_FT_LOG_SIZE	10	/* rules + RSS entries + catch-all (the model refuses 11) */
#define MLX5_RSS_TABLE_DFLT	256	/* RQT entries, capped by log_max_rqt_size */
#define MLX5_PAGES_PER_CMD	256	/* MANAGE_PAGES entries per command */
#define MLX5_PAGES_MAX		(1u << 18)	/* lent at once: 1 GiB; the device is not trusted */
#define MLX5_HEALTH_BURSTS	(1u << 14)	/* data-path health reads: every 2^14 bursts */
#define MLX5_RECOVER_MAX	3	/* recoveries in a row ... */
#define MLX5_RECOVER_WINDOW_MS	30000	/* ... each within this of the last: give up */
#define MLX5_AGG_SEGS_MAX	64	/* packets per SHAMPO reservation (2^6, as Linux's 64 KiB / MTU) */
#define MLX5_AGG_IDLE_POLLS	8	/* empty bursts before held aggregates go out by copy */
#define MLX5_HDR_RING_MAX	(2u << 20)	/* header ring bytes of an HW-GRO queue */

/* ---- command transport (mlx5_cmd.c) ----------------------------------- */

#define MLX5_CMD_MAX_MSG	(ZN_MLX5_CMD_INLINE_SIZE + 16 * ZN_MLX5_CMD_MBOX_DATA_SIZE)
#define MLX5_CMD_TIMEOUT_MS	60000	/* Linux's command timeout */
#define MLX5_CMD_SPIN_POLLS	1000	/* busy polls before sleeping */
#define MLX5_CMD_SLEEP_NS	20000

struct mlx5;

/*
 * A command transport: carries one command's input bytes to the device and
 * its output bytes back (§5). exec returns 0 when the command was delivered
 * and executed (its status is in out[0]; the caller decodes it), or a
 * negative errno when it never was (timeout, delivery status, dead device),
 * having logged one line. Two back ends: the command queue over BAR0
 * (mlx5_cmd.c) and rdma-core DevX (mlx5_devx.c, §16), which carries the
 * same bytes and keeps what a create made as an object handle.
 *
 * DevX also changes how the device reaches memory; the hooks below are NULL
 * for the command queue (bus DMA mapping, pas[] lists, CREATE_MKEY).
 */
struct mlx5_cmd_ops {
	const char *name;
	int (*exec)(struct mlx5 *m, const void *in, uint32_t inlen, void *out,
		    uint32_t outlen);
	void (*fini)(struct mlx5 *m);
	/* Queue and doorbell memory, registered as one umem per region. */
	int (*dma_alloc)(struct mlx5 *m, const char *what, size_t len,
			 struct zn_dma_region **out);
	void (*dma_free)(struct mlx5 *m, struct zn_dma_region *r);
	/* The umem holding [iova, iova + len): its id and iova's offset in it. */
	int (*umem_of)(struct mlx5 *m, uint64_t iova, size_t len, uint32_t *id, uint64_t *off);
	/* A memory key whose addresses are [iova, iova + len) (SHAMPO headers). */
	int (*mkey_reg)(struct mlx5 *m, uint64_t iova, size_t len, uint32_t *key, void **handle);
	void (*mkey_dereg)(struct mlx5 *m, void *handle);
};

/* The command queue back end's state. */
struct mlx5_cmdq {
	struct zn_dma_region *dma;	/* queue page, then input and output blocks */
	struct zn_mlx5_cmd_entry *entry;	/* slot 0 */
	struct zn_mlx5_cmd_mbox *in_box, *out_box;
	uint64_t in_iova, out_iova;
	uint32_t nboxes;		/* blocks per chain */
	uint8_t token;
	uint32_t timeout_ms;
};

extern const struct mlx5_cmd_ops zn_mlx5_cmdq_ops;

int zn_mlx5_cmdq_init(struct mlx5 *m);
/*
 * Execute one command: in/out are whole messages (header included). A
 * command status other than OK becomes a negative errno with ONE log line
 * naming opcode (name and number), status (name) and syndrome (hex); a
 * create that fails with NO_RES is retried once after serving pages (§6).
 */
int zn_mlx5_cmd(struct mlx5 *m, const void *in, uint32_t inlen, void *out, uint32_t outlen);
/* The same, never logging a failed status (callers that expect one). */
int zn_mlx5_cmd_quiet(struct mlx5 *m, const void *in, uint32_t inlen, void *out,
		      uint32_t outlen);
const char *zn_mlx5_cmd_name(uint16_t opcode);
const char *zn_mlx5_status_name(uint8_t status);
const char *zn_mlx5_dstat_name(uint8_t dstat);
int zn_mlx5_status_errno(uint8_t status);

/* ---- DevX transport (mlx5_devx.c) ------------------------------------ */

struct mlx5_devx;

extern const struct mlx5_cmd_ops zn_mlx5_devx_ops;

/* Open the RDMA device for DevX and make it the transport (§16). */
int zn_mlx5_devx_open(struct mlx5 *m, const char *rdma_name);
/* What the kernel's mlx5_core made: a UAR, an EQ number, a PD with a key
 * for the whole address space (data buffers, IOVA = VA). */
int zn_mlx5_devx_resources(struct mlx5 *m);
/* Objects and umems the transport holds now (tests; 0 after teardown). */
uint32_t zn_mlx5_devx_live_objects(const struct mlx5 *m);
uint32_t zn_mlx5_devx_live_umems(const struct mlx5 *m);

/* ---- page supply (mlx5_pages.c) --------------------------------------- */

struct mlx5_page {
	uint64_t iova;
	uint32_t chunk;			/* index in pages.chunk[] */
	bool lent;			/* the device has it */
};

struct mlx5_pages {
	struct mlx5_page *page;
	uint32_t npages, cap;
	struct zn_dma_region **chunk;
	uint32_t nchunks;
	uint32_t lent;			/* held by the device now */
	uint64_t given, taken;		/* totals, for the books */
};

/* Answer QUERY_PAGES(op_mod): give what the device asks for, take back what it offers. */
int zn_mlx5_pages_satisfy(struct mlx5 *m, uint16_t op_mod);
/* Serve a page request (EQE or QUERY_PAGES): n > 0 give, n < 0 take. */
int zn_mlx5_pages_serve(struct mlx5 *m, int32_t n);
/* After TEARDOWN_HCA: take back every page lent. */
int zn_mlx5_pages_reclaim(struct mlx5 *m);
/* Free host memory; pages still lent are lost to the driver (counted, logged). */
void zn_mlx5_pages_free(struct mlx5 *m);

/* ---- UAR doorbells ---------------------------------------------------- */

struct mlx5_uar {
	uint32_t index;
	uint64_t bar_off;		/* index * 4096 */
	volatile uint8_t *va;		/* mapped page, or NULL: trapped writes */
	struct zn_bus_dev *bus;
};

void zn_mlx5_uar_write32(const struct mlx5_uar *u, uint32_t off, uint32_t be_val);
void zn_mlx5_uar_write64_slow(const struct mlx5_uar *u, uint32_t off, uint64_t raw);

/* ---- event queue (mlx5_eq.c) ------------------------------------------ */

struct mlx5_eq {
	struct zn_dma_region *dma;
	struct zn_mlx5_eqe *eqe;
	uint32_t ci;
	uint8_t eqn;
	uint8_t log_size;
	bool live;
};

int zn_mlx5_eq_create(struct mlx5 *m);
void zn_mlx5_eq_destroy(struct mlx5 *m);
/* An EQ on uar raising MSI-X vector intr; async: it takes the async events
 * (page requests, port changes, errors), else only its CQs' completions. */
int zn_mlx5_eq_create_on(struct mlx5 *m, struct mlx5_eq *eq, const struct mlx5_uar *uar,
			 uint32_t log_size, uint8_t intr, bool async);
void zn_mlx5_eq_destroy_on(struct mlx5 *m, struct mlx5_eq *eq);
/* Handle pending events: page requests, port changes, CQ errors. */
int zn_mlx5_eq_poll(struct mlx5 *m);

/* ---- RX queue (mlx5_rx.c) --------------------------------------------- */

/* Software state of one provider buffer place of an RQ WQE (nbuf per WQE). */
struct mlx5_rx_wqe {
	uint8_t *va;
	uint64_t iova;
	uint32_t buf_id;
	bool posted;			/* holds a buffer */
	bool handed;			/* its buffer went to the caller in a segment */
};

/*
 * What CQE validation needs to know about a queue: the part of the RX queue
 * zn_mlx5_rx_cqe_parse (and so the fuzzer) can be given alone.
 */
struct mlx5_rx_ctx {
	uint32_t wq_mask;		/* WQEs - 1 */
	uint32_t strides;		/* per WQE */
	uint32_t log_stride;
	uint32_t buf_size;		/* WQE buffer bytes = strides << log_stride */
	uint32_t hdr_mask;		/* header ring entries - 1 */
	uint32_t hdr_entry;		/* bytes per header entry */
	uint32_t nbuf;			/* provider buffers per WQE: 1 striding, 1..8 cyclic */
	uint32_t frame_max;		/* cyclic: bytes one WQE takes (header slot + buffers) */
	uint32_t log_wqe;		/* log2 of a WQE's bytes in the ring */
	bool cyclic;			/* cyclic RQ: header slot + nbuf buffers, no split */
	bool agg;			/* HW-GRO: several packets per WQE, match CQEs (§12.6) */
};

/* Consumer position a parse starts from. */
struct mlx5_rx_pos {
	uint32_t done;			/* raw index of the WQE the device fills now */
	uint32_t posted;		/* raw producer */
	uint32_t strides_used;		/* of WQE done */
	uint32_t cont_off;		/* agg: where a match CQE's payload must start; 0: none may come */
};

enum mlx5_rx_kind {
	MLX5_RX_BAD = 0,		/* rejected: count bad_cmpl, consume */
	MLX5_RX_PKT,
	MLX5_RX_FILLER,
	MLX5_RX_ERR,			/* error CQE */
};

/* What one valid CQE says. */
struct mlx5_rx_cqe_info {
	uint32_t wqe;			/* slot */
	uint32_t strides;		/* consumed by this CQE */
	uint32_t hdr_len;		/* bytes in the header entry (0: not split) */
	uint32_t hdr_idx;		/* header entry */
	uint32_t data_off;		/* payload offset in the WQE buffer */
	uint32_t data_len;
	uint32_t rss_hash;
	uint32_t flags;			/* ZN_RX_F_* from the CQE */
	uint8_t syndrome;		/* MLX5_RX_ERR */
	bool match, flush;		/* SHAMPO session flags (agg queues; §12.6) */
};

enum mlx5_rx_kind zn_mlx5_rx_cqe_parse(const struct mlx5_rx_ctx *c, const struct mlx5_rx_pos *pos,
				       const struct zn_mlx5_cqe64 *cqe,
				       struct mlx5_rx_cqe_info *info);

struct mlx5_rx_stats {
	uint64_t packets, bytes, errors, bad_cmpl, nobuf;
	uint64_t agg, agg_copies;	/* aggregates of 2+ packets; units delivered by copy */
};

/*
 * HW-GRO (mlx5_shampo.c): a "unit" is what becomes one zn_rx_pkt, a
 * session of the device or a packet alone, its payload [off, off + len)
 * of one WQE's buffer.
 */
struct mlx5_rx_unit {
	uint32_t wqe;			/* raw index of its WQE */
	uint32_t hdr_idx, hdr_len;	/* the first packet's header entry */
	uint32_t off, len;
	uint32_t gso;			/* the first packet's payload bytes */
	uint32_t segs;			/* packets merged */
	uint32_t flags, rss;
	bool live;
};

struct mlx5_cq {
	struct zn_mlx5_cqe64 *cqe;
	uint32_t log_sz;
	uint32_t ci;			/* raw consumer */
	volatile uint32_t *dbr;		/* [0] set_ci, [1] arm */
	uint64_t dbr_iova, iova;
	uint32_t cqn;
	bool live;
	bool own_eq;			/* completions to eqn (mlx5_irq.c), else the async EQ */
	uint8_t eqn;
	uint8_t arm_sn;			/* the arm's cmd_sn: + 1 per event taken */
};

struct mlx5_rxq {
	struct zn_owner owner;		/* the thread that bursts; reset by start */
	/* Hot. */
	struct mlx5_rx_ctx c;
	struct mlx5_rx_pos pos;
	struct mlx5_cq cq;
	struct zn_mlx5_mpwqe *wq;	/* 1 << c.log_wqe bytes per WQE (cyclic: longer) */
	struct mlx5_rx_wqe *sw;		/* nbuf per WQE: sw[slot * nbuf + j] */
	volatile uint32_t *rq_dbr;
	uint8_t *hdr;			/* header ring */
	uint32_t log_hdr_entry;
	uint32_t nfill;			/* buffer places outside the device without a buffer */
	uint8_t flags_tbl[128];		/* ZN_RX_F_* by CQE header type and checksum bits */
	uint32_t lkey;
	uint32_t hds_thresh;
	uint64_t hdr_iova_hot;		/* header ring IOVA, for cyclic WQEs */
	uint32_t (*alloc)(void *ctx, struct zn_buf *bufs, uint32_t n);
	void (*put)(void *ctx, const uint32_t *ids, uint32_t n);
	uint8_t *(*va)(void *ctx, uint32_t id);
	void *prov_ctx;
	struct mlx5_rx_stats st;
	uint16_t qid;
	bool dead;
	uint32_t bursts;		/* queue 0 reads the health words every 2^n bursts */
	struct mlx5 *m;			/* for that health read only */
	struct mlx5_rx_unit open;	/* agg: the session being gathered */
	struct mlx5_rx_unit ready;	/* agg: a closed one waiting for its WQE to finish */
	uint32_t idle_polls;		/* agg: empty bursts in a row */
	uint32_t agg_pkts;		/* agg: packets per WQE (log_max_num_of_packets_per_reservation) */

	/* Cold. */
	struct zn_dma_region *dma;
	uint64_t wq_iova, rq_dbr_iova, hdr_iova;
	size_t hdr_bytes;
	uint32_t hdr_key;		/* headers_mkey: the MTT mkey's, or DevX's MR */
	void *hdr_mr;			/* DevX: that memory region */
	uint32_t mtu;			/* the port MTU the layout was chosen for */
	uint32_t rqn, tirn, hdr_mkey_index;
	bool rq_live, tir_live, mkey_live;
};

int zn_mlx5_rxq_create(struct mlx5 *m, uint16_t q, const struct zn_rxq_conf *conf,
		       struct mlx5_rxq **out);
void zn_mlx5_rxq_destroy(struct mlx5 *m, struct mlx5_rxq *rxq);
/* Post a buffer in every free slot; returns how many were posted. */
uint32_t zn_mlx5_rxq_refill(struct mlx5_rxq *rxq);
/* Give back every buffer the driver holds (queue stopped). */
void zn_mlx5_rxq_release_bufs(struct mlx5_rxq *rxq);
void zn_mlx5_rxq_reset(struct mlx5_rxq *rxq);
/* The RQ side only (WQEs, buffers, positions), for a queue whose CQ lives on. */
void zn_mlx5_rxq_reset_wq(struct mlx5_rxq *rxq);
/* Frames in CQEs the data path has not read; *ncqe the CQEs they span. */
uint32_t zn_mlx5_rx_unread(const struct mlx5_rxq *rxq, uint32_t *ncqe);
/* zn_port_ops.rxq_restart (mlx5_rxq_restart.c). */
int zn_mlx5_rxq_restart(struct mlx5 *m, uint16_t qid);
uint32_t zn_mlx5_rx_burst(struct mlx5_rxq *rxq, struct zn_rx_pkt *pkts, uint32_t n);
/* Data segment j of a WQE: after the striding WQE's next segment, or after
 * the cyclic WQE's header slot (both are segment 0). */
static inline struct zn_mlx5_wqe_data *zn_mlx5_rx_seg(const struct mlx5_rxq *rxq, uint32_t slot,
						       uint32_t j)
{
	return (struct zn_mlx5_wqe_data *)((uint8_t *)rxq->wq +
					   ((size_t)slot << rxq->c.log_wqe)) + 1 + j;
}
/*
 * HW-GRO (mlx5_shampo.c). agg_cqe takes one accepted packet or filler CQE
 * of an aggregating queue, moves pos over it and writes the units it
 * completed to out (at most the ones held, open and ready, and its own);
 * agg_idle hands out what is
 * held once the queue went quiet (at most 2, n the room in out); agg_release
 * forgets what is held (queue stopped: its buffers stay in the WQEs).
 */
uint32_t zn_mlx5_agg_cqe(struct mlx5_rxq *rxq, struct mlx5_rx_pos *pos, enum mlx5_rx_kind k,
			 const struct mlx5_rx_cqe_info *ci, struct zn_rx_pkt *out);
uint32_t zn_mlx5_agg_idle(struct mlx5_rxq *rxq, struct zn_rx_pkt *out, uint32_t n);
void zn_mlx5_agg_release(struct mlx5_rxq *rxq);
/* Packets per WQE for buf-byte WQEs and this MTU, at most want (0: any). */
uint32_t zn_mlx5_agg_pkts(uint32_t buf, uint32_t mtu, uint32_t want);

/* Fill one payload segment of pkt (the one place that knows segment layout). */
static inline void zn_mlx5_rx_seg_fill(struct zn_rx_pkt *pkt, uint8_t *va, uint32_t buf_id,
				       uint32_t off, uint32_t len)
{
	uint32_t i = pkt->nseg++;

	pkt->seg[i].va = va;
	pkt->seg[i].buf_id = buf_id;
	pkt->seg[i].off = off;
	pkt->seg[i].len = len;
}

/* ---- TX queue (mlx5_tx.c) --------------------------------------------- */

struct mlx5_tx_slot {
	uint64_t cookie;
	uint16_t nbb;			/* WQEBBs of the WQE starting here; 0 otherwise */
};

struct mlx5_tx_stats {
	uint64_t packets, bytes, errors, full, bad_cmpl;
};

struct mlx5_txq {
	struct zn_owner owner;		/* the thread that bursts and reaps; reset by start */
	/* Hot. */
	uint8_t *wq;			/* WQEBB ring */
	struct mlx5_tx_slot *sw;
	uint32_t mask;			/* WQEBBs - 1 */
	uint32_t prod;			/* raw WQEBB producer */
	uint32_t cons;			/* raw start of the oldest unreaped WQE */
	uint32_t done;			/* raw WQEBB past the last completed WQE */
	struct mlx5_cq cq;
	volatile uint32_t *sq_dbr;
	struct mlx5_uar *uar;
	uint32_t bf_off;		/* 0x800 / 0x900, alternating */
	uint32_t sqn;
	uint32_t lkey;
	uint32_t min_inline;		/* header bytes that must be inline */
	uint32_t offloads;		/* ZN_TX_F_* the device does */
	uint32_t max_lso;		/* bytes per LSO frame */
	struct mlx5_tx_stats st;
	uint16_t qid;
	bool err;			/* the SQ went to ERR: no more sends */

	/* Recovery (mlx5_recover.c): cookies of the work a reset took, handed
	 * back by tx_reap before any newer one; 2 x the ring's WQEBBs. */
	uint64_t *flushed;
	uint32_t nflushed, flushed_next;

	/* Cold. */
	struct zn_dma_region *dma;
	uint64_t wq_iova, sq_dbr_iova;
	bool sq_live;
};

/* Build one send WQE at WQEBB index pi of a ring; returns WQEBBs used (0: bad packet). */
uint32_t zn_mlx5_tx_build(uint8_t *ring, uint32_t mask, uint32_t pi, uint32_t sqn,
			  uint32_t lkey, uint32_t min_inline, const uint8_t *inline_src,
			  const struct zn_tx_pkt *pkt, bool cqe);
int zn_mlx5_txq_create(struct mlx5 *m, uint16_t q, const struct zn_txq_conf *conf,
		       struct mlx5_txq **out);
void zn_mlx5_txq_destroy(struct mlx5 *m, struct mlx5_txq *txq);
void zn_mlx5_txq_reset(struct mlx5_txq *txq);
/* The device lost the queue (reset): every unreaped WQE's cookie goes to
 * the flushed list for tx_reap, those still in flight counted as errors
 * (as Linux counts flushed WQEs). Then the queue may be reset. */
void zn_mlx5_txq_flush(struct mlx5_txq *txq);
uint32_t zn_mlx5_tx_burst(struct mlx5_txq *txq, const struct zn_tx_pkt *pkts, uint32_t n);
uint32_t zn_mlx5_tx_reap(struct mlx5_txq *txq, uint64_t *cookies, uint32_t n);

/* ---- queue objects (mlx5_queue.c) ------------------------------------- */

int zn_mlx5_cq_create(struct mlx5 *m, struct mlx5_cq *cq);
void zn_mlx5_cq_destroy(struct mlx5 *m, struct mlx5_cq *cq);
int zn_mlx5_rq_create(struct mlx5 *m, struct mlx5_rxq *rxq);
int zn_mlx5_sq_create(struct mlx5 *m, struct mlx5_txq *txq);
/* pas[]: one address per 4 KiB page of [iova, iova + len) (log_page_size 0). */
uint32_t zn_mlx5_pas_fill(void *pas, uint64_t iova, size_t len);
int zn_mlx5_destroy_obj(struct mlx5 *m, uint16_t opcode, uint32_t id);
int zn_mlx5_queues_start(struct mlx5 *m);
int zn_mlx5_rq_modify(struct mlx5 *m, uint32_t rqn, unsigned from, unsigned to);
void zn_mlx5_queues_stop(struct mlx5 *m);

/* ---- steering (mlx5_steer.c) ------------------------------------------ */

struct mlx5_flow {
	bool used;			/* a rule of the port (kept across stop/start) */
	bool installed;			/* its group and entry exist in the device */
	uint16_t q;
	uint32_t group_id;
	struct zn_flow_match match;
};

int zn_mlx5_steer_start(struct mlx5 *m);
void zn_mlx5_steer_stop(struct mlx5 *m);
int zn_mlx5_rss_apply(struct mlx5 *m);
int zn_mlx5_rss_check(const struct mlx5 *m, const struct zn_rss_conf *rss);
void zn_mlx5_rss_default(const struct mlx5 *m, struct zn_rss_conf *rss);
uint32_t zn_mlx5_rss_table_size(const struct mlx5 *m);
int zn_mlx5_flow_add(struct mlx5 *m, const struct zn_flow_match *fm, uint16_t q,
		     uint32_t *rule_id);
int zn_mlx5_flow_del(struct mlx5 *m, uint32_t rule_id);

/* ---- the device ------------------------------------------------------- */

/* Capabilities read at bring-up (§7). */
struct mlx5_caps {
	uint8_t log_max_cq_sz, log_max_wq_sz, log_max_rqt_size, log_max_eq_sz;
	uint8_t log_min_stride, log_max_stride;
	bool striding_rq, ext_stride_num_range, shampo;
	uint8_t wqe_inline_mode;
	bool csum_cap;			/* TX checksums, RX l3_ok/l4_ok */
	uint8_t max_lso_cap;		/* log2 bytes of an LSO frame; 0: no LSO */
	uint8_t shampo_log_min_res, shampo_log_max_res, shampo_max_log_hdr_entry;
};

/* The ZN_TX_F_* a device with these caps does, and its LSO frame bound
 * (16-bit IP lengths: at most 64 KiB - 1 whatever max_lso_cap says). */
#define MLX5_TX_OFFLOADS	(ZN_TX_F_IP_CSUM | ZN_TX_F_L4_CSUM | ZN_TX_F_LSO)
static inline uint32_t zn_mlx5_tx_offloads(const struct mlx5_caps *c)
{
	return (c->csum_cap ? ZN_TX_F_IP_CSUM | ZN_TX_F_L4_CSUM : 0) |
	       (c->csum_cap && c->max_lso_cap ? ZN_TX_F_LSO : 0);
}
static inline uint32_t zn_mlx5_max_lso(const struct mlx5_caps *c)
{
	if (!c->csum_cap || !c->max_lso_cap)
		return 0;
	return c->max_lso_cap >= 16 ? UINT16_MAX : 1u << c->max_lso_cap;
}

/* The ZN_RX_OFFLOAD_* a device with these caps does (HW-GRO needs the
 * checksum flags: an aggregate's L4_CSUM_OK stands for every packet). */
static inline uint32_t zn_mlx5_rx_offloads(const struct mlx5_caps *c)
{
	return c->csum_cap ? ZN_RX_OFFLOAD_CSUM | (c->shampo ? ZN_RX_OFFLOAD_TCP_AGG : 0) : 0;
}

#define MLX5_RSS_KINDS	6	/* IPv4, IPv4 TCP, IPv4 UDP, IPv6, IPv6 TCP, IPv6 UDP */

struct mlx5 {
	struct zn_port *port;
	struct zn_bus_dev *bus;
	char name[144];
	uint16_t vendor, device;

	/* Command transport. */
	const struct mlx5_cmd_ops *cmd_ops;
	struct mlx5_devx *devx;		/* DevX (§16): the kernel owns the HCA */
	struct mlx5_cmdq cmdq;
	bool cmd_busy;			/* a command is being executed (no nesting) */
	bool in_page_retry;

	/* Health (§13). */
	bool dead;			/* no commands, no data path (until recovery) */
	/* Why it is dead, when recovery (§13b) can bring it back: */
	bool reset_seen;		/* the function was reset under the driver */
	bool cmd_timed_out;		/* a command never completed */
	bool gone;			/* recovery impossible or failed: for good */
	uint32_t recoveries;
	uint32_t recover_streak;	/* recoveries each within MLX5_RECOVER_WINDOW_MS */
	uint64_t recover_ms;		/* when the last one started */
	bool health_mapped;		/* the health words are mapped: readable without a syscall */
	uint32_t health_last;
	uint32_t health_misses;
	uint64_t health_next_ms;

	/* Bring-up state, in creation order (teardown runs it backwards). */
	uint16_t fw_major, fw_minor, fw_sub;
	bool hca_enabled, hca_inited;
	struct mlx5_pages pages;
	struct mlx5_caps caps;
	uint8_t mac[ZN_ETH_ALEN];
	uint8_t vport_inline_mode;
	struct mlx5_uar uar;
	bool uar_live;
	struct mlx5_eq eq;
	/* interrupts (mlx5_irq.c): pair i's completion EQ, its own UAR page
	 * (EQ arms of two EQs on one page could hide each other from a model
	 * that polls it) and MSI-X vector 1 + i; NULL: the port only polls */
	struct mlx5_irq_eq {
		struct mlx5_eq eq;
		struct mlx5_uar uar;
		bool uar_live;
	} *irq_eq;
	uint16_t irq_pairs;
	uint32_t pdn, tdn, mkey_index, lkey;
	bool pd_live, td_live, mkey_live;

	/* Configuration. */
	bool configured, started;
	struct zn_port_conf conf;
	struct mlx5_rxq *rxq[MLX5_MAX_QUEUES];
	struct mlx5_txq *txq[MLX5_MAX_QUEUES];

	/* Started state. */
	uint32_t tisn;
	bool tis_live;
	uint32_t rqtn;
	bool rqt_live;
	uint32_t rss_tirn[MLX5_RSS_KINDS];
	bool rss_tir_live[MLX5_RSS_KINDS];
	uint32_t rss_group[MLX5_RSS_KINDS + 1];	/* + the catch-all */
	bool rss_group_live[MLX5_RSS_KINDS + 1];
	bool rss_fte_live[MLX5_RSS_KINDS + 1];
	uint32_t ft_id;
	bool ft_live;
	struct zn_rss_conf rss;
	bool rss_set;
	struct mlx5_flow flows[MLX5_MAX_FLOWS];

	struct zn_link link;
	uint64_t port_events;
	uint8_t scratch[MLX5_CMD_MAX_MSG];	/* long command inputs (control thread) */
};

/* mlx5_init.c */
/* Is the dword at BAR0 + off in a mapped part of BAR0? */
bool zn_mlx5_bar0_mapped(const struct mlx5 *m, uint64_t off);
int zn_mlx5_hca_init(struct mlx5 *m);
void zn_mlx5_hca_fini(struct mlx5 *m);
/* Read the health words; a fatal device stops the port with one line. */
int zn_mlx5_health_check(struct mlx5 *m);
/* A firmware timeout word of the init segment in ms; dflt when 0. */
uint64_t zn_mlx5_fw_timeout_ms(uint32_t v, uint64_t dflt);
int zn_mlx5_vport_config(struct mlx5 *m);
int zn_mlx5_link_query(struct mlx5 *m, struct zn_link *link);
void zn_mlx5_fatal(struct mlx5 *m, const char *why);
/* Queue 0's data path, every MLX5_HEALTH_BURSTS bursts: health without syscalls. */
void zn_mlx5_rx_health(struct mlx5_rxq *rxq);
void zn_mlx5_mark_dead(struct mlx5 *m);

/* mlx5_recover.c (§13b) */
/* The device died in a way a reset undoes (reset_seen, cmd_timed_out). */
static inline bool zn_mlx5_recoverable(const struct mlx5 *m)
{
	return m->dead && !m->gone && !m->devx && (m->reset_seen || m->cmd_timed_out);
}
/*
 * Reset the function and bring the port back as it was: the queue structs
 * the caller holds, RSS and the flow rules under their ids. RX buffers the
 * device held go back to their provider first, the new RQs take fresh ones.
 * One line says why; 0, or -ENODEV (said once) when the port is gone.
 * Control thread, no data-path call running.
 */
int zn_mlx5_recover(struct mlx5 *m);
/* Before the control path asks the device anything: health, events, and
 * recovery where the device died in a way a reset undoes. */
int zn_mlx5_ensure_alive(struct mlx5 *m);
/* mlx5_irq.c */
int zn_mlx5_irq_start(struct mlx5 *m);		/* before the queues' CQs */
void zn_mlx5_irq_stop(struct mlx5 *m);		/* after them */
int zn_mlx5_irq_vectors(const struct mlx5 *m);
int zn_mlx5_irq_vector(const struct mlx5 *m, bool tx, uint16_t q);
int zn_mlx5_irq_arm(struct mlx5 *m, bool tx, uint16_t q);

/* mlx5_port.c */
extern const struct zn_port_driver zn_mlx5_driver;
/* §4 steps 18-21 and their undoing, on the configured queues. */
int zn_mlx5_port_start(struct mlx5 *m);
void zn_mlx5_port_stop(struct mlx5 *m);
int zn_mlx5_dma_alloc(struct mlx5 *m, const char *what, size_t len, struct zn_dma_region **out);
void zn_mlx5_dma_free(struct mlx5 *m, struct zn_dma_region **r);
uint64_t zn_mlx5_now_ms(void);

#endif
