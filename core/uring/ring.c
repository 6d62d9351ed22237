/* SPDX-License-Identifier: MIT */
/*
 * core/uring: ring set-up and teardown, CQE posting and the CQ overflow
 * list.
 *
 * Sizes follow the kernel's io_uring_fill_params() (Linux io_uring/io_uring.c):
 * SQ entries rounded up to a power of two, at most 32768 (CLAMP clamps,
 * otherwise -EINVAL); CQ = 2 x SQ, or with CQSIZE the caller's cq_entries
 * rounded up to a power of two, at most 65536, and never below the SQ size.
 *
 * Overflow: a CQE that finds the CQ full goes to a FIFO list, and so does
 * every later CQE while the list is not empty, so the application sees CQEs
 * in the order they were posted (the kernel's rule). IORING_SQ_CQ_OVERFLOW
 * is set in the SQ flags while the list holds entries; the list is flushed
 * into the CQ on every enter/wait/peek as space frees.
 */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/bits.h"
#include "core/uring/uring_priv.h"
#include "zcnic/log.h"


/*
 * A thread's tag is a number taken once per thread; a forked child takes a
 * new one, so the child of an issuer is not its parent's thread (Linux's
 * submitter_task is a task: the child's submit is -EEXIST).
 */
static _Thread_local uintptr_t thread_tag;
static _Atomic uintptr_t thread_tags;
static pthread_once_t tag_once = PTHREAD_ONCE_INIT;
static _Atomic unsigned fork_gen;

static void tag_forked(void)
{
	thread_tag = 0;
	atomic_fetch_add(&fork_gen, 1);
}

unsigned zn_uring_fork_gen(void)
{
	return atomic_load_explicit(&fork_gen, memory_order_relaxed);
}

static void tag_init(void)
{
	pthread_atfork(NULL, NULL, tag_forked);
}

const void *zn_uring_thread_tag(void)
{
	if (!thread_tag) {
		pthread_once(&tag_once, tag_init);
		thread_tag = atomic_fetch_add(&thread_tags, 1) + 1;
	}
	return (const void *)thread_tag;
}

/* The kernel's io_uring_sanitise_params: reserved words, flags and their mixes. */
static int sanitise_params(const struct io_uring_params *p)
{
	unsigned i;

	for (i = 0; i < sizeof(p->resv) / sizeof(p->resv[0]); i++)
		if (p->resv[i])
			return -EINVAL;
	if (p->flags & ~ZN_URING_SETUP_FLAGS)
		return -EINVAL;
	/* DEFER_TASKRUN only makes sense with one issuer (kernel rule). */
	if ((p->flags & IORING_SETUP_DEFER_TASKRUN) && !(p->flags & IORING_SETUP_SINGLE_ISSUER))
		return -EINVAL;
	/* The kernel's other combination rules (io_uring_sanitise_params,
	 * io_uring_create, io_sq_offload_create). */
	if ((p->flags & IORING_SETUP_TASKRUN_FLAG) &&
	    !(p->flags & (IORING_SETUP_COOP_TASKRUN | IORING_SETUP_DEFER_TASKRUN)))
		return -EINVAL;
	if ((p->flags & IORING_SETUP_HYBRID_IOPOLL) && !(p->flags & IORING_SETUP_IOPOLL))
		return -EINVAL;
	if ((p->flags & IORING_SETUP_SQ_AFF) && !(p->flags & IORING_SETUP_SQPOLL))
		return -EINVAL;
	/* SQ_REWIND: SQEs from index 0 each time, so no index array, no poller */
	if ((p->flags & IORING_SETUP_SQ_REWIND) &&
	    (!(p->flags & IORING_SETUP_NO_SQARRAY) || (p->flags & IORING_SETUP_SQPOLL)))
		return -EINVAL;
	/* one SQE size and one CQE size, or mixed ones: not both */
	if ((p->flags & IORING_SETUP_SQE128) && (p->flags & IORING_SETUP_SQE_MIXED))
		return -EINVAL;
	if ((p->flags & IORING_SETUP_CQE32) && (p->flags & IORING_SETUP_CQE_MIXED))
		return -EINVAL;
	return 0;
}

