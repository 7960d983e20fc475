/*
 * catalog_funcs_deparse.c — PostgreSQL's ruleutils for Strata: turns stored
 * SQL (column defaults, CHECK constraints, index expressions and
 * predicates, view queries) back into the text pg_get_expr(),
 * pg_get_constraintdef(), pg_get_indexdef() and pg_get_viewdef() print.
 *
 * The stored text is analyzed against its table (as PostgreSQL's catalog
 * holds analyzed trees) and the analyzed tree is printed with PostgreSQL's
 * rules: constants labelled with their type unless it is obvious,
 * implicit casts hidden, explicit ones as ::type, Vars qualified in view
 * queries, and two modes — "pretty" (PRETTYFLAG_PAREN: parentheses only
 * where precedence needs them) and plain (every operator parenthesised).
 * Both indent clauses of a query as PostgreSQL does (PRETTYFLAG_INDENT).
 * When stored text cannot be analyzed any more, it is printed as stored.
 */
#include <ctype.h>
#include <errno.h>
#include <stdlib.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "array.h"
#include "sysview.h"
#include "ty_strings.h"

/* ---------------------------------------------------------------- context */

#define INDENT_STD  8
#define INDENT_JOIN 4
#define INDENT_VAR  4

typedef struct qlevel {
	const sql_query *q;
	const struct qlevel *up;
} qlevel;

typedef struct dctx {
	util_buf *b;
	bool paren;       /* pretty: parenthesise only where needed */
	bool varprefix;   /* qualify column references */
	int level;        /* indentation level */
	const char *text; /* source text (locations point into it) */
	const qlevel *qs; /* the query being printed and its parents */
	sql_session *s;
	cat_snap *cs;
	char **resnames; /* set operation leaves: the result's column names */
	int nresnames;
	bool in_sublink; /* printing a sublink's query */
} dctx;

static void expr(dctx *d, const sql_expr *e, bool showimplicit);
static void query_def(dctx *d, const sql_query *q, int startindent);

/* PostgreSQL's quote_identifier. */
void sql_quote_identifier(const char *n, util_buf *out)
{
	ty_quote_ident(n, strlen(n), out); /* one keyword list: types/str_format.c */
}

static void ident(dctx *d, const char *n)
{
	sql_quote_identifier(n, d->b);
}

/* Strips trailing spaces, then starts a new line indented for a clause
 * keyword (ruleutils' appendContextKeyword). */
static void keyword(dctx *d, const char *str, int before, int after, int plus)
{
	d->level += before;
	while (d->b->len && d->b->data[d->b->len - 1] == ' ')
		d->b->len--;
	if (d->b->data)
		d->b->data[d->b->len] = '\0';
	util_buf_putc(d->b, '\n');
	int n = (d->level < 0 ? 0 : d->level) + plus;
	for (int i = 0; i < n; i++)
		util_buf_putc(d->b, ' ');
	util_buf_puts(d->b, str);
	d->level += after;
	if (d->level < 0)
		d->level = 0;
}

/* ---------------------------------------------------------------- constants */

static void quote_literal(util_buf *b, const char *s, size_t n)
{
	bool bs = memchr(s, '\\', n) != NULL;
	if (bs)
		util_buf_putc(b, 'E');
	util_buf_putc(b, '\'');
	for (size_t i = 0; i < n; i++) {
		if (s[i] == '\'' || s[i] == '\\')
			util_buf_putc(b, s[i]);
		util_buf_putc(b, s[i]);
	}
	util_buf_putc(b, '\'');
}

static void type_label(dctx *d, ty_oid type, int32_t typmod)
{
	util_buf_puts(d->b, "::");
	ty_format_type(type, typmod, d->b);
}

/* showtype: -1 never label, 0 label when needed, 1 always label. */
static void const_expr(dctx *d, const sql_expr *e, int showtype)
{
	if (e->c.null) {
		util_buf_puts(d->b, "NULL");
		if (showtype >= 0 && e->type != TY_UNKNOWN)
			type_label(d, e->type, e->typmod);
		return;
	}
	util_buf v = UTIL_BUF_INIT;
	ty_output(e->type, e->c, &v);
	const char *s = v.data ? v.data : "";
	bool needlabel = false;
	switch (e->type) {
	case TY_INT4:
		if (s[0] != '-') {
			util_buf_puts(d->b, s);
		} else {
			quote_literal(d->b, s, v.len);
			needlabel = true;
		}
		break;
	case TY_NUMERIC:
		if (isdigit((unsigned char)s[0]) && strcspn(s, "eE.") != strlen(s)) {
			util_buf_puts(d->b, s);
		} else {
			quote_literal(d->b, s, v.len);
			needlabel = true;
		}
		break;
	case TY_BOOL:
		util_buf_puts(d->b, e->c.i ? "true" : "false");
		break;
	default:
		quote_literal(d->b, s, v.len);
		break;
	}
	util_buf_free(&v);
	if (showtype < 0)
		return;
	switch (e->type) {
	case TY_BOOL:
	case TY_UNKNOWN:
		needlabel = false;
		break;
	case TY_INT4:
		break;
	case TY_NUMERIC:
		needlabel |= e->typmod >= 0;
		break;
	default:
		needlabel = true;
		break;
	}
	if (needlabel || showtype > 0)
		type_label(d, e->type, e->typmod);
}

/*
 * The analyzer folds casts of constants (1::float8 becomes a float8 1);
 * PostgreSQL keeps the cast and prints it: (1)::double precision. A
 * constant whose source text is a numeric literal of another type is
 * printed that way: the literal as a constant of its own type, then the
 * cast — always for a cast written out (::), for an implicit one only
 * where implicit casts show (operator and function arguments).
 */
static bool literal_cast(dctx *d, const sql_expr *e, bool showimplicit)
{
	if (e->c.null || !d->text || e->location < 0 || (size_t)e->location >= strlen(d->text))
		return false;
	const char *p = d->text + e->location, *q = p;
	if (*q == '-')
		q++;
	if (!isdigit((unsigned char)*q) && !(*q == '.' && isdigit((unsigned char)q[1])))
		return false;
	bool integral = true;
	while (isdigit((unsigned char)*q) || *q == '.' || *q == 'e' || *q == 'E' ||
	       ((*q == '+' || *q == '-') && (q[-1] == 'e' || q[-1] == 'E'))) {
		if (!isdigit((unsigned char)*q))
			integral = false;
		q++;
	}
	if (isalpha((unsigned char)*q) || *q == '_')
		return false;
	char lit[64];
	size_t n = (size_t)(q - p);
	if (n >= sizeof lit)
		return false;
	memcpy(lit, p, n);
	lit[n] = '\0';
	/* The literal's own type, as the parser gives it. */
	ty_oid natural = TY_NUMERIC;
	if (integral) {
		errno = 0;
		long long v = strtoll(lit, NULL, 10);
		if (errno == 0)
			natural = v >= INT32_MIN && v <= INT32_MAX ? TY_INT4 : TY_INT8;
	}
	if (natural == e->type)
		return false;
	const char *after = q;
	while (*after == ' ')
		after++;
	bool written = after[0] == ':' && after[1] == ':';
	sql_expr inner = *e;
	inner.type = natural;
	inner.typmod = -1;
	inner.c = ty_input(natural, lit, n, -1);
	if (!written && !showimplicit) {
		const_expr(d, &inner, 0);
		return true;
	}
	if (!d->paren)
		util_buf_putc(d->b, '(');
	const_expr(d, &inner, 0);
	if (!d->paren)
		util_buf_putc(d->b, ')');
	type_label(d, e->type, e->typmod);
	return true;
}

