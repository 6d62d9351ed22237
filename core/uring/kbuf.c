/* SPDX-License-Identifier: MIT */
/*
 * core/uring: provided buffers. Legacy groups (IORING_OP_PROVIDE_BUFFERS /
 * REMOVE_BUFFERS) and ring-mapped groups (IORING_REGISTER_PBUF_RING, the
 * application's struct io_uring_buf_ring), and buffer selection for ops with
 * IOSQE_BUFFER_SELECT (the plug-in API in uring_op.h).
 *
 * Results and error codes are the kernel's io_uring/kbuf.c:
 *  - PROVIDE_BUFFERS (fd = count, addr, len, off = first bid, buf_group):
 *    rw_flags or file_index != 0 -EINVAL; count 0 or above 65536 -E2BIG;
 *    len 0 -EINVAL; addr + count * len wraps -EOVERFLOW; first bid above
 *    65535 -E2BIG, bid + count above 65536 -EINVAL; a ring-mapped group
 *    -EINVAL; otherwise 0 and the buffers join the end of the group;
 *  - REMOVE_BUFFERS (fd = count, buf_group): any of rw_flags, addr, len, off,
 *    file_index -EINVAL; count 0 or above 65536 -EINVAL; no such group
 *    -ENOENT; a ring-mapped group -EINVAL; else the number removed, oldest
 *    first;
 *  - REGISTER_PBUF_RING: reserved words -EINVAL, unknown flags -EINVAL,
 *    entries not a power of two or above 32768 -EINVAL, a group that exists
 *    with buffers or a ring -EEXIST, ring_addr 0 -EFAULT, not page aligned
 *    -EINVAL. IOU_PBUF_RING_MMAP (the kernel allocates, the program maps the
 *    ring fd) -EINVAL: there is no ring fd to map (docs/uring.md).
 *    UNREGISTER: no group -ENOENT, a legacy group -EINVAL. PBUF_STATUS gives
 *    the group's head.
 *  - selection takes the oldest legacy buffer or the ring entry at head;
 *    none: -ENOBUFS. The length is clamped to the buffer's. A ring entry is
 *    consumed (head moves) when the op is done with it; with
 *    IOU_PBUF_RING_INC only the bytes used are, and the CQE says
 *    IORING_CQE_F_BUF_MORE while the entry has room left: at least
 *    io_uring_buf_reg.min_left bytes (1 if 0; min_left without INC is
 *    -EINVAL), a smaller rest retires the entry (Linux io_kbuf_inc_commit).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "core/mem/ucopy.h"
#include "core/uring/uring_priv.h"

#define MAX_BIDS_PER_BGID	(1u << 16)
#define PBUF_RING_MAX		32768	/* head and tail are u16: full != empty */
#define PAGE_4K			4096u

/* req->buf_flags */
enum { KB_SELECTED = 1u << 0, KB_RING = 1u << 1 };

struct zn_kbuf {
	struct zn_kbuf *next;
	uint64_t addr;
	uint32_t len;
	uint16_t bid;
};

struct zn_buf_group {
	struct zn_buf_group *next;
	uint16_t bgid;
	/* legacy: FIFO of buffers; lent: selected, not yet used or given back */
	struct zn_kbuf *head, *tail, *lent;
	/* ring-mapped */
	struct io_uring_buf_ring *br;
	uint32_t mask;
	uint16_t rhead;
	bool inc;
	uint32_t min_left_sub_one;	/* INC: a rest of at most this retires the entry */
};

static struct zn_buf_group *group_find(struct zn_uring *r, uint16_t bgid)
{
	struct zn_buf_group *g;

	for (g = r->bgroups; g; g = g->next)
		if (g->bgid == bgid)
			return g;
	return NULL;
}

static struct zn_buf_group *group_get(struct zn_uring *r, uint16_t bgid)
{
	struct zn_buf_group *g = group_find(r, bgid);

