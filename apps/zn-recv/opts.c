/* SPDX-License-Identifier: MIT */
/* zn-recv: the command line. */
#include <arpa/inet.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "recv.h"
#include "apps/common/cli.h"
#include "apps/common/num.h"
#include "apps/common/wait.h"
#include "zcnic/net.h"

#define EXIT_USAGE		2
#define DFLT_IP			"10.0.0.2/24"
#define DFLT_PORT		5201
#define DFLT_QUEUE		1
#define DFLT_AREA_MB		16
#define DFLT_RQ			4096
#define DFLT_CQ			8192
/* As zn-send: a datagram is one frame of MTU 9000, less the IP and UDP headers. */
#define UDP_MAX_SIZE		8972
#define TCP_MAX_SIZE		(1u << 20)

static const char usage[] =
"Usage: zn-recv [options]\n"
"\n"
"Zero-copy UDP receiver (io_uring zcrx over zcnic): registers an area and a\n"
"refill ring on one RX queue of the device, arms a multishot RECV_ZC on a UDP\n"
"socket steered to that queue, reads every payload where the NIC put it and\n"
"hands the buffers back through the refill ring. Prints bytes, CQE counts,\n"
"Gbit/s and CPU time per MB. Exits 0 when the expected bytes came intact,\n"
"1 on a payload mismatch, a short receive or an error, 2 on misuse.\n"
"With --proto tcp: listens on the port (SOCKET, BIND, LISTEN, ACCEPT through\n"
"the ring), takes one connection and receives until the sender closes or\n"
"--expect bytes came: by RECV_ZC when zcnic's RECV_ZC takes TCP sockets,\n"
"else by RECV (copy), saying so.\n"
"\n"
"Device:\n"
"  --dev DEV            a PCI address or vfio-user:PATH. Without it zn-recv starts\n"
"                       a private zn-nicsim with two bnxt ports on a pair wire,\n"
"                       receives on the second and prints the zn-send command\n"
"                       for the first; the simulator stops when zn-recv exits\n"
"                       (ZN_NICSIM_MODEL=mlx5: two mlx5 ports; mixed: one each)\n"
"  --sim-opts K=V[,..]  model options for that zn-nicsim\n"
"  --ip A.B.C.D/N       the device's address (default " DFLT_IP ")\n"
"\n"
"Receive:\n"
"  --proto udp|tcp      UDP datagrams (default) or one TCP connection\n"
"  -p, --port N         local UDP or TCP port (default 5201)\n"
"  -q, --queue N        RX queue the flow is steered to and zcrx is bound to\n"
"                       (default 1; the device gets queue+1 RX queues)\n"
"  --queues N           RSS over N RX queues (1 to N), a thread each with its own\n"
"                       ring, socket, zcrx area and refill ring on its queue;\n"
"                       nothing shared between them on the data path. Queue 0\n"
"                       (ARP) is the main thread's. Prints each queue's\n"
"                       summary, then the total (UDP only; 1-63)\n"
"  --area-mb N          zcrx area size in MiB (default 16; per queue)\n"
"  --rq-entries N       refill ring entries (default 4096)\n"
"  --cq-entries N       CQ entries (default 8192)\n"
"  -e, --expect BYTES   stop once this many payload bytes arrived (K/M/G ok)\n"
"  -s, --size N         datagram payload size the sender uses, 1-8972 as in\n"
"                       zn-send (one frame of MTU 9000; TCP: 1-1048576): checks every byte\n"
"                       against the pattern 'a' + i % 26 (i = offset in the\n"
"                       datagram; above 1472 the device gets MTU 9000). TCP:\n"
"                       the stream is such N-byte records back to back\n"
"  --no-check           do not check the payload\n"
"  -d, --duration-ms N  stop after N ms\n"
"  --idle-ms N          stop after N ms without data, once data came\n"
ZN_WAIT_HELP
"  --quiet              only the summary and the ready line (no info lines)\n"
"  -h, --help           this text\n"
"\n"
"Numbers: " ZN_NUM_RULE " (the same in every zcnic app).\n";

static void die_usage(const char *msg, const char *arg)
{
	zn_cli_die("zn-recv", msg, arg);
}

static uint64_t parse_u64(const char *s, const char *opt)
{
	return zn_cli_u64("zn-recv", s, opt);
}

static void parse_cidr(const char *s, uint32_t *ip, uint8_t *prefix)
{
	if (zn_ipv4_parse_cidr(s, ip, prefix))
		die_usage("--ip wants A.B.C.D/N", s);
}

