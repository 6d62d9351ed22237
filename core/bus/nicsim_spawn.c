/* SPDX-License-Identifier: MIT */
/* The embedded default: a private zn-nicsim (include/zcnic/nicsim.h). */
#include <errno.h>
#include <stdbool.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "zcnic/nicsim.h"

#define SIM_READY_TIMEOUT_MS	10000
#define SIM_STOP_TIMEOUT_MS	5000
#define SIM_READY_FD		3

static void nicsim_path(char *out, size_t len)
{
	const char *env = getenv("ZN_NICSIM");
	char self[PATH_MAX];
	ssize_t n;

	if (env && *env) {
		snprintf(out, len, "%s", env);
		return;
	}
	n = readlink("/proc/self/exe", self, sizeof(self) - 1);
	if (n > 0) {
		char *slash;

		self[n] = '\0';
		slash = strrchr(self, '/');
		if (slash) {
			snprintf(out, len, "%.*s/zn-nicsim", (int)(slash - self), self);
			if (access(out, X_OK) == 0)
				return;
		}
	}
	snprintf(out, len, "zn-nicsim");
}

/* $ZN_NICSIM_MODEL -> each port's device name and model; false if unknown. */
static bool pick_models(struct zn_nicsim *s, const char *model[2])
{
	const char *env = getenv("ZN_NICSIM_MODEL");

	if (!env || !*env || !strcmp(env, "bnxt")) {
		model[0] = model[1] = "bnxt";
		snprintf(s->name[0], sizeof(s->name[0]), "bnxt0");
		snprintf(s->name[1], sizeof(s->name[1]), "bnxt1");
	} else if (!strcmp(env, "mlx5")) {
		model[0] = model[1] = "mlx5";
		snprintf(s->name[0], sizeof(s->name[0]), "cx0");
		snprintf(s->name[1], sizeof(s->name[1]), "cx1");
	} else if (!strcmp(env, "mixed")) {
		model[0] = "bnxt";
		model[1] = "mlx5";
		snprintf(s->name[0], sizeof(s->name[0]), "bnxt0");
		snprintf(s->name[1], sizeof(s->name[1]), "cx1");
	} else {
		return false;
	}
	return true;
}

static void sleep_ms(unsigned ms)
{
	struct timespec ts = { .tv_sec = ms / 1000, .tv_nsec = (long)(ms % 1000) * 1000000L };

	nanosleep(&ts, NULL);
}

int zn_nicsim_start(struct zn_nicsim *s, const char *prog, const char *model_opts)
{
	char bin[PATH_MAX], dev0[160], dev1[160], wire[64], ready[8];
	const char *extra = model_opts && *model_opts ? model_opts : NULL;
	const char *model[2];
	struct pollfd pfd;
	int pipefd[2], rc;
	ssize_t n;

	memset(s, 0, sizeof(*s));
	s->pid = -1;
	if (!pick_models(s, model)) {
		fprintf(stderr, "%s: ZN_NICSIM_MODEL=%s: not a NIC kind zn-nicsim knows "
			"(bnxt, mlx5 or mixed)\n", prog, getenv("ZN_NICSIM_MODEL"));
		return -EINVAL;
	}
	snprintf(s->dir, sizeof(s->dir), "/tmp/zn-nicsim.XXXXXX");
	if (!mkdtemp(s->dir)) {
		rc = -errno;
		fprintf(stderr, "%s: cannot create a directory for zn-nicsim in /tmp: %s\n",
			prog, strerror(-rc));
		return rc;
	}
	nicsim_path(bin, sizeof(bin));
	snprintf(dev0, sizeof(dev0), "%s=%s%s%s", s->name[0], model[0], extra ? "," : "",
		 extra ? extra : "");
	snprintf(dev1, sizeof(dev1), "%s=%s%s%s", s->name[1], model[1], extra ? "," : "",
		 extra ? extra : "");
	snprintf(wire, sizeof(wire), "pair:%s,%s", s->name[0], s->name[1]);
	if (pipe2(pipefd, O_CLOEXEC)) {
		rc = -errno;
		goto err_dir;
	}
	s->pid = fork();
	if (s->pid < 0) {
		rc = -errno;
		close(pipefd[0]);
		close(pipefd[1]);
		goto err_dir;
	}
	if (s->pid == 0) {
		int devnull = open("/dev/null", O_WRONLY);

		/* Never outlive the app, even when it is killed. */
		prctl(PR_SET_PDEATHSIG, SIGTERM);
		/* Out of the terminal's process group: a Ctrl-C reaches the app
		 * alone, which stops its device, then the simulator (a simulator
		 * gone first would fail every step of that clean-up). */
		setpgid(0, 0);
		/* dup2 onto itself would keep O_CLOEXEC: clear it by hand then. */
		if (pipefd[1] == SIM_READY_FD ? fcntl(SIM_READY_FD, F_SETFD, 0) < 0 :
		    dup2(pipefd[1], SIM_READY_FD) < 0)
			_exit(127);
		if (devnull >= 0 && dup2(devnull, 1) < 0)
			_exit(127);
		execlp(bin, "zn-nicsim", "--dir", s->dir, "--dev", dev0, "--dev", dev1,
		       "--wire", wire, "--ready-fd", "3", (char *)NULL);
		fprintf(stderr, "%s: cannot run %s: %s (set ZN_NICSIM to its path)\n", prog, bin,
			strerror(errno));
		_exit(127);
	}
	close(pipefd[1]);
	pfd = (struct pollfd){ .fd = pipefd[0], .events = POLLIN };
	rc = poll(&pfd, 1, SIM_READY_TIMEOUT_MS);
	n = rc > 0 ? read(pipefd[0], ready, sizeof(ready)) : 0;
	close(pipefd[0]);
	if (n < 5 || memcmp(ready, "ready", 5)) {
		fprintf(stderr, "%s: zn-nicsim (%s) did not come up within %d ms; "
			"check that it is built and that the %s model exists "
			"(zn-nicsim --list-models)\n", prog, bin, SIM_READY_TIMEOUT_MS,
			model[1]);
		zn_nicsim_stop(s);
		return -EIO;
	}
	for (unsigned i = 0; i < 2; i++)
		snprintf(s->port[i], sizeof(s->port[i]), "vfio-user:%s/%s.sock", s->dir, s->name[i]);
	return 0;
err_dir:
	fprintf(stderr, "%s: cannot start zn-nicsim: %s\n", prog, strerror(-rc));
	rmdir(s->dir);
	s->dir[0] = '\0';
	return rc;
}

void zn_nicsim_stop(struct zn_nicsim *s)
{
	if (s->pid > 0) {
		int status, waited = 0;

		kill(s->pid, SIGTERM);
		while (waitpid(s->pid, &status, WNOHANG) == 0) {
			if (waited >= SIM_STOP_TIMEOUT_MS) {
				fprintf(stderr, "zn-nicsim (pid %d) ignored SIGTERM for %d ms; "
					"killing it\n", (int)s->pid, SIM_STOP_TIMEOUT_MS);
				kill(s->pid, SIGKILL);
				waitpid(s->pid, &status, 0);
				break;
			}
			sleep_ms(10);
			waited += 10;
		}
		s->pid = -1;
	}
	if (s->dir[0]) {
		char path[128];

		/* zn-nicsim removes its sockets on SIGTERM; these are for a killed one. */
		for (unsigned i = 0; i < 2; i++) {
			snprintf(path, sizeof(path), "%s/%s.sock", s->dir, s->name[i]);
			unlink(path);
		}
		rmdir(s->dir);
		s->dir[0] = '\0';
	}
}
