/* SPDX-License-Identifier: MIT */
/*
 * drivers/bnxt: the driver's own state and the functions its files share.
 * The hardware interface is drivers/bnxt/bnxt_hw.h, explained in
 * hw-docs/bnxt.md; section numbers below ("§4") refer to that document.
 *
 *   bnxt_hwrm.c    the firmware channel (§3): send, wait, timeouts, errors
 *   bnxt_init.c    function bring-up (§4 steps 1-8) and its undoing
 *   bnxt_ctx.c     backing store (context memory, §4 step 5)
 *   bnxt_ring.c    ring memory, RING_ALLOC/FREE, stat contexts, doorbells (§5, §7)
 *   bnxt_start.c   port start/stop (§4 steps 9-17 and teardown)
 *   bnxt_rx.c      RX burst, completion validation, AGG refill (§6, §9, §10)
 *   bnxt_tx.c      TX burst and reap (§8)
 *   bnxt_filter.c  VNICs, RSS, L2 filter and RX mask, n-tuple rules (§11, §12)
 *   bnxt_rxq_restart.c  one RX queue's rings freed and allocated anew (rxq_restart)
 *   bnxt_port.c    the zn_port_ops table, PCI ID match, probe, link, stats
 *
 * Threading follows include/zcnic/port.h: a queue's data path belongs to one
 * thread; everything else (and every HWRM command) runs on the control
 * thread while no data-path call runs.
 */
#ifndef ZCNIC_DRIVERS_BNXT_H
#define ZCNIC_DRIVERS_BNXT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "base/barrier.h"
#include "core/debug/owner.h"
#include "drivers/bnxt/bnxt_hw.h"
#include "zcnic/bus.h"
#include "zcnic/mem.h"
#include "zcnic/port.h"

#define BNXT_LOG "bnxt"

/* Tunables. */
#define BNXT_MAX_QUEUES		ZN_PORT_MAX_QUEUES
#define BNXT_RX_RING_DFLT	256
#define BNXT_TX_RING_DFLT	512
#define BNXT_RING_MIN		16	/* hw-docs/bnxt.md §14: RING_ALLOC length */
#define BNXT_RING_MAX		65536
#define BNXT_RX_RING_MAX	8192	/* CQ = 2 * RX + AGG must stay <= BNXT_RING_MAX */
#define BNXT_TX_RING_MAX	16384
#define BNXT_AGG_FACTOR		2	/* AGG ring entries per RX ring entry */
#define BNXT_HDR_BUF_DFLT	256
#define BNXT_HDR_BUF_MIN	128	/* room for Ethernet + IPv6 + TCP with options */
#define BNXT_HDR_BUF_MAX	4096
#define BNXT_MTU_DFLT		1500
#define BNXT_MTU_MAX		9000	/* jumbo: the usual 9000-byte ceiling, below the
					 * hardware's own limit (Linux bnxt: BNXT_MAX_MTU);
					 * bnxt_tx.c's length-hint table covers it */
#define BNXT_L2_OVERHEAD	18	/* Ethernet header + one VLAN tag */
#define BNXT_NQ_SIZE		256	/* async events only: a polling driver never arms CQs */
#define BNXT_STATS_PERIOD_MS	250	/* stat context DMA period */
#define BNXT_MAX_FLOWS		1024
/* Offloads every bnxt does (long TX BDs, RX completion checksum bits, TPA). */
#define BNXT_TX_OFFLOADS	(ZN_TX_F_IP_CSUM | ZN_TX_F_L4_CSUM | ZN_TX_F_LSO)
#define BNXT_RX_OFFLOADS	(ZN_RX_OFFLOAD_CSUM | ZN_RX_OFFLOAD_TCP_AGG)
#define BNXT_TPA_AGGS		64	/* aggregations tracked per RX queue (agg_id < this) */

/* ---- HWRM channel (bnxt_hwrm.c) --------------------------------------- */

