/* dt_cases_test.c — runs the PostgreSQL-generated date/time expectation
 * table (dt_cases.inc, from types/test/gen/gen_dt_cases.py): type input and
 * output under DateStyle/IntervalStyle/TimeZone, operators and functions,
 * including the exact SQLSTATE and message of every error. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "dt_test_support.h"

typedef struct dt_case {
	const char *datestyle, *ivstyle, *tz, *fn, *argtypes, *args, *expect, *sqlstate, *message, *detail,
	    *hint;
} dt_case;

static const dt_case cases[] = {
#include "dt_cases.inc"
};

static int split(const char *s, char sep, char out[][256], int max)
{
	int n = 0;
	const char *p = s;
	while (n < max) {
		const char *e = strchr(p, sep);
		size_t len = e ? (size_t)(e - p) : strlen(p);
		snprintf(out[n], 256, "%.*s", (int)len, p);
		n++;
		if (!e)
			break;
		p = e + 1;
	}
	return n;
}

static const ty_func *find_func(const char *name, int n, const ty_oid *types)
{
	int cur = 0;
	const ty_func *f;
	while ((f = ty_func_lookup(name, &cur))) {
		if (f->nargs != n || !f->fn)
			continue;
		bool ok = true;
		for (int i = 0; i < n && ok; i++)
			ok = f->args[i] == types[i];
		if (ok)
			return f;
	}
	return NULL;
}

typedef struct run_ctx {
	const dt_case *c;
	char *result;
	bool missing;
} run_ctx;

static void run_case(void *arg)
{
	run_ctx *rc = arg;
	const dt_case *c = rc->c;
	if (strncmp(c->fn, "in:", 3) == 0) {
		int32_t typmod;
		ty_oid oid = dtt_type(c->fn + 3, &typmod);
		if (!ty_type_get(oid)) {
			rc->missing = true;
			return;
		}
		ty_datum v = ty_input(oid, c->args, strlen(c->args), typmod);
		rc->result = dtt_output(oid, v);
		return;
	}
	char tnames[8][256], avals[8][256];
	int n = split(c->argtypes, ',', tnames, 8);
	split(c->args, '|', avals, 8);
	ty_oid types[8];
	ty_datum args[8];
	for (int i = 0; i < n; i++) {
		int32_t typmod;
		types[i] = dtt_type(tnames[i], &typmod);
	}
	const ty_func *f = find_func(c->fn, n, types);
	if (!f) {
		rc->missing = true;
		return;
	}
	for (int i = 0; i < n; i++)
		args[i] = dtt_input(types[i], avals[i], -1);
	ty_datum r = ty_call(c->fn, n, types, args);
	rc->result = dtt_output(f->ret, r);
}

static void test_cases(void **state)
{
	(void)state;
	ty_init();
	util_arena *a = util_arena_new(1 << 16, 0);
	ty_set_arena(a);
	int failed = 0, missing = 0;
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		const dt_case *c = &cases[i];
		ty_settings s;
		dtt_settings(&s, c->datestyle, c->ivstyle, c->tz);
		ty_set_settings(&s);
		run_ctx rc = {c, NULL, false};
		util_err e;
		util_err_clear(&e);
		int rv = ty_protect(run_case, &rc, &e);
		ty_set_settings(NULL);
		if (rc.missing) {
			missing++;
			continue;
		}
		bool ok;
		if (c->expect)
			ok = rv == 0 && rc.result && strcmp(rc.result, c->expect) == 0;
		else if (!c->sqlstate)
			ok = rv == 0 && !rc.result; /* SQL NULL */
		else
			ok = rv != 0 && strcmp(util_errcode_sqlstate(e.code), c->sqlstate) == 0 &&
			     strcmp(e.message, c->message) == 0 &&
			     strcmp(e.detail, c->detail ? c->detail : "") == 0 &&
			     strcmp(e.hint, c->hint ? c->hint : "") == 0;
		if (!ok) {
			failed++;
			fprintf(
			    stderr, "FAIL [%s|%s|%s] %s(%s) '%s': want %s %s [%s] [%s] got %s %s [%s] [%s]\n",
			    c->datestyle, c->ivstyle, c->tz, c->fn, c->argtypes, c->args,
			    c->expect     ? c->expect
			    : c->sqlstate ? c->sqlstate
					  : "NULL",
			    c->expect ? "" : c->message, c->detail ? c->detail : "", c->hint ? c->hint : "",
			    rv == 0 ? (rc.result ? rc.result : "NULL") : util_errcode_sqlstate(e.code),
			    rv == 0 ? "" : e.message, rv == 0 ? "" : e.detail, rv == 0 ? "" : e.hint);
		}
		util_arena_reset(a);
	}
	fprintf(stderr, "dt_cases: %zu cases, %d failed, %d skipped (function or type not registered)\n",
		sizeof cases / sizeof cases[0], failed, missing);
	ty_set_arena(NULL);
	util_arena_destroy(a);
	assert_int_equal(failed, 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_cases),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
