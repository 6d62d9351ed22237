/* SPDX-License-Identifier: MIT */
/*
 * liburing's prep helpers for the opcodes zcnic does not implement (files,
 * directories, xattrs, splice, futexes, waitid, epoll, uring_cmd) and the
 * "direct" variants that install into the registered-file table. They
 * only fill the SQE, with the fields the Linux uAPI gives each opcode
 * (include/uapi/linux/io_uring.h), so programs that use them build; the
 * requests complete with -EOPNOTSUPP, as on a kernel built without those
 * opcodes. Included by <liburing.h> only.
 */
#ifndef ZN_COMPAT_LIBURING_PREP_FILES_H
#define ZN_COMPAT_LIBURING_PREP_FILES_H

/* Block-device commands (Linux include/uapi/linux/fs.h), for kernels whose
 * headers predate them. */
#ifndef BLOCK_URING_CMD_DISCARD
#define BLOCK_URING_CMD_DISCARD		_IO(0x12, 0)
#endif
#ifndef BLOCK_URING_CMD_ZONE_RESET_ALL
#define BLOCK_URING_CMD_ZONE_RESET_ALL	_IO(0x12, 1)
#endif

struct statx;
struct epoll_event;
struct futex_waitv;

/* A direct descriptor slot travels as index + 1 (0 means "none"). */
IOURINGINLINE void __io_uring_set_target_fixed_file(struct io_uring_sqe *sqe,
						    unsigned int file_index)
{
	sqe->file_index = file_index + 1;
}

/* IORING_FILE_INDEX_ALLOC asks for any free slot; it is stored as ~0U. */
IOURINGINLINE void zn__direct_slot(struct io_uring_sqe *sqe, unsigned int file_index)
{
	if (file_index == IORING_FILE_INDEX_ALLOC)
		file_index--;
	__io_uring_set_target_fixed_file(sqe, file_index);
}

IOURINGINLINE void io_uring_prep_openat(struct io_uring_sqe *sqe, int dfd, const char *path,
					int flags, mode_t mode)
{
	io_uring_prep_rw(IORING_OP_OPENAT, sqe, dfd, path, mode, 0);
	sqe->open_flags = (__u32)flags;
}

IOURINGINLINE void io_uring_prep_openat_direct(struct io_uring_sqe *sqe, int dfd,
					       const char *path, int flags, mode_t mode,
					       unsigned file_index)
{
	io_uring_prep_openat(sqe, dfd, path, flags, mode);
	zn__direct_slot(sqe, file_index);
}

IOURINGINLINE void io_uring_prep_open(struct io_uring_sqe *sqe, const char *path, int flags,
				      mode_t mode)
{
	io_uring_prep_openat(sqe, AT_FDCWD, path, flags, mode);
}

IOURINGINLINE void io_uring_prep_open_direct(struct io_uring_sqe *sqe, const char *path,
					     int flags, mode_t mode, unsigned file_index)
{
	io_uring_prep_openat_direct(sqe, AT_FDCWD, path, flags, mode, file_index);
}

IOURINGINLINE void io_uring_prep_openat2(struct io_uring_sqe *sqe, int dfd, const char *path,
					 const struct open_how *how)
{
	io_uring_prep_rw(IORING_OP_OPENAT2, sqe, dfd, path, sizeof(*how), uring_ptr_to_u64(how));
}

IOURINGINLINE void io_uring_prep_openat2_direct(struct io_uring_sqe *sqe, int dfd,
						const char *path, const struct open_how *how,
						unsigned file_index)
{
	io_uring_prep_openat2(sqe, dfd, path, how);
	zn__direct_slot(sqe, file_index);
}

IOURINGINLINE void io_uring_prep_statx(struct io_uring_sqe *sqe, int dfd, const char *path,
				       int flags, unsigned mask, struct statx *statxbuf)
{
	io_uring_prep_rw(IORING_OP_STATX, sqe, dfd, path, mask, uring_ptr_to_u64(statxbuf));
	sqe->statx_flags = (__u32)flags;
}

IOURINGINLINE void io_uring_prep_fadvise(struct io_uring_sqe *sqe, int fd, __u64 offset,
					 __u32 len, int advice)
{
	io_uring_prep_rw(IORING_OP_FADVISE, sqe, fd, NULL, len, offset);
	sqe->fadvise_advice = (__u32)advice;
}