/* ---------------------------------------------------------------- precedence */

typedef enum ncls {
	N_SIMPLE = 1, /* words and function-like nodes */
	N_OP,         /* operator */
	N_TEST,       /* IS NULL, IS TRUE, IS DISTINCT, sublinks */
	N_BOOL,       /* AND / OR / NOT */
	N_OTHER
} ncls;

static bool is_implicit_cast(const sql_expr *e)
{
	return e->kind == SQL_E_CAST && !e->cast.explicit_cast;
}

static ncls classify(const sql_expr *e)
{
	switch (e->kind) {
	case SQL_E_CONST:
	case SQL_E_PARAM:
	case SQL_E_EXECPARAM:
	case SQL_E_VAR:
	case SQL_E_SLOT:
	case SQL_E_CASETEST:
	case SQL_E_SESSION:
	case SQL_E_CASE:
	case SQL_E_COALESCE:
	case SQL_E_NULLIF:
	case SQL_E_GREATEST:
	case SQL_E_LEAST:
	case SQL_E_ARRAY:
	case SQL_E_ROW:
	case SQL_E_AGG:
	case SQL_E_WINDOW:
	case SQL_E_SRF:
	case SQL_E_SUBSCRIPT:
	case SQL_E_GROUPING:
	case SQL_E_FIELD:
		return N_SIMPLE;
	case SQL_E_FUNC:
		return e->f.opname ? N_OP : N_SIMPLE;
	case SQL_E_CAST:
		return N_SIMPLE;
	case SQL_E_NULLTEST:
	case SQL_E_BOOLTEST:
	case SQL_E_DISTINCT:
	case SQL_E_SUBLINK:
		return N_TEST;
	case SQL_E_AND:
	case SQL_E_OR:
	case SQL_E_NOT:
		return N_BOOL;
	default:
		return N_OTHER;
	}
}

static int op_prio(const char *op)
{
	if (!op || !op[0] || op[1])
		return 0;
	if (strchr("+-", op[0]))
		return 1;
	if (strchr("*/%", op[0]))
		return 2;
	return 0;
}

/* Whether node e printed under parent needs no parentheses in pretty
 * mode (ruleutils' isSimpleNode). first: e is the parent's first operand. */
static bool simple_under(const sql_expr *e, const sql_expr *parent, bool first)
{
	/* Implicit casts print as their argument. */
	while (is_implicit_cast(e))
		e = e->cast.arg;
	ncls c = classify(e), pc = parent ? classify(parent) : N_OTHER;
	if (e->kind == SQL_E_CAST && e->cast.method != SQL_CAST_FUNC)
		return simple_under(e->cast.arg, e, true);
	switch (c) {
	case N_SIMPLE:
		return true;
	case N_OP:
		if (parent && pc == N_OP && e->f.nargs == 2 && parent->f.nargs == 2) {
			int p = op_prio(e->f.opname), pp = op_prio(parent->f.opname);
			if (!p || !pp)
				return false;
			if (p == 2 && pp == 1)
				return true;
			if (p == 1 && pp == 2)
				return false;
			return first;
		}
		/* fall through */
	case N_TEST:
		if (!parent)
			return false;
		switch (parent->kind) {
		case SQL_E_FUNC:
			return !parent->f.opname;
		case SQL_E_CAST:
			return false;
		case SQL_E_AND:
		case SQL_E_OR:
		case SQL_E_NOT:
		case SQL_E_SUBSCRIPT:
		case SQL_E_ARRAY:
		case SQL_E_ROW:
		case SQL_E_COALESCE:
		case SQL_E_GREATEST:
		case SQL_E_LEAST:
		case SQL_E_NULLIF:
		case SQL_E_AGG:
		case SQL_E_WINDOW:
		case SQL_E_CASE:
			return true;
		default:
			return false;
		}
	case N_BOOL:
		if (!parent)
			return false;
		switch (parent->kind) {
		case SQL_E_AND:
		case SQL_E_OR:
		case SQL_E_NOT:
			if (e->kind == SQL_E_NOT || e->kind == SQL_E_AND)
				return parent->kind == SQL_E_AND || parent->kind == SQL_E_OR;
			return parent->kind == SQL_E_OR;
		case SQL_E_FUNC:
			return !parent->f.opname;
		case SQL_E_CAST:
			return false;
		case SQL_E_SUBSCRIPT:
		case SQL_E_ARRAY:
		case SQL_E_ROW:
		case SQL_E_COALESCE:
		case SQL_E_GREATEST:
		case SQL_E_LEAST:
		case SQL_E_NULLIF:
		case SQL_E_AGG:
		case SQL_E_WINDOW:
		case SQL_E_CASE:
			return true;
		default:
			return false;
		}
	default:
		return false;
	}
}

static void expr_paren(dctx *d, const sql_expr *e, bool showimplicit, const sql_expr *parent, bool first)
{
	bool need = d->paren && !simple_under(e, parent, first);
	if (need)
		util_buf_putc(d->b, '(');
	expr(d, e, showimplicit);
	if (need)
		util_buf_putc(d->b, ')');
}

/* ---------------------------------------------------------------- names */

static const sql_rte *var_rte(dctx *d, const sql_expr *e, const sql_query **qout)
{
	const qlevel *l = d->qs;
	for (int i = 0; l && i < e->var.levelsup; i++)
		l = l->up;
	if (!l || e->var.rte < 1 || e->var.rte > l->q->nrtes)
		return NULL;
	*qout = l->q;
	return l->q->rtes[e->var.rte - 1];
}

/* The name a relation is printed with: qualified when not visible. */
static void rel_name(dctx *d, const cat_obj *rel)
{
	if (!sql_rel_visible(d->s, d->cs, rel)) {
		ident(d, sql_schema_name(d->cs, rel->rel.schema));
		util_buf_putc(d->b, '.');
	}
	ident(d, rel->rel.name);
}

static const char *rte_refname(const sql_rte *r)
{
	if (r->kind == SQL_RTE_TABLE && !r->has_alias && r->rel)
		return r->rel->rel.name;
	return r->alias;
}

static void var_expr(dctx *d, const sql_expr *e)
{
	const sql_query *q;
	const sql_rte *r = var_rte(d, e, &q);
	if (!r || e->var.col >= r->ncols) {
		util_buf_puts(d->b, "?");
		return;
	}
	/* A merged column of a JOIN ... USING prints as its first source. */
	if (r->kind == SQL_RTE_JOIN && r->joinvars && r->joinvars[e->var.col] && !r->has_alias) {
		const sql_expr *jv = r->joinvars[e->var.col];
		while (is_implicit_cast(jv))
			jv = jv->cast.arg;
		if (jv->kind == SQL_E_VAR) {
			sql_expr tmp = *jv;
			tmp.var.levelsup += e->var.levelsup;
			var_expr(d, &tmp);
			return;
		}
		if (jv->kind == SQL_E_COALESCE) {
			expr(d, jv, false);
			return;
		}
	}
	if (d->varprefix && *rte_refname(r)) {
		ident(d, rte_refname(r));
		util_buf_putc(d->b, '.');
	}
	ident(d, r->colnames[e->var.col]);
}

