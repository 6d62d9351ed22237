/* SPDX-License-Identifier: MIT */
/*
 * zn-bench: the kernel path and zcnic side by side. Parse options, run the
 * suite table, print the tables, write CSV/JSON/plot. Exit 0 when every row
 * was measured or is n/a (the machine cannot do it), 1 when a row failed,
 * 2 on bad usage, 130 when interrupted (after cleaning up).
 */
#include <errno.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "bench.h"
#include "kern.h"
#include "zcnic.h"

#define EXIT_USAGE	2
#define EXIT_SIGNAL	130
#define OUT_PATH_LEN	4096

static void on_signal(int sig)
{
	(void)sig;
	/* a second signal does not wait: our namespaces die with the process anyway,
	 * the simulator and the zn-send/zn-recv children are stopped here */
	if (bench_stop) {
		zcnic_cleanup_signal();
		_exit(EXIT_SIGNAL);
	}
	bench_stop = 1;
}

static int install_handlers(void)
{
	struct sigaction sa;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_signal;
	sigemptyset(&sa.sa_mask);
	if (sigaction(SIGINT, &sa, NULL) || sigaction(SIGTERM, &sa, NULL) ||
	    sigaction(SIGHUP, &sa, NULL))
		return -errno;
	signal(SIGPIPE, SIG_IGN);
	return 0;
}

static int write_file(const char *dir, const char *name, const struct bench_results *r,
		      const struct bench_opts *o, bool json)
{
	char path[OUT_PATH_LEN];
	FILE *f;
	int ret;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	f = fopen(path, "w");
	if (!f) {
		fprintf(stderr, "zn-bench: cannot write %s: %s\n", path, strerror(errno));
		return -errno;
	}
	ret = json ? bench_write_json(f, r, o) : bench_write_csv(f, r);
	if (fclose(f) && !ret)
		ret = -errno;
	if (ret)
		fprintf(stderr, "zn-bench: writing %s failed: %s\n", path, strerror(-ret));
	else
		printf("%s: %s\n", json ? "json" : "csv", path);
	return ret;
}

static int write_files(const struct bench_opts *o, const struct bench_results *r)
{
	int ret;

	if (mkdir(o->out_dir, 0755) && errno != EEXIST) {
		fprintf(stderr, "zn-bench: cannot create %s: %s\n", o->out_dir, strerror(errno));
		return -errno;
	}
	ret = write_file(o->out_dir, "zn-bench.csv", r, o, false);
	if (!ret)
		ret = write_file(o->out_dir, "zn-bench.json", r, o, true);
	if (!ret)
		ret = bench_plot(o->out_dir, r);
	return ret;
}

/* Before the run, not after it: a bad --out would throw the results away. */
static int check_out_dir(const char *dir)
{
	if (mkdir(dir, 0755) && errno != EEXIST) {
		fprintf(stderr, "zn-bench: --out %s: cannot create it: %s\n", dir, strerror(errno));
		return -1;
	}
	if (access(dir, W_OK | X_OK)) {
		fprintf(stderr, "zn-bench: --out %s: cannot write there: %s\n", dir, strerror(errno));
		return -1;
	}
	return 0;
}

/* A CPU given with --cpu that this process may not run on, named. */
static int check_cpus(const int cpu[2])
{
	cpu_set_t set;

	if (sched_getaffinity(0, sizeof(set), &set))
		return 0;	/* the pinning itself will say what is wrong */
	for (unsigned i = 0; i < 2; i++) {
		if (cpu[i] >= 0 && (cpu[i] >= CPU_SETSIZE || !CPU_ISSET(cpu[i], &set))) {
			fprintf(stderr, "zn-bench: --cpu: CPU %d is not one this process may run on "
				"(%ld online; see taskset -p %d)\n", cpu[i],
				sysconf(_SC_NPROCESSORS_ONLN), (int)getpid());
			return -1;
		}
	}
	return 0;
}

int main(int argc, char **argv)
{
	static struct bench_results res;
	struct bench_load load;
	struct bench_opts o;
	char err[256];
	int ret, code = 0;

	ret = bench_opts_parse(argc, argv, &o, err, sizeof(err));
	if (ret > 0) {
		fputs(bench_usage, stdout);
		return 0;
	}
	if (ret) {
		fprintf(stderr, "zn-bench: %s\n", err);
		return EXIT_USAGE;
	}
	if (check_cpus(o.cpu) || (o.out_dir && check_out_dir(o.out_dir)))
		return EXIT_USAGE;
	ret = install_handlers();
	if (!ret)
		ret = bench_pick_cpus(o.cpu);
	if (!ret)
		ret = bench_pin(o.cpu[0]);
	if (ret) {
		fprintf(stderr, "zn-bench: set-up: %s\n", strerror(-ret));
		return 1;
	}
	bench_load_before(&load);
	if (o.suites & (1u << BENCH_G_COST) && bench_cost_run(&o) == -EIO)
		code = 1;
	ret = bench_run_all(&o, &res);
	kern_netns_cleanup();
	zcnic_cleanup();
	if (ret != -EINTR)
		bench_load_after(&load);
	else
		fprintf(stderr, "zn-bench: interrupted; the results so far:\n");
	if (o.suites & (1u << BENCH_G_COST))
		bench_cost_print(stdout);
	if (o.cpu[0] >= 0)
		printf("\nTime-based figures (the measured thread or process on CPU %d; its peer, "
		       "the receiving side\nand the device model on CPU %d):\n", o.cpu[0], o.cpu[1]);
	else
		printf("\nTime-based figures (one CPU: the measured thread shares it with its peer "
		       "and the model):\n");
	bench_print_tables(stdout, &res, &o);
	if (ret != -EINTR)
		bench_load_print(stdout, &load);
	if (o.out_dir && write_files(&o, &res))
		code = 1;
	for (unsigned i = 0; i < res.nrows; i++)
		if (res.rows[i].status == BENCH_FAILED)
			code = 1;
	fflush(stdout);
	return ret == -EINTR ? EXIT_SIGNAL : code;
}
