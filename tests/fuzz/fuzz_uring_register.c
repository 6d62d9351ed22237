/*
 * libFuzzer target: the io_uring_register(2) argument structs as
 * core/uring/register.c (and core/uring/rsrc.c, kbuf.c, core/zcrx) read
 * them, through the liburing-compatible io_uring_register().
 *
 * Input: byte 0 picks the register op (table below; the 0xff entry takes
 * byte 1 as a raw opcode among those that read no pointers), byte 1 is
 * nr_args, byte 2 holds harness bits (bit 0: the ring starts R_DISABLED,
 * bit 1: arg NULL, bit 2: the ring-less form, fd -1, bit 3: a sparse file
 * table registered first for the file-table ops, bit 4: the ring is
 * SINGLE_ISSUER | DEFER_TASKRUN, which RESIZE_RINGS needs), the rest (up to
 * ARG_BYTES bytes) is the argument, copied into an aligned buffer.
 *
 * Pointers inside the argument (iovec bases, buffer ring, area, region,
 * query chain and data) are not used raw: each u64 picks, by its low two
 * bits, NULL, a place in the harness memory (aligned or not), or a place
 * in the argument buffer itself (so that query chains and area structs can
 * point at fuzzed bytes), and lengths are cut to what that memory holds.
 * File and eventfd numbers pick -1, the ring, a live non-ring handle, an
 * eventfd, or the raw value.
 *
 * Checks: nothing crashes or leaks (ASan/UBSan); every result is >= 0 or
 * one of the errnos register calls give; BUFFERS, FILES, FILES2,
 * FILES_UPDATE(2), FILE_ALLOC_RANGE, RESTRICTIONS (and what the set then
 * lets through), PROBE and CLOCK results (and RESIZE_RINGS: -EINVAL
 * without DEFER_TASKRUN, else the struct io_uring liburing's wrapper
 * refreshes has the sizes written back)
 * match a reference decode written here from the rules in core/uring/rsrc.c
 * and register.c (Linux io_uring/rsrc.c, register.c), a success is visible
 * (registering again is -EBUSY, unregistering 0; the probe's fields); and
 * the ring still runs a NOP afterwards (unless it is disabled). A
 * MEM_REGION registered as wait arguments is then waited through
 * (IORING_ENTER_EXT_ARG_REG at a fuzzed offset, its entry's times cut short).
 */
#include <errno.h>
#include <liburing.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#include "zcnic/handle.h"
#include "zcnic/log.h"
#include "zcnic/uring.h"

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define CHECK(c) do { if (!(c)) __builtin_trap(); } while (0)
#define ARG_BYTES		4096
#define MEM_SIZE	(512u * 1024u)	/* the largest buffer ring: 32768 * 16 */
#define HDR		3

static uint8_t *mem;			/* harness memory pointers land in */
static _Alignas(64) uint8_t arg[ARG_BYTES + 64];
static int test_obj, test_handle, efd;

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	(void)argc;
	(void)argv;
	zn_log_configure("off");
	mem = mmap(NULL, MEM_SIZE, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	CHECK(mem != MAP_FAILED);
	test_handle = zn_handle_alloc(ZN_HANDLE_TEST, &test_obj);
	efd = eventfd(0, EFD_NONBLOCK);
	CHECK(test_handle > 0 && efd >= 0);
	return 0;
}

/* A pointer field: NULL, harness memory (aligned or not), or the arg buffer. */
static uint64_t ptr_of(uint64_t v, size_t *room)
{
	uint64_t off = v >> 2;

	switch (v & 3) {
	case 0:
		*room = 0;
		return 0;
	case 1:
		off = (off % MEM_SIZE) & ~(uint64_t)4095;
		break;
	case 2:
		off %= MEM_SIZE;
		break;
	default:
		off = (off % ARG_BYTES) & ~(uint64_t)7;
		*room = ARG_BYTES - off;
		return (uintptr_t)(arg + off);
	}
	*room = MEM_SIZE - off;
	return (uintptr_t)(mem + off);
}