/* ---------------------------------------------------------------- expressions */

static void args_list(dctx *d, sql_expr *const *args, int n)
{
	for (int i = 0; i < n; i++) {
		if (i)
			util_buf_puts(d->b, ", ");
		expr(d, args[i], true);
	}
}

/* SQL keyword functions (CURRENT_DATE ...) are analyzed into now() and
 * casts; the source text tells which one was written. */
static const char *sqlvalue_at(dctx *d, int location)
{
	static const char *const kws[] = {"current_timestamp", "current_date", "current_time",
					  "localtimestamp", "localtime"};
	if (!d->text || location < 0 || (size_t)location >= strlen(d->text))
		return NULL;
	const char *p = d->text + location;
	for (size_t i = 0; i < UTIL_ARRAY_LEN(kws); i++) {
		size_t n = strlen(kws[i]);
		if (!strncasecmp(p, kws[i], n) && !(isalnum((unsigned char)p[n]) || p[n] == '_'))
			return kws[i];
	}
	return NULL;
}

static bool sqlvalue(dctx *d, const sql_expr *e)
{
	const sql_expr *now = e;
	if (e->kind == SQL_E_CAST)
		now = e->cast.arg;
	if (now->kind != SQL_E_FUNC || now->f.opname || now->f.nargs || strcmp(now->f.fn->name, "now"))
		return false;
	const char *kw = sqlvalue_at(d, e->location);
	if (!kw)
		return false;
	for (const char *p = kw; *p; p++)
		util_buf_putc(d->b, (char)toupper((unsigned char)*p));
	if (e->kind == SQL_E_CAST && e->typmod >= 0)
		util_buf_printf(d->b, "(%d)", e->typmod);
	return true;
}

static void func_call(dctx *d, const sql_expr *e)
{
	util_buf_puts(d->b, e->f.fn->name);
	util_buf_putc(d->b, '(');
	int n = e->f.nargs;
	for (int i = 0; i < n; i++) {
		if (i)
			util_buf_puts(d->b, ", ");
		if (e->f.fn->variadic && i == n - 1 && e->f.args[i]->kind == SQL_E_ARRAY)
			util_buf_puts(d->b, "VARIADIC ");
		expr(d, e->f.args[i], true);
	}
	util_buf_putc(d->b, ')');
}

static void oper(dctx *d, const sql_expr *e)
{
	if (!d->paren)
		util_buf_putc(d->b, '(');
	if (e->f.nargs == 2) {
		expr_paren(d, e->f.args[0], true, e, true);
		util_buf_printf(d->b, " %s ", e->f.opname);
		expr_paren(d, e->f.args[1], true, e, false);
	} else {
		util_buf_printf(d->b, "%s ", e->f.opname);
		expr_paren(d, e->f.args[0], true, e, true);
	}
	if (!d->paren)
		util_buf_putc(d->b, ')');
}

static void cast_expr(dctx *d, const sql_expr *e, bool showimplicit)
{
	const sql_expr *arg = e->cast.arg;
	/* Implicit casts show only where the caller asks (operator and
	 * function arguments), as ruleutils' showimplicit. */
	if (!e->cast.explicit_cast && !showimplicit) {
		expr_paren(d, arg, false, e, true);
		return;
	}
	if (arg->kind == SQL_E_CONST) {
		const_expr(d, arg, -1);
	} else {
		if (!d->paren)
			util_buf_putc(d->b, '(');
		expr_paren(d, arg, false, e, true);
		if (!d->paren)
			util_buf_putc(d->b, ')');
	}
	type_label(d, e->type, e->typmod);
}

static void case_expr(dctx *d, const sql_expr *e)
{
	int k = 0;
	keyword(d, "CASE", 0, INDENT_VAR, 0);
	if (e->f.negate) {
		util_buf_putc(d->b, ' ');
		expr(d, e->f.args[k++], true);
	}
	for (; k + 1 < e->f.nargs; k += 2) {
		const sql_expr *w = e->f.args[k];
		keyword(d, "WHEN ", 0, 0, 0);
		if (e->f.negate && w->kind == SQL_E_FUNC && w->f.nargs == 2 &&
		    w->f.args[0]->kind == SQL_E_CASETEST)
			expr(d, w->f.args[1], false); /* CASE x WHEN v: print only v */
		else
			expr(d, w, false);
		util_buf_puts(d->b, " THEN ");
		expr(d, e->f.args[k + 1], true);
	}
	const sql_expr *def = e->f.args[e->f.nargs - 1];
	while (is_implicit_cast(def))
		def = def->cast.arg;
	if (!(def->kind == SQL_E_CONST && def->c.null)) {
		keyword(d, "ELSE ", 0, 0, 0);
		expr(d, e->f.args[e->f.nargs - 1], true);
	}
	keyword(d, "END", -INDENT_VAR, 0, 0);
}

/* ruleutils' get_sublink_expr: "(EXISTS (q))", "(x IN (q))", "(q)", "ARRAY(q)". */
static void sublink(dctx *d, const sql_expr *e)
{
	bool test = e->sub.kind == SQL_SUB_ANY || e->sub.kind == SQL_SUB_ALL;
	bool need_paren = e->sub.kind != SQL_SUB_EXPR && e->sub.kind != SQL_SUB_ARRAY;
	util_buf_puts(d->b, e->sub.kind == SQL_SUB_ARRAY ? "ARRAY(" : "(");
	if (test) {
		expr(d, e->sub.testexpr, true);
		util_buf_puts(d->b, e->sub.kind == SQL_SUB_ANY ? " IN " : " <> ALL ");
	} else if (e->sub.kind == SQL_SUB_EXISTS) {
		util_buf_puts(d->b, "EXISTS ");
	}
	if (need_paren)
		util_buf_putc(d->b, '(');
	qlevel ql = {e->sub.query, d->qs};
	const qlevel *saved = d->qs;
	bool saved_in = d->in_sublink;
	d->qs = &ql;
	d->in_sublink = true;
	query_def(d, e->sub.query, d->level);
	d->qs = saved;
	d->in_sublink = saved_in;
	util_buf_puts(d->b, need_paren ? "))" : ")");
}

static void agg_expr(dctx *d, const sql_aggref *a, const char *name)
{
	util_buf_puts(d->b, name);
	util_buf_putc(d->b, '(');
	if (a->distinct)
		util_buf_puts(d->b, "DISTINCT ");
	if (a->star) {
		util_buf_putc(d->b, '*');
	} else {
		args_list(d, a->args, a->nargs);
		if (a->norder && a->ndirect == 0) {
			util_buf_puts(d->b, " ORDER BY ");
			for (int i = 0; i < a->norder; i++) {
				if (i)
					util_buf_puts(d->b, ", ");
				expr(d, a->order[i].expr, false);
				if (a->order[i].desc)
					util_buf_puts(d->b, " DESC");
			}
		}
	}
	util_buf_putc(d->b, ')');
	if (a->filter) {
		util_buf_puts(d->b, " FILTER (WHERE ");
		expr(d, a->filter, false);
		util_buf_putc(d->b, ')');
	}
}

