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

#include "array.h"
#include "exp_case.h"
#include "types.h"

static util_arena *exp_arena;

static inline void exp_setup_arena(void)
{
	if (!exp_arena)
		exp_arena = util_arena_new(1 << 16, 0);
	util_arena_reset(exp_arena);
	ty_set_arena(exp_arena);
}

static inline const char *nz(const char *s)
{
	return s ? s : "";
}

/* Cases over types another area has not registered yet are skipped
 * (counted and reported), not failed. */
static int exp_skipped;

/* "record(t1,t2,...)": field type names (current arena). */
static inline int exp_record_fields(const char *name, char ***out)
{
	char *s = ty_strdup(name + strlen("record("));
	s[strlen(s) - 1] = '\0';
	char **f = ty_alloc(sizeof *f * 16);
	int n = 0;
	char *save = NULL;
	for (char *tok = strtok_r(s, ",", &save); tok && n < 16; tok = strtok_r(NULL, ",", &save))
		f[n++] = tok;
	*out = f;
	return n;
}

static inline bool exp_is_record(const char *name)
{
	return strncmp(name, "record(", 7) == 0;
}

static inline bool exp_have_type(const char *name)
{
	if (exp_is_record(name)) {
		char **f;
		int n = exp_record_fields(name, &f);
		for (int i = 0; i < n; i++)
			if (!ty_type_by_name(f[i]))
				return false;
		return true;
	}
	return ty_type_by_name(name) != NULL;
}

/* A record value from \x1f-separated field literals ("\x1e" = NULL). */
static inline ty_datum exp_record_input(const char *type, const char *lit)
{
	char **f;
	int n = exp_record_fields(type, &f);
	ty_record *r = ty_alloc(sizeof *r);
	ty_oid *types = ty_alloc(sizeof *types * (size_t)n);
	ty_datum *vals = ty_alloc(sizeof *vals * (size_t)n);
	char *copy = ty_strdup(lit);
	char *p = copy;
	for (int i = 0; i < n; i++) {
		char *end = strchr(p, '\x1f');
		if (end)
			*end = '\0';
		types[i] = ty_type_by_name(f[i])->oid;
		vals[i] =
		    strcmp(p, "\x1e") == 0 ? ty_null() : ty_input(types[i], p, strlen(p), TY_TYPMOD_NONE);
		p = end ? end + 1 : p + strlen(p);
	}
	r->n = n;
	r->types = types;
	r->names = NULL;
	r->vals = vals;
	return ty_bytes(r, sizeof *r);
}

static inline ty_datum exp_input(const char *type, const char *lit)
{
	if (!lit)
		return ty_null();
	if (exp_is_record(type))
		return exp_record_input(type, lit);
	const ty_type *t = ty_type_by_name(type);
	return ty_input(t->oid, lit, strlen(lit), TY_TYPMOD_NONE);
}

static inline ty_oid exp_type(const char *name)
{
	if (exp_is_record(name))
		return TY_RECORD;
	const ty_type *t = ty_type_by_name(name);
	if (!t)
		ty_error(UTIL_E_UNDEFINED_OBJECT, "type \"%s\" does not exist", name);
	return t->oid;
}

static inline void exp_report_skips(void)
{
	if (exp_skipped)
		fprintf(stderr, "note: %d case(s) skipped: their types are not registered\n", exp_skipped);
}

/* Compares an error with the expected fields; returns 1 on mismatch. */
static inline int exp_check_err(const char *what, const util_err *e, const char *sqlstate,
				const char *message, const char *detail, const char *hint,
				const char *context)
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

static inline void io_body(void *arg)
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

