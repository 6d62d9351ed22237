/* SPDX-License-Identifier: MIT */
/*
 * liburing's registration wrappers that pack an argument struct and call
 * io_uring_register(), as liburing's src/register.c does, so the engine's
 * dispatch (core/uring/register.c) gives every answer: what zcnic
 * implements, or the kernel's code for what it does not.
 */
#include <errno.h>
#include <string.h>

#define ZN_COMPAT_NO_MMAP
#include "compat/liburing.h"

static int reg(struct io_uring *ring, unsigned opcode, const void *arg, unsigned nr)
{
	return io_uring_register((unsigned)ring->ring_fd, opcode, arg, nr);
}

static int rsrc_register(struct io_uring *ring, unsigned opcode, const void *data,
			 const __u64 *tags, unsigned nr, unsigned flags)
{
	struct io_uring_rsrc_register rr;

	memset(&rr, 0, sizeof(rr));
	rr.nr = nr;
	rr.flags = flags;
	rr.data = uring_ptr_to_u64(data);
	rr.tags = uring_ptr_to_u64(tags);
	return reg(ring, opcode, &rr, sizeof(rr));
}

static int rsrc_update(struct io_uring *ring, unsigned opcode, unsigned off, const void *data,
		       const __u64 *tags, unsigned nr)
{
	struct io_uring_rsrc_update2 up;

	memset(&up, 0, sizeof(up));
	up.offset = off;
	up.data = uring_ptr_to_u64(data);
	up.tags = uring_ptr_to_u64(tags);
	up.nr = nr;
	return reg(ring, opcode, &up, sizeof(up));
}

int io_uring_register_files_update(struct io_uring *ring, unsigned off, const int *files,
				   unsigned nr_files)
{
	struct io_uring_files_update up = { .offset = off, .fds = uring_ptr_to_u64(files) };

	return reg(ring, IORING_REGISTER_FILES_UPDATE, &up, nr_files);
}

int io_uring_register_files_sparse(struct io_uring *ring, unsigned nr)
{
	return rsrc_register(ring, IORING_REGISTER_FILES2, NULL, NULL, nr,
			     IORING_RSRC_REGISTER_SPARSE);
}

int io_uring_register_files_tags(struct io_uring *ring, const int *files, const __u64 *tags,
				 unsigned nr)
{
	return rsrc_register(ring, IORING_REGISTER_FILES2, files, tags, nr, 0);
}

int io_uring_register_files_update_tag(struct io_uring *ring, unsigned off, const int *files,
				       const __u64 *tags, unsigned nr_files)
{
	return rsrc_update(ring, IORING_REGISTER_FILES_UPDATE2, off, files, tags, nr_files);
}

int io_uring_register_buffers_sparse(struct io_uring *ring, unsigned nr)
{
	return rsrc_register(ring, IORING_REGISTER_BUFFERS2, NULL, NULL, nr,
			     IORING_RSRC_REGISTER_SPARSE);
}

int io_uring_register_buffers_tags(struct io_uring *ring, const struct iovec *iovecs,
				   const __u64 *tags, unsigned nr)
{
	return rsrc_register(ring, IORING_REGISTER_BUFFERS2, iovecs, tags, nr, 0);
}

int io_uring_register_buffers_update_tag(struct io_uring *ring, unsigned off,
					 const struct iovec *iovecs, const __u64 *tags,
					 unsigned nr)
{
	return rsrc_update(ring, IORING_REGISTER_BUFFERS_UPDATE, off, iovecs, tags, nr);
}

int io_uring_register_file_alloc_range(struct io_uring *ring, unsigned off, unsigned len)
{
	struct io_uring_file_index_range range = { .off = off, .len = len };

	return reg(ring, IORING_REGISTER_FILE_ALLOC_RANGE, &range, 0);
}

int io_uring_register_personality(struct io_uring *ring)
{
	return reg(ring, IORING_REGISTER_PERSONALITY, NULL, 0);
}

int io_uring_unregister_personality(struct io_uring *ring, int id)
{
	return reg(ring, IORING_UNREGISTER_PERSONALITY, NULL, (unsigned)id);
}

int io_uring_register_restrictions(struct io_uring *ring, struct io_uring_restriction *res,
				   unsigned int nr_res)
{
	return reg(ring, IORING_REGISTER_RESTRICTIONS, res, nr_res);
}

