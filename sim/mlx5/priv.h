/* SPDX-License-Identifier: MIT */
/*
 * sim/mlx5 internals: the state of one ConnectX-6 Dx / ConnectX-7 PF model,
 * shared by its files.
 *
 *   model.c  options, PCI identity, BAR0 (initialization segment trapped, UAR
 *            pages mapped and polled), health, poll, reset, counters
 *   cmd.c    the command queue: entries, mailbox chains, delivery status,
 *            ownership, completion EQEs; the opcode table
 *   hca.c    function life cycle: ENABLE/DISABLE_HCA, ISSI, capabilities,
 *            INIT/TEARDOWN_HCA, page supply, vport, port registers
 *   obj.c    UAR, PD, TD, mkey, EQ, CQ, TIS; EQE and CQE writers; UAR poll
 *   queue.c  SQ, RQ (cyclic, striding, SHAMPO), MODIFY state machines
 *   steer.c  TIR, RQT, flow tables, groups, entries, the root
 *   tx.c     send WQEs to the wire, TX CQEs
 *   rx.c     the wire to RQs: vport filter, flow match, RSS, placement
 *   pkt.c    frame parsing, match image, Toeplitz, checksums
 *
 * Everything runs on the loop thread; counters are read by other threads
 * (stats), hence the relaxed atomic stores.
 *
 * Hardware facts: drivers/mlx5/mlx5_hw.h and hw-docs/mlx5.md only; the
 * model's own choices are in hw-docs/mlx5-model.md.
 */
#ifndef ZN_SIM_MLX5_PRIV_H
#define ZN_SIM_MLX5_PRIV_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "drivers/mlx5/mlx5_hw.h"
#include "sim/log.h"
#include "sim/offload.h"
#include "sim/fault.h"
#include "sim/model.h"
#include "sim/wire.h"

#define MSIM_LOG		"mlx5"

/* BAR0: 1 MiB; page 0 (initialization segment) trapped, pages 1..255 (UARs,
 * with the timer and health counter at the start of page 1) mapped. */
#define MSIM_BAR0_SIZE		(1u << 20)
#define MSIM_NUM_UARS		256	/* UAR 0 is the initialization segment */
#define MSIM_INIT_DELAY_NS	20000000ull	/* initializing reads 1 this long */
/* cmd_exec_to: Linux's default of 60 s; 3 s on a device with a cmd-hang
 * fault, so that the hang is noticed within a test (a short value on every
 * device would fail slow commands on a loaded machine) */
#define MSIM_CMD_EXEC_TO	(ZN_MLX5_TO_UNIT_S << ZN_MLX5_TO_UNIT_SHIFT | 60u)
#define MSIM_CMD_EXEC_TO_HANG	(ZN_MLX5_TO_UNIT_S << ZN_MLX5_TO_UNIT_SHIFT | 3u)
#define MSIM_HEALTH_TICK_NS	100000000ull	/* health counter period */
#define MSIM_LOG_CMDQ_SIZE	5
#define MSIM_LOG_CMDQ_STRIDE	6

/* Command messages the model accepts (delivery status 0x07/0x08 beyond) */
#define MSIM_MSG_MAX		(64u * 1024)

/* Page supply (hw-docs/mlx5.md 6) */
#define MSIM_BOOT_PAGES		8
#define MSIM_INIT_PAGES		32
#define MSIM_REGULAR_PAGES	16
#define MSIM_MAX_PAGES		4096
#define MSIM_CTX_SIZE		256	/* one object context slot */
#define MSIM_SLOTS_PER_PAGE	(ZN_MLX5_PAGE_SIZE / MSIM_CTX_SIZE)
#define MSIM_LOW_SLOTS		4	/* fewer free slots: ask for a page more */

/* LSO: max_lso_cap, log2 of the bytes of one LSO WQE's packet */
#define MSIM_LOG_MAX_LSO	16

/* Object limits (the capabilities report them) */
#define MSIM_MAX_EQ		16
/* MSI-X: one vector per EQ the model can make, in a BAR of their own
 * (model choice; trapped) */
#define MSIM_MSIX_VECTORS	MSIM_MAX_EQ
#define MSIM_MSIX_BAR		2
#define MSIM_MSIX_BAR_SIZE	0x2000
#define MSIM_MSIX_TABLE_OFF	0x0000
#define MSIM_MSIX_PBA_OFF	0x1000
#define MSIM_MAX_OBJ		256	/* per kind: CQ, mkey, TIS, PD, TD ... */
#define MSIM_MAX_QPAGES		1024	/* pas[] entries of one queue */