#define BNXT_HWRM_RESP_BUF	4096	/* >= BNXT_HWRM_MAX_RESP_LEN, one page */
#define BNXT_HWRM_SREQ_BUF	4096	/* short-command request buffer */
#define BNXT_HWRM_DFLT_TIMEOUT_MS 500	/* until VER_GET gives def_req_timeout */
#define BNXT_HWRM_MAX_TIMEOUT_S	40	/* when VER_GET max_req_timeout is 0 */

struct bnxt_hwrm {
	struct zn_dma_region *dma;	/* response buffer, then short-request buffer */
	volatile uint8_t *resp;
	uint64_t resp_iova;
	uint8_t *sreq;
	uint64_t sreq_iova;
	uint16_t seq;			/* seq_id of the next request */
	uint16_t win_len;		/* VER_GET max_req_win_len */
	uint16_t max_ext_req_len;	/* VER_GET; 0 until known */
	uint16_t max_resp_len;
	uint32_t timeout_ms;		/* per command */
	uint32_t max_timeout_ms;
	bool short_cmd;			/* firmware accepts short commands */
	bool short_cmd_required;
	bool dead;			/* a command timed out: channel state unknown */
	bool resetting;			/* recovery: dead, and nobody needs telling */
};

/* ---- doorbells (bnxt_ring.c) ------------------------------------------ */

struct bnxt_db {
	volatile uint64_t *mmio;	/* the doorbell, when its page is mapped */
	uint64_t key;			/* type | path | xid; the index is or-ed in */
	struct zn_bus_dev *bus;		/* trapped doorbell: written through the bus */
	uint64_t bar_off;
	uint32_t dpi;			/* 0: the legacy shared doorbell */
};

void zn_bnxt_db_write_slow(const struct bnxt_db *db, uint64_t v);

/*
 * Ring a P5 doorbell with a ring index (raw counter masked by size - 1).
 * Everything the device must see (BDs, consumed completions) is written
 * before: zn_dma_wmb orders those stores before the doorbell store.
 */
static inline void bnxt_db_write(const struct bnxt_db *db, uint32_t idx)
{
	uint64_t v = db->key | idx;

	zn_dma_wmb();
	if (__builtin_expect(db->mmio != NULL, 1))
		*db->mmio = v;
	else
		zn_bnxt_db_write_slow(db, v);
}

/* A hardware ring: its memory and, once allocated, its firmware id. */
struct bnxt_ring {
	void *va;
	uint64_t iova;
	uint32_t size;			/* entries (power of two) */
	uint8_t type;			/* BNXT_RING_TYPE_* */
	uint16_t id;			/* BNXT_INVALID_RING_ID when not allocated */
	uint16_t logical_id;		/* NQ: its MSI-X vector (RING_ALLOC logical_id) */
	struct bnxt_db db;
};

/* ---- RX queue (bnxt_rx.c) --------------------------------------------- */

/*
 * One AGG ring slot: the provider buffer posted there, its address (which rx
 * segments carry, so that nobody looks it up again) and its id. Laid out as
 * the first 16 bytes of a zn_rx_pkt segment (va, buf_id, off = 0), so that
 * the burst fills a segment but its len with one 16-byte copy.
 */
struct bnxt_agg_slot {
	uint8_t *va;
	uint32_t buf_id;
	uint32_t zero;			/* the segment's off: always 0 */
};

/*
 * What completion validation needs to know about a queue: the part of the
 * RX queue that zn_bnxt_cmpl_parse (and so the fuzzer) can be given alone.
 */