static const char *aggref_name(const sql_aggref *a)
{
	if (a->agg)
		return a->agg->name;
	switch (a->kind) {
	case SQL_AGG_COUNT:
	case SQL_AGG_COUNT_STAR:
		return "count";
	case SQL_AGG_MIN:
		return "min";
	case SQL_AGG_MAX:
		return "max";
	default:
		return "agg";
	}
}

static void expr(dctx *d, const sql_expr *e, bool showimplicit)
{
	if (!e) {
		util_buf_puts(d->b, "NULL");
		return;
	}
	switch (e->kind) {
	case SQL_E_CONST:
		if (!literal_cast(d, e, showimplicit))
			const_expr(d, e, 0);
		return;
	case SQL_E_PARAM:
	case SQL_E_EXECPARAM:
		util_buf_printf(d->b, "$%d", e->param);
		return;
	case SQL_E_VAR:
		var_expr(d, e);
		return;
	case SQL_E_SLOT:
		util_buf_printf(d->b, "$col%d", e->slot + 1);
		return;
	case SQL_E_FUNC:
		if (sqlvalue(d, e))
			return;
		if (e->f.opname)
			oper(d, e);
		else
			func_call(d, e);
		return;
	case SQL_E_AND:
	case SQL_E_OR:
		if (!d->paren)
			util_buf_putc(d->b, '(');
		for (int i = 0; i < e->f.nargs; i++) {
			if (i)
				util_buf_puts(d->b, e->kind == SQL_E_AND ? " AND " : " OR ");
			expr_paren(d, e->f.args[i], false, e, i == 0);
		}
		if (!d->paren)
			util_buf_putc(d->b, ')');
		return;
	case SQL_E_NOT:
		if (!d->paren)
			util_buf_putc(d->b, '(');
		util_buf_puts(d->b, "NOT ");
		expr_paren(d, e->f.args[0], false, e, true);
		if (!d->paren)
			util_buf_putc(d->b, ')');
		return;
	case SQL_E_CASE:
		case_expr(d, e);
		return;
	case SQL_E_CASETEST:
		util_buf_puts(d->b, "CASE_TEST_EXPR");
		return;
	case SQL_E_COALESCE:
	case SQL_E_GREATEST:
	case SQL_E_LEAST:
		util_buf_puts(d->b, e->kind == SQL_E_COALESCE   ? "COALESCE("
				    : e->kind == SQL_E_GREATEST ? "GREATEST("
								: "LEAST(");
		args_list(d, e->f.args, e->f.nargs);
		util_buf_putc(d->b, ')');
		return;
	case SQL_E_NULLIF:
		util_buf_puts(d->b, "NULLIF(");
		args_list(d, e->f.args, e->f.nargs);
		util_buf_putc(d->b, ')');
		return;
	case SQL_E_NULLTEST:
		if (!d->paren)
			util_buf_putc(d->b, '(');
		expr_paren(d, e->f.args[0], true, e, true);
		util_buf_puts(d->b, e->f.negate ? " IS NOT NULL" : " IS NULL");
		if (!d->paren)
			util_buf_putc(d->b, ')');
		return;
	case SQL_E_BOOLTEST: {
		static const char *const tests[] = {"",
						    " IS TRUE",
						    " IS NOT TRUE",
						    " IS FALSE",
						    " IS NOT FALSE",
						    " IS UNKNOWN",
						    " IS NOT UNKNOWN"};
		if (!d->paren)
			util_buf_putc(d->b, '(');
		expr_paren(d, e->f.args[0], false, e, true);
		util_buf_puts(d->b,
			      e->f.booltest > 0 && e->f.booltest < 7 ? tests[e->f.booltest] : " IS UNKNOWN");
		if (!d->paren)
			util_buf_putc(d->b, ')');
		return;
	}
	case SQL_E_DISTINCT:
		if (!d->paren)
			util_buf_putc(d->b, '(');
		expr_paren(d, e->f.args[0], true, e, true);
		util_buf_puts(d->b, e->f.negate ? " IS NOT DISTINCT FROM " : " IS DISTINCT FROM ");
		expr_paren(d, e->f.args[1], true, e, false);
		if (!d->paren)
			util_buf_putc(d->b, ')');
		return;
	case SQL_E_CAST:
		if (sqlvalue(d, e))
			return;
		cast_expr(d, e, showimplicit);
		return;
	case SQL_E_SUBLINK:
		sublink(d, e);
		return;
	case SQL_E_ARRAY:
		util_buf_puts(d->b, "ARRAY[");
		args_list(d, e->f.args, e->f.nargs);
		util_buf_putc(d->b, ']');
		return;
	case SQL_E_ROW:
		util_buf_puts(d->b, "ROW(");
		args_list(d, e->f.args, e->f.nargs);
		util_buf_putc(d->b, ')');
		return;
	case SQL_E_ANYARRAY:
		if (!d->paren)
			util_buf_putc(d->b, '(');
		/* Strata coerces the left side of IN lists to the items' type;
		 * PostgreSQL keeps it and picks a cross-type operator: print it
		 * without that cast. */
		expr_paren(d, e->f.args[0], !is_implicit_cast(e->f.args[0]), e, true);
		util_buf_printf(d->b, " %s %s (", e->f.opname ? e->f.opname : "=", e->f.all ? "ALL" : "ANY");
		expr(d, e->f.args[1], true);
		util_buf_putc(d->b, ')');
		if (!d->paren)
			util_buf_putc(d->b, ')');
		return;
	case SQL_E_ROWCMP: {
		util_buf_puts(d->b, "(ROW(");
		for (int i = 0; i < e->f.nargs; i += 2) {
			if (i)
				util_buf_puts(d->b, ", ");
			expr(d, e->f.args[i], true);
		}
		util_buf_printf(d->b, ") %s ROW(", e->f.opname ? e->f.opname : "=");
		for (int i = 1; i < e->f.nargs; i += 2) {
			if (i > 1)
				util_buf_puts(d->b, ", ");
			expr(d, e->f.args[i], true);
		}
		util_buf_puts(d->b, "))");
		return;
	}
	case SQL_E_AGG: {
		const sql_query *q = d->qs ? d->qs->q : NULL;
		if (q && e->agg >= 0 && e->agg < q->naggs)
			agg_expr(d, &q->aggs[e->agg], aggref_name(&q->aggs[e->agg]));
		else
			util_buf_puts(d->b, "aggregate()");
		return;
	}
	case SQL_E_WINDOW: {
		const sql_query *q = d->qs ? d->qs->q : NULL;
		if (!q || e->win < 0 || e->win >= q->nwins) {
			util_buf_puts(d->b, "window()");
			return;
		}
		const sql_winref *w = &q->wins[e->win];
		util_buf_puts(d->b, w->name);
		util_buf_putc(d->b, '(');
		if (w->star)
			util_buf_putc(d->b, '*');
		else
			args_list(d, w->args, w->nargs);
		util_buf_puts(d->b, ") OVER (");
		if (w->winclause >= 0 && w->winclause < q->nwinclauses) {
			const sql_window_clause *wc = &q->winclauses[w->winclause];
			if (wc->npart) {
				util_buf_puts(d->b, "PARTITION BY ");
				args_list(d, wc->part, wc->npart);
			}
			if (wc->norder) {
				util_buf_puts(d->b, wc->npart ? " ORDER BY " : "ORDER BY ");
				for (int i = 0; i < wc->norder; i++) {
					if (i)
						util_buf_puts(d->b, ", ");
					expr(d, wc->order[i].expr, false);
					if (wc->order[i].desc)
						util_buf_puts(d->b, " DESC");
				}
			}
		}
		util_buf_putc(d->b, ')');
		return;
	}
	case SQL_E_SRF:
		func_call(d, e);
		return;
	case SQL_E_FIELD:
		util_buf_putc(d->b, '(');
		expr(d, e->field.arg, true);
		util_buf_printf(d->b, ").f%d", e->field.field + 1);
		return;
	case SQL_E_SUBSCRIPT:
		/* args: container, then lower/upper per subscript (sql_int.h) */
		expr_paren(d, e->f.args[0], true, e, true);
		for (int i = 0; i < e->f.booltest; i++) {
			const sql_expr *lo = e->f.args[1 + 2 * i], *hi = e->f.args[2 + 2 * i];
			util_buf_putc(d->b, '[');
			if (e->f.all) {
				if (lo)
					expr(d, lo, false);
				util_buf_putc(d->b, ':');
				if (hi)
					expr(d, hi, false);
			} else {
				expr(d, lo, false);
			}
			util_buf_putc(d->b, ']');
		}
		return;
	case SQL_E_SESSION:
		util_buf_puts(d->b, e->sv == SQL_SV_CURRENT_USER     ? "CURRENT_USER"
				    : e->sv == SQL_SV_SESSION_USER   ? "SESSION_USER"
				    : e->sv == SQL_SV_CURRENT_SCHEMA ? "CURRENT_SCHEMA"
								     : "CURRENT_CATALOG");
		return;
	case SQL_E_GROUPING:
		util_buf_puts(d->b, "GROUPING(");
		args_list(d, e->grouping.args, e->grouping.nargs);
		util_buf_putc(d->b, ')');
		return;
	default:
		util_buf_puts(d->b, "?");
		return;
	}
}