enum msim_state {
	MS_DISABLED = 0,	/* before ENABLE_HCA */
	MS_ENABLED,		/* ENABLE_HCA .. INIT_HCA */
	MS_INIT,		/* after INIT_HCA */
	MS_TORN,		/* after TEARDOWN_HCA */
};

/* Guest memory of a queue: a list of 4 KiB pages (or one contiguous run). */
struct msim_qmem {
	uint32_t npas;
	uint8_t log_pg;		/* page size log2 (>= 12) */
	uint64_t *pas;
};

struct msim_eq {
	bool used;
	bool armed;		/* EQ doorbell 0x40 seen: MSI-X intr at the next EQE */
	uint8_t eqn;
	uint8_t log_sz;
	uint8_t intr;		/* EQC intr: its MSI-X vector */
	bool oi;
	uint32_t uar;
	uint32_t pi, ci;
	uint64_t mask[4];
	int slot;
	struct msim_qmem mem;
};

struct msim_cq {
	bool used;
	bool err;		/* overflowed or unreachable: writes nothing more */
	bool armed;
	uint32_t cqn;
	uint8_t log_sz;
	bool oi;
	uint32_t uar;
	uint8_t eqn;
	uint64_t dbr;
	uint32_t arm_seen;		/* doorbell record arm word, as last read */
	uint32_t pi;
	uint16_t period, max_count;	/* event moderation: µs, CQEs */
	uint32_t since_arm;		/* CQEs written since the arm */
	uint64_t first_ns;		/* when the first of them was */
	/* the first CQE of this pass, written but for op_own (msim_cqe_hold) */
	bool held;
	uint8_t held_own;
	uint64_t held_addr;
	unsigned users;		/* SQs/RQs naming it */
	int slot;
	struct msim_qmem mem;
};

struct msim_simple {		/* PD, TD, UAR, TIS, mkey */
	bool used;
	uint32_t id;
	int slot;		/* context slot, -1: none */
	uint32_t a, b;		/* TIS: td; mkey: pd, access mode */
	uint64_t start, len;	/* mkey */
	bool length64;
	uint64_t *mtt;		/* MTT mkey: one page address per 4 KiB */
	uint32_t nmtt;
};

/* A send or receive work queue. */
struct msim_wq {
	bool used;
	bool is_sq;
	uint8_t state;		/* ZN_MLX5_QSTATE_* */
	bool flush_in_error;
	uint32_t num;
	uint32_t cqn, pd, uar, tisn;
	uint64_t dbr;
	uint8_t wq_type;
	uint8_t log_stride, log_sz;
	int slot;
	struct msim_qmem mem;
	/* SQ: WQEBBs consumed (16-bit counter space) */
	uint16_t cc;
	uint16_t lso_next;	/* segments of the LSO WQE at cc already sent */
	/* RQ: WQEs consumed; the WQE in hand (striding) */
	uint16_t rcv;
	bool have_wqe;
	uint64_t wqe_addr;	/* buffer of the WQE in hand */
	uint32_t wqe_lkey;
	uint32_t stride;	/* next free stride in it */
	uint32_t wqe_pkts;
	/* RQ geometry */
	uint8_t log_nstrides, log_stride_sz;
	bool shampo;
	uint32_t hdr_mkey;
	uint8_t log_hdr_entry, log_hdr_num;
	uint32_t hd_per_wqe;
	uint32_t hdr_ctr;
	uint8_t log_res;		/* SHAMPO reservation bytes, log2 */
	uint32_t pkts_per_res;
	/* SHAMPO HW-GRO: the open session (rx.c) */
	bool shampo_merge;		/* match criteria not NO_MATCH */
	bool sess_open;
	struct zn_sim_gro sess;
	uint32_t sess_off, sess_end;	/* next payload byte, reservation end (WQE offsets) */
	uint64_t sess_last_rx;		/* m->rx_seq at its latest packet */
	unsigned users;		/* TIRs and RQTs naming an RQ */
};

struct msim_tir {
	bool used;
	uint32_t id;
	uint8_t disp;
	uint32_t rqn, rqtn;
	uint8_t hash_fn;
	uint8_t key[ZN_MLX5_TOEPLITZ_KEY_SIZE];
	uint32_t sel;		/* rx_hash_field_selector_outer */
	int slot;
};

struct msim_rqt {
	bool used;
	uint32_t id;
	uint32_t size;		/* actual size, a power of two */
	uint32_t *rqn;
	unsigned users;
	int slot;
};