struct bnxt_rx_ctx {
	const uint8_t *cq;		/* completion ring */
	uint32_t cq_size;		/* entries, power of two */
	uint32_t cq_mask;
	uint32_t cq_shift;		/* log2(cq_size): bit of the pass parity */
	uint32_t rx_mask;		/* RX ring entries - 1 */
	uint32_t agg_mask;		/* AGG ring entries - 1 */
	uint32_t hdr_buf_size;		/* bytes per RX (header) buffer */
	uint32_t agg_buf_size;		/* bytes per AGG (payload) buffer */
	uint32_t max_frame;		/* MRU: longest frame accepted */
	const uint8_t *hdr_va;		/* header buffer of RX slot i: hdr_va + i * hdr_buf_size */
	const struct bnxt_agg_slot *agg_sw;
	/* With TPA, AGG slots complete out of ring order: the slots completed
	 * ahead of agg_cons (bnxt_tpa.c). NULL: in ring order only. */
	const uint64_t *agg_done;
	uint16_t qid;
};

/* Consumer state a decode starts from. */
struct bnxt_rx_pos {
	uint32_t cq_raw;		/* next completion slot */
	uint32_t rx_cons;		/* raw index of the next RX slot to complete */
	uint32_t rx_prod;		/* raw producer of the RX ring */
	uint32_t agg_cons;		/* raw index of the next AGG slot to complete */
	uint32_t agg_prod;		/* raw producer of the AGG ring */
};

struct bnxt_rx_stats {
	uint64_t packets, bytes, errors, bad_cmpl, nobuf;
	uint64_t agg;			/* of packets: TPA aggregates */
};

/* One TPA aggregation in progress (bnxt_tpa.c); its header copy is
 * bnxt_rxq.tpa_hdr + agg_id * hdr_buf_size. */
struct bnxt_tpa {
	bool open, bad;
	uint16_t hdr_len;
	uint32_t ft, flags2, rss;
	uint32_t ended;			/* burst_seq of the burst that ended it */
	uint32_t nseg;
	__typeof__(((struct zn_rx_pkt *)0)->seg[0]) seg[ZN_RX_MAX_SEGS];
};

struct bnxt_rxq {
	/* Hot: read by every burst. */
	struct bnxt_rx_ctx c;
	struct bnxt_rx_pos pos;
	uint32_t cq_db_raw;		/* consumer last written to the CQ doorbell */
	struct bnxt_rx_bd *agg_bd;
	struct bnxt_agg_slot *agg_sw;
	uint32_t (*alloc)(void *ctx, struct zn_buf *bufs, uint32_t n);
	void (*put)(void *ctx, const uint32_t *ids, uint32_t n);
	void *prov_ctx;
	struct bnxt_db cq_db, rx_db, agg_db;
	struct bnxt_rx_stats st;
	uint32_t last_hwrm_done;	/* sequence_id of the last HWRM_DONE seen, + 0x10000 flag */
	struct zn_owner owner;		/* the thread that bursts; reset by start */

	/* Cold: set-up and teardown. */
	struct bnxt_ring cq, rx, agg;
	uint64_t hdr_iova;		/* header buffers */
	uint32_t stat_ctx_id;		/* UINT32_MAX when not allocated */
	struct bnxt_ctx_hw_stats *hw_stats;
	uint64_t hw_stats_iova;
	struct zn_dma_region *dma;
	uint32_t hds_thresh;
	struct bnxt_tpa *tpa;		/* BNXT_TPA_AGGS, NULL without TPA */
	uint8_t *tpa_hdr;
	/* AGG slots in (pos.agg_cons, pos.agg_prod) that TPA_AGG completed out
	 * of ring order (bit = slot): agg_cons steps over them once the slots
	 * before them complete too (bnxt_tpa.c). NULL without TPA. */
	uint64_t *agg_done;
	uint32_t agg_ahead;		/* bits set in agg_done */
	uint32_t tpa_segs;		/* VNIC_TPA_CFG max_agg_segs; 0: no TPA */
	uint32_t burst_seq;		/* bursts so far, never 0 */
	uint16_t steer_vnic;		/* per-queue VNIC for n-tuple rules, or 0xffff */
	uint32_t nflows;		/* rules pointing at steer_vnic */
};

/* ---- TX queue (bnxt_tx.c) --------------------------------------------- */