/* ---------------------------------------------------------------- queries */

/* Whether a target prints " AS name": unless the name is what the
 * expression would be called anyway (a column under its own name). In a
 * sublink's query an unnamed expression ("?column?") prints bare, as
 * PostgreSQL's. */
static bool target_needs_alias(const sql_target *t, const char *name, dctx *d)
{
	const sql_expr *e = t->expr;
	if (d->in_sublink && !strcmp(name, "?column?"))
		return false;
	if (e->kind == SQL_E_VAR) {
		const sql_query *q;
		const sql_rte *r = var_rte(d, e, &q);
		if (r && e->var.col < r->ncols && r->colnames[e->var.col])
			return strcmp(r->colnames[e->var.col], name) != 0;
	}
	return true;
}

static void from_item(dctx *d, const sql_query *q, const sql_jnode *j);

static void rte_item(dctx *d, const sql_rte *r)
{
	switch (r->kind) {
	case SQL_RTE_TABLE:
		if (r->rel)
			rel_name(d, r->rel);
		break;
	case SQL_RTE_SYSTEM:
		if (r->sysview) {
			if (strcmp(r->sysview->schema, "pg_catalog")) {
				ident(d, r->sysview->schema);
				util_buf_putc(d->b, '.');
			}
			ident(d, r->sysview->name);
		} else if (r->rel) {
			rel_name(d, r->rel);
		}
		break;
	case SQL_RTE_SUBQUERY:
		util_buf_putc(d->b, '(');
		{
			qlevel ql = {r->subquery, d->qs};
			const qlevel *saved = d->qs;
			bool saved_in = d->in_sublink;
			d->qs = &ql;
			d->in_sublink = false;
			query_def(d, r->subquery, d->level);
			d->qs = saved;
			d->in_sublink = saved_in;
		}
		util_buf_putc(d->b, ')');
		break;
	case SQL_RTE_FUNCTION:
		for (int i = 0; i < r->nfuncs; i++) {
			if (i)
				util_buf_puts(d->b, ", ");
			expr(d, r->funcs[i], true);
		}
		if (r->ordinality)
			util_buf_puts(d->b, " WITH ORDINALITY");
		break;
	case SQL_RTE_CTE:
		ident(d, r->alias);
		return;
	case SQL_RTE_VALUES:
		util_buf_puts(d->b, "( VALUES ");
		for (int i = 0; i < r->nrows; i++) {
			if (i)
				util_buf_puts(d->b, ", ");
			util_buf_putc(d->b, '(');
			args_list(d, r->rows[i], r->ncols);
			util_buf_putc(d->b, ')');
		}
		util_buf_putc(d->b, ')');
		break;
	default:
		break;
	}
	if (r->has_alias || r->kind == SQL_RTE_SUBQUERY) {
		util_buf_putc(d->b, ' ');
		ident(d, r->alias);
	}
}

static void from_item(dctx *d, const sql_query *q, const sql_jnode *j)
{
	const sql_rte *r = q->rtes[j->rte - 1];
	if (!j->is_join) {
		rte_item(d, r);
		return;
	}
	if (!d->paren || r->has_alias)
		util_buf_putc(d->b, '(');
	from_item(d, q, j->left);
	const char *kw = j->jointype == SQL_JOIN_LEFT    ? " LEFT JOIN "
			 : j->jointype == SQL_JOIN_RIGHT ? " RIGHT JOIN "
			 : j->jointype == SQL_JOIN_FULL  ? " FULL JOIN "
			 : j->quals                      ? " JOIN "
							 : " CROSS JOIN ";
	keyword(d, kw, -INDENT_STD, INDENT_STD, INDENT_JOIN);
	from_item(d, q, j->right);
	if (j->quals) {
		util_buf_puts(d->b, " ON ");
		if (!d->paren)
			util_buf_putc(d->b, '(');
		expr(d, j->quals, false);
		if (!d->paren)
			util_buf_putc(d->b, ')');
	}
	if (!d->paren || r->has_alias)
		util_buf_putc(d->b, ')');
	if (r->has_alias) {
		util_buf_putc(d->b, ' ');
		ident(d, r->alias);
	}
}

static void sort_list(dctx *d, const sql_sortkey *keys, int n)
{
	for (int i = 0; i < n; i++) {
		if (i)
			util_buf_puts(d->b, ", ");
		expr(d, keys[i].expr, false);
		if (keys[i].desc)
			util_buf_puts(d->b, " DESC");
		if (keys[i].nulls_first != keys[i].desc)
			util_buf_puts(d->b, keys[i].nulls_first ? " NULLS FIRST" : " NULLS LAST");
	}
}