	if (g)
		return g;
	g = calloc(1, sizeof(*g));
	if (!g)
		return NULL;
	g->bgid = bgid;
	g->next = r->bgroups;
	r->bgroups = g;
	return g;
}

static void list_free(struct zn_kbuf *b)
{
	while (b) {
		struct zn_kbuf *n = b->next;

		free(b);
		b = n;
	}
}

void zn_uring_bufs_destroy(struct zn_uring *r)
{
	struct zn_buf_group *g = r->bgroups, *n;

	for (; g; g = n) {
		n = g->next;
		list_free(g->head);
		list_free(g->lent);
		free(g);
	}
	r->bgroups = NULL;
}

/* ---- IOSQE_BUFFER_SELECT ---- */

int zn_uring_buf_select(struct zn_uring_req *req, void **addr, uint32_t *len)
{
	struct zn_buf_group *g = group_find(req->ring, req->buf_group);

	if (!(req->sqe_flags & IOSQE_BUFFER_SELECT) || (req->buf_flags & KB_SELECTED))
		return -EINVAL;
	if (!g)
		return -ENOBUFS;
	if (g->br) {
		uint16_t tail = __atomic_load_n(&g->br->tail, __ATOMIC_ACQUIRE);
		struct io_uring_buf *b;

		if (tail == g->rhead)
			return -ENOBUFS;
		b = &g->br->bufs[g->rhead & g->mask];
		if (*len == 0 || *len > b->len)
			*len = b->len;
		*addr = (void *)(uintptr_t)b->addr;
		req->buf_flags = KB_SELECTED | KB_RING;
		return b->bid;
	}
	if (!g->head)
		return -ENOBUFS;
	{
		struct zn_kbuf *b = g->head;

		g->head = b->next;
		if (!g->head)
			g->tail = NULL;
		b->next = g->lent;
		g->lent = b;
		if (*len == 0 || *len > b->len)
			*len = b->len;
		*addr = (void *)(uintptr_t)b->addr;
		req->buf_flags = KB_SELECTED;
		return b->bid;
	}
}

/* Take the lent buffer of req off the lent list. */
static struct zn_kbuf *lent_take(struct zn_buf_group *g, uint16_t bid)
{
	struct zn_kbuf **pp;

	for (pp = &g->lent; *pp; pp = &(*pp)->next)
		if ((*pp)->bid == bid) {
			struct zn_kbuf *b = *pp;

			*pp = b->next;
			return b;
		}
	return NULL;
}

uint32_t zn_uring_buf_done(struct zn_uring_req *req, int bid, uint32_t used)
{
	struct zn_buf_group *g = group_find(req->ring, req->buf_group);
	uint32_t cflags = IORING_CQE_F_BUFFER | (uint32_t)bid << IORING_CQE_BUFFER_SHIFT;

	if (!(req->buf_flags & KB_SELECTED) || !g)
		return 0;
	req->buf_flags = 0;
	if (g->br) {
		struct io_uring_buf *b = &g->br->bufs[g->rhead & g->mask];

		if (g->inc && used < b->len && (!used || b->len - used > g->min_left_sub_one)) {
			/* incremental: the rest of the entry (all of it after a read
			 * of 0 bytes) stays for the next one, as io_kbuf_inc_commit */
			b->addr += used;
			b->len -= used;
			return cflags | IORING_CQE_F_BUF_MORE;
		}
		g->rhead++;
		return cflags;
	}
	free(lent_take(g, (uint16_t)bid));
	return cflags;
}

void zn_uring_buf_recycle(struct zn_uring_req *req, int bid)
{
	struct zn_buf_group *g = group_find(req->ring, req->buf_group);
	struct zn_kbuf *b;

	if (!(req->buf_flags & KB_SELECTED) || !g) {
		req->buf_flags = 0;
		return;
	}
	req->buf_flags = 0;
	if (g->br)
		return;		/* head did not move: the entry is still the next */
	b = lent_take(g, (uint16_t)bid);
	if (b) {
		b->next = g->head;	/* first again, as the kernel's recycle */
		g->head = b;
		if (!g->tail)
			g->tail = b;
	}
}

