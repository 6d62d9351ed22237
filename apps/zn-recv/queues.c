/* SPDX-License-Identifier: MIT */
/*
 * zn-recv --queues N: RSS spreads the flows over N RX queues, and each queue
 * has a thread of its own with everything the single-queue receiver has
 * (include/zcnic/netdev.h, "More than one queue"):
 *
 *   control thread: the netdev (queue 0: ARP, ICMP), the limits, the summary
 *   queue thread i: queue netdev i, a UDP socket on the port (no flow rule:
 *                   RSS brings its share), its ring, its zcrx area and
 *                   refill ring on RX queue 1 + i, the receive loop of main.c
 *
 * The threads share nothing on the data path: each publishes its byte count
 * and last arrival in its own cache line for the control thread to read.
 * Set-up and tear-down go one thread at a time (zcnic's control calls on a
 * port are made from one thread at a time).
 */
#include <arpa/inet.h>
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "apps/common/open.h"
#include "recv.h"
#include "zcnic/socket.h"

#define CTL_NAP_NS	200000	/* the control thread's pause when queue 0 had nothing */
#define CACHE_LINE	64

static pthread_mutex_t setup_lock = PTHREAD_MUTEX_INITIALIZER;
static atomic_bool stop_all;

static int queue_setup(struct rx *r)
{
	unsigned cq_entries;
	int rc;

	r->fd = zn_udp_socket(r->dev, &(struct zn_socket_conf){
		.local = { r->o.ip, htons(r->o.port) } });
	if (r->fd < 0) {
		fprintf(stderr, "zn-recv: queue %u: UDP socket on port %u: %s\n", r->rxq,
			r->o.port, strerror(-r->fd));
		return r->fd;
	}
	rc = rx_ring_init(r, &cq_entries);
	r->ring_up = rc == 0;
	if (rc == 0)
		rc = rx_setup_zcrx(r, r->dev);
	return rc;
}

static void queue_teardown(struct rx *r)
{
	pthread_mutex_lock(&setup_lock);
	if (r->ring_up)
		io_uring_queue_exit(&r->ring);
	if (r->fd >= 0)
		zn_socket_close(r->fd);
	r->fd = -1;
	zn_netdev_close(r->dev);
	r->dev = NULL;
	pthread_mutex_unlock(&setup_lock);
	rx_free_mem(r);
}

static void *queue_main(void *arg)
{
	struct rx *r = arg;

	pthread_mutex_lock(&setup_lock);
	r->setup_rc = queue_setup(r);
	pthread_mutex_unlock(&setup_lock);
	if (r->setup_rc == 0)
		r->last_err = rx_run(r);
	atomic_store(&r->pub_bytes, r->bytes);
	atomic_store(&r->pub_t_last, r->t_last);
	queue_teardown(r);
	atomic_store(&r->finished, true);
	return NULL;
}

/* Limits over the sum of the queues: the total expected, duration, idle. */
static bool should_stop(const struct recv_opts *o, struct rx *q, uint16_t n, uint64_t t0)
{
	uint64_t bytes = 0, last = 0, now = now_ns();

	for (uint16_t i = 0; i < n; i++) {
		uint64_t t = atomic_load_explicit(&q[i].pub_t_last, memory_order_relaxed);

		if (atomic_load(&q[i].finished))
			return true;	/* an error ended it: end them all */
		bytes += atomic_load_explicit(&q[i].pub_bytes, memory_order_relaxed);
		last = t > last ? t : last;
	}
	if (stop_sig || (o->expect && bytes >= o->expect))
		return true;
	if (o->duration_ms && now - t0 >= o->duration_ms * 1000000ull)
		return true;
	return o->idle_ms && last && now > last && now - last >= o->idle_ms * 1000000ull;
}

/* The sum, reported as the single-queue receiver reports (so a script
 * reads both alike); CPU is the queue threads', summed. */
static void report_total(const struct recv_opts *o, const struct rx *q, uint16_t n)
{
	struct rx t;

	memset(&t, 0, sizeof(t));
	t.o = *o;
	for (uint16_t i = 0; i < n; i++) {
		const struct rx *r = &q[i];

		t.bytes += r->bytes;
		t.data_cqes += r->data_cqes;
		for (int k = 0; k < 4; k++)
			t.finals[k] += r->finals[k];
		t.final_other += r->final_other;
		t.rearms += r->rearms;
		if (r->mismatches && !t.mismatches)
			t.first_bad = r->first_bad;
		t.mismatches += r->mismatches;
		if (r->t_first && (!t.t_first || r->t_first < t.t_first))
			t.t_first = r->t_first;
		t.t_last = r->t_last > t.t_last ? r->t_last : t.t_last;
		t.cpu_last += r->cpu_last - r->cpu_first;
		t.sys_last += r->sys_last - r->sys_first;
	}
	rx_report(&t, "");
}

