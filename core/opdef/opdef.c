/* SPDX-License-Identifier: MIT */
/*
 * The composition root of the ring engine: every op and register handler
 * that core/uring runs, in one table (core/uring/uring_op.h says why a
 * table). The only file that knows every layer that plugs into the ring;
 * an op is added by exporting its struct from its layer and naming it here.
 */
#include "core/sock/sock_ops.h"
#include "core/uring/uring_op.h"
#include "core/zcrx/zcrx.h"

const struct zn_uring_plugins zn_uring_plugins = {
	.ops = {
		[IORING_OP_NOP] = &zn_nop_op,
		[IORING_OP_NOP128] = &zn_nop128_op,
		[IORING_OP_MSG_RING] = &zn_msg_ring_op,
		[IORING_OP_TIMEOUT] = &zn_timeout_op,
		[IORING_OP_TIMEOUT_REMOVE] = &zn_timeout_remove_op,
		[IORING_OP_LINK_TIMEOUT] = &zn_link_timeout_op,
		[IORING_OP_ASYNC_CANCEL] = &zn_async_cancel_op,
		[IORING_OP_PROVIDE_BUFFERS] = &zn_provide_buffers_op,
		[IORING_OP_REMOVE_BUFFERS] = &zn_remove_buffers_op,
		[IORING_OP_POLL_ADD] = &zn_poll_add_op,
		[IORING_OP_POLL_REMOVE] = &zn_poll_remove_op,
		[IORING_OP_FILES_UPDATE] = &zn_files_update_op,
		[IORING_OP_SEND] = &zn_send_op,
		[IORING_OP_RECV] = &zn_recv_op,
		[IORING_OP_SEND_ZC] = &zn_send_zc_op,
		[IORING_OP_SENDMSG_ZC] = &zn_sendmsg_zc_op,
		[IORING_OP_RECV_ZC] = &zn_recv_zc_op,
		[IORING_OP_SENDMSG] = &zn_sendmsg_op,
		[IORING_OP_RECVMSG] = &zn_recvmsg_op,
		[IORING_OP_SOCKET] = &zn_socket_op,
		[IORING_OP_BIND] = &zn_bind_op,
		[IORING_OP_LISTEN] = &zn_listen_op,
		[IORING_OP_CONNECT] = &zn_connect_op,
		[IORING_OP_ACCEPT] = &zn_accept_op,
		[IORING_OP_SHUTDOWN] = &zn_shutdown_op,
		[IORING_OP_CLOSE] = &zn_osfd_close_op,
		[IORING_OP_READ] = &zn_osfd_read_op,
		[IORING_OP_WRITE] = &zn_osfd_write_op,
		[IORING_OP_READV] = &zn_osfd_readv_op,
		[IORING_OP_WRITEV] = &zn_osfd_writev_op,
		[IORING_OP_READ_FIXED] = &zn_osfd_read_fixed_op,
		[IORING_OP_WRITE_FIXED] = &zn_osfd_write_fixed_op,
		[IORING_OP_READ_MULTISHOT] = &zn_osfd_read_mshot_op,
		[IORING_OP_FSYNC] = &zn_osfd_fsync_op,
		[IORING_OP_SYNC_FILE_RANGE] = &zn_osfd_sync_range_op,
		[IORING_OP_FALLOCATE] = &zn_osfd_fallocate_op,
		[IORING_OP_FADVISE] = &zn_osfd_fadvise_op,
		[IORING_OP_MADVISE] = &zn_osfd_madvise_op,
		[IORING_OP_FTRUNCATE] = &zn_osfd_ftruncate_op,
		[IORING_OP_SPLICE] = &zn_osfd_splice_op,
		[IORING_OP_TEE] = &zn_osfd_tee_op,
		[IORING_OP_PIPE] = &zn_osfd_pipe_op,
	},
	.close_handle = &zn_close_op,
	.register_ifq = zn_zcrx_register,
	.zcrx_ctrl = zn_zcrx_ctrl,
	.bufs_unregistering = zn_sock_bufs_unregistering,
	.poll_ready = zn_sock_poll_ready,
	.region_fd = zn_zcrx_region_fd,
};
