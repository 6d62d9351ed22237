/* SPDX-License-Identifier: MIT */
/*
 * zn-bench, zcnic path: the private zn-nicsim and the zn-send / zn-recv
 * child processes the send and receive suites measure through.
 *
 * The simulator runs only while a zcnic case does (setup to teardown), so
 * that it takes no CPU from the kernel-path suites.
 *
 * Nothing may outlive zn-bench: the simulator and every child get
 * PR_SET_PDEATHSIG (they die with it even when it is killed), a child still
 * running when a run ends or bench_stop is set gets SIGTERM and then
 * SIGKILL, and zcnic_cleanup() stops the simulator and removes its socket
 * directory; a second Ctrl-C does the async-signal-safe part of that.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include "zcnic.h"
#include "zcnic/nicsim.h"

#define READY_TIMEOUT_MS	10000	/* zn-recv: from exec to its ready line */
#define STOP_GRACE_MS		2000	/* SIGTERM, then this long, then SIGKILL */
#define POLL_MS			20
/* zn-recv ends on its own (--idle-ms after the last byte, or its
 * --duration-ms, which ends before this); a loaded machine can deliver the
 * last frames long after zn-send exits. Not measured: zn-recv's figures run
 * from its first to its last byte. */
#define RX_AFTER_TX_MS		10000
#define LINE_MAX_LEN		512
#define CHILD_LOG_LEVEL		"warn"	/* the children's zcnic log: no info lines */

static struct zn_nicsim sim = { .pid = -1 };
static bool sim_up, sim_failed;

struct kid {
	pid_t pid;
	int fd;
	size_t llen;
	char line[LINE_MAX_LEN];
	struct zcnic_out *out;
};
/* the children now running, for the signal path */
static volatile pid_t running[2] = { -1, -1 };
/* zcnic_set_cpus: zn-recv's, zn-send's and the simulator's CPU */
static int cpu_rx = -1, cpu_tx = -1, cpu_sim = -1;

void zcnic_set_cpus(int measured, int other, bool rx_measured)
{
	cpu_rx = rx_measured ? measured : other;
	cpu_tx = rx_measured ? other : measured;
	cpu_sim = other;
	if (sim_up)
		bench_pin_pid(sim.pid, cpu_sim);
}

int zcnic_sim_ports(const char **port0, const char **port1, char *note)
{
	if (!sim_up && !sim_failed) {
		/* info lines of zn-nicsim and of the children would land in the tables */
		setenv("ZN_LOG", CHILD_LOG_LEVEL, 0);
		setenv("ZN_SIM_LOG", CHILD_LOG_LEVEL, 0);
		if (zn_nicsim_start(&sim, "zn-bench", NULL)) {
			sim_failed = true;
		} else {
			sim_up = true;
			bench_pin_pid(sim.pid, cpu_sim);	/* threads it makes later inherit it */
		}
	}
	if (!sim_up) {
		snprintf(note, BENCH_NOTE_LEN, "zn-nicsim did not start (see stderr)");
		return -EIO;
	}
	*port0 = sim.port[0];
	*port1 = sim.port[1];
	return 0;
}

void zcnic_cleanup_signal(void)
{
	for (unsigned i = 0; i < 2; i++)
		if (running[i] > 0)
			kill(running[i], SIGKILL);
	if (sim.pid > 0)
		kill(sim.pid, SIGTERM);
	/* zn-nicsim removes its sockets on SIGTERM; these are for a stuck one */
	if (sim.dir[0]) {
		/* port[i] is "vfio-user:" + the socket's path (set before any child ran) */
		for (unsigned i = 0; i < 2; i++)
			if (sim.port[i][0])
				unlink(sim.port[i] + strlen("vfio-user:"));
		rmdir(sim.dir);
	}
}

void zcnic_sim_release(void)
{
	zn_nicsim_stop(&sim);
	sim_up = false;
}

void zcnic_cleanup(void)
{
	zn_nicsim_stop(&sim);
	sim_up = false;
}

static void bin_path(char *out, size_t len, const char *name)
{
	char self[PATH_MAX];
	ssize_t n = readlink("/proc/self/exe", self, sizeof(self) - 1);
	char *slash;

	if (n > 0) {
		self[n] = '\0';
		slash = strrchr(self, '/');
		if (slash) {
			snprintf(out, len, "%.*s/%s", (int)(slash - self), self, name);
			if (access(out, X_OK) == 0)
				return;
		}
	}
	snprintf(out, len, "%s", name);	/* $PATH */
}

static int spawn(char *const argv[], struct kid *k, struct zcnic_out *out, unsigned slot,
		 int cpu)
{
	char bin[PATH_MAX];
	pid_t parent = getpid();
	int p[2];

	memset(out, 0, sizeof(*out));
	out->status = -1;
	k->out = out;
	k->llen = 0;
	k->fd = -1;
	k->pid = -1;
	bin_path(bin, sizeof(bin), argv[0]);
	if (pipe2(p, O_CLOEXEC))
		return -errno;
	fflush(NULL);
	k->pid = fork();
	if (k->pid < 0) {
		int err = -errno;

		close(p[0]);
		close(p[1]);
		return err;
	}
	if (k->pid == 0) {
		prctl(PR_SET_PDEATHSIG, SIGTERM);
		if (getppid() != parent)
			_exit(127);
		if (dup2(p[1], 1) < 0 || dup2(p[1], 2) < 0)
			_exit(127);
		if (cpu >= 0) {
			cpu_set_t set;

			CPU_ZERO(&set);
			CPU_SET(cpu, &set);
			sched_setaffinity(0, sizeof(set), &set);
		}
		execv(bin, argv);
		dprintf(2, "zn-bench: cannot run %s: %s\n", bin, strerror(errno));
		_exit(127);
	}
	close(p[1]);
	k->fd = p[0];
	running[slot] = k->pid;
	return 0;
}

