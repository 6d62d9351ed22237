/* SPDX-License-Identifier: MIT */
/*
 * zn-bench: result rows as tables (the shape of the published io_uring
 * zero-copy results), CSV and JSON.
 *
 * The ratio column sits on each kernel row: zcnic's figure divided by that
 * row's, from the same run ("-" while there is no zcnic row). zcnic's row is
 * the one of the same group, size and metric, and the same mode where zcnic
 * has it (send: nonzc/zc/zc-wait on both paths); recv and msgring compare
 * with zcnic's row of that group whatever its mode (and, for recv, size:
 * zcrx gets datagrams, the kernel rows read 64 KiB of TCP at a time). For latency lower is
 * better, so a ratio below 1 favours zcnic there.
 */
#include <errno.h>
#include <json-c/json.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "bench.h"
#include "zcnic.h"

#define RECV_MODES_MAX	8

static const char *const send_modes[] = { "nonzc", "zc", "zc-wait" };
#define NSEND_MODES	(sizeof(send_modes) / sizeof(send_modes[0]))
static const char *const lat_metrics[] = { "p50_ns", "p99_ns", "p99.9_ns" };
#define NLAT		(sizeof(lat_metrics) / sizeof(lat_metrics[0]))

static bool eq(const char *a, const char *b)
{
	return a && b && !strcmp(a, b);
}

const struct bench_row *bench_find(const struct bench_results *r, const char *group,
				   const char *mode, const char *path, const char *transport,
				   uint32_t size, const char *metric)
{
	for (unsigned i = 0; i < r->nrows; i++) {
		const struct bench_row *w = &r->rows[i];

		if (eq(w->group, group) && (!mode || eq(w->mode, mode)) && eq(w->path, path) &&
		    (!transport || eq(w->transport, transport)) && w->size == size &&
		    eq(w->metric, metric))
			return w;
	}
	return NULL;
}

const struct bench_row *bench_zcnic_match(const struct bench_results *r,
					  const struct bench_row *k)
{
	const struct bench_row *z;

	z = bench_find(r, k->group, k->mode, "zcnic", NULL, k->size, k->metric);
	/* send and send-tcp: the same mode; a group never pairs across protocols */
	if (z || !strncmp(k->group, "send", 4))
		return z;
	z = bench_find(r, k->group, NULL, "zcnic", NULL, k->size, k->metric);
	/* receive: zcnic's one row whatever its unit (UDP datagrams, not 64 KiB reads) */
	for (unsigned i = 0; !z && i < r->nrows; i++)
		if (eq(r->rows[i].group, k->group) && eq(r->rows[i].path, "zcnic") &&
		    eq(r->rows[i].metric, k->metric))
			z = &r->rows[i];
	return z;
}

/* NAN when either side has no figure. */
double bench_ratio(const struct bench_results *r, const struct bench_row *k)
{
	const struct bench_row *z = bench_zcnic_match(r, k);

	if (!z || z->status != BENCH_OK || k->status != BENCH_OK || !(k->median > 0))
		return NAN;
	return z->median / k->median;
}

void bench_fmt_si(char *buf, size_t len, double v)
{
	static const char units[] = " kMGT";
	unsigned u = 0;

	if (isnan(v)) {
		snprintf(buf, len, "-");
		return;
	}
	while (fabs(v) >= 1000 && u < sizeof(units) - 2) {
		v /= 1000;
		u++;
	}
	if (!u)
		snprintf(buf, len, "%.0f", v);
	else
		snprintf(buf, len, "%.*f%c", fabs(v) < 10 ? 2 : fabs(v) < 100 ? 1 : 0, v, units[u]);
}

/* "1.23M ±2%", "n/a", "failed", "-" (no row). */
static void fmt_cell(char *buf, size_t len, const struct bench_row *w, bool si)
{
	char v[24];
	double s;

	if (!w) {
		snprintf(buf, len, "-");
		return;
	}
	if (w->status != BENCH_OK) {
		snprintf(buf, len, "%s", w->status == BENCH_NA ? "n/a" : "failed");
		return;
	}
	if (si)
		bench_fmt_si(v, sizeof(v), w->median);
	else
		snprintf(v, sizeof(v), "%.2f", w->median);
	s = bench_spread(w->median, w->min, w->max);
	if (isnan(s) || w->reps < 2)
		snprintf(buf, len, "%s", v);
	else
		snprintf(buf, len, "%s ±%.0f%%", v, s * 100);
}

