/* SPDX-License-Identifier: MIT */
/*
 * zn-bench, zcnic path: UDP send and zcrx receive over zn-nicsim, measured
 * by the zn-send and zn-recv programs themselves (child processes; see
 * zcnic_proc.c), whose summary lines are parsed here.
 *
 * send: zn-recv on port 1 is the sink (no payload check), zn-send on port 0
 *   sends for --duration-ms: SEND from a DMA region (nonzc), SEND_ZC from
 *   registered buffers (zc), and the same waiting for every notification of
 *   a batch before the next (zc-wait). Requests/s and CPU per request are
 *   zn-send's own: its process only, the simulator not included.
 * recv: zn-send streams 8000-byte SEND_ZC datagrams as fast as it can,
 *   zn-recv (zcrx: RECV_ZC + refill ring) receives; Gbit/s from first to
 *   last byte, CPU us per MB of the zn-recv process. zn-recv busy-polls its
 *   queue, so its CPU time is its wall time over that span.
 * send-tcp, recv-tcp: the same with --proto tcp on both sides: one
 *   connection, zn-recv's RECV_ZC multishot (zcrx) until zn-send's FIN;
 *   zn-send's SEND_ZC notification comes once the peer acknowledged the
 *   bytes. recv-tcp streams 64 KiB SEND_ZC requests.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "zcnic.h"

#define RECV_EXTRA_MS	8000	/* zn-recv's own limit beyond the send time */
#define RUN_EXTRA_MS	15000	/* a run's limit beyond the send time */
#define IDLE_MS		"100"	/* zn-recv ends this long after the last datagram */
#define ARG_LEN		32

enum zmode { Z_NONZC, Z_ZC, Z_ZC_WAIT, Z_RECV };

struct zst {
	enum zmode mode;
	bool tcp;
	uint16_t queues;		/* --queues on both sides; 0: not given */
	const char *port0, *port1;
};

static int setup(const struct bench_case *c, void **state, enum zmode mode, bool tcp)
{
	struct zst *st;
	int ret;

	if (!tcp && c->size > ZCNIC_MAX_SIZE) {
		snprintf(c->note, BENCH_NOTE_LEN, "zn-send sends up to %u B per datagram (MTU 9000)",
			 ZCNIC_MAX_SIZE);
		return -EOPNOTSUPP;
	}
	st = calloc(1, sizeof(*st));
	if (!st)
		return -ENOMEM;
	st->mode = mode;
	st->tcp = tcp;
	ret = zcnic_sim_ports(&st->port0, &st->port1, c->note);
	if (ret) {
		free(st);
		return ret;
	}
	*state = st;
	return 0;
}

int zcnic_send_setup(const struct bench_case *c, void **state)
{
	return setup(c, state, Z_NONZC, false);
}

int zcnic_send_tcp_setup(const struct bench_case *c, void **state)
{
	return setup(c, state, Z_NONZC, true);
}

int zcnic_send_zc_setup(const struct bench_case *c, void **state)
{
	return setup(c, state, Z_ZC, false);
}

int zcnic_send_tcp_zc_setup(const struct bench_case *c, void **state)
{
	return setup(c, state, Z_ZC, true);
}

int zcnic_send_zcw_setup(const struct bench_case *c, void **state)
{
	return setup(c, state, Z_ZC_WAIT, false);
}

int zcnic_send_tcp_zcw_setup(const struct bench_case *c, void **state)
{
	return setup(c, state, Z_ZC_WAIT, true);
}

int zcnic_recv_setup(const struct bench_case *c, void **state)
{
	return setup(c, state, Z_RECV, false);
}

int zcnic_recv_tcp_setup(const struct bench_case *c, void **state)
{
	return setup(c, state, Z_RECV, true);
}

/* recv over 1 and over 2 queues (zn-send --queues N into zn-recv --queues N):
 * the same receive loop, a thread per queue, RSS spreading one flow per queue */