static void fix_ptr(__u64 *p, __u64 *len)
{
	size_t room;

	*p = ptr_of(*p, &room);
	if (len && *len > room)
		*len = room;
}

static int fd_of(int v, int ring_fd)
{
	switch ((unsigned)v & 7) {
	case 0: return -1;
	case 1: return ring_fd;
	case 2: return test_handle;
	case 3: return efd;
	default: return v;
	}
}

static bool errno_ok(int rc)
{
	static const int ok[] = { EINVAL, EFAULT, EBUSY, ENOMEM, EOVERFLOW, EOPNOTSUPP, EBADF,
				  EBADFD, EEXIST, ENXIO, ENODEV, ERANGE, ENOENT, EMFILE, ENOSPC,
				  E2BIG, EALREADY, ETIME, EPERM, ENOTSUP, EACCES };

	if (rc >= 0)
		return true;
	for (size_t i = 0; i < sizeof(ok) / sizeof(ok[0]); i++)
		if (rc == -ok[i])
			return true;
	return false;
}

/* core/uring/rsrc.c's rules for IORING_REGISTER_BUFFERS. */
static int ref_buffers(const struct iovec *v, unsigned nr)
{
	if (!nr || nr > ZN_URING_MAX_REG_BUFFERS)
		return -EINVAL;
	for (unsigned i = 0; i < nr; i++) {
		uintptr_t b = (uintptr_t)v[i].iov_base;

		if (!b && v[i].iov_len)
			return -EFAULT;
		if (b && b + v[i].iov_len < b)
			return -EOVERFLOW;
	}
	return 0;
}

/* ... and IORING_REGISTER_FILES. */
static int ref_files(const int *f, unsigned nr)
{
	if (!nr)
		return -EINVAL;
	if (nr > ZN_URING_MAX_REG_FILES)
		return -EMFILE;
	for (unsigned i = 0; i < nr; i++) {
		if (f[i] == -1)
			continue;
		if (f[i] < 0 || (zn_handle_is_handle(f[i]) && zn_handle_type(f[i]) < 0))
			return -EBADF;
	}
	return 0;
}

static int do_buffers(struct io_uring *ring, unsigned nr)
{
	struct iovec *v = (struct iovec *)arg;
	int rc;

	nr %= 9;
	for (unsigned i = 0; i < nr; i++) {
		__u64 b = (uintptr_t)v[i].iov_base, l = v[i].iov_len;

		/* a base of ~0 with a length keeps the overflow case reachable */
		if (b != UINT64_MAX)
			fix_ptr(&b, b & 3 ? &l : NULL);
		v[i].iov_base = (void *)(uintptr_t)b;
		v[i].iov_len = (size_t)l;
	}
	rc = io_uring_register(ring->ring_fd, IORING_REGISTER_BUFFERS, v, nr);
	CHECK(rc == ref_buffers(v, nr));
	if (!rc) {
		CHECK(io_uring_register_buffers(ring, v, nr) == -EBUSY);
		CHECK(io_uring_unregister_buffers(ring) == 0);
	}
	CHECK(io_uring_unregister_buffers(ring) == -ENXIO);
	return rc;
}

static int do_files(struct io_uring *ring, unsigned nr)
{
	int *f = (int *)arg;
	int rc;

	nr %= 9;
	for (unsigned i = 0; i < nr; i++)
		f[i] = fd_of(f[i], ring->ring_fd);
	rc = io_uring_register(ring->ring_fd, IORING_REGISTER_FILES, f, nr);
	CHECK(rc == ref_files(f, nr));
	if (!rc) {
		CHECK(io_uring_register_files(ring, f, nr) == -EBUSY);
		CHECK(io_uring_unregister_files(ring) == 0);
	}
	return rc;
}

/*
 * FILES2 (sparse or not), FILES_UPDATE and FILES_UPDATE2 against the rules
 * of Linux io_uring/rsrc.c as core/uring/rsrc.c and register.c keep them.
 * The fd array lives at arg + FD_OFF (entries picked by fd_of); bit 3 of
 * the harness bits registers a sparse table of TABLE slots first.
 */