/* "%-*s" that counts characters, not bytes (cells carry a UTF-8 "±"). */
static void put_col(FILE *f, const char *s, int width)
{
	int n = 0;

	for (const char *p = s; *p; p++)
		n += ((unsigned char)*p & 0xc0) != 0x80;
	fputs(s, f);
	for (; n < width; n++)
		fputc(' ', f);
	fputc(' ', f);
}

static void fmt_ratio(char *buf, size_t len, double x)
{
	if (isnan(x))
		snprintf(buf, len, "-");
	else
		snprintf(buf, len, "%.2f", x);
}

static void fmt_frac(char *buf, size_t len, const struct bench_row *w, double x)
{
	if (!w || w->status != BENCH_OK || x < 0 || isnan(x))
		snprintf(buf, len, "-");
	else
		snprintf(buf, len, "%.0f%%", x * 100);
}

static double cpu_per_op(const struct bench_row *w)
{
	if (!w || w->status != BENCH_OK)
		return NAN;
	return w->cpu_user_ns_per_op + w->cpu_sys_ns_per_op;
}

/* "a/b/c" from three short strings. */
static void join3(char *buf, size_t len, const char *a, const char *b, const char *c)
{
	snprintf(buf, len, "%s/%s/%s", a, b, c);
}

static bool has_path(const struct bench_results *r, const char *group, const char *path)
{
	for (unsigned i = 0; i < r->nrows; i++)
		if (eq(r->rows[i].group, group) && eq(r->rows[i].path, path) &&
		    r->rows[i].status == BENCH_OK)
			return true;
	return false;
}

static bool group_has_rows(const struct bench_results *r, const char *group)
{
	for (unsigned i = 0; i < r->nrows; i++)
		if (eq(r->rows[i].group, group))
			return true;
	return false;
}

/* Distinct (path, transport) pairs of a group, in first-seen order. */
static unsigned path_transports(const struct bench_results *r, const char *group,
				const char *pt[][2], unsigned max)
{
	unsigned n = 0;

	for (unsigned i = 0; i < r->nrows; i++) {
		const struct bench_row *w = &r->rows[i];
		unsigned j;

		if (!eq(w->group, group))
			continue;
		for (j = 0; j < n; j++)
			if (eq(pt[j][0], w->path) && eq(pt[j][1], w->transport))
				break;
		if (j == n && n < max) {
			pt[n][0] = w->path;
			pt[n][1] = w->transport;
			n++;
		}
	}
	return n;
}

/* Distinct sizes of a group's rows, in first-seen order. */
static unsigned group_sizes(const struct bench_results *r, const char *group, uint32_t *sz,
			    unsigned max)
{
	unsigned n = 0;

	for (unsigned i = 0; i < r->nrows; i++) {
		unsigned j;

		if (!eq(r->rows[i].group, group))
			continue;
		for (j = 0; j < n && sz[j] != r->rows[i].size; j++)
			;
		if (j == n && n < max)
			sz[n++] = r->rows[i].size;
	}
	return n;
}