static inline int exp_run_io(const exp_io *cases, size_t n)
{
	int bad = 0;
	for (size_t i = 0; i < n; i++) {
		exp_setup_arena();
		if (!exp_have_type(cases[i].type)) {
			exp_skipped++;
			continue;
		}
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

static inline void cmp_body(void *arg)
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

static inline int exp_run_cmp(const exp_cmp *cases, size_t n)
{
	int bad = 0;
	for (size_t i = 0; i < n; i++) {
		exp_setup_arena();
		if (!exp_have_type(cases[i].type)) {
			exp_skipped++;
			continue;
		}
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

/* ---------------------------------------------------------------- calls */

static inline bool exp_poly(ty_oid t)
{
	return t == TY_ANY || t == TY_ANYELEMENT || t == TY_ANYARRAY || t == TY_ANYNONARRAY ||
	       t == TY_ANYCOMPATIBLE || t == TY_ANYCOMPATIBLEARRAY || t == TY_ANYCOMPATIBLENONARRAY;
}

/* The registered function for concrete argument types: an exact match,
 * else one whose differing arguments are all polymorphic. */
static inline const ty_func *exp_find_func(const char *name, int nargs, const ty_oid *types)
{
	const ty_func *best = NULL, *f;
	int cur = 0;
	while ((f = ty_func_lookup(name, &cur))) {
		if (f->variadic && f->fn && nargs >= f->nargs) {
			/* VARIADIC: trailing arguments of the element type, packed by the caller. */
			bool ok = true;
			for (int i = 0; i < nargs && ok; i++)
				ok = i < f->nargs - 1 ? (f->args[i] == types[i] || exp_poly(f->args[i]))
						      : (types[i] == f->variadic || f->variadic == TY_ANY);
			if (ok && !(nargs == f->nargs && types[nargs - 1] == f->args[nargs - 1]))
				return f;
		}
		if (nargs > f->nargs || nargs < f->nargs - f->nargdefaults || !f->fn)
			continue;
		bool exact = true, ok = true;
		for (int i = 0; i < nargs; i++) {
			if (f->args[i] == types[i])
				continue;
			exact = false;
			if (!exp_poly(f->args[i]) && !(f->variadic && i == nargs - 1))
				ok = false;
		}
		if (exact && f->nargs == nargs)
			return f;
		if (ok && !best)
			best = f;
	}
	return best;
}

/* The result type PostgreSQL would resolve for polymorphic f. */
static inline ty_oid exp_resolve_ret(const ty_func *f, const ty_oid *types)
{
	ty_oid r = f->ret;
	if (!exp_poly(r))
		return r;
	ty_oid arr = 0, elem = 0;
	for (int i = 0; i < f->nargs; i++) {
		if (!exp_poly(f->args[i]))
			continue;
		const ty_type *t = ty_type_get(types[i]);
		if (t && t->category == 'A' && t->elem) {
			if (!arr)
				arr = types[i];
		} else if (!elem) {
			elem = types[i];
		}
	}
	if (r == TY_ANYARRAY || r == TY_ANYCOMPATIBLEARRAY) {
		if (arr)
			return arr;
		const ty_type *e = ty_type_get(elem);
		return e ? e->array : 0;
	}
	if (arr)
		return ty_type_get(arr)->elem;
	return elem;
}

typedef struct call_run {
	const exp_call *c;
	char *out;
	bool isnull;
} call_run;

static inline void call_body(void *arg)
{
	call_run *r = arg;
	const exp_call *c = r->c;
	ty_oid types[8];
	ty_datum args[8];
	bool anynull = false;
	for (int i = 0; i < c->nargs; i++) {
		types[i] = exp_type(c->types[i]);
		args[i] = exp_input(c->types[i], c->args[i]);
		anynull = anynull || args[i].null;
	}
	const ty_func *f = exp_find_func(c->fn, c->nargs, types);
	const ty_type *cast_to = c->nargs == 1 ? ty_type_by_name(c->fn) : NULL;
	if (!f && cast_to) {
		/* A cast without a function (I/O or binary coercion). */
		ty_datum d = ty_cast_value(args[0], types[0], cast_to->oid, TY_TYPMOD_NONE, true);
		r->isnull = d.null;
		if (!d.null)
			r->out = ty_output_cstring(cast_to->oid, d);
		return;
	}
	if (!f)
		ty_error(UTIL_E_UNDEFINED_FUNCTION, "no function %s for these types", c->fn);
	ty_oid ret = exp_resolve_ret(f, types);
	int nargs = c->nargs;
	if (f->variadic && f->variadic != TY_ANY &&
	    !(nargs == f->nargs && types[nargs - 1] == f->args[nargs - 1])) {
		/* Pack the trailing arguments into the VARIADIC array. */
		int first = f->nargs - 1;
		ty_datum arr = ty_array_from_list(f->variadic, nargs - first, args + first);
		args[first] = arr;
		types[first] = f->args[first];
		nargs = f->nargs;
		anynull = false;
		for (int i = 0; i < nargs; i++)
			anynull = anynull || args[i].null;
	}
	void *cache = NULL;
	ty_fcinfo fc = {.nargs = nargs,
			.args = args,
			.argtypes = types,
			.rettype = ret,
			.rettypmod = TY_TYPMOD_NONE,
			.cache = &cache,
			.cache_arena = ty_get_arena()};
	if (!f->retset) {
		if (f->strict && anynull) {
			r->isnull = true;
			return;
		}
		ty_datum d = f->fn(&fc);
		r->isnull = d.null;
		if (!d.null)
			r->out = ty_output_cstring(ret, d);
		return;
	}
	util_buf rows = UTIL_BUF_INIT;
	int n = 0;
	if (!(f->strict && anynull)) {
		fc.srf_first = true;
		for (;;) {
			ty_datum d = f->fn(&fc);
			fc.srf_first = false; /* as the executor does after each call */
			if (fc.srf_done)
				break;
			if (n++)
				util_buf_putc(&rows, '\n');
			if (d.null) {
				util_buf_puts(&rows, "NULL");
			} else {
				char *s = ty_output_cstring(ret, d);
				util_buf_puts(&rows, s);
			}
			if (n > 100000)
				ty_error(UTIL_E_INTERNAL_ERROR, "runaway set-returning function");
		}
	}
	char head[32];
	snprintf(head, sizeof head, "%d:", n);
	r->out = ty_alloc(strlen(head) + rows.len + 1);
	strcpy(r->out, head);
	memcpy(r->out + strlen(head), rows.data ? rows.data : "", rows.len + 1);
	util_buf_free(&rows);
	r->isnull = false;
}

static inline void exp_describe_call(const exp_call *c, char *buf, size_t n)
{
	size_t o = (size_t)snprintf(buf, n, "%s(", c->fn);
	for (int i = 0; i < c->nargs && o < n; i++)
		o += (size_t)snprintf(buf + o, n - o, "%s%s::%s", i ? ", " : "",
				      c->args[i] ? c->args[i] : "NULL", c->types[i]);
	if (o < n)
		snprintf(buf + o, n - o, ")");
}

static inline int exp_check_result(const char *what, int rc, const util_err *e, bool gotnull, const char *got,
				   bool isnull, const char *out, const char *sqlstate, const char *message,
				   const char *detail, const char *hint)
{
	if (rc != 0) {
		if (sqlstate)
			return exp_check_err(what, e, sqlstate, message, detail, hint, NULL);
		fprintf(stderr, "MISMATCH %s\n  expected %s\n  got error %s: %s (%s)\n", what,
			isnull ? "NULL" : out, util_errcode_sqlstate(e->code), e->message, e->detail);
		return 1;
	}
	if (sqlstate) {
		fprintf(stderr, "MISMATCH %s\n  expected error %s: %s\n  got      %s\n", what, sqlstate,
			message, gotnull ? "NULL" : got);
		return 1;
	}
	if (gotnull != isnull || (!isnull && strcmp(got, out) != 0)) {
		fprintf(stderr, "MISMATCH %s\n  expected %s\n  got      %s\n", what, isnull ? "NULL" : out,
			gotnull ? "NULL" : got);
		return 1;
	}
	return 0;
}

static inline int exp_run_calls(const exp_call *cases, size_t n)
{
	int bad = 0;
	for (size_t i = 0; i < n; i++) {
		exp_setup_arena();
		bool have = true;
		for (int k = 0; k < cases[i].nargs; k++)
			have = have && exp_have_type(cases[i].types[k]);
		if (!have) {
			exp_skipped++;
			continue;
		}
		call_run r = {&cases[i], NULL, false};
		util_err e;
		char what[1024];
		exp_describe_call(&cases[i], what, sizeof what);
		int rc = ty_protect(call_body, &r, &e);
		bad += exp_check_result(what, rc, &e, r.isnull, r.out, cases[i].isnull, cases[i].out,
					cases[i].sqlstate, cases[i].message, cases[i].detail, cases[i].hint);
	}
	return bad;
}

/* ---------------------------------------------------------------- aggregates */

typedef struct agg_run {
	const exp_agg *c;
	char *out;
	bool isnull;
} agg_run;

static inline void agg_body(void *arg)
{
	agg_run *r = arg;
	const exp_agg *c = r->c;
	ty_oid t = exp_type(c->type);
	const ty_agg *a = NULL, *x;
	int cur = 0;
	int nargs = c->type2 ? 2 : 1;
	while ((x = ty_agg_lookup(c->agg, &cur))) {
		if (x->nargs != nargs)
			continue;
		if (nargs == 2) {
			a = x;
			break;
		}
		const ty_type *tt = ty_type_get(t);
		bool isarr = tt->category == 'A' && tt->elem;
		if (x->args[0] == t || (x->args[0] == TY_ANYARRAY && isarr) ||
		    (x->args[0] == TY_ANYNONARRAY && !isarr) || x->args[0] == TY_ANYELEMENT ||
		    x->args[0] == TY_ANY) {
			a = x;
			if (x->args[0] == t)
				break;
		}
	}
	if (!a)
		ty_error(UTIL_E_UNDEFINED_FUNCTION, "no aggregate %s(%s)", c->agg, c->type);
	ty_oid ret = a->ret;
	if (ret == TY_ANYARRAY)
		ret = ty_type_get(t)->category == 'A' ? t : ty_type_get(t)->array;
	else if (ret == TY_ANYELEMENT)
		ret = t;
	void *state = ty_alloc0(a->state_size ? a->state_size : 1);
	void *cache = NULL;
	ty_datum argv[2];
	ty_oid types[2] = {t, c->type2 ? exp_type(c->type2) : 0};
	ty_fcinfo fc = {.nargs = nargs,
			.args = argv,
			.argtypes = types,
			.rettype = ret,
			.rettypmod = TY_TYPMOD_NONE,
			.cache = &cache,
			.cache_arena = ty_get_arena()};
	a->init(state, &fc);
	for (int i = 0; i < c->n; i++) {
		argv[0] = exp_input(c->type, c->values[i]);
		if (nargs == 2)
			argv[1] = exp_input(c->type2, c->values2[i]);
		if ((argv[0].null || (nargs == 2 && argv[1].null)) && a->strict)
			continue;
		a->step(state, &fc);
	}
	ty_datum d = a->final(state, &fc);
	r->isnull = d.null;
	if (!d.null)
		r->out = ty_output_cstring(ret, d);
}

static inline int exp_run_aggs(const exp_agg *cases, size_t n)
{
	int bad = 0;
	for (size_t i = 0; i < n; i++) {
		exp_setup_arena();
		if (!exp_have_type(cases[i].type) || (cases[i].type2 && !exp_have_type(cases[i].type2))) {
			exp_skipped++;
			continue;
		}
		agg_run r = {&cases[i], NULL, false};
		util_err e;
		char what[256];
		snprintf(what, sizeof what, "%s over %d %s rows", cases[i].agg, cases[i].n, cases[i].type);
		int rc = ty_protect(agg_body, &r, &e);
		bad += exp_check_result(what, rc, &e, r.isnull, r.out, cases[i].isnull, cases[i].out,
					cases[i].sqlstate, cases[i].message, cases[i].detail, cases[i].hint);
	}
	return bad;
}

#endif /* EXP_RUN_H */
