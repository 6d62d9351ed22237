/* SPDX-License-Identifier: MIT */
#ifndef ZN_CORE_MEM_UCOPY_H
#define ZN_CORE_MEM_UCOPY_H

#include <stddef.h>

/*
 * Copies that never fault: memory the application named (buffers,
 * msghdr, iovecs, sockaddrs, register arguments) may be unmapped or
 * unreadable; the kernel reads it for us (process_vm_readv/writev on
 * ourselves) and says -EFAULT, as copy_from_user/copy_to_user do.
 */
int zn_ucopy_from(void *dst, const void *src, size_t len);
int zn_ucopy_to(void *dst, const void *src, size_t len);

#endif