static void print_send(FILE *f, const struct bench_results *r, const struct bench_opts *o,
		       const char *group)
{
	const char *pt[8][2];
	unsigned npt = path_transports(r, group, pt, 8);
	uint32_t sizes[BENCH_MAX_SIZES];
	unsigned nsizes = group_sizes(r, group, sizes, BENCH_MAX_SIZES);
	bool tcp = eq(group, "send-tcp");

	fprintf(f, "\n%s send: requests/s by size (median of %u run%s after a warm-up, ± spread)\n",
		tcp ? "TCP" : "UDP", o->reps, o->reps == 1 ? "" : "s");
	fprintf(f, "%5s  %-6s %-9s %-14s %-14s %-14s %-16s %-11s %-15s %s\n", "size", "path",
		"transport", "non-zero-copy", "zero-copy", "zc-wait", "zcnic/kernel", "zc copied",
		"delivered", "CPU ns/req u+s");
	for (unsigned s = 0; s < nsizes; s++) {
		for (unsigned p = 0; p < npt; p++) {
			const struct bench_row *w[NSEND_MODES];
			char c[NSEND_MODES][64], rt[NSEND_MODES][16], cp[2][8], dl[3][8], cu[3][16];
			char ratio[48], copied[24], deliv[32], cpu[56];
			bool any = false;

			for (unsigned m = 0; m < NSEND_MODES; m++) {
				w[m] = bench_find(r, group, send_modes[m], pt[p][0], pt[p][1],
						  sizes[s], "rps");
				any |= w[m] != NULL;
				fmt_cell(c[m], sizeof(c[m]), w[m], true);
				fmt_ratio(rt[m], sizeof(rt[m]),
					  w[m] && eq(w[m]->path, "kernel") ? bench_ratio(r, w[m]) : NAN);
				fmt_frac(dl[m], sizeof(dl[m]), w[m], w[m] ? w[m]->delivered : -1);
				snprintf(cu[m], sizeof(cu[m]), "%.0f", cpu_per_op(w[m]));
				if (isnan(cpu_per_op(w[m])))
					snprintf(cu[m], sizeof(cu[m]), "-");
			}
			if (!any)
				continue;
			fmt_frac(cp[0], sizeof(cp[0]), w[1], w[1] ? w[1]->copied : -1);
			fmt_frac(cp[1], sizeof(cp[1]), w[2], w[2] ? w[2]->copied : -1);
			join3(ratio, sizeof(ratio), rt[0], rt[1], rt[2]);
			snprintf(copied, sizeof(copied), "%s/%s", cp[0], cp[1]);
			join3(deliv, sizeof(deliv), dl[0], dl[1], dl[2]);
			join3(cpu, sizeof(cpu), cu[0], cu[1], cu[2]);
			fprintf(f, "%5u  %-6s %-9s ", sizes[s], pt[p][0], pt[p][1]);
			for (unsigned m = 0; m < NSEND_MODES; m++)
				put_col(f, c[m], 14);
			fprintf(f, "%-16s %-11s %-15s %s\n", ratio, copied, deliv, cpu);
		}
	}
	fprintf(f, "(zcnic/kernel, copied, delivered, CPU: non-zero-copy/zero-copy/zc-wait)\n");
	if (has_path(r, group, "zcnic"))
		fprintf(f, "zcnic: zn-send -> zn-recv over zn-nicsim (a device model on the same CPUs);\n"
			   "  SEND from a DMA region, SEND_ZC from registered buffers. CPU: the zn-send\n"
			   "  process alone (the simulator's work, the \"NIC\", is not counted)%s\n",
			tcp ? ".\n  --proto tcp: one connection; a SEND_ZC notification once acknowledged" : "");
	if (tcp)
		fprintf(f, "Kernel: one TCP connection (TCP_NODELAY), the accepted end drained by recv();\n"
			   "  \"delivered\" is not counted: TCP loses nothing\n");
}

/* zcrx over 2 queues against 1 (a thread each, RSS): the Gbit/s ratio */
static void print_queue_scaling(FILE *f, const struct bench_results *r, const char *group)
{
	const struct bench_row *q[2] = { NULL, NULL };

	for (unsigned i = 0; i < r->nrows; i++) {
		const struct bench_row *w = &r->rows[i];

		if (!eq(w->group, group) || !eq(w->metric, "gbit_s") || w->status != BENCH_OK)
			continue;
		if (eq(w->mode, "zcrx-1q"))
			q[0] = w;
		if (eq(w->mode, "zcrx-2q"))
			q[1] = w;
	}
	if (!q[0] || !q[1] || q[0]->median <= 0)
		return;
	fprintf(f, "zcnic: 2 queues / 1 queue (zn-send --queues N into zn-recv --queues N, a\n"
		   "  thread per queue, one flow each): %.2fx the Gbit/s. Device model, sender\n"
		   "  and receiver threads share this machine's CPUs: the ratio shows the\n"
		   "  queues do not serialise each other, not what 2 cores of a NIC would give\n",
		q[1]->median / q[0]->median);
}

