/* SPDX-License-Identifier: MIT */
/*
 * The event loop: sockets and model polls on one thread, with a spin-then-
 * back-off wait (see vfu.h) so that doorbells in shared memory are noticed
 * quickly while a client is busy and an idle daemon sleeps.
 */
#include <poll.h>
#include <sched.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <sys/prctl.h>
#include <time.h>
#include <unistd.h>

#include "base/clock.h"
#include "sim/vfu/priv.h"

/* Timer slack of the loop thread: the default 50 us would swamp short sleeps. */
#define LOOP_TIMER_SLACK_NS	1000

struct loop_fd {
	int fd;
	short events;
	void (*cb)(void *arg, short revents);
	void *arg;
};

struct loop_poller {
	int (*poll)(void *arg, uint64_t now_ns, uint64_t *deadline_ns);
	void *arg;
};

enum slot_kind { SLOT_WAKE, SLOT_FD, SLOT_LISTEN, SLOT_CONN };

struct slot {
	enum slot_kind kind;
	size_t index;
};

struct zn_vfu_loop {
	struct zn_vfu_dev **devs;
	size_t ndev;
	struct loop_fd *fds;
	size_t nfd;
	struct loop_poller *pollers;
	size_t npoller;
	int wake_fd;
	int stop;
	struct pollfd *pfd;
	struct slot *slots;
	size_t cap;
};

uint64_t zn_vfu_now_ns(void)
{
	return zn_now_ns();
}

int zn_vfu_loop_new(struct zn_vfu_loop **out)
{
	struct zn_vfu_loop *l = calloc(1, sizeof(*l));

	if (!l)
		return -ENOMEM;
	l->wake_fd = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
	if (l->wake_fd < 0) {
		int err = -errno;

		free(l);
		return err;
	}
	*out = l;
	return 0;
}

void zn_vfu_loop_free(struct zn_vfu_loop *l)
{
	if (!l)
		return;
	close(l->wake_fd);
	free(l->devs);
	free(l->fds);
	free(l->pollers);
	free(l->pfd);
	free(l->slots);
	free(l);
}

static int grow(void **arr, size_t n, size_t elem)
{
	void *p = realloc(*arr, (n + 1) * elem);

	if (!p)
		return -ENOMEM;
	*arr = p;
	return 0;
}

int zn_vfu_loop_add_dev(struct zn_vfu_loop *l, struct zn_vfu_dev *dev)
{
	if (grow((void **)&l->devs, l->ndev, sizeof(*l->devs)))
		return -ENOMEM;
	l->devs[l->ndev++] = dev;
	return 0;
}

int zn_vfu_loop_add_fd(struct zn_vfu_loop *l, int fd, short events,
		       void (*cb)(void *arg, short revents), void *arg)
{
	if (grow((void **)&l->fds, l->nfd, sizeof(*l->fds)))
		return -ENOMEM;
	l->fds[l->nfd++] = (struct loop_fd){ fd, events, cb, arg };
	return 0;
}

int zn_vfu_loop_add_poller(struct zn_vfu_loop *l,
			   int (*poll_fn)(void *arg, uint64_t now_ns, uint64_t *deadline_ns),
			   void *arg)
{
	if (grow((void **)&l->pollers, l->npoller, sizeof(*l->pollers)))
		return -ENOMEM;
	l->pollers[l->npoller++] = (struct loop_poller){ poll_fn, arg };
	return 0;
}

void zn_vfu_loop_stop(struct zn_vfu_loop *l)
{
	uint64_t one = 1;

	__atomic_store_n(&l->stop, 1, __ATOMIC_RELEASE);
	/* async-signal-safe wake-up of a sleeping poll */
	if (write(l->wake_fd, &one, sizeof(one)) < 0)
		return;
}

static int ensure_slots(struct zn_vfu_loop *l, size_t n)
{
	struct pollfd *p;
	struct slot *s;

	if (n <= l->cap)
		return 0;
	p = realloc(l->pfd, n * sizeof(*p));
	if (!p)
		return -ENOMEM;
	l->pfd = p;
	s = realloc(l->slots, n * sizeof(*s));
	if (!s)
		return -ENOMEM;
	l->slots = s;
	l->cap = n;
	return 0;
}

static size_t build(struct zn_vfu_loop *l, bool *any_client)
{
	size_t n = 0;

	*any_client = false;
	l->pfd[n] = (struct pollfd){ .fd = l->wake_fd, .events = POLLIN };
	l->slots[n++] = (struct slot){ SLOT_WAKE, 0 };
	for (size_t i = 0; i < l->nfd; i++) {
		l->pfd[n] = (struct pollfd){ .fd = l->fds[i].fd, .events = l->fds[i].events };
		l->slots[n++] = (struct slot){ SLOT_FD, i };
	}
	for (size_t i = 0; i < l->ndev; i++) {
		struct zn_vfu_dev *dev = l->devs[i];

		if (dev->conn.active && dev->conn.sock >= 0) {
			short ev = 0;

			*any_client = true;
			if (vfu_conn_want_read(dev))
				ev |= POLLIN;
			if (vfu_conn_want_write(dev))
				ev |= POLLOUT;
			l->pfd[n] = (struct pollfd){ .fd = dev->conn.sock, .events = ev };
			l->slots[n++] = (struct slot){ SLOT_CONN, i };
		} else if (!dev->conn.active && dev->listen_fd >= 0) {
			/* One client at a time: the next waits in the backlog. */
			l->pfd[n] = (struct pollfd){ .fd = dev->listen_fd, .events = POLLIN };
			l->slots[n++] = (struct slot){ SLOT_LISTEN, i };
		}
	}
	return n;
}

