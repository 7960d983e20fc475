/*
 * exp_run.h — runs the generated PostgreSQL expectation tables (exp_case.h)
 * against Strata's types: a per-test arena, running a case under
 * ty_protect, and reporting every mismatch (the test fails at the end with
 * the count, so one run shows all differences).
 */
#ifndef EXP_RUN_H
#define EXP_RUN_H

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <cmocka.h>

#include "exp_case.h"
#include "types.h"

static util_arena *exp_arena;

static void exp_setup_arena(void)
{
	if (!exp_arena)
		exp_arena = util_arena_new(1 << 16, 0);
	util_arena_reset(exp_arena);
	ty_set_arena(exp_arena);
}

static const char *nz(const char *s)
{
	return s ? s : "";
}

static ty_oid exp_type(const char *name)
{
	const ty_type *t = ty_type_by_name(name);
	if (!t) {
		fprintf(stderr, "unknown type %s\n", name);
		fail();
	}
	return t->oid;
}

/* Compares an error with the expected fields; returns 1 on mismatch. */
static int exp_check_err(const char *what, const util_err *e, const char *sqlstate, const char *message,
			 const char *detail, const char *hint, const char *context)
{
	int bad = 0;
	if (strcmp(util_errcode_sqlstate(e->code), sqlstate) != 0 || strcmp(e->message, message) != 0 ||
	    strcmp(e->detail, nz(detail)) != 0 || (hint && strcmp(e->hint, hint) != 0) ||
	    (context && strcmp(e->context, context) != 0))
		bad = 1;
	if (bad)
		fprintf(stderr,
			"MISMATCH %s\n  expected error %s: %s | detail: %s | hint: %s | context: %s\n"
			"  got      error %s: %s | detail: %s | hint: %s | context: %s\n",
			what, sqlstate, message, nz(detail), nz(hint), nz(context),
			util_errcode_sqlstate(e->code), e->message, e->detail, e->hint, e->context);
	return bad;
}

typedef struct io_run {
	const exp_io *c;
	char *out;
} io_run;

static void io_body(void *arg)
{
	io_run *r = arg;
	ty_oid t = exp_type(r->c->type);
	ty_datum d = ty_input(t, r->c->input, strlen(r->c->input), TY_TYPMOD_NONE);
	r->out = ty_output_cstring(t, d);
	/* Round trip: the output must read back to an equal value. */
	ty_datum d2 = ty_input(t, r->out, strlen(r->out), TY_TYPMOD_NONE);
	char *out2 = ty_output_cstring(t, d2);
	if (strcmp(out2, r->out) != 0)
		ty_error(UTIL_E_INTERNAL_ERROR, "round trip changed %s into %s", r->out, out2);
}

static int exp_run_io(const exp_io *cases, size_t n)
{
	int bad = 0;
	for (size_t i = 0; i < n; i++) {
		exp_setup_arena();
		io_run r = {&cases[i], NULL};
		util_err e;
		char what[512];
		snprintf(what, sizeof what, "'%s'::%s", cases[i].input, cases[i].type);
		if (ty_protect(io_body, &r, &e) == 0) {
			if (!cases[i].output) {
				fprintf(stderr, "MISMATCH %s\n  expected error %s: %s\n  got      %s\n", what,
					cases[i].sqlstate, cases[i].message, r.out);
				bad++;
			} else if (strcmp(r.out, cases[i].output) != 0) {
				fprintf(stderr, "MISMATCH %s\n  expected %s\n  got      %s\n", what,
					cases[i].output, r.out);
				bad++;
			}
		} else if (!cases[i].output) {
			bad += exp_check_err(what, &e, cases[i].sqlstate, cases[i].message, cases[i].detail,
					     NULL, cases[i].context ? cases[i].context : "");
		} else {
			fprintf(stderr, "MISMATCH %s\n  expected %s\n  got error %s: %s (%s)\n", what,
				cases[i].output, util_errcode_sqlstate(e.code), e.message, e.detail);
			bad++;
		}
	}
	return bad;
}

typedef struct cmp_run {
	const exp_cmp *c;
	int got;
} cmp_run;

static void cmp_body(void *arg)
{
	cmp_run *r = arg;
	ty_oid t = exp_type(r->c->type);
	ty_datum a = ty_input(t, r->c->a, strlen(r->c->a), TY_TYPMOD_NONE);
	ty_datum b = ty_input(t, r->c->b, strlen(r->c->b), TY_TYPMOD_NONE);
	int c = ty_compare(t, a, b);
	r->got = c < 0 ? -1 : c > 0;
	int back = ty_compare(t, b, a);
	if ((back < 0 ? -1 : back > 0) != -r->got)
		ty_error(UTIL_E_INTERNAL_ERROR, "comparison is not antisymmetric");
	const ty_type *tt = ty_type_get(t);
	if (tt->hash && r->got == 0 && tt->hash(a) != tt->hash(b))
		ty_error(UTIL_E_INTERNAL_ERROR, "equal values hash differently");
	if (tt->keyenc) {
		util_buf ka = UTIL_BUF_INIT, kb = UTIL_BUF_INIT;
		tt->keyenc(a, &ka);
		tt->keyenc(b, &kb);
		size_t m = ka.len < kb.len ? ka.len : kb.len;
		int kc = memcmp(ka.data, kb.data, m);
		kc = kc ? (kc < 0 ? -1 : 1) : (ka.len < kb.len ? -1 : ka.len > kb.len);
		ty_datum dec;
		size_t used = tt->keydec((const uint8_t *)ka.data, (const uint8_t *)ka.data + ka.len, &dec);
		bool rt = used == ka.len && ty_compare(t, dec, a) == 0;
		util_buf_free(&ka);
		util_buf_free(&kb);
		if (kc != r->got)
			ty_error(UTIL_E_INTERNAL_ERROR, "key order %d differs from comparison %d", kc,
				 r->got);
		if (!rt)
			ty_error(UTIL_E_INTERNAL_ERROR, "key does not decode to an equal value");
	}
}

static int exp_run_cmp(const exp_cmp *cases, size_t n)
{
	int bad = 0;
	for (size_t i = 0; i < n; i++) {
		exp_setup_arena();
		cmp_run r = {&cases[i], 0};
		util_err e;
		if (ty_protect(cmp_body, &r, &e) != 0) {
			fprintf(stderr, "MISMATCH cmp %s %s %s: error %s\n", cases[i].type, cases[i].a,
				cases[i].b, e.message);
			bad++;
		} else if (r.got != cases[i].cmp) {
			fprintf(stderr, "MISMATCH cmp %s %s %s: expected %d got %d\n", cases[i].type,
				cases[i].a, cases[i].b, cases[i].cmp, r.got);
			bad++;
		}
	}
	return bad;
}

#endif /* EXP_RUN_H */