static void print_recv(FILE *f, const struct bench_results *r, const char *group)
{
	bool zc = has_path(r, group, "zcnic"), tcp = eq(group, "recv-tcp");

	fprintf(f, "\n%s receive: Gbit/s and CPU us per MB of the receiving thread\n",
		tcp ? "TCP" : "UDP");
	fprintf(f, "%-8s %-6s %-9s %6s  %-14s %-22s %-9s %s\n", "mode", "path", "transport",
		"read", "Gbit/s", "CPU us/MB (user+sys)", "fallback", "zcnic/kernel");
	for (unsigned i = 0; i < r->nrows; i++) {
		const struct bench_row *w = &r->rows[i];
		char c[64], cpu[80], fb[16], rt[16];
		double mb_per_op = w->size / 1e6;

		if (!eq(w->group, group) || !eq(w->metric, "gbit_s"))
			continue;
		fmt_cell(c, sizeof(c), w, false);
		if (w->status == BENCH_OK && mb_per_op > 0)
			snprintf(cpu, sizeof(cpu), "%.1f (%.1f+%.1f)",
				 cpu_per_op(w) / 1e3 / mb_per_op,
				 w->cpu_user_ns_per_op / 1e3 / mb_per_op,
				 w->cpu_sys_ns_per_op / 1e3 / mb_per_op);
		else
			snprintf(cpu, sizeof(cpu), "-");
		fmt_frac(fb, sizeof(fb), w, w->fallback);
		fmt_ratio(rt, sizeof(rt), eq(w->path, "kernel") ? bench_ratio(r, w) : NAN);
		fprintf(f, "%-8s %-6s %-9s %6u  ", w->mode, w->path, w->transport, w->size);
		put_col(f, c, 14);
		fprintf(f, "%-22s %-9s %s\n", cpu, fb, rt);
	}
	if (!tcp)
		print_queue_scaling(f, r, group);
	if (zc && !tcp)
		fprintf(f, "zcnic: zcrx (RECV_ZC + refill ring) of %u-byte UDP datagrams from zn-send over\n"
			   "  zn-nicsim, first to last byte; zn-recv busy-polls, so its CPU per MB is\n"
			   "  its wall time per MB. No kernel row: the kernel has no zcrx for UDP\n",
			ZCNIC_RECV_SIZE);
	if (zc && tcp)
		fprintf(f, "zcnic: zcrx RECV_ZC multishot on one TCP connection (zn-recv --proto tcp)\n"
			   "  from zn-send --proto tcp's 64 KiB SEND_ZC over zn-nicsim, first to last\n"
			   "  byte; zn-recv busy-polls. Kernel rows: TCP over loopback, 64 KiB reads\n");
}

static void print_msgring(FILE *f, const struct bench_results *r)
{
	fprintf(f, "\nMSG_RING one-way latency between two threads, ns (lower is better)\n");
	fprintf(f, "%-10s %-6s %-12s %-12s %-12s %-12s %-10s %s\n", "mode", "path", "p50", "p99",
		"p99.9", "CPU ns/msg", "post ns", "zcnic/kernel p50/p99/p99.9");
	for (unsigned i = 0; i < r->nrows; i++) {
		const struct bench_row *w = &r->rows[i], *l[NLAT];
		char c[NLAT][64], rt[NLAT][16], ratio[64], cpu[32], post[32];

		if (!eq(w->group, "msgring") || !eq(w->metric, lat_metrics[0]))
			continue;
		for (unsigned m = 0; m < NLAT; m++) {
			l[m] = bench_find(r, "msgring", w->mode, w->path, w->transport, w->size,
					  lat_metrics[m]);
			fmt_cell(c[m], sizeof(c[m]), l[m], true);
			fmt_ratio(rt[m], sizeof(rt[m]),
				  l[m] && eq(w->path, "kernel") ? bench_ratio(r, l[m]) : NAN);
		}
		if (isnan(cpu_per_op(w)))
			snprintf(cpu, sizeof(cpu), "-");
		else
			snprintf(cpu, sizeof(cpu), "%.0f", cpu_per_op(w));
		if (!(w->post_ns > 0))
			snprintf(post, sizeof(post), "-");
		else
			snprintf(post, sizeof(post), "%.0f", w->post_ns);
		join3(ratio, sizeof(ratio), rt[0], rt[1], rt[2]);
		fprintf(f, "%-10s %-6s ", w->mode, w->path);
		for (unsigned m = 0; m < NLAT; m++)
			put_col(f, c[m], 12);
		fprintf(f, "%-12s %-10s %s\n", cpu, post, ratio);
	}
	fprintf(f, "post ns: the sender's own time per message (its submit call), median;\n"
		   "  the two threads on two CPUs (--cpu), as a deployment pins them: on one\n"
		   "  CPU a ping-pong measures the scheduler's hand-over, not MSG_RING\n");
	if (has_path(r, "msgring", "zcnic"))
		fprintf(f, "zcnic: native zn_uring rings in one process, no syscall on the way (a\n"
			   "  lock-free inbox); a waiting ring spins up to 50 us before it sleeps\n");
}

