/* SPDX-License-Identifier: MIT */
/* Fault injection; see fault.h. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sim/fault.h"
#include "sim/vfu/vfu.h"
#include "sim/wire.h"

#define CNT_INC(f, n) __atomic_fetch_add(&(f)->c.n, 1, __ATOMIC_RELAXED)

struct zn_sim_fault *zn_sim_fault_new(void)
{
	struct zn_sim_fault *f = calloc(1, sizeof(*f));

	if (!f)
		return NULL;
	f->rng = 1;
	f->cmd_fail = -1;
	f->cmd_hang = -1;
	f->cmd_fail_left = 1;
	f->cmd_hang_left = 1;
	return f;
}

void zn_sim_fault_free(struct zn_sim_fault *f)
{
	free(f);
}

/* splitmix64: one draw per decision, so a seed replays a run exactly */
static uint64_t draw(struct zn_sim_fault *f)
{
	uint64_t z = (f->rng += 0x9e3779b97f4a7c15ull);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
	return z ^ (z >> 31);
}

/* A probability p of 1 is a threshold of 2^32: every 32-bit draw is below. */
static bool chance(struct zn_sim_fault *f, uint64_t p)
{
	return p && f->frames > f->after && (draw(f) & 0xffffffffu) < p;
}

static int parse_prob(const char *v, uint64_t *out)
{
	char *end;
	double p;

	errno = 0;
	p = strtod(v, &end);
	if (errno || end == v || *end || !(p >= 0.0 && p <= 1.0))
		return -EINVAL;
	*out = (uint64_t)(p * 4294967296.0);
	return 0;
}

static int parse_u64(const char *v, uint64_t max, uint64_t *out)
{
	char *end;
	unsigned long long n;

	if (*v == '-' || *v == '+')
		return -EINVAL;
	errno = 0;
	n = strtoull(v, &end, 0);
	if (errno || end == v || *end || n > max)
		return -EINVAL;
	*out = n;
	return 0;
}

static int apply_one(struct zn_sim_fault *f, const char *k, const char *v)
{
	static const struct { const char *key; size_t off; } probs[] = {
		{ "wire-drop", offsetof(struct zn_sim_fault, p_drop) },
		{ "wire-reorder", offsetof(struct zn_sim_fault, p_reorder) },
		{ "wire-dup", offsetof(struct zn_sim_fault, p_dup) },
		{ "wire-corrupt", offsetof(struct zn_sim_fault, p_corrupt) },
		{ "wire-csum", offsetof(struct zn_sim_fault, p_csum) },
		{ "rx-nobuf", offsetof(struct zn_sim_fault, p_nobuf) },
	};
	uint64_t n;

	for (size_t i = 0; i < sizeof(probs) / sizeof(probs[0]); i++)
		if (!strcmp(k, probs[i].key))
			return parse_prob(v, (uint64_t *)((char *)f + probs[i].off));
	if (!strcmp(k, "seed")) {
		if (parse_u64(v, UINT64_MAX, &n))
			return -EINVAL;
		f->rng = n;
	} else if (!strcmp(k, "after")) {
		if (parse_u64(v, UINT64_MAX, &n))
			return -EINVAL;
		f->after = n;
	} else if (!strcmp(k, "tx-delay")) {
		if (parse_u64(v, 10000, &n))
			return -EINVAL;
		f->tx_delay_ms = (uint32_t)n;
	} else if (!strcmp(k, "cmd-fail") || !strcmp(k, "cmd-hang")) {
		if (parse_u64(v, 0xffff, &n))
			return -EINVAL;
		*(k[4] == 'f' ? &f->cmd_fail : &f->cmd_hang) = (int)n;
	} else if (!strcmp(k, "cmd-err")) {
		if (parse_u64(v, 0xffff, &n) || n == 0)
			return -EINVAL;
		f->cmd_err = (uint32_t)n;
	} else if (!strcmp(k, "cmd-fail-count") || !strcmp(k, "cmd-hang-count")) {
		if (parse_u64(v, UINT32_MAX - 1, &n))
			return -EINVAL;
		*(k[4] == 'f' ? &f->cmd_fail_left : &f->cmd_hang_left) =
			n ? (uint32_t)n : UINT32_MAX;
	} else if (!strcmp(k, "fatal-after") || !strcmp(k, "flr-after")) {
		if (parse_u64(v, UINT64_MAX, &n) || n == 0)
			return -EINVAL;
		*(k[1] == 'a' ? &f->fatal_after : &f->flr_after) = n;
	} else if (!strcmp(k, "dma-refuse")) {
		if (parse_u64(v, UINT32_MAX, &n) || n == 0)
			return -EINVAL;
		f->dma_refuse = (uint32_t)n;
	} else {
		return -ENOENT;
	}
	return 0;
}