#define FD_OFF		2048
#define FD_MAX		8
#define TABLE		4

static int ref_update(const int *f, uint32_t off, unsigned nr, bool table)
{
	unsigned done;

	if ((uint64_t)off + nr > UINT32_MAX)
		return -EOVERFLOW;
	if (!table)
		return -ENXIO;
	if ((uint64_t)off + nr > TABLE)
		return -EINVAL;
	for (done = 0; done < nr; done++) {
		if (!f)
			return -EFAULT;		/* reading entry 0 faults */
		if (f[done] == IORING_REGISTER_FILES_SKIP || f[done] == -1)
			continue;
		if (f[done] < 0 || (zn_handle_is_handle(f[done]) && zn_handle_type(f[done]) < 0))
			break;
	}
	return done ? (int)done : -EBADF;
}

static int do_files_rsrc(struct io_uring *ring, unsigned op, unsigned nr, unsigned bits)
{
	int *f = (int *)(arg + FD_OFF);
	bool table = bits & 8;
	int rc, want;

	for (unsigned i = 0; i < FD_MAX; i++)
		f[i] = (f[i] & 8) ? IORING_REGISTER_FILES_SKIP : fd_of(f[i], ring->ring_fd);
	if (table)
		CHECK(io_uring_register_files_sparse(ring, TABLE) == 0);
	if (op == IORING_REGISTER_FILES2) {
		struct io_uring_rsrc_register *rr = (struct io_uring_rsrc_register *)arg;

		rr->data = (rr->data & 1) ? (uintptr_t)f : 0;
		rr->tags = (rr->tags & 1) ? (uintptr_t)(arg + FD_OFF + 64) : 0;
		if (rr->data)
			rr->nr %= FD_MAX + 1;
		nr = (nr & 1) ? (unsigned)sizeof(*rr) : nr;
		rc = io_uring_register(ring->ring_fd, op, rr, nr);
		if (nr != sizeof(*rr) || !rr->nr || rr->resv2 ||
		    (rr->flags & ~IORING_RSRC_REGISTER_SPARSE) ||
		    ((rr->flags & IORING_RSRC_REGISTER_SPARSE) && rr->data))
			want = -EINVAL;
		else if (rr->tags)
			want = -EOPNOTSUPP;
		else if (table)
			want = -EBUSY;
		else if (!rr->data)
			want = rr->nr > ZN_URING_MAX_REG_FILES ? -EMFILE : 0;
		else
			want = ref_files(f, rr->nr);
		CHECK(rc == want);
		if (!rc)
			CHECK(io_uring_unregister_files(ring) == 0);
		return rc;
	}
	if (op == IORING_REGISTER_FILES_UPDATE) {
		struct io_uring_files_update *up = (struct io_uring_files_update *)arg;

		up->fds = (up->fds & 1) ? (uintptr_t)f : 0;
		nr %= FD_MAX + 1;
		rc = io_uring_register(ring->ring_fd, op, up, nr);
		want = !nr || up->resv ? -EINVAL : ref_update(up->fds ? f : NULL, up->offset, nr,
							       table);
	} else {
		struct io_uring_rsrc_update2 *up = (struct io_uring_rsrc_update2 *)arg;

		up->data = (up->data & 1) ? (uintptr_t)f : 0;
		up->tags = (up->tags & 1) ? (uintptr_t)(arg + FD_OFF + 64) : 0;
		up->nr %= FD_MAX + 1;
		nr = (nr & 1) ? (unsigned)sizeof(*up) : nr;
		rc = io_uring_register(ring->ring_fd, op, up, nr);
		if (nr != sizeof(*up) || !up->nr || up->resv || up->resv2)
			want = -EINVAL;
		else if ((uint64_t)up->offset + up->nr > UINT32_MAX)
			want = -EOVERFLOW;
		else if (up->tags)
			want = -EOPNOTSUPP;
		else
			want = ref_update(up->data ? f : NULL, up->offset, up->nr, table);
	}
	CHECK(rc == want);
	if (table)
		CHECK(io_uring_unregister_files(ring) == 0);
	return rc;
}