void bench_print_tables(FILE *f, const struct bench_results *r, const struct bench_opts *o)
{
	if (group_has_rows(r, "send"))
		print_send(f, r, o, "send");
	if (group_has_rows(r, "send-tcp"))
		print_send(f, r, o, "send-tcp");
	if (group_has_rows(r, "recv"))
		print_recv(f, r, "recv");
	if (group_has_rows(r, "recv-tcp"))
		print_recv(f, r, "recv-tcp");
	if (group_has_rows(r, "msgring"))
		print_msgring(f, r);
	for (unsigned i = 0; i < r->nrows; i++)
		if (r->rows[i].status != BENCH_OK && r->rows[i].note[0])
			fprintf(f, "note: %s %s %s %s %u: %s\n", r->rows[i].group, r->rows[i].mode,
				r->rows[i].path, r->rows[i].transport, r->rows[i].size,
				r->rows[i].note);
}

static const char *status_name(enum bench_status s)
{
	return s == BENCH_OK ? "ok" : s == BENCH_NA ? "n/a" : "failed";
}

static void csv_num(FILE *f, double v, bool none_if_negative)
{
	if (isnan(v) || (none_if_negative && v < 0))
		fputs(",", f);
	else
		fprintf(f, ",%.6g", v);
}

/* RFC 4180: a field with a comma, quote or newline goes in quotes, quotes doubled. */
static void csv_str(FILE *f, const char *s)
{
	fputc(',', f);
	if (!strpbrk(s, ",\"\n\r")) {
		fputs(s, f);
		return;
	}
	fputc('"', f);
	for (; *s; s++) {
		if (*s == '"')
			fputc('"', f);
		fputc(*s, f);
	}
	fputc('"', f);
}

int bench_write_csv(FILE *f, const struct bench_results *r)
{
	fprintf(f, "group,mode,path,transport,size,metric,status,median,min,max,spread,"
		   "cpu_user_ns_per_op,cpu_sys_ns_per_op,mb_s,copied,delivered,fallback,"
		   "ops,reps,note\n");
	for (unsigned i = 0; i < r->nrows; i++) {
		const struct bench_row *w = &r->rows[i];
		bool ok = w->status == BENCH_OK;

		fprintf(f, "%s,%s,%s,%s,%u,%s,%s", w->group, w->mode, w->path, w->transport,
			w->size, w->metric, status_name(w->status));
		csv_num(f, ok ? w->median : NAN, false);
		csv_num(f, ok ? w->min : NAN, false);
		csv_num(f, ok ? w->max : NAN, false);
		csv_num(f, ok ? bench_spread(w->median, w->min, w->max) : NAN, false);
		csv_num(f, ok ? w->cpu_user_ns_per_op : NAN, false);
		csv_num(f, ok ? w->cpu_sys_ns_per_op : NAN, false);
		csv_num(f, ok ? w->mb_s : NAN, true);
		csv_num(f, ok ? w->copied : NAN, true);
		csv_num(f, ok ? w->delivered : NAN, true);
		csv_num(f, ok ? w->fallback : NAN, true);
		fprintf(f, ",%llu,%u", (unsigned long long)w->ops, w->reps);
		csv_str(f, w->note);
		fputc('\n', f);
	}
	return ferror(f) ? -EIO : 0;
}

