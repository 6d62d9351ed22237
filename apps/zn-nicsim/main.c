/* SPDX-License-Identifier: MIT */
/*
 * zn-nicsim: device models served over vfio-user, one UNIX socket per device.
 *
 *   zn-nicsim --dir /tmp/sim --dev edu0=edu
 *   -> /tmp/sim/edu0.sock, a client connects with "vfio-user:/tmp/sim/edu0.sock"
 *
 * Follows the vfio-user backend conventions (spec "Backend Program
 * Conventions"): no daemonizing, SIGTERM honoured, --socket-path for a single
 * device. hw-docs/vfio-user.md documents the command line.
 */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/signalfd.h>
#include <sys/stat.h>
#include <unistd.h>

#include "nicsim.h"
#include "sim/log.h"
#include "sim/model.h"
#include "sim/vfu/vfu.h"
#include "sim/wire.h"

#define MAX_DEVS	32
#define MAX_WIRES	32
#define MAX_FAULTS	64
#define EXIT_USAGE	2

static const char usage[] =
"Usage: zn-nicsim --dir DIR --dev NAME=MODEL[,KEY=VAL...] [--dev ...]\n"
"                 [--wire pair:DEV[.PORT],DEV[.PORT] ...]\n"
"                 [--wire afpacket:DEV[.PORT],IFNAME ...] [--stats-file PATH]\n"
"                 [--fault DEV:KEY=VAL[,...] ...] [--pcap FILE] [--ready-fd N]\n"
"                 [--log SPEC] [--foreground]\n"
"       zn-nicsim --socket-path PATH --dev NAME=MODEL[,...]   (one device)\n"
"       zn-nicsim --list-models | --help\n"
"\n"
"Serves device models over vfio-user (QEMU docs/interop/vfio-user.rst), one\n"
"UNIX socket per device: DIR/NAME.sock. A client reaches a device as\n"
"\"vfio-user:DIR/NAME.sock\"; clients of one device are served one at a time.\n"
"\n"
"  --dev NAME=MODEL[,KEY=VAL...]  a device; NAME is 1-32 of A-Z a-z 0-9 _ -,\n"
"                                 MODEL and its options: see --list-models\n"
"  --dir DIR                      directory for the sockets (created if missing)\n"
"  --socket-path PATH             the socket of the only device (instead of --dir)\n"
"  --wire pair:A,B                join two model ports back to back; A and B are\n"
"                                 DEV or DEV.PORT (port 0 if left out)\n"
"  --wire afpacket:A,IFNAME       join a model port to the network interface IFNAME\n"
"                                 (AF_PACKET, needs CAP_NET_RAW): frames the model\n"
"                                 sends go out on IFNAME, frames arriving on it go\n"
"                                 to the model (e.g. one end of a veth pair)\n"
"  --fault DEV:KEY=VAL[,...]      inject faults into device DEV (repeatable; later\n"
"                                 keys win), each counted as DEV.fault.NAME:\n"
"      seed=N             the generator's seed: a seed replays a run (default 1)\n"
"      after=N            the per-frame faults (P) spare DEV's first N frames\n"
"      wire-drop=P        a frame DEV sends on a pair wire is lost (P: 0..1)\n"
"      wire-reorder=P     ... overtakes the frame queued before it\n"
"      wire-dup=P         ... arrives twice\n"
"      wire-corrupt=P     ... gets a bit flipped after its FCS: the receiving\n"
"                         port drops it (DEV2.model.port.rx_fcs_errors)\n"
"      wire-csum=P        ... gets an IPv4 UDP/TCP payload bit flipped, FCS\n"
"                         good: the receiver sees a bad L4 checksum\n"
"      rx-nobuf=P         a received frame finds no RX buffer (dropped, counted)\n"
"      tx-delay=MS        the device serves TX work MS ms late (0-10000)\n"
"      cmd-fail=OP        command OP (bnxt HWRM req_type, mlx5 opcode) fails\n"
"      cmd-err=CODE       ... with CODE (default: the model's generic error)\n"
"      cmd-fail-count=N   ... N times, then works (default 1; 0: always)\n"
"      cmd-hang=OP        command OP is never answered (the driver times out)\n"
"      cmd-hang-count=N   ... N times (default 1; 0: always)\n"
"      fatal-after=N      after N frames (sent + received), a fatal firmware\n"
"                         error: nothing is answered until the next client\n"
"      flr-after=N        after N frames, a function reset under the driver\n"
"      dma-refuse=N       the Nth DMA map request of DEV is refused (ENOMEM)\n"
"                                 e.g. --fault bnxt0:wire-drop=0.01,seed=7\n"
"  --stats-file PATH              write counters here on SIGUSR1 and at exit\n"
"  --pcap FILE                    write every frame that crosses a wire (both\n"
"                                 directions, every wire) to FILE in pcap format\n"
"                                 (libpcap; read it with tcpdump -r or Wireshark);\n"
"                                 flushed every 64 frames, on SIGUSR1 and at exit\n"
"  --ready-fd N                   write \"ready\\n\" to fd N once all sockets listen\n"
"                                 (\"zn-nicsim: ready\" goes to stdout in any case)\n"
"  --log SPEC                     log levels, as ZN_SIM_LOG: 'debug', 'warn,vfu=debug'\n"
"  --foreground                   accepted for compatibility: zn-nicsim never forks\n"
"  --list-models                  list the models and their options\n"
"  -h, --help                     this text\n"
"\n"
"Signals: SIGTERM/SIGINT stop (sockets removed, exit 0); SIGUSR1 prints the\n"
"counters to stdout as \"DEV.KEY VALUE\" lines, then the wires' as \"wireN.KEY\n"
"VALUE\" (N: --wire order) (and rewrites --stats-file).\n"
"Exit status: 0 clean stop, 1 runtime failure, 2 bad command line.\n";

