/*
 * num_cases_test.c — the numeric area against PostgreSQL 15: thousands of
 * input, function-call and cast cases whose expected output text or error
 * (SQLSTATE, message, detail) were recorded from a real server by
 * gen/num_cases.py into num_cases.inc. Cases involving types of other
 * areas that are not registered in this build are counted as skipped.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "numeric.h"
#include "types.h"

typedef struct ncase {
	const char *f[12];
	int n;
	const char *out;
	const char *state, *msg, *detail;
} ncase;

static const ncase cases[] = {
#include "num_cases.inc"
};

/* "numeric(5,2)" -> oid + typmod; NULL type when not registered. */
static const ty_type *parse_type(const char *spec, int32_t *typmod)
{
	char name[64];
	*typmod = TY_TYPMOD_NONE;
	const char *par = strchr(spec, '(');
	size_t n = par ? (size_t)(par - spec) : strlen(spec);
	snprintf(name, sizeof name, "%.*s", (int)n, spec);
	const ty_type *t = ty_type_by_name(name);
	if (t && par) {
		int p = 0, s = 0;
		sscanf(par, "(%d,%d)", &p, &s);
		*typmod = ty_numeric_typmod(p, s);
	}
	return t;
}

static ty_settings settings;

typedef struct run {
	const ncase *c;
	util_buf *out;
	bool skipped;
} run;

static const ty_func *find_func(const char *name, int n, const ty_oid *types)
{
	int cur = 0;
	const ty_func *f;
	while ((f = ty_func_lookup(name, &cur))) {
		if (f->nargs != n)
			continue;
		bool ok = true;
		for (int i = 0; i < n; i++)
			ok = ok && f->args[i] == types[i];
		if (ok)
			return f;
	}
	return NULL;
}

static void run_case(void *arg)
{
	run *r = arg;
	const ncase *c = r->c;
	int32_t tm;
	if (strcmp(c->f[0], "in") == 0) {
		const ty_type *t = parse_type(c->f[1], &tm);
		if (!t) {
			r->skipped = true;
			return;
		}
		ty_datum d = ty_input(t->oid, c->f[2], strlen(c->f[2]), tm);
		ty_output(t->oid, d, r->out);
	} else if (strcmp(c->f[0], "call") == 0) {
		int n = (c->n - 2) / 2;
		ty_oid types[8];
		ty_datum args[8];
		for (int i = 0; i < n; i++) {
			const ty_type *t = parse_type(c->f[2 + 2 * i], &tm);
			if (!t) {
				r->skipped = true;
				return;
			}
			types[i] = t->oid;
		}
		const ty_func *f = find_func(c->f[1], n, types);
		if (!f) {
			util_buf_printf(r->out, "<no function %s>", c->f[1]);
			return;
		}
		if (!ty_type_get(f->ret)) {
			r->skipped = true;
			return;
		}
		for (int i = 0; i < n; i++)
			args[i] = ty_input(types[i], c->f[3 + 2 * i], strlen(c->f[3 + 2 * i]), -1);
		ty_datum d = ty_call(c->f[1], n, types, args);
		if (d.null)
			util_buf_puts(r->out, "<NULL>");
		else
			ty_output(f->ret, d, r->out);
	} else if (strcmp(c->f[0], "cast") == 0) {
		int32_t stm;
		const ty_type *s = parse_type(c->f[1], &stm), *t = parse_type(c->f[3], &tm);
		if (!s || !t) {
			r->skipped = true;
			return;
		}
		ty_datum d = ty_input(s->oid, c->f[2], strlen(c->f[2]), -1);
		d = ty_cast_value(d, s->oid, t->oid, tm, true);
		ty_output(t->oid, d, r->out);
	} else if (strcmp(c->f[0], "set") == 0) {
		settings.extra_float_digits = atoi(c->f[2]);
		util_buf_puts(r->out, "set");
	}
}

static void describe(const ncase *c, char *buf, size_t n)
{
	size_t k = 0;
	for (int i = 0; i < c->n && k < n; i++)
		k += (size_t)snprintf(buf + k, n - k, "%s%s", i ? "|" : "", c->f[i]);
}

static void test_cases(void **state)
{
	(void)state;
	ty_init();
	ty_settings_default(&settings);
	ty_set_settings(&settings);
	util_arena *a = util_arena_new(1 << 16, 0);
	ty_set_arena(a);
	int failed = 0, skipped = 0, passed = 0;
	for (size_t i = 0; i < UTIL_ARRAY_LEN(cases); i++) {
		const ncase *c = &cases[i];
		util_buf out = UTIL_BUF_INIT;
		run r = {c, &out, false};
		util_err e;
		util_err_clear(&e);
		int rc = ty_protect(run_case, &r, &e);
		char what[512];
		describe(c, what, sizeof what);
		if (r.skipped) {
			skipped++;
		} else if (rc == 0 && c->out && strcmp(out.data ? out.data : "", c->out) == 0) {
			passed++;
		} else if (rc != 0 && c->state && strcmp(util_errcode_sqlstate(e.code), c->state) == 0 &&
			   strcmp(e.message, c->msg) == 0 && strcmp(e.detail, c->detail) == 0) {
			passed++;
		} else {
			failed++;
			if (rc == 0)
				printf("FAIL %s\n  got:  %s\n  want: %s%s %s %s\n", what,
				       out.data ? out.data : "", c->out ? c->out : "ERROR ",
				       c->out ? "" : c->state, c->out ? "" : c->msg, c->out ? "" : c->detail);
			else
				printf("FAIL %s\n  got:  ERROR %s %s | %s\n  want: %s%s %s %s\n", what,
				       util_errcode_sqlstate(e.code), e.message, e.detail,
				       c->out ? c->out : "ERROR ", c->out ? "" : c->state,
				       c->out ? "" : c->msg, c->out ? "" : c->detail);
		}
		util_buf_free(&out);
		util_arena_reset(a);
	}
	printf("num_cases: %d passed, %d failed, %d skipped (types of other areas)\n", passed, failed,
	       skipped);
	ty_set_arena(NULL);
	util_arena_destroy(a);
	assert_int_equal(failed, 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {cmocka_unit_test(test_cases)};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
