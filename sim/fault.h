/* SPDX-License-Identifier: MIT */
/*
 * Fault injection: what can go wrong with a device, its firmware and its
 * wire, chosen per device ("bnxt0:wire-drop=0.01,seed=7", zn-nicsim --fault)
 * and deterministic for a given seed, each fault counted.
 *
 * A device's faults live with its ports (zn_sim_port.fault, set by
 * zn_sim_device_faults): the wire asks them about every frame a port sends,
 * the models ask them at a few points of their own (one call each), and the
 * counters come out with the device's ("NAME.fault.KEY"). Loop thread only,
 * but for the counters, which other threads may read.
 *
 * The keys (P: a probability 0..1, per frame; N: a count; hw-docs/bnxt-model.md and
 * mlx5-model.md say what each model does with them):
 *   seed=N              the generator's seed (default 1)
 *   after=N             the per-frame faults (P) spare the first N frames the
 *                       device sends and receives (e.g. its ARP exchange)
 *   wire-drop=P         a frame this device sends is lost on the wire
 *   wire-reorder=P      ... overtakes the frame queued before it
 *   wire-dup=P          ... arrives twice
 *   wire-corrupt=P      ... has a bit flipped after its FCS was computed: the
 *                       receiving MAC drops it (port rx_fcs_errors)
 *   wire-csum=P         ... has an IPv4 UDP/TCP payload byte flipped with the
 *                       FCS recomputed: the receiver sees a bad L4 checksum
 *   rx-nobuf=P          a received frame finds no RX buffer (the device drops
 *                       and counts it as it does when the ring is empty)
 *   tx-delay=MS         TX work waits MS ms before the device serves it, so
 *                       completions come that much later
 *   cmd-fail=OP         the command OP (bnxt HWRM req_type, mlx5 opcode)
 *   cmd-err=CODE        ... fails with CODE (default: the model's generic error)
 *   cmd-fail-count=N    ... N times, then succeeds again (default 1; 0: always)
 *   cmd-hang=OP         the command OP is never answered (the driver times out)
 *   cmd-hang-count=N    ... N times (default 1; 0: always)
 *   fatal-after=N       after N frames (sent + received) the firmware stops
 *                       with a fatal error until the function is reset
 *   flr-after=N         after N frames the function is reset under the driver
 *   dma-refuse=N        the Nth DMA map request the device gets is refused
 */
#ifndef ZN_SIM_FAULT_H
#define ZN_SIM_FAULT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct zn_sim_port;

#define ZN_SIM_FAULT_COUNTERS(X) \
	X(wire_drops) X(wire_reorders) X(wire_dups) X(wire_corrupts) X(wire_csums) \
	X(rx_nobufs) X(tx_delays) X(cmd_fails) X(cmd_hangs) X(fatals) X(flrs) \
	X(dma_refusals)

struct zn_sim_fault_counters {
#define ZN_SIM_FAULT_X(n) uint64_t n;
	ZN_SIM_FAULT_COUNTERS(ZN_SIM_FAULT_X)
#undef ZN_SIM_FAULT_X
};

struct zn_sim_fault {
	uint64_t rng;
	/* per-frame probabilities as thresholds of a 32-bit draw */
	uint64_t p_drop, p_reorder, p_dup, p_corrupt, p_csum, p_nobuf;
	uint32_t tx_delay_ms;
	int cmd_fail, cmd_hang;		/* -1: none */
	uint32_t cmd_err;		/* 0: the model's generic error */
	uint32_t cmd_fail_left, cmd_hang_left;	/* UINT32_MAX: always */
	uint64_t fatal_after, flr_after;	/* 0: never */
	uint64_t frames;		/* sent + received, for *-after */
	uint64_t after;			/* no per-frame fault before this many */
	uint32_t dma_refuse, dma_maps;	/* the Nth map; maps seen */
	uint64_t tx_hold_until_ns;
	bool tx_holding;
	struct zn_sim_fault_counters c;
};

/* A fault set with nothing enabled. */
struct zn_sim_fault *zn_sim_fault_new(void);
void zn_sim_fault_free(struct zn_sim_fault *f);
/* Adds "key=val,..." to f (later keys win); -EINVAL with err set. */
int zn_sim_fault_apply(struct zn_sim_fault *f, const char *kvs, char *err, size_t errlen);
/* Counters through emit ("wire_drops" ...). */
void zn_sim_fault_stats(const struct zn_sim_fault *f,
			void (*emit)(void *ctx, const char *key, uint64_t v), void *ctx);
/* The counter KEY names, or UINT64_MAX if there is none. */
uint64_t zn_sim_fault_counter(const struct zn_sim_fault *f, const char *key);

/* ---- hooks ---- */

enum zn_sim_fault_wire {
	ZN_SIM_FAULT_PASS,	/* deliver as sent */
	ZN_SIM_FAULT_DROP,
	ZN_SIM_FAULT_REORDER,	/* deliver ahead of the frame queued before it */
	ZN_SIM_FAULT_DUP,
	ZN_SIM_FAULT_CORRUPT,	/* frame[] changed, FCS bad: the receiver drops it */
	ZN_SIM_FAULT_CSUM,	/* frame[] changed, FCS good */
};
/* The wire asks for each frame p sends (frame is the wire's own copy). */
enum zn_sim_fault_wire zn_sim_fault_wire(struct zn_sim_port *p, uint8_t *frame, size_t len);
/* The wire did the DUP or REORDER it was told (it may lack the room or an
 * earlier frame): counts it. */
void zn_sim_fault_count_wire(struct zn_sim_fault *f, enum zn_sim_fault_wire what);

/* A frame reached the model of p: true if it must pretend no RX buffer. */
bool zn_sim_fault_rx_nobuf(struct zn_sim_port *p);

/* TX gate: true while the device must not serve TX (tx-delay). */
bool zn_sim_fault_tx_hold(struct zn_sim_port *p, uint64_t now_ns, uint64_t *deadline_ns);
/* After a TX pass that did work frames' worth: starts the next delay; work. */
int zn_sim_fault_tx_ran(struct zn_sim_port *p, int work);

enum zn_sim_fault_cmd { ZN_SIM_FAULT_CMD_RUN, ZN_SIM_FAULT_CMD_FAIL, ZN_SIM_FAULT_CMD_HANG };
/* A command op arrived; with FAIL, *err holds cmd-err (0: the model's choice). */
enum zn_sim_fault_cmd zn_sim_fault_cmd(struct zn_sim_port *p, uint32_t op, uint32_t *err);

enum zn_sim_fault_event { ZN_SIM_FAULT_NONE, ZN_SIM_FAULT_FATAL, ZN_SIM_FAULT_FLR };
/* Asked by the model's poll: an event due now (each fires once). */
enum zn_sim_fault_event zn_sim_fault_event(struct zn_sim_port *p);

/* A client asks to map DMA memory: true to refuse it. */
bool zn_sim_fault_dma_refuse(struct zn_sim_fault *f);

#endif
