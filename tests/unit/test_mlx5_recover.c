/*
 * drivers/mlx5: what decides recovery (hw-docs/mlx5.md §13b), against the
 * fake of mlx5_fake.h. A function reset (the command queue address reads
 * back cleared) and a command that never completed leave a device the
 * driver may reset and bring up again, each noticed without a second log
 * line; a fatal syndrome does not; a refused link query costs one line and
 * not the device; a port given up stays given up; recovery that cannot
 * bring the device back, or that would run again and again, gives up with
 * one line and -ENODEV after resetting the function (nothing may DMA into
 * memory close is about to free).
 */
#include <pthread.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <cmocka.h>

#include "mlx5_fake.h"

/* What the device shows after a function reset: the queue address gone. */
static void flr(struct fake_mlx5 *f)
{
	fake_iseg_set(f, ZN_MLX5_ISEG_CMDQ_ADDR_H, 0);
	fake_iseg_set(f, ZN_MLX5_ISEG_CMDQ_ADDR_L_SZ, 5u << 4 | 6u);
}

/* A reset is noticed by the health read: dead, recoverable, nothing said
 * yet (the recovery's line says it), no command goes out meanwhile. */
static void test_reset_seen(void **state)
{
	struct fake_ctx *c = *state;
	uint8_t in[16] = { 0 }, out[16];
	unsigned db = c->f->doorbells;

	assert_int_equal(zn_mlx5_health_check(c->m), 0);
	assert_false(zn_mlx5_recoverable(c->m));
	flr(c->f);
	assert_int_equal(zn_mlx5_health_check(c->m), -EIO);
	assert_true(c->m->dead);
	assert_true(c->m->reset_seen);
	assert_true(zn_mlx5_recoverable(c->m));
	assert_int_equal(fake_logs.n, 0);
	ZN_MLX5_SET(in, IN_OPCODE, ZN_MLX5_CMD_OP_QUERY_VPORT_STATE);
	assert_int_equal(zn_mlx5_cmd(c->m, in, sizeof(in), out, sizeof(out)), -EIO);
	assert_int_equal(c->f->doorbells, db);
}

static void *flr_later(void *arg)
{
	nanosleep(&(struct timespec){ .tv_nsec = 30 * 1000000L }, NULL);
	flr(arg);
	return NULL;
}

/* The reset lands between the health read and a command (the command then
 * never completes): the wait's own health read ends it within its period,
 * as a reset, with no "abandoned" or timeout line. */
static void test_reset_while_waiting(void **state)
{
	struct fake_ctx *c = *state;
	uint8_t in[16] = { 0 }, out[16];
	struct timespec t0, t1;
	pthread_t th;
	long ms;

	c->m->cmdq.timeout_ms = 10000;
	c->f->mis_silent = true;
	c->f->mis_count = 1;
	ZN_MLX5_SET(in, IN_OPCODE, ZN_MLX5_CMD_OP_QUERY_VPORT_STATE);
	clock_gettime(CLOCK_MONOTONIC, &t0);
	assert_int_equal(pthread_create(&th, NULL, flr_later, c->f), 0);
	assert_int_equal(zn_mlx5_cmd(c->m, in, sizeof(in), out, sizeof(out)), -EIO);
	clock_gettime(CLOCK_MONOTONIC, &t1);
	pthread_join(th, NULL);
	ms = (t1.tv_sec - t0.tv_sec) * 1000 + (t1.tv_nsec - t0.tv_nsec) / 1000000;
	assert_true(ms < 2000);
	assert_true(c->m->reset_seen);
	assert_false(c->m->cmd_timed_out);
	assert_true(zn_mlx5_recoverable(c->m));
	assert_int_equal(fake_logs.n, 0);
}

/* A timeout: one line, and a reset may bring the device back. */
static void test_timeout_recoverable(void **state)
{
	struct fake_ctx *c = *state;
	uint8_t in[16] = { 0 }, out[16];

	c->m->cmdq.timeout_ms = 50;
	c->f->mis_silent = true;
	c->f->mis_count = 1;
	ZN_MLX5_SET(in, IN_OPCODE, ZN_MLX5_CMD_OP_QUERY_VPORT_STATE);
	assert_int_equal(zn_mlx5_cmd(c->m, in, sizeof(in), out, sizeof(out)), -ETIMEDOUT);
	assert_true(c->m->cmd_timed_out);
	assert_false(c->m->reset_seen);
	assert_true(zn_mlx5_recoverable(c->m));
	assert_int_equal(fake_logs.n, 1);
	assert_non_null(strstr(fake_logs.line[0], "QUERY_VPORT_STATE (0x750): no completion after 50 ms"));
}