/* Software state of the first slot of each packet in the TX ring. */
struct bnxt_tx_slot {
	uint64_t cookie;
	union {
		struct {
			uint16_t nbd;		/* slots the packet uses */
			uint16_t want_cmpl;	/* the packet was sent without NO_CMPL */
		};
		uint32_t meta;			/* both, for one store */
	};
	uint32_t rsvd;
};

struct bnxt_tx_stats {
	uint64_t packets, bytes, errors, full, bad_cmpl;
};

struct bnxt_txq {
	/* Hot. */
	struct bnxt_tx_bd *bd;
	struct bnxt_tx_slot *sw;
	uint32_t mask;			/* TX ring entries - 1 */
	uint32_t prod;			/* raw producer */
	uint32_t cons;			/* raw index of the oldest unreaped packet */
	uint32_t done;			/* raw index past the last completed packet */
	const uint8_t *cq;
	uint32_t cq_size, cq_mask;
	uint32_t cq_raw;
	uint32_t max_frame;
	uint64_t pad_iova;		/* zeroes, to pad short frames */
	struct bnxt_db sq_db, cq_db;
	struct bnxt_tx_stats st;
	uint32_t last_hwrm_done;
	uint16_t qid;
	uint32_t lost_n;		/* lost[lost_head, lost_n): reaped before the ring */
	struct zn_owner owner;		/* the thread that bursts and reaps; reset by start */

	/* Cold. */
	struct bnxt_ring cq_ring, tx;
	uint32_t stat_ctx_id;
	struct bnxt_ctx_hw_stats *hw_stats;
	uint64_t hw_stats_iova;
	struct zn_dma_region *dma;
	/* The cookies of frames a reset took with it (zn_bnxt_txq_prepare):
	 * handed back by the next reaps, so that every send is answered. */
	uint64_t *lost;
	uint32_t lost_head, lost_cap;
};

#define BNXT_HWRM_DONE_SEEN	0x10000u	/* or-ed into last_hwrm_done */

/* ---- the device ------------------------------------------------------- */

struct bnxt_flow {
	bool used;
	uint16_t q;
	uint64_t filter_id;		/* CFA_NTUPLE_FILTER_ALLOC ntuple_filter_id */
	struct zn_flow_match m;		/* what recovery installs again */
};

/* One backing-store context type (§4 step 5). */
struct bnxt_ctx_mem {
	uint32_t entries;
	uint32_t entry_size;
	size_t bytes;			/* entries * entry_size, rounded up to pages */
	size_t off;			/* data pages in the context region */
	size_t pt_off;			/* page tables, when level > 0 */
	uint8_t level;
	bool ring;			/* PTEs carry LAST / NEXT_TO_LAST */
	uint64_t page_dir;
};

struct bnxt {
	struct zn_port *port;
	struct zn_bus_dev *bus;
	char name[144];
	uint16_t vendor, device;
	bool vf;

	struct bnxt_hwrm hwrm;

	/* VER_GET */
	uint16_t chip_num;
	uint8_t fw_maj, fw_min, fw_bld, fw_rsvd;
	uint8_t intf_maj, intf_min, intf_upd;
	uint32_t dev_caps;

	/* FUNC_QCAPS */
	uint16_t fid, port_id;
	uint8_t mac[ZN_ETH_ALEN];
	uint16_t max_rsscos_ctx, max_cmpl_rings, max_tx_rings, max_rx_rings;
	uint16_t max_l2_ctxs, max_vnics, max_stat_ctx;
	uint32_t qcaps_flags_ext3;
	bool multi_db_cap;

	/* FUNC_QCFG */
	uint16_t admin_mtu, mru;
	uint16_t l2_db_bar_kb, l2_db_multi_kb;
	uint8_t db_page_code;

	/* Doorbell mode (§7.4) */
	bool multi_db;
	uint32_t db_page_bytes;
	uint32_t first_dpi, num_dpis;
	uint8_t *dpi_used;		/* num_dpis flags */
	uint64_t legacy_db_off;
	uint64_t bar2_size;

