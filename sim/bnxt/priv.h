/* SPDX-License-Identifier: MIT */
/*
 * sim/bnxt internals: the state of one bnxt P5 PF model, shared by its files.
 *
 *   model.c  options, PCI identity and BARs, trapped accesses, poll, reset
 *   hwrm.c   the firmware channel: request window, short commands, the
 *            response and its valid byte, HWRM_DONE; function commands
 *   res.c    rings, stat contexts (RING_ALLOC/FREE, STAT_CTX_*)
 *   vnic.c   VNICs, RSS, placement modes, L2 and n-tuple filters
 *   db.c     doorbells: polled DPI pages, the trapped legacy page
 *   cmpl.c   completion and NQ records, async events, interrupts, stats DMA
 *   tx.c     TX rings to the wire
 *   rx.c     the wire to RX rings: classification, RSS, placement
 *   tpa.c    TPA: TCP receive aggregation (GRO mode) of a VNIC
 *   pkt.c    frame parsing, checksums, Toeplitz
 *
 * Everything runs on the loop thread; the counters are also read by other
 * threads (stats), hence the relaxed atomic increments.
 *
 * Hardware facts: drivers/bnxt/bnxt_hw.h and hw-docs/bnxt.md only; the
 * model's own choices are in hw-docs/bnxt-model.md.
 */
#ifndef ZN_SIM_BNXT_PRIV_H
#define ZN_SIM_BNXT_PRIV_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "base/barrier.h"
#include "drivers/bnxt/bnxt_hw.h"
#include "sim/log.h"
#include "sim/offload.h"
#include "sim/fault.h"
#include "sim/model.h"
#include "sim/wire.h"

#define BSIM_LOG		"bnxt"

/* Limits of the model (tunables) */
#define BSIM_MAX_RINGS		256	/* ring ids 1..256, one space for all kinds */
#define BSIM_MAX_STATS		160
#define BSIM_MAX_VNICS		40
#define BSIM_MAX_RSS_CTX	64
#define BSIM_MAX_L2		16
#define BSIM_MAX_NTUPLE		256
#define BSIM_MAX_MC		16	/* multicast table of CFA_L2_SET_RX_MASK */
#define BSIM_RSS_MAX_ENTRIES	(BNXT_RSS_TABLE_ENTRIES_P5 * BNXT_RSS_TABLE_MAX_TBL_P5)
#define BSIM_MAX_EXT_REQ	512	/* VER_GET max_ext_req_len */
#define BSIM_RING_MIN		16	/* RING_ALLOC length, entries */
#define BSIM_RING_MAX		65536
#define BSIM_MAX_AGG_BUFS	7	/* RX_MAX_SEGS 8 = 1 RX + 7 AGG (BNXT_PLAN #4) */
#define BSIM_FRAME_MIN		60	/* on the wire, FCS excluded */
#define BSIM_FRAME_OVERHEAD	18	/* Ethernet header + one VLAN tag over the MTU */
#define BSIM_MTU_MAX		9000
/* The chip's largest MTU: a 9600-byte frame less the Ethernet header, FCS
 * and two VLAN tags (DPDK drivers/net/bnxt/bnxt.h BNXT_MAX_MTU). */
#define BSIM_ADMIN_MTU_MAX	9574
#define BSIM_QUEUES_MAX		32
#define BSIM_TPA_PER_RING	8	/* open aggregations per RX ring (max_aggs_supported) */
#define BSIM_TPA_MAX_AGG_BUFS	16	/* AGG buffers per aggregation (Linux takes 17 frags) */
#define BSIM_FID		0	/* our function id (PF 0) */
#define BSIM_PORT_ID		0

/* BAR layout (hw-docs/bnxt.md sections 2 and 7.4; sizes are model choices) */
#define BSIM_BAR0_SIZE		0x10000
#define BSIM_DB_PAGE		BNXT_DB_PAGE_4K

enum bsim_kind {
	BK_FREE = 0,
	BK_NQ,
	BK_CQ,
	BK_TX,
	BK_RX,
	BK_AGG,
};

struct bsim_stat {
	bool used;
	uint32_t id;
	uint64_t dma_addr;
	uint32_t period_ms;
	uint64_t next_ns;
	struct bnxt_ctx_hw_stats hw;
};

