/* SPDX-License-Identifier: MIT */
/*
 * zn-bench's command line (apps/zn-bench/opts.c, compiled in here):
 * defaults, --quick and explicit options winning over it, every list
 * option, and one exact error line for each kind of bad input.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "apps/common/num.c"
#include "apps/zn-bench/names.c"
#include "apps/zn-bench/opts.c"

#define MAXARGS 16

static int parse(struct bench_opts *o, char *err, ...)
{
	char *argv[MAXARGS] = { "zn-bench" };
	int argc = 1;
	va_list ap;
	char *a;

	va_start(ap, err);
	while ((a = va_arg(ap, char *)) && argc < MAXARGS - 1)
		argv[argc++] = a;
	va_end(ap);
	err[0] = '\0';
	return bench_opts_parse(argc, argv, o, err, 200);
}

static void test_defaults(void **s)
{
	struct bench_opts o;
	char err[200];

	(void)s;
	assert_int_equal(parse(&o, err, NULL), 0);
	/* send, recv, msgring, the cost headline, and send and recv over TCP too */
	assert_int_equal(o.suites, (1u << BENCH_G_COUNT) - 1);
	assert_int_equal(o.protos, BENCH_PROTO_UDP | BENCH_PROTO_TCP);
	assert_int_equal(o.nsizes, 5);
	assert_int_equal(o.sizes[0], 600);
	assert_int_equal(o.sizes[4], 8000);
	assert_int_equal(o.duration_ms, 1000);
	assert_int_equal(o.reps, 3);
	assert_int_equal(o.batch, 8);
	assert_int_equal(o.msgs, 100000);
	assert_int_equal(o.cpu[0], -1);
	assert_int_equal(o.cpu[1], -1);
	assert_null(o.out_dir);
	assert_false(o.quick);
	assert_int_equal(o.transports, 0xf);
}

static void test_quick_and_overrides(void **s)
{
	struct bench_opts o;
	char err[200];

	(void)s;
	assert_int_equal(parse(&o, err, "--quick", NULL), 0);
	assert_true(o.quick);
	assert_int_equal(o.nsizes, 2);
	assert_int_equal(o.sizes[1], 1500);
	assert_int_equal(o.duration_ms, 40);
	assert_int_equal(o.reps, 1);
	assert_int_equal(o.msgs, 2000);
	/* explicit options win, before or after --quick */
	assert_int_equal(parse(&o, err, "--reps", "5", "--quick", "--duration-ms", "7",
			       "--sizes", "64,9000", "--msgs", "10", NULL), 0);
	assert_int_equal(o.reps, 5);
	assert_int_equal(o.duration_ms, 7);
	assert_int_equal(o.msgs, 10);
	assert_int_equal(o.nsizes, 2);
	assert_int_equal(o.sizes[0], 64);
	assert_int_equal(o.sizes[1], 9000);
}

static void test_lists(void **s)
{
	struct bench_opts o;
	char err[200];

	(void)s;
	assert_int_equal(parse(&o, err, "--suites", "msgring,send", "--transports", "veth",
			       "--cpu", "0,1", "--batch", "32", "--out", "/tmp/x", NULL), 0);
	assert_int_equal(o.suites, (1u << BENCH_G_SEND) | (1u << BENCH_G_SEND_TCP) |
				   (1u << BENCH_G_MSGRING));
	assert_int_equal(o.transports, BENCH_TB(BENCH_T_VETH) | BENCH_TB(BENCH_T_NONE));
	assert_int_equal(o.cpu[0], 0);
	assert_int_equal(o.cpu[1], 1);
	assert_int_equal(o.batch, 32);
	assert_string_equal(o.out_dir, "/tmp/x");
	/* --protos picks the protocol groups of send and recv, nothing else */
	assert_int_equal(parse(&o, err, "--suites", "send,recv,msgring", "--protos", "tcp", NULL), 0);
	assert_int_equal(o.suites, (1u << BENCH_G_SEND_TCP) | (1u << BENCH_G_RECV_TCP) |
				   (1u << BENCH_G_MSGRING));
	assert_int_equal(parse(&o, err, "--suites", "recv", "--protos", "udp", NULL), 0);
	assert_int_equal(o.suites, 1u << BENCH_G_RECV);
	assert_int_equal(parse(&o, err, "--help", NULL), 1);
	assert_int_equal(parse(&o, err, "-h", NULL), 1);
	assert_non_null(strstr(bench_usage, "--suites LIST"));
}

static void test_errors(void **s)
{
	static const struct { const char *a, *b, *msg; } bad[] = {
		{ "--suites", "send,bogus", "--suites send,bogus: expected a list of send, recv, msgring, cost" },
		{ "--suites", "send,", "--suites send,: expected a list of send, recv, msgring, cost" },
		{ "--suites", "send-tcp", "--suites send-tcp: expected a list of send, recv, msgring, cost" },
		{ "--protos", "sctp", "--protos sctp: expected a list of udp, tcp" },
		{ "--transports", "eth0", "--transports eth0: expected a list of loopback, veth, nicsim" },
		{ "--sizes", "0", "--sizes 0: expected up to 16 distinct sizes, 1-65000 bytes" },
		{ "--sizes", "600,600", "--sizes 600,600: expected up to 16 distinct sizes, 1-65000 bytes" },
		{ "--sizes", "65001", "--sizes 65001: expected up to 16 distinct sizes, 1-65000 bytes" },
		{ "--sizes", "12x", "--sizes 12x: expected up to 16 distinct sizes, 1-65000 bytes" },
		{ "--duration-ms", "0", "--duration-ms 0: expected 1-600000" },
		{ "--reps", "-1", "--reps -1: expected 1-100" },
		{ "--batch", "257", "--batch 257: expected 1-256" },
		{ "--msgs", "1000001", "--msgs 1000001: expected 1-1000000" },
		{ "--cpu", "3", "--cpu 3: expected two CPU numbers, A,B" },
		{ "--cpu", "1,x", "--cpu 1,x: expected two CPU numbers, A,B" },
		{ "--bogus", NULL, "unknown option --bogus (see --help)" },
		{ "-x", NULL, "unknown option -x (see --help)" },
		{ "extra", NULL, "unexpected argument extra (see --help)" },
		{ "--reps", NULL, "option --reps needs a value (see --help)" },
	};
	struct bench_opts o;
	char err[200];

	(void)s;
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		assert_int_equal(parse(&o, err, bad[i].a, bad[i].b, NULL), -EINVAL);
		assert_string_equal(err, bad[i].msg);
	}
}

static void test_names(void **s)
{
	(void)s;
	assert_int_equal(bench_group_parse("recv"), BENCH_G_RECV);
	assert_int_equal(bench_group_parse("Recv"), -EINVAL);
	assert_string_equal(bench_transport_name(BENCH_T_VETH), "veth");
	assert_string_equal(bench_metric_name(BENCH_M_P999_NS), "p99.9_ns");
	assert_string_equal(bench_group_name(BENCH_G_COUNT), "?");
	assert_string_equal(bench_group_name(BENCH_G_RECV_TCP), "recv-tcp");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_defaults),
		cmocka_unit_test(test_quick_and_overrides),
		cmocka_unit_test(test_lists),
		cmocka_unit_test(test_errors),
		cmocka_unit_test(test_names),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
