/*
 * Owner assertion: an object of the data path (a port queue, a netif, a zcrx
 * ifq, a socket) is entered by one thread only, without locks. The first
 * thread to enter it becomes its owner; any other thread entering it is a
 * bug, caught where it happens rather than as a corrupted ring later. The
 * kernel's lockdep_assert_held plays the same role for objects under a lock.
 *
 * Compiled in when ZN_DEBUG_OWNER is defined (the Makefile's default;
 * `make OWNER=0` leaves it out): one load of the thread pointer and one
 * compare per entry, a branch that always goes the same way. Measured on
 * bnxt's RX + TX path (tests/integration/bnxt_port.sh, callgrind, burst 32):
 * 229.9 instructions per packet without, 232.4 with.
 *
 * Where to call it:
 *   zn_owner_enter(&o, "what")  at each entry point of the data path
 *   zn_owner_reset(&o)          where ownership may move on: a port queue
 *                               belongs to the control thread while its
 *                               port is stopped, so start and stop reset it
 * A socket's entry points (send, recv, their ops and the poll hook that
 * drives it) call zn_owner_enter on an owner in the socket.
 */
#ifndef ZN_CORE_DEBUG_OWNER_H
#define ZN_CORE_DEBUG_OWNER_H

#include <stdbool.h>
#include <stdint.h>

struct zn_owner {
	uintptr_t thread;	/* the owner's thread pointer; 0: none yet */
};

/* Reports a second thread entering what (default: one log line and
 * abort()); tests replace it to count violations. */
extern void (*zn_owner_violation)(const char *what, const char *file, int line);

#ifdef ZN_DEBUG_OWNER
static inline void zn_owner_check(struct zn_owner *o, const char *what, const char *file,
				  int line)
{
	uintptr_t self = (uintptr_t)__builtin_thread_pointer(), cur = 0;

	if (__builtin_expect(__atomic_load_n(&o->thread, __ATOMIC_RELAXED) == self, 1))
		return;
	/* First entry claims; a race between two first entries is caught too. */
	if (!__atomic_compare_exchange_n(&o->thread, &cur, self, false, __ATOMIC_RELAXED,
					 __ATOMIC_RELAXED))
		zn_owner_violation(what, file, line);
}
#define zn_owner_enter(o, what)	zn_owner_check((o), (what), __FILE__, __LINE__)
#define zn_owner_reset(o)	__atomic_store_n(&(o)->thread, 0, __ATOMIC_RELAXED)
#else
#define zn_owner_enter(o, what)	((void)(o), (void)(what))
#define zn_owner_reset(o)	((void)(o))
#endif

#endif