static int setup_queues(const struct bench_case *c, void **state, uint16_t n)
{
	int ret = setup(c, state, Z_RECV, false);

	if (ret == 0)
		((struct zst *)*state)->queues = n;
	return ret;
}

int zcnic_recv_q1_setup(const struct bench_case *c, void **state)
{
	return setup_queues(c, state, 1);
}

int zcnic_recv_q2_setup(const struct bench_case *c, void **state)
{
	return setup_queues(c, state, 2);
}

void zcnic_send_teardown(void *state)
{
	free(state);
	zcnic_sim_release();
}

/* The note of a failed run: the child's own words where it left some. */
static int fail(const struct bench_case *c, int err, const char *what,
		const struct zcnic_out *out, const char *prog)
{
	const char *last = NULL, *p = out->buf;

	while (p && *p) {
		if (!strncmp(p, prog, strlen(prog)))
			last = p;
		p = strchr(p, '\n');
		p = p ? p + 1 : NULL;
	}
	if (last)
		snprintf(c->note, BENCH_NOTE_LEN, "%s: %.*s", what, (int)strcspn(last, "\n"), last);
	else
		snprintf(c->note, BENCH_NOTE_LEN, "%s (exit %d)", what, out->status);
	return err;
}

struct recv_fig {
	uint64_t bytes;
	double secs, gbps, cpu_us_mb, user_us_mb, sys_us_mb;
};

static int parse_recv(const struct zcnic_out *o, struct recv_fig *f)
{
	const char *l = zcnic_line(o, "zn-recv: ", " bytes in ");
	const char *g = zcnic_line(o, "zn-recv: ", " from first to last byte");

	memset(f, 0, sizeof(*f));
	if (!l || !g || sscanf(l, "zn-recv: %" SCNu64 " bytes in", &f->bytes) != 1 ||
	    /* whose CPU: "zn-recv process", or with --queues "the queue threads, summed" */
	    sscanf(g, "zn-recv: %lf s from first to last byte: %lf Gbit/s; CPU %lf us per MB "
		   "(%*[^:]: user + sys = %lf + %lf)", &f->secs, &f->gbps, &f->cpu_us_mb,
		   &f->user_us_mb, &f->sys_us_mb) < 3)
		return -EPROTO;
	if (f->user_us_mb + f->sys_us_mb <= 0)
		f->user_us_mb = f->cpu_us_mb;	/* no split given: all counted as user */
	return 0;
}

