/*
 * drivers/mlx5: the command channel and page supply against the fake of
 * mlx5_fake.h: the entry and mailbox chains exactly as the device reads
 * them (short and long inputs and outputs), tokens, status/syndrome
 * decoding and its one log line, delivery statuses, timeouts and a fatal
 * device while waiting, the NO_RES retry, and the page books (given ==
 * taken back, addresses aligned and distinct, chunked commands).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <cmocka.h>

#include "mlx5_fake.h"

static uint64_t now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000u + (uint64_t)ts.tv_nsec / 1000000u;
}

/* §4 step 4: the queue address as the device reads it, high half first. */
static void test_cmdq_address(void **state)
{
	struct fake_ctx *c = *state;
	uint64_t a = (uint64_t)zn_mlx5_ld_be32(c->f->bar0 + ZN_MLX5_ISEG_CMDQ_ADDR_H) << 32 |
		     (zn_mlx5_ld_be32(c->f->bar0 + ZN_MLX5_ISEG_CMDQ_ADDR_L_SZ) & 0xfffff000u);

	assert_int_equal(a, c->m->cmdq.dma->iova);
	assert_int_equal(a & 0xfff, 0);
	assert_int_equal(c->m->cmd_ops, &zn_mlx5_cmdq_ops);
}

/* A 16-byte command: everything inline, no mailbox pointers, owner back to 0. */
static void test_inline_entry_bytes(void **state)
{
	struct fake_ctx *c = *state;
	uint8_t in[16] = { 0 }, out[16];
	const struct zn_mlx5_cmd_entry *e = c->m->cmdq.entry;

	ZN_MLX5_SET(in, IN_OPCODE, ZN_MLX5_CMD_OP_ALLOC_PD);
	ZN_MLX5_SET(in, IN_OP_MOD, 0x1234);
	in[12] = 0xab;
	assert_int_equal(zn_mlx5_cmd(c->m, in, sizeof(in), out, sizeof(out)), 0);
	assert_int_equal(c->f->doorbells, 1);
	assert_int_equal(e->type, ZN_MLX5_CMD_TYPE_PCIE);
	assert_int_equal(zn_mlx5_bswap32(e->inlen_be), 16);
	assert_int_equal(zn_mlx5_bswap32(e->outlen_be), 16);
	assert_int_equal(e->in_ptr_be, 0);
	assert_int_equal(e->out_ptr_be, 0);
	assert_memory_equal(e->in, in, 16);
	assert_int_equal(e->status_own, 0);
	assert_int_not_equal(e->token, 0);
	assert_int_equal(e->sig, 0);
	assert_int_equal(c->f->log[0].opcode, ZN_MLX5_CMD_OP_ALLOC_PD);
	assert_int_equal(c->f->log[0].op_mod, 0x1234);
	assert_int_equal(c->f->log[0].nin_blocks, 0);
	/* The doorbell is slot 0's bit, big-endian. */
	assert_int_equal(zn_mlx5_ld_be32(c->f->bar0 + ZN_MLX5_ISEG_CMD_DBELL), 1);
	assert_int_equal(zn_mlx5_ld_be32(out + 8), 1);		/* the fake's first id */
	assert_int_equal(fake_logs.n, 0);
}

/* SET_HCA_CAP: 4112 input bytes = 16 inline + 8 blocks, every byte intact. */
static void test_long_input_chain(void **state)
{
	struct fake_ctx *c = *state;
	static uint8_t in[ZN_MLX5_SZ_SET_HCA_CAP_IN];
	uint8_t out[16];
	const struct zn_mlx5_cmd_mbox *b;

	for (uint32_t i = 0; i < sizeof(in); i++)
		in[i] = (uint8_t)(i * 13 + 5);
	ZN_MLX5_SET(in, IN_OPCODE, ZN_MLX5_CMD_OP_SET_HCA_CAP);
	assert_int_equal(zn_mlx5_cmd(c->m, in, sizeof(in), out, sizeof(out)), 0);
	assert_int_equal(c->f->log[0].nin_blocks, 8);
	assert_int_equal(c->f->log[0].inlen, sizeof(in));
	assert_memory_equal(c->f->in, in, sizeof(in));
	/* The chain: 1 KiB aligned, numbered, this command's token, last next = 0. */
	b = c->m->cmdq.in_box;
	for (uint32_t k = 0; k < 8; k++) {
		const struct zn_mlx5_cmd_mbox *bk = (const void *)((const uint8_t *)b + 1024 * k);

		assert_int_equal(zn_mlx5_bswap32(bk->block_num_be), k);
		assert_int_equal(bk->token, c->m->cmdq.entry->token);
		assert_int_equal(zn_mlx5_bswap64(bk->next_be),
				 k < 7 ? c->m->cmdq.in_iova + 1024 * (k + 1) : 0);
	}
	assert_int_equal(zn_mlx5_bswap64(c->m->cmdq.entry->in_ptr_be), c->m->cmdq.in_iova);
	assert_int_equal(c->m->cmdq.in_iova & 0x3ff, 0);
}

