/* SPDX-License-Identifier: MIT */
/* zn-bench: the command line. */
#include <errno.h>
#include <getopt.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "apps/common/num.h"
#include "bench.h"

#define DEFAULT_DURATION_MS	1000
#define DEFAULT_REPS		3
#define DEFAULT_BATCH		8
#define DEFAULT_MSGS		100000
#define QUICK_DURATION_MS	40
#define QUICK_REPS		1
#define QUICK_MSGS		2000
#define MAX_DURATION_MS		600000
#define MAX_REPS		100
#define MAX_BATCH		256
#define MAX_MSGS		1000000
#define MIN_SIZE		1

static const uint32_t default_sizes[] = { 600, 1000, 1500, 4000, 8000 };
static const uint32_t quick_sizes[] = { 600, 1500 };

const char bench_usage[] =
"Usage: zn-bench [options]\n"
"\n"
"Runs the same work through the kernel path (io_uring, sockets) and through\n"
"zcnic in one run, and prints tables with the zcnic/kernel ratio per row.\n"
"Each figure is the median of --reps runs after one warm-up run; the spread\n"
"is (max - min) / median over those runs. CPU time is getrusage() of the\n"
"measuring thread(s) around each run, user and sys, per operation.\n"
"The cost table (instructions per operation, exact) comes first; the\n"
"time-based tables follow, and then the machine's load from /proc (other\n"
"processes' CPU and steal, before and after the run), with a warning when\n"
"the machine was too busy for the figures to compare with a quiet run's.\n"
"\n"
"Suites (--suites; every suite of a group runs):\n"
"  cost     the headline, printed first: instructions per operation of each\n"
"           hot path, exact (scripts/cost.sh, `make cost`: callgrind), by\n"
"           layer; the same on a busy machine as on a quiet one. Needs the\n"
"           source tree this zn-bench was built in and valgrind; about a\n"
"           minute (--quick: its short form)\n"
"  send     UDP requests/s and MB/s by size: io_uring SEND (non-zero-copy),\n"
"           SEND_ZC with notifications reaped as they come (zero-copy; the\n"
"           buffer is reused without waiting, its content is not checked),\n"
"           SEND_ZC waiting for each notification before the buffer is reused\n"
"           (zc-wait). \"copied\": the fraction of notifications that carried\n"
"           IORING_NOTIF_USAGE_ZC_COPIED (the kernel copied after all; on\n"
"           loopback and veth it always does). \"delivered\": the fraction the\n"
"           receiving socket got (UDP drops when the receiver falls behind)\n"
"  send-tcp (--protos tcp) the same three ways over one TCP connection, at\n"
"           4 KiB only (the notification-stacking size); zcnic: zn-send\n"
"           --proto tcp into zn-recv --proto tcp\n"
"  recv     UDP: zcnic's zcrx of 8000-byte datagrams, with no kernel row\n"
"           (the kernel has no zcrx for UDP)\n"
"  recv-tcp (--protos tcp) TCP over loopback, 64 KiB reads: epoll + recv,\n"
"           io_uring RECV, zcnic's zcrx RECV_ZC multishot (zn-recv --proto tcp),\n"
"           and TCP_ZEROCOPY_RECEIVE (mmap of the receive queue; \"fallback\" is\n"
"           the fraction of bytes the kernel copied instead). Gbit/s and CPU\n"
"           microseconds per MB of the receiving thread\n"
"  msgring  MSG_RING one-way latency between two threads, each ring\n"
"           SINGLE_ISSUER | DEFER_TASKRUN, ping-pong with the send time in\n"
"           user_data: p50, p99, p99.9 ns\n"
"Transports: loopback (127.0.0.1) and veth (a veth pair between two private\n"
"network namespaces that zn-bench creates and removes, even on Ctrl-C);\n"
"nicsim for zcnic. The ratio column compares zcnic with the kernel row.\n"
"\n"
"zcnic (path \"zcnic\"): a private zn-nicsim with two bnxt models on a pair\n"
"wire (ZN_NICSIM_MODEL=mlx5: two mlx5 models; mixed: one of each), started\n"
"for each zcnic case and always stopped (also on Ctrl-C).\n"
"  send     zn-send on port 0 into zn-recv on port 1 (child processes; their\n"
"           summaries are parsed): SEND from a DMA region, SEND_ZC from\n"
"           registered buffers, and SEND_ZC --wait-notif. CPU per request is\n"
"           the zn-send process's (the simulator not included); up to 8972 B\n"
"  recv     zcrx: 8000-byte datagrams from zn-send into zn-recv (RECV_ZC +\n"
"           refill ring), first to last byte; zn-recv busy-polls, so its CPU\n"
"           per MB is its wall time per MB\n"
"  msgring  native zn_uring rings in this process, the same ping-pong\n"
"zn-nicsim's \"wire\" is a memory copy on the same CPUs: zcnic's rates measure\n"
"the model; its CPU per operation is the figure that carries over.\n"
"An operation the kernel does not support prints one line; its row is n/a.\n"
"\n"
"Options:\n"
"  --suites LIST        send,recv,msgring,cost (default: all)\n"
"  --transports LIST    loopback,veth,nicsim (default: all)\n"
"  --protos LIST        udp,tcp: the send and recv suites of each (default\n"
"                       both); a zcnic/kernel ratio pairs a protocol with itself\n"
"  --sizes LIST         request sizes in bytes, 1-65000\n"
"                       (default 600,1000,1500,4000,8000)\n"
"  --duration-ms N      length of one measured run (default 1000)\n"
"  --reps N             measured runs per figure, after one warm-up (default 3)\n"
"  --batch N            SQEs per submit, 1-256 (default 8)\n"
"  --msgs N             MSG_RING messages per run, at most (default 100000)\n"
"  --cpu A,B            pin the measuring thread (or the measured zn-send or\n"
"                       zn-recv) to CPU A, its peer (the other side, the\n"
"                       device model) to B; default: the first two CPUs this\n"
"                       process may use, so that they never share a core\n"
"  --out DIR            write DIR/zn-bench.csv, DIR/zn-bench.json and the plot\n"
"                       DIR/zn-bench-send.svg (gnuplot; skipped without it)\n"
"  --quick              tiny configuration (tests): sizes 600,1500, 40 ms,\n"
"                       1 rep, 2000 messages; explicit options still win\n"
"  -h, --help           this text\n"
"Numbers: " ZN_NUM_RULE " (the same in every zcnic app).\n";

