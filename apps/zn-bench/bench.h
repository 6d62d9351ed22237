/* SPDX-License-Identifier: MIT */
/*
 * zn-bench: the framework's types. A *suite* is one way of doing one piece
 * of work (kernel io_uring SEND_ZC over UDP, zcnic MSG_RING, ...); the suite
 * table (suites.c) lists them all, kernel and zcnic alike. The runner
 * (runner.c) measures every selected suite at every transport and size it
 * supports: one warm-up run, then --reps runs, and keeps one result row with
 * the median, min and max of the reps. report.c prints the rows as tables,
 * CSV and JSON; plot.c draws requests/s against size.
 *
 * This header is plain C: no liburing (kernel suites include kern_uring.h,
 * the zcnic suites include the native zcnic API), so that both paths and the
 * unit tests can share it.
 */
#ifndef ZN_BENCH_H
#define ZN_BENCH_H

#include <stdbool.h>
#include <stddef.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/types.h>

#define BENCH_MAX_SIZES		16
#define BENCH_MAX_SUITES	32
#define BENCH_MAX_ROWS		512
#define BENCH_NOTE_LEN		96
#define BENCH_MAX_SIZE		65000	/* UDP payload bytes, below the 64K limit */

enum bench_transport {
	BENCH_T_NONE,		/* a suite that has no wire (MSG_RING) */
	BENCH_T_LOOPBACK,	/* 127.0.0.1, the root namespace */
	BENCH_T_VETH,		/* a veth pair between two private namespaces */
	BENCH_T_NICSIM,		/* zcnic over zn-nicsim */
	BENCH_T_COUNT
};
#define BENCH_TB(t)	(1u << (t))

enum bench_metric {
	BENCH_M_RPS,		/* requests/s */
	BENCH_M_GBPS,		/* Gbit/s received */
	BENCH_M_P50_NS,		/* latency percentiles, ns */
	BENCH_M_P99_NS,
	BENCH_M_P999_NS,
	BENCH_M_COUNT
};

struct bench_opts {
	unsigned suites;		/* bit per group (enum bench_group) */
	unsigned nsizes;
	uint32_t sizes[BENCH_MAX_SIZES];
	unsigned transports;		/* BENCH_TB() bits; default all */
	unsigned duration_ms;		/* per measured run */
	unsigned reps;			/* measured runs after one warm-up */
	unsigned batch;			/* SQEs per submit */
	int cpu[2];			/* measured thread, its peer; -1: not pinned */
	unsigned msgs;			/* MSG_RING messages per run, at most */
	const char *out_dir;		/* NULL: no files */
	unsigned protos;		/* BENCH_PROTO_* bits; default both */
	bool quick;
};

/*
 * cost: the instruction table of scripts/cost.sh (cost.c), no rows. Send and
 * receive have a group per protocol ("send-tcp", "recv-tcp"), so that a
 * zcnic/kernel ratio only ever pairs TCP with TCP and UDP with UDP.
 */
enum bench_group {
	BENCH_G_SEND, BENCH_G_RECV, BENCH_G_SEND_TCP, BENCH_G_RECV_TCP, BENCH_G_MSGRING,
	BENCH_G_COST, BENCH_G_COUNT
};
#define BENCH_PROTO_UDP		1u
#define BENCH_PROTO_TCP		2u
#define BENCH_TCP_SEND_SIZE	4096	/* TCP send: one size, the 4 KiB of the table */

/* What one measured run counted; a suite's run() fills it. */
struct bench_meas {
	uint64_t ops;			/* requests completed (or messages, chunks) */
	uint64_t bytes;			/* payload bytes moved */
	uint64_t ns;			/* wall time of the run */
	uint64_t cpu_user_ns;		/* of the measured thread(s) */
	uint64_t cpu_sys_ns;
	uint64_t notifs, notifs_copied;	/* SEND_ZC notifications, and those with ZC_COPIED */
	int64_t delivered;		/* requests the receiving side got (UDP sink); -1: not counted */
	int64_t fallback;		/* bytes the kernel copied instead (TCP zerocopy receive); -1 */
	double lat_ns[3];		/* p50, p99, p99.9 (latency suites) */
	double post_ns;			/* ping-pong: median time of the sender's post; 0 */
};

struct bench_case {
	const struct bench_opts *o;
	enum bench_transport transport;
	uint32_t size;			/* 0 for unsized suites */
	char *note;			/* BENCH_NOTE_LEN bytes: why it is n/a or failed */
};

/*
 * One suite. setup() once per (transport, size): sockets, rings, peers;
 * run() once per warm-up or measured run; teardown() after the last.
 * setup/run return 0, -EOPNOTSUPP or -EINVAL when the machine cannot do it
 * (the row says "n/a" and the run goes on), or another negative errno.
 */
struct bench_suite {
	enum bench_group group;
	const char *mode;		/* "nonzc", "zc", "zc-wait", "epoll", ... */
	const char *path;		/* "kernel" or "zcnic" */
	unsigned transports;		/* BENCH_TB() bits it runs on */
	bool sized;			/* runs once per --sizes entry */
	uint32_t fixed_size;		/* the size of an unsized suite's row */
	enum bench_metric metric;	/* the main figure; latency suites give all three */
	int (*setup)(const struct bench_case *c, void **state);
	int (*run)(void *state, const struct bench_case *c, struct bench_meas *m);
	void (*teardown)(void *state);
};