/* QUERY_HCA_CAP: a 4112-byte output read back from the output chain. */
static void test_long_output_chain(void **state)
{
	struct fake_ctx *c = *state;
	uint8_t in[16] = { 0 };
	static uint8_t out[ZN_MLX5_SZ_QUERY_HCA_CAP_OUT];

	c->f->out_pattern_seed = 0x5a;
	ZN_MLX5_SET(in, IN_OPCODE, ZN_MLX5_CMD_OP_QUERY_HCA_CAP);
	assert_int_equal(zn_mlx5_cmd(c->m, in, sizeof(in), out, sizeof(out)), 0);
	for (uint32_t i = 16; i < sizeof(out); i++)
		assert_int_equal(out[i], (uint8_t)(0x5a + i * 7 + (i >> 8)));
	assert_int_equal(zn_mlx5_bswap32(c->m->cmdq.entry->outlen_be), sizeof(out));
	assert_int_equal(zn_mlx5_bswap64(c->m->cmdq.entry->out_ptr_be), c->m->cmdq.out_iova);
}

/* Tokens run 1..255 and never 0. */
static void test_tokens(void **state)
{
	struct fake_ctx *c = *state;
	uint8_t in[16] = { 0 }, out[16];

	ZN_MLX5_SET(in, IN_OPCODE, ZN_MLX5_CMD_OP_ALLOC_UAR);
	for (int i = 0; i < 256 + 10; i++) {
		if (c->f->nlog == FAKE_LOG_MAX)
			c->f->nlog = 0;
		assert_int_equal(zn_mlx5_cmd(c->m, in, sizeof(in), out, sizeof(out)), 0);
		assert_int_equal(c->m->cmdq.entry->token, (uint8_t)(i % 255 + 1));
	}
}

/* A failed command: one line naming opcode (name, number), status (name), syndrome. */
static void test_status_one_line(void **state)
{
	struct fake_ctx *c = *state;
	uint8_t in[16] = { 0 }, out[16];

	c->f->mis_status = ZN_MLX5_CMD_STAT_BAD_PARAM_ERR;
	c->f->mis_syndrome = 0x04001234;
	c->f->mis_op = ZN_MLX5_CMD_OP_CREATE_CQ;
	c->f->mis_count = 1;
	ZN_MLX5_SET(in, IN_OPCODE, ZN_MLX5_CMD_OP_CREATE_CQ);
	assert_int_equal(zn_mlx5_cmd(c->m, in, sizeof(in), out, sizeof(out)), -EINVAL);
	assert_int_equal(fake_logs.n, 1);
	assert_non_null(strstr(fake_logs.line[0], "CREATE_CQ (0x400)"));
	assert_non_null(strstr(fake_logs.line[0], "status BAD_PARAM (0x03)"));
	assert_non_null(strstr(fake_logs.line[0], "syndrome 0x04001234"));
	/* The quiet variant decodes the same, without a line. */
	c->f->mis_status = ZN_MLX5_CMD_STAT_RES_BUSY;
	c->f->mis_count = 1;
	assert_int_equal(zn_mlx5_cmd_quiet(c->m, in, sizeof(in), out, sizeof(out)), -EBUSY);
	assert_int_equal(fake_logs.n, 1);
}