/*
 * RESTRICTIONS against Linux io_register_restrictions (restrict.c); after
 * a success the ring is enabled and a NOP (flags 0) must be allowed or
 * -EACCES as the set says, and a second registration -EBADFD. Returns 1
 * when the ring was enabled restricted (the caller's NOP check is done).
 */
#define MAX_RES (IORING_RESTRICTION_LAST + IORING_REGISTER_LAST + IORING_OP_LAST)

static int ref_restrictions(const struct io_uring_restriction *r, unsigned nr, bool *nop_ok,
			    bool *probe_ok)
{
	uint8_t required = 0;

	*nop_ok = *probe_ok = false;
	for (unsigned i = 0; i < nr; i++) {
		switch (r[i].opcode) {
		case IORING_RESTRICTION_REGISTER_OP:
			if (r[i].register_op >= IORING_REGISTER_LAST)
				return -EINVAL;
			*probe_ok |= r[i].register_op == IORING_REGISTER_PROBE;
			break;
		case IORING_RESTRICTION_SQE_OP:
			if (r[i].sqe_op >= IORING_OP_LAST)
				return -EINVAL;
			*nop_ok |= r[i].sqe_op == IORING_OP_NOP;
			break;
		case IORING_RESTRICTION_SQE_FLAGS_ALLOWED:
			break;
		case IORING_RESTRICTION_SQE_FLAGS_REQUIRED:
			required = r[i].sqe_flags;
			break;
		default:
			return -EINVAL;
		}
	}
	*nop_ok &= !required;
	return 0;
}

static int do_restrictions(struct io_uring *ring, void *a, unsigned nr, bool disabled)
{
	struct io_uring_restriction *r = a;
	struct io_uring_probe *p = (struct io_uring_probe *)(arg + ARG_BYTES - 512);
	struct io_uring_sqe *s;
	struct io_uring_cqe *cqe;
	bool nop_ok, probe_ok;
	int rc, want;

	nr %= MAX_RES + 2;
	rc = io_uring_register(ring->ring_fd, IORING_REGISTER_RESTRICTIONS, a, nr);
	if (!disabled)
		want = -EBADFD;
	else if (!a || nr > MAX_RES)
		want = -EINVAL;
	else
		want = ref_restrictions(r, nr, &nop_ok, &probe_ok);
	CHECK(rc == want);
	if (rc)
		return rc;
	CHECK(io_uring_register(ring->ring_fd, IORING_REGISTER_RESTRICTIONS, a, nr) == -EBUSY);
	CHECK(io_uring_enable_rings(ring) == 0);
	memset(p, 0, sizeof(*p));
	CHECK(io_uring_register(ring->ring_fd, IORING_REGISTER_PROBE, p, 0) ==
	      (probe_ok ? 0 : -EACCES));
	s = io_uring_get_sqe(ring);
	CHECK(s);
	io_uring_prep_nop(s);
	s->user_data = 0x5b;
	CHECK(io_uring_submit(ring) == 1);
	CHECK(io_uring_peek_cqe(ring, &cqe) == 0 && cqe->user_data == 0x5b &&
	      cqe->res == (nop_ok ? 0 : -EACCES));
	io_uring_cqe_seen(ring, cqe);
	return 1;
}

/* FILE_ALLOC_RANGE (filetable.c, Linux io_register_file_alloc_range). */
static int do_alloc_range(struct io_uring *ring, void *a, unsigned nr, bool table)
{
	const struct io_uring_file_index_range *r = a;
	uint32_t end;
	int rc, want;

	nr %= 2;
	if (table)
		CHECK(io_uring_register_files_sparse(ring, TABLE) == 0);
	rc = io_uring_register(ring->ring_fd, IORING_REGISTER_FILE_ALLOC_RANGE, a, nr);
	if (!a || nr)
		want = -EINVAL;
	else if (__builtin_add_overflow(r->off, r->len, &end))
		want = -EOVERFLOW;
	else
		want = r->resv || end > (table ? TABLE : 0) ? -EINVAL : 0;
	CHECK(rc == want);
	if (table)
		CHECK(io_uring_unregister_files(ring) == 0);
	return rc;
}