static void basic_select(dctx *d, const sql_query *q)
{
	util_buf_putc(d->b, ' ');
	d->level += INDENT_STD;
	util_buf_puts(d->b, "SELECT");
	if (q->ndistinct_on) {
		util_buf_puts(d->b, " DISTINCT ON (");
		args_list(d, q->distinct_on, q->ndistinct_on);
		util_buf_putc(d->b, ')');
	} else if (q->distinct) {
		util_buf_puts(d->b, " DISTINCT");
	}
	int col = 0;
	for (int i = 0; i < q->ntargets; i++) {
		const sql_target *t = &q->targets[i];
		if (t->junk)
			continue;
		util_buf_puts(d->b, col ? "," : " ");
		if (col)
			keyword(d, "", -INDENT_STD, INDENT_STD, INDENT_VAR);
		expr(d, t->expr, true);
		const char *name = d->resnames && col < d->nresnames ? d->resnames[col] : t->name;
		if (name && target_needs_alias(t, name, d)) {
			util_buf_puts(d->b, " AS ");
			ident(d, name);
		}
		col++;
	}
	d->resnames = NULL;
	if (q->nfrom) {
		keyword(d, " FROM ", -INDENT_STD, INDENT_STD, 2);
		for (int i = 0; i < q->nfrom; i++) {
			if (i)
				util_buf_puts(d->b, ", ");
			from_item(d, q, q->from[i]);
		}
	}
	if (q->where) {
		keyword(d, " WHERE ", -INDENT_STD, INDENT_STD, 1);
		expr(d, q->where, false);
	}
	if (q->ngroup) {
		keyword(d, " GROUP BY ", -INDENT_STD, INDENT_STD, 1);
		for (int i = 0; i < q->ngroup; i++) {
			if (i)
				util_buf_puts(d->b, ", ");
			expr(d, q->group[i], false);
		}
	}
	if (q->having) {
		keyword(d, " HAVING ", -INDENT_STD, INDENT_STD, 0);
		expr(d, q->having, false);
	}
}

static void setop(dctx *d, const sql_setop *so, const sql_query *top)
{
	if (so->is_leaf) {
		qlevel ql = {so->leaf, d->qs ? d->qs->up : NULL};
		const qlevel *saved = d->qs;
		char **saved_names = d->resnames;
		int saved_n = d->nresnames;
		char **names = ty_alloc(sizeof(char *) * (size_t)(top->ntargets ? top->ntargets : 1));
		int n = 0;
		for (int i = 0; i < top->ntargets; i++)
			if (!top->targets[i].junk)
				names[n++] = top->targets[i].name;
		d->resnames = names;
		d->nresnames = n;
		d->qs = &ql;
		query_def(d, so->leaf, d->level);
		d->qs = saved;
		d->resnames = saved_names;
		d->nresnames = saved_n;
		return;
	}
	bool lparen = !so->left->is_leaf, rparen = !so->right->is_leaf;
	if (lparen) {
		util_buf_putc(d->b, '(');
		d->level += INDENT_STD;
	}
	setop(d, so->left, top);
	if (lparen) {
		util_buf_putc(d->b, ')');
		d->level -= INDENT_STD;
	}
	const char *op = so->op == SQL_SETOP_UNION       ? "UNION"
			 : so->op == SQL_SETOP_INTERSECT ? "INTERSECT"
							 : "EXCEPT";
	keyword(d, op, -INDENT_STD, INDENT_STD, 0);
	if (so->all)
		util_buf_puts(d->b, " ALL");
	keyword(d, "", -INDENT_STD, INDENT_STD, 0);
	if (rparen) {
		util_buf_putc(d->b, '(');
		d->level += INDENT_STD;
	}
	setop(d, so->right, top);
	if (rparen) {
		util_buf_putc(d->b, ')');
		d->level -= INDENT_STD;
	}
}

static void query_def(dctx *d, const sql_query *q, int startindent)
{
	int saved_level = d->level;
	bool saved_prefix = d->varprefix;
	char **saved_names = d->resnames;
	d->level = startindent;
	d->varprefix = true;
	if (q->setop) {
		d->resnames = NULL;
		setop(d, q->setop, q);
	} else {
		basic_select(d, q);
	}
	d->resnames = saved_names;
	if (q->nsort) {
		keyword(d, " ORDER BY ", -INDENT_STD, INDENT_STD, 1);
		sort_list(d, q->sort, q->nsort);
	}
	if (q->offset) {
		keyword(d, " OFFSET ", -INDENT_STD, INDENT_STD, 0);
		expr(d, q->offset, false);
	}
	if (q->limit) {
		keyword(d, " LIMIT ", -INDENT_STD, INDENT_STD, 0);
		const sql_expr *l = q->limit;
		while (is_implicit_cast(l))
			l = l->cast.arg;
		if (l->kind == SQL_E_CONST && l->c.null)
			util_buf_puts(d->b, "ALL");
		else
			expr(d, q->limit, false);
	}
	d->level = saved_level;
	d->varprefix = saved_prefix;
}

/* ---------------------------------------------------------------- analysis of stored text */

/*
 * Every use of stored text is a job: parse, analyze against the table (or
 * the view's query), then act on the analyzed tree while the parse tree it
 * points into is still alive. Jobs run under ty_protect(): stored text
 * that no longer analyzes (a dropped function, a renamed column) makes the
 * job fail, and callers fall back to the text as stored.
 */
typedef enum job_kind {
	JOB_PRINT_EXPR = 1, /* -> text */
	JOB_EXPR_TYPE,      /* -> type, typmod */
	JOB_EXPR_COLUMNS,   /* -> cols: table columns referenced */
	JOB_EXPR_SEQUENCES, /* -> oids: sequences passed to nextval() */
	JOB_PRINT_VIEW,     /* -> text */
	JOB_VIEW_RELS,      /* -> oids: relations read */
	JOB_VIEW_SIMPLE     /* -> simple */
} job_kind;

typedef struct job {
	job_kind kind;
	sql_session *s;
	cat_snap *cs;
	const cat_obj *table; /* expressions: the table they belong to (or NULL) */
	const char *sql;      /* expressions: stored text */
	int default_col;      /* >= 0: the expression is this column's DEFAULT */
	const cat_obj *view;  /* views */
	bool pretty;
	PgQuery__ParseResult *pr;
	/* results */
	char *text;
	ty_oid type;
	int32_t typmod;
	int16_t *cols;
	int ncols;
	cat_oid *oids;
	int noids;
	bool simple;
} job;

/* The single expression of stored text: "SELECT <expr>" or a bare expression. */
static pnode *parse_expr(job *j, const char *sql, char **text_out)
{
	util_err err;
	const char *text = sql;
	if (!strncasecmp(sql, "SELECT ", 7)) {
		j->pr = sql_parse_text(sql, &err);
		pnode *st = j->pr && j->pr->n_stmts ? j->pr->stmts[0]->stmt : NULL;
		if (j->pr && (!st || st->node_case != PG_QUERY__NODE__NODE_SELECT_STMT ||
			      st->select_stmt->n_target_list != 1 || st->select_stmt->n_from_clause)) {
			pg_query__parse_result__free_unpacked(j->pr, NULL);
			j->pr = NULL;
		}
	}
	if (!j->pr) {
		char *t = ty_alloc(strlen(sql) + 8);
		sprintf(t, "SELECT %s", sql);
		text = t;
		j->pr = sql_parse_text(t, &err);
		pnode *st = j->pr && j->pr->n_stmts ? j->pr->stmts[0]->stmt : NULL;
		if (!st || st->node_case != PG_QUERY__NODE__NODE_SELECT_STMT ||
		    st->select_stmt->n_target_list != 1)
			ty_error(UTIL_E_SYNTAX_ERROR, "stored expression is not valid SQL");
	}
	*text_out = ty_strdup(text);
	return j->pr->stmts[0]->stmt->select_stmt->target_list[0]->res_target->val;
}

