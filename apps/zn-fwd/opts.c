/* SPDX-License-Identifier: MIT */
/* zn-fwd: the command line. */
#include <arpa/inet.h>
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "apps/common/cli.h"
#include "apps/common/num.h"
#include "fwd.h"

#define EXIT_USAGE		2
#define DEFAULT_FRAMES		100000
#define DEFAULT_BURST		32
#define DEFAULT_RING		512
#define DEFAULT_FLOWS		64
#define DEFAULT_HDR_BUF		256
#define DEFAULT_BUF_SIZE	2048

static const char usage[] =
"Usage: zn-fwd [--port0 DEV --port1 DEV] [options]\n"
"\n"
"Sends generated IPv4/UDP frames on port0 and receives them on port1, which\n"
"must be on one wire; checks every byte of every frame (headers in the header\n"
"buffer, payload in the payload buffers) and reports frames/s, drops,\n"
"per-queue counts and mismatches. Exits 0 when every received frame was\n"
"intact, 1 otherwise.\n"
"\n"
"Devices (DEV: a PCI address, or vfio-user:PATH):\n"
"  --port0 DEV, --port1 DEV  the sender and the receiver. Without them zn-fwd\n"
"                       starts a private zn-nicsim with two bnxt ports on a pair\n"
"                       wire in a temporary directory, and stops it on exit\n"
"                       (ZN_NICSIM_MODEL=mlx5: two mlx5 ports; mixed: one each)\n"
"  --sim-opts K=V[,..]  model options for that zn-nicsim (e.g. bnxt's multidb=0)\n"
"\n"
"Traffic:\n"
"  -q, --queues N       queues per port (default 1); RSS spreads the flows\n"
"                       over port1's queues with the standard Toeplitz key\n"
"  -s, --sizes LIST     frame lengths without FCS, 60-9018: 64,1500,9000 cycles\n"
"                       through the list, 60-9000 draws from the range (default 64)\n"
"  -n, --frames N       frames to send (default 100000)\n"
"  -d, --duration SEC   send for SEC seconds instead\n"
"  -b, --burst N        frames per TX/RX burst, 1-256 (default 32)\n"
"  --flows N            UDP flows: sport 10000+f, dport 20000+f (default 64)\n"
"  --rule SPEC          n-tuple rule on port1: [src=IP,][dst=IP,][sport=N,]\n"
"                       [dport=N,][proto=udp|tcp,]queue=Q; frames of a flow it\n"
"                       matches must arrive on queue Q (repeatable)\n"
"  --tx-split           send each frame as two segments, its 42 header bytes\n"
"                       and its payload (the shape of a zero-copy send)\n"
"  --window N           frames in flight at most (default: half a ring of\n"
"                       buffers for the largest frame, at least one burst)\n"
"\n"
"Port set-up:\n"
"  --mtu N              L3 MTU (default 1500, or 9000 when a size needs it)\n"
"  --hds-thresh N       header-data split threshold (default 0: split every\n"
"                       frame that has payload)\n"
"  --check-hds          also check placement: a frame longer than the threshold\n"
"                       has its 42 header bytes alone in the header buffer;\n"
"                       one not longer that fits the header buffer is whole there\n"
"  --hdr-buf N          header buffer bytes (default 256)\n"
"  --buf-size N         payload buffer bytes (default 2048)\n"
"  --ring-size N        descriptors per ring (default 512)\n"
"\n"
"Measuring:\n"
"  --pace-us N          sleep N us after each TX burst and after each empty\n"
"                       RX round, so that RX bursts come full (for counting\n"
"                       instructions per packet)\n"
"  --quiet              errors and the summary only (no info lines, no set-up line)\n"
"  -h, --help           this text\n"
"\n"
"Output: one summary line (\"zn-fwd: N sent, N received, N dropped, ...\"),\n"
"a per-queue line and a burst-call line.\n"
"Numbers: " ZN_NUM_RULE " (the same in every zcnic app).\n";


