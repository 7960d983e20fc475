/* json_func_test.c — json/jsonb operators, path functions, modification
 * functions and casts against PostgreSQL 15 (json_call_cases.h, generated
 * by gen/gen_json_calls.py). */
#include "exp_run.h"

#include "json_call_cases.h"

static void test_calls(void **state)
{
	(void)state;
	int bad = exp_run_calls(json_call_cases, sizeof json_call_cases / sizeof json_call_cases[0]);
	if (bad)
		fprintf(stderr, "%d mismatches\n", bad);
	assert_int_equal(bad, 0);
}

static void test_aggs(void **state)
{
	(void)state;
	int bad = exp_run_aggs(json_agg_cases, sizeof json_agg_cases / sizeof json_agg_cases[0]);
	assert_int_equal(bad, 0);
}

int main(void)
{
	ty_init();
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_calls),
	    cmocka_unit_test(test_aggs),
	};
	int rc = cmocka_run_group_tests(tests, NULL, NULL);
	exp_report_skips();
	return rc;
}