/* The kernel's io_uring_fill_params: sizes, checked and rounded, into p. */
int zn_uring_fill_params(unsigned entries, struct io_uring_params *p)
{
	/* task-work flags mean nothing to a polling thread: refused (kernel) */
	if ((p->flags & IORING_SETUP_SQPOLL) &&
	    (p->flags & (IORING_SETUP_COOP_TASKRUN | IORING_SETUP_TASKRUN_FLAG |
			 IORING_SETUP_DEFER_TASKRUN)))
		return -EINVAL;
	if (!entries)
		return -EINVAL;
	if (entries > ZN_URING_MAX_ENTRIES) {
		if (!(p->flags & IORING_SETUP_CLAMP))
			return -EINVAL;
		entries = ZN_URING_MAX_ENTRIES;
	}
	p->sq_entries = (uint32_t)zn_roundup_pow2(entries);
	if (p->flags & IORING_SETUP_CQSIZE) {
		if (!p->cq_entries)
			return -EINVAL;
		if (p->cq_entries > ZN_URING_MAX_CQ_ENTRIES) {
			if (!(p->flags & IORING_SETUP_CLAMP))
				return -EINVAL;
			p->cq_entries = ZN_URING_MAX_CQ_ENTRIES;
		}
		p->cq_entries = (uint32_t)zn_roundup_pow2(p->cq_entries);
		if (p->cq_entries < p->sq_entries)
			return -EINVAL;
	} else {
		p->cq_entries = 2 * p->sq_entries;
	}
	/* a 128-byte SQE or 32-byte CQE needs two slots (Linux rings_size) */
	if (((p->flags & IORING_SETUP_SQE_MIXED) && p->sq_entries < 2) ||
	    ((p->flags & IORING_SETUP_CQE_MIXED) && p->cq_entries < 2))
		return -EOVERFLOW;
	return 0;
}

void zn_uring_fill_offsets(unsigned flags, uint32_t cqes_off, struct io_uring_params *p)
{
	memset(&p->sq_off, 0, sizeof(p->sq_off));
	memset(&p->cq_off, 0, sizeof(p->cq_off));
	p->sq_off.head = offsetof(struct zn_uring_shared, sq_head);
	p->sq_off.tail = offsetof(struct zn_uring_shared, sq_tail);
	p->sq_off.ring_mask = offsetof(struct zn_uring_shared, sq_mask);
	p->sq_off.ring_entries = offsetof(struct zn_uring_shared, sq_entries);
	p->sq_off.flags = offsetof(struct zn_uring_shared, sq_flags);
	p->sq_off.dropped = offsetof(struct zn_uring_shared, sq_dropped);
	/* NO_SQARRAY: SQ index i is SQE i, and the kernel reports offset 0 */
	p->sq_off.array = (flags & IORING_SETUP_NO_SQARRAY) ? 0 :
		offsetof(struct zn_uring_shared, array);
	p->cq_off.head = offsetof(struct zn_uring_shared, cq_head);
	p->cq_off.tail = offsetof(struct zn_uring_shared, cq_tail);
	p->cq_off.ring_mask = offsetof(struct zn_uring_shared, cq_mask);
	p->cq_off.ring_entries = offsetof(struct zn_uring_shared, cq_entries);
	p->cq_off.overflow = offsetof(struct zn_uring_shared, cq_overflow);
	p->cq_off.cqes = cqes_off;
	p->cq_off.flags = offsetof(struct zn_uring_shared, cq_flags);
}

uint32_t zn_uring_cqes_off(uint32_t sq_entries)
{
	return (uint32_t)((sizeof(struct zn_uring_shared) + 4u * sq_entries + ZN_CACHELINE - 1) &
			  ~(size_t)(ZN_CACHELINE - 1));
}

