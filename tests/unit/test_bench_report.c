/* SPDX-License-Identifier: MIT */
/*
 * zn-bench's output (apps/zn-bench/report.c, compiled in here): the
 * zcnic/kernel ratio and how rows are matched, SI figures, the three
 * tables, CSV (exact text, RFC 4180 quoting) and JSON (parsed back).
 */
#include <json-c/json.h>
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "apps/zn-bench/names.c"
#include "apps/zn-bench/stats.c"
#include "apps/zn-bench/report.c"

static struct bench_results res;
static struct bench_opts opts = {
	.nsizes = 2, .sizes = { 600, 1500 }, .reps = 3, .duration_ms = 100, .batch = 8,
	.msgs = 50,
};

static struct bench_row *add(const char *group, const char *mode, const char *path,
			     const char *transport, uint32_t size, const char *metric,
			     double med, double min, double max)
{
	struct bench_row *w = &res.rows[res.nrows++];

	memset(w, 0, sizeof(*w));
	*w = (struct bench_row){
		.group = group, .mode = mode, .path = path, .transport = transport, .size = size,
		.metric = metric, .status = BENCH_OK, .median = med, .min = min, .max = max,
		.cpu_user_ns_per_op = 100, .cpu_sys_ns_per_op = 200, .mb_s = 1.5,
		.copied = -1, .delivered = -1, .fallback = -1, .ops = 30, .reps = 3,
	};
	return w;
}

static int setup(void **s)
{
	struct bench_row *w;

	(void)s;
	res.nrows = 0;
	w = add("send", "nonzc", "kernel", "loopback", 600, "rps", 1000, 900, 1100);
	w->delivered = 0.5;
	w = add("send", "zc", "kernel", "loopback", 600, "rps", 0, 0, 0);
	w->status = BENCH_NA;
	strcpy(w->note, "SEND_ZC: not supported, \"old\" kernel");
	w = add("send", "zc-wait", "kernel", "veth", 1500, "rps", 2.5e6, 2e6, 3e6);
	w->copied = 1;
	add("send", "nonzc", "zcnic", "nicsim", 600, "rps", 3000, 3000, 3000);
	add("recv", "epoll", "kernel", "loopback", 65536, "gbit_s", 8, 8, 8);
	add("recv", "zcrx", "zcnic", "nicsim", 65536, "gbit_s", 20, 20, 20);
	add("msgring", "ping-pong", "kernel", "none", 0, "p50_ns", 4000, 3500, 4500);
	add("msgring", "ping-pong", "kernel", "none", 0, "p99_ns", 20000, 20000, 20000);
	add("msgring", "ping-pong", "kernel", "none", 0, "p99.9_ns", 90000, 90000, 90000);
	return 0;
}

static char *capture(void (*fn)(FILE *f))
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	assert_non_null(f);
	fn(f);
	fclose(f);
	return buf;
}

static void tables(FILE *f) { bench_print_tables(f, &res, &opts); }
static void csv(FILE *f) { assert_int_equal(bench_write_csv(f, &res), 0); }
static void json(FILE *f) { assert_int_equal(bench_write_json(f, &res, &opts), 0); }

static void test_ratio(void **s)
{
	(void)s;
	/* same group, mode and size */
	assert_float_equal(bench_ratio(&res, &res.rows[0]), 3.0, 1e-12);
	/* zcnic has no such row, or the kernel row is n/a */
	assert_true(isnan(bench_ratio(&res, &res.rows[1])));
	assert_true(isnan(bench_ratio(&res, &res.rows[2])));
	/* recv: zcnic's row of the group, whatever its mode */
	assert_float_equal(bench_ratio(&res, &res.rows[4]), 2.5, 1e-12);
	assert_ptr_equal(bench_zcnic_match(&res, &res.rows[4]), &res.rows[5]);
	assert_null(bench_zcnic_match(&res, &res.rows[6]));
	assert_ptr_equal(bench_find(&res, "send", "zc-wait", "kernel", "veth", 1500, "rps"),
			 &res.rows[2]);
	assert_null(bench_find(&res, "send", "zc-wait", "kernel", "veth", 600, "rps"));
}

static void test_si(void **s)
{
	char b[16];

	(void)s;
	bench_fmt_si(b, sizeof(b), 999);
	assert_string_equal(b, "999");
	bench_fmt_si(b, sizeof(b), 1234);
	assert_string_equal(b, "1.23k");
	bench_fmt_si(b, sizeof(b), 45678);
	assert_string_equal(b, "45.7k");
	bench_fmt_si(b, sizeof(b), 2.5e6);
	assert_string_equal(b, "2.50M");
	bench_fmt_si(b, sizeof(b), 123.4e9);
	assert_string_equal(b, "123G");
	bench_fmt_si(b, sizeof(b), NAN);
	assert_string_equal(b, "-");
}

