/* SPDX-License-Identifier: MIT */
/*
 * zn_env_netdev (include/zcnic/bsd.h): the netdevs of a ported program,
 * named by the environment or, with none named, the two ports of a
 * private zn-nicsim. Brought up once per process, kept until exit.
 */
#include <errno.h>
#include <stdbool.h>
#include <unistd.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "zcnic/bsd.h"
#include "zcnic/log.h"
#include "zcnic/nicsim.h"

#define ENV_LOG	"env-netdev"

static pthread_mutex_t env_lock = PTHREAD_MUTEX_INITIALIZER;
static struct zn_netdev *env_dev[ZN_ENV_MAX];
static unsigned env_n;
static int env_err;		/* the first bring-up's failure, kept */
static struct zn_nicsim env_sim = { .pid = -1 };

/* At exit: the netdevs first (their sockets close, the devices are told),
 * then the simulator under them. */
static void env_stop(void)
{
	while (env_n)
		zn_netdev_close(env_dev[--env_n]);
	zn_nicsim_stop(&env_sim);
}

static int env_open(unsigned i, const char *spec, const char *cidr, uint16_t nb_rxq,
		    uint32_t mtu)
{
	struct zn_netdev_conf c = { .nb_rxq = nb_rxq, .mtu = mtu };
	int rc = zn_ipv4_parse_cidr(cidr, &c.ip, &c.prefix_len);

	if (rc) {
		ZN_ERR(ENV_LOG, "netdev %u: bad address '%s'", i, cidr);
		return -EINVAL;
	}
	rc = zn_netdev_open(spec, &c, &env_dev[i]);
	if (rc)
		ZN_ERR(ENV_LOG, "netdev %u: %s with %s: %s", i, spec, cidr,
		       strerror(-rc));
	return rc;
}

/* "SPEC@IP/LEN[,SPEC@IP/LEN]" */
static int env_open_list(const char *list, uint16_t nb_rxq, uint32_t mtu)
{
	char buf[512], *save = NULL, *tok;
	int rc = 0;

	if (strlen(list) >= sizeof(buf))
		return -EINVAL;
	strcpy(buf, list);
	for (tok = strtok_r(buf, ",", &save); tok && !rc; tok = strtok_r(NULL, ",", &save)) {
		char *at = strrchr(tok, '@');

		if (!at || env_n == ZN_ENV_MAX) {
			ZN_ERR(ENV_LOG, "ZN_NETDEVS: '%s' is not SPEC@IP/LEN "
			       "(at most %d)", tok, ZN_ENV_MAX);
			return -EINVAL;
		}
		*at = '\0';
		rc = env_open(env_n, tok, at + 1, nb_rxq, mtu);
		env_n += !rc;
	}
	return rc;
}

struct sim_start {
	pthread_mutex_t lock;
	pthread_cond_t cond;
	bool done;
	int rc;
};

/*
 * The simulator dies with the thread that forked it (PR_SET_PDEATHSIG
 * follows the thread), and a ported program may make its first socket on a
 * thread that soon exits: fork it from a thread of its own that lives as
 * long as the process.
 */
static void *sim_thread(void *arg)
{
	struct sim_start *st = arg;
	int rc = zn_nicsim_start(&env_sim, "zcnic", NULL);

	pthread_mutex_lock(&st->lock);
	st->rc = rc;
	st->done = true;
	pthread_cond_signal(&st->cond);
	pthread_mutex_unlock(&st->lock);
	for (;;)
		pause();
	return NULL;
}

static int sim_start(void)
{
	struct sim_start st = { PTHREAD_MUTEX_INITIALIZER, PTHREAD_COND_INITIALIZER, false, 0 };
	pthread_attr_t attr;
	pthread_t t;
	int rc;

	pthread_attr_init(&attr);
	pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED);
	rc = -pthread_create(&t, &attr, sim_thread, &st);
	pthread_attr_destroy(&attr);
	if (rc)
		return rc;
	pthread_mutex_lock(&st.lock);
	while (!st.done)
		pthread_cond_wait(&st.cond, &st.lock);
	pthread_mutex_unlock(&st.lock);
	return st.rc;
}

static int env_open_sim(uint16_t nb_rxq, uint32_t mtu)
{
	char cidr[32];
	int rc = sim_start();

	if (rc)
		return rc;
	atexit(env_stop);
	for (unsigned i = 0; i < ZN_ENV_MAX && !rc; i++) {
		snprintf(cidr, sizeof(cidr), ZN_ENV_NET "%u/24", i + 1);
		rc = env_open(i, env_sim.port[i], cidr, nb_rxq, mtu);
		env_n += !rc;
	}
	return rc;
}

static int env_up(void)
{
	const char *list = getenv("ZN_NETDEVS");
	const char *rxq = getenv("ZN_NETDEV_RXQ");
	const char *mtu = getenv("ZN_NETDEV_MTU");
	uint16_t nb_rxq = rxq ? (uint16_t)atoi(rxq) : 1;

	if (list && *list)
		return env_open_list(list, nb_rxq, mtu ? (uint32_t)atoi(mtu) : 0);
	/* jumbo frames on the private wire: the loopback a kernel program ran
	 * over took 4 KiB datagrams whole, and zcnic does not fragment */
	return env_open_sim(nb_rxq, mtu ? (uint32_t)atoi(mtu) : ZN_ENV_SIM_MTU);
}

struct zn_netdev *zn_env_netdev(unsigned i)
{
	struct zn_netdev *d = NULL;

	pthread_mutex_lock(&env_lock);
	if (!env_n && !env_err)
		env_err = env_up();
	if (i < env_n)
		d = env_dev[i];
	else
		errno = env_err ? -env_err : ENODEV;
	pthread_mutex_unlock(&env_lock);
	return d;
}