int zn_uring_rings_alloc(struct zn_uring_rings *n, unsigned flags, uint32_t sq_entries,
			 uint32_t cq_entries)
{
	unsigned cqe_shift = (flags & IORING_SETUP_CQE32) ? 1 : 0;
	size_t sqes_size = sizeof(struct io_uring_sqe) * sq_entries << ((flags & IORING_SETUP_SQE128) ? 1 : 0);
	size_t sz;

	n->cqes_off = zn_uring_cqes_off(sq_entries);
	sz = n->cqes_off + (sizeof(struct io_uring_cqe) << cqe_shift) * cq_entries;
	n->sh_size = (sz + ZN_CACHELINE - 1) & ~(size_t)(ZN_CACHELINE - 1);
	n->sh = aligned_alloc(ZN_CACHELINE, n->sh_size);
	n->sqes = aligned_alloc(ZN_CACHELINE, sqes_size);
	if (!n->sh || !n->sqes) {
		free(n->sh);
		free(n->sqes);
		return -ENOMEM;
	}
	memset(n->sh, 0, n->sh_size);
	memset(n->sqes, 0, sqes_size);
	/*
	 * SQ position i is SQE i. A NO_SQARRAY ring's array, which the
	 * application does not see, keeps that identity, so that submission
	 * reads every ring's SQEs the same way instead of testing the flag per
	 * SQE; the others start with it too (liburing writes it anyway).
	 */
	for (uint32_t i = 0; i < sq_entries; i++)
		n->sh->array[i] = i;
	n->sh->sq_mask = sq_entries - 1;
	n->sh->cq_mask = cq_entries - 1;
	n->sh->sq_entries = sq_entries;
	n->sh->cq_entries = cq_entries;
	return 0;
}

/* r takes the geometry n describes (set-up, resize). */
void zn_uring_rings_install(struct zn_uring *r, const struct zn_uring_rings *n,
			    uint32_t sq_entries, uint32_t cq_entries)
{
	r->sq_entries = sq_entries;
	r->cq_entries = cq_entries;
	r->sq_mask = sq_entries - 1;
	r->cq_mask = cq_entries - 1;
	r->sh = n->sh;
	r->sh_size = n->sh_size;
	r->cqes_off = n->cqes_off;
	r->cqes = (struct io_uring_cqe *)((char *)n->sh + n->cqes_off);
	r->sqes = n->sqes;
}

int zn_uring_create(unsigned entries, struct io_uring_params *p, struct zn_uring **out)
{
	struct zn_uring_rings n;
	struct zn_uring *r;
	int rc;

	if (!p || !out)
		return -EFAULT;
	rc = sanitise_params(p);
	if (!rc)
		rc = zn_uring_fill_params(entries, p);
	if (rc)
		return rc;

	r = aligned_alloc(ZN_CACHELINE, (sizeof(*r) + ZN_CACHELINE - 1) & ~(size_t)(ZN_CACHELINE - 1));
	if (!r)
		return -ENOMEM;
	memset(r, 0, sizeof(*r));
	r->flags = p->flags;
	r->features = ZN_URING_FEATURES;
	r->cqe_shift = (p->flags & IORING_SETUP_CQE32) ? 1 : 0;
	r->cqe_mixed = p->flags & IORING_SETUP_CQE_MIXED;
	r->sqe_shift = (p->flags & IORING_SETUP_SQE128) ? 1 : 0;
	r->owner = zn_uring_thread_tag();
	r->evfd = -1;
	atomic_init(&r->disabled, (p->flags & IORING_SETUP_R_DISABLED) ? 1u : 0u);

	rc = zn_uring_rings_alloc(&n, r->flags, p->sq_entries, p->cq_entries);
	if (rc)
		goto err_ring;
	zn_uring_rings_install(r, &n, p->sq_entries, p->cq_entries);
	zn_uring_submit_setup(r);
	rc = zn_inbox_init(&r->inbox, r->cq_entries);
	if (rc)
		goto err_sqes;
	rc = zn_handle_alloc(ZN_HANDLE_URING, r);
	if (rc < 0)
		goto err_inbox;
	r->handle = rc;

	p->features = r->features;
	zn_uring_fill_offsets(r->flags, r->cqes_off, p);
	if (r->flags & IORING_SETUP_SQPOLL) {
		rc = zn_sqpoll_start(r, p);
		if (rc) {
			zn_handle_close(r->handle);
			goto err_inbox;
		}
	}
	*out = r;
	return 0;

err_inbox:
	zn_inbox_fini(&r->inbox);
err_sqes:
	free(r->sqes);
	free(r->sh);
err_ring:
	free(r);
	return rc;
}