static void add_oid(job *j, cat_oid o)
{
	for (int i = 0; i < j->noids; i++)
		if (j->oids[i] == o)
			return;
	cat_oid *n = ty_alloc(sizeof(cat_oid) * (size_t)(j->noids + 1));
	if (j->noids)
		memcpy(n, j->oids, sizeof(cat_oid) * (size_t)j->noids);
	n[j->noids++] = o;
	j->oids = n;
}

static bool col_walker(sql_expr *e, void *arg)
{
	job *j = arg;
	if (e->kind == SQL_E_VAR && e->var.levelsup == 0 && e->var.rte == 1 &&
	    e->var.col < j->table->rel.ncols) {
		int16_t c = j->table->rel.cols[e->var.col].attnum;
		for (int i = 0; i < j->ncols; i++)
			if (j->cols[i] == c)
				return false;
		int16_t *nc = ty_alloc(sizeof(int16_t) * (size_t)(j->ncols + 1));
		if (j->ncols)
			memcpy(nc, j->cols, sizeof(int16_t) * (size_t)j->ncols);
		nc[j->ncols++] = c;
		j->cols = nc;
	}
	return false;
}

static bool seq_walker(sql_expr *e, void *arg)
{
	job *j = arg;
	if (e->kind == SQL_E_FUNC && !e->f.opname && e->f.nargs >= 1 &&
	    (!strcmp(e->f.fn->name, "nextval") || !strcmp(e->f.fn->name, "currval"))) {
		const sql_expr *a = e->f.args[0];
		while (a->kind == SQL_E_CAST)
			a = a->cast.arg;
		if (a->kind == SQL_E_CONST && !a->c.null && (a->type == TY_REGCLASS || a->type == TY_OID))
			add_oid(j, (cat_oid)a->c.i);
	}
	return false;
}

static void expr_job(job *j)
{
	sql_pstate *ps = ty_alloc0(sizeof *ps);
	sql_actx ax = {j->s, j->cs, ty_get_arena(), ps};
	const cat_column *defcol = j->default_col >= 0 ? &j->table->rel.cols[j->default_col] : NULL;
	if (defcol && !defcol->default_sql)
		ty_error(UTIL_E_INTERNAL_ERROR, "column \"%s\" has no default", defcol->name);
	char *text;
	pnode *n = parse_expr(j, defcol ? defcol->default_sql : j->sql, &text);
	ps->text = text;
	sql_query *q = sql_new_query(&ax, SQL_CMD_SELECT, NULL);
	if (j->table) {
		sql_jnode *jn;
		int rte = sql_add_table_rte(&ax, q, j->table, NULL, &jn);
		sql_add_namespace(q, rte, true, true);
	}
	/* Names resolve from the table's schema (then public), as at CREATE
	 * TABLE time; the caller's search_path is back for printing. */
	char saved_path[sizeof j->s->search_path];
	memcpy(saved_path, j->s->search_path, sizeof saved_path);
	if (j->table)
		snprintf(j->s->search_path, sizeof j->s->search_path, "\"%s\", public",
			 sql_schema_name(j->cs, j->table->rel.schema));
	sql_expr *e;
	TY_TRY(tc)
	{
		e = sql_transform_expr(&ax, q, n, defcol ? SQL_EXPR_DEFAULT : SQL_EXPR_CHECK);
	}
	TY_CATCH(tc)
	{
		TY_END(tc);
		memcpy(j->s->search_path, saved_path, sizeof saved_path);
		ty_errthrow();
	}
	TY_END(tc);
	memcpy(j->s->search_path, saved_path, sizeof saved_path);
	/* PostgreSQL stores a default coerced to the column's type: a literal
	 * becomes a constant of the type (its typmod applied by an implicit,
	 * unprinted cast); other expressions keep their type under an implicit
	 * cast, which prints as the expression itself. */
	if (defcol && e->kind == SQL_E_CONST && e->type == TY_UNKNOWN) {
		sql_expr *c = sql_expr_copy(e);
		c->type = defcol->type;
		c->typmod = -1;
		if (!e->c.null) {
			char *lit = ty_cstring(e->c);
			c->c = ty_input(defcol->type, lit, strlen(lit), -1);
		}
		e = c;
	}
	switch (j->kind) {
	case JOB_PRINT_EXPR: {
		util_buf b = UTIL_BUF_INIT;
		qlevel ql = {q, NULL};
		dctx d = {&b, j->pretty, false, 0, text, &ql, j->s, j->cs};
		expr(&d, e, false);
		j->text = ty_strndup(b.data ? b.data : "", b.len);
		util_buf_free(&b);
		break;
	}
	case JOB_EXPR_TYPE:
		j->type = e->type == TY_UNKNOWN ? TY_TEXT : e->type;
		j->typmod = e->typmod;
		break;
	case JOB_EXPR_COLUMNS:
		sql_expr_walk(e, col_walker, j);
		break;
	case JOB_EXPR_SEQUENCES:
		sql_expr_walk(e, seq_walker, j);
		break;
	default:
		break;
	}
}

static void collect_rels(job *j, const sql_query *q)
{
	for (int i = 0; i < q->nrtes; i++) {
		const sql_rte *rt = q->rtes[i];
		if (rt->kind == SQL_RTE_TABLE && rt->rel)
			add_oid(j, rt->rel->oid);
		if (rt->kind == SQL_RTE_SUBQUERY && rt->subquery)
			collect_rels(j, rt->subquery);
	}
}

