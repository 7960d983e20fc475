/*
 * num_float_test.c — the Ryu digit generator (num_ryu.c, used for float
 * output) against an independent oracle (num_fltshort.c: printf/strtod
 * search with exact tie detection), over random bit patterns, powers of two,
 * subnormals and the extremes of double and float. (Agreement with
 * PostgreSQL itself is covered by num_cases_test.)
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "num_priv.h"

static uint64_t state = 0x2545F4914F6CDD1DULL;

static uint64_t rnd(void)
{
	state ^= state << 13;
	state ^= state >> 7;
	state ^= state << 17;
	return state;
}

static void check_double(double v)
{
	if (!isfinite(v) || v == 0)
		return;
	v = fabs(v);
	char a[32], b[32];
	int xa, xb;
	int na = num_shortest_double(v, a, &xa), nb = num_shortest_search_double(v, b, &xb);
	if (na != nb || xa != xb || memcmp(a, b, (size_t)na) != 0)
		fail_msg("double %.17g: ryu %.*se%d, search %.*se%d", v, na, a, xa, nb, b, xb);
}

static void check_float(float v)
{
	if (!isfinite(v) || v == 0)
		return;
	v = fabsf(v);
	char a[32], b[32];
	int xa, xb;
	int na = num_shortest_float(v, a, &xa), nb = num_shortest_search_float(v, b, &xb);
	if (na != nb || xa != xb || memcmp(a, b, (size_t)na) != 0)
		fail_msg("float %.9g: ryu %.*se%d, search %.*se%d", (double)v, na, a, xa, nb, b, xb);
}

static void test_double(void **st)
{
	(void)st;
	for (int i = 0; i < 200000; i++) {
		uint64_t u = rnd();
		double d;
		memcpy(&d, &u, 8);
		check_double(d);
	}
	for (int e = -1074; e <= 1023; e++) {
		check_double(ldexp(1.0, e));
		check_double(nextafter(ldexp(1.0, e), 0));
		check_double(nextafter(ldexp(1.0, e), INFINITY));
	}
	check_double(DBL_MAX);
	check_double(DBL_MIN);
	check_double(4.9e-324);
	/* short decimals, the common case in data */
	for (int i = 0; i < 20000; i++)
		check_double((double)(rnd() % 1000000) / pow(10, (double)(rnd() % 12)));
}

static void test_float(void **st)
{
	(void)st;
	for (int i = 0; i < 200000; i++) {
		uint32_t u = (uint32_t)rnd();
		float f;
		memcpy(&f, &u, 4);
		check_float(f);
	}
	for (int e = -149; e <= 127; e++) {
		check_float(ldexpf(1.0f, e));
		check_float(nextafterf(ldexpf(1.0f, e), 0));
		check_float(nextafterf(ldexpf(1.0f, e), INFINITY));
	}
	check_float(FLT_MAX);
	check_float(FLT_MIN);
}

/* num_float8_parse's plain-integer path gives strtod's double, bit for bit
 * (-0 included), and what it does not take still parses as before. */
static void test_float8_integers(void **st)
{
	(void)st;
	static const char *fixed[] = {"0",
				      "-0",
				      "7",
				      "-7",
				      "000123",
				      "-000",
				      "999999999999999",
				      "1000000000000000",
				      "-999999999999999",
				      "9007199254740993",
				      "+5",
				      " 42",
				      "42 ",
				      "1e3",
				      "31535999"};
	char buf[40];
	util_arena *a = util_arena_new(1 << 16, 0); /* the strtod path's copies */
	ty_set_arena(a);
	for (size_t i = 0; i < sizeof fixed / sizeof *fixed + 20000; i++) {
		const char *s = fixed[i % (sizeof fixed / sizeof *fixed)];
		if (i >= sizeof fixed / sizeof *fixed) {
			uint64_t r = rnd();
			int digits = 1 + (int)(r % 17);
			int n = (r >> 8) & 1 ? snprintf(buf, sizeof buf, "-") : 0;
			for (int d = 0; d < digits; d++)
				buf[n++] = (char)('0' + (rnd() % 10));
			buf[n] = 0;
			s = buf;
		}
		double want = strtod(s, NULL),
		       got = num_float8_parse(s, strlen(s), "double precision", s, strlen(s));
		if (memcmp(&want, &got, sizeof want) != 0)
			fail_msg("\"%s\": strtod %.17g, parsed %.17g", s, want, got);
		util_arena_reset(a);
	}
	ty_set_arena(NULL);
	util_arena_destroy(a);
}

int main(void)
{
	const struct CMUnitTest tests[] = {cmocka_unit_test(test_double), cmocka_unit_test(test_float),
					   cmocka_unit_test(test_float8_integers)};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