static void test_status_table(void **state)
{
	static const struct { uint8_t s; const char *name; int err; } t[] = {
		{ 0x00, "OK", 0 }, { 0x01, "INT_ERR", -EIO }, { 0x02, "BAD_OP", -EOPNOTSUPP },
		{ 0x03, "BAD_PARAM", -EINVAL }, { 0x04, "BAD_SYS_STATE", -EPERM },
		{ 0x05, "BAD_RES", -ENOENT }, { 0x06, "RES_BUSY", -EBUSY },
		{ 0x08, "LIM_ERR", -ENOSPC }, { 0x09, "BAD_RES_STATE", -EPERM },
		{ 0x0a, "IX_ERR", -EINVAL }, { 0x0f, "NO_RES", -ENOSPC },
		{ 0x10, "BAD_QP_STATE", -EPERM }, { 0x30, "BAD_PKT", -EIO },
		{ 0x40, "BAD_SIZE_OUTS_CQES", -EIO }, { 0x50, "BAD_INP_LEN", -EINVAL },
		{ 0x51, "BAD_OUTP_LEN", -EINVAL }, { 0x77, "UNKNOWN_STATUS", -EIO },
	};

	(void)state;
	for (size_t i = 0; i < sizeof(t) / sizeof(t[0]); i++) {
		assert_string_equal(zn_mlx5_status_name(t[i].s), t[i].name);
		assert_int_equal(zn_mlx5_status_errno(t[i].s), t[i].err);
	}
	assert_string_equal(zn_mlx5_cmd_name(ZN_MLX5_CMD_OP_MANAGE_PAGES), "MANAGE_PAGES");
	assert_string_equal(zn_mlx5_cmd_name(0x7777), "UNKNOWN_OPCODE");
	assert_string_equal(zn_mlx5_dstat_name(ZN_MLX5_DSTAT_TOK_ERR), "TOKEN_ERR");
}

/* A delivery status: the command was not executed; one line says which. */
static void test_delivery_status(void **state)
{
	struct fake_ctx *c = *state;
	uint8_t in[16] = { 0 }, out[16];

	c->f->mis_dstat = ZN_MLX5_DSTAT_TOK_ERR;
	c->f->mis_count = 1;
	ZN_MLX5_SET(in, IN_OPCODE, ZN_MLX5_CMD_OP_CREATE_TIS);
	assert_int_equal(zn_mlx5_cmd(c->m, in, sizeof(in), out, sizeof(out)), -EIO);
	assert_int_equal(fake_logs.n, 1);
	assert_non_null(strstr(fake_logs.line[0], "CREATE_TIS (0x912)"));
	assert_non_null(strstr(fake_logs.line[0], "TOKEN_ERR (0x02)"));
	/* The channel still works. */
	c->f->mis_dstat = 0;
	assert_int_equal(zn_mlx5_cmd(c->m, in, sizeof(in), out, sizeof(out)), 0);
}

/* No completion: -ETIMEDOUT after the timeout, the channel closed for good. */
static void test_timeout(void **state)
{
	struct fake_ctx *c = *state;
	uint8_t in[16] = { 0 }, out[16];
	uint64_t t0;
	unsigned db;

	c->m->cmdq.timeout_ms = 60;
	c->f->mis_silent = true;
	c->f->mis_count = 1;
	ZN_MLX5_SET(in, IN_OPCODE, ZN_MLX5_CMD_OP_INIT_HCA);
	t0 = now_ms();
	assert_int_equal(zn_mlx5_cmd(c->m, in, sizeof(in), out, sizeof(out)), -ETIMEDOUT);
	assert_true(now_ms() - t0 >= 60);
	assert_true(now_ms() - t0 < 5000);
	assert_true(c->m->dead);
	assert_int_equal(fake_logs.n, 1);
	assert_non_null(strstr(fake_logs.line[0], "INIT_HCA (0x102)"));
	assert_non_null(strstr(fake_logs.line[0], "no completion after 60 ms"));
	db = c->f->doorbells;
	assert_int_equal(zn_mlx5_cmd(c->m, in, sizeof(in), out, sizeof(out)), -EIO);
	assert_int_equal(c->f->doorbells, db);
}

/* A fatal syndrome while a command waits ends the wait at once, with the reason. */
static void test_fatal_while_waiting(void **state)
{
	struct fake_ctx *c = *state;
	uint8_t in[16] = { 0 }, out[16];
	uint64_t t0;

	c->m->cmdq.timeout_ms = 10000;
	c->f->mis_silent = true;
	c->f->mis_count = 1;
	zn_mlx5_st_be32(c->f->bar0 + ZN_MLX5_ISEG_HEALTH_SYND_DW,
			ZN_MLX5_HEALTH_SYND_HW_FATAL_ERR << 16 | 0x00be);
	ZN_MLX5_SET(in, IN_OPCODE, ZN_MLX5_CMD_OP_CREATE_SQ);
	t0 = now_ms();
	assert_int_equal(zn_mlx5_cmd(c->m, in, sizeof(in), out, sizeof(out)), -EIO);
	assert_true(now_ms() - t0 < 2000);
	assert_true(c->m->dead);
	assert_true(fake_logs_have("health syndrome 0x08 HW_FATAL_ERR, ext_synd 0x00be"));
	assert_true(fake_logs_have("CREATE_SQ (0x904): abandoned"));
}

