/* SPDX-License-Identifier: MIT */
/*
 * Tests of the ring's ops on OS file descriptors: a ring, a pipe and an
 * unlinked temporary file per test, and the submit-and-expect helpers.
 * Include <cmocka.h> and uring_test.h first.
 */
#ifndef ZN_TEST_OSFD_FIXTURE_H
#define ZN_TEST_OSFD_FIXTURE_H

#include <stdlib.h>
#include <unistd.h>

struct fx {
	struct io_uring ring;
	int p[2];		/* a pipe */
	int file;		/* a temporary regular file, unlinked */
};

static int setup(void **state)
{
	struct fx *f = calloc(1, sizeof(*f));
	char path[] = "/tmp/zn_osfd_XXXXXX";

	if (!f || io_uring_queue_init(16, &f->ring, 0) || pipe(f->p))
		return -1;
	f->file = mkstemp(path);
	if (f->file < 0)
		return -1;
	unlink(path);
	*state = f;
	return 0;
}

static int teardown(void **state)
{
	struct fx *f = *state;

	io_uring_queue_exit(&f->ring);
	close(f->p[0]);
	close(f->p[1]);
	close(f->file);
	free(f);
	return 0;
}

/* Submit what is queued; the next CQE must be {ud, res}; its flags. */
static inline uint32_t run(struct io_uring *ring, uint64_t ud, int res)
{
	assert_true(io_uring_submit(ring) >= 0);
	return urt_expect(ring, ud, res);
}

/* No CQE within a few passes of the ring. */
static inline void none_yet(struct io_uring *ring)
{
	struct io_uring_cqe c;

	assert_int_equal(urt_get_cqe(ring, &c, 20), -ETIME);
}

#endif
