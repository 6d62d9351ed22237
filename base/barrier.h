/*
 * Memory ordering between the CPU and a device (DMA, doorbells), and between
 * CPUs: the one place where each architecture's instruction is chosen.
 * base/ rule: see clock.h (the device models in sim/ use it too: what a model
 * writes into host memory is a device's DMA write).
 *
 *   zn_dma_wmb()   stores to DMA memory (descriptors, a completion's body)
 *                  become visible to the device before any later store the
 *                  device observes: a producer index or valid bit in memory,
 *                  or a doorbell register store (MMIO).
 *   zn_dma_rmb()   after a load that saw a completion's valid bit, before
 *                  the loads of the rest of it.
 *   zn_wc_flush()  write-combined stores (a BlueFlame/push copy through a
 *                  WC mapping) leave the CPU's buffers, in order, before
 *                  anything after.
 *   zn_smp_mb()    full barrier between CPUs (store-load ordering, as in
 *                  "set sleeping, then look at the queue").
 *   zn_cpu_relax() in a spin loop: yield the pipeline to the sibling thread.
 *
 * x86-64 (TSO): stores are not reordered with other stores, loads not with
 * other loads, and a store to UC device memory is not passed by earlier
 * write-back stores; so dma_wmb and dma_rmb need only stop the compiler.
 * Write-combining stores may be reordered and buffered: sfence. A store
 * followed by a load may be reordered: smp_mb is a locked op or mfence.
 *
 * aarch64 (weakly ordered): the device is in the outer-shareable domain.
 * dma_wmb is "dmb oshst" and dma_rmb "dmb oshld" (Linux's dma_wmb/dma_rmb;
 * its writel orders earlier memory stores before the MMIO store with the
 * same dmb oshst). Write-combined (Normal-NC) stores are pushed out with
 * "dsb st" (Linux's wmb; rdma-core's mmio_flush_writes). smp_mb is
 * "dmb ish".
 *
 * Sources: Linux arch/x86/include/asm/barrier.h and
 * arch/arm64/include/asm/{barrier,io}.h, Documentation/memory-barriers.txt;
 * rdma-core util/udma_barrier.h.
 */
#ifndef ZN_BASE_BARRIER_H
#define ZN_BASE_BARRIER_H

#define zn_compiler_barrier()	__asm__ __volatile__("" ::: "memory")

#if defined(__x86_64__)
#define zn_dma_wmb()	zn_compiler_barrier()
#define zn_dma_rmb()	zn_compiler_barrier()
#define zn_wc_flush()	__asm__ __volatile__("sfence" ::: "memory")
#define zn_smp_mb()	__atomic_thread_fence(__ATOMIC_SEQ_CST)
#define zn_cpu_relax()	__builtin_ia32_pause()
#elif defined(__aarch64__)
#define zn_dma_wmb()	__asm__ __volatile__("dmb oshst" ::: "memory")
#define zn_dma_rmb()	__asm__ __volatile__("dmb oshld" ::: "memory")
#define zn_wc_flush()	__asm__ __volatile__("dsb st" ::: "memory")
#define zn_smp_mb()	__asm__ __volatile__("dmb ish" ::: "memory")
#define zn_cpu_relax()	__asm__ __volatile__("yield" ::: "memory")
#else
#error "zcnic supports x86-64 and aarch64: say in base/barrier.h what this architecture needs"
#endif

#endif
