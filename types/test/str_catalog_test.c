/*
 * str_catalog_test.c — the string area's registrations against PostgreSQL
 * 15's catalog (types/test/str_catalog.inc, made by
 * gen/str_catalog_gen.py): every function, aggregate and operator
 * registered with one of PostgreSQL's oids must have its name, argument
 * and result types, volatility, strictness and set-returning flag; casts
 * between the string types must have pg_cast's context, method and
 * function. PostgreSQL entries not registered are listed (coverage).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <string.h>

#include "types.h"

typedef struct pg_proc_row {
	ty_oid oid;
	const char *name;
	int nargs;
	ty_oid args[TY_FUNC_MAX_ARGS];
	ty_oid ret;
	char vol;
	int strict, retset;
	char kind;
	ty_oid variadic;
} pg_proc_row;

typedef struct pg_oper_row {
	ty_oid oid;
	const char *name;
	ty_oid left, right, result, code;
	const char *com, *neg;
} pg_oper_row;

typedef struct pg_cast_row {
	ty_oid source, target;
	char context, method;
	const char *func;
} pg_cast_row;

static const pg_proc_row procs[] = {
#define STR_CATALOG_PROC
#include "str_catalog.inc"
#undef STR_CATALOG_PROC
};

static const pg_oper_row opers[] = {
#define STR_CATALOG_OPER
#include "str_catalog.inc"
#undef STR_CATALOG_OPER
};

static const pg_cast_row casts[] = {
#define STR_CATALOG_CAST
#include "str_catalog.inc"
#undef STR_CATALOG_CAST
};

static const pg_proc_row *proc_by_oid(ty_oid oid)
{
	for (size_t i = 0; i < sizeof procs / sizeof procs[0]; i++)
		if (procs[i].oid == oid)
			return &procs[i];
	return NULL;
}

static bool known_name(const char *name)
{
	for (size_t i = 0; i < sizeof procs / sizeof procs[0]; i++)
		if (strcmp(procs[i].name, name) == 0)
			return true;
	return false;
}

static int check_sig(const char *what, const char *name, ty_oid oid, int nargs, const ty_oid *args,
		     ty_oid ret, char kind)
{
	const pg_proc_row *p = proc_by_oid(oid);
	if (!p) {
		printf("FAIL %s %s: oid %u is not PostgreSQL's\n", what, name, oid);
		return 1;
	}
	int bad = strcmp(p->name, name) != 0 || p->nargs != nargs || p->ret != ret || p->kind != kind;
	for (int i = 0; i < nargs && !bad; i++)
		bad = p->args[i] != args[i];
	if (bad)
		printf("FAIL %s %s (oid %u): signature differs from PostgreSQL's %s/%d -> %u\n", what, name,
		       oid, p->name, p->nargs, p->ret);
	return bad;
}

static void test_functions(void **state)
{
	(void)state;
	ty_init();
	int fails = 0, checked = 0;
	const ty_func *f;
	for (int i = 0; (f = ty_func_nth(i)); i++) {
		if (!f->oid || !known_name(f->name))
			continue;
		checked++;
		if (check_sig("function", f->name, f->oid, f->nargs, f->args, f->ret, 'f')) {
			fails++;
			continue;
		}
		const pg_proc_row *p = proc_by_oid(f->oid);
		ty_oid variadic = f->variadic;
		if (p->vol != f->volatility || p->strict != f->strict || p->retset != f->retset ||
		    p->variadic != variadic) {
			printf(
			    "FAIL function %s (oid %u): vol %c/%c strict %d/%d retset %d/%d variadic %u/%u\n",
			    f->name, f->oid, f->volatility, p->vol, f->strict, p->strict, f->retset,
			    p->retset, variadic, p->variadic);
			fails++;
		}
	}
	const ty_agg *a;
	for (int i = 0; (a = ty_agg_nth(i)); i++) {
		if (!a->oid || !known_name(a->name))
			continue;
		checked++;
		fails += check_sig("aggregate", a->name, a->oid, a->nargs, a->args, a->ret, 'a');
	}
	/* coverage: PostgreSQL functions of these names nobody registered */
	int missing = 0;
	for (size_t i = 0; i < sizeof procs / sizeof procs[0]; i++) {
		bool found = ty_func_by_oid(procs[i].oid) || ty_agg_by_oid(procs[i].oid);
		if (!found) {
			printf("not registered: %s (oid %u)\n", procs[i].name, procs[i].oid);
			missing++;
		}
	}
	printf("%d functions/aggregates checked, %d failures, %d PostgreSQL entries not registered\n",
	       checked, fails, missing);
	assert_int_equal(fails, 0);
	assert_true(checked > 200);
}

static void test_operators(void **state)
{
	(void)state;
	int fails = 0, checked = 0;
	const ty_operator *o;
	for (int i = 0; (o = ty_operator_nth(i)); i++) {
		for (size_t k = 0; k < sizeof opers / sizeof opers[0]; k++) {
			const pg_oper_row *p = &opers[k];
			if (p->oid != o->oid)
				continue;
			checked++;
			const ty_func *f = ty_operator_func(o);
			bool bad = strcmp(p->name, o->name) != 0 || p->left != o->left ||
				   p->right != o->right || p->result != o->result || !f ||
				   ty_func_oid(f) != p->code ||
				   strcmp(p->com, o->commutator ? o->commutator : "") != 0 ||
				   strcmp(p->neg, o->negator ? o->negator : "") != 0;
			if (bad) {
				printf("FAIL operator %s (oid %u) differs from PostgreSQL's\n", o->name,
				       o->oid);
				fails++;
			}
		}
	}
	printf("%d operators checked, %d failures\n", checked, fails);
	assert_int_equal(fails, 0);
	assert_true(checked > 80);
}

static bool string_type(ty_oid t)
{
	return t == TY_BYTEA || t == TY_CHAR || t == TY_NAME || t == TY_TEXT || t == TY_BPCHAR ||
	       t == TY_VARCHAR || t == TY_UUID;
}

static void test_casts(void **state)
{
	(void)state;
	int fails = 0, checked = 0;
	for (size_t i = 0; i < sizeof casts / sizeof casts[0]; i++) {
		const pg_cast_row *p = &casts[i];
		bool ours = (string_type(p->source) && string_type(p->target)) ||
			    (p->source == TY_CHAR && p->target == TY_INT4) ||
			    (p->source == TY_INT4 && p->target == TY_CHAR);
		if (!ours)
			continue;
		checked++;
		const ty_cast *c = ty_cast_lookup(p->source, p->target);
		if (!c || c->context != p->context || c->method != p->method ||
		    (p->method == 'f' && (!c->func || strcmp(c->func, p->func) != 0))) {
			printf("FAIL cast %u -> %u: want %c %c %s\n", p->source, p->target, p->context,
			       p->method, p->func);
			fails++;
		}
	}
	printf("%d casts checked, %d failures\n", checked, fails);
	assert_int_equal(fails, 0);
	assert_true(checked > 15);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_functions),
	    cmocka_unit_test(test_operators),
	    cmocka_unit_test(test_casts),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
