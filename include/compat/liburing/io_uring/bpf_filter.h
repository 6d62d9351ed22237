/* SPDX-License-Identifier: MIT */
/*
 * io_uring BPF filters (IORING_REGISTER_BPF_FILTER): the Linux uAPI's
 * layouts and numbers, from Linux include/uapi/linux/io_uring/bpf_filter.h
 * (checked against liburing's copy), so programs that use them build.
 * zcnic refuses the register op as a kernel without it does (-EINVAL).
 * Written for zcnic.
 */
#ifndef LINUX_IO_URING_BPF_FILTER_H
#define LINUX_IO_URING_BPF_FILTER_H

#include <linux/types.h>

/* What a filter sees of a request. */
struct io_uring_bpf_ctx {
	__u64	user_data;
	__u8	opcode;
	__u8	sqe_flags;
	__u8	pdu_size;	/* bytes of the op's data below */
	__u8	pad[5];
	union {
		struct {
			__u32	family;
			__u32	type;
			__u32	protocol;
		} socket;
		struct {
			__u64	flags;
			__u64	mode;
			__u64	resolve;
		} open;
	};
};

enum {
	IO_URING_BPF_FILTER_DENY_REST	= 1,	/* opcodes without a filter are denied */
	IO_URING_BPF_FILTER_SZ_STRICT	= 2,	/* pdu_size must match the kernel's */
};

struct io_uring_bpf_filter {
	__u32	opcode;
	__u32	flags;
	__u32	filter_len;	/* BPF instructions at filter_ptr */
	__u8	pdu_size;
	__u8	resv[3];
	__u64	filter_ptr;
	__u64	resv2[5];
};

enum {
	IO_URING_BPF_CMD_FILTER	= 1,
};

struct io_uring_bpf {
	__u16	cmd_type;	/* IO_URING_BPF_CMD_* */
	__u16	cmd_flags;
	__u32	resv;
	union {
		struct io_uring_bpf_filter	filter;
	};
};

#ifndef __cplusplus
_Static_assert(sizeof(struct io_uring_bpf_ctx) == 40, "io_uring ABI: bpf ctx");
_Static_assert(sizeof(struct io_uring_bpf_filter) == 64, "io_uring ABI: bpf filter");
_Static_assert(sizeof(struct io_uring_bpf) == 72, "io_uring ABI: bpf register arg");
#endif

#endif