#define MSIM_MAX_FT		16
#define MSIM_MAX_FG		64
#define MSIM_MAX_FTE		1024

struct msim_ft {
	bool used;
	uint32_t id;
	uint8_t level, log_size, miss_action;
	uint32_t miss_id;
	int slot;
};

struct msim_fg {
	bool used;
	uint32_t id, table;
	uint32_t start, end;
	uint8_t mask[ZN_MLX5_SZ_MATCH_LYR_2_4];
	int slot;
};

struct msim_fte {
	bool used;
	uint32_t table, index, group;
	uint8_t value[ZN_MLX5_SZ_MATCH_LYR_2_4];
	uint16_t action;
	uint32_t flow_tag;
	uint32_t tirn;
	int slot;
};

#define MSIM_COUNTERS(X)                                                        \
	X(cmd_doorbells) X(cmds) X(cmd_errors) X(cmd_bad_opcode)               \
	X(cmd_delivery_errors) X(cmd_not_owned) X(cmd_eqes) X(cmd_dropped_fatal) \
	X(pages_given) X(pages_returned) X(pages_leaked) X(pages_lost_reset)   \
	X(page_requests) X(no_page_refusals) X(ctx_writes) X(ctx_dma_errors)   \
	X(eqes) X(eq_overruns) X(cqes) X(cq_overflows)                        \
	X(irqs) X(irq_failures)                                                \
	X(uar_eq_db) X(uar_cq_db) X(uar_sq_db) X(uar_bad)                     \
	X(bar0_ignored) X(health_ticks) X(fatal_events) X(link_changes)       \
	X(tx_frames) X(tx_bytes) X(tx_errors) X(tx_csum_offloads) X(tx_wire_drops) \
	X(tx_lso) X(tx_lso_segs)                                               \
	X(rx_frames) X(rx_bytes) X(rx_dropped) X(rx_link_down) X(rx_vport_drops) \
	X(rx_no_root) X(rx_flow_drops) X(rx_flow_misses) X(rx_ntuple_hits)      \
	X(rx_rss) X(rx_no_rq) X(rx_no_wqe) X(rx_too_big) X(rx_dma_errors)       \
	X(rx_hds) X(rx_fillers) X(rx_csum_ok) X(rx_csum_bad)                   \
	X(rx_gro_sessions) X(rx_gro_matches) X(rx_gro_flushes) X(rx_gro_idle)

struct msim_counters {
#define MSIM_X(n) uint64_t n;
	MSIM_COUNTERS(MSIM_X)
#undef MSIM_X
};

#define MSIM_ADD(m, name, n)                                                    \
	__atomic_store_n(&(m)->c.name, __atomic_load_n(&(m)->c.name, __ATOMIC_RELAXED) + (n), \
			 __ATOMIC_RELAXED)
#define MSIM_INC(m, name) MSIM_ADD(m, name, 1)

/* A command being executed: its input and output bytes. */
struct msim_cmd {
	const uint8_t *in;
	size_t inlen;
	uint8_t *out;
	size_t outlen;		/* what the driver can take */
	uint16_t opcode, op_mod;
};