/* ---- PROVIDE_BUFFERS / REMOVE_BUFFERS ---- */

struct kbuf_pdu {
	uint64_t addr;
	uint32_t len;
	uint32_t nbufs;
	uint32_t bid;
	uint16_t bgid;
};

static int provide_prep(struct zn_uring_req *req, const struct io_uring_sqe *sqe)
{
	struct kbuf_pdu *p = (struct kbuf_pdu *)req->pdu;
	uint64_t size;

	memset(p, 0, sizeof(*p));
	if (sqe->rw_flags || sqe->splice_fd_in)
		return -EINVAL;
	if (sqe->fd <= 0 || (uint32_t)sqe->fd > MAX_BIDS_PER_BGID)
		return -E2BIG;
	p->nbufs = (uint32_t)sqe->fd;
	p->addr = sqe->addr;
	p->len = sqe->len;
	if (!p->len)
		return -EINVAL;
	size = (uint64_t)p->len * p->nbufs;
	if (p->addr + size < p->addr)
		return -EOVERFLOW;
	p->bgid = sqe->buf_group;
	if (sqe->off > 0xffff)
		return -E2BIG;
	p->bid = (uint32_t)sqe->off;
	if (p->bid + p->nbufs > MAX_BIDS_PER_BGID)
		return -EINVAL;
	return 0;
}

static int provide_issue(struct zn_uring_req *req)
{
	struct kbuf_pdu *p = (struct kbuf_pdu *)req->pdu;
	struct zn_buf_group *g = group_get(req->ring, p->bgid);
	uint32_t i;

	if (!g) {
		req->res = -ENOMEM;
		return ZN_URING_ISSUE_DONE;
	}
	if (g->br) {
		req->res = -EINVAL;
		return ZN_URING_ISSUE_DONE;
	}
	for (i = 0; i < p->nbufs; i++) {
		struct zn_kbuf *b = malloc(sizeof(*b));

		if (!b)
			break;
		b->next = NULL;
		b->addr = p->addr + (uint64_t)i * p->len;
		b->len = p->len;
		b->bid = (uint16_t)(p->bid + i);
		if (g->tail)
			g->tail->next = b;
		else
			g->head = b;
		g->tail = b;
	}
	/* the kernel's rule: some added is success */
	req->res = i ? 0 : -ENOMEM;
	return ZN_URING_ISSUE_DONE;
}

static int remove_prep(struct zn_uring_req *req, const struct io_uring_sqe *sqe)
{
	struct kbuf_pdu *p = (struct kbuf_pdu *)req->pdu;

	memset(p, 0, sizeof(*p));
	if (sqe->rw_flags || sqe->addr || sqe->len || sqe->off || sqe->splice_fd_in)
		return -EINVAL;
	if (sqe->fd <= 0 || (uint32_t)sqe->fd > MAX_BIDS_PER_BGID)
		return -EINVAL;
	p->nbufs = (uint32_t)sqe->fd;
	p->bgid = sqe->buf_group;
	return 0;
}

static int remove_issue(struct zn_uring_req *req)
{
	struct kbuf_pdu *p = (struct kbuf_pdu *)req->pdu;
	struct zn_buf_group *g = group_find(req->ring, p->bgid);
	uint32_t n = 0;

	if (!g) {
		req->res = -ENOENT;
		return ZN_URING_ISSUE_DONE;
	}
	if (g->br) {
		req->res = -EINVAL;
		return ZN_URING_ISSUE_DONE;
	}
	while (g->head && n < p->nbufs) {
		struct zn_kbuf *b = g->head;

		g->head = b->next;
		free(b);
		n++;
	}
	if (!g->head)
		g->tail = NULL;
	req->res = (int32_t)n;
	return ZN_URING_ISSUE_DONE;
}

