/*
 * IORING_REGISTER_PERSONALITY / IORING_UNREGISTER_PERSONALITY and
 * sqe->personality, as Linux io_uring/register.c and io_init_req: ids from
 * 1, allocated cyclically up to 65535, -EBUSY when none is free; an
 * unknown id -EINVAL at unregister and in an SQE.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <cmocka.h>

#include "tests/unit/uring_test.h"

static int setup(void **state)
{
	return urt_ring_setup(state, 0);
}

static int teardown(void **state)
{
	return urt_ring_teardown(state);
}

static int nop_pers(struct io_uring *ring, unsigned pers, unsigned flags)
{
	struct io_uring_sqe *sqe = urt_sqe(ring, 0x31);
	struct io_uring_cqe c;

	io_uring_prep_nop(sqe);
	sqe->personality = (__u16)pers;
	sqe->flags = (__u8)flags;
	assert_int_equal(io_uring_submit(ring), 1);
	assert_int_equal(urt_get_cqe(ring, &c, URT_WAIT_MS), 0);
	assert_int_equal(c.user_data, 0x31);
	return c.res;
}

/* NOP -> NOP with personality pers, linked: their results. */
static void linked_pair(struct io_uring *ring, unsigned pers, int res1, int res2)
{
	struct io_uring_sqe *sqe = urt_sqe(ring, 1);

	io_uring_prep_nop(sqe);
	sqe->flags = IOSQE_IO_LINK;
	sqe = urt_sqe(ring, 2);
	io_uring_prep_nop(sqe);
	sqe->personality = (__u16)pers;
	assert_int_equal(io_uring_submit(ring), 2);
	urt_expect(ring, 1, res1);
	urt_expect(ring, 2, res2);
}

static void test_ids(void **state)
{
	struct io_uring *ring = *state;
	struct io_uring other;

	assert_int_equal(io_uring_register_personality(ring), 1);
	assert_int_equal(io_uring_register_personality(ring), 2);
	assert_int_equal(io_uring_register_personality(ring), 3);
	assert_int_equal(io_uring_unregister_personality(ring, 2), 0);
	assert_int_equal(io_uring_unregister_personality(ring, 2), -EINVAL);
	/* cyclic: the next id, not the freed one */
	assert_int_equal(io_uring_register_personality(ring), 4);
	assert_int_equal(io_uring_unregister_personality(ring, 0), -EINVAL);
	assert_int_equal(io_uring_unregister_personality(ring, 70000), -EINVAL);
	assert_int_equal(io_uring_unregister_personality(ring, -1), -EINVAL);
	/* argument rules of the dispatch */
	assert_int_equal(io_uring_register(ring->ring_fd, IORING_REGISTER_PERSONALITY, NULL, 1),
			 -EINVAL);
	assert_int_equal(io_uring_register(ring->ring_fd, IORING_REGISTER_PERSONALITY, ring, 0),
			 -EINVAL);
	assert_int_equal(io_uring_register(ring->ring_fd, IORING_UNREGISTER_PERSONALITY, ring, 1),
			 -EINVAL);
	/* ids are per ring */
	assert_int_equal(io_uring_queue_init(2, &other, 0), 0);
	assert_int_equal(io_uring_unregister_personality(&other, 1), -EINVAL);
	assert_int_equal(io_uring_register_personality(&other), 1);
	io_uring_queue_exit(&other);
}

static void test_sqe_personality(void **state)
{
	struct io_uring *ring = *state;
	struct io_uring_sqe *sqe;
	int id;

	assert_int_equal(nop_pers(ring, 1, 0), -EINVAL);	/* none registered */
	id = io_uring_register_personality(ring);
	assert_int_equal(id, 1);
	assert_int_equal(nop_pers(ring, 1, 0), 0);
	assert_int_equal(nop_pers(ring, 2, 0), -EINVAL);
	assert_int_equal(nop_pers(ring, 65535, 0), -EINVAL);
	assert_int_equal(nop_pers(ring, 1, IOSQE_ASYNC), 0);
	/* in a link: a valid one runs, an unknown one fails the chain */
	linked_pair(ring, 1, 0, 0);
	linked_pair(ring, 9, -ECANCELED, -EINVAL);
	/* the op's own rule still applies: MSG_RING refuses any personality */
	sqe = urt_sqe(ring, 5);
	io_uring_prep_msg_ring(sqe, ring->ring_fd, 0, 0, 0);
	sqe->personality = 1;
	assert_int_equal(io_uring_submit(ring), 1);
	urt_expect(ring, 5, -EINVAL);
	assert_int_equal(io_uring_unregister_personality(ring, 1), 0);
	assert_int_equal(nop_pers(ring, 1, 0), -EINVAL);
}

/* Every id once, -EBUSY, then the wrap to the lowest free id. */
static void test_exhaust_and_wrap(void **state)
{
	struct io_uring *ring = *state;

	for (int i = 1; i <= 65535; i++) {
		int id = io_uring_register_personality(ring);

		if (id != i)
			assert_int_equal(id, i);
	}
	assert_int_equal(io_uring_register_personality(ring), -EBUSY);
	assert_int_equal(io_uring_unregister_personality(ring, 700), 0);
	assert_int_equal(io_uring_unregister_personality(ring, 5), 0);
	assert_int_equal(io_uring_register_personality(ring), 5);
	assert_int_equal(io_uring_register_personality(ring), 700);
	assert_int_equal(io_uring_register_personality(ring), -EBUSY);
	assert_int_equal(nop_pers(ring, 65535, 0), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_ids, setup, teardown),
		cmocka_unit_test_setup_teardown(test_sqe_personality, setup, teardown),
		cmocka_unit_test_setup_teardown(test_exhaust_and_wrap, setup, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