/* Health: a counter that stands still for three polls kills the device. */
static void test_health_counter_stall(void **state)
{
	struct fake_ctx *c = *state;

	for (int i = 0; i < ZN_MLX5_HEALTH_MAX_MISSES; i++) {
		c->m->health_next_ms = 0;
		fake_iseg_set(c->f, ZN_MLX5_ISEG_HEALTH_COUNTER, (uint32_t)(10 + i));
		assert_int_equal(zn_mlx5_health_check(c->m), 0);
	}
	for (int i = 0; i < ZN_MLX5_HEALTH_MAX_MISSES - 1; i++) {
		c->m->health_next_ms = 0;
		assert_int_equal(zn_mlx5_health_check(c->m), 0);
	}
	c->m->health_next_ms = 0;
	assert_int_equal(zn_mlx5_health_check(c->m), -EIO);
	assert_true(c->m->dead);
	assert_int_equal(fake_logs.n, 1);
	assert_non_null(strstr(fake_logs.line[0], "health counter stuck at 0x00000c for 3 polls"));
	/* Fatal once: no second line. */
	assert_int_equal(zn_mlx5_health_check(c->m), -EIO);
	assert_int_equal(fake_logs.n, 1);
}

/* §6: give what QUERY_PAGES asks (chunked), take everything back; books balance. */
static void test_page_books(void **state)
{
	struct fake_ctx *c = *state;
	struct mlx5_pages *p = &c->m->pages;
	unsigned gives = 0;

	c->f->want_pages[ZN_MLX5_PAGES_BOOT] = 8;
	c->f->want_pages[ZN_MLX5_PAGES_INIT] = 300;
	assert_int_equal(zn_mlx5_pages_satisfy(c->m, ZN_MLX5_PAGES_BOOT), 0);
	assert_int_equal(c->f->nheld, 8);
	assert_int_equal(zn_mlx5_pages_satisfy(c->m, ZN_MLX5_PAGES_INIT), 0);
	assert_int_equal(c->f->nheld, 308);
	assert_int_equal(c->f->bad_gives, 0);
	for (unsigned i = 0; i < c->f->nlog; i++)
		if (c->f->log[i].opcode == ZN_MLX5_CMD_OP_MANAGE_PAGES) {
			gives++;
			assert_true(c->f->log[i].inlen <= 16 + 8 * MLX5_PAGES_PER_CMD);
		}
	assert_int_equal(gives, 3);		/* 8, then 256 + 44 */
	assert_int_equal(p->lent, 308);
	assert_int_equal(p->given, 308);
	/* The device offers 5 back (negative count): TAKE them. */
	c->f->want_pages[ZN_MLX5_PAGES_REGULAR] = -5;
	assert_int_equal(zn_mlx5_pages_satisfy(c->m, ZN_MLX5_PAGES_REGULAR), 0);
	assert_int_equal(c->f->nheld, 303);
	assert_int_equal(p->lent, 303);
	assert_int_equal(p->taken, 5);
	/* A page taken back is given again before new memory is allocated. */
	c->f->want_pages[ZN_MLX5_PAGES_REGULAR] = 5;
	assert_int_equal(zn_mlx5_pages_satisfy(c->m, ZN_MLX5_PAGES_REGULAR), 0);
	assert_int_equal(c->f->bad_gives, 0);
	assert_int_equal(p->lent, 308);
	/* Teardown: everything back. */
	assert_int_equal(zn_mlx5_pages_reclaim(c->m), 0);
	assert_int_equal(c->f->nheld, 0);
	assert_int_equal(p->lent, 0);
	assert_int_equal(p->given, p->taken);
	assert_int_equal(c->f->pages_given, c->f->pages_taken);
	assert_int_equal(fake_logs.n, 0);
}

/* The device's page count is not trusted: past the cap nothing is lent and
 * one line says so; the most negative count takes nothing, without overflow. */
static void test_page_request_bounds(void **state)
{
	struct fake_ctx *c = *state;
	struct mlx5_pages *p = &c->m->pages;

	c->f->want_pages[ZN_MLX5_PAGES_REGULAR] = INT32_MAX;
	assert_int_equal(zn_mlx5_pages_satisfy(c->m, ZN_MLX5_PAGES_REGULAR), -ENOMEM);
	assert_int_equal(p->lent, 0);
	assert_int_equal(c->f->nheld, 0);
	assert_int_equal(fake_logs.n, 1);
	assert_int_equal(zn_mlx5_pages_serve(c->m, (int32_t)MLX5_PAGES_MAX + 1), -ENOMEM);
	assert_int_equal(p->lent, 0);
	c->f->want_pages[ZN_MLX5_PAGES_REGULAR] = INT32_MIN;
	assert_int_equal(zn_mlx5_pages_satisfy(c->m, ZN_MLX5_PAGES_REGULAR), 0);
	assert_int_equal(p->lent, 0);
	assert_int_equal(p->taken, 0);
}