struct msim {
	struct zn_vfu_dev *dev;
	const char *name;
	struct zn_sim_port port;
	/* options */
	uint8_t mac[6];
	uint16_t device_id;
	uint16_t fw_major, fw_minor, fw_sub;
	uint32_t fatal_after_ms;	/* option: fatal this long after INIT_HCA, 0: never */
	uint8_t fatal_synd;
	uint64_t fatal_due_ns;		/* 0: not armed */
	/* BAR0 */
	uint8_t *bar0;			/* mapped UAR pages (server memory); page 0 unused */
	uint64_t touched_ns;		/* first BAR0 access since reset, 0: none */
	uint32_t cmdq_hi;
	uint64_t cmdq;			/* committed command queue address, 0: none */
	uint64_t health_next_ns;
	uint32_t health_counter;
	uint8_t synd;			/* fatal syndrome, 0: healthy */
	bool cmd_hang;			/* cmd-hang fault: the slot stays the device's */
	uint16_t ext_synd;
	int fatal_req;			/* from zn_sim_mlx5_set_fatal: synd | ext << 8, any thread */
	uint64_t uar_last[MSIM_NUM_UARS][4];	/* last CQ, EQ, SQ x2 doorbells per UAR */
	/* function */
	enum msim_state state;
	bool issi_set;
	uint8_t cmdif_checksum;
	/* pages */
	uint64_t pages[MSIM_MAX_PAGES];	/* held, in the order given */
	unsigned npages;
	unsigned reg_target;		/* regular pages wanted */
	uint8_t slot_used[MSIM_MAX_PAGES * MSIM_SLOTS_PER_PAGE / 8];
	unsigned slots_used;
	/* objects */
	struct msim_eq eq[MSIM_MAX_EQ];
	struct msim_cq cq[MSIM_MAX_OBJ];
	struct msim_simple uar[MSIM_NUM_UARS];
	struct msim_simple pd[MSIM_MAX_OBJ], td[MSIM_MAX_OBJ], tis[MSIM_MAX_OBJ],
		mkey[MSIM_MAX_OBJ];
	struct msim_wq sq[MSIM_MAX_OBJ], rq[MSIM_MAX_OBJ];
	struct msim_tir tir[MSIM_MAX_OBJ];
	struct msim_rqt rqt[MSIM_MAX_OBJ];
	struct msim_ft ft[MSIM_MAX_FT];
	struct msim_fg fg[MSIM_MAX_FG];
	struct msim_fte fte[MSIM_MAX_FTE];
	uint32_t root_ft;		/* NIC RX root table id, 0: none */
	uint64_t rx_seq, gro_mark;	/* packets received; rx_seq at the last poll */
	bool gro_open;			/* a SHAMPO session may be open */
	/* a CQ holds a CQE back (msim_cqe_hold); the frames and bytes behind
	 * the held CQEs, counted in rx_frames/rx_bytes on their release */
	bool cqe_held;
	uint64_t held_frames, held_bytes;
	uint8_t frame[ZN_SIM_FRAME_MAX + 64];	/* TX frame being assembled */
	uint8_t lso[ZN_SIM_TSO_MAX_PAYLOAD + 1024];	/* TX LSO packet being cut */
	/* vport and port */
	uint8_t vport_ctx[ZN_MLX5_SZ_NIC_VPORT_CONTEXT];
	bool admin_up;
	bool link_up;
	uint16_t admin_mtu;
	struct msim_counters c;
	struct zn_sim_ratelimit rl_cmd, rl_db;
	uint8_t msg_in[MSIM_MSG_MAX], msg_out[MSIM_MSG_MAX];
};

/* model.c */
uint64_t msim_timer_ns(void);
/* The device dies: synd into the health buffer, no more commands or data. */
void msim_fatal(struct msim *m, uint8_t synd, uint16_t ext);

/* fault.c (sim/fault.h): true if the command was failed, or must go
 * unanswered (then m->cmd_hang); the fault event due now, done but for the
 * reset of FLR (the caller's) */
bool msim_fault_cmd(struct msim *m, struct msim_cmd *c);
enum zn_sim_fault_event msim_fault_poll(struct msim *m);

/* cmd.c */
void msim_cmd_doorbell(struct msim *m, uint32_t vector);
/* Executes one command's bytes (the opcode table, no queue entry). */
void msim_cmd_exec(struct msim *m, struct msim_cmd *c);
/* Fails c with status and the syndrome opcode << 16 | check; returns 0. */
int msim_fail(struct msim *m, struct msim_cmd *c, uint8_t status, unsigned check,
	      const char *why);
/* Status BAD_INP_LEN/BAD_OUTP_LEN unless inlen >= in and outlen >= out. */
bool msim_lens(struct msim *m, struct msim_cmd *c, size_t in, size_t out);

/* hca.c */
int msim_hca_cmd(struct msim *m, struct msim_cmd *c);
/* Context slots in device pages: -1 (with a page request posted) when the
 * driver has not given enough pages. ctx (len <= MSIM_CTX_SIZE) is written
 * into the slot. */
int msim_slot_alloc(struct msim *m, const void *ctx, size_t len);
void msim_slot_free(struct msim *m, int slot);
void msim_free_objects(struct msim *m);
void msim_link_poll(struct msim *m);

/* queue.c: SQ, RQ, MODIFY state machines */
int msim_queue_cmd(struct msim *m, struct msim_cmd *c);
struct msim_wq *msim_rq_get(struct msim *m, uint64_t rqn);
void msim_queues_free(struct msim *m);

/* steer.c: TIR, RQT, flow tables */
int msim_steer_cmd(struct msim *m, struct msim_cmd *c);
void msim_steer_free(struct msim *m);
struct msim_tir *msim_tir_get(struct msim *m, uint64_t tirn);
struct msim_rqt *msim_rqt_get(struct msim *m, uint64_t rqtn);

/* mkeys (obj.c): the bus address of [addr, addr + len) under lkey, or 0
 * when the key does not cover it. */
