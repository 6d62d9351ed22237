/* SPDX-License-Identifier: MIT */
/*
 * core/uring: IORING_REGISTER_PERSONALITY / IORING_UNREGISTER_PERSONALITY
 * and sqe->personality, as Linux io_uring/register.c and io_init_req:
 *  - register: no argument (arg or nr_args set: -EINVAL in register.c);
 *    the caller's credentials get an id, allocated cyclically from 1 to
 *    65535 (xa_alloc_cyclic with XA_FLAGS_ALLOC1 and XA_LIMIT(0,
 *    USHRT_MAX)): the lowest free id from the one after the last given,
 *    wrapping to 1; none free: -EBUSY;
 *  - unregister: arg must be NULL, nr_args is the id; an id not registered
 *    -EINVAL;
 *  - an SQE naming an id that is not registered fails with -EINVAL.
 * Linux runs the request with the registered credentials. zcnic's ops do
 * nothing the credentials of the thread would decide (sockets and rings
 * are the process's own), so the credentials are recorded at registration
 * and a request with a valid id runs as any other (docs/uring.md).
 */
#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <unistd.h>

#include "core/uring/uring_priv.h"

#define PERS_IDS (USHRT_MAX + 1u)

struct zn_pers_cred {
	uid_t euid;
	gid_t egid;
};

struct zn_pers_table {
	uint64_t used[PERS_IDS / 64];	/* bit per id; id 0 is never given */
	uint32_t next;			/* where the cyclic search starts */
	uint32_t ncred;			/* creds[] entries (ids below it) */
	struct zn_pers_cred *creds;
};

static bool pers_used(const struct zn_pers_table *t, uint32_t id)
{
	return t->used[id / 64] >> (id % 64) & 1;
}

static void pers_free(struct zn_uring *r, void *arg)
{
	struct zn_pers_table *t = arg;

	free(t->creds);
	free(t);
	r->pers = NULL;
}

/* The lowest free id in [from, PERS_IDS), or 0. */
static uint32_t pers_find(const struct zn_pers_table *t, uint32_t from)
{
	for (uint32_t id = from; id < PERS_IDS; id++)
		if (!pers_used(t, id))
			return id;
	return 0;
}

int zn_uring_register_personality(struct zn_uring *r)
{
	struct zn_pers_table *t = r->pers;
	uint32_t id;

	if (!t) {
		t = calloc(1, sizeof(*t));
		if (!t)
			return -ENOMEM;
		if (zn_uring_on_exit(r, pers_free, t) < 0) {
			free(t);
			return -ENOMEM;
		}
		r->pers = t;
	}
	id = pers_find(t, t->next > 1 ? t->next : 1);
	if (!id)
		id = pers_find(t, 1);
	if (!id)
		return -EBUSY;
	if (id >= t->ncred) {
		/* grown in steps so that a run of registrations stays cheap */
		uint32_t n = id + 64 < PERS_IDS ? id + 64 : PERS_IDS;
		struct zn_pers_cred *c = realloc(t->creds, n * sizeof(*c));

		if (!c)
			return -ENOMEM;
		t->creds = c;
		t->ncred = n;
	}
	t->creds[id] = (struct zn_pers_cred){ geteuid(), getegid() };
	t->used[id / 64] |= 1ull << (id % 64);
	t->next = id + 1;
	return (int)id;
}

int zn_uring_unregister_personality(struct zn_uring *r, unsigned id)
{
	struct zn_pers_table *t = r->pers;

	if (!t || !id || id >= PERS_IDS || !pers_used(t, id))
		return -EINVAL;
	t->used[id / 64] &= ~(1ull << (id % 64));
	return 0;
}

int zn_uring_personality_check(const struct zn_uring *r, unsigned id)
{
	const struct zn_pers_table *t = r->pers;

	return t && id < PERS_IDS && pers_used(t, id) ? 0 : -EINVAL;
}