void zn_uring_destroy(struct zn_uring *r)
{
	struct zn_ovf_cqe *o;

	if (!r)
		return;
	/* After this no sender can reach the inbox (nor wake a polling thread). */
	zn_handle_close(r->handle);
	/* The polling thread stops next: from here on the caller owns the ring. */
	zn_sqpoll_stop(r);
	zn_inbox_fini(&r->inbox);
	/* In-flight requests let go first (their ops may touch what the exit
	 * callbacks tear down), then the layers that hang state on the ring. */
	zn_uring_req_cancel_all(r);
	zn_uring_timers_cancel_all(r);
	zn_uring_drain_destroy(r);
	while (r->nexit_cbs) {
		struct zn_exit_cb *cb = &r->exit_cbs[--r->nexit_cbs];

		if (cb->fn)
			cb->fn(r, cb->arg);
	}
	while ((o = r->ovf_head)) {
		r->ovf_head = o->next;
		free(o);
	}
	zn_uring_req_cache_free(r);
	zn_uring_bufs_destroy(r);
	if (r->evfd >= 0)
		close(r->evfd);
	free(r->bufs);
	free(r->files);
	free(r->sqes);
	free(r->sh);
	free(r);
}

int zn_uring_on_exit(struct zn_uring *r, void (*fn)(struct zn_uring *r, void *arg), void *arg)
{
	if (!r || !fn)
		return -EINVAL;
	if (r->nexit_cbs == ZN_URING_MAX_EXIT_CBS)
		return -ENOSPC;
	r->exit_cbs[r->nexit_cbs] = (struct zn_exit_cb){ fn, arg };
	return (int)r->nexit_cbs++;
}

void zn_uring_on_exit_del(struct zn_uring *r, int id)
{
	if (r && id >= 0 && (unsigned)id < r->nexit_cbs)
		r->exit_cbs[id].fn = NULL;
}

int zn_uring_handle(const struct zn_uring *r)
{
	return r->handle;
}

unsigned zn_uring_flags(const struct zn_uring *r)
{
	return r->flags;
}

struct zn_uring *zn_uring_from_handle(int h)
{
	return zn_handle_peek(h, ZN_HANDLE_URING);
}

void zn_uring_get_map(struct zn_uring *r, struct zn_uring_map *m)
{
	struct zn_uring_shared *sh = r->sh;

	m->sq_head = &sh->sq_head;
	m->sq_tail = &sh->sq_tail;
	m->sq_mask = &sh->sq_mask;
	m->sq_entries = &sh->sq_entries;
	m->sq_flags = &sh->sq_flags;
	m->sq_dropped = &sh->sq_dropped;
	m->sq_array = (r->flags & IORING_SETUP_NO_SQARRAY) ? NULL : sh->array;
	m->sqes = r->sqes;
	m->cq_head = &sh->cq_head;
	m->cq_tail = &sh->cq_tail;
	m->cq_mask = &sh->cq_mask;
	m->cq_entries = &sh->cq_entries;
	m->cq_flags = &sh->cq_flags;
	m->cq_overflow = &sh->cq_overflow;
	m->cqes = r->cqes;
	m->ring_ptr = sh;
	m->ring_sz = r->sh_size;
	m->flags = r->flags;
	m->features = r->features;
}

unsigned zn_uring_cq_ready(const struct zn_uring *r)
{
	return r->sh->cq_tail - zn_load_acq(&r->sh->cq_head);
}

unsigned zn_uring_cq_space(const struct zn_uring *r)
{
	return r->cq_entries - zn_uring_cq_ready(r);
}

unsigned zn_uring_overflow_pending(const struct zn_uring *r)
{
	return r->ovf_count;
}

static void set_overflow_flag(struct zn_uring *r, bool on)
{
	/* atomic RMW: an SQPOLL thread or a MSG_RING sender may set other bits */
	if (on)
		__atomic_fetch_or(&r->sh->sq_flags, IORING_SQ_CQ_OVERFLOW, __ATOMIC_RELAXED);
	else
		__atomic_fetch_and(&r->sh->sq_flags, ~IORING_SQ_CQ_OVERFLOW, __ATOMIC_RELAXED);
}

