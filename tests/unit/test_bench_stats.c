/* SPDX-License-Identifier: MIT */
/* zn-bench's statistics (apps/zn-bench/stats.c): median, nearest-rank percentiles, spread. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "apps/zn-bench/stats.c"

static void test_median(void **s)
{
	double odd[] = { 5, 1, 3 }, even[] = { 4, 1, 3, 2 }, one[] = { 7 };

	(void)s;
	assert_float_equal(bench_median(odd, 3), 3, 0);
	assert_float_equal(bench_median(even, 4), 2.5, 0);
	assert_float_equal(bench_median(one, 1), 7, 0);
	assert_true(isnan(bench_median(one, 0)));
	/* sorted in place */
	assert_float_equal(odd[0], 1, 0);
	assert_float_equal(odd[2], 5, 0);
}

static void test_percentile(void **s)
{
	static double v[1000];
	double few[] = { 10, 20, 30 };

	(void)s;
	for (int i = 0; i < 1000; i++)
		v[i] = 1000 - i;	/* 1000..1, unsorted */
	bench_sort(v, 1000);
	assert_float_equal(bench_percentile(v, 1000, 50), 500, 0);
	assert_float_equal(bench_percentile(v, 1000, 99), 990, 0);
	assert_float_equal(bench_percentile(v, 1000, 99.9), 999, 0);
	assert_float_equal(bench_percentile(v, 1000, 100), 1000, 0);
	assert_float_equal(bench_percentile(v, 1000, 0), 1, 0);
	/* fewer samples than the tail needs: the largest */
	assert_float_equal(bench_percentile(few, 3, 99.9), 30, 0);
	assert_float_equal(bench_percentile(few, 3, 50), 20, 0);
	assert_float_equal(bench_percentile(few, 3, 34), 20, 0);
	assert_float_equal(bench_percentile(few, 3, 33), 10, 0);
	assert_true(isnan(bench_percentile(few, 0, 50)));
	assert_true(isnan(bench_percentile(few, 3, 101)));
}

static void test_spread(void **s)
{
	(void)s;
	assert_float_equal(bench_spread(100, 95, 105), 0.1, 1e-12);
	assert_float_equal(bench_spread(100, 100, 100), 0, 0);
	assert_true(isnan(bench_spread(0, 0, 1)));
	assert_true(isnan(bench_spread(NAN, 0, 1)));
	assert_true(isnan(bench_spread(10, 5, 1)));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_median),
		cmocka_unit_test(test_percentile),
		cmocka_unit_test(test_spread),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