/* A number, or null for "none" (NAN; negative where the field allows none). */
static struct json_object *jnum(double v, bool ok, bool none_if_negative)
{
	if (!ok || isnan(v) || isinf(v) || (none_if_negative && v < 0))
		return NULL;
	return json_object_new_double(v);
}

int bench_write_json(FILE *f, const struct bench_results *r, const struct bench_opts *o)
{
	struct json_object *root = json_object_new_object(), *cfg, *rows, *sizes;
	const char *s;
	int ret = 0;

	if (!root)
		return -ENOMEM;
	cfg = json_object_new_object();
	rows = json_object_new_array();
	sizes = json_object_new_array();
	json_object_object_add(root, "tool", json_object_new_string("zn-bench"));
	json_object_object_add(root, "config", cfg);
	json_object_object_add(root, "rows", rows);
	json_object_object_add(cfg, "sizes", sizes);
	for (unsigned i = 0; i < o->nsizes; i++)
		json_object_array_add(sizes, json_object_new_int64(o->sizes[i]));
	json_object_object_add(cfg, "duration_ms", json_object_new_int64(o->duration_ms));
	json_object_object_add(cfg, "reps", json_object_new_int64(o->reps));
	json_object_object_add(cfg, "batch", json_object_new_int64(o->batch));
	json_object_object_add(cfg, "msgs", json_object_new_int64(o->msgs));
	json_object_object_add(cfg, "quick", json_object_new_boolean(o->quick));

	for (unsigned i = 0; i < r->nrows; i++) {
		const struct bench_row *w = &r->rows[i];
		struct json_object *j = json_object_new_object();
		bool ok = w->status == BENCH_OK;

		json_object_object_add(j, "group", json_object_new_string(w->group));
		json_object_object_add(j, "mode", json_object_new_string(w->mode));
		json_object_object_add(j, "path", json_object_new_string(w->path));
		json_object_object_add(j, "transport", json_object_new_string(w->transport));
		json_object_object_add(j, "size", json_object_new_int64(w->size));
		json_object_object_add(j, "metric", json_object_new_string(w->metric));
		json_object_object_add(j, "status", json_object_new_string(status_name(w->status)));
		json_object_object_add(j, "median", jnum(w->median, ok, false));
		json_object_object_add(j, "min", jnum(w->min, ok, false));
		json_object_object_add(j, "max", jnum(w->max, ok, false));
		json_object_object_add(j, "spread",
				       jnum(bench_spread(w->median, w->min, w->max), ok, false));
		json_object_object_add(j, "cpu_user_ns_per_op", jnum(w->cpu_user_ns_per_op, ok, false));
		json_object_object_add(j, "cpu_sys_ns_per_op", jnum(w->cpu_sys_ns_per_op, ok, false));
		json_object_object_add(j, "mb_s", jnum(w->mb_s, ok, true));
		json_object_object_add(j, "post_ns", jnum(w->post_ns, ok, true));
		json_object_object_add(j, "copied", jnum(w->copied, ok, true));
		json_object_object_add(j, "delivered", jnum(w->delivered, ok, true));
		json_object_object_add(j, "fallback", jnum(w->fallback, ok, true));
		json_object_object_add(j, "ratio_zcnic_kernel",
				       jnum(eq(w->path, "kernel") ? bench_ratio(r, w) : NAN, true,
					    false));
		json_object_object_add(j, "ops", json_object_new_int64((int64_t)w->ops));
		json_object_object_add(j, "reps", json_object_new_int64(w->reps));
		json_object_object_add(j, "note", json_object_new_string(w->note));
		json_object_array_add(rows, j);
	}
	s = json_object_to_json_string_ext(root, JSON_C_TO_STRING_PRETTY);
	if (!s || fputs(s, f) < 0 || fputc('\n', f) < 0 || ferror(f))
		ret = -EIO;
	json_object_put(root);
	return ret;
}
