/* core/log: ZN_LOG parsing, per-component levels, sink, rate limiting. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "zcnic/log.h"

static int nlines;
static char last[512];

static void sink(enum zn_log_level level, const char *comp, const char *msg, void *arg)
{
	(void)level; (void)comp; (void)arg;
	nlines++;
	snprintf(last, sizeof(last), "%s", msg);
}

static int setup(void **state)
{
	(void)state;
	nlines = 0;
	last[0] = '\0';
	zn_log_set_sink(sink, NULL);
	return 0;
}

static int teardown(void **state)
{
	(void)state;
	zn_log_set_sink(NULL, NULL);
	return zn_log_configure("");
}

/* Runs first: ZN_LOG is set in main() and not read yet. */
static void test_configure_wins_over_env(void **state)
{
	(void)state;
	assert_int_equal(zn_log_configure("debug"), 0);
	assert_true(zn_log_enabled(ZN_LOG_DEBUG, "bus"));
}

static void test_default_level_is_info(void **state)
{
	(void)state;
	assert_int_equal(zn_log_configure(""), 0);
	assert_true(zn_log_enabled(ZN_LOG_INFO, "bus"));
	assert_false(zn_log_enabled(ZN_LOG_DEBUG, "bus"));
	ZN_DEBUG("bus", "hidden");
	ZN_INFO("bus", "shown %d", 7);
	assert_int_equal(nlines, 1);
	assert_string_equal(last, "shown 7");
}

static void test_per_component(void **state)
{
	(void)state;
	assert_int_equal(zn_log_configure("warn,bus=debug,mem=off"), 0);
	assert_true(zn_log_enabled(ZN_LOG_DEBUG, "bus"));
	assert_false(zn_log_enabled(ZN_LOG_INFO, "net"));
	assert_true(zn_log_enabled(ZN_LOG_WARN, "net"));
	assert_false(zn_log_enabled(ZN_LOG_ERR, "mem"));
}

static void test_malformed_spec_rejected(void **state)
{
	(void)state;
	assert_int_equal(zn_log_configure("loud"), -EINVAL);
	assert_int_equal(zn_log_configure("bus="), -EINVAL);
	assert_int_equal(zn_log_configure("=debug"), -EINVAL);
	/* A rejected spec leaves the previous configuration in force. */
	assert_int_equal(zn_log_configure("err"), 0);
	assert_int_equal(zn_log_configure("bogus"), -EINVAL);
	assert_false(zn_log_enabled(ZN_LOG_WARN, "x"));
}

static void test_ratelimit(void **state)
{
	(void)state;
	assert_int_equal(zn_log_configure("debug"), 0);
	for (int i = 0; i < 100; i++)
		ZN_LOG_RL(ZN_LOG_WARN, "rx", "bad completion %d", i);
	assert_int_equal(nlines, 10);
	assert_string_equal(last, "bad completion 9");

	struct zn_ratelimit rl = { 0 };
	uint32_t sup;
	assert_true(zn_ratelimit_allow(&rl, 2, 1000000000000ull, &sup));
	assert_true(zn_ratelimit_allow(&rl, 2, 1000000000000ull, &sup));
	assert_false(zn_ratelimit_allow(&rl, 2, 1000000000000ull, &sup));
	assert_false(zn_ratelimit_allow(&rl, 2, 1000000000000ull, &sup));
	/* A zero-length window opens at once and reports what was dropped. */
	assert_true(zn_ratelimit_allow(&rl, 2, 0, &sup));
	assert_int_equal(sup, 2);
}

int main(void)
{
	setenv("ZN_LOG", "err", 1);
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_configure_wins_over_env, setup, teardown),
		cmocka_unit_test_setup_teardown(test_default_level_is_info, setup, teardown),
		cmocka_unit_test_setup_teardown(test_per_component, setup, teardown),
		cmocka_unit_test_setup_teardown(test_malformed_spec_rejected, setup, teardown),
		cmocka_unit_test_setup_teardown(test_ratelimit, setup, teardown),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