struct bsim_ring {
	uint8_t kind;		/* enum bsim_kind; BK_FREE: slot unused */
	bool armed;		/* CQ: CQ_ARMALL seen; NQ: NQ_ARM seen */
	bool dead;		/* CQ/NQ overflowed, or ring memory unreachable:
				 * the model no longer touches it */
	uint8_t int_mode;	/* NQ: RING_ALLOC int_mode */
	bool no_overflow;	/* CQ/NQ: never full (overwrites what the driver
				 * has not consumed, as hardware does with
				 * DISABLE_CQ_OVERFLOW_DETECTION) */
	uint16_t id;		/* RING_ALLOC ring_id = doorbell xid */
	uint16_t logical_id;
	uint32_t size, mask;	/* entries, a power of two */
	uint64_t base;		/* IOVA of entry 0 */
	/* Raw free-running indices. Producer rings (TX/RX/AGG): prod from the
	 * driver's doorbells, cons advanced by the model. CQ/NQ: prod advanced
	 * by the model, cons from the driver's doorbells. */
	uint32_t prod, cons;
	int dpi;		/* doorbell page index, -1: legacy doorbell only */
	uint64_t db_last;	/* last value seen on that page */
	struct bsim_ring *cq;	/* TX: its completion ring */
	struct bsim_ring *nq;	/* CQ: its NQ */
	struct bsim_ring *agg;	/* RX: its AGG ring, if any */
	struct bsim_ring *rx;	/* AGG: its RX ring */
	struct bsim_stat *stat;
	uint16_t buf_size;	/* RX/AGG: RING_ALLOC rx_buf_size */
	uint64_t cq_handle;	/* CQ: echoed in NQ entries */
	uint16_t lso_next;	/* TX: segments of the LSO packet at cons already sent */
};

struct bsim_rss_entry {
	struct bsim_ring *rx, *cq;
};

struct bsim_vnic {
	bool used, is_default;
	uint16_t id;
	uint32_t flags;			/* VNIC_CFG flags */
	uint16_t mru;			/* 0: not configured */
	bool stopped;			/* VNIC_UPDATE mru 0: no frame placed */
	struct bsim_ring *dflt_rx, *dflt_cq;
	uint32_t rx_mask;		/* CFA_L2_SET_RX_MASK */
	uint8_t mc[BSIM_MAX_MC][6];
	unsigned n_mc;
	uint32_t plc_flags;		/* VNIC_PLCMODES_CFG */
	uint16_t jumbo_thresh, hds_threshold;
	uint32_t tpa_flags;		/* VNIC_TPA_CFG; 0: no TPA */
	uint16_t tpa_max_segs, tpa_max_aggs;
	uint32_t tpa_min_len;
	uint32_t hash_type;		/* VNIC_RSS_CFG; 0: no RSS */
	uint8_t key[BNXT_RSS_KEY_SIZE];
	uint8_t chunks;			/* bit n: chunk n configured */
	int8_t ctx[BNXT_RSS_TABLE_MAX_TBL_P5];	/* RSS context slot per chunk, -1 */
	unsigned n_entries;		/* 64 x contiguous configured chunks from 0 */
	struct bsim_rss_entry table[BSIM_RSS_MAX_ENTRIES];
};

/* An open TPA aggregation (tpa.c). */
struct bsim_tpa {
	bool open;
	struct zn_sim_gro g;
	struct bsim_ring *rx, *cq;
	uint32_t start_opaque;
	uint64_t last_rx;		/* m->rx_seen at its latest frame */
	unsigned nagg;			/* RX_TPA_AGG records posted */
	bool have_abd;			/* an AGG buffer in hand */
	struct bnxt_rx_bd abd;
	uint32_t fill;			/* bytes in it */
	uint16_t flags_type;		/* placement, RSS_VALID, itype (START and END) */
	uint16_t max_segs;
};

struct bsim_rss_ctx {
	bool used;
	uint16_t id;
	int vnic;			/* slot of the VNIC it serves, -1 */
};

struct bsim_l2f {
	bool used;
	uint64_t id;
	uint8_t mac[6], mask[6];
	struct bsim_vnic *vnic;
};

