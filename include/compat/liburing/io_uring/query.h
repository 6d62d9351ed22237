/* SPDX-License-Identifier: MIT */
/*
 * The io_uring query interface (IORING_REGISTER_QUERY): the Linux uAPI's
 * layouts and numbers, from Linux include/uapi/linux/io_uring/query.h
 * (checked against liburing's copy). Written for zcnic.
 */
#ifndef LINUX_IO_URING_QUERY_H
#define LINUX_IO_URING_QUERY_H

#include <linux/types.h>

/* One query in a chain (next_entry: the next header's address, or 0). */
struct io_uring_query_hdr {
	__u64 next_entry;
	__u64 query_data;	/* the op's struct */
	__u32 query_op;		/* IO_URING_QUERY_* */
	__u32 size;		/* in: query_data's size; out: bytes written */
	__s32 result;		/* out: 0 or -errno */
	__u32 __resv[3];
};

enum {
	IO_URING_QUERY_OPCODES		= 0,
	IO_URING_QUERY_ZCRX		= 1,
	IO_URING_QUERY_SCQ		= 2,
	IO_URING_QUERY_ZCRX_NOTIF	= 3,

	__IO_URING_QUERY_MAX,
};

struct io_uring_query_opcode {
	__u32	nr_request_opcodes;
	__u32	nr_register_opcodes;
	__u64	feature_flags;
	__u64	ring_setup_flags;
	__u64	enter_flags;
	__u64	sqe_flags;
	__u32	nr_query_opcodes;
	__u32	__pad;
};

struct io_uring_query_zcrx {
	__u64 register_flags;	/* ZCRX_REG_* accepted */
	__u64 area_flags;	/* IORING_ZCRX_AREA_* accepted */
	__u32 nr_ctrl_opcodes;	/* ZCRX_CTRL_* implemented */
	__u32 features;		/* ZCRX_FEATURE_* */
	__u32 rq_hdr_size;	/* refill ring header: where the rqes start */
	__u32 rq_hdr_alignment;
	__u64 __resv2;
};

struct io_uring_query_scq {
	__u64 hdr_size;
	__u64 hdr_alignment;
};

#endif
