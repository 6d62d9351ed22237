/* SPDX-License-Identifier: MIT */
/*
 * Wires: how the network ports of models meet.
 *
 * A port is one Ethernet-frame endpoint of a model (a NIC's MAC). The model
 * owns it, fills in rx, and sends with zn_sim_port_tx. A wire joins ports:
 *
 *   pair   two ports back to back in this process: what one sends, the other
 *          receives, on the next loop iteration (never from inside tx, so a
 *          model is not re-entered while it transmits).
 *   afpacket  a port joined to a Linux network interface through an
 *          AF_PACKET socket (sim/wire_afpacket.c): what the model sends goes
 *          out on the interface, what arrives on it goes to the model, so
 *          kernel sockets and tools (e.g. in a network namespace behind a
 *          veth pair) are real peers. Needs CAP_NET_RAW.
 *
 * A frame sent on an unplugged port, or into a full wire, is dropped and
 * counted, as a cable-less NIC or a congested link would.
 */
#ifndef ZN_SIM_WIRE_H
#define ZN_SIM_WIRE_H

#include <stddef.h>
#include <stdint.h>

#define ZN_SIM_FRAME_MAX	9216	/* jumbo frame, FCS excluded */
#define ZN_SIM_WIRE_SLOTS	128	/* frames in flight per direction */
#define ZN_SIM_WIRE_BUDGET	64	/* frames delivered per direction per poll */

struct zn_sim_wire;
struct zn_sim_fault;

struct zn_sim_port {
	const char *name;	/* for logs; set by the model */
	/* A frame arrived; the data is valid during the call only. */
	void (*rx)(void *opaque, const void *frame, size_t len);
	void *opaque;
	/* set by the wire */
	struct zn_sim_wire *wire;
	unsigned end;
	/* the device's faults (sim/fault.h), NULL: none; a pair wire applies
	 * the wire-* ones to the frames this port sends */
	struct zn_sim_fault *fault;
	/* counters; rx_fcs_errors: frames that arrived with a bad FCS and were
	 * dropped by this port's MAC (only a wire fault makes one) */
	uint64_t tx_frames, tx_dropped, rx_frames, rx_fcs_errors;
};

/* 0, or -ENOTCONN (unplugged), -EMSGSIZE (len 0 or too big), -ENOBUFS (the
 * wire is full); every failure is counted in tx_dropped. */
int zn_sim_port_tx(struct zn_sim_port *p, const void *frame, size_t len);

/* How many frames p can send now without -ENOBUFS, so that a model can hold
 * its TX back rather than lose frames (ZN_SIM_WIRE_SLOTS when unplugged:
 * those frames are dropped whatever the model does). */
unsigned zn_sim_port_tx_room(const struct zn_sim_port *p);

/* Joins a and b (both unplugged, not the same port). */
int zn_sim_wire_pair(struct zn_sim_port *a, struct zn_sim_port *b, struct zn_sim_wire **out);
/*
 * Joins p to the network interface ifname: a TPACKET_V3 receive ring bound
 * to the interface (promiscuous while the wire lives: a NIC model has a MAC
 * of its own), frames it sends go out with send(2). 0, or a negative errno
 * with one line in err (-EPERM: no CAP_NET_RAW, -ENODEV: no such interface).
 */
int zn_sim_wire_afpacket(struct zn_sim_port *p, const char *ifname, struct zn_sim_wire **out,
			 char *err, size_t errlen);
/* Delivers queued frames: a loop poller (zn_vfu_loop_add_poller). */
int zn_sim_wire_poll(void *wire, uint64_t now_ns, uint64_t *deadline_ns);
/* A file descriptor that turns readable when the wire has frames to deliver
 * (for zn_vfu_loop_add_fd, so that an idle loop wakes up), or -1. */
int zn_sim_wire_fd(const struct zn_sim_wire *w);
/* The wire's own counters ("rx_csum_completed 3", ...); a pair has none. */
void zn_sim_wire_stats(const struct zn_sim_wire *w,
		       void (*emit)(void *ctx, const char *key, uint64_t v), void *ctx);
/* Unplugs the ports, drops frames in flight. */
void zn_sim_wire_free(struct zn_sim_wire *w);

/*
 * A tap on every wire of the process, for capture (zn-nicsim --pcap): fn
 * sees each frame a model port put on a wire (once the wire took it) and
 * each frame an afpacket wire brought in from its interface, so every
 * frame that crosses a wire is seen once. Loop thread only; NULL: none.
 */
typedef void (*zn_sim_wire_tap_fn)(void *ctx, const struct zn_sim_port *p, const void *frame,
				   size_t len);
void zn_sim_wire_set_tap(zn_sim_wire_tap_fn fn, void *ctx);

#endif
