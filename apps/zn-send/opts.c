/* SPDX-License-Identifier: MIT */
/* zn-send: the command line. */
#include <arpa/inet.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "send.h"
#include "apps/common/cli.h"
#include "apps/common/num.h"
#include "apps/common/wait.h"
#include "zcnic/net.h"

#define EXIT_USAGE	2
#define DFLT_IP		"10.0.0.1/24"
#define DFLT_DST	"10.0.0.2:5201"
#define DFLT_SRC_PORT	5200
#define DFLT_SIZE	1000
#define DFLT_BATCH	8
#define DFLT_DURATION	2000
#define MAX_WINDOW	4096
#define TCP_MAX_SIZE	(1u << 20)

static const char usage[] =
"Usage: zn-send [options]\n"
"\n"
"UDP sender over zcnic's io_uring API: SEND_ZC (zero copy: the NIC reads the\n"
"buffer, a notification CQE says when it is free again) or SEND (copy), with\n"
"plain or registered buffers. Prints datagrams, MB, requests/s and MB/s.\n"
"Exits 0 when every send succeeded, 1 otherwise, 2 on misuse.\n"
"With --proto tcp: SOCKET and CONNECT through the ring, then SEND_ZC (its\n"
"notification comes once the peer acknowledged every byte) or SEND of\n"
"--size-byte records back to back; at the end SHUTDOWN (FIN) and a RECV that\n"
"waits for the receiver to close, so that exit 0 means every byte arrived.\n"
"\n"
"Device:\n"
"  --dev DEV            a PCI address or vfio-user:PATH. Without it zn-send starts\n"
"                       a private zn-nicsim with two bnxt ports on a pair wire and\n"
"                       sends from the first (nobody listens on the second)\n"
"                       (ZN_NICSIM_MODEL=mlx5: two mlx5 ports; mixed: one each)\n"
"  --sim-opts K=V[,..]  model options for that zn-nicsim\n"
"  --ip A.B.C.D/N       the device's address (default " DFLT_IP ")\n"
"\n"
"Traffic:\n"
"  --proto udp|tcp      UDP datagrams (default) or one TCP connection\n"
"  --dst IP:PORT        destination (default " DFLT_DST ")\n"
"  --src-port N         local UDP port (default 5200)\n"
"  --queues N           N TX queues, a thread each with its own ring, socket and\n"
"                       buffers, sending its own flow (--count and --pps are\n"
"                       shared out); flow i leaves from the first port from\n"
"                       --src-port up that zcnic's RSS puts on queue i of N\n"
"                       (zn-recv --queues N: one flow per receive queue).\n"
"                       Prints each queue's summary, then the total (UDP only)\n"
"  -s, --size N         payload bytes per datagram, 1-8972 (default 1000;\n"
"                       above 1472 the device gets MTU 9000): a datagram goes\n"
"                       in one frame (zcnic does not fragment IP), and 8972 is\n"
"                       9000 minus the IP and UDP headers; zn-recv takes the\n"
"                       same range. TCP: bytes per\n"
"                       send, 1-1048576 (MTU 1500; SEND copies at most one MTU\n"
"                       per request and sends the rest after it, one in flight)\n"
"  -b, --batch N        SQEs per submit (default 8)\n"
"  -w, --window N       sends in flight, one buffer each (default 4 x batch)\n"
"  --zc on|off          SEND_ZC (default) or SEND\n"
"  --fixed on|off       registered buffers (default off). With on the buffers\n"
"                       are ordinary memory registered with\n"
"                       io_uring_register_buffers; with off they come from a\n"
"                       zcnic DMA region mapped to the device\n"
"  --wait-notif         a batch is sent only after every notification of the\n"
"                       previous one came (zero copy waiting for each buffer)\n"
"  --pattern on|off     payload 'a' + i % 26 (default on), else zeros\n"
"  -d, --duration-ms N  send for N ms (default 2000)\n"
"  -n, --count N        send N datagrams instead (K/M/G ok)\n"
"  --pps N              at most N datagrams per second (K/M/G ok; default: no\n"
"                       limit). UDP has no flow control: a receiver that falls\n"
"                       behind loses datagrams, counted by its NIC\n"
ZN_WAIT_HELP
"  --quiet              only the summary (no info lines)\n"
"  -h, --help           this text\n"
"\n"
"Numbers: " ZN_NUM_RULE " (the same in every zcnic app).\n";

static void die_usage(const char *msg, const char *arg)
{
	zn_cli_die("zn-send", msg, arg);
}

static uint64_t parse_u64(const char *s, const char *opt)
{
	return zn_cli_u64("zn-send", s, opt);
}

static bool parse_onoff(const char *s, const char *what)
{
	if (!strcmp(s, "on") || !strcmp(s, "1"))
		return true;
	if (!strcmp(s, "off") || !strcmp(s, "0"))
		return false;
	die_usage(what, s);
	return false;
}

static void parse_cidr(const char *s, uint32_t *ip, uint8_t *prefix)
{
	if (zn_ipv4_parse_cidr(s, ip, prefix))
		die_usage("--ip wants A.B.C.D/N", s);
}

static void parse_dst(const char *s, uint32_t *ip, uint16_t *port)
{
	struct zn_addr4 a;

	if (zn_addr4_parse(s, &a))
		die_usage("--dst wants IP:PORT", s);
	*ip = a.ip;
	*port = ntohs(a.port);
}