IOURINGINLINE void io_uring_prep_fadvise64(struct io_uring_sqe *sqe, int fd, __u64 offset,
					   off_t len, int advice)
{
	io_uring_prep_rw(IORING_OP_FADVISE, sqe, fd, NULL, 0, offset);
	sqe->addr = (__u64)len;
	sqe->fadvise_advice = (__u32)advice;
}

IOURINGINLINE void io_uring_prep_madvise(struct io_uring_sqe *sqe, void *addr, __u32 length,
					 int advice)
{
	io_uring_prep_rw(IORING_OP_MADVISE, sqe, -1, addr, length, 0);
	sqe->fadvise_advice = (__u32)advice;
}

IOURINGINLINE void io_uring_prep_madvise64(struct io_uring_sqe *sqe, void *addr,
					   off_t length, int advice)
{
	io_uring_prep_rw(IORING_OP_MADVISE, sqe, -1, addr, 0, (__u64)length);
	sqe->fadvise_advice = (__u32)advice;
}

IOURINGINLINE void io_uring_prep_unlinkat(struct io_uring_sqe *sqe, int dfd, const char *path,
					  int flags)
{
	io_uring_prep_rw(IORING_OP_UNLINKAT, sqe, dfd, path, 0, 0);
	sqe->unlink_flags = (__u32)flags;
}

IOURINGINLINE void io_uring_prep_unlink(struct io_uring_sqe *sqe, const char *path, int flags)
{
	io_uring_prep_unlinkat(sqe, AT_FDCWD, path, flags);
}

IOURINGINLINE void io_uring_prep_renameat(struct io_uring_sqe *sqe, int olddfd,
					  const char *oldpath, int newdfd, const char *newpath,
					  unsigned int flags)
{
	io_uring_prep_rw(IORING_OP_RENAMEAT, sqe, olddfd, oldpath, (__u32)newdfd,
			 uring_ptr_to_u64(newpath));
	sqe->rename_flags = flags;
}

IOURINGINLINE void io_uring_prep_rename(struct io_uring_sqe *sqe, const char *oldpath,
					const char *newpath)
{
	io_uring_prep_renameat(sqe, AT_FDCWD, oldpath, AT_FDCWD, newpath, 0);
}

IOURINGINLINE void io_uring_prep_sync_file_range(struct io_uring_sqe *sqe, int fd,
						 unsigned len, __u64 offset, int flags)
{
	io_uring_prep_rw(IORING_OP_SYNC_FILE_RANGE, sqe, fd, NULL, len, offset);
	sqe->sync_range_flags = (__u32)flags;
}

IOURINGINLINE void io_uring_prep_mkdirat(struct io_uring_sqe *sqe, int dfd, const char *path,
					 mode_t mode)
{
	io_uring_prep_rw(IORING_OP_MKDIRAT, sqe, dfd, path, mode, 0);
}

IOURINGINLINE void io_uring_prep_mkdir(struct io_uring_sqe *sqe, const char *path, mode_t mode)
{
	io_uring_prep_mkdirat(sqe, AT_FDCWD, path, mode);
}

IOURINGINLINE void io_uring_prep_symlinkat(struct io_uring_sqe *sqe, const char *target,
					   int newdirfd, const char *linkpath)
{
	io_uring_prep_rw(IORING_OP_SYMLINKAT, sqe, newdirfd, target, 0,
			 uring_ptr_to_u64(linkpath));
}

IOURINGINLINE void io_uring_prep_symlink(struct io_uring_sqe *sqe, const char *target,
					 const char *linkpath)
{
	io_uring_prep_symlinkat(sqe, target, AT_FDCWD, linkpath);
}

IOURINGINLINE void io_uring_prep_linkat(struct io_uring_sqe *sqe, int olddfd,
					const char *oldpath, int newdfd, const char *newpath,
					int flags)
{
	io_uring_prep_rw(IORING_OP_LINKAT, sqe, olddfd, oldpath, (__u32)newdfd,
			 uring_ptr_to_u64(newpath));
	sqe->hardlink_flags = (__u32)flags;
}

IOURINGINLINE void io_uring_prep_link(struct io_uring_sqe *sqe, const char *oldpath,
				      const char *newpath, int flags)
{
	io_uring_prep_linkat(sqe, AT_FDCWD, oldpath, AT_FDCWD, newpath, flags);
}

