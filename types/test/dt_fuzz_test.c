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

#include "dt_int.h"
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

typedef struct parse_arg {
	const char *s;
	bool generic, tz;
	int64_t out;
} parse_arg;

static void do_parse(void *arg)
{
	parse_arg *p = arg;
	size_t n = strlen(p->s);
	p->out = p->generic
		     ? dt_ts_parse_generic(p->s, n, p->tz, p->tz ? "timestamp with time zone" : "timestamp")
		     : ty_input(p->tz ? TY_TIMESTAMPTZ : TY_TIMESTAMP, p->s, n, -1).i;
}

/* The ISO fast path must agree with the general parser on everything:
 * values, and errors for what it hands over. */
static void test_fast_path(void **state)
{
	(void)state;
	util_arena *a = util_arena_new(1 << 16, 0);
	ty_set_arena(a);
	ty_settings s;
	dtt_settings(&s, "ISO, MDY", "postgres", "America/New_York");
	ty_set_settings(&s);
	static const char *const seeds[] = {"2021-03-14 02:30:00",        "2021-11-07 01:30:00.5",
					    "0001-01-01 00:00:00",        "9999-12-31T23:59:59.999999",
					    "2020-02-29 12:00Z",          "2021-06-01 04:05:06+05:30",
					    "2021-06-01 04:05:06-15",     "2021-06-01",
					    "1999-12-31 23:59:59.9999995"};
	const char alphabet[] = "0123456789-:. TZ+9";
	char buf[64];
	for (int i = 0; i < 20000; i++) {
		snprintf(buf, sizeof buf, "%s", seeds[rnd() % (sizeof seeds / sizeof seeds[0])]);
		int muts = (int)(rnd() % 3);
		size_t n = strlen(buf);
		for (int k = 0; k < muts; k++) {
			int op = (int)(rnd() % 3);
			size_t pos = rnd() % (n + 1);
			if (op == 0 && pos < n) {
				buf[pos] = alphabet[rnd() % (sizeof alphabet - 1)];
			} else if (op == 1 && pos < n) {
				memmove(buf + pos, buf + pos + 1, n - pos);
				n--;
			} else if (n + 1 < sizeof buf) {
				memmove(buf + pos + 1, buf + pos, n - pos + 1);
				buf[pos] = alphabet[rnd() % (sizeof alphabet - 1)];
				n++;
			}
		}
		for (int tz = 0; tz < 2; tz++) {
			parse_arg f = {buf, false, tz, 0}, g = {buf, true, tz, 0};
			util_err ef, eg;
			int rf = ty_protect(do_parse, &f, &ef), rg = ty_protect(do_parse, &g, &eg);
			if (rf != rg || (rf == 0 && f.out != g.out) ||
			    (rf != 0 && strcmp(ef.message, eg.message) != 0)) {
				fprintf(stderr, "fast/generic differ on '%s' (%s): %d %lld %s / %d %lld %s\n",
					buf, tz ? "tz" : "ts", rf, (long long)f.out, rf ? ef.message : "", rg,
					(long long)g.out, rg ? eg.message : "");
				fail();
			}
		}
		util_arena_reset(a);
	}
	ty_set_settings(NULL);
	ty_set_arena(NULL);
	util_arena_destroy(a);
}

int main(void)
{
	const struct CMUnitTest tests[] = {cmocka_unit_test(test_fuzz), cmocka_unit_test(test_fast_path)};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