const struct zn_uring_op zn_provide_buffers_op = {
	.name = "PROVIDE_BUFFERS", .prep = provide_prep, .issue = provide_issue,
};

const struct zn_uring_op zn_remove_buffers_op = {
	.name = "REMOVE_BUFFERS", .prep = remove_prep, .issue = remove_issue,
};

/* ---- ring-mapped groups (register.c calls these) ---- */

static bool resv_zero(const struct io_uring_buf_reg *reg)
{
	for (unsigned i = 0; i < sizeof(reg->resv) / sizeof(reg->resv[0]); i++)
		if (reg->resv[i])
			return false;
	return true;
}

/*
 * The kernel pins the ring's pages (io_create_region: -EFAULT for a hole);
 * zcnic reads one byte of each page through the fault-free copy.
 */
static bool ring_mem_ok(uint64_t addr, size_t len)
{
	uint64_t a;
	char c;

	if (addr + len < addr)
		return false;
	for (a = addr; a < addr + len; a += PAGE_4K)
		if (zn_ucopy_from(&c, (const void *)(uintptr_t)a, 1))
			return false;
	return true;
}

int zn_uring_pbuf_ring_register(struct zn_uring *r, const struct io_uring_buf_reg *reg)
{
	struct zn_buf_group *g;

	if (!resv_zero(reg))
		return -EINVAL;
	if (reg->flags & ~(IOU_PBUF_RING_MMAP | IOU_PBUF_RING_INC))
		return -EINVAL;
	if (!reg->ring_entries || (reg->ring_entries & (reg->ring_entries - 1)))
		return -EINVAL;
	if (reg->ring_entries > PBUF_RING_MAX)
		return -EINVAL;
	/* the smallest rest worth keeping is a property of incremental rings */
	if (reg->min_left && !(reg->flags & IOU_PBUF_RING_INC))
		return -EINVAL;
	g = group_find(r, reg->bgid);
	if (g && (g->br || g->head))
		return -EEXIST;
	if (reg->flags & IOU_PBUF_RING_MMAP)
		return -EINVAL;	/* no ring fd to map: the program gives the memory */
	if (!reg->ring_addr)
		return -EFAULT;
	if (reg->ring_addr & (PAGE_4K - 1))
		return -EINVAL;
	if (!ring_mem_ok(reg->ring_addr, (size_t)reg->ring_entries * sizeof(struct io_uring_buf)))
		return -EFAULT;
	g = group_get(r, reg->bgid);
	if (!g)
		return -ENOMEM;
	g->br = (struct io_uring_buf_ring *)(uintptr_t)reg->ring_addr;
	g->mask = reg->ring_entries - 1;
	g->rhead = 0;
	g->inc = reg->flags & IOU_PBUF_RING_INC;
	g->min_left_sub_one = reg->min_left ? reg->min_left - 1 : 0;
	return 0;
}

int zn_uring_pbuf_ring_unregister(struct zn_uring *r, const struct io_uring_buf_reg *reg)
{
	struct zn_buf_group **pp, *g;

	if (!resv_zero(reg))
		return -EINVAL;
	for (pp = &r->bgroups; (g = *pp); pp = &g->next)
		if (g->bgid == reg->bgid)
			break;
	if (!g)
		return -ENOENT;
	if (!g->br)
		return -EINVAL;
	*pp = g->next;
	list_free(g->lent);
	free(g);
	return 0;
}

int zn_uring_pbuf_status(struct zn_uring *r, struct io_uring_buf_status *st)
{
	struct zn_buf_group *g;
	unsigned i;

	for (i = 0; i < 8; i++)
		if (st->resv[i])
			return -EINVAL;
	g = group_find(r, (uint16_t)st->buf_group);
	if (!g || st->buf_group > 0xffff)
		return -ENOENT;
	if (!g->br)
		return -EINVAL;
	st->head = g->rhead;
	return 0;
}