	/* Backing store */
	struct zn_dma_region *ctx_dma;
	bool ctx_cfg_done;

	/* QUEUE_QPORTCFG */
	uint8_t tx_cos_queue;

	bool registered;		/* FUNC_DRV_RGTR done */
	uint16_t max_tpa;		/* TPA contexts per ring (VNIC_QCAPS); 0: not asked */

	/* Configuration. */
	bool configured, started;
	/* recovery (bnxt_init.c): the firmware announced a reset (RESET_NOTIFY),
	 * and whether it was a fatal error; gone: the port cannot come back */
	bool reset_notified, fw_fatal, gone;
	bool recovering;		/* rings come up empty until the rules are back */
	uint32_t recoveries;
	struct zn_port_conf conf;
	struct bnxt_rxq *rxq[BNXT_MAX_QUEUES];
	struct bnxt_txq *txq[BNXT_MAX_QUEUES];

	/* Started state. */
	struct zn_dma_region *ctl_dma;	/* NQ ring, RSS table and key */
	struct bnxt_ring nq;
	uint32_t nq_raw;
	/* interrupts (bnxt_irq.c): NQ of queue pair i, MSI-X vector 1 + i */
	uint16_t irq_nqs;		/* 0: no pair has one (the port only polls) */
	struct zn_dma_region *irq_dma;
	struct bnxt_ring irq_nq[BNXT_MAX_QUEUES];
	uint32_t irq_nq_raw[BNXT_MAX_QUEUES];
	uint16_t vnic_id;		/* default VNIC, 0xffff when none */
	uint16_t rss_ctx[BNXT_RSS_TABLE_MAX_TBL_P5];
	uint32_t nrss_ctx;		/* allocated */
	struct bnxt_rss_entry_p5 *rss_tbl;
	uint64_t rss_tbl_iova;
	uint8_t *rss_key;
	uint64_t rss_key_iova;
	bool l2_filter_valid;
	uint64_t l2_filter_id;
	struct zn_rss_conf rss;		/* what the user asked for, applied at start */
	bool rss_set;
	struct bnxt_flow flows[BNXT_MAX_FLOWS];

	struct zn_link link;
	bool link_known;
	uint64_t async_events;
};

#define BNXT_INVALID_ID16	0xffffu
#define BNXT_INVALID_ID32	0xffffffffu

/* bnxt_hwrm.c */
int zn_bnxt_hwrm_init(struct bnxt *bp);
void zn_bnxt_hwrm_fini(struct bnxt *bp);
/*
 * Send one command and wait for its response. req starts with a
 * bnxt_hwrm_req_hdr whose req_type is set; the rest of the header is filled
 * here. The response is copied to resp (resp_size bytes; bytes past the
 * response's resp_len are zeroed). A response shorter than min_resp bytes is
 * an error. Firmware errors become a negative errno with one log line.
 */
int zn_bnxt_hwrm_send(struct bnxt *bp, void *req, uint32_t req_len, void *resp,
		      uint32_t resp_size, uint32_t min_resp);
/* The same with the header's cmpl_ring set (HWRM_DONE wanted there). */
int zn_bnxt_hwrm_send_cmpl(struct bnxt *bp, void *req, uint32_t req_len, void *resp,
			   uint32_t resp_size, uint32_t min_resp, uint16_t cmpl_ring,
			   uint16_t *seq_out);
int zn_bnxt_hwrm_errno(uint16_t error_code);
const char *zn_bnxt_hwrm_cmd_name(uint16_t req_type);
const char *zn_bnxt_hwrm_err_name(uint16_t error_code);

/* bnxt_init.c */
int zn_bnxt_fw_init(struct bnxt *bp);
void zn_bnxt_fw_fini(struct bnxt *bp);
/* After a reset under the driver (RESET_NOTIFY) or a command timeout: reset
 * the function, then bring it back as it was (firmware, rings, RSS, flow
 * rules with their ids); the buffers the rings held go back to their
 * providers. 0, or a negative errno once the port is gone for good (a fatal
 * firmware error, or a failed re-init): said in one line, and bp->gone. */
