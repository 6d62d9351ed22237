/* SPDX-License-Identifier: MIT */
/*
 * liburing's memory-ordering helpers, same names and meaning: an acquire
 * load of a ring index before reading the entries it covers, a release
 * store of an index after writing the entries it hands over.
 */
#ifndef LIBURING_BARRIER_H
#define LIBURING_BARRIER_H

#define IO_URING_WRITE_ONCE(var, val)	__atomic_store_n(&(var), (val), __ATOMIC_RELAXED)
#define IO_URING_READ_ONCE(var)		__atomic_load_n(&(var), __ATOMIC_RELAXED)

#define io_uring_smp_store_release(p, v)	__atomic_store_n((p), (v), __ATOMIC_RELEASE)
#define io_uring_smp_load_acquire(p)		__atomic_load_n((p), __ATOMIC_ACQUIRE)

#define io_uring_smp_mb()	__atomic_thread_fence(__ATOMIC_SEQ_CST)

#endif
