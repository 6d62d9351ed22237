/* SPDX-License-Identifier: MIT */
/*
 * A minimal mlx5 "driver" for testing the device model (sim/mlx5) through
 * the real vfio-user client (zn_bus_open) and DMA memory (core/mem), built
 * from drivers/mlx5/mlx5_hw.h and hw-docs/mlx5.md alone: it posts command
 * queue entries with mailbox chains by hand, supplies pages, and creates
 * queues, so that tests can also send what a correct driver never would.
 *
 * And an in-process zn-nicsim: mlx5 (or other) devices on a loop thread,
 * optionally joined by a pair wire. Every wait is bounded (MTC_TIMEOUT_MS).
 */
#ifndef ZCNIC_TEST_MLX5_TEST_CLIENT_H
#define ZCNIC_TEST_MLX5_TEST_CLIENT_H

#include <pthread.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "drivers/mlx5/mlx5_hw.h"
#include "sim/model.h"
#include "sim/wire.h"
#include "zcnic/bus.h"
#include "zcnic/mem.h"

#define MTC_TIMEOUT_MS		3000
#define MTC_MEM_LEN		(16u << 20)
#define MTC_MAX_PAGES		1024
#define MTC_MBOX_POOL		160	/* mailbox blocks per direction */

/* ---- in-process zn-nicsim ---- */

struct mtc_sim {
	char dir[64];
	char path[2][96];
	struct zn_sim_device *dev[2];
	unsigned ndev;
	struct zn_sim_wire *wire;
	struct zn_vfu_loop *loop;
	pthread_t thread;
	bool running;
};

/* Devices "dev0=<spec0>" and, with spec1 non-NULL, "dev1=<spec1>" (spec:
 * "mlx5", "mlx5,device=cx7", "bnxt", ...), joined by a pair wire if wire.
 * 0 or -1. */
int mtc_sim_start(struct mtc_sim *s, const char *spec0, const char *spec1, bool wire);
void mtc_sim_stop(struct mtc_sim *s);
/* A model counter of device i; aborts the test if there is no such key. */
uint64_t mtc_counter(struct mtc_sim *s, unsigned i, const char *key);

/* ---- the client ---- */

struct mtc {
	struct zn_bus_dev *bus;
	struct zn_dma_region *mem;
	size_t brk;
	uint8_t *bar0;			/* mapped UAR pages (BAR0 + 0x1000 on) */
	uint8_t *cmdq;			/* 32 entries of 64 bytes */
	uint8_t *mbox_in, *mbox_out;	/* MTC_MBOX_POOL blocks of 1 KiB each */
	uint8_t token;
	uint64_t pages[MTC_MAX_PAGES];	/* given to the device */
	unsigned npages;
	uint64_t pages_given, pages_returned;
	uint8_t *free_pages[MTC_MAX_PAGES];	/* returned, reusable */
	unsigned nfree;
	uint8_t last_dstat;		/* delivery status of the last command */
	/* If set, every command input passes through it (a copy) before it is
	 * posted: for tests that break one field of an otherwise good input. */
	void (*mutate)(uint8_t *in, size_t len, void *arg);
	void *mutate_arg;
};

/* Faults a test can inject into one command's delivery. */
struct mtc_fault {
	uint8_t type;			/* entry type; 0: PCIe (7) */
	int bad_token_block;		/* -1: none; block whose token is wrong */
	int bad_blknum_block;		/* -1: none; block with a wrong number */
	int cut_in_chain;		/* > 0: input chain stops after this many blocks */
	int cut_out_chain;		/* > 0: output chain stops after this many blocks */
	bool misalign_in, misalign_out;	/* entry pointer + 0x100 */
	uint64_t in_ptr;		/* != 0: use this input pointer instead */
	bool no_wait;			/* ring and return, leaving the slot */
	unsigned slot;
};
#define MTC_FAULT_NONE { .bad_token_block = -1, .bad_blknum_block = -1 }

int mtc_open(struct mtc *c, const char *sock_path);
void mtc_close(struct mtc *c);
void *mtc_alloc(struct mtc *c, size_t len, size_t align);
uint64_t mtc_iova(const struct mtc *c, const void *va);

/* Waits for initializing to clear, programs the command queue. 0 or -errno. */
int mtc_boot(struct mtc *c);

/*
 * One command through slot 0 (or f->slot): in (inlen bytes) inline and in
 * mailboxes, output of outlen bytes into out. Returns the delivery status
 * (0 = delivered; the command status is out[0]), or -ETIMEDOUT if the slot
 * stayed the device's. f may be NULL.
 */
int mtc_cmd_ex(struct mtc *c, const void *in, size_t inlen, void *out, size_t outlen,
	       const struct mtc_fault *f);
/* The same without faults; returns the command status (out[0]) when the
 * delivery status is 0, 0x100 | delivery status otherwise, or -ETIMEDOUT.
 * *synd (may be NULL) gets the syndrome. */