static int usage_err(char *err, size_t errlen, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
static int usage_err(char *err, size_t errlen, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(err, errlen, fmt, ap);
	va_end(ap);
	return -EINVAL;
}

static int parse_uint(const char *s, unsigned long min, unsigned long max, unsigned long *v)
{
	uint64_t n;

	if (zn_num_parse(s, &n) || n < min || n > max)
		return -EINVAL;
	*v = (unsigned long)n;
	return 0;
}

/* Comma-separated items; each handed to item() in turn. */
static int for_each_item(const char *list, int (*item)(const char *s, void *arg), void *arg)
{
	char buf[256], *save = NULL, *tok;
	int ret;

	if (!*list || strlen(list) >= sizeof(buf))
		return -EINVAL;
	strcpy(buf, list);
	if (buf[strlen(buf) - 1] == ',' || buf[0] == ',' || strstr(buf, ",,"))
		return -EINVAL;
	for (tok = strtok_r(buf, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		ret = item(tok, arg);
		if (ret)
			return ret;
	}
	return 0;
}

static int suite_item(const char *s, void *arg)
{
	int g = bench_group_parse(s);

	/* the TCP groups are chosen by --protos */
	if (g < 0 || g == BENCH_G_SEND_TCP || g == BENCH_G_RECV_TCP)
		return -EINVAL;
	*(unsigned *)arg |= 1u << g;
	return 0;
}

static int proto_item(const char *s, void *arg)
{
	if (!strcmp(s, "udp"))
		*(unsigned *)arg |= BENCH_PROTO_UDP;
	else if (!strcmp(s, "tcp"))
		*(unsigned *)arg |= BENCH_PROTO_TCP;
	else
		return -EINVAL;
	return 0;
}

/* send and recv of --suites become their UDP and TCP groups, as --protos says */
static unsigned split_protos(unsigned suites, unsigned protos)
{
	static const unsigned pairs[][2] = { { BENCH_G_SEND, BENCH_G_SEND_TCP },
					     { BENCH_G_RECV, BENCH_G_RECV_TCP } };

	for (unsigned i = 0; i < 2; i++) {
		unsigned udp = 1u << pairs[i][0], tcp = 1u << pairs[i][1];

		if (!(suites & udp))
			continue;
		if (protos & BENCH_PROTO_TCP)
			suites |= tcp;
		if (!(protos & BENCH_PROTO_UDP))
			suites &= ~udp;
	}
	return suites;
}

static int transport_item(const char *s, void *arg)
{
	for (unsigned t = BENCH_T_LOOPBACK; t < BENCH_T_COUNT; t++)
		if (!strcmp(s, bench_transport_name(t))) {
			*(unsigned *)arg |= BENCH_TB(t);
			return 0;
		}
	return -EINVAL;
}

static int size_item(const char *s, void *arg)
{
	struct bench_opts *o = arg;
	unsigned long v;

	if (parse_uint(s, MIN_SIZE, BENCH_MAX_SIZE, &v) || o->nsizes == BENCH_MAX_SIZES)
		return -EINVAL;
	for (unsigned i = 0; i < o->nsizes; i++)
		if (o->sizes[i] == v)
			return -EINVAL;
	o->sizes[o->nsizes++] = (uint32_t)v;
	return 0;
}

static int parse_cpus(const char *s, int cpu[2])
{
	unsigned long a, b;
	char buf[32], *comma;

	if (strlen(s) >= sizeof(buf))
		return -EINVAL;
	strcpy(buf, s);
	comma = strchr(buf, ',');
	if (!comma)
		return -EINVAL;
	*comma = '\0';
	if (parse_uint(buf, 0, 4095, &a) || parse_uint(comma + 1, 0, 4095, &b))
		return -EINVAL;
	cpu[0] = (int)a;
	cpu[1] = (int)b;
	return 0;
}

enum { O_SUITES = 256, O_SIZES, O_DURATION, O_REPS, O_BATCH, O_CPU, O_OUT, O_QUICK, O_PROTOS,
       O_MSGS, O_TRANSPORTS };

static const struct option longopts[] = {
	{ "suites", required_argument, NULL, O_SUITES },
	{ "transports", required_argument, NULL, O_TRANSPORTS },
	{ "sizes", required_argument, NULL, O_SIZES },
	{ "duration-ms", required_argument, NULL, O_DURATION },
	{ "reps", required_argument, NULL, O_REPS },
	{ "batch", required_argument, NULL, O_BATCH },
	{ "msgs", required_argument, NULL, O_MSGS },
	{ "cpu", required_argument, NULL, O_CPU },
	{ "out", required_argument, NULL, O_OUT },
	{ "quick", no_argument, NULL, O_QUICK },
	{ "protos", required_argument, NULL, O_PROTOS },
	{ "help", no_argument, NULL, 'h' },
	{ NULL, 0, NULL, 0 },
};

int bench_opts_parse(int argc, char **argv, struct bench_opts *o, char *err, size_t errlen)
{
	bool have_dur = false, have_reps = false, have_msgs = false;
	unsigned long v;
	int c;

	memset(o, 0, sizeof(*o));
	o->batch = DEFAULT_BATCH;
	o->cpu[0] = o->cpu[1] = -1;
	opterr = 0;
	optind = 0;	/* glibc: start afresh (tests parse more than once) */
	while ((c = getopt_long(argc, argv, "h", longopts, NULL)) != -1) {
		switch (c) {
		case O_SUITES:
			o->suites = 0;
			if (for_each_item(optarg, suite_item, &o->suites))
				return usage_err(err, errlen, "--suites %s: expected a list of send, recv, msgring, cost",
					    optarg);
			break;
		case O_TRANSPORTS:
			o->transports = 0;
			if (for_each_item(optarg, transport_item, &o->transports))
				return usage_err(err, errlen,
					    "--transports %s: expected a list of loopback, veth, nicsim",
					    optarg);
			break;
		case O_SIZES:
			o->nsizes = 0;
			if (for_each_item(optarg, size_item, o))
				return usage_err(err, errlen,
					    "--sizes %s: expected up to %d distinct sizes, %d-%d bytes",
					    optarg, BENCH_MAX_SIZES, MIN_SIZE, BENCH_MAX_SIZE);
			break;
		case O_DURATION:
			if (parse_uint(optarg, 1, MAX_DURATION_MS, &v))
				return usage_err(err, errlen, "--duration-ms %s: expected 1-%d", optarg,
					    MAX_DURATION_MS);
			o->duration_ms = (unsigned)v;
			have_dur = true;
			break;
		case O_REPS:
			if (parse_uint(optarg, 1, MAX_REPS, &v))
				return usage_err(err, errlen, "--reps %s: expected 1-%d", optarg, MAX_REPS);
			o->reps = (unsigned)v;
			have_reps = true;
			break;
		case O_BATCH:
			if (parse_uint(optarg, 1, MAX_BATCH, &v))
				return usage_err(err, errlen, "--batch %s: expected 1-%d", optarg, MAX_BATCH);
			o->batch = (unsigned)v;
			break;
		case O_MSGS:
			if (parse_uint(optarg, 1, MAX_MSGS, &v))
				return usage_err(err, errlen, "--msgs %s: expected 1-%d", optarg, MAX_MSGS);
			o->msgs = (unsigned)v;
			have_msgs = true;
			break;
		case O_CPU:
			if (parse_cpus(optarg, o->cpu))
				return usage_err(err, errlen, "--cpu %s: expected two CPU numbers, A,B", optarg);
			break;
		case O_OUT:
			if (!*optarg)
				return usage_err(err, errlen, "--out: expected a directory");
			o->out_dir = optarg;
			break;
		case O_QUICK:
			o->quick = true;
			break;
		case O_PROTOS:
			o->protos = 0;
			if (for_each_item(optarg, proto_item, &o->protos))
				return usage_err(err, errlen, "--protos %s: expected a list of udp, tcp",
					    optarg);
			break;
		case 'h':
			return 1;
		default:
			if (optopt && optopt < O_SUITES)
				return usage_err(err, errlen, "unknown option -%c (see --help)", optopt);
			if (optopt)
				return usage_err(err, errlen, "option %s needs a value (see --help)",
					    argv[optind - 1]);
			return usage_err(err, errlen, "unknown option %s (see --help)", argv[optind - 1]);
		}
	}
	if (optind < argc)
		return usage_err(err, errlen, "unexpected argument %s (see --help)", argv[optind]);

	if (!o->suites)
		o->suites = (1u << BENCH_G_COUNT) - 1;
	if (!o->protos)
		o->protos = BENCH_PROTO_UDP | BENCH_PROTO_TCP;
	o->suites = split_protos(o->suites, o->protos);
	if (!o->transports)
		o->transports = ~0u & ((1u << BENCH_T_COUNT) - 1);
	o->transports |= BENCH_TB(BENCH_T_NONE);
	if (!o->nsizes) {
		const uint32_t *s = o->quick ? quick_sizes : default_sizes;
		size_t n = o->quick ? sizeof(quick_sizes) / sizeof(*s)
				    : sizeof(default_sizes) / sizeof(*s);

		memcpy(o->sizes, s, n * sizeof(*s));
		o->nsizes = (unsigned)n;
	}
	if (!have_dur)
		o->duration_ms = o->quick ? QUICK_DURATION_MS : DEFAULT_DURATION_MS;
	if (!have_reps)
		o->reps = o->quick ? QUICK_REPS : DEFAULT_REPS;
	if (!have_msgs)
		o->msgs = o->quick ? QUICK_MSGS : DEFAULT_MSGS;
	return 0;
}