static void view_job(job *j)
{
	util_err err;
	if (!j->view->rel.view_sql)
		ty_error(UTIL_E_SYNTAX_ERROR, "view has no query");
	j->pr = sql_parse_text(j->view->rel.view_sql, &err);
	pnode *st = j->pr && j->pr->n_stmts ? j->pr->stmts[0]->stmt : NULL;
	if (!st || st->node_case != PG_QUERY__NODE__NODE_SELECT_STMT)
		ty_error(UTIL_E_SYNTAX_ERROR, "stored view is not a SELECT");
	/* CREATE VIEW v (a, b) stores "SELECT * FROM (<query>) AS v(a, b)";
	 * PostgreSQL prints the query itself with the view's column names. */
	PgQuery__SelectStmt *sel = st->select_stmt;
	if (sel->n_target_list == 1 && sel->n_from_clause == 1 &&
	    sel->from_clause[0]->node_case == PG_QUERY__NODE__NODE_RANGE_SUBSELECT) {
		PgQuery__ResTarget *rt = sel->target_list[0]->res_target;
		PgQuery__RangeSubselect *rs = sel->from_clause[0]->range_subselect;
		bool star = rt && rt->val && rt->val->node_case == PG_QUERY__NODE__NODE_COLUMN_REF &&
			    rt->val->column_ref->n_fields == 1 &&
			    rt->val->column_ref->fields[0]->node_case == PG_QUERY__NODE__NODE_A_STAR;
		if (star && !sel->where_clause && rs->alias && rs->alias->aliasname &&
		    !strcmp(rs->alias->aliasname, "v") && rs->alias->n_colnames && rs->subquery &&
		    rs->subquery->node_case == PG_QUERY__NODE__NODE_SELECT_STMT)
			st = rs->subquery;
	}
	sql_pstate *ps = ty_alloc0(sizeof *ps);
	ps->text = j->view->rel.view_sql;
	sql_actx ax = {j->s, j->cs, ty_get_arena(), ps};
	/* Names in a stored view resolve from its own schema (then public), as
	 * when it was created — not from the caller's search_path (pg_dump
	 * runs with an empty one). The caller's path is back for printing, so
	 * relations it cannot see print qualified. */
	char saved_path[sizeof j->s->search_path];
	memcpy(saved_path, j->s->search_path, sizeof saved_path);
	snprintf(j->s->search_path, sizeof j->s->search_path, "\"%s\", public",
		 sql_schema_name(j->cs, j->view->rel.schema));
	sql_query *q;
	TY_TRY(tc)
	{
		q = sql_analyze_select(&ax, st->select_stmt, NULL, NULL, 0);
	}
	TY_CATCH(tc)
	{
		TY_END(tc);
		memcpy(j->s->search_path, saved_path, sizeof saved_path);
		ty_errthrow();
	}
	TY_END(tc);
	memcpy(j->s->search_path, saved_path, sizeof saved_path);
	switch (j->kind) {
	case JOB_PRINT_VIEW: {
		/* The view's column names win over the query's (CREATE VIEW v (a, b)). */
		int col = 0;
		for (int i = 0; i < q->ntargets; i++) {
			if (q->targets[i].junk)
				continue;
			if (col < j->view->rel.ncols)
				q->targets[i].name = (char *)j->view->rel.cols[col].name;
			col++;
		}
		util_buf b = UTIL_BUF_INIT;
		qlevel ql = {q, NULL};
		dctx d = {&b, j->pretty, true, 0, ps->text, &ql, j->s, j->cs};
		query_def(&d, q, 0);
		util_buf_putc(&b, ';');
		j->text = ty_strndup(b.data ? b.data : "", b.len);
		util_buf_free(&b);
		break;
	}
	case JOB_VIEW_RELS:
		collect_rels(j, q);
		break;
	case JOB_VIEW_SIMPLE:
		j->simple = !(q->setop || q->has_aggs || q->ngroup || q->having || q->distinct ||
			      q->ndistinct_on || q->limit || q->offset || q->nwins || q->has_srf ||
			      q->nfrom != 1 || q->from[0]->is_join) &&
			    q->rtes[q->from[0]->rte - 1]->kind == SQL_RTE_TABLE;
		break;
	default:
		break;
	}
}

static void job_fn(void *arg)
{
	job *j = arg;
	if (j->kind >= JOB_PRINT_VIEW)
		view_job(j);
	else
		expr_job(j);
}

/* Runs a job; false when the stored text no longer analyzes. */
static bool run_job(job *j)
{
	util_err err;
	int rc = ty_protect(job_fn, j, &err);
	if (j->pr)
		pg_query__parse_result__free_unpacked(j->pr, NULL);
	j->pr = NULL;
	return rc == 0;
}

static const char *strip_select(const char *sql)
{
	return sql && !strncasecmp(sql, "SELECT ", 7) ? sql + 7 : sql ? sql : "";
}

const char *sql_node_text(const char *stored_sql)
{
	return strip_select(stored_sql);
}

bool sql_column_has_default(const cat_column *c)
{
	if (!c->default_sql || c->identity || c->dropped)
		return false;
	const char *t = strip_select(c->default_sql);
	return strcasecmp(t, "NULL") != 0;
}

char *sql_deparse_expr_text(sql_session *s, cat_snap *cs, const cat_obj *table, const char *sql, bool pretty)
{
	if (!sql)
		return NULL;
	job j = {.kind = JOB_PRINT_EXPR,
		 .s = s,
		 .cs = cs,
		 .table = table,
		 .sql = sql,
		 .default_col = -1,
		 .pretty = pretty};
	return run_job(&j) ? j.text : ty_strdup(strip_select(sql));
}

char *sql_deparse_default_text(sql_session *s, cat_snap *cs, const cat_obj *table, int col, bool pretty)
{
	job j = {
	    .kind = JOB_PRINT_EXPR, .s = s, .cs = cs, .table = table, .default_col = col, .pretty = pretty};
	return run_job(&j) ? j.text : ty_strdup(strip_select(table->rel.cols[col].default_sql));
}

ty_oid sql_index_expr_type(sql_session *s, cat_snap *cs, const cat_obj *table, const char *expr_sql,
			   int32_t *typmod)
{
	job j = {.kind = JOB_EXPR_TYPE, .s = s, .cs = cs, .table = table, .sql = expr_sql, .default_col = -1};
	*typmod = -1;
	if (!expr_sql || !run_job(&j))
		return TY_TEXT;
	*typmod = j.typmod;
	return j.type;
}

int sql_check_columns(sql_session *s, cat_snap *cs, const cat_obj *table, const char *check_sql,
		      int16_t **out)
{
	job j = {
	    .kind = JOB_EXPR_COLUMNS, .s = s, .cs = cs, .table = table, .sql = check_sql, .default_col = -1};
	if (!check_sql || !run_job(&j))
		j.ncols = 0;
	*out = j.cols;
	return j.ncols;
}

int sql_default_sequences(sql_session *s, cat_snap *cs, const cat_obj *table, int col, cat_oid **out)
{
	job j = {.kind = JOB_EXPR_SEQUENCES, .s = s, .cs = cs, .table = table, .default_col = col};
	if (!run_job(&j))
		j.noids = 0;
	*out = j.oids;
	return j.noids;
}

char *sql_deparse_view_text(sql_session *s, cat_snap *cs, const cat_obj *view, bool pretty)
{
	job j = {.kind = JOB_PRINT_VIEW, .s = s, .cs = cs, .view = view, .default_col = -1, .pretty = pretty};
	if (run_job(&j))
		return j.text;
	/* As stored, with the ';' callers such as pg_dump strip. */
	const char *raw = view->rel.view_sql ? view->rel.view_sql : "";
	char *t = ty_alloc(strlen(raw) + 2);
	sprintf(t, "%s;", raw);
	return t;
}

int sql_view_referenced_rels(sql_session *s, cat_snap *cs, const cat_obj *view, cat_oid **out)
{
	job j = {.kind = JOB_VIEW_RELS, .s = s, .cs = cs, .view = view, .default_col = -1};
	if (!run_job(&j))
		j.noids = 0;
	*out = j.oids;
	return j.noids;
}

bool sql_view_simple(sql_session *s, cat_snap *cs, const cat_obj *view)
{
	job j = {.kind = JOB_VIEW_SIMPLE, .s = s, .cs = cs, .view = view, .default_col = -1};
	return run_job(&j) && j.simple;
}