struct bsim_ntuple {
	uint64_t id;
	uint32_t flags, enables;
	struct bsim_l2f *l2;
	struct bsim_vnic *vnic;
	uint8_t src_mac[6];
	uint16_t ethertype;		/* big-endian, as in the packet */
	uint8_t ip_type, proto;
	uint8_t src[16], src_mask[16], dst[16], dst_mask[16];
	uint16_t sport, sport_mask, dport, dport_mask;	/* big-endian */
};

/* Resource counts: QCAPS maxima, FUNC_CFG reservations, in use. */
struct bsim_counts {
	unsigned tx, rx, cq, nq, stat, vnic, rss, l2;
};

#define BSIM_COUNTERS(X)                                                      \
	X(hwrm_cmds) X(hwrm_errors) X(hwrm_unsupported) X(hwrm_short_cmds)     \
	X(hwrm_bad_short) X(hwrm_no_response) X(hwrm_bad_trigger)              \
	X(hwrm_overlap) X(hwrm_done) X(hwrm_fault_fails) X(bar0_ignored)       \
	X(db_legacy) X(db_legacy_polled) X(db_polled) X(db_bad) X(db_bad_ring) X(db_bad_type)      \
	X(db_bad_bits) X(db_bad_index) X(db_bad_move) X(db_bad_access)         \
	X(tx_frames) X(tx_bytes) X(tx_errors) X(tx_bad_bd) X(tx_bad_len)       \
	X(tx_zero_len) X(tx_hint_short) X(tx_dma_errors) X(tx_csum_offloads)   \
	X(tx_vlan_inserts) X(tx_wire_drops) X(tx_lso) X(tx_lso_segs)           \
	X(rx_frames) X(rx_bytes) X(rx_l2_drops) X(rx_ntuple_hits)              \
	X(rx_ntuple_drops) X(rx_rss) X(rx_hds) X(rx_jumbo) X(rx_no_ring)       \
	X(rx_no_buffer) X(rx_did_not_fit) X(rx_bad_bd) X(rx_dma_errors)        \
	X(rx_oversize) X(rx_csum_errors) X(rx_vlan_strips) X(rx_link_down)     \
	X(rx_tpa_starts) X(rx_tpa_ends) X(rx_tpa_frames) X(rx_tpa_aborts)     \
	X(rx_tpa_flush_max) X(rx_tpa_flush_other) X(rx_tpa_flush_idle)        \
	X(rx_tpa_flush_psh) X(rx_tpa_flush_nobuf) X(rx_tpa_no_ctx)            \
	X(cq_overflows) X(nq_entries) X(async_events) X(irqs) X(irq_failures)  \
	X(ring_faults) X(stats_dma) X(stats_dma_errors) X(link_changes)        \
	X(fault_drops) X(fault_corrupts)

struct bsim_counters {
#define BSIM_X(n) uint64_t n;
	BSIM_COUNTERS(BSIM_X)
#undef BSIM_X
};

#define BSIM_ADD(m, name, n)                                                    \
	__atomic_store_n(&(m)->c.name, __atomic_load_n(&(m)->c.name, __ATOMIC_RELAXED) + (n), \
			 __ATOMIC_RELAXED)
#define BSIM_INC(m, name) BSIM_ADD(m, name, 1)

/* The HWRM request being served: the bytes, zero beyond what was sent. */
struct bsim_req {
	uint8_t b[BSIM_MAX_EXT_REQ];
	const struct bnxt_hwrm_req_hdr *hdr;
	bool is_short;		/* came by short command, else by the window */
};

struct bsim_resp {
	uint8_t b[BNXT_HWRM_MAX_RESP_LEN];
	uint16_t len;		/* the output struct's size */
};

