/* SPDX-License-Identifier: MIT */
#ifndef ZN_CORE_MEM_UCOPY_H
#define ZN_CORE_MEM_UCOPY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/*
 * Copies that never fault: memory the application named (buffers,
 * msghdr, iovecs, sockaddrs, register arguments) may be unmapped or
 * unreadable; the kernel reads it for us (process_vm_readv/writev on
 * ourselves) and says -EFAULT, as copy_from_user/copy_to_user do.
 */
int zn_ucopy_from(void *dst, const void *src, size_t len);
int zn_ucopy_to(void *dst, const void *src, size_t len);
/* Is [addr, addr+len) mapped with (write) access in this process? 0 or
 * -EFAULT, as the kernel's pinning of those pages would answer. */
int zn_user_range_ok(uint64_t addr, uint64_t len, bool write);

#endif