/* A create that finds no pages: pages served, the create retried once, silently. */
static void test_no_res_retry(void **state)
{
	struct fake_ctx *c = *state;
	uint8_t in[16] = { 0 }, out[16];

	c->m->hca_inited = true;
	c->f->want_pages[ZN_MLX5_PAGES_REGULAR] = 4;
	c->f->mis_status = ZN_MLX5_CMD_STAT_NO_RES_ERR;
	c->f->mis_op = ZN_MLX5_CMD_OP_CREATE_RQ;
	c->f->mis_count = 1;
	ZN_MLX5_SET(in, IN_OPCODE, ZN_MLX5_CMD_OP_CREATE_RQ);
	assert_int_equal(zn_mlx5_cmd(c->m, in, sizeof(in), out, sizeof(out)), 0);
	assert_int_equal(c->f->nlog, 4);
	assert_int_equal(c->f->log[0].opcode, ZN_MLX5_CMD_OP_CREATE_RQ);
	assert_int_equal(c->f->log[1].opcode, ZN_MLX5_CMD_OP_QUERY_PAGES);
	assert_int_equal(c->f->log[1].op_mod, ZN_MLX5_PAGES_REGULAR);
	assert_int_equal(c->f->log[2].opcode, ZN_MLX5_CMD_OP_MANAGE_PAGES);
	assert_int_equal(c->f->log[3].opcode, ZN_MLX5_CMD_OP_CREATE_RQ);
	assert_int_equal(c->f->nheld, 4);
	assert_int_equal(fake_logs.n, 0);
	/* Twice NO_RES: the second one is reported. */
	c->f->want_pages[ZN_MLX5_PAGES_REGULAR] = 0;
	c->f->mis_count = 2;
	c->f->mis_status = ZN_MLX5_CMD_STAT_NO_RES_ERR;
	assert_int_equal(zn_mlx5_cmd(c->m, in, sizeof(in), out, sizeof(out)), -ENOSPC);
	assert_int_equal(fake_logs.n, 1);
	assert_non_null(strstr(fake_logs.line[0], "CREATE_RQ (0x908)"));
	assert_non_null(strstr(fake_logs.line[0], "NO_RES (0x0f)"));
	assert_int_equal(zn_mlx5_pages_reclaim(c->m), 0);
}

/* Messages longer than the chains are refused before anything is written. */
static void test_too_long(void **state)
{
	struct fake_ctx *c = *state;
	static uint8_t in[MLX5_CMD_MAX_MSG + 512];
	uint8_t out[16];

	ZN_MLX5_SET(in, IN_OPCODE, ZN_MLX5_CMD_OP_CREATE_RQT);
	assert_int_equal(zn_mlx5_cmd(c->m, in, sizeof(in), out, sizeof(out)), -E2BIG);
	assert_int_equal(c->f->doorbells, 0);
	assert_int_equal(fake_logs.n, 1);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_cmdq_address, fake_setup, fake_teardown),
		cmocka_unit_test_setup_teardown(test_inline_entry_bytes, fake_setup, fake_teardown),
		cmocka_unit_test_setup_teardown(test_long_input_chain, fake_setup, fake_teardown),
		cmocka_unit_test_setup_teardown(test_long_output_chain, fake_setup, fake_teardown),
		cmocka_unit_test_setup_teardown(test_tokens, fake_setup, fake_teardown),
		cmocka_unit_test_setup_teardown(test_status_one_line, fake_setup, fake_teardown),
		cmocka_unit_test(test_status_table),
		cmocka_unit_test_setup_teardown(test_delivery_status, fake_setup, fake_teardown),
		cmocka_unit_test_setup_teardown(test_timeout, fake_setup, fake_teardown),
		cmocka_unit_test_setup_teardown(test_fatal_while_waiting, fake_setup, fake_teardown),
		cmocka_unit_test_setup_teardown(test_health_counter_stall, fake_setup, fake_teardown),
		cmocka_unit_test_setup_teardown(test_page_request_bounds, fake_setup, fake_teardown),
		cmocka_unit_test_setup_teardown(test_page_books, fake_setup, fake_teardown),
		cmocka_unit_test_setup_teardown(test_no_res_retry, fake_setup, fake_teardown),
		cmocka_unit_test_setup_teardown(test_too_long, fake_setup, fake_teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