/* A fatal syndrome is not recovered: -EIO, its one line, no reset asked. */
static void test_fatal_not_recoverable(void **state)
{
	struct fake_ctx *c = *state;

	zn_mlx5_st_be32(c->f->bar0 + ZN_MLX5_ISEG_HEALTH_SYND_DW,
			ZN_MLX5_HEALTH_SYND_FW_INTERNAL_ERR << 16);
	assert_int_equal(zn_mlx5_ensure_alive(c->m), -EIO);
	assert_true(c->m->dead);
	assert_false(zn_mlx5_recoverable(c->m));
	assert_int_equal(zn_mlx5_recover(c->m), -EIO);
	assert_int_equal(zn_mlx5_ensure_alive(c->m), -EIO);
	assert_int_equal(c->f->resets, 0);
	assert_int_equal(fake_logs.n, 1);
	assert_non_null(strstr(fake_logs.line[0], "health syndrome 0x01 FW_INTERNAL_ERR"));
}

/* A refused QUERY_VPORT_STATE: one line naming status and syndrome; the
 * device stays alive (the port op keeps the last link state). */
static void test_link_query_refused(void **state)
{
	struct fake_ctx *c = *state;
	struct zn_link link;

	c->f->mis_op = ZN_MLX5_CMD_OP_QUERY_VPORT_STATE;
	c->f->mis_status = ZN_MLX5_CMD_STAT_RES_BUSY;
	c->f->mis_syndrome = 0x1234;
	c->f->mis_count = 1;
	assert_true(zn_mlx5_link_query(c->m, &link) < 0);
	assert_false(c->m->dead);
	assert_false(zn_mlx5_recoverable(c->m));
	assert_int_equal(fake_logs.n, 1);
	assert_non_null(strstr(fake_logs.line[0], "QUERY_VPORT_STATE (0x750) failed: status "
				"RES_BUSY (0x06), syndrome 0x00001234; the link keeps its last known state"));
	/* the next one goes through, without a line */
	assert_int_equal(zn_mlx5_link_query(c->m, &link), 0);
	assert_int_equal(fake_logs.n, 1);
}

/* A reset whose bring-up fails: the warning, the reason, -ENODEV, and the
 * port stays given up (no second attempt, no more lines). */
static void test_recover_fails(void **state)
{
	struct fake_ctx *c = *state;

	flr(c->f);
	assert_int_equal(zn_mlx5_ensure_alive(c->m), -ENODEV);
	assert_true(c->m->gone);
	assert_true(c->m->dead);
	assert_true(c->f->resets >= 1);
	assert_true(fake_logs_have("the function was reset under the driver (the command queue "
				   "address reads back cleared): resetting the function and "
				   "bringing the port back"));
	assert_true(fake_logs_have("the port did not come back after the reset"));
	{
		unsigned n = fake_logs.n, r = c->f->resets;

		assert_int_equal(zn_mlx5_ensure_alive(c->m), -ENODEV);
		assert_int_equal(zn_mlx5_recover(c->m), -ENODEV);
		assert_int_equal(fake_logs.n, n);
		assert_int_equal(c->f->resets, r);
	}
}

/* Recovery after MLX5_RECOVER_MAX in a row, each soon after the last: one
 * line, the function reset (so nothing runs on into freed memory), gone. */
static void test_recover_streak(void **state)
{
	struct fake_ctx *c = *state;

	c->m->recover_streak = MLX5_RECOVER_MAX;
	c->m->recover_ms = zn_mlx5_now_ms();
	c->m->dead = true;
	c->m->cmd_timed_out = true;
	assert_int_equal(zn_mlx5_recover(c->m), -ENODEV);
	assert_true(c->m->gone);
	assert_int_equal(c->f->resets, 1);
	assert_int_equal(fake_logs.n, 1);
	assert_non_null(strstr(fake_logs.line[0], "a command timed out again, after 3 resets in "
				"a row: the port stays down"));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_reset_seen, fake_setup, fake_teardown),
		cmocka_unit_test_setup_teardown(test_reset_while_waiting, fake_setup, fake_teardown),
		cmocka_unit_test_setup_teardown(test_timeout_recoverable, fake_setup, fake_teardown),
		cmocka_unit_test_setup_teardown(test_fatal_not_recoverable, fake_setup, fake_teardown),
		cmocka_unit_test_setup_teardown(test_link_query_refused, fake_setup, fake_teardown),
		cmocka_unit_test_setup_teardown(test_recover_fails, fake_setup, fake_teardown),
		cmocka_unit_test_setup_teardown(test_recover_streak, fake_setup, fake_teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
