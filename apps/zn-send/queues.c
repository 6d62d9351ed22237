/* SPDX-License-Identifier: MIT */
/*
 * zn-send --queues N: N TX queues, a thread each (include/zcnic/netdev.h,
 * "More than one queue"):
 *
 *   control thread: the netdev (queue 0), ARP for the destination before
 *                   the queues open (their ARP replies would land on queue
 *                   0), the summary
 *   queue thread i: queue netdev i (TX queue 1 + i), a UDP socket, its
 *                   ring and buffers, the send loop of main.c, its share of
 *                   --count and --pps
 *
 * Flow i leaves from a source port that zcnic's RSS puts on the receiver's
 * queue i of N (zn_rss_pick_sport), so zn-recv --queues N gets one flow per
 * queue. The threads share nothing on the data path; set-up and tear-down go
 * one thread at a time, and the queues start sending together.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <inttypes.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "apps/common/open.h"
#include "send.h"
#include "zcnic/rss.h"
#include "zcnic/socket.h"

#define CTL_NAP_NS	200000
#define RESOLVE_MS	3000
#define CACHE_LINE	64

static pthread_mutex_t setup_lock = PTHREAD_MUTEX_INITIALIZER;
static atomic_uint nready, nfinished;
static atomic_bool go, abort_run;	/* abort: a queue failed to set up */

static int queue_setup(struct tx *t)
{
	t->fd = zn_udp_socket(t->dev, &(struct zn_socket_conf){
		.local = { t->o.ip, htons(t->o.src_port) },
		.remote = { t->o.dst_ip, htons(t->o.dst_port) } });
	if (t->fd < 0) {
		fprintf(stderr, "zn-send: queue %u: UDP socket: %s\n", t->txq, strerror(-t->fd));
		return t->fd;
	}
	if (send_ring_init(t))
		return -EIO;
	return send_setup_buffers(t, t->dev);
}

static void *queue_main(void *arg)
{
	struct tx *t = arg;
	uint64_t t0, cpu0, sys0;

	pthread_mutex_lock(&setup_lock);
	t->setup_rc = queue_setup(t);
	pthread_mutex_unlock(&setup_lock);
	atomic_fetch_add(&nready, 1);
	while (!atomic_load(&go))
		nanosleep(&(struct timespec){ .tv_nsec = CTL_NAP_NS }, NULL);
	if (t->setup_rc == 0 && !atomic_load(&abort_run)) {
		t0 = send_now_ns();
		cpu0 = send_cpu_ns(true, &sys0);
		send_run(t);
		t->ns = send_now_ns() - t0;
		t->cpu = send_cpu_ns(true, &t->sys) - cpu0;
		t->sys -= sys0;
	}
	pthread_mutex_lock(&setup_lock);
	send_free(t, t->dev);
	zn_netdev_close(t->dev);
	pthread_mutex_unlock(&setup_lock);
	send_free_mem(t);
	atomic_fetch_add(&nfinished, 1);
	return NULL;
}

/* Queue i's options: its share of the count and the rate, its flow's port. */
static void queue_opts(const struct send_opts *o, uint16_t i, struct send_opts *qo)
{
	int port = zn_rss_pick_sport(o->ip, o->dst_ip, o->dst_port, o->src_port, o->queues, i);

	*qo = *o;
	qo->quiet = true;
	qo->src_port = port > 0 ? (uint16_t)port : (uint16_t)(o->src_port + i);
	if (o->count)
		qo->count = o->count / o->queues + (i < o->count % o->queues);
	if (o->pps)
		qo->pps = o->pps / o->queues + (i < o->pps % o->queues);
}

static void report_total(const struct send_opts *o, const struct tx *q, uint16_t n)
{
	struct tx t;

	memset(&t, 0, sizeof(t));
	t.o = *o;
	for (uint16_t i = 0; i < n; i++) {
		t.sent += q[i].sent;
		t.bytes += q[i].bytes;
		t.errors += q[i].errors;
		t.notifs += q[i].notifs;
		t.copied += q[i].copied;
		t.inflight += q[i].inflight;
		t.cpu += q[i].cpu;
		t.sys += q[i].sys;
		t.ns = q[i].ns > t.ns ? q[i].ns : t.ns;
	}
	send_report(&t, "");
}

/* The netdev, and ARP for the destination before any queue opens. */
static int open_dev(const struct send_opts *o, const char *spec, struct zn_netdev **dev)
{
	char ip[INET_ADDRSTRLEN];
	int rc = zn_open_queues("zn-send", spec, o->ip, o->prefix, o->queues, o->size, dev);

	if (rc)
		return rc;
	rc = zn_netdev_resolve(*dev, o->dst_ip, RESOLVE_MS);
	if (rc) {
		inet_ntop(AF_INET, &o->dst_ip, ip, sizeof(ip));
		fprintf(stderr, "zn-send: %s did not answer ARP (%s): run zn-recv there\n", ip,
			strerror(-rc));
	}
	return rc;
}

int send_queues_main(const struct send_opts *o, const char *spec)
{
	struct zn_netdev *dev = NULL;
	uint16_t n = o->queues, started = 0;
	size_t qsz = (sizeof(struct tx) + CACHE_LINE - 1) & ~(size_t)(CACHE_LINE - 1);
	struct tx *q = aligned_alloc(CACHE_LINE, qsz * n);
	bool failed = false;
	int rc;

	if (!q) {
		fprintf(stderr, "zn-send: no memory for %u queues\n", n);
		return 1;
	}
	memset(q, 0, qsz * n);
	rc = open_dev(o, spec, &dev);
	for (uint16_t i = 0; rc == 0 && i < n; i++) {
		struct tx *t = &q[i];

		queue_opts(o, i, &t->o);
		t->fd = -1;
		t->txq = (uint16_t)(1 + i);
		rc = zn_netdev_queue_open(dev, i, &t->dev);
		if (rc) {
			fprintf(stderr, "zn-send: queue %u: %s\n", i, strerror(-rc));
			break;
		}
		rc = pthread_create(&t->th, NULL, queue_main, t);
		if (rc) {
			fprintf(stderr, "zn-send: thread for queue %u: %s\n", i, strerror(rc));
			zn_netdev_close(t->dev);
			rc = -rc;
			break;
		}
		started++;
	}
	while (atomic_load(&nready) < started)
		nanosleep(&(struct timespec){ .tv_nsec = CTL_NAP_NS }, NULL);
	for (uint16_t i = 0; i < started; i++)
		if (q[i].setup_rc)
			rc = q[i].setup_rc;
	atomic_store(&abort_run, rc != 0);
	atomic_store(&go, true);
	/* queue 0 meanwhile: ARP requests, pings */
	while (atomic_load(&nfinished) < started)
		if (dev && !zn_netdev_poll(dev))
			nanosleep(&(struct timespec){ .tv_nsec = CTL_NAP_NS }, NULL);
	for (uint16_t i = 0; i < started; i++)
		pthread_join(q[i].th, NULL);
	for (uint16_t i = 0; rc == 0 && i < started; i++) {
		char who[32];

		snprintf(who, sizeof(who), " queue %u", q[i].txq);
		printf("zn-send queue %u: flow %u -> %u\n", q[i].txq, q[i].o.src_port,
		       q[i].o.dst_port);
		send_report(&q[i], who);
		failed |= q[i].errors || q[i].first_err || q[i].inflight;
	}
	if (rc == 0)
		report_total(o, q, started);
	zn_netdev_close(dev);
	free(q);
	return rc || failed ? 1 : 0;
}