/* Keep the lines the programs print about themselves ("zn-..."), and the last other one. */
static void keep_line(struct kid *k)
{
	struct zcnic_out *o = k->out;
	size_t n = k->llen;

	if (n >= 3 && !memcmp(k->line, "zn-", 3) && o->len + n + 2 < sizeof(o->buf)) {
		memcpy(o->buf + o->len, k->line, n);
		o->len += n;
		o->buf[o->len++] = '\n';
		o->buf[o->len] = '\0';
	}
	k->llen = 0;
}

static void drain(struct kid *k)
{
	char buf[4096];
	ssize_t n = read(k->fd, buf, sizeof(buf));

	if (n <= 0) {
		if (n == 0 || (errno != EINTR && errno != EAGAIN)) {
			if (k->llen)
				keep_line(k);
			close(k->fd);
			k->fd = -1;
		}
		return;
	}
	for (ssize_t i = 0; i < n; i++) {
		if (buf[i] == '\n') {
			keep_line(k);
			continue;
		}
		if (k->llen < sizeof(k->line) - 1)
			k->line[k->llen++] = buf[i];
	}
}

static bool done(const struct kid *k)
{
	return k->pid < 0 && k->fd < 0;
}

/* One pass: read what is there, reap who exited. */
static void step(struct kid *kids, unsigned n)
{
	struct pollfd pfd[2];
	unsigned np = 0;

	for (unsigned i = 0; i < n; i++)
		if (kids[i].fd >= 0)
			pfd[np++] = (struct pollfd){ .fd = kids[i].fd, .events = POLLIN };
	if (np)
		poll(pfd, np, POLL_MS);
	else
		usleep(POLL_MS * 1000);
	for (unsigned i = 0, j = 0; i < n; i++) {
		struct kid *k = &kids[i];
		int st;

		if (k->fd >= 0 && (pfd[j++].revents & (POLLIN | POLLHUP | POLLERR)))
			drain(k);
		if (k->pid > 0 && waitpid(k->pid, &st, WNOHANG) == k->pid) {
			k->out->status = WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
			k->pid = -1;
			running[i] = -1;
		}
	}
}

/* SIGTERM, a grace period, SIGKILL; reaps them all. */
static void stop_all(struct kid *kids, unsigned n)
{
	uint64_t end = bench_now_ns() + STOP_GRACE_MS * 1000000ull;
	bool killed = false;

	for (unsigned i = 0; i < n; i++)
		if (kids[i].pid > 0)
			kill(kids[i].pid, SIGTERM);
	for (;;) {
		bool all = true;

		for (unsigned i = 0; i < n; i++)
			all &= kids[i].pid < 0;
		if (all)
			break;
		if (!killed && bench_now_ns() > end) {
			for (unsigned i = 0; i < n; i++)
				if (kids[i].pid > 0)
					kill(kids[i].pid, SIGKILL);
			killed = true;
		}
		step(kids, n);
	}
	for (unsigned i = 0; i < n; i++)
		if (kids[i].fd >= 0) {
			close(kids[i].fd);
			kids[i].fd = -1;
		}
}

const char *zcnic_line(const struct zcnic_out *out, const char *prefix, const char *key)
{
	const char *p = out->buf;

	while (p && *p) {
		const char *nl = strchr(p, '\n');
		size_t len = nl ? (size_t)(nl - p) : strlen(p);

		if (!strncmp(p, prefix, strlen(prefix)) && memmem(p, len, key, strlen(key)))
			return p;
		p = nl ? nl + 1 : NULL;
	}
	return NULL;
}

int zcnic_run_pair(char *const rx[], char *const tx[], unsigned limit_ms,
		   struct zcnic_out *ro, struct zcnic_out *to)
{
	struct kid kids[2] = { { .pid = -1, .fd = -1 }, { .pid = -1, .fd = -1 } };
	uint64_t t0 = bench_now_ns(), end = t0 + (uint64_t)limit_ms * 1000000ull;
	uint64_t ready_end = t0 + READY_TIMEOUT_MS * 1000000ull, tx_end = 0;
	int ret;

	memset(to, 0, sizeof(*to));
	to->status = -1;
	ro->stopped = false;
	ret = spawn(rx, &kids[0], ro, 0, cpu_rx);
	if (ret)
		return ret;
	while (!done(&kids[0]) && !bench_stop && !zcnic_line(ro, "zn-recv:", "ready") &&
	       bench_now_ns() < ready_end)
		step(kids, 1);
	if (bench_stop) {
		ret = -EINTR;
		goto out;
	}
	if (!zcnic_line(ro, "zn-recv:", "ready")) {
		ret = done(&kids[0]) ? -EIO : -ETIMEDOUT;
		goto out;
	}
	ret = spawn(tx, &kids[1], to, 1, cpu_tx);
	if (ret)
		goto out;
	while (!(done(&kids[0]) && done(&kids[1])) && !bench_stop && bench_now_ns() < end) {
		step(kids, 2);
		/* the sender is done: what it sent has arrived by now, or never will */
		if (done(&kids[1]) && !tx_end)
			tx_end = bench_now_ns() + RX_AFTER_TX_MS * 1000000ull;
		if (tx_end && bench_now_ns() > tx_end)
			break;
	}
	if (bench_stop)
		ret = -EINTR;
	else if (!done(&kids[1]))
		ret = -ETIMEDOUT;
out:
	ro->stopped = kids[0].pid > 0;
	to->stopped = kids[1].pid > 0;
	stop_all(kids, 2);
	return ret;
}