int zcnic_send_run(void *state, const struct bench_case *c, struct bench_meas *m)
{
	static struct zcnic_out ro, to;
	struct zst *st = state;
	char size[ARG_LEN], batch[ARG_LEN], dur[ARG_LEN], rdur[ARG_LEN], nq[ARG_LEN];
	char *rx[] = { "zn-recv", "--dev", (char *)st->port1, "--size", size, "--no-check",
		       "--idle-ms", IDLE_MS, "--duration-ms", rdur, "--quiet", NULL, NULL, NULL };
	char *tx[20] = { "zn-send", "--dev", (char *)st->port0, "--size", size, "--batch", batch,
			 "--duration-ms", dur, "--quiet" };
	unsigned n = 10;
	uint64_t sent, notifs = 0, copied = 0, errs = 0, infl = 0;
	double mb, secs, ns_req = 0, u = 0, s = 0;
	struct recv_fig rf;
	const char *l1, *l2;
	int ret;

	snprintf(size, sizeof(size), "%u", c->size);
	snprintf(batch, sizeof(batch), "%u", c->o->batch);
	snprintf(dur, sizeof(dur), "%u", c->o->duration_ms);
	snprintf(rdur, sizeof(rdur), "%u", c->o->duration_ms + RECV_EXTRA_MS);
	if (st->mode == Z_NONZC) {
		tx[n++] = "--zc";
		tx[n++] = "off";
	} else {
		/* registered buffers: ordinary memory the application registered */
		tx[n++] = "--zc";
		tx[n++] = "on";
		tx[n++] = "--fixed";
		tx[n++] = "on";
		if (st->mode == Z_ZC_WAIT)
			tx[n++] = "--wait-notif";
	}
	if (st->tcp) {
		rx[11] = "--proto";	/* the two spare slots after --quiet */
		rx[12] = "tcp";
		tx[n++] = "--proto";
		tx[n++] = "tcp";
	}
	if (st->queues) {
		snprintf(nq, sizeof(nq), "%u", st->queues);
		rx[11] = "--queues";
		rx[12] = nq;
		tx[n++] = "--queues";
		tx[n++] = nq;
	}
	tx[n] = NULL;

	zcnic_set_cpus(c->o->cpu[0], c->o->cpu[1], st->mode == Z_RECV);
	ret = zcnic_run_pair(rx, tx, c->o->duration_ms + RUN_EXTRA_MS, &ro, &to);
	if (ret == -EINTR)
		return ret;
	if (ret && !zcnic_line(&ro, "zn-recv:", "ready"))
		return fail(c, ret == -EOPNOTSUPP ? -EIO : ret, "zn-recv did not get ready", &ro,
			    "zn-recv");
	if (ret)
		return fail(c, ret, "zn-send did not finish", &to, "zn-send");
	if (to.status != 0)
		return fail(c, -EIO, "zn-send failed", &to, "zn-send");

	if (st->mode == Z_RECV) {
		if (ro.stopped)
			return fail(c, -ETIMEDOUT, "zn-recv did not end on its own after zn-send "
				    "(stopped by zn-bench)", &ro, "zn-recv");
		if (ro.status != 0 || parse_recv(&ro, &rf))
			return fail(c, -EIO, "zn-recv failed", &ro, "zn-recv");
		if (!rf.bytes || rf.gbps <= 0) {
			snprintf(c->note, BENCH_NOTE_LEN, "zn-recv received nothing");
			return -EIO;
		}
		m->bytes = rf.bytes;
		m->ns = (uint64_t)((double)rf.bytes * 8 / rf.gbps);
		m->ops = rf.bytes / c->size;
		m->cpu_user_ns = (uint64_t)(rf.user_us_mb * (double)rf.bytes / 1e3);
		m->cpu_sys_ns = (uint64_t)(rf.sys_us_mb * (double)rf.bytes / 1e3);
		return 0;
	}

	l1 = zcnic_line(&to, "zn-send: ", st->tcp ? " TCP sends of " : " datagrams of ");
	l2 = zcnic_line(&to, "zn-send: ", " notifications (");
	if (!l1 || !l2 ||
	    sscanf(l1, st->tcp ? "zn-send: %" SCNu64 " TCP sends of %*u B, %lf MB in %lf s"
			       : "zn-send: %" SCNu64 " datagrams of %*u B, %lf MB in %lf s",
		   &sent, &mb, &secs) != 3 ||
	    sscanf(l2, "zn-send: %" SCNu64 " notifications (%" SCNu64 " copied), %" SCNu64
		   " errors, %" SCNu64 " still in flight; CPU %lf ns per request (zn-send "
		   "process: %lf user + %lf sys)", &notifs, &copied, &errs, &infl, &ns_req, &u,
		   &s) < 5)
		return fail(c, -EPROTO, "cannot read zn-send's summary", &to, "zn-send");
	if (u + s <= 0)
		u = ns_req;
	m->ops = sent;
	m->bytes = sent * c->size;
	m->ns = (uint64_t)(secs * 1e9);
	m->cpu_user_ns = (uint64_t)(u * (double)sent);
	m->cpu_sys_ns = (uint64_t)(s * (double)sent);
	if (st->mode != Z_NONZC) {
		m->notifs = notifs;
		m->notifs_copied = copied;
	}
	if (ro.status == 0 && !parse_recv(&ro, &rf))
		m->delivered = (int64_t)(rf.bytes / c->size);
	return 0;
}