int zn_bnxt_recover(struct bnxt *bp, const char *why);

/* bnxt_ctx.c */
int zn_bnxt_ctx_init(struct bnxt *bp);
void zn_bnxt_ctx_free(struct bnxt *bp);

/* bnxt_ring.c */
int zn_bnxt_db_setup(struct bnxt *bp, struct bnxt_ring *r, enum bnxt_dbr_type type);
int zn_bnxt_dpi_get(struct bnxt *bp, uint32_t *dpi);
void zn_bnxt_dpi_put(struct bnxt *bp, uint32_t dpi);
int zn_bnxt_ring_alloc(struct bnxt *bp, struct bnxt_ring *r, uint16_t cmpl_ring,
		       uint16_t rx_ring, uint32_t stat_ctx, uint32_t rx_buf_size);
int zn_bnxt_ring_free(struct bnxt *bp, struct bnxt_ring *r, uint16_t cmpl_ring,
		      uint16_t *seq);
int zn_bnxt_stat_ctx_alloc(struct bnxt *bp, uint64_t iova, uint32_t *id);
void zn_bnxt_stat_ctx_free(struct bnxt *bp, uint32_t *id);
void *zn_bnxt_carve(struct zn_dma_region *r, size_t *off, size_t len, size_t align,
		    uint64_t *iova);

/* bnxt_rx.c */
int zn_bnxt_rxq_create(struct bnxt *bp, uint16_t q, const struct zn_rxq_conf *conf,
		       struct bnxt_rxq **out);
void zn_bnxt_rxq_destroy(struct bnxt *bp, struct bnxt_rxq *rxq);
void zn_bnxt_rxq_prepare(struct bnxt_rxq *rxq);
/* The RX and AGG rings' part of prepare: BDs written, payload buffers taken
 * from the provider; the completion ring's position is kept. */
void zn_bnxt_rxq_prepare_rings(struct bnxt_rxq *rxq);
void zn_bnxt_rxq_post_initial(struct bnxt_rxq *rxq);
void zn_bnxt_rxq_release_bufs(struct bnxt_rxq *rxq);
uint32_t zn_bnxt_rx_burst(struct bnxt_rxq *rxq, struct zn_rx_pkt *pkts, uint32_t n);
void zn_bnxt_rxq_drain(struct bnxt_rxq *rxq);

/* bnxt_tpa.c */
uint32_t zn_bnxt_tpa_segs(uint32_t buf, uint32_t mtu, uint32_t want);
int zn_bnxt_tpa_alloc(struct bnxt_rxq *q, uint32_t segs);
void zn_bnxt_tpa_free(struct bnxt_rxq *q);
void zn_bnxt_tpa_release(struct bnxt_rxq *q);
void zn_bnxt_agg_done_reset(struct bnxt_rxq *q);
/* Did TPA complete AGG slot `slot` ahead of pos.agg_cons? */
bool zn_bnxt_agg_done(const struct bnxt_rxq *q, uint32_t slot);
/* Where the AGG slots a plain RX completion may take from cons on end: at
 * the first one TPA completed ahead, else at prod. */
uint32_t zn_bnxt_agg_plain_end(const struct bnxt_rxq *q, uint32_t cons, uint32_t prod);
/* pos->agg_cons past the slots TPA completed ahead of it. */
void zn_bnxt_agg_skip(struct bnxt_rxq *q, struct bnxt_rx_pos *pos);
/* AGG slot `slot` completed, in any order: false if not posted or taken. */
bool zn_bnxt_agg_take(struct bnxt_rxq *q, struct bnxt_rx_pos *pos, uint32_t slot);
int zn_bnxt_vnic_tpa(struct bnxt *bp, uint16_t vnic, uint32_t segs);
/* A TPA record (type) at pos->cq_raw: the slots it took (pos advanced
 * past the RX/AGG slots it consumed), 0 when incomplete or to be taken by
 * the next burst; *got when p is an aggregate. */