int rx_queues_main(const struct recv_opts *o, const char *spec)
{
	struct zn_netdev *dev = NULL;
	struct zn_watch watch = { 0 };
	uint16_t n = o->queues, started = 0;
	size_t qsz = (sizeof(struct rx) + CACHE_LINE - 1) & ~(size_t)(CACHE_LINE - 1);
	struct rx *q = aligned_alloc(CACHE_LINE, qsz * n);
	uint64_t t0, total = 0, short_by = 0;
	bool failed = false, mismatch = false;
	char ip[INET_ADDRSTRLEN];
	int rc;

	if (!q) {
		fprintf(stderr, "zn-recv: no memory for %u queues\n", n);
		return 1;
	}
	memset(q, 0, qsz * n);
	rc = zn_open_queues("zn-recv", spec, o->ip, o->prefix, n, o->size, &dev);
	for (uint16_t i = 0; rc == 0 && i < n; i++) {
		struct rx *r = &q[i];

		r->o = *o;
		/* the limits are the control thread's, over the sum */
		r->o.expect = r->o.duration_ms = r->o.idle_ms = 0;
		r->o.quiet = true;
		r->fd = r->lfd = -1;
		r->stop = &stop_all;
		rc = zn_netdev_queue_open(dev, i, &r->dev);
		if (rc) {
			fprintf(stderr, "zn-recv: queue %u: %s\n", i, strerror(-rc));
			break;
		}
		r->rxq = zn_netdev_rxq(r->dev);
		r->o.queue = r->rxq;
		rc = pthread_create(&r->th, NULL, queue_main, r);
		if (rc) {
			fprintf(stderr, "zn-recv: thread for queue %u: %s\n", i, strerror(rc));
			zn_netdev_close(r->dev);
			rc = -rc;
			break;
		}
		started++;
	}
	/* ready once every queue is set up */
	for (uint16_t i = 0; i < started; i++) {
		pthread_mutex_lock(&setup_lock);
		while (!q[i].setup_rc && !q[i].rq.ring_entries && !atomic_load(&q[i].finished)) {
			pthread_mutex_unlock(&setup_lock);
			nanosleep(&(struct timespec){ .tv_nsec = CTL_NAP_NS }, NULL);
			pthread_mutex_lock(&setup_lock);
		}
		if (q[i].setup_rc)
			rc = q[i].setup_rc;
		pthread_mutex_unlock(&setup_lock);
	}
	if (rc == 0) {
		inet_ntop(AF_INET, &o->ip, ip, sizeof(ip));
		/* also with --quiet: scripts start the sender on this line */
		printf("zn-recv: ready on %s:%u, %u RX queues (RSS over queues 1-%u, a thread "
		       "each), area %zu MiB and refill ring %u per queue\n", ip, o->port, n, n,
		       q[0].area_len >> 20, q[0].rq.ring_entries);
		fflush(stdout);
	}
	t0 = now_ns();
	while (rc == 0 && !should_stop(o, q, started, t0)) {
		/* queue 0: ARP requests from the senders, pings */
		if (!zn_netdev_poll(dev))
			nanosleep(&(struct timespec){ .tv_nsec = CTL_NAP_NS }, NULL);
		if (zn_watch_gone(&watch, zn_netdev_port(dev))) {
			fprintf(stderr, "zn-recv: the device stopped answering (%s): stopping\n",
				strerror(-watch.err));
			rc = watch.err;
		}
	}
	atomic_store(&stop_all, true);
	for (uint16_t i = 0; i < started; i++)
		pthread_join(q[i].th, NULL);
	for (uint16_t i = 0; rc == 0 && i < started; i++) {
		struct zn_queue_stats qs = { 0 };
		char who[32];

		snprintf(who, sizeof(who), " queue %u", q[i].rxq);
		rx_report(&q[i], who);
		zn_port_rxq_stats(zn_netdev_port(dev), q[i].rxq, &qs);
		printf("zn-recv: RX queue %u: %" PRIu64 " frames, %" PRIu64 " dropped by the NIC for "
		       "want of a buffer, %" PRIu64 " errors\n", q[i].rxq, qs.packets, qs.drops,
		       qs.errors);
		failed |= q[i].last_err != 0 || q[i].setup_rc != 0;
		mismatch |= q[i].mismatches != 0;
		total += q[i].bytes;
	}
	if (rc == 0)
		report_total(o, q, started);
	if (o->expect && total < o->expect) {
		short_by = o->expect - total;
		printf("zn-recv: SHORT: %" PRIu64 " of %" PRIu64 " expected bytes (%" PRIu64
		       " missing)\n", total, o->expect, short_by);
	}
	zn_netdev_close(dev);
	free(q);
	return rc || failed || mismatch || short_by ? 1 : 0;
}