static void test_tables(void **s)
{
	char *t = capture(tables);

	(void)s;
	if (getenv("ZN_SHOW"))
		fputs(t, stderr);
	assert_non_null(strstr(t, "UDP send: requests/s by size (median of 3 runs after a warm-up"));
	/* kernel row with its ratio to zcnic; zc n/a; delivered only where counted */
	assert_non_null(strstr(t, "  600  kernel loopback  1.00k ±20%     n/a            -"
				  "              3.00/-/-         -/-         50%/-/-         300/-/-\n"));
	assert_non_null(strstr(t, " 1500  kernel veth      -              -              "
				  "2.50M ±40%     -/-/-            -/100%      -/-/-           -/-/300\n"));
	assert_non_null(strstr(t, "  600  zcnic  nicsim    3.00k ±0%      -              -"));
	assert_non_null(strstr(t, "epoll    kernel loopback   65536  8.00 ±0%       "
				  "4.6 (1.5+3.1)          -         2.50\n"));
	assert_non_null(strstr(t, "ping-pong  kernel 4.00k ±25%   20.0k ±0%    90.0k ±0%    "
				  "300          -          -/-/-\n"));
	assert_non_null(strstr(t, "note: send zc kernel loopback 600: SEND_ZC: not supported"));
	free(t);
}

static void test_csv(void **s)
{
	char *t = capture(csv);

	(void)s;
	assert_true(!strncmp(t, "group,mode,path,transport,size,metric,status,median,min,max,"
				"spread,cpu_user_ns_per_op,cpu_sys_ns_per_op,mb_s,copied,"
				"delivered,fallback,ops,reps,note\n", 137));
	assert_non_null(strstr(t, "\nsend,nonzc,kernel,loopback,600,rps,ok,1000,900,1100,0.2,"
				  "100,200,1.5,,0.5,,30,3,\n"));
	assert_non_null(strstr(t, "\nsend,zc,kernel,loopback,600,rps,n/a,,,,,,,,,,,30,3,"
				  "\"SEND_ZC: not supported, \"\"old\"\" kernel\"\n"));
	assert_non_null(strstr(t, "\nmsgring,ping-pong,kernel,none,0,p99.9_ns,ok,90000,"));
	/* one line per row plus the header */
	{
		unsigned lines = 0;

		for (char *p = t; *p; p++)
			lines += *p == '\n';
		assert_int_equal(lines, res.nrows + 1);
	}
	free(t);
}

static void test_json(void **s)
{
	char *t = capture(json);
	struct json_object *root = json_tokener_parse(t), *rows, *r0, *r1, *v, *cfg;

	(void)s;
	assert_non_null(root);
	assert_true(json_object_object_get_ex(root, "rows", &rows));
	assert_int_equal(json_object_array_length(rows), res.nrows);
	assert_true(json_object_object_get_ex(root, "config", &cfg));
	assert_true(json_object_object_get_ex(cfg, "reps", &v));
	assert_int_equal(json_object_get_int(v), 3);
	r0 = json_object_array_get_idx(rows, 0);
	assert_true(json_object_object_get_ex(r0, "median", &v));
	assert_float_equal(json_object_get_double(v), 1000, 0);
	assert_true(json_object_object_get_ex(r0, "ratio_zcnic_kernel", &v));
	assert_float_equal(json_object_get_double(v), 3, 1e-12);
	assert_true(json_object_object_get_ex(r0, "copied", &v));
	assert_null(v);
	assert_true(json_object_object_get_ex(r0, "delivered", &v));
	assert_float_equal(json_object_get_double(v), 0.5, 0);
	r1 = json_object_array_get_idx(rows, 1);
	assert_true(json_object_object_get_ex(r1, "status", &v));
	assert_string_equal(json_object_get_string(v), "n/a");
	assert_true(json_object_object_get_ex(r1, "median", &v));
	assert_null(v);
	assert_true(json_object_object_get_ex(r1, "note", &v));
	assert_string_equal(json_object_get_string(v), "SEND_ZC: not supported, \"old\" kernel");
	json_object_put(root);
	free(t);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup(test_ratio, setup),
		cmocka_unit_test_setup(test_si, setup),
		cmocka_unit_test_setup(test_tables, setup),
		cmocka_unit_test_setup(test_csv, setup),
		cmocka_unit_test_setup(test_json, setup),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