struct bsim {
	struct zn_vfu_dev *dev;
	const char *name;
	struct zn_sim_port port;
	/* options */
	uint8_t mac[6];
	bool multidb;
	unsigned queues;
	unsigned mtu;
	uint32_t drop_every, corrupt_every;
	int fail_cmd;			/* req_type refused with FAIL, -1: none */
	uint32_t valid_delay_ms;
	uint64_t dsn;
	/* BAR2 layout */
	uint32_t ndpi;			/* DPIs after the legacy page */
	uint32_t first_dpi;
	uint64_t bar2_size;
	uint8_t *bar2;			/* shared doorbell pages (server memory) */
	uint8_t *bar0;			/* BAR0, mapped: the HWRM window and trigger */
	bool legacy_db_mapped;		/* legacy=map: the legacy doorbell page polled */
	uint64_t legacy_last;		/* last value seen there */
	/* function state */
	bool bs_done, registered;
	uint32_t async_fwd[8];
	struct bsim_ring *async_cr;
	uint16_t admin_mtu, mru;
	struct bsim_counts max, rsv, used;
	/* HWRM channel */
	uint8_t win[BNXT_HWRM_MAX_REQ_LEN];
	bool hwrm_pending;
	uint8_t hwrm_win[BNXT_HWRM_MAX_REQ_LEN];	/* the window at the trigger */
	bool valid_pending;		/* valid_delay_ms: the last byte is due */
	uint64_t valid_addr, valid_due_ns;
	/* resources; ring id = slot + 1 */
	struct bsim_ring ring[BSIM_MAX_RINGS];
	struct bsim_ring *dpi_ring[BSIM_MAX_RINGS];	/* bound ring per DPI - first_dpi */
	struct bsim_ring *polled[BSIM_MAX_RINGS];	/* rings with a DPI, to poll */
	unsigned npolled;
	struct bsim_ring *txr[BSIM_MAX_RINGS];		/* TX rings, to serve */
	unsigned ntx;
	unsigned tx_next;				/* round robin start */
	struct bsim_stat stat[BSIM_MAX_STATS];
	uint64_t stats_due_ns;				/* earliest stat DMA */
	struct bsim_vnic vnic[BSIM_MAX_VNICS];
	struct bsim_rss_ctx rss[BSIM_MAX_RSS_CTX];
	struct bsim_l2f l2[BSIM_MAX_L2];
	struct bsim_ntuple nt[BSIM_MAX_NTUPLE];		/* in allocation order */
	unsigned n_nt;
	uint64_t filter_gen;
	/* link */
	bool link_up;
	bool fw_dead;			/* fatal-after fault: until a new client */
	int admin_down;			/* zn_sim_bnxt_set_link, any thread */
	/* faults */
	uint64_t rx_seen, tx_seen;
	struct bsim_tpa tpa[BSIM_MAX_RINGS][BSIM_TPA_PER_RING];	/* by RX ring slot */
	unsigned tpa_open;
	uint64_t tpa_mark;		/* rx_seen at the previous TPA poll */
	struct bsim_counters c;
	struct zn_sim_ratelimit rl_hwrm, rl_db, rl_tx, rl_rx;
	uint8_t frame[ZN_SIM_FRAME_MAX + 8];	/* TX frame being assembled */
	uint8_t lso[ZN_SIM_TSO_MAX_PAYLOAD + 512];	/* TX LSO packet being cut */
	uint8_t rxframe[ZN_SIM_FRAME_MAX];	/* RX frame with its VLAN tag stripped */
};

/* hwrm.c */
int bsim_refuse(struct bsim *m, const struct bsim_req *rq, int code, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));
/* False (with *code = BUSY) until FUNC_BACKING_STORE_CFG has succeeded. */
bool bsim_need_bs(struct bsim *m, const struct bsim_req *rq, int *code);
bool bsim_queue_id_ok(uint16_t id);
int bsim_hwrm_trigger(struct bsim *m, uint32_t value);
int bsim_hwrm_poll(struct bsim *m, uint64_t now_ns, uint64_t *deadline_ns);
/* BAR0 is mapped by the client: a trigger word written there starts a command. */
int bsim_hwrm_mapped_poll(struct bsim *m);
void bsim_hwrm_exec(struct bsim *m, const void *req, size_t len);