uint64_t msim_mkey_xlate(struct msim *m, uint32_t lkey, uint64_t addr, uint64_t len);

/* tx.c */
int msim_tx_poll(struct msim *m);

/* pkt.c */
struct msim_pkt {
	unsigned l3, l4, hdr_len;	/* offsets; hdr_len 0: not split-able */
	uint8_t ipv;			/* 4, 6, 0 */
	uint8_t proto;			/* TCP/UDP or 0 */
	bool vlan, frag;
	uint16_t ethertype;
	uint16_t vid;
};
void msim_pkt_parse(const uint8_t *f, size_t len, struct msim_pkt *p);
/* The frame's fte_match_set_lyr_2_4 image (64 bytes). */
void msim_pkt_match_image(const uint8_t *f, const struct msim_pkt *p, uint8_t *img);
uint32_t msim_toeplitz(const uint8_t *key, const uint8_t *in, size_t len);
/* IPv4 header and TCP/UDP checksums: filled in, or checked (l4_bad: a
 * checksum was there and wrong). */
void msim_csum_fill(uint8_t *f, size_t len, const struct msim_pkt *p, bool l3, bool l4);
void msim_csum_check(const uint8_t *f, size_t len, const struct msim_pkt *p, bool *l3_ok,
		     bool *l4_ok, bool *l4_bad);
/* The CQE check_sum: the ones' complement sum (not inverted) of the IP
 * packet from its first header byte to its length field's end. */
uint16_t msim_csum_l3(const uint8_t *f, size_t len, const struct msim_pkt *p);
/* Where the IP packet ends by its length field (at most len). */
size_t msim_ip_end(const uint8_t *f, size_t len, const struct msim_pkt *p);

/* rx.c */
void msim_rx(void *opaque, const void *frame, size_t len);
/* Ends the SHAMPO sessions that got no packet since the previous call. */
void msim_gro_poll(struct msim *m);

/* obj.c */
int msim_obj_cmd(struct msim *m, struct msim_cmd *c);
struct msim_eq *msim_eq_for_event(struct msim *m, unsigned type);
/* Writes an EQE (type, sub_type, 28 data bytes at EQE 0x20) to eq. */
bool msim_eqe_post(struct msim *m, struct msim_eq *eq, uint8_t type, uint8_t sub,
		   const void *data);
/* The EQ's MSI-X vector (EQC intr), counted. */
void msim_eq_irq(struct msim *m, struct msim_eq *eq);
/* An EQE to the first EQ subscribed to type, if any. */
void msim_event(struct msim *m, uint8_t type, uint8_t sub, const void *data);
void msim_uar_poll(struct msim *m);
uint64_t msim_qmem_addr(const struct msim_qmem *q, uint64_t off);
/* pas[] at byte pas_off of c's input for a ring of bytes bytes in pages of
 * 2^log_pg: 0, or -1 with c failed (length, alignment, unmapped page). */
int msim_qmem_load(struct msim *m, struct msim_cmd *c, size_t pas_off, uint64_t bytes,
		   unsigned log_pg, struct msim_qmem *q);
void msim_qmem_free(struct msim_qmem *q);
struct msim_simple *msim_simple_get(struct msim_simple *t, unsigned n, uint64_t id);
bool msim_uar_valid(const struct msim *m, uint32_t uar);
struct msim_cq *msim_cq_get(struct msim *m, uint64_t cqn);
/* Writes one CQE at the CQ's producer (owner bit filled in, op_own last);
 * false on overflow or unreachable memory, which puts the CQ in error. */
bool msim_cqe_post(struct msim *m, struct msim_cq *cq, struct zn_mlx5_cqe64 *e);
/*
 * The same within one model pass, for a polled CQ: the pass's first CQE
 * goes without its op_own byte, which msim_cqe_release writes at the start
 * of the next pass, so the driver finds the pass's CQEs all at once. A
 * device completes back-to-back frames far quicker than a driver's poll
 * loop turns; the model, a thread the host may deschedule between two
 * frames, would otherwise show the driver a gap in mid-burst that no
 * device has (and a driver that ends its open HW-GRO session when the
 * queue looks quiet would cut an aggregate in two). Armed CQs are not held:
 * their event tells of the CQE at once.
 */
bool msim_cqe_hold(struct msim *m, struct msim_cq *cq, struct zn_mlx5_cqe64 *e);
void msim_cqe_release(struct msim *m);
/* Completion events of armed CQs whose moderation period ran out. */
void msim_cq_moderation_poll(struct msim *m, uint64_t now_ns, uint64_t *deadline_ns);

#endif