IOURINGINLINE void io_uring_prep_splice(struct io_uring_sqe *sqe, int fd_in, int64_t off_in,
					int fd_out, int64_t off_out, unsigned int nbytes,
					unsigned int splice_flags)
{
	io_uring_prep_rw(IORING_OP_SPLICE, sqe, fd_out, NULL, nbytes, (__u64)off_out);
	sqe->splice_off_in = (__u64)off_in;
	sqe->splice_fd_in = fd_in;
	sqe->splice_flags = splice_flags;
}

IOURINGINLINE void io_uring_prep_tee(struct io_uring_sqe *sqe, int fd_in, int fd_out,
				     unsigned int nbytes, unsigned int splice_flags)
{
	io_uring_prep_rw(IORING_OP_TEE, sqe, fd_out, NULL, nbytes, 0);
	sqe->splice_off_in = 0;
	sqe->splice_fd_in = fd_in;
	sqe->splice_flags = splice_flags;
}

IOURINGINLINE void io_uring_prep_fallocate(struct io_uring_sqe *sqe, int fd, int mode,
					   __u64 offset, __u64 len)
{
	io_uring_prep_rw(IORING_OP_FALLOCATE, sqe, fd, NULL, (unsigned int)mode, offset);
	sqe->addr = len;
}

IOURINGINLINE void io_uring_prep_ftruncate(struct io_uring_sqe *sqe, int fd, loff_t len)
{
	io_uring_prep_rw(IORING_OP_FTRUNCATE, sqe, fd, NULL, 0, (__u64)len);
}

IOURINGINLINE void io_uring_prep_readv2(struct io_uring_sqe *sqe, int fd,
					const struct iovec *iovecs, unsigned nr_vecs,
					__u64 offset, int flags)
{
	io_uring_prep_rw(IORING_OP_READV, sqe, fd, iovecs, nr_vecs, offset);
	sqe->rw_flags = flags;
}

IOURINGINLINE void io_uring_prep_writev2(struct io_uring_sqe *sqe, int fd,
					 const struct iovec *iovecs, unsigned nr_vecs,
					 __u64 offset, int flags)
{
	io_uring_prep_rw(IORING_OP_WRITEV, sqe, fd, iovecs, nr_vecs, offset);
	sqe->rw_flags = flags;
}

IOURINGINLINE void io_uring_prep_readv_fixed(struct io_uring_sqe *sqe, int fd,
					     const struct iovec *iovecs, unsigned nr_vecs,
					     __u64 offset, int flags, int buf_index)
{
	io_uring_prep_readv2(sqe, fd, iovecs, nr_vecs, offset, flags);
	sqe->opcode = IORING_OP_READV_FIXED;
	sqe->buf_index = (__u16)buf_index;
}

IOURINGINLINE void io_uring_prep_writev_fixed(struct io_uring_sqe *sqe, int fd,
					      const struct iovec *iovecs, unsigned nr_vecs,
					      __u64 offset, int flags, int buf_index)
{
	io_uring_prep_writev2(sqe, fd, iovecs, nr_vecs, offset, flags);
	sqe->opcode = IORING_OP_WRITEV_FIXED;
	sqe->buf_index = (__u16)buf_index;
}

IOURINGINLINE void io_uring_prep_read_multishot(struct io_uring_sqe *sqe, int fd,
						unsigned nbytes, __u64 offset, int buf_group)
{
	io_uring_prep_rw(IORING_OP_READ_MULTISHOT, sqe, fd, NULL, nbytes, offset);
	sqe->buf_group = (__u16)buf_group;
	sqe->flags = IOSQE_BUFFER_SELECT;
}

IOURINGINLINE void io_uring_prep_waitid(struct io_uring_sqe *sqe, idtype_t idtype, id_t id,
					siginfo_t *infop, int options, unsigned int flags)
{
	io_uring_prep_rw(IORING_OP_WAITID, sqe, (int)id, NULL, (unsigned)idtype, 0);
	sqe->waitid_flags = flags;
	sqe->file_index = (__u32)options;
	sqe->addr2 = uring_ptr_to_u64(infop);
}

IOURINGINLINE void io_uring_prep_futex_wake(struct io_uring_sqe *sqe, const uint32_t *futex,
					    uint64_t val, uint64_t mask, uint32_t futex_flags,
					    unsigned int flags)
{
	io_uring_prep_rw(IORING_OP_FUTEX_WAKE, sqe, (int)futex_flags, futex, 0, val);
	sqe->futex_flags = flags;
	sqe->addr3 = mask;
}