/* res.c */
struct bsim_ring *bsim_ring_by_id(struct bsim *m, uint32_t id);
int bsim_cmd_ring_alloc(struct bsim *m, const struct bsim_req *rq, struct bsim_resp *rs);
int bsim_cmd_ring_free(struct bsim *m, const struct bsim_req *rq, struct bsim_resp *rs);
int bsim_cmd_stat_alloc(struct bsim *m, const struct bsim_req *rq, struct bsim_resp *rs);
int bsim_cmd_stat_free(struct bsim *m, const struct bsim_req *rq, struct bsim_resp *rs);
int bsim_cmd_stat_query(struct bsim *m, const struct bsim_req *rq, struct bsim_resp *rs);
int bsim_cmd_stat_clr(struct bsim *m, const struct bsim_req *rq, struct bsim_resp *rs);
/* Every resource of the function, as FUNC_RESET frees them. */
void bsim_free_all(struct bsim *m);

/* vnic.c */
struct bsim_vnic *bsim_vnic_by_id(struct bsim *m, uint32_t id);
int bsim_cmd_vnic_alloc(struct bsim *m, const struct bsim_req *rq, struct bsim_resp *rs);
int bsim_cmd_vnic_free(struct bsim *m, const struct bsim_req *rq, struct bsim_resp *rs);
int bsim_cmd_vnic_cfg(struct bsim *m, const struct bsim_req *rq, struct bsim_resp *rs);
int bsim_cmd_vnic_qcaps(struct bsim *m, const struct bsim_req *rq, struct bsim_resp *rs);
int bsim_cmd_vnic_update(struct bsim *m, const struct bsim_req *rq, struct bsim_resp *rs);
int bsim_cmd_rss_ctx_alloc(struct bsim *m, const struct bsim_req *rq, struct bsim_resp *rs);
int bsim_cmd_rss_ctx_free(struct bsim *m, const struct bsim_req *rq, struct bsim_resp *rs);
int bsim_cmd_rss_cfg(struct bsim *m, const struct bsim_req *rq, struct bsim_resp *rs);
int bsim_cmd_plcmodes_cfg(struct bsim *m, const struct bsim_req *rq, struct bsim_resp *rs);
int bsim_cmd_plcmodes_qcfg(struct bsim *m, const struct bsim_req *rq, struct bsim_resp *rs);
int bsim_cmd_tpa_cfg(struct bsim *m, const struct bsim_req *rq, struct bsim_resp *rs);
int bsim_cmd_l2_alloc(struct bsim *m, const struct bsim_req *rq, struct bsim_resp *rs);
int bsim_cmd_l2_free(struct bsim *m, const struct bsim_req *rq, struct bsim_resp *rs);
int bsim_cmd_rx_mask(struct bsim *m, const struct bsim_req *rq, struct bsim_resp *rs);
int bsim_cmd_ntuple_alloc(struct bsim *m, const struct bsim_req *rq, struct bsim_resp *rs);
int bsim_cmd_ntuple_free(struct bsim *m, const struct bsim_req *rq, struct bsim_resp *rs);
/* Is the ring named by a VNIC (default ring or RSS table)? */
/* Does a VNIC name ring r (default ring, RSS table)? live: only VNICs that
 * place frames (not stopped by VNIC_UPDATE mru 0). */
bool bsim_vnic_uses_ring(const struct bsim *m, const struct bsim_ring *r, bool live);
void bsim_vnic_free_all(struct bsim *m);

/* db.c */
int bsim_db_poll(struct bsim *m);
void bsim_db_write(struct bsim *m, uint64_t v, int dpi);
void bsim_db_rebase(struct bsim *m);

/* cmpl.c */
/* n 16-byte slots from raw index idx of ring r (wrapping) copied out of, or
 * into, client memory with the guarded DMA copies; false if the ring's
 * memory is gone, which stops the ring (ring_faults). */
bool bsim_ring_copy(struct bsim *m, struct bsim_ring *r, uint32_t idx, void *buf, unsigned n,
		    bool write);
bool bsim_cq_room(struct bsim_ring *cq, unsigned slots);
/* Writes n 16-byte records (V bits filled in here) at the CQ's producer; the
 * first slot's V word is stored last. false: overflow or DMA fault. */
bool bsim_cq_post(struct bsim *m, struct bsim_ring *cq, void *recs, unsigned n);
void bsim_cq_arm_check(struct bsim *m, struct bsim_ring *cq);
void bsim_nq_arm_check(struct bsim *m, struct bsim_ring *nq);
void bsim_async_link(struct bsim *m);
void bsim_hwrm_done(struct bsim *m, struct bsim_ring *r, uint16_t seq_id);
int bsim_stats_poll(struct bsim *m, uint64_t now_ns, uint64_t *deadline_ns);