void recv_parse_args(struct recv_opts *o, int argc, char **argv)
{
	enum { O_DEV = 256, O_SIM, O_IP, O_AREA, O_RQ, O_CQ, O_NOCHECK, O_IDLE, O_QUIET, O_PROTO,
	       O_QUEUES, O_WAIT };
	static const struct option lo[] = {
		{ "dev", required_argument, NULL, O_DEV },
		{ "sim-opts", required_argument, NULL, O_SIM },
		{ "ip", required_argument, NULL, O_IP },
		{ "port", required_argument, NULL, 'p' },
		{ "queue", required_argument, NULL, 'q' },
		{ "queues", required_argument, NULL, O_QUEUES },
		{ "area-mb", required_argument, NULL, O_AREA },
		{ "rq-entries", required_argument, NULL, O_RQ },
		{ "cq-entries", required_argument, NULL, O_CQ },
		{ "expect", required_argument, NULL, 'e' },
		{ "size", required_argument, NULL, 's' },
		{ "no-check", no_argument, NULL, O_NOCHECK },
		{ "duration-ms", required_argument, NULL, 'd' },
		{ "idle-ms", required_argument, NULL, O_IDLE },
		{ "quiet", no_argument, NULL, O_QUIET },
		{ "proto", required_argument, NULL, O_PROTO },
		{ "wait", required_argument, NULL, O_WAIT },
		{ "help", no_argument, NULL, 'h' },
		{ 0 },
	};
	uint64_t v;
	bool queue_given = false;
	int c;

	memset(o, 0, sizeof(*o));
	parse_cidr(DFLT_IP, &o->ip, &o->prefix);
	o->port = DFLT_PORT;
	o->queue = DFLT_QUEUE;
	o->area_bytes = (uint64_t)DFLT_AREA_MB << 20;
	o->rq_entries = DFLT_RQ;
	o->cq_entries = DFLT_CQ;
	o->check = true;
	opterr = 0;
	while ((c = getopt_long(argc, argv, ":p:q:e:s:d:h", lo, NULL)) != -1) {
		switch (c) {
		case O_DEV: o->dev = optarg; break;
		case O_SIM: o->sim_opts = optarg; break;
		case O_IP: parse_cidr(optarg, &o->ip, &o->prefix); break;
		case 'p':
			v = parse_u64(optarg, "--port");
			if (!v || v > 65535)
				die_usage("--port wants 1-65535", optarg);
			o->port = (uint16_t)v;
			break;
		case 'q':
			v = parse_u64(optarg, "--queue");
			if (v > 15)
				die_usage("--queue wants 0-15", optarg);
			o->queue = (uint16_t)v;
			queue_given = true;
			break;
		case O_QUEUES:
			o->queues = zn_cli_queues("zn-recv", optarg);
			break;
		case O_AREA:
			v = parse_u64(optarg, "--area-mb");
			if (!v || v > 4096)
				die_usage("--area-mb wants 1-4096", optarg);
			o->area_bytes = v << 20;
			break;
		case O_RQ:
			v = parse_u64(optarg, "--rq-entries");
			if (!v || v > 32768)
				die_usage("--rq-entries wants 1-32768", optarg);
			o->rq_entries = (uint32_t)v;
			break;
		case O_CQ:
			v = parse_u64(optarg, "--cq-entries");
			if (v < 2 || v > 65536)
				die_usage("--cq-entries wants 2-65536", optarg);
			o->cq_entries = (uint32_t)v;
			break;
		case 'e':
			o->expect = parse_u64(optarg, "--expect");
			if (!o->expect)
				die_usage("--expect wants at least 1 byte (to receive for a time: "
					  "--duration-ms)", optarg);
			break;
		case 's':
			v = parse_u64(optarg, "--size");
			if (!v || v > TCP_MAX_SIZE)
				die_usage("--size wants 1-8972 (TCP: 1-1048576)", optarg);
			o->size = (uint32_t)v;
			break;
		case O_NOCHECK: o->check = false; break;
		case 'd': o->duration_ms = parse_u64(optarg, "--duration-ms"); break;
		case O_IDLE: o->idle_ms = parse_u64(optarg, "--idle-ms"); break;
		case O_QUIET: o->quiet = true; break;
		case O_PROTO:
			if (strcmp(optarg, "tcp") && strcmp(optarg, "udp"))
				die_usage("--proto wants udp or tcp", optarg);
			o->tcp = !strcmp(optarg, "tcp");
			break;
		case O_WAIT: o->wait = zn_wait_parse("zn-recv", optarg); break;
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
	if (!o->tcp && o->size > UDP_MAX_SIZE)
		die_usage("--size wants 1-8972 for UDP", NULL);
	if (!o->size)
		o->check = false;
	if (o->queues && o->tcp)
		die_usage("--queues is for UDP (one connection is one flow: one queue)", NULL);
	if (o->queues && queue_given)
		die_usage("--queues and --queue: RSS picks the queues (1 to N)", NULL);
}