int zn_sim_fault_apply(struct zn_sim_fault *f, const char *kvs, char *err, size_t errlen)
{
	char buf[512], *save = NULL, *tok;

	if (!*kvs || strlen(kvs) >= sizeof(buf)) {
		snprintf(err, errlen, "want KEY=VAL[,KEY=VAL...] (up to %zu characters)",
			 sizeof(buf) - 1);
		return -EINVAL;
	}
	strcpy(buf, kvs);
	for (tok = strtok_r(buf, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		char *eq = strchr(tok, '=');
		int rc;

		if (!eq || eq == tok || !eq[1]) {
			snprintf(err, errlen, "'%s': want KEY=VAL", tok);
			return -EINVAL;
		}
		*eq = '\0';
		rc = apply_one(f, tok, eq + 1);
		if (rc == -ENOENT) {
			snprintf(err, errlen, "unknown fault '%s'", tok);
			return -EINVAL;
		}
		if (rc) {
			snprintf(err, errlen, "%s=%s: want %s", tok, eq + 1,
				 strstr(tok, "wire-") || !strcmp(tok, "rx-nobuf") ?
				 "a probability 0..1" : "a number in range");
			return -EINVAL;
		}
	}
	return 0;
}

void zn_sim_fault_stats(const struct zn_sim_fault *f,
			void (*emit)(void *ctx, const char *key, uint64_t v), void *ctx)
{
#define ZN_SIM_FAULT_X(n) emit(ctx, #n, __atomic_load_n(&f->c.n, __ATOMIC_RELAXED));
	ZN_SIM_FAULT_COUNTERS(ZN_SIM_FAULT_X)
#undef ZN_SIM_FAULT_X
}

uint64_t zn_sim_fault_counter(const struct zn_sim_fault *f, const char *key)
{
#define ZN_SIM_FAULT_X(n) \
	if (!strcmp(key, #n)) \
		return __atomic_load_n(&f->c.n, __ATOMIC_RELAXED);
	ZN_SIM_FAULT_COUNTERS(ZN_SIM_FAULT_X)
#undef ZN_SIM_FAULT_X
	return UINT64_MAX;
}

/* ---- hooks ---- */

/* The L4 payload of an IPv4 UDP/TCP frame (a VLAN tag allowed) whose
 * checksum the receiver can check: UDP with checksum 0 has none. */
static size_t l4_payload(const uint8_t *f, size_t len, size_t *off)
{
	size_t l3 = 14, ihl, l4, hl;
	uint16_t et;

	if (len < l3 + 20)
		return 0;
	et = (uint16_t)(f[12] << 8 | f[13]);
	if (et == 0x8100) {
		l3 += 4;
		if (len < l3 + 20)
			return 0;
		et = (uint16_t)(f[16] << 8 | f[17]);
	}
	if (et != 0x0800 || (f[l3] >> 4) != 4)
		return 0;
	ihl = (size_t)(f[l3] & 15) * 4;
	l4 = l3 + ihl;
	if (ihl < 20 || (f[l3 + 6] & 0x3f) || f[l3 + 7])	/* fragments: no L4 header */
		return 0;
	if (f[l3 + 9] == 17) {
		if (len < l4 + 8 || !(f[l4 + 6] | f[l4 + 7]))
			return 0;
		hl = 8;
	} else if (f[l3 + 9] == 6) {
		if (len < l4 + 20)
			return 0;
		hl = (size_t)(f[l4 + 12] >> 4) * 4;
	} else {
		return 0;
	}
	*off = l4 + hl;
	return len > *off ? len - *off : 0;
}

enum zn_sim_fault_wire zn_sim_fault_wire(struct zn_sim_port *p, uint8_t *frame, size_t len)
{
	struct zn_sim_fault *f = p->fault;
	size_t off, n;
	uint64_t r;

	f->frames++;
	if (chance(f, f->p_drop)) {
		CNT_INC(f, wire_drops);
		return ZN_SIM_FAULT_DROP;
	}
	if (chance(f, f->p_corrupt)) {
		r = draw(f);
		frame[r % len] ^= (uint8_t)(1u << ((r >> 32) & 7));
		CNT_INC(f, wire_corrupts);
		return ZN_SIM_FAULT_CORRUPT;
	}
	if (chance(f, f->p_csum) && (n = l4_payload(frame, len, &off))) {
		r = draw(f);
		frame[off + r % n] ^= (uint8_t)(1u << ((r >> 32) & 7));
		CNT_INC(f, wire_csums);
		return ZN_SIM_FAULT_CSUM;
	}
	if (chance(f, f->p_dup))
		return ZN_SIM_FAULT_DUP;	/* counted by the wire once it fits */
	if (chance(f, f->p_reorder))
		return ZN_SIM_FAULT_REORDER;	/* ditto */
	return ZN_SIM_FAULT_PASS;
}

void zn_sim_fault_count_wire(struct zn_sim_fault *f, enum zn_sim_fault_wire what)
{
	if (what == ZN_SIM_FAULT_DUP)
		CNT_INC(f, wire_dups);
	else if (what == ZN_SIM_FAULT_REORDER)
		CNT_INC(f, wire_reorders);
}

bool zn_sim_fault_rx_nobuf(struct zn_sim_port *p)
{
	struct zn_sim_fault *f = p->fault;

	if (!f)
		return false;
	f->frames++;
	if (!chance(f, f->p_nobuf))
		return false;
	CNT_INC(f, rx_nobufs);
	return true;
}

bool zn_sim_fault_tx_hold(struct zn_sim_port *p, uint64_t now_ns, uint64_t *deadline_ns)
{
	struct zn_sim_fault *f = p->fault;

	if (!f || !f->tx_delay_ms || !f->tx_holding)
		return false;
	if (now_ns < f->tx_hold_until_ns) {
		if (f->tx_hold_until_ns < *deadline_ns)
			*deadline_ns = f->tx_hold_until_ns;
		return true;
	}
	f->tx_holding = false;
	return false;
}

int zn_sim_fault_tx_ran(struct zn_sim_port *p, int work)
{
	struct zn_sim_fault *f = p->fault;

	/* The work that just ran waited since the last pass; what the driver
	 * posts from now on waits a whole delay. */
	if (f && f->tx_delay_ms && work > 0) {
		CNT_INC(f, tx_delays);
		f->tx_holding = true;
		f->tx_hold_until_ns = zn_vfu_now_ns() + (uint64_t)f->tx_delay_ms * 1000000ull;
	}
	return work;
}

enum zn_sim_fault_cmd zn_sim_fault_cmd(struct zn_sim_port *p, uint32_t op, uint32_t *err)
{
	struct zn_sim_fault *f = p->fault;

	if (!f)
		return ZN_SIM_FAULT_CMD_RUN;
	if (f->cmd_hang == (int)op && f->cmd_hang_left) {
		if (f->cmd_hang_left != UINT32_MAX)
			f->cmd_hang_left--;
		CNT_INC(f, cmd_hangs);
		return ZN_SIM_FAULT_CMD_HANG;
	}
	if (f->cmd_fail == (int)op && f->cmd_fail_left) {
		if (f->cmd_fail_left != UINT32_MAX)
			f->cmd_fail_left--;
		CNT_INC(f, cmd_fails);
		*err = f->cmd_err;
		return ZN_SIM_FAULT_CMD_FAIL;
	}
	return ZN_SIM_FAULT_CMD_RUN;
}

enum zn_sim_fault_event zn_sim_fault_event(struct zn_sim_port *p)
{
	struct zn_sim_fault *f = p->fault;

	if (!f)
		return ZN_SIM_FAULT_NONE;
	if (f->fatal_after && f->frames >= f->fatal_after) {
		f->fatal_after = 0;
		CNT_INC(f, fatals);
		return ZN_SIM_FAULT_FATAL;
	}
	if (f->flr_after && f->frames >= f->flr_after) {
		f->flr_after = 0;
		CNT_INC(f, flrs);
		return ZN_SIM_FAULT_FLR;
	}
	return ZN_SIM_FAULT_NONE;
}

bool zn_sim_fault_dma_refuse(struct zn_sim_fault *f)
{
	if (!f || !f->dma_refuse || ++f->dma_maps != f->dma_refuse)
		return false;
	CNT_INC(f, dma_refusals);
	return true;
}
