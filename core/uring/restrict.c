/* SPDX-License-Identifier: MIT */
/*
 * core/uring: IORING_REGISTER_RESTRICTIONS, as Linux io_uring/register.c
 * (io_register_restrictions, io_parse_restrictions) and io_uring.c
 * (io_check_restriction):
 *  - only on a ring created R_DISABLED and not yet enabled (-EBADFD), once
 *    (-EBUSY); NULL or more than IORING_RESTRICTION_LAST +
 *    IORING_REGISTER_LAST + IORING_OP_LAST entries -EINVAL, an unreadable
 *    array -EFAULT; an unknown restriction opcode, register op or SQE op
 *    -EINVAL, and then nothing of the call stays registered. The entries'
 *    reserved fields are not looked at (Linux neither). Zero entries is a
 *    valid set: everything is forbidden.
 *  - IORING_REGISTER_ENABLE_RINGS turns the registered set on; from then
 *    on a register op not in it is -EACCES, and an SQE whose op is not in
 *    it, that lacks a required flag or carries a flag neither allowed nor
 *    required fails with -EACCES (after the flag and buffer-select checks,
 *    before personality and prep, as io_init_req).
 */
#include <errno.h>
#include <string.h>

#include "core/mem/ucopy.h"
#include "core/uring/uring_priv.h"

_Static_assert(IORING_REGISTER_LAST <= 64, "register_op is one word");

#define MAX_RESTRICTIONS (IORING_RESTRICTION_LAST + IORING_REGISTER_LAST + IORING_OP_LAST)

static int parse(struct zn_restrictions *rs, const struct io_uring_restriction *res,
		 unsigned nr)
{
	for (unsigned i = 0; i < nr; i++) {
		switch (res[i].opcode) {
		case IORING_RESTRICTION_REGISTER_OP:
			if (res[i].register_op >= IORING_REGISTER_LAST)
				return -EINVAL;
			rs->register_op |= 1ull << res[i].register_op;
			break;
		case IORING_RESTRICTION_SQE_OP:
			if (res[i].sqe_op >= IORING_OP_LAST)
				return -EINVAL;
			rs->sqe_op[res[i].sqe_op / 64] |= 1ull << (res[i].sqe_op % 64);
			break;
		case IORING_RESTRICTION_SQE_FLAGS_ALLOWED:
			rs->sqe_flags_allowed = res[i].sqe_flags;
			break;
		case IORING_RESTRICTION_SQE_FLAGS_REQUIRED:
			rs->sqe_flags_required = res[i].sqe_flags;
			break;
		default:
			return -EINVAL;
		}
	}
	return 0;
}

int zn_uring_register_restrictions(struct zn_uring *r, const void *arg, unsigned nr)
{
	struct io_uring_restriction res[MAX_RESTRICTIONS];
	int rc;

	if (!atomic_load(&r->disabled))
		return -EBADFD;
	if (r->rst.registered)
		return -EBUSY;
	if (!arg || nr > MAX_RESTRICTIONS)
		return -EINVAL;
	/* the whole array first (memdup_user): a fault anywhere is -EFAULT */
	if (zn_ucopy_from(res, arg, nr * sizeof(res[0])))
		return -EFAULT;
	rc = parse(&r->rst, res, nr);
	if (rc)
		memset(&r->rst, 0, sizeof(r->rst));
	else
		r->rst.registered = true;
	return rc;
}

void zn_uring_restrictions_enable(struct zn_uring *r)
{
	if (!r->rst.registered)
		return;
	r->restricted = true;
	/*
	 * Every SQE of a restricted ring goes the generic way, where init_req
	 * checks it: no op answers from the SQ directly any more (submit.c
	 * starts a direct run only for an opcode with an entry here).
	 */
	memset(r->direct, 0, sizeof(r->direct));
}

bool zn_uring_restrict_sqe_ok(const struct zn_uring *r, unsigned opcode, unsigned flags)
{
	const struct zn_restrictions *rs = &r->rst;

	if (opcode >= IORING_OP_LAST || !(rs->sqe_op[opcode / 64] >> (opcode % 64) & 1))
		return false;
	if ((flags & rs->sqe_flags_required) != rs->sqe_flags_required)
		return false;
	return !(flags & ~(unsigned)(rs->sqe_flags_allowed | rs->sqe_flags_required));
}