/* tx.c */
int bsim_tx_poll(struct bsim *m);
int bsim_tx_drain(struct bsim *m, struct bsim_ring *r);

/* rx.c */
void bsim_rx(void *opaque, const void *frame, size_t len);
void bsim_stat_rx(struct bsim_stat *st, const uint8_t *f, size_t len);
bool bsim_rx_bd_ok(const struct bnxt_rx_bd *bd, unsigned type);
unsigned bsim_rx_room(const struct bnxt_rx_bd *bd);

/* tpa.c */
struct bsim_pkt;
/* Frame f (TCP, checksums good) for ring rx of VNIC v with TPA: merged into
 * an aggregation or starting one (true), or left to normal delivery
 * (false), after closing the aggregation of its flow if it ends it. */
bool bsim_tpa_rx(struct bsim *m, struct bsim_vnic *v, struct bsim_ring *rx, struct bsim_ring *cq,
		 const uint8_t *f, const struct bsim_pkt *p, uint32_t hash, uint8_t rss_type,
		 bool rss_valid);
/* Closes the aggregations that got no frame since the previous call. */
int bsim_tpa_poll(struct bsim *m);
/* Forgets ring r's aggregations without completing them (ring gone). */
void bsim_tpa_forget(struct bsim *m, struct bsim_ring *r);
/* A frame of an aggregating flow that cannot join (a bad checksum) goes
 * as a plain completion: the flow's aggregation ends first, as its AGG
 * buffers were taken before the frame's. */
void bsim_tpa_flow_end(struct bsim *m, struct bsim_ring *rx, const uint8_t *f,
		       const struct bsim_pkt *p);

/* fault.c (sim/fault.h): true if the command must go unanswered, else
 * *code is set when the command must fail */
bool bsim_fault_cmd(struct bsim *m, const struct bsim_req *rq, int *code);
/* the fault event due now, done but for the reset of FLR (the caller's) */
enum zn_sim_fault_event bsim_fault_poll(struct bsim *m);

/* pkt.c: what RX, RSS, n-tuple and checksum offload need from a frame */
struct bsim_pkt {
	unsigned l3;		/* offset of the IP header, 0: not IP */
	unsigned l4;		/* offset of the L4 header, 0: none parsed */
	unsigned hdr_len;	/* headers through L4 (TCP/UDP) or L3 */
	unsigned ip_end;	/* end of the IP packet by its length field */
	uint16_t ethertype;	/* host order, after VLAN tags */
	uint8_t ipv;		/* 4, 6, 0 */
	uint8_t proto;		/* L4 protocol; 0 when unknown */
	bool frag;		/* IPv4 fragment: no L4 */
	bool vlan;		/* one 802.1Q / 802.1ad tag at offset 12 */
	const uint8_t *src, *dst;	/* IP addresses */
	uint16_t sport, dport;	/* big-endian */
};
void bsim_pkt_parse(const uint8_t *f, size_t len, struct bsim_pkt *p);
uint32_t bsim_toeplitz(const uint8_t key[BNXT_RSS_KEY_SIZE], const uint8_t *in, size_t len);
/* Ones' complement sum helpers (RFC 1071). */
uint32_t bsim_csum_add(uint32_t sum, const uint8_t *p, size_t len);
uint16_t bsim_csum_fold(uint32_t sum);
/* IP header checksum and L4 checksum (pseudo-header included) of a parsed
 * packet: computed into the frame (fill), or verified (check: *_ok false on
 * a bad sum, *_calc whether there was one to verify). */
void bsim_csum_fill(uint8_t *f, const struct bsim_pkt *p, bool ip, bool l4);
void bsim_csum_check(const uint8_t *f, const struct bsim_pkt *p, bool *ip_ok, bool *l4_ok,
		     bool *ip_calc, bool *l4_calc);

/* Ring helpers */
static inline uint32_t bsim_phase(uint32_t raw, uint32_t size)
{
	return bnxt_cmpl_phase(raw, size);
}

#endif