void send_parse_args(struct send_opts *o, int argc, char **argv)
{
	enum { O_DEV = 256, O_SIM, O_IP, O_DST, O_SPORT, O_ZC, O_FIXED, O_WAIT, O_PAT, O_QUIET, O_PPS,
	       O_QUEUES,
	       O_PROTO, O_WAITMODE };
	static const struct option lo[] = {
		{ "dev", required_argument, NULL, O_DEV },
		{ "sim-opts", required_argument, NULL, O_SIM },
		{ "ip", required_argument, NULL, O_IP },
		{ "dst", required_argument, NULL, O_DST },
		{ "src-port", required_argument, NULL, O_SPORT },
		{ "queues", required_argument, NULL, O_QUEUES },
		{ "size", required_argument, NULL, 's' },
		{ "batch", required_argument, NULL, 'b' },
		{ "window", required_argument, NULL, 'w' },
		{ "zc", required_argument, NULL, O_ZC },
		{ "fixed", required_argument, NULL, O_FIXED },
		{ "wait-notif", no_argument, NULL, O_WAIT },
		{ "pattern", required_argument, NULL, O_PAT },
		{ "duration-ms", required_argument, NULL, 'd' },
		{ "count", required_argument, NULL, 'n' },
		{ "quiet", no_argument, NULL, O_QUIET },
		{ "pps", required_argument, NULL, O_PPS },
		{ "proto", required_argument, NULL, O_PROTO },
		{ "wait", required_argument, NULL, O_WAITMODE },
		{ "help", no_argument, NULL, 'h' },
		{ 0 },
	};
	uint64_t v;
	int c;

	memset(o, 0, sizeof(*o));
	parse_cidr(DFLT_IP, &o->ip, &o->prefix);
	parse_dst(DFLT_DST, &o->dst_ip, &o->dst_port);
	o->src_port = DFLT_SRC_PORT;
	o->size = DFLT_SIZE;
	o->batch = DFLT_BATCH;
	o->zc = true;
	o->pattern = true;
	o->duration_ms = DFLT_DURATION;
	opterr = 0;
	while ((c = getopt_long(argc, argv, ":s:b:w:d:n:h", lo, NULL)) != -1) {
		switch (c) {
		case O_DEV: o->dev = optarg; break;
		case O_SIM: o->sim_opts = optarg; break;
		case O_IP: parse_cidr(optarg, &o->ip, &o->prefix); break;
		case O_DST: parse_dst(optarg, &o->dst_ip, &o->dst_port); break;
		case O_SPORT:
			v = parse_u64(optarg, "--src-port");
			if (!v || v > 65535)
				die_usage("--src-port wants 1-65535", optarg);
			o->src_port = (uint16_t)v;
			break;
		case 's':
			v = parse_u64(optarg, "--size");
			if (!v || v > TCP_MAX_SIZE)
				die_usage("--size wants 1-8972 (TCP: 1-1048576)", optarg);
			o->size = (uint32_t)v;
			break;
		case 'b':
			v = parse_u64(optarg, "--batch");
			if (!v || v > 1024)
				die_usage("--batch wants 1-1024", optarg);
			o->batch = (uint32_t)v;
			break;
		case 'w':
			v = parse_u64(optarg, "--window");
			if (!v || v > MAX_WINDOW)
				die_usage("--window wants 1-4096", optarg);
			o->window = (uint32_t)v;
			break;
		case O_ZC: o->zc = parse_onoff(optarg, "--zc wants on or off"); break;
		case O_FIXED: o->fixed = parse_onoff(optarg, "--fixed wants on or off"); break;
		case O_WAIT: o->wait_notif = true; break;
		case O_PAT: o->pattern = parse_onoff(optarg, "--pattern wants on or off"); break;
		case 'd': o->duration_ms = parse_u64(optarg, "--duration-ms"); break;
		case 'n':
			o->count = parse_u64(optarg, "--count");
			if (!o->count)
				die_usage("--count wants at least 1 (to send for a time: --duration-ms)",
					  optarg);
			break;
		case O_QUIET: o->quiet = true; break;
		case O_PPS: o->pps = parse_u64(optarg, "--pps"); break;
		case O_QUEUES:
			o->queues = zn_cli_queues("zn-send", optarg);
			break;
		case O_PROTO:
			if (strcmp(optarg, "tcp") && strcmp(optarg, "udp"))
				die_usage("--proto wants udp or tcp", optarg);
			o->tcp = !strcmp(optarg, "tcp");
			break;
		case O_WAITMODE: o->wait = zn_wait_parse("zn-send", optarg); break;
		case 'h':
			fputs(usage, stdout);
			exit(0);
		default: {
			char why[128];

			zn_cli_bad_option(c, argv, why, sizeof(why));
			die_usage(why, NULL);
		}
		}
	}
	if (o->queues && o->tcp)
		die_usage("--queues is for UDP (one connection is one flow: one queue)", NULL);
	if (optind < argc)
		die_usage("unexpected argument", argv[optind]);
	if (!o->tcp && o->size > 8972)
		die_usage("--size wants 1-8972 for UDP", NULL);
	if (!o->window)
		o->window = o->batch * 4 > MAX_WINDOW ? MAX_WINDOW : o->batch * 4;
	if (o->window < o->batch)
		die_usage("--window must be at least --batch", NULL);
}