/* The CQ is full or CQEs wait in the overflow list already. */
static __attribute__((noinline)) int post_overflow(struct zn_uring *r, uint64_t user_data,
						   int32_t res, uint32_t cflags,
						   const uint64_t big[2], unsigned how)
{
	struct zn_ovf_cqe *o;

	if (how & ZN_CQE_NO_OVERFLOW)
		return -ENOSPC;
	o = malloc(sizeof(*o));
	if (!o) {
		/* The one way a CQE is lost; counted where the app can see it. */
		__atomic_store_n(&r->sh->cq_overflow, r->sh->cq_overflow + 1, __ATOMIC_RELAXED);
		ZN_LOG_RL(ZN_LOG_ERR, "uring", "CQ overflow entry allocation failed: CQE of "
			  "user_data 0x%llx lost; reap CQEs sooner or use a bigger CQ",
			  (unsigned long long)user_data);
		return -ENOMEM;
	}
	o->next = NULL;
	o->user_data = user_data;
	o->res = res;
	o->cflags = cflags;
	o->big[0] = big ? big[0] : 0;
	o->big[1] = big ? big[1] : 0;
	if (r->ovf_tail)
		r->ovf_tail->next = o;
	else
		r->ovf_head = o;
	r->ovf_tail = o;
	r->ovf_count++;
	r->st.overflowed++;
	set_overflow_flag(r, true);
	return 0;
}

int zn_uring_post_cqe(struct zn_uring *r, uint64_t user_data, int32_t res, uint32_t cflags,
		      const uint64_t big[2], unsigned how)
{
	if (__builtin_expect(!r->ovf_count &&
			     zn_uring_cq_space(r) >= zn_cq_slots(r, r->sh->cq_tail, cflags), 1)) {
		zn_cq_write(r, user_data, res, cflags, big);
		return 0;
	}
	return post_overflow(r, user_data, res, cflags, big, how);
}

int zn_uring_flush_overflow(struct zn_uring *r)
{
	struct zn_ovf_cqe *o;
	int n = 0;

	while ((o = r->ovf_head) &&
	       zn_uring_cq_space(r) >= zn_cq_slots(r, r->sh->cq_tail, o->cflags)) {
		zn_cq_write(r, o->user_data, o->res, o->cflags, o->big);
		r->ovf_head = o->next;
		if (!r->ovf_head)
			r->ovf_tail = NULL;
		r->ovf_count--;
		free(o);
		n++;
	}
	if (n && !r->ovf_count)
		set_overflow_flag(r, false);
	return n;
}

void zn_uring_get_stats(const struct zn_uring *r, struct zn_uring_stats *st)
{
	*st = r->st;
}

int zn_uring_hook_add(struct zn_uring *r, zn_uring_poll_fn fn, void *arg, unsigned flags)
{
	unsigned i;

	if (!fn || (flags & ~ZN_URING_HOOK_BUSY))
		return -EINVAL;
	for (i = 0; i < ZN_URING_MAX_HOOKS; i++) {
		if (r->hooks[i].used)
			continue;
		r->hooks[i] = (struct zn_hook){ .fn = fn, .arg = arg, .flags = flags, .used = true };
		if (i >= r->nhooks)
			r->nhooks = i + 1;
		if (flags & ZN_URING_HOOK_BUSY)
			r->busy_hooks++;
		return (int)i;
	}
	return -ENOSPC;
}

int zn_uring_hook_del(struct zn_uring *r, int id)
{
	if (id < 0 || id >= ZN_URING_MAX_HOOKS || !r->hooks[id].used)
		return -ENOENT;
	if (r->hooks[id].flags & ZN_URING_HOOK_BUSY)
		r->busy_hooks--;
	r->hooks[id].used = false;
	while (r->nhooks && !r->hooks[r->nhooks - 1].used)
		r->nhooks--;
	return 0;
}

int zn_uring_not_a_ring(int fd)
{
	if (zn_handle_is_handle(fd))
		return zn_handle_type(fd) < 0 ? -EBADF : -EBADFD;
	/* an OS fd: open (Linux's fget succeeds) but no io_uring, or nothing */
	return fd >= 0 && fcntl(fd, F_GETFD) >= 0 ? -EBADFD : -EBADF;
}