static int do_probe(struct io_uring *ring, unsigned nr)
{
	struct io_uring_probe *p = (struct io_uring_probe *)arg;
	/* Linux's io_probe clamps nr_args to IORING_OP_LAST before it checks
	 * that the struct is zeroed: bytes past that are not looked at */
	unsigned seen = nr < IORING_OP_LAST ? nr : IORING_OP_LAST;
	bool zeroed = true;
	int rc;

	for (size_t i = 0; i < sizeof(*p) + seen * sizeof(p->ops[0]) && i < ARG_BYTES; i++)
		zeroed &= !arg[i];
	rc = io_uring_register(ring->ring_fd, IORING_REGISTER_PROBE, p, nr);
	if (nr > 256 || !zeroed) {
		CHECK(rc == -EINVAL);
		return rc;
	}
	CHECK(rc == 0);
	CHECK(p->last_op == IORING_OP_LAST - 1);
	CHECK(p->ops_len == (nr < IORING_OP_LAST ? nr : IORING_OP_LAST));
	for (unsigned i = 0; i < p->ops_len; i++)
		CHECK(p->ops[i].op == i && !(p->ops[i].flags & ~IO_URING_OP_SUPPORTED));
	return rc;
}

/*
 * The query chain: headers sit on a grid of the arg buffer (so that no
 * two overlap); each one's next entry lands on the grid (cycles give
 * -ERANGE) or ends the chain, its data in harness memory (never in the arg
 * buffer: the answers would overwrite headers).
 */
static void fix_query(void)
{
	const size_t hsz = sizeof(struct io_uring_query_hdr), slots = ARG_BYTES / hsz;

	for (size_t i = 0; i < slots; i++) {
		struct io_uring_query_hdr *h = (struct io_uring_query_hdr *)(arg + i * hsz);
		__u64 size = h->size, nx = h->next_entry;

		if ((h->query_data & 3) == 3)
			h->query_data &= ~(__u64)2;	/* harness memory, page aligned */
		fix_ptr(&h->query_data, &size);
		h->size = (uint32_t)size;
		h->next_entry = (nx & 1) ? (uintptr_t)(arg + ((nx >> 1) % slots) * hsz) : 0;
	}
}

static void fix_zcrx(void)
{
	struct io_uring_zcrx_ifq_reg *r = (struct io_uring_zcrx_ifq_reg *)arg;
	/* what area_ptr and region_ptr may land on: fuzzed structs further on */
	struct io_uring_zcrx_area_reg *a = (struct io_uring_zcrx_area_reg *)(arg + 512);
	struct io_uring_region_desc *d = (struct io_uring_region_desc *)(arg + 1024);

	r->area_ptr = (r->area_ptr & 1) ? (uintptr_t)a : 0;
	r->region_ptr = (r->region_ptr & 1) ? (uintptr_t)d : 0;
	fix_ptr(&a->addr, &a->len);
	fix_ptr(&d->user_addr, &d->size);
}

/* IORING_REGISTER_CLOCK against Linux io_register_clock. */
static int do_clock(int fd, void *a, unsigned nr)
{
	const struct io_uring_clock_register *c = a;
	int rc = io_uring_register((unsigned)fd, IORING_REGISTER_CLOCK, a, nr % 2);

	if (fd == -1 || !a || nr % 2 || c->__resv[0] || c->__resv[1] || c->__resv[2] ||
	    (c->clockid != CLOCK_MONOTONIC && c->clockid != CLOCK_BOOTTIME))
		CHECK(rc == -EINVAL);
	else
		CHECK(rc == 0);
	return rc;
}

/*
 * IORING_REGISTER_MEM_REGION: the descriptor at arg + 1024 (when bit 0 of
 * region_uptr says so), its user_addr in harness memory; memory zcnic
 * allocates is kept small. A wait region is then used by a wait.
 */