struct wire_spec {
	char a[ZN_SIM_NAME_MAX + 12], b[ZN_SIM_NAME_MAX + 12];
};

static struct {
	struct zn_sim_device *devs[MAX_DEVS];
	unsigned ndev;
	struct zn_sim_wire *wires[MAX_WIRES];
	unsigned nwire;
	struct zn_vfu_loop *loop;
	const char *stats_file;
	int rc;
} g;

static void usage_error(const char *fmt, ...) __attribute__((format(printf, 1, 2), noreturn));

static void usage_error(const char *fmt, ...)
{
	va_list ap;

	fputs("zn-nicsim: ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputs(" (see zn-nicsim --help)\n", stderr);
	for (unsigned i = 0; i < g.nwire; i++)
		zn_sim_wire_free(g.wires[i]);
	for (unsigned i = 0; i < g.ndev; i++)
		zn_sim_device_free(g.devs[i]);
	exit(EXIT_USAGE);
}

static void list_models(void)
{
	const struct zn_sim_model_ops *m;

	for (unsigned i = 0; (m = zn_sim_model_at(i)); i++) {
		printf("%s\t%s\n", m->name, m->summary);
		if (m->options)
			printf("%s", m->options);
	}
}

static void emit_line(void *ctx, const char *key, uint64_t v)
{
	fprintf(ctx, "%s %llu\n", key, (unsigned long long)v);
}

struct wire_emit {
	FILE *f;
	unsigned index;
};

static void emit_wire_line(void *ctx, const char *key, uint64_t v)
{
	struct wire_emit *we = ctx;

	fprintf(we->f, "wire%u.%s %llu\n", we->index, key, (unsigned long long)v);
}

static void dump_stats(FILE *f)
{
	for (unsigned i = 0; i < g.ndev; i++)
		zn_sim_device_stats(g.devs[i], emit_line, f);
	for (unsigned i = 0; i < g.nwire; i++) {
		struct wire_emit we = { f, i };

		zn_sim_wire_stats(g.wires[i], emit_wire_line, &we);
	}
}

static void write_stats_file(void)
{
	char tmp[4096];
	FILE *f;

	if (!g.stats_file)
		return;
	snprintf(tmp, sizeof(tmp), "%s.tmp", g.stats_file);
	f = fopen(tmp, "w");
	if (!f) {
		fprintf(stderr, "zn-nicsim: cannot write %s: %s\n", tmp, strerror(errno));
		return;
	}
	dump_stats(f);
	/* rename: a reader never sees half a file */
	if (fclose(f) || rename(tmp, g.stats_file))
		fprintf(stderr, "zn-nicsim: cannot write %s: %s\n", g.stats_file, strerror(errno));
}

static void on_signal(void *arg, short revents)
{
	int sfd = *(int *)arg;
	struct signalfd_siginfo si;

	(void)revents;
	while (read(sfd, &si, sizeof(si)) == sizeof(si)) {
		switch (si.ssi_signo) {
		case SIGUSR1:
			printf("# zn-nicsim stats\n");
			dump_stats(stdout);
			fflush(stdout);
			write_stats_file();
			nicsim_pcap_flush();
			break;
		case SIGINT:
		case SIGTERM:
			/* VFIO's REQ: ask clients to let go; we stop regardless. */
			for (unsigned i = 0; i < g.ndev; i++)
				zn_vfu_dev_request_release(g.devs[i]->dev);
			zn_vfu_loop_stop(g.loop);
			break;
		}
	}
}

static struct zn_sim_device *find_dev(const char *name)
{
	for (unsigned i = 0; i < g.ndev; i++)
		if (!strcmp(g.devs[i]->name, name))
			return g.devs[i];
	return NULL;
}

static struct zn_sim_port *wire_end(const char *wire, const char *end)
{
	char name[ZN_SIM_NAME_MAX + 12];
	char *dot, *tail;
	unsigned long port = 0;
	struct zn_sim_device *d;

	snprintf(name, sizeof(name), "%s", end);
	dot = strchr(name, '.');
	if (dot) {
		*dot = '\0';
		errno = 0;
		port = strtoul(dot + 1, &tail, 10);
		if (errno || tail == dot + 1 || *tail)
			usage_error("--wire %s: bad port in '%s' (want DEV or DEV.PORT)", wire, end);
	}
	d = find_dev(name);
	if (!d)
		usage_error("--wire %s: no device '%s' (give it with --dev)", wire, name);
	if (zn_sim_device_nports(d) == 0)
		usage_error("--wire %s: device '%s' (model %s) has no network ports", wire,
			    name, d->ops->name);
	if (port >= zn_sim_device_nports(d))
		usage_error("--wire %s: device '%s' has ports 0-%u", wire, name,
			    zn_sim_device_nports(d) - 1);
	return zn_sim_device_port(d, (unsigned)port);
}

static void add_afpacket(const char *spec)
{
	char a[ZN_SIM_NAME_MAX + 12], err[256];
	const char *body = spec + 9, *comma = strchr(body, ',');
	struct zn_sim_port *pa;
	int rc;

	if (!comma || comma == body || !comma[1] || (size_t)(comma - body) >= sizeof(a))
		usage_error("--wire %s: want afpacket:DEV[.PORT],IFNAME", spec);
	snprintf(a, sizeof(a), "%.*s", (int)(comma - body), body);
	pa = wire_end(spec, a);
	if (g.nwire == MAX_WIRES)
		usage_error("--wire %s: at most %d wires", spec, MAX_WIRES);
	rc = zn_sim_wire_afpacket(pa, comma + 1, &g.wires[g.nwire], err, sizeof(err));
	if (rc == -EINVAL || rc == -EBUSY)
		usage_error("--wire %s: %s", spec, err);
	if (rc) {
		/* the command line was fine: the system said no (exit 1) */
		fprintf(stderr, "zn-nicsim: --wire %s: %s\n", spec, err);
		for (unsigned i = 0; i < g.nwire; i++)
			zn_sim_wire_free(g.wires[i]);
		for (unsigned i = 0; i < g.ndev; i++)
			zn_sim_device_free(g.devs[i]);
		exit(1);
	}
	g.nwire++;
}

static void on_wire_fd(void *arg, short revents)
{
	uint64_t deadline = UINT64_MAX;

	(void)revents;
	zn_sim_wire_poll(arg, zn_vfu_now_ns(), &deadline);
}

static void add_wire(const char *spec)
{
	char a[ZN_SIM_NAME_MAX + 12], b[ZN_SIM_NAME_MAX + 12];
	const char *body, *comma;
	struct zn_sim_port *pa, *pb;

	if (!strncmp(spec, "afpacket:", 9)) {
		add_afpacket(spec);
		return;
	}
	if (strncmp(spec, "pair:", 5))
		usage_error("--wire %s: unknown kind (want pair:A,B or afpacket:A,IFNAME)", spec);
	body = spec + 5;
	comma = strchr(body, ',');
	if (!comma || comma == body || !comma[1] || strchr(comma + 1, ',') ||
	    (size_t)(comma - body) >= sizeof(a) || strlen(comma + 1) >= sizeof(b))
		usage_error("--wire %s: want pair:A,B", spec);
	snprintf(a, sizeof(a), "%.*s", (int)(comma - body), body);
	snprintf(b, sizeof(b), "%s", comma + 1);
	pa = wire_end(spec, a);
	pb = wire_end(spec, b);
	if (g.nwire == MAX_WIRES)
		usage_error("--wire %s: at most %d wires", spec, MAX_WIRES);
	if (zn_sim_wire_pair(pa, pb, &g.wires[g.nwire]))
		usage_error("--wire %s: a port is already wired (or both ends are one port)",
			    spec);
	g.nwire++;
}

static void add_fault(const char *spec)
{
	char name[ZN_SIM_NAME_MAX + 1], err[256];
	const char *colon = strchr(spec, ':');
	struct zn_sim_device *d;

	if (!colon || colon == spec || (size_t)(colon - spec) > ZN_SIM_NAME_MAX || !colon[1])
		usage_error("--fault %s: want DEV:KEY=VAL[,KEY=VAL...]", spec);
	snprintf(name, sizeof(name), "%.*s", (int)(colon - spec), spec);
	d = find_dev(name);
	if (!d)
		usage_error("--fault %s: no device '%s' (give it with --dev)", spec, name);
	if (zn_sim_device_faults(d, colon + 1, err, sizeof(err)))
		usage_error("--fault %s: %s", spec, err);
}

int main(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "dev", required_argument, NULL, 'd' },
		{ "dir", required_argument, NULL, 'D' },
		{ "socket-path", required_argument, NULL, 's' },
		{ "wire", required_argument, NULL, 'w' },
		{ "fault", required_argument, NULL, 'F' },
		{ "stats-file", required_argument, NULL, 'S' },
		{ "pcap", required_argument, NULL, 'P' },
		{ "ready-fd", required_argument, NULL, 'r' },
		{ "log", required_argument, NULL, 'l' },
		{ "foreground", no_argument, NULL, 'f' },
		{ "list-models", no_argument, NULL, 'L' },
		{ "help", no_argument, NULL, 'h' },
		{ 0 }
	};
	const char *devspec[MAX_DEVS], *wirespec[MAX_WIRES], *faultspec[MAX_FAULTS];
	unsigned ndevspec = 0, nwirespec = 0, nfaultspec = 0;
	const char *dir = NULL, *socket_path = NULL, *pcap_path = NULL;
	int ready_fd = -1, sfd = -1, opt, ret;
	char err[256];
	struct stat st;
	sigset_t mask;

	opterr = 0;
	while ((opt = getopt_long(argc, argv, "h", opts, NULL)) != -1) {
		switch (opt) {
		case 'd':
			if (ndevspec == MAX_DEVS)
				usage_error("at most %d devices", MAX_DEVS);
			devspec[ndevspec++] = optarg;
			break;
		case 'D':
			dir = optarg;
			break;
		case 's':
			socket_path = optarg;
			break;
		case 'w':
			if (nwirespec == MAX_WIRES)
				usage_error("at most %d wires", MAX_WIRES);
			wirespec[nwirespec++] = optarg;
			break;
		case 'F':
			if (nfaultspec == MAX_FAULTS)
				usage_error("at most %d --fault", MAX_FAULTS);
			faultspec[nfaultspec++] = optarg;
			break;
		case 'S':
			g.stats_file = optarg;
			break;
		case 'P':
			pcap_path = optarg;
			break;
		case 'r': {
			char *end;

			errno = 0;
			ready_fd = (int)strtol(optarg, &end, 10);
			if (errno || end == optarg || *end || ready_fd < 0 ||
			    fcntl(ready_fd, F_GETFD) < 0)
				usage_error("--ready-fd %s: not an open file descriptor", optarg);
			break;
		}
		case 'l':
			if (zn_sim_log_configure(optarg))
				usage_error("--log %s: want e.g. 'debug' or 'warn,vfu=debug'", optarg);
			break;
		case 'f':
			break;
		case 'L':
			list_models();
			return 0;
		case 'h':
			fputs(usage, stdout);
			return 0;
		default:
			if (optopt)
				usage_error("option '%s' needs an argument or is unknown",
					    argv[optind - 1]);
			usage_error("unknown option '%s'", argv[optind - 1]);
		}
	}
	if (optind < argc)
		usage_error("unexpected argument '%s'", argv[optind]);
	if (ndevspec == 0)
		usage_error("no device: give at least one --dev NAME=MODEL");
	if (!dir == !socket_path)
		usage_error("give exactly one of --dir DIR and --socket-path PATH");
	if (socket_path && ndevspec != 1)
		usage_error("--socket-path serves one device; use --dir for %u", ndevspec);
	/* The directory is created if missing (not its parents: a typo in a
	 * parent should fail, not build a tree), private to the user. */
	if (dir && mkdir(dir, 0700) && errno != EEXIST) {
		fprintf(stderr, "zn-nicsim: --dir %s: cannot create it: %s\n", dir, strerror(errno));
		return 1;
	}
	if (dir && (stat(dir, &st) || !S_ISDIR(st.st_mode)))
		usage_error("--dir %s: not a directory", dir);

	for (unsigned i = 0; i < ndevspec; i++) {
		struct zn_sim_device *d;

		if (zn_sim_device_create(devspec[i], &d, err, sizeof(err)))
			usage_error("--dev %s: %s", devspec[i], err);
		if (find_dev(d->name)) {
			zn_sim_device_free(d);
			usage_error("--dev %s: device name given twice", devspec[i]);
		}
		g.devs[g.ndev++] = d;
	}
	for (unsigned i = 0; i < nwirespec; i++)
		add_wire(wirespec[i]);
	for (unsigned i = 0; i < nfaultspec; i++)
		add_fault(faultspec[i]);

	/* From here on, failures are runtime ones: exit 1. */
	g.rc = 1;
	signal(SIGPIPE, SIG_IGN);
	sigemptyset(&mask);
	sigaddset(&mask, SIGINT);
	sigaddset(&mask, SIGTERM);
	sigaddset(&mask, SIGUSR1);
	if (sigprocmask(SIG_BLOCK, &mask, NULL) ||
	    (sfd = signalfd(-1, &mask, SFD_NONBLOCK | SFD_CLOEXEC)) < 0) {
		fprintf(stderr, "zn-nicsim: signalfd: %s\n", strerror(errno));
		goto out;
	}
	if (pcap_path && nicsim_pcap_open(pcap_path))
		goto out;
	ret = zn_vfu_loop_new(&g.loop);
	if (ret || zn_vfu_loop_add_fd(g.loop, sfd, POLLIN, on_signal, &sfd)) {
		fprintf(stderr, "zn-nicsim: cannot create the event loop\n");
		goto out;
	}
	for (unsigned i = 0; i < g.ndev; i++) {
		char path[4096];

		if (socket_path)
			snprintf(path, sizeof(path), "%s", socket_path);
		else if ((size_t)snprintf(path, sizeof(path), "%s/%s.sock", dir, g.devs[i]->name) >=
			 sizeof(path))
			path[0] = '\0';
		ret = zn_vfu_dev_listen(g.devs[i]->dev, path);
		if (ret) {
			fprintf(stderr, "zn-nicsim: %s: cannot listen on '%s': %s\n",
				g.devs[i]->name, path, strerror(-ret));
			goto out;
		}
		if (zn_vfu_loop_add_dev(g.loop, g.devs[i]->dev))
			goto out;
	}
	for (unsigned i = 0; i < g.nwire; i++) {
		int wfd = zn_sim_wire_fd(g.wires[i]);

		if (zn_vfu_loop_add_poller(g.loop, zn_sim_wire_poll, g.wires[i]))
			goto out;
		/* a wire with an fd wakes the loop when frames arrive */
		if (wfd >= 0 && zn_vfu_loop_add_fd(g.loop, wfd, POLLIN, on_wire_fd, g.wires[i]))
			goto out;
	}

	printf("zn-nicsim: ready\n");
	fflush(stdout);
	if (ready_fd >= 0) {
		if (write(ready_fd, "ready\n", 6) != 6)
			fprintf(stderr, "zn-nicsim: --ready-fd %d: %s\n", ready_fd, strerror(errno));
		close(ready_fd);
	}
	ret = zn_vfu_loop_run(g.loop);
	if (ret) {
		fprintf(stderr, "zn-nicsim: event loop failed: %s\n", strerror(-ret));
		goto out;
	}
	write_stats_file();
	g.rc = 0;
out:
	nicsim_pcap_close();
	for (unsigned i = 0; i < g.nwire; i++)
		zn_sim_wire_free(g.wires[i]);
	for (unsigned i = 0; i < g.ndev; i++)
		zn_sim_device_free(g.devs[i]);
	zn_vfu_loop_free(g.loop);
	if (sfd >= 0)
		close(sfd);
	return g.rc;
}