enum bench_status { BENCH_OK, BENCH_NA, BENCH_FAILED };

/* One result row: one figure of one suite at one transport and size. */
struct bench_row {
	const char *group;		/* "send", "recv", "msgring" */
	const char *mode;
	const char *path;
	const char *transport;
	uint32_t size;
	const char *metric;		/* "rps", "gbit_s", "p50_ns", ... */
	enum bench_status status;
	double median, min, max;	/* of the reps */
	double cpu_user_ns_per_op, cpu_sys_ns_per_op;	/* medians */
	double mb_s;			/* payload MB/s (1e6 B), median */
	double copied;			/* fraction of ZC notifications that copied; -1: n/a */
	double delivered;		/* fraction of sent requests the receiver got; -1: n/a */
	double fallback;		/* fraction of ops done by copying; -1: n/a */
	double post_ns;			/* MSG_RING: the sender's time per post, median; -1 */
	uint64_t ops;			/* summed over the measured reps */
	unsigned reps;
	char note[BENCH_NOTE_LEN];
};

struct bench_results {
	unsigned nrows;
	struct bench_row rows[BENCH_MAX_ROWS];
};

/* names.c */
const char *bench_group_name(enum bench_group g);
const char *bench_transport_name(enum bench_transport t);
const char *bench_metric_name(enum bench_metric m);
int bench_group_parse(const char *s);

/* opts.c: 0, or -EINVAL with one line in err; --help: 1 */
int bench_opts_parse(int argc, char **argv, struct bench_opts *o, char *err, size_t errlen);
extern const char bench_usage[];

/* stats.c */
double bench_median(double *v, unsigned n);		/* sorts v */
double bench_percentile(double *v, size_t n, double p);	/* v sorted; nearest rank */
double bench_spread(double median, double min, double max);	/* (max-min)/median */
void bench_sort(double *v, size_t n);

/* report.c */
const struct bench_row *bench_find(const struct bench_results *r, const char *group,
				   const char *mode, const char *path, const char *transport,
				   uint32_t size, const char *metric);
const struct bench_row *bench_zcnic_match(const struct bench_results *r,
					  const struct bench_row *kernel_row);
double bench_ratio(const struct bench_results *r, const struct bench_row *kernel_row);
void bench_print_tables(FILE *f, const struct bench_results *r, const struct bench_opts *o);
int bench_write_csv(FILE *f, const struct bench_results *r);
int bench_write_json(FILE *f, const struct bench_results *r, const struct bench_opts *o);
void bench_fmt_si(char *buf, size_t len, double v);

/* plot.c */
int bench_plot(const char *dir, const struct bench_results *r);

/* progress.c */
void bench_progress(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void bench_progress_end(void);

/* runner.c */
extern volatile int bench_stop;		/* set by SIGINT/SIGTERM */
int bench_run_all(const struct bench_opts *o, struct bench_results *r);
uint64_t bench_now_ns(void);
void bench_thread_cpu(uint64_t *user_ns, uint64_t *sys_ns);
int bench_pin(int cpu);
/* Every thread of process pid on cpu (-1: leave it). */
int bench_pin_pid(pid_t pid, int cpu);
/* No --cpu given: the first two CPUs zn-bench may run on, so that the
 * measured thread and its peer (or the device model) never share a core;
 * -1,-1 on a one-CPU machine. */
int bench_pick_cpus(int cpu[2]);

/*
 * pingpong.c: the MSG_RING ping-pong loop of both paths. post sends data
 * (a send time in ns, 0 ends the run) to the peer; next waits for the next
 * message: its data, or -errno. The peer thread stores its own one-way
 * samples in peer_samples (npeer of them, published with release) and its
 * failures in peer_err. samples has room for 2 x cap.
 */
struct bench_pingpong {
	int (*post)(void *ctx, uint64_t data);
	int64_t (*next)(void *ctx, uint64_t *now);
	void *ctx;
	double *samples, *peer_samples;
	size_t cap;
	atomic_size_t *npeer;
	atomic_int *peer_err;
};
int bench_pingpong_run(const struct bench_pingpong *pp, const struct bench_case *c,
		       struct bench_meas *m);

/* cost.c: scripts/cost.sh's table, run first and printed as the headline */
int bench_cost_run(const struct bench_opts *o);
void bench_cost_print(FILE *f);

/*
 * load.c: the machine's load apart from zn-bench, before and after the run
 * (quiet windows) and the host's steal during it.
 */
struct bench_load_sample {
	uint64_t wall_ns;
	uint64_t busy, steal, total;	/* /proc/stat, all CPUs, clock ticks */
	uint64_t own;			/* zn-bench and its reaped children, ticks */
};
struct bench_load_span {
	double other_cpus;		/* CPUs kept busy by other processes */
	double steal;			/* fraction of CPU time the host took */
};
struct bench_load {
	bool ok;
	long ncpu;
	struct bench_load_span before, after, during;
	struct bench_load_sample start;
};
int bench_load_before(struct bench_load *l);
int bench_load_after(struct bench_load *l);
bool bench_load_busy(const struct bench_load *l);
void bench_load_print(FILE *f, const struct bench_load *l);

/* suites.c */
extern const struct bench_suite bench_suites[];
extern const unsigned bench_nsuites;

#endif