static void die_usage(const char *fmt, ...) __attribute__((format(printf, 1, 2), noreturn));
static void die_usage(const char *fmt, ...)
{
	va_list ap;

	fputs("zn-fwd: ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputs(" (see zn-fwd --help)\n", stderr);
	exit(EXIT_USAGE);
}

static uint64_t parse_num(const char *opt, const char *s, uint64_t min, uint64_t max)
{
	uint64_t v;
	int ret = zn_num_parse(s, &v);

	if (ret)
		die_usage("%s %s: %s", opt, s, zn_num_error(ret));
	if (v < min || v > max)
		die_usage("%s %s: want a number from %" PRIu64 " to %" PRIu64, opt, s, min, max);
	return v;
}

static void parse_rule(struct fwd_opts *o, const char *spec)
{
	struct fwd_rule *r;
	char buf[256], *save = NULL, *tok;
	bool have_queue = false;

	if (o->nrules == MAX_RULES)
		die_usage("at most %d --rule options", MAX_RULES);
	if (snprintf(buf, sizeof(buf), "%s", spec) >= (int)sizeof(buf))
		die_usage("--rule %s: too long", spec);
	r = &o->rules[o->nrules];
	memset(r, 0, sizeof(*r));
	r->m.ip_version = 4;
	r->m.ip_proto = 17;
	for (tok = strtok_r(buf, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		char *eq = strchr(tok, '=');
		struct in_addr a;

		if (!eq)
			die_usage("--rule %s: '%s' is not KEY=VALUE", spec, tok);
		*eq++ = '\0';
		if (!strcmp(tok, "src") || !strcmp(tok, "dst")) {
			bool src = tok[0] == 's';

			if (inet_pton(AF_INET, eq, &a) != 1)
				die_usage("--rule %s: '%s' is not an IPv4 address", spec, eq);
			memcpy(src ? r->m.src_ip : r->m.dst_ip, &a, 4);
			*(src ? &r->src : &r->dst) = ntohl(a.s_addr);
			*(src ? &r->has_src : &r->has_dst) = true;
		} else if (!strcmp(tok, "sport")) {
			r->m.src_port = htons((uint16_t)parse_num("--rule sport", eq, 1, 65535));
		} else if (!strcmp(tok, "dport")) {
			r->m.dst_port = htons((uint16_t)parse_num("--rule dport", eq, 1, 65535));
		} else if (!strcmp(tok, "proto")) {
			if (!strcmp(eq, "udp"))
				r->m.ip_proto = 17;
			else if (!strcmp(eq, "tcp"))
				r->m.ip_proto = 6;
			else
				die_usage("--rule %s: proto is udp or tcp", spec);
		} else if (!strcmp(tok, "queue")) {
			r->queue = (uint16_t)parse_num("--rule queue", eq, 0, MAX_QUEUES - 1);
			have_queue = true;
		} else {
			die_usage("--rule %s: unknown key '%s' (src, dst, sport, dport, proto, queue)",
				  spec, tok);
		}
	}
	if (!have_queue)
		die_usage("--rule %s: queue=Q is required", spec);
	o->nrules++;
}

void fwd_parse_args(struct fwd_opts *o, int argc, char **argv)
{
	enum { O_PORT0 = 256, O_PORT1, O_SIMOPTS, O_FLOWS, O_RULE, O_WINDOW, O_MTU, O_HDS,
	       O_CHECK_HDS, O_HDRBUF, O_BUFSIZE, O_RING, O_PACE, O_TXSPLIT, O_QUIET };
	static const struct option opts[] = {
		{ "port0", required_argument, NULL, O_PORT0 },
		{ "port1", required_argument, NULL, O_PORT1 },
		{ "sim-opts", required_argument, NULL, O_SIMOPTS },
		{ "queues", required_argument, NULL, 'q' },
		{ "sizes", required_argument, NULL, 's' },
		{ "frames", required_argument, NULL, 'n' },
		{ "duration", required_argument, NULL, 'd' },
		{ "burst", required_argument, NULL, 'b' },
		{ "flows", required_argument, NULL, O_FLOWS },
		{ "rule", required_argument, NULL, O_RULE },
		{ "window", required_argument, NULL, O_WINDOW },
		{ "mtu", required_argument, NULL, O_MTU },
		{ "hds-thresh", required_argument, NULL, O_HDS },
		{ "check-hds", no_argument, NULL, O_CHECK_HDS },
		{ "hdr-buf", required_argument, NULL, O_HDRBUF },
		{ "buf-size", required_argument, NULL, O_BUFSIZE },
		{ "ring-size", required_argument, NULL, O_RING },
		{ "pace-us", required_argument, NULL, O_PACE },
		{ "tx-split", no_argument, NULL, O_TXSPLIT },
		{ "quiet", no_argument, NULL, O_QUIET },
		{ "help", no_argument, NULL, 'h' },
		{ 0 }
	};
	const char *sizes = "64";
	char err[256];
	int opt;

	*o = (struct fwd_opts){
		.queues = 1, .frames = DEFAULT_FRAMES, .burst = DEFAULT_BURST,
		.hdr_buf = DEFAULT_HDR_BUF, .buf_size = DEFAULT_BUF_SIZE, .ring_size = DEFAULT_RING,
		.nflows = DEFAULT_FLOWS,
	};
	opterr = 0;
	while ((opt = getopt_long(argc, argv, ":q:s:n:d:b:h", opts, NULL)) != -1) {
		switch (opt) {
		case O_PORT0: o->port0 = optarg; break;
		case O_PORT1: o->port1 = optarg; break;
		case O_SIMOPTS: o->sim_opts = optarg; break;
		case 'q': o->queues = (uint16_t)parse_num("--queues", optarg, 1, MAX_QUEUES); break;
		case 's': sizes = optarg; break;
		case 'n': o->frames = parse_num("--frames", optarg, 1, UINT64_MAX / 2); break;
		case 'd': {
			char *end;

			o->duration = strtod(optarg, &end);
			if (end == optarg || *end || !(o->duration > 0) || o->duration > 1e6)
				die_usage("--duration %s: want seconds, e.g. 2.5", optarg);
			break;
		}
		case 'b': o->burst = (uint32_t)parse_num("--burst", optarg, 1, MAX_BURST); break;
		case O_FLOWS: o->nflows = (uint32_t)parse_num("--flows", optarg, 1, 10000); break;
		case O_RULE: parse_rule(o, optarg); break;
		case O_WINDOW: o->window = (uint32_t)parse_num("--window", optarg, 1, 1u << 16); break;
		case O_MTU: o->mtu = (uint32_t)parse_num("--mtu", optarg, 68, 9216); break;
		case O_HDS: o->hds_thresh = (uint32_t)parse_num("--hds-thresh", optarg, 0, 65535); break;
		case O_CHECK_HDS: o->check_hds = true; break;
		case O_HDRBUF: o->hdr_buf = (uint32_t)parse_num("--hdr-buf", optarg, 64, 65536); break;
		case O_BUFSIZE: o->buf_size = (uint32_t)parse_num("--buf-size", optarg, 256, 1u << 20); break;
		case O_RING: o->ring_size = (uint32_t)parse_num("--ring-size", optarg, 16, 65536); break;
		case O_PACE: o->pace_us = (uint32_t)parse_num("--pace-us", optarg, 0, 1000000); break;
		case O_TXSPLIT: o->tx_split = true; break;
		case O_QUIET: o->quiet = true; break;
		case 'h':
			fputs(usage, stdout);
			exit(0);
		default: {
			char why[128];

			zn_cli_bad_option(opt, argv, why, sizeof(why));
			die_usage("%s", why);
		}
		}
	}
	if (optind < argc)
		die_usage("unexpected argument '%s'", argv[optind]);
	if (!o->port0 != !o->port1)
		die_usage("give both --port0 and --port1, or neither (a private zn-nicsim)");
	if (o->sim_opts && o->port0)
		die_usage("--sim-opts is for the private zn-nicsim; it cannot go with --port0/--port1");
	if (o->hds_thresh > o->hdr_buf)
		die_usage("--hds-thresh %u: frames up to the threshold land whole in the header "
			  "buffer, so it must not exceed --hdr-buf (%u)", o->hds_thresh, o->hdr_buf);
	if (o->ring_size & (o->ring_size - 1))
		die_usage("--ring-size %u: want a power of two", o->ring_size);
	if (fwd_sizes_parse(sizes, &o->sizes, err, sizeof(err)))
		die_usage("%s", err);
	for (unsigned i = 0; i < o->nrules; i++)
		if (o->rules[i].queue >= o->queues)
			die_usage("--rule: queue %u, but port1 has %u queue(s) (--queues)",
				  o->rules[i].queue, o->queues);
	if (!o->mtu)
		o->mtu = fwd_sizes_max(&o->sizes) > 1500 + 14 ? 9000 : 1500;
	if (fwd_sizes_max(&o->sizes) > o->mtu + 14)
		die_usage("--sizes: a %u-byte frame needs --mtu %u or more", fwd_sizes_max(&o->sizes),
			  fwd_sizes_max(&o->sizes) - 14);
	o->buf_size = (o->buf_size + 63) & ~63u;
	if (!o->window) {
		/* buffers one frame of the largest size takes: a header buffer + payload */
		uint32_t segs = 1 + (fwd_sizes_max(&o->sizes) + o->buf_size - 1) / o->buf_size;

		o->window = o->ring_size / (2 * segs);
		if (o->window < o->burst)
			o->window = o->burst;
	}
}