IOURINGINLINE void io_uring_prep_futex_wait(struct io_uring_sqe *sqe, const uint32_t *futex,
					    uint64_t val, uint64_t mask, uint32_t futex_flags,
					    unsigned int flags)
{
	io_uring_prep_rw(IORING_OP_FUTEX_WAIT, sqe, (int)futex_flags, futex, 0, val);
	sqe->futex_flags = flags;
	sqe->addr3 = mask;
}

IOURINGINLINE void io_uring_prep_futex_waitv(struct io_uring_sqe *sqe,
					     const struct futex_waitv *futex, uint32_t nr_futex,
					     unsigned int flags)
{
	io_uring_prep_rw(IORING_OP_FUTEX_WAITV, sqe, 0, futex, nr_futex, 0);
	sqe->futex_flags = flags;
}

IOURINGINLINE void io_uring_prep_fixed_fd_install(struct io_uring_sqe *sqe, int fd,
						  unsigned int flags)
{
	io_uring_prep_rw(IORING_OP_FIXED_FD_INSTALL, sqe, fd, NULL, 0, 0);
	sqe->flags = IOSQE_FIXED_FILE;
	sqe->install_fd_flags = flags;
}

IOURINGINLINE void io_uring_prep_getxattr(struct io_uring_sqe *sqe, const char *name,
					  char *value, const char *path, unsigned int len)
{
	io_uring_prep_rw(IORING_OP_GETXATTR, sqe, 0, name, len, uring_ptr_to_u64(value));
	sqe->addr3 = uring_ptr_to_u64(path);
	sqe->xattr_flags = 0;
}

IOURINGINLINE void io_uring_prep_setxattr(struct io_uring_sqe *sqe, const char *name,
					  const char *value, const char *path, int flags,
					  unsigned int len)
{
	io_uring_prep_rw(IORING_OP_SETXATTR, sqe, 0, name, len, uring_ptr_to_u64(value));
	sqe->addr3 = uring_ptr_to_u64(path);
	sqe->xattr_flags = (__u32)flags;
}

IOURINGINLINE void io_uring_prep_fgetxattr(struct io_uring_sqe *sqe, int fd, const char *name,
					   char *value, unsigned int len)
{
	io_uring_prep_rw(IORING_OP_FGETXATTR, sqe, fd, name, len, uring_ptr_to_u64(value));
	sqe->xattr_flags = 0;
}

IOURINGINLINE void io_uring_prep_fsetxattr(struct io_uring_sqe *sqe, int fd, const char *name,
					   const char *value, int flags, unsigned int len)
{
	io_uring_prep_rw(IORING_OP_FSETXATTR, sqe, fd, name, len, uring_ptr_to_u64(value));
	sqe->xattr_flags = (__u32)flags;
}

IOURINGINLINE void io_uring_prep_epoll_ctl(struct io_uring_sqe *sqe, int epfd, int fd, int op,
					   const struct epoll_event *ev)
{
	io_uring_prep_rw(IORING_OP_EPOLL_CTL, sqe, epfd, ev, (__u32)op, (__u32)fd);
}

IOURINGINLINE void io_uring_prep_epoll_wait(struct io_uring_sqe *sqe, int fd,
					    struct epoll_event *events, int maxevents,
					    unsigned flags)
{
	io_uring_prep_rw(IORING_OP_EPOLL_WAIT, sqe, fd, events, (unsigned)maxevents, 0);
	sqe->rw_flags = (int)flags;
}

IOURINGINLINE void io_uring_prep_pipe(struct io_uring_sqe *sqe, int *fds, int pipe_flags)
{
	io_uring_prep_rw(IORING_OP_PIPE, sqe, 0, fds, 0, 0);
	sqe->pipe_flags = (__u32)pipe_flags;
}

IOURINGINLINE void io_uring_prep_pipe_direct(struct io_uring_sqe *sqe, int *fds,
					     int pipe_flags, unsigned int file_index)
{
	io_uring_prep_pipe(sqe, fds, pipe_flags);
	zn__direct_slot(sqe, file_index);
}

IOURINGINLINE void io_uring_prep_accept_direct(struct io_uring_sqe *sqe, int fd,
					       struct sockaddr *addr, socklen_t *addrlen,
					       int flags, unsigned int file_index)
{
	io_uring_prep_accept(sqe, fd, addr, addrlen, flags);
	zn__direct_slot(sqe, file_index);
}

