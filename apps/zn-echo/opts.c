/* SPDX-License-Identifier: MIT */
/* zn-echo: the command line. */
#include <arpa/inet.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "echo.h"
#include "apps/common/cli.h"
#include "apps/common/num.h"
#include "zcnic/net.h"

#define EXIT_USAGE	2
#define DFLT_IP		"10.0.0.2/24"
#define DFLT_PORT	7
#define DFLT_CONNS	64
#define DFLT_BUF	(64u * 1024u)

static const char usage[] =
"Usage: zn-echo [options]\n"
"\n"
"TCP echo server (RFC 862) over zcnic's io_uring API, written with liburing\n"
"names only after the device is open: SOCKET, BIND and LISTEN through the\n"
"ring, one multishot ACCEPT that stays armed for every connection, then per\n"
"connection RECV into its buffer and SEND of those bytes back (the rest of a\n"
"short send goes next), until the client closes: then SHUTDOWN and CLOSE.\n"
"Prints connections and bytes echoed. Exits 0 on a clean stop (signal,\n"
"--duration-ms or --conns), 1 on an error, 2 on misuse.\n"
"\n"
"Device:\n"
"  --dev DEV            a PCI address or vfio-user:PATH. Without it zn-echo starts\n"
"                       a private zn-nicsim with two bnxt ports on a pair wire,\n"
"                       serves on the second and says which device a client\n"
"                       opens (the first)\n"
"  --sim-opts K=V[,..]  model options for that zn-nicsim\n"
"  --ip A.B.C.D/N       the device's address (default " DFLT_IP ")\n"
"  --gateway A.B.C.D    the router for clients on other subnets (default none)\n"
"\n"
"Serve:\n"
"  -p, --port N         TCP port (default 7, the echo port)\n"
"  -c, --max-conns N    connections served at once (default 64); more wait in\n"
"                       the listen backlog\n"
"  --buf N              bytes per RECV, per connection (default 64K; K/M/G ok)\n"
"  -n, --conns N        stop after N connections ended (default: never)\n"
"  -d, --duration-ms N  stop after N ms\n"
"  --quiet              only the summary\n"
"  -h, --help           this text\n"
"\n"
"RECV is single shot and re-armed after each echo, so that a connection\n"
"never has more than one buffer of data waiting to be echoed.\n"
"Numbers: " ZN_NUM_RULE " (the same in every zcnic app).\n";

static void die_usage(const char *msg, const char *arg)
{
	zn_cli_die("zn-echo", msg, arg);
}

static uint64_t parse_u64(const char *s, const char *opt)
{
	return zn_cli_u64("zn-echo", s, opt);
}

void echo_parse_args(struct echo_opts *o, int argc, char **argv)
{
	enum { O_DEV = 256, O_SIM, O_IP, O_GW, O_BUF, O_QUIET };
	static const struct option lo[] = {
		{ "dev", required_argument, NULL, O_DEV },
		{ "sim-opts", required_argument, NULL, O_SIM },
		{ "ip", required_argument, NULL, O_IP },
		{ "gateway", required_argument, NULL, O_GW },
		{ "port", required_argument, NULL, 'p' },
		{ "max-conns", required_argument, NULL, 'c' },
		{ "buf", required_argument, NULL, O_BUF },
		{ "conns", required_argument, NULL, 'n' },
		{ "duration-ms", required_argument, NULL, 'd' },
		{ "quiet", no_argument, NULL, O_QUIET },
		{ "help", no_argument, NULL, 'h' },
		{ 0 },
	};
	struct in_addr gw;
	uint64_t v;
	int c;

	memset(o, 0, sizeof(*o));
	zn_ipv4_parse_cidr(DFLT_IP, &o->ip, &o->prefix);
	o->port = DFLT_PORT;
	o->max_conns = DFLT_CONNS;
	o->buf = DFLT_BUF;
	opterr = 0;
	while ((c = getopt_long(argc, argv, ":p:c:n:d:h", lo, NULL)) != -1) {
		switch (c) {
		case O_DEV: o->dev = optarg; break;
		case O_SIM: o->sim_opts = optarg; break;
		case O_IP:
			if (zn_ipv4_parse_cidr(optarg, &o->ip, &o->prefix))
				die_usage("--ip wants A.B.C.D/N", optarg);
			break;
		case O_GW:
			if (inet_pton(AF_INET, optarg, &gw) != 1)
				die_usage("--gateway wants A.B.C.D", optarg);
			o->gateway = gw.s_addr;
			break;
		case 'p':
			v = parse_u64(optarg, "--port");
			if (!v || v > 65535)
				die_usage("--port wants 1-65535", optarg);
			o->port = (uint16_t)v;
			break;
		case 'c':
			v = parse_u64(optarg, "--max-conns");
			if (!v || v > 4096)
				die_usage("--max-conns wants 1-4096", optarg);
			o->max_conns = (uint32_t)v;
			break;
		case O_BUF:
			v = parse_u64(optarg, "--buf");
			if (!v || v > (16u << 20))
				die_usage("--buf wants 1-16M", optarg);
			o->buf = (uint32_t)v;
			break;
		case 'n': o->conns = parse_u64(optarg, "--conns"); break;
		case 'd': o->duration_ms = parse_u64(optarg, "--duration-ms"); break;
		case O_QUIET: o->quiet = true; break;
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
	if (optind < argc)
		die_usage("unexpected argument", argv[optind]);
}