uint32_t zn_bnxt_tpa_rx(struct bnxt_rxq *q, struct bnxt_rx_pos *pos, uint32_t type,
			struct zn_rx_pkt *p, bool *got);

/* bnxt_tx.c */
int zn_bnxt_txq_create(struct bnxt *bp, uint16_t q, const struct zn_txq_conf *conf,
		       struct bnxt_txq **out);
void zn_bnxt_txq_destroy(struct bnxt *bp, struct bnxt_txq *txq);
void zn_bnxt_txq_prepare(struct bnxt_txq *txq);
uint32_t zn_bnxt_tx_burst(struct bnxt_txq *txq, const struct zn_tx_pkt *pkts, uint32_t n);
uint32_t zn_bnxt_tx_reap(struct bnxt_txq *txq, uint64_t *cookies, uint32_t n);
void zn_bnxt_txq_drain(struct bnxt_txq *txq);

/* bnxt_start.c */
int zn_bnxt_start(struct bnxt *bp);
void zn_bnxt_stop(struct bnxt *bp);
int zn_bnxt_nq_poll(struct bnxt *bp);
int zn_bnxt_link_query(struct bnxt *bp, struct zn_link *link);
/* RING_FREE of q's AGG and RX rings, each waited for (HWRM_DONE on its CQ). */
void zn_bnxt_rxq_stop_rings(struct bnxt *bp, struct bnxt_rxq *q);

/* bnxt_rxq_restart.c */
int zn_bnxt_rxq_restart(struct bnxt *bp, uint16_t q);

/* bnxt_irq.c */
/* Before FUNC_CFG: whether the pairs get NQs of their own; the NQs
 * (MSI-X vectors) to reserve. */
uint16_t zn_bnxt_irq_plan(struct bnxt *bp);
int zn_bnxt_irq_start(struct bnxt *bp);		/* after the async NQ, before the CQs */
void zn_bnxt_irq_stop(struct bnxt *bp);		/* after the CQs are freed */
/* The NQ the CQs of pair q hang on: its own, or the async NQ. */
uint16_t zn_bnxt_irq_nq_id(const struct bnxt *bp, uint16_t q);
int zn_bnxt_irq_vectors(const struct bnxt *bp);
int zn_bnxt_irq_vector(const struct bnxt *bp, bool tx, uint16_t q);
int zn_bnxt_irq_arm(struct bnxt *bp, bool tx, uint16_t q);

/* bnxt_filter.c */
int zn_bnxt_vnic_setup(struct bnxt *bp);
void zn_bnxt_vnic_teardown(struct bnxt *bp);
int zn_bnxt_rss_apply(struct bnxt *bp);
int zn_bnxt_rss_check(const struct bnxt *bp, const struct zn_rss_conf *rss);
void zn_bnxt_rss_default(struct bnxt *bp, struct zn_rss_conf *rss);
int zn_bnxt_flow_add(struct bnxt *bp, const struct zn_flow_match *m, uint16_t q,
		     uint32_t *rule_id);
int zn_bnxt_flow_del(struct bnxt *bp, uint32_t rule_id);
uint32_t zn_bnxt_rss_table_size(const struct bnxt *bp);
/* Queue q's RX ring was allocated anew: the VNICs naming it (RSS table,
 * default ring, q's steering VNIC) are told its id again. */
int zn_bnxt_vnic_rering(struct bnxt *bp, uint16_t q);
/* VNIC_UPDATE of the VNICs naming queue q's RX ring: hold, MRU 0 (no frame
 * placed, so the ring may be freed), or not (the MRU back to the MTU's). */
int zn_bnxt_vnic_hold(struct bnxt *bp, uint16_t q, bool hold);

/* bnxt_port.c */
extern const struct zn_port_driver zn_bnxt_driver;

#endif