int io_uring_register_clock(struct io_uring *ring, struct io_uring_clock_register *arg)
{
	return reg(ring, IORING_REGISTER_CLOCK, arg, 0);
}

int io_uring_register_napi(struct io_uring *ring, struct io_uring_napi *napi)
{
	return reg(ring, IORING_REGISTER_NAPI, napi, 1);
}

int io_uring_unregister_napi(struct io_uring *ring, struct io_uring_napi *napi)
{
	return reg(ring, IORING_UNREGISTER_NAPI, napi, 1);
}

int io_uring_register_region(struct io_uring *ring, struct io_uring_mem_region_reg *r)
{
	return reg(ring, IORING_REGISTER_MEM_REGION, r, 1);
}

/* liburing's stub of an older interface: wait regions are registered with
 * io_uring_register_region (IORING_MEM_REGION_REG_WAIT_ARG). */
int io_uring_register_wait_reg(struct io_uring *ring, struct io_uring_reg_wait *reg, int nr)
{
	(void)ring, (void)reg, (void)nr;
	return -EINVAL;
}

/*
 * As liburing's: the ring takes the new sizes, then the struct io_uring is
 * pointed at the new memory (the old is freed by the resize), keeping the
 * SQEs prepared but not yet submitted; p->flags is cleared for the next use.
 */
int io_uring_resize_rings(struct io_uring *ring, struct io_uring_params *p)
{
	struct io_uring_sq sq;
	struct io_uring_cq cq;
	unsigned sqe_head, sqe_tail;
	int ret;

	if (ring->flags & IORING_SETUP_NO_MMAP)
		return -EINVAL;
	memset(&p->sq_off, 0, sizeof(p->sq_off));
	memset(&p->cq_off, 0, sizeof(p->cq_off));
	ret = reg(ring, IORING_REGISTER_RESIZE_RINGS, p, 1);
	if (ret < 0)
		goto out;
	memset(&sq, 0, sizeof(sq));
	memset(&cq, 0, sizeof(cq));
	ret = io_uring_mmap(ring->ring_fd, p, &sq, &cq);
	if (ret)
		goto out;
	sqe_head = ring->sq.sqe_head;
	sqe_tail = ring->sq.sqe_tail;
	io_uring_unmap_rings(&ring->sq, &ring->cq);
	ring->sq = sq;
	ring->cq = cq;
	ring->sq.sqe_head = sqe_head;
	ring->sq.sqe_tail = sqe_tail;
	if (!(p->flags & IORING_SETUP_NO_SQARRAY))
		for (unsigned i = 0; i < p->sq_entries; i++)
			ring->sq.array[i] = i;
out:
	p->flags = 0;
	return ret;
}

int io_uring_register_bpf_filter(struct io_uring *ring, struct io_uring_bpf *bpf)
{
	return reg(ring, IORING_REGISTER_BPF_FILTER, bpf, 1);
}

int io_uring_register_bpf_filter_task(struct io_uring_bpf *bpf)
{
	return io_uring_register((unsigned)-1, IORING_REGISTER_BPF_FILTER, bpf, 1);
}

int __io_uring_clone_buffers_offset(struct io_uring *dst, struct io_uring *src,
				    unsigned int dst_off, unsigned int src_off, unsigned int nr,
				    unsigned int flags)
{
	struct io_uring_clone_buffers buf = {
		.src_fd = (__u32)src->ring_fd, .flags = flags,
		.src_off = src_off, .dst_off = dst_off, .nr = nr,
	};

	return reg(dst, IORING_REGISTER_CLONE_BUFFERS, &buf, 1);
}

int io_uring_clone_buffers_offset(struct io_uring *dst, struct io_uring *src,
				  unsigned int dst_off, unsigned int src_off, unsigned int nr,
				  unsigned int flags)
{
	return __io_uring_clone_buffers_offset(dst, src, dst_off, src_off, nr, flags);
}

int __io_uring_clone_buffers(struct io_uring *dst, struct io_uring *src, unsigned int flags)
{
	return __io_uring_clone_buffers_offset(dst, src, 0, 0, 0, flags);
}

int io_uring_clone_buffers(struct io_uring *dst, struct io_uring *src)
{
	return __io_uring_clone_buffers(dst, src, 0);
}