int mtc_cmd(struct mtc *c, const void *in, size_t inlen, void *out, size_t outlen,
	    uint32_t *synd);
/* A header-only input (opcode, op_mod, then a 32-bit word at 0x08 and 0x0c)
 * and a 16-byte output; returns as mtc_cmd, *v08 the output's dword 0x08. */
int mtc_simple(struct mtc *c, uint16_t opcode, uint16_t op_mod, uint32_t w08, uint32_t w0c,
	       uint32_t *v08);

/* QUERY_PAGES(op_mod) then MANAGE_PAGES GIVE of that many. 0 or status. */
int mtc_supply_pages(struct mtc *c, uint16_t op_mod);
/* MANAGE_PAGES GIVE of n new (or returned) pages, recorded as given. */
int mtc_give_pages(struct mtc *c, uint32_t n);
/* MANAGE_PAGES TAKE of n; *got how many came back (checked against the
 * pages given: an unknown address aborts). */
int mtc_take_pages(struct mtc *c, uint32_t n, uint32_t *got);
/* Steps 6-13 of hw-docs/mlx5.md 4. 0 or the failing status. */
int mtc_bringup(struct mtc *c);
/* TEARDOWN_HCA, TAKE until QUERY_PAGES reports 0, DISABLE_HCA. */
int mtc_teardown(struct mtc *c);

/* Objects: each returns the command status, the number in *id. */
int mtc_alloc_uar(struct mtc *c, uint32_t *id);
int mtc_alloc_pd(struct mtc *c, uint32_t *id);
int mtc_alloc_td(struct mtc *c, uint32_t *id);

struct mtc_eq {
	uint8_t eqn;
	unsigned log_sz;
	uint8_t *ring;
	uint32_t ci;
	uint32_t uar;
};
/* An EQ of 2^log_sz EQEs subscribed to the events in mask (bit t = type t,
 * types below 64). */
int mtc_create_eq(struct mtc *c, struct mtc_eq *eq, uint32_t uar, unsigned log_sz,
		  uint64_t mask);
/* The next EQE if software owns it (consumed, doorbell written). */
bool mtc_eq_poll(struct mtc *c, struct mtc_eq *eq, struct zn_mlx5_eqe *out);
bool mtc_eq_wait(struct mtc *c, struct mtc_eq *eq, struct zn_mlx5_eqe *out, int timeout_ms);

struct mtc_cq {
	uint32_t cqn;
	unsigned log_sz;
	uint8_t *ring;
	uint32_t *dbr;
	uint32_t ci;
};
int mtc_create_cq(struct mtc *c, struct mtc_cq *cq, uint32_t uar, uint8_t eqn, unsigned log_sz);
/* The next CQE if software owns it (copied, consumed, dbrec updated). */
bool mtc_cq_poll(struct mtc_cq *cq, struct zn_mlx5_cqe64 *out);
bool mtc_cq_wait(struct mtc_cq *cq, struct zn_mlx5_cqe64 *out, int timeout_ms);
/* Arm for the next completion event: dbrec arm word, then UAR + 0x20. */
void mtc_cq_arm(struct mtc *c, struct mtc_cq *cq, uint32_t uar, unsigned sn);

/* ---- queues, steering, data path ---- */

/* One PA mkey over all of memory (pd), or an MTT mkey over [va, va + len). */
int mtc_create_mkey(struct mtc *c, uint32_t pd, const void *va, size_t len, uint32_t *key);
int mtc_create_tis(struct mtc *c, uint32_t td, uint32_t *tisn);

struct mtc_sq {
	uint32_t sqn, uar;
	unsigned log_sz;	/* WQEBBs */
	uint8_t *ring;
	uint32_t *dbr;
	uint16_t pc;		/* WQEBBs posted */
	unsigned bf;		/* next BlueFlame register, 0/1 */
	uint8_t *bufs;		/* gather buffers: ZN_SIM_FRAME_MAX per WQEBB slot */
};
int mtc_create_sq(struct mtc *c, struct mtc_sq *sq, uint32_t uar, uint32_t cqn, uint32_t tisn,
		  uint32_t pd, unsigned log_sz);
/* MODIFY_SQ/RQ: current state from, new state to. */
int mtc_modify(struct mtc *c, bool sq, uint32_t num, uint8_t from, uint8_t to);

/* One SEND WQE: inline_hdr bytes of the frame inline, the rest split into
 * nseg gather segments (copied into the SQ's buffer of the WQE's first
 * WQEBB slot, reused when the ring wraps) under lkey; cs
 * the eth cs_flags; CQ_UPDATE if cqe. Returns the WQE index. Rings the
 * doorbell (dbrec + UAR register). */
uint16_t mtc_send(struct mtc *c, struct mtc_sq *sq, uint32_t lkey, const void *frame, size_t len,
		  size_t inline_hdr, unsigned nseg, uint8_t cs, bool cqe);

