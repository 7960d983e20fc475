/* dt_fuzz_test.c — bad input is an error, never a crash: random strings
 * (from the characters the date/time parsers care about) through every
 * date/time input function, to_char/to_timestamp/to_date/to_number
 * templates and AT TIME ZONE names, under ASan/UBSan in the debug build.
 * Every call must either return or throw a SQLSTATE of class 22 / 0A / 42. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "dt_test_support.h"

static uint64_t rng = 42;
static uint32_t rnd(void)
{
	rng = rng * 6364136223846793005ULL + 1442695040888963407ULL;
	return (uint32_t)(rng >> 33);
}

static const char *const pieces[] = {
    "2021",
    "-",
    "02",
    "/",
    ":",
    ".",
    " ",
    "T",
    "Z",
    "+05:30",
    "-8",
    "BC",
    "AD",
    "pm",
    "am",
    "jan",
    "Feb",
    "epoch",
    "infinity",
    "now",
    "today",
    "J",
    "2451187",
    "allballs",
    "EST",
    "America/New_York",
    "europe/berlin",
    "EDT",
    "MSK",
    "1 day",
    "ago",
    "@",
    "P1Y",
    "T1H",
    "years",
    "9999999999",
    "0",
    "60",
    "24",
    "99",
    "'",
    "\"",
    "\\",
    "YYYY",
    "MM",
    "DD",
    "HH24",
    "MI",
    "SS",
    "FM",
    "TH",
    "th",
    "FX",
    "Month",
    "Dy",
    "RN",
    "9",
    "0",
    ",",
    "D",
    "G",
    "S",
    "PR",
    "MI",
    "PL",
    "SG",
    "EEEE",
    "V",
    "L",
    "IW",
    "IYYY",
    "ID",
    "Q",
    "CC",
    "Y,YYY",
    "US",
    "MS",
    "FF6",
    "TZH",
    "TZM",
    "OF",
    "x",
    "\xc3\xa9",
    "+",
    "<",
    ">",
    "e",
    "1e400",
    "nan",
    "dst",
    "week",
    "mon",
    "sec",
    "usec",
    "millennium",
    "yesterday",
};

static char buf[512];

static const char *random_string(void)
{
	size_t n = 0;
	int parts = (int)(rnd() % 9);
	buf[0] = '\0';
	for (int i = 0; i < parts; i++) {
		const char *p = rnd() % 6 == 0 ? (const char[]){(char)(rnd() % 94 + 32), 0}
					       : pieces[rnd() % (sizeof pieces / sizeof pieces[0])];
		size_t l = strlen(p);
		if (n + l >= sizeof buf - 1)
			break;
		memcpy(buf + n, p, l);
		n += l;
		buf[n] = '\0';
	}
	return buf;
}

typedef struct call {
	const char *fn;
	int n;
	ty_oid types[3];
	const char *args[3];
} call;

static void do_call(void *arg)
{
	call *c = arg;
	ty_datum a[3];
	for (int i = 0; i < c->n; i++)
		a[i] = dtt_input(c->types[i], c->args[i], -1);
	ty_datum r = ty_call(c->fn, c->n, c->types, a);
	(void)r;
}

static void do_input(void *arg)
{
	call *c = arg;
	ty_datum v = ty_input(c->types[0], c->args[0], strlen(c->args[0]), -1);
	ty_output_cstring(c->types[0], v);
}

static void check(void (*fn)(void *), call *c)
{
	util_err e;
	if (ty_protect(fn, c, &e) != 0) {
		const char *s = util_errcode_sqlstate(e.code);
		if (!(s[0] == '2' && s[1] == '2') && strcmp(s, "0A000") != 0 && strncmp(s, "42", 2) != 0) {
			fprintf(stderr, "unexpected %s: %s (%s)\n", s, e.message, c->args[0]);
			fail();
		}
	}
}

static void test_fuzz(void **state)
{
	(void)state;
	ty_init();
	util_arena *a = util_arena_new(1 << 16, 0);
	ty_set_arena(a);
	ty_settings s;
	dtt_settings(&s, "ISO, MDY", "postgres", "America/New_York");
	ty_set_settings(&s);
	const ty_oid in_types[] = {TY_DATE, TY_TIME, TY_TIMETZ, TY_TIMESTAMP, TY_TIMESTAMPTZ, TY_INTERVAL};
	char s1[512], s2[512];
	for (int i = 0; i < 10000; i++) {
		snprintf(s1, sizeof s1, "%s", random_string());
		snprintf(s2, sizeof s2, "%s", random_string());
		s.datestyle = (ty_datestyle)(i % 4);
		s.dateorder = (ty_dateorder)(i % 3);
		s.intervalstyle = (ty_intervalstyle)(i % 4);
		call c = {NULL, 1, {in_types[i % 6]}, {s1}};
		check(do_input, &c);
		call tc[] = {
		    {"to_timestamp", 2, {TY_TEXT, TY_TEXT}, {s1, s2}},
		    {"to_date", 2, {TY_TEXT, TY_TEXT}, {s1, s2}},
		    {"to_number", 2, {TY_TEXT, TY_TEXT}, {s1, s2}},
		    {"to_char", 2, {TY_TIMESTAMPTZ, TY_TEXT}, {"2021-02-03 04:05:06.5+00", s2}},
		    {"to_char", 2, {TY_INTERVAL, TY_TEXT}, {"-1 year 2 days 03:04:05", s2}},
		    {"to_char", 2, {TY_NUMERIC, TY_TEXT}, {"-1234.5678", s2}},
		    {"to_char", 2, {TY_FLOAT8, TY_TEXT}, {"1234.5678", s2}},
		    {"to_char", 2, {TY_INT8, TY_TEXT}, {"-9223372036854775808", s2}},
		    {"timezone", 2, {TY_TEXT, TY_TIMESTAMPTZ}, {s1, "2021-02-03 04:05:06+00"}},
		    {"date_trunc", 2, {TY_TEXT, TY_TIMESTAMPTZ}, {s1, "2021-02-03 04:05:06+00"}},
		    {"date_part", 2, {TY_TEXT, TY_INTERVAL}, {s1, "1 day"}},
		};
		for (size_t k = 0; k < sizeof tc / sizeof tc[0]; k++)
			check(do_call, &tc[k]);
		util_arena_reset(a);
	}
	ty_set_settings(NULL);
	ty_set_arena(NULL);
	util_arena_destroy(a);
}

int main(void)
{
	const struct CMUnitTest tests[] = {cmocka_unit_test(test_fuzz)};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