static void conn_event(struct zn_vfu_dev *dev, int sock, short rev)
{
	if (!dev->conn.active || dev->conn.sock != sock)
		return;		/* closed and maybe replaced since the poll */
	if ((rev & POLLOUT) && vfu_sock_writable(dev) < 0)
		return;
	if (rev & POLLIN) {
		if (vfu_sock_readable(dev) < 0)
			return;
	} else if (rev & (POLLHUP | POLLERR)) {
		/* Not reading (replies pending): the flush tells EPIPE apart. */
		if (vfu_sock_writable(dev) < 0)
			return;
		vfu_conn_close(dev, "hang-up");
	}
}

int zn_vfu_loop_run(struct zn_vfu_loop *l)
{
	uint64_t last_activity = zn_vfu_now_ns(), last_sock = 0, sleep_ns = 0;

	prctl(PR_SET_TIMERSLACK, LOOP_TIMER_SLACK_NS, 0, 0, 0);
	if (ensure_slots(l, 1 + l->nfd + l->ndev))
		return -ENOMEM;
	while (!__atomic_load_n(&l->stop, __ATOMIC_ACQUIRE)) {
		uint64_t now = zn_vfu_now_ns(), deadline = UINT64_MAX;
		struct timespec ts, *tsp = &ts;
		bool any_client;
		int work = 0, r;
		size_t n;

		for (size_t i = 0; i < l->ndev; i++) {
			struct zn_vfu_dev *dev = l->devs[i];

			if (dev->realized && dev->desc.ops && dev->desc.ops->poll)
				work += dev->desc.ops->poll(dev->desc.opaque, now, &deadline);
		}
		for (size_t i = 0; i < l->npoller; i++)
			work += l->pollers[i].poll(l->pollers[i].arg, now, &deadline);
		if (work > 0) {
			last_activity = now;
			if (now - last_sock < ZN_VFU_BUSY_SOCK_NS)
				continue;
		}
		last_sock = now;

		for (size_t i = 0; i < l->ndev; i++)
			vfu_conn_check_stall(l->devs[i], now, &deadline);
		n = build(l, &any_client);
		if (now - last_activity < ZN_VFU_SPIN_NS) {
			/* spinning: a shared CPU goes to whoever has work meanwhile */
			if (work <= 0)
				sched_yield();
			sleep_ns = 0;
			ts = (struct timespec){ 0, 0 };
		} else if (!any_client && deadline == UINT64_MAX) {
			tsp = NULL;	/* nobody can ring a doorbell: block */
		} else {
			uint64_t t;

			/* Gradually: a doorbell just after the spin is still seen soon. */
			sleep_ns = sleep_ns ? sleep_ns + sleep_ns / ZN_VFU_SLEEP_GROWTH
					    : ZN_VFU_SLEEP_MIN_NS;
			if (sleep_ns > ZN_VFU_SLEEP_MAX_NS)
				sleep_ns = ZN_VFU_SLEEP_MAX_NS;
			t = sleep_ns;
			if (deadline != UINT64_MAX)
				t = deadline > now ? (deadline - now < t ? deadline - now : t) : 0;
			ts = (struct timespec){ (time_t)(t / 1000000000ull),
						(long)(t % 1000000000ull) };
		}
		r = ppoll(l->pfd, n, tsp, NULL);
		if (r < 0) {
			if (errno == EINTR)
				continue;
			return -errno;
		}
		if (r == 0)
			continue;
		last_activity = zn_vfu_now_ns();
		sleep_ns = 0;
		for (size_t k = 0; k < n; k++) {
			short rev = l->pfd[k].revents;
			struct zn_vfu_dev *dev;

			if (!rev)
				continue;
			switch (l->slots[k].kind) {
			case SLOT_WAKE: {
				uint64_t v;

				if (read(l->wake_fd, &v, sizeof(v)) < 0)
					break;
				break;
			}
			case SLOT_FD:
				l->fds[l->slots[k].index].cb(l->fds[l->slots[k].index].arg, rev);
				break;
			case SLOT_LISTEN:
				dev = l->devs[l->slots[k].index];
				if (vfu_dev_accept(dev) < 0)
					ZN_SIM_WARN("loop", "%s: accept failed", dev->name);
				break;
			case SLOT_CONN:
				conn_event(l->devs[l->slots[k].index], l->pfd[k].fd, rev);
				break;
			}
		}
	}
	return 0;
}