struct mtc_rq_cfg {
	bool cyclic;			/* else linked-list striding */
	unsigned log_sz;		/* WQEs */
	unsigned log_nstrides, log_stride_sz;
	bool shampo;
	unsigned log_hdr_entry;		/* bytes, log2 */
	unsigned log_res;		/* reservation bytes, log2 */
	unsigned log_pkts_per_res;
	unsigned cyclic_buf;		/* cyclic: bytes per WQE */
	unsigned cyclic_hdr;		/* cyclic: if set, two segments: the WQE's last
					 * cyclic_hdr bytes first, then its first
					 * cyclic_buf - cyclic_hdr */
};

struct mtc_rq {
	struct mtc_rq_cfg cfg;
	uint32_t rqn;
	uint8_t *ring;
	uint32_t *dbr;
	uint8_t *buf;			/* WQE i's buffer at buf + i * wqe_bytes */
	size_t wqe_bytes;
	uint8_t *hdr;			/* header ring */
	unsigned log_hdr_num;
	uint32_t hdr_key;
	uint16_t posted;
};
int mtc_create_rq(struct mtc *c, struct mtc_rq *rq, const struct mtc_rq_cfg *cfg, uint32_t cqn,
		  uint32_t pd, uint32_t lkey);
/* Post n more WQEs (ring order) and update the dbrec. */
void mtc_rq_post(struct mtc *c, struct mtc_rq *rq, unsigned n);

int mtc_create_tir(struct mtc *c, uint32_t td, bool indirect, uint32_t rqn_or_rqtn,
		   const uint8_t *key, uint32_t selector, uint32_t *tirn);
int mtc_create_rqt(struct mtc *c, const uint32_t *rqn, unsigned n, uint32_t *rqtn);
int mtc_create_ft(struct mtc *c, unsigned log_size, uint32_t *id);
/* mask: 64-byte lyr_2_4 mask, NULL for match-all. */
int mtc_create_fg(struct mtc *c, uint32_t ft, uint32_t start, uint32_t end, const uint8_t *mask,
		  uint32_t *gid);
/* tirn 0: DROP. value: 64-byte lyr_2_4 image (NULL: zeros). */
int mtc_set_fte(struct mtc *c, uint32_t ft, uint32_t gid, uint32_t index, const uint8_t *value,
		uint32_t tirn, uint32_t flow_tag);
int mtc_set_root(struct mtc *c, uint32_t ft);

/* Ethernet/IPv4/UDP (or TCP) frame of len bytes in total: src:sport ->
 * dst:dport, checksums right, payload bytes seed + 7i. */
size_t mtc_frame(uint8_t *f, size_t len, const uint8_t *dmac, const uint8_t sip[4],
		 const uint8_t dip[4], uint16_t sport, uint16_t dport, bool tcp, uint8_t seed);

/* ---- a whole port: one SQ, up to MTC_MAX_Q RQs with a direct TIR each,
 * a NIC RX flow table (rules at 0..7 matching ip_protocol, UDP dport and
 * IPv4 destination; a catch-all at 15 to queue 0 with flow tag 0xabc) ---- */
#define MTC_MAX_Q		4
#define MTC_CATCHALL_TAG	0xabc

struct mtc_port {
	struct mtc c;
	uint32_t uar, pd, td, key, tis;
	struct mtc_eq eq;
	struct mtc_cq txcq, rxcq[MTC_MAX_Q];
	struct mtc_sq sq;
	struct mtc_rq rq[MTC_MAX_Q];
	uint32_t tir[MTC_MAX_Q];
	unsigned nq;
	uint32_t ft, fg_rules, fg_default;
	uint32_t strides_used[MTC_MAX_Q][64];	/* per WQE */
	uint64_t fillers;
	uint8_t mac[6];
	const char *failed;		/* the step that failed */
};

/* Opens, boots and brings up the function, then builds the port; 0, or
 * the failing status / -errno with p->failed naming the step. */
int mtc_port_open(struct mtc_port *p, const char *sock_path, unsigned nq,
		  const struct mtc_rq_cfg *cfg);
/* Until QUERY_VPORT_STATE says up (bounded); 0 or -ETIMEDOUT. */
int mtc_port_wait_link(struct mtc_port *p);

struct mtc_pkt {
	struct zn_mlx5_cqe64 cqe;
	uint8_t data[ZN_SIM_FRAME_MAX];
	size_t len;
	unsigned hsz, strides;
};
/* The next packet of queue qi put back together from its header entry and
 * strides (or the cyclic WQE's buffer), filler CQEs skipped and counted,
 * WQEs reposted once all their strides are used. false on timeout or on a
 * CQE that is not a receive completion. */
bool mtc_port_rx(struct mtc_port *p, unsigned qi, struct mtc_pkt *pkt, int timeout_ms);

void mtc_sleep_ms(int ms);
int64_t mtc_now_ms(void);

#endif