#define REGION_OFF	1024
#define REGION_WAIT	(IORING_ENTER_GETEVENTS | IORING_ENTER_EXT_ARG | IORING_ENTER_EXT_ARG_REG)

static int do_region(struct io_uring *ring, int fd, void *a, unsigned nr)
{
	struct io_uring_mem_region_reg *mr = (struct io_uring_mem_region_reg *)arg;
	struct io_uring_region_desc *d = (struct io_uring_region_desc *)(arg + REGION_OFF);
	uint64_t woff = d->__resv[3] >> 1;	/* where the wait looks */
	struct io_uring_reg_wait *w = NULL;
	bool exact = false;
	int rc;

	mr->region_uptr = (mr->region_uptr & 1) ? (uintptr_t)d : 0;
	if (d->__resv[3] & 1)
		d->__resv[3] = 0;
	fix_ptr(&d->user_addr, &d->size);
	if (!d->user_addr)
		d->size %= 64 * 1024;
	rc = io_uring_register((unsigned)fd, IORING_REGISTER_MEM_REGION, a, nr % 3);
	if (rc || !(mr->flags & IORING_MEM_REGION_REG_WAIT_ARG))
		return rc;
	CHECK(io_uring_register((unsigned)fd, IORING_REGISTER_MEM_REGION, a, 1) == -EBUSY);
	CHECK(io_uring_enable_rings(ring) == 0);
	woff %= d->size + 64;
	/* an entry inside the program's memory: its times cut to a poll */
	if (d->user_addr && woff % 8 == 0 && woff + sizeof(*w) <= d->size) {
		w = (struct io_uring_reg_wait *)(uintptr_t)(d->user_addr + woff);
		w->ts.tv_sec = 0;
		w->ts.tv_nsec = (w->ts.tv_nsec & 0x3ff) % 1000;
		w->min_wait_usec %= 100;
		w->flags |= IORING_REG_WAIT_TS;
		if (w->sigmask % 4 == 1)
			w->sigmask = (uintptr_t)mem;
		exact = !(w->flags & ~IORING_REG_WAIT_TS) &&
			(!w->sigmask || (w->sigmask == (uintptr_t)mem && w->sigmask_sz == 8));
	}
	rc = io_uring_enter2((unsigned)fd, 0, 1, REGION_WAIT, (void *)(uintptr_t)woff,
			     sizeof(struct io_uring_reg_wait));
	CHECK(rc == -ETIME || rc == -EFAULT || rc == -EINVAL);
	CHECK(!exact || rc == -ETIME);
	return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const unsigned ops[] = {
		IORING_REGISTER_BUFFERS, IORING_REGISTER_FILES, IORING_REGISTER_PROBE,
		IORING_REGISTER_ZCRX_IFQ, IORING_REGISTER_QUERY, IORING_REGISTER_PBUF_RING,
		IORING_UNREGISTER_PBUF_RING, IORING_REGISTER_PBUF_STATUS,
		IORING_REGISTER_SYNC_CANCEL, IORING_REGISTER_ZCRX_CTRL, IORING_REGISTER_EVENTFD,
		IORING_REGISTER_EVENTFD_ASYNC, IORING_REGISTER_IOWQ_AFF,
		IORING_REGISTER_IOWQ_MAX_WORKERS, IORING_REGISTER_RING_FDS,
		IORING_UNREGISTER_RING_FDS, IORING_REGISTER_ENABLE_RINGS,
		IORING_REGISTER_RESTRICTIONS, IORING_REGISTER_SEND_MSG_RING,
		IORING_REGISTER_FILES2, IORING_REGISTER_FILES_UPDATE,
		IORING_REGISTER_FILES_UPDATE2, IORING_REGISTER_FILE_ALLOC_RANGE, 0xff,
		IORING_REGISTER_CLOCK, IORING_REGISTER_MEM_REGION, IORING_REGISTER_RESIZE_RINGS,
	};
	struct io_uring ring;
	struct io_uring_params p;
	unsigned op, nr, bits;
	int fd, rc;
	void *a;

	if (size < HDR)
		return 0;
	op = ops[data[0] % (sizeof(ops) / sizeof(ops[0]))];
	nr = data[1];
	bits = data[2];
	memset(arg, 0, sizeof(arg));
	memcpy(arg, data + HDR, size - HDR < ARG_BYTES ? size - HDR : ARG_BYTES);
	memset(&p, 0, sizeof(p));
	p.flags = ((bits & 1) ? IORING_SETUP_R_DISABLED : 0) |
		  ((bits & 16) ? IORING_SETUP_SINGLE_ISSUER | IORING_SETUP_DEFER_TASKRUN : 0);
	if (io_uring_queue_init_params(8, &ring, &p))
		return 0;
	fd = (bits & 4) ? -1 : ring.ring_fd;
	a = (bits & 2) ? NULL : arg;

	switch (op) {
	case IORING_REGISTER_BUFFERS:
		rc = do_buffers(&ring, nr);
		break;
	case IORING_REGISTER_FILES:
		rc = do_files(&ring, nr);
		break;
	case IORING_REGISTER_PROBE:
		rc = do_probe(&ring, nr);
		break;
	case IORING_REGISTER_FILES2: case IORING_REGISTER_FILES_UPDATE:
	case IORING_REGISTER_FILES_UPDATE2:
		rc = do_files_rsrc(&ring, op, nr, bits);
		break;
	case IORING_REGISTER_RESTRICTIONS:
		rc = do_restrictions(&ring, a, nr, bits & 1);
		if (rc == 1) {	/* enabled, restricted: checked there */
			io_uring_queue_exit(&ring);
			return 0;
		}
		break;
	case IORING_REGISTER_FILE_ALLOC_RANGE:
		rc = do_alloc_range(&ring, a, nr, bits & 8);
		break;
	case IORING_REGISTER_ZCRX_IFQ:
		fix_zcrx();
		rc = io_uring_register((unsigned)fd, op, a, nr % 3);
		break;
	case IORING_REGISTER_CLOCK:
		rc = do_clock(fd, a, nr);
		break;
	case IORING_REGISTER_MEM_REGION:
		rc = do_region(&ring, fd, a, nr);
		break;
	case IORING_REGISTER_QUERY:
		fix_query();
		rc = io_uring_register((unsigned)fd, op, a, nr % 3);
		break;
	case IORING_REGISTER_PBUF_RING: case IORING_UNREGISTER_PBUF_RING:
	case IORING_REGISTER_PBUF_STATUS: {
		struct io_uring_buf_reg *r = (struct io_uring_buf_reg *)arg;
		uint64_t len = (uint64_t)r->ring_entries * sizeof(struct io_uring_buf);

		fix_ptr(&r->ring_addr, NULL);
		/* a ring that does not fit the harness memory: none at all */
		if (r->ring_addr >= (uintptr_t)mem && r->ring_addr < (uintptr_t)mem + MEM_SIZE &&
		    len > (uintptr_t)mem + MEM_SIZE - r->ring_addr)
			r->ring_addr = 0;
		rc = io_uring_register((unsigned)fd, op, a, nr % 3);
		break;
	}
	case IORING_REGISTER_SYNC_CANCEL: {
		struct io_uring_sync_cancel_reg *c = (struct io_uring_sync_cancel_reg *)arg;

		c->fd = fd_of(c->fd, ring.ring_fd);
		/* nothing is in flight; a wait would only be a long one */
		if (c->timeout.tv_sec != -1 || c->timeout.tv_nsec != -1) {
			c->timeout.tv_sec = 0;
			c->timeout.tv_nsec %= 1000000;
		}
		rc = io_uring_register((unsigned)fd, op, a, nr % 3);
		break;
	}
	case IORING_REGISTER_RESIZE_RINGS: {
		struct io_uring_params *rp = (struct io_uring_params *)arg;

		if (fd == -1 || !a || nr != 1) {
			rc = io_uring_register((unsigned)fd, op, a, nr);
			CHECK(rc == -EINVAL);
			break;
		}
		/* liburing's wrapper: the ring's pointers follow the new memory */
		rc = io_uring_resize_rings(&ring, rp);
		if (!(bits & 16))
			CHECK(rc == -EINVAL);
		if (!rc)
			CHECK(ring.sq.ring_entries == rp->sq_entries &&
			      ring.cq.ring_entries == rp->cq_entries &&
			      *ring.sq.kring_entries == rp->sq_entries);
		break;
	}
	case IORING_REGISTER_EVENTFD: case IORING_REGISTER_EVENTFD_ASYNC:
		*(int *)arg = fd_of(*(int *)arg, ring.ring_fd);
		rc = io_uring_register((unsigned)fd, op, a, nr % 3);
		break;
	case IORING_REGISTER_IOWQ_AFF:
		rc = io_uring_register((unsigned)fd, op, a, nr);
		break;
	case IORING_REGISTER_RING_FDS: case IORING_UNREGISTER_RING_FDS:
		rc = io_uring_register((unsigned)fd, op, a, nr % (ARG_BYTES / 16));
		break;
	case IORING_REGISTER_SEND_MSG_RING: {
		struct io_uring_sqe *s = (struct io_uring_sqe *)arg;

		s->fd = fd_of(s->fd, ring.ring_fd);
		rc = io_uring_register((unsigned)fd, op, a, nr % 3);
		break;
	}
	case 0xff: {
		/* a raw opcode that reads no pointer the harness did not fix */
		unsigned raw = nr;

		switch (raw & ~(unsigned)IORING_REGISTER_USE_REGISTERED_RING) {
		case IORING_REGISTER_BUFFERS: case IORING_REGISTER_FILES:
		case IORING_REGISTER_PROBE: case IORING_REGISTER_ZCRX_IFQ:
		case IORING_REGISTER_QUERY: case IORING_REGISTER_PBUF_RING:
		case IORING_UNREGISTER_PBUF_RING: case IORING_REGISTER_PBUF_STATUS:
		case IORING_REGISTER_SYNC_CANCEL: case IORING_REGISTER_EVENTFD:
		case IORING_REGISTER_EVENTFD_ASYNC: case IORING_REGISTER_RING_FDS:
		case IORING_UNREGISTER_RING_FDS: case IORING_REGISTER_SEND_MSG_RING:
		case IORING_REGISTER_IOWQ_AFF: case IORING_REGISTER_IOWQ_MAX_WORKERS:
		case IORING_REGISTER_ZCRX_CTRL: case IORING_REGISTER_FILES_UPDATE:
		case IORING_REGISTER_BUFFERS_UPDATE: case IORING_REGISTER_FILES2:
		case IORING_REGISTER_FILES_UPDATE2:
		case IORING_REGISTER_BUFFERS2: case IORING_REGISTER_CLOCK:
		case IORING_REGISTER_MEM_REGION:
			rc = 0;
			break;
		default:
			rc = io_uring_register((unsigned)fd, raw, (bits & 2) ? NULL : arg, 0);
			break;
		}
		break;
	}
	default:	/* IOWQ_MAX_WORKERS, ZCRX_CTRL, ENABLE_RINGS */
		rc = io_uring_register((unsigned)fd, op, a, nr % 4);
		break;
	}
	CHECK(errno_ok(rc));

	/* the ring still works (an R_DISABLED one that stayed so: -EBADFD) */
	{
		struct io_uring_sqe *s = io_uring_get_sqe(&ring);
		struct io_uring_cqe *cqe;

		CHECK(s);
		io_uring_prep_nop(s);
		s->user_data = 0x5a;
		rc = io_uring_submit(&ring);
		if (rc != -EBADFD) {
			CHECK(rc == 1);
			CHECK(io_uring_peek_cqe(&ring, &cqe) == 0 && cqe->user_data == 0x5a &&
			      cqe->res == 0);
			io_uring_cqe_seen(&ring, cqe);
		}
	}
	io_uring_queue_exit(&ring);
	return 0;
}