IOURINGINLINE void io_uring_prep_multishot_accept_direct(struct io_uring_sqe *sqe, int fd,
							 struct sockaddr *addr,
							 socklen_t *addrlen, int flags)
{
	io_uring_prep_multishot_accept(sqe, fd, addr, addrlen, flags);
	__io_uring_set_target_fixed_file(sqe, IORING_FILE_INDEX_ALLOC - 1);
}

IOURINGINLINE void io_uring_prep_close_direct(struct io_uring_sqe *sqe, unsigned file_index)
{
	io_uring_prep_close(sqe, 0);
	__io_uring_set_target_fixed_file(sqe, file_index);
}

IOURINGINLINE void io_uring_prep_socket_direct(struct io_uring_sqe *sqe, int domain, int type,
					       int protocol, unsigned file_index,
					       unsigned int flags)
{
	io_uring_prep_rw(IORING_OP_SOCKET, sqe, domain, NULL, (unsigned)protocol, (__u64)type);
	sqe->rw_flags = (int)flags;
	zn__direct_slot(sqe, file_index);
}

IOURINGINLINE void io_uring_prep_socket_direct_alloc(struct io_uring_sqe *sqe, int domain,
						     int type, int protocol, unsigned int flags)
{
	io_uring_prep_socket_direct(sqe, domain, type, protocol, IORING_FILE_INDEX_ALLOC, flags);
}

IOURINGINLINE void io_uring_prep_msg_ring_fd_alloc(struct io_uring_sqe *sqe, int fd,
						   int source_fd, __u64 data, unsigned int flags)
{
	io_uring_prep_msg_ring_fd(sqe, fd, source_fd, (int)IORING_FILE_INDEX_ALLOC, data, flags);
}

IOURINGINLINE void __io_uring_prep_uring_cmd(struct io_uring_sqe *sqe, int op, __u32 cmd_op,
					     int fd)
{
	sqe->opcode = (__u8)op;
	sqe->fd = fd;
	sqe->cmd_op = cmd_op;
	sqe->__pad1 = 0;
	sqe->addr = 0;
	sqe->len = 0;
}

IOURINGINLINE void io_uring_prep_uring_cmd(struct io_uring_sqe *sqe, int cmd_op, int fd)
{
	__io_uring_prep_uring_cmd(sqe, IORING_OP_URING_CMD, (__u32)cmd_op, fd);
}

IOURINGINLINE void io_uring_prep_uring_cmd128(struct io_uring_sqe *sqe, int cmd_op, int fd)
{
	__io_uring_prep_uring_cmd(sqe, IORING_OP_URING_CMD128, (__u32)cmd_op, fd);
}

IOURINGINLINE void io_uring_prep_cmd_sock(struct io_uring_sqe *sqe, int cmd_op, int fd,
					  int level, int optname, void *optval, int optlen)
{
	io_uring_prep_uring_cmd(sqe, cmd_op, fd);
	sqe->optval = uring_ptr_to_u64(optval);
	sqe->optname = (__u32)optname;
	sqe->optlen = (__u32)optlen;
	sqe->level = (__u32)level;
}

IOURINGINLINE void io_uring_prep_cmd_getsockname(struct io_uring_sqe *sqe, int fd,
						 struct sockaddr *sockaddr, socklen_t *sockaddr_len,
						 int peer)
{
	io_uring_prep_uring_cmd(sqe, SOCKET_URING_OP_GETSOCKNAME, fd);
	sqe->addr = uring_ptr_to_u64(sockaddr);
	sqe->addr3 = uring_ptr_to_u64(sockaddr_len);
	sqe->optlen = (__u32)peer;
}

IOURINGINLINE void io_uring_prep_cmd_discard(struct io_uring_sqe *sqe, int fd,
					     uint64_t offset, uint64_t nbytes)
{
	io_uring_prep_uring_cmd(sqe, (int)BLOCK_URING_CMD_DISCARD, fd);
	sqe->addr = offset;
	sqe->addr3 = nbytes;
}

/* zcnic has no block devices: the command completes -EOPNOTSUPP. */
IOURINGINLINE void io_uring_prep_cmd_zone_reset_all(struct io_uring_sqe *sqe, int fd)
{
	io_uring_prep_uring_cmd(sqe, (int)BLOCK_URING_CMD_ZONE_RESET_ALL, fd);
}

IOURINGINLINE void io_uring_prep_send_bundle(struct io_uring_sqe *sqe, int sockfd, size_t len,
					     int flags)
{
	io_uring_prep_send(sqe, sockfd, NULL, len, flags);
	sqe->ioprio |= IORING_RECVSEND_BUNDLE;
}

#endif
