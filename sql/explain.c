/*
 * explain.c — EXPLAIN [ANALYZE] [VERBOSE] [COSTS] [FORMAT TEXT|JSON]: the
 * plan tree in PostgreSQL's text layout (node names, key ranges of scans,
 * join and filter conditions, sort keys, ANALYZE's actual rows/loops/time),
 * with expressions printed from the names each node's inputs carry.
 */
#include <stdio.h>
#include <string.h>

#include "sql_index.h"
#include "sql_int.h"

typedef struct xnames {
	int n;
	char **names;  /* display text of each output slot */
	char **qnames; /* the same, always qualified by relation */
} xnames;

typedef struct explain_ctx {
	sql_session *s;
	sql_exec *ex; /* ANALYZE: the executed statement */
	sql_planned *pl;
	bool analyze, costs, verbose, json, timing, summary;
	bool qualify; /* more than one relation: columns as alias.column */
	util_buf *out;
	int nlines;
	char **lines;
	/* sublinks met in the node being printed, and their numbers */
	const sql_expr **subs;
	int *subno;
	int nsubs, capsubs;
	const sql_plan **numbered; /* sublink plans numbered so far (index + 1 = number) */
	bool *queued;              /* ... and already a child of the node printing it */
	int *parno;                /* ... and the first executor parameter number it took */
	int nnumbered;
	int nparams_numbered; /* parameters taken so far: one per plan, two for a
			       * recursive CTE (its work table's and its own) */
	bool *cte_shown;
	char **param_text; /* executor parameters shown as what sets them */
	int nparam_text;
	bool params_qualified; /* printing a parameter's value: qualified names */
	struct xnames **names_memo;
	/* relation names as EXPLAIN shows them: unique across the statement
	 * (a second "ex" is "ex_1"), set before the real build */
	const sql_plan **aliased;
	const char **alias_of;
	int naliased;
	/* InitPlans and CTEs of the query level being built: PostgreSQL
	 * attaches them to the level's top node, before its children */
	struct xnode **level_init;
	int nlevel_init;
} explain_ctx;

static void line(explain_ctx *x, const char *fmt, ...) UTIL_PRINTF(2, 3);
static void line(explain_ctx *x, const char *fmt, ...)
{
	char buf[4096];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(buf, sizeof buf, fmt, ap);
	va_end(ap);
	char **nl = ty_alloc(sizeof(char *) * (size_t)(x->nlines + 1));
	if (x->nlines)
		memcpy(nl, x->lines, sizeof(char *) * (size_t)x->nlines);
	nl[x->nlines++] = ty_strdup(buf);
	x->lines = nl;
}

/* ---------------------------------------------------------------- expressions */

static void deparse(explain_ctx *x, const sql_expr *e, const xnames *in, util_buf *b, bool top);

static void deparse_const(const sql_expr *e, util_buf *b)
{
	if (e->c.null) {
		util_buf_puts(b, "NULL");
		return;
	}
	util_buf v = UTIL_BUF_INIT;
	ty_output(e->type, e->c, &v);
	const ty_type *t = ty_type_get(e->type);
	bool quote = !t || !(t->category == 'N' && e->type != TY_NUMERIC) || (v.data && v.data[0] == '-');
	if (e->type == TY_INT4 && v.data && v.data[0] != '-')
		quote = false;
	if (e->type == TY_BOOL) {
		util_buf_puts(b, e->c.i ? "true" : "false");
		util_buf_free(&v);
		return;
	}
	if (quote) {
		util_buf_putc(b, '\'');
		for (size_t i = 0; i < v.len; i++) {
			if (v.data[i] == '\'')
				util_buf_putc(b, '\'');
			util_buf_putc(b, v.data[i]);
		}
		util_buf_putc(b, '\'');
		if (e->type != TY_UNKNOWN) {
			util_buf_puts(b, "::");
			ty_format_type(e->type, e->typmod, b);
		}
	} else {
		util_buf_append(b, v.data, v.len);
	}
	util_buf_free(&v);
}

static void args_list(explain_ctx *x, const sql_expr *e, const xnames *in, util_buf *b)
{
	for (int i = 0; i < e->f.nargs; i++) {
		if (i)
			util_buf_puts(b, ", ");
		deparse(x, e->f.args[i], in, b, true);
	}
}

static void set_param_text(explain_ctx *x, int param, const sql_expr *val, const xnames *in);

/* The input names of the expression being printed (for the parameters of
 * the sublinks in it). */
static _Thread_local const xnames *in_for_params;

/* The number of a sublink's plan (PostgreSQL numbers SubPlans/InitPlans in
 * plan order); it is also queued as a child of the node being printed. */
static struct xnode *build_level(explain_ctx *x, const sql_plan *p);

/* PostgreSQL plans a sublink's subquery, numbering the sublinks inside it,
 * before it numbers the sublink itself (an InitPlan inside an InitPlan has
 * the lower number): a build of the plan, discarded, numbers them. */
static void number_inner(explain_ctx *x, const sql_plan *p)
{
	const xnames *saved_in = in_for_params;
	int nsubs = x->nsubs;
	int nctes = x->pl ? x->pl->nctes + 1 : 0;
	bool *shown = NULL;
	if (x->cte_shown && nctes) {
		shown = ty_alloc(sizeof(bool) * (size_t)nctes);
		memcpy(shown, x->cte_shown, sizeof(bool) * (size_t)nctes);
	}
	(void)build_level(x, p);
	x->nsubs = nsubs;
	if (shown)
		memcpy(x->cte_shown, shown, sizeof(bool) * (size_t)nctes);
	in_for_params = saved_in;
}

/* Appends p to the numbered plans (its number: the new count); queued:
 * already a child of the node that prints it. */
static int add_numbered(explain_ctx *x, const sql_plan *p, bool queued, int nparams)
{
	const sql_plan **nn = ty_alloc(sizeof(sql_plan *) * (size_t)(x->nnumbered + 1));
	bool *nq = ty_alloc(sizeof(bool) * (size_t)(x->nnumbered + 1));
	int *np = ty_alloc(sizeof(int) * (size_t)(x->nnumbered + 1));
	if (x->nnumbered) {
		memcpy(nn, x->numbered, sizeof(sql_plan *) * (size_t)x->nnumbered);
		memcpy(nq, x->queued, sizeof(bool) * (size_t)x->nnumbered);
		memcpy(np, x->parno, sizeof(int) * (size_t)x->nnumbered);
	}
	nn[x->nnumbered] = p;
	nq[x->nnumbered] = queued;
	/* A recursive CTE's work-table parameter comes first, its own last. */
	np[x->nnumbered] = x->nparams_numbered + nparams - 1;
	x->nparams_numbered += nparams;
	x->numbered = nn;
	x->queued = nq;
	x->parno = np;
	return ++x->nnumbered;
}

static int sub_number(explain_ctx *x, const sql_expr *e)
{
	int no = 0;
	for (int i = 0; i < x->nnumbered; i++)
		if (x->numbered[i] == e->sub.plan)
			no = i + 1;
	if (no && x->queued[no - 1])
		return no;
	if (!no) {
		int before = x->nnumbered;
		number_inner(x, e->sub.plan);
		/* Numbered by the discarded build, not yet anyone's child. */
		for (int i = before; i < x->nnumbered; i++)
			x->queued[i] = false;
		no = add_numbered(x, e->sub.plan, true, 1);
	}
	x->queued[no - 1] = true;
	if (x->nsubs == x->capsubs) {
		x->capsubs = x->capsubs ? x->capsubs * 2 : 8;
		const sql_expr **ns = ty_alloc(sizeof(sql_expr *) * (size_t)x->capsubs);
		int *nno = ty_alloc(sizeof(int) * (size_t)x->capsubs);
		if (x->nsubs) {
			memcpy(ns, x->subs, sizeof(sql_expr *) * (size_t)x->nsubs);
			memcpy(nno, x->subno, sizeof(int) * (size_t)x->nsubs);
		}
		x->subs = ns;
		x->subno = nno;
	}
	x->subs[x->nsubs] = e;
	x->subno[x->nsubs++] = no;
	/* Correlation parameters read as the outer columns they carry. */
	const xnames *qin = in_for_params;
	for (int i = 0; i < e->sub.nparams; i++)
		set_param_text(x, e->sub.params[i], e->sub.param_vals[i], qin);
	return no;
}

static void deparse(explain_ctx *x, const sql_expr *e, const xnames *in, util_buf *b, bool top)
{
	in_for_params = in;
	if (!e) {
		util_buf_puts(b, "NULL");
		return;
	}
	switch (e->kind) {
	case SQL_E_CONST:
		deparse_const(e, b);
		return;
	case SQL_E_PARAM:
		util_buf_printf(b, "$%d", e->param);
		return;
	case SQL_E_EXECPARAM:
		if (e->param < x->nparam_text && x->param_text[e->param])
			util_buf_puts(b, x->param_text[e->param]);
		else
			util_buf_printf(b, "$%d", e->param);
		return;
	case SQL_E_SLOT:
		if (in && x->params_qualified && e->slot < in->n && in->qnames && in->qnames[e->slot])
			util_buf_puts(b, in->qnames[e->slot]);
		else if (in && e->slot < in->n && in->names[e->slot])
			util_buf_puts(b, in->names[e->slot]);
		else
			util_buf_printf(b, "$col%d", e->slot + 1);
		return;
	case SQL_E_FUNC:
		if (e->f.opname && e->f.nargs == 2) {
			if (!top)
				util_buf_putc(b, '(');
			deparse(x, e->f.args[0], in, b, false);
			util_buf_printf(b, " %s ", e->f.opname);
			deparse(x, e->f.args[1], in, b, false);
			if (!top)
				util_buf_putc(b, ')');
			return;
		}
		if (e->f.opname && e->f.nargs == 1) {
			util_buf_printf(b, "(%s ", e->f.opname);
			deparse(x, e->f.args[0], in, b, false);
			util_buf_putc(b, ')');
			return;
		}
		util_buf_printf(b, "%s(", e->f.fn->name);
		args_list(x, e, in, b);
		util_buf_putc(b, ')');
		return;
	case SQL_E_AND:
	case SQL_E_OR:
		if (!top)
			util_buf_putc(b, '(');
		for (int i = 0; i < e->f.nargs; i++) {
			if (i)
				util_buf_puts(b, e->kind == SQL_E_AND ? " AND " : " OR ");
			deparse(x, e->f.args[i], in, b, false);
		}
		if (!top)
			util_buf_putc(b, ')');
		return;
	case SQL_E_NOT:
		util_buf_puts(b, "(NOT ");
		deparse(x, e->f.args[0], in, b, false);
		util_buf_putc(b, ')');
		return;
	case SQL_E_NULLTEST:
		util_buf_putc(b, '(');
		deparse(x, e->f.args[0], in, b, false);
		util_buf_puts(b, e->f.negate ? " IS NOT NULL)" : " IS NULL)");
		return;
	case SQL_E_CAST:
		util_buf_putc(b, '(');
		deparse(x, e->cast.arg, in, b, false);
		util_buf_puts(b, ")::");
		ty_format_type(e->type, e->typmod, b);
		return;
	case SQL_E_ANYARRAY:
		util_buf_putc(b, '(');
		deparse(x, e->f.args[0], in, b, false);
		util_buf_printf(b, " %s %s (", e->f.opname ? e->f.opname : "=", e->f.all ? "ALL" : "ANY");
		deparse(x, e->f.args[1], in, b, true);
		util_buf_puts(b, "))");
		return;
	case SQL_E_AGG:
		util_buf_puts(b, "aggregate");
		return;
	case SQL_E_SRF:
		util_buf_printf(b, "%s(", e->f.fn->name);
		args_list(x, e, in, b);
		util_buf_putc(b, ')');
		return;
	case SQL_E_SUBLINK: {
		int no = e->sub.plan ? sub_number(x, e) : 0;
		bool init = !e->sub.correlated && e->sub.kind != SQL_SUB_ANY && e->sub.kind != SQL_SUB_ALL &&
			    e->sub.kind != SQL_SUB_ROWCMP;
		if (e->sub.hashed) {
			util_buf_printf(b, "(hashed SubPlan %d)", no);
		} else if (e->sub.kind == SQL_SUB_ANY || e->sub.kind == SQL_SUB_ALL ||
			   e->sub.kind == SQL_SUB_ROWCMP) {
			util_buf_printf(b, "(SubPlan %d)", no);
		} else if (init) {
			util_buf_printf(b, "$%d", no ? x->parno[no - 1] : -1);
		} else {
			util_buf_printf(b, "(SubPlan %d)", no);
		}
		return;
	}
	case SQL_E_COALESCE:
		util_buf_puts(b, "COALESCE(");
		args_list(x, e, in, b);
		util_buf_putc(b, ')');
		return;
	case SQL_E_CASE:
		util_buf_puts(b, "CASE ... END");
		return;
	default:
		util_buf_puts(b, "...");
		return;
	}
}

static void set_param_text(explain_ctx *x, int param, const sql_expr *val, const xnames *in)
{
	if (param < 0)
		return;
	if (param >= x->nparam_text) {
		int n = param + 16;
		char **np = ty_alloc0(sizeof(char *) * (size_t)n);
		if (x->nparam_text)
			memcpy(np, x->param_text, sizeof(char *) * (size_t)x->nparam_text);
		x->param_text = np;
		x->nparam_text = n;
	}
	util_buf b = UTIL_BUF_INIT;
	bool pq = x->params_qualified;
	x->params_qualified = true;
	deparse(x, val, in, &b, true);
	x->params_qualified = pq;
	x->param_text[param] = ty_strdup(b.data ? b.data : "");
	util_buf_free(&b);
}

/* A condition as PostgreSQL prints it (parenthesised unless it is a
 * plain column or function call). */
static char *expr_text(explain_ctx *x, const sql_expr *e, const xnames *in)
{
	util_buf b = UTIL_BUF_INIT;
	deparse(x, e, in, &b, false);
	char *s = ty_strdup(b.data ? b.data : "");
	util_buf_free(&b);
	return s;
}

/* An output expression (Group Key, Sort Key items): no outer parentheses. */
static char *expr_text_plain(explain_ctx *x, const sql_expr *e, const xnames *in)
{
	util_buf b = UTIL_BUF_INIT;
	deparse(x, e, in, &b, true);
	char *s = ty_strdup(b.data ? b.data : "");
	util_buf_free(&b);
	return s;
}

static char *and_paren(const char *s)
{
	char *r = ty_alloc(strlen(s) + 2);
	sprintf(r, "%s)", s);
	return r;
}

/* ---------------------------------------------------------------- nodes */

/* An EXPLAIN node: what PostgreSQL's ExplainNode prints, gathered first so
 * that text and JSON render the same tree. */
typedef struct xprop {
	const char *key;
	const char *val; /* scalar ... */
	char **list;     /* ... or a list (Sort Key, Group Key) */
	int nlist;
} xprop;

typedef struct xnode xnode;
struct xnode {
	const char *type;      /* "Seq Scan", "Hash Join" ... */
	const char *jtype;     /* JSON "Node Type" when it differs ("Aggregate") */
	const char *command;   /* SetOp: "Intersect" ... */
	const char *direction; /* index scans: "Forward" / "Backward" */
	const char *strategy;  /* aggregates: "Hashed", "Plain", "Sorted", "Mixed" */
	const char *join_type; /* "Inner", "Left" ... */
	const char *relation, *alias, *index, *func;
	const char *rel_label; /* "Outer", "Inner", "InitPlan", "SubPlan", "Member" */
	const char *plan_name; /* "SubPlan 1", "CTE c" */
	const char *returns;   /* InitPlan: "$0" */
	xprop *props;
	int nprops;
	struct xnode **kids;
	int nkids;
	const sql_plan *plan; /* for ANALYZE counters */
	bool parallel_aware;  /* runs in worker threads (Parallel Seq Scan) */
	int init_order;       /* InitPlans of a level: CTEs (WITH order) first, then by number */
};

static void prop(xnode *n, const char *key, const char *val)
{
	xprop *np = ty_alloc(sizeof(xprop) * (size_t)(n->nprops + 1));
	if (n->nprops)
		memcpy(np, n->props, sizeof(xprop) * (size_t)n->nprops);
	np[n->nprops++] = (xprop){key, ty_strdup(val), NULL, 0};
	n->props = np;
}

static void prop_list(xnode *n, const char *key, char **list, int nlist)
{
	xprop *np = ty_alloc(sizeof(xprop) * (size_t)(n->nprops + 1));
	if (n->nprops)
		memcpy(np, n->props, sizeof(xprop) * (size_t)n->nprops);
	np[n->nprops++] = (xprop){key, NULL, list, nlist};
	n->props = np;
}

static void kid(xnode *n, xnode *k)
{
	xnode **nk = ty_alloc(sizeof(xnode *) * (size_t)(n->nkids + 1));
	if (n->nkids)
		memcpy(nk, n->kids, sizeof(xnode *) * (size_t)n->nkids);
	nk[n->nkids++] = k;
	n->kids = nk;
}

static xnode *xnew(const char *type, const sql_plan *p)
{
	xnode *n = ty_alloc0(sizeof *n);
	n->type = type;
	n->plan = p;
	return n;
}

/* Output names of a plan node, qualified by relation alias when the plan
 * reads more than one relation (PostgreSQL's rule for EXPLAIN). */
static xnames *names_of(explain_ctx *x, const sql_plan *p);

/* What ON CONFLICT DO UPDATE's WHERE sees: the existing row (columns, row
 * key) then the proposed one, printed as PostgreSQL qualifies them. */
static xnames *conflict_names(const sql_plan *p)
{
	const cat_rel *r = &p->modify.rel->rel;
	xnames *n = ty_alloc0(sizeof *n);
	n->n = 2 * (r->ncols + 1);
	n->names = ty_alloc0(sizeof(char *) * (size_t)(n->n + 1));
	for (int half = 0; half < 2; half++)
		for (int c = 0; c <= r->ncols; c++) {
			const char *rel = half ? "excluded" : r->name;
			const char *col = c < r->ncols && !r->cols[c].dropped ? r->cols[c].name : "?";
			char *t = ty_alloc(strlen(rel) + strlen(col) + 2);
			sprintf(t, "%s.%s", rel, col);
			n->names[half * (r->ncols + 1) + c] = t;
		}
	n->qnames = n->names;
	return n;
}
static void names_fill(explain_ctx *x, const sql_plan *p, xnames *n);

static const char *qual_name(explain_ctx *x, const char *rel, const char *col)
{
	if (!col)
		return "?";
	if (!x->qualify || !rel)
		return col;
	char *s = ty_alloc(strlen(rel) + strlen(col) + 2);
	sprintf(s, "%s.%s", rel, col);
	return s;
}

static const char *mapped_alias(const explain_ctx *x, const sql_plan *p)
{
	for (int i = 0; i < x->naliased; i++)
		if (x->aliased[i] == p)
			return x->alias_of[i];
	return NULL;
}

static const char *raw_scan_alias(const sql_plan *p)
{
	return p->scan.alias ? p->scan.alias : p->scan.rel ? p->scan.rel->rel.name : "?";
}

static const char *scan_alias(const explain_ctx *x, const sql_plan *p)
{
	const char *m = mapped_alias(x, p);
	return m ? m : raw_scan_alias(p);
}

static const char *cte_alias(const explain_ctx *x, const sql_plan *p, const sql_cte *c)
{
	const char *m = mapped_alias(x, p);
	return m ? m : p->cte.alias ? p->cte.alias : c ? c->name : NULL;
}

static const char *func_alias(const explain_ctx *x, const sql_plan *p)
{
	const char *m = mapped_alias(x, p);
	return m ? m : p->func.alias;
}

static xnames *names_of(explain_ctx *x, const sql_plan *p)
{
	/* Memoised per node and prefix mode (children are asked again and again). */
	int slot = -1;
	if (x->pl && p->id >= 0 && p->id < x->pl->nnodes) {
		if (!x->names_memo)
			x->names_memo = ty_alloc0(sizeof(xnames *) * (size_t)(2 * x->pl->nnodes + 2));
		slot = 2 * p->id + (x->qualify ? 1 : 0);
		if (x->names_memo[slot])
			return x->names_memo[slot];
	}
	xnames *n = ty_alloc0(sizeof *n);
	n->n = p->ncols;
	n->names = ty_alloc0(sizeof(char *) * (size_t)(p->ncols + 1));
	n->qnames = ty_alloc0(sizeof(char *) * (size_t)(p->ncols + 1));
	if (slot >= 0)
		x->names_memo[slot] = n;
	names_fill(x, p, n);
	bool q = x->qualify;
	x->qualify = true;
	xnames *qn = ty_alloc0(sizeof *qn);
	qn->n = p->ncols;
	qn->names = n->qnames;
	qn->qnames = ty_alloc0(sizeof(char *) * (size_t)(p->ncols + 1));
	names_fill(x, p, qn);
	x->qualify = q;
	return n;
}

static void names_fill(explain_ctx *x, const sql_plan *p, xnames *n)
{
	switch (p->kind) {
	case SQL_P_SCAN:
	case SQL_P_INDEXSCAN:
		for (int i = 0; i < p->ncols && p->scan.rel; i++)
			n->names[i] = (char *)qual_name(
			    x, scan_alias(x, p),
			    i < p->scan.rel->rel.ncols ? p->scan.rel->rel.cols[i].name : "ctid");
		break;
	case SQL_P_VALUES:
		for (int i = 0; i < p->ncols; i++) {
			char *c = ty_alloc(24);
			snprintf(c, 24, "column%d", i + 1);
			n->names[i] = (char *)qual_name(x, "\"*VALUES*\"", c);
		}
		break;
	case SQL_P_FUNCSCAN:
		for (int i = 0; i < p->ncols; i++)
			n->names[i] = (char *)qual_name(x, func_alias(x, p),
							p->func.colnames ? p->func.colnames[i] : NULL);
		break;
	case SQL_P_CTESCAN:
	case SQL_P_WORKTABLE: {
		const sql_cte *c = x->pl && p->cte.cte < x->pl->nctes ? x->pl->ctes[p->cte.cte] : NULL;
		for (int i = 0; i < p->ncols; i++)
			n->names[i] = (char *)qual_name(x, cte_alias(x, p, c),
							c && i < c->ncols ? c->colnames[i] : NULL);
		break;
	}
	case SQL_P_FILTER:
	case SQL_P_SORT:
	case SQL_P_LIMIT:
	case SQL_P_UNIQUE:
	case SQL_P_SETOP:
	case SQL_P_MATERIAL:
	case SQL_P_LOCKROWS:
	case SQL_P_RECURSIVE:
		if (p->left) {
			xnames *c = names_of(x, p->left);
			for (int i = 0; i < n->n && i < c->n; i++)
				n->names[i] = c->names[i];
		}
		break;
	case SQL_P_APPEND:
		if (p->append.nchildren) {
			xnames *c = names_of(x, p->append.children[0]);
			for (int i = 0; i < n->n && i < c->n; i++)
				n->names[i] = c->names[i];
		}
		break;
	case SQL_P_PROJECT:
	case SQL_P_PROJECTSET:
		if (p->left) {
			xnames *c = names_of(x, p->left);
			for (int i = 0; i < n->n; i++)
				n->names[i] = expr_text_plain(x, p->project.exprs[i], c);
		}
		break;
	case SQL_P_GROUPJOIN: {
		xnames *j = names_of(x, p->group.join);
		for (int i = 0; i < j->n && i < n->n; i++)
			n->names[i] = j->names[i];
		break;
	}
	case SQL_P_NESTLOOP:
	case SQL_P_MERGEJOIN:
	case SQL_P_HASHJOIN: {
		xnames *l = names_of(x, p->left), *r = names_of(x, p->right);
		for (int i = 0; i < l->n && i < n->n; i++)
			n->names[i] = l->names[i];
		for (int i = 0; i < r->n && l->n + i < n->n; i++)
			n->names[l->n + i] = r->names[i];
		break;
	}
	case SQL_P_WINDOW: {
		xnames *c = names_of(x, p->left);
		for (int i = 0; i < c->n && i < n->n; i++)
			n->names[i] = c->names[i];
		for (int i = c->n; i < n->n; i++) {
			const sql_winref *w = &p->window.funcs[i - c->n];
			util_buf b = UTIL_BUF_INIT;
			util_buf_printf(&b, "%s(", w->name);
			if (w->star)
				util_buf_putc(&b, '*');
			for (int k = 0; k < w->nargs; k++) {
				if (k)
					util_buf_puts(&b, ", ");
				deparse(x, w->args[k], c, &b, true);
			}
			util_buf_puts(&b, ") OVER (?)");
			n->names[i] = ty_strdup(b.data);
			util_buf_free(&b);
		}
		break;
	}
	case SQL_P_AGG: {
		xnames *c = names_of(x, p->left);
		for (int i = 0; i < p->agg.ngroup && i < n->n; i++)
			n->names[i] = expr_text_plain(x, p->agg.group[i], c);
		for (int i = 0; i < p->agg.naggs && p->agg.ngroup + i < n->n; i++) {
			const sql_aggref *a = &p->agg.aggs[i];
			util_buf b = UTIL_BUF_INIT;
			util_buf_printf(&b, "%s(",
					a->agg                   ? a->agg->name
					: a->kind == SQL_AGG_MIN ? "min"
					: a->kind == SQL_AGG_MAX ? "max"
								 : "count");
			if (a->star)
				util_buf_putc(&b, '*');
			if (a->distinct)
				util_buf_puts(&b, "DISTINCT ");
			for (int k = 0; k < a->nargs; k++) {
				if (k)
					util_buf_puts(&b, ", ");
				deparse(x, a->args[k], c, &b, true);
			}
			util_buf_putc(&b, ')');
			n->names[p->agg.ngroup + i] = ty_strdup(b.data);
			util_buf_free(&b);
		}
		for (int i = 0; i < p->agg.ngrouping; i++)
			n->names[p->agg.ngroup + p->agg.naggs + i] = "GROUPING(...)";
		break;
	}
	default:
		break;
	}
}

static const char *join_type_name(sql_jointype t)
{
	switch (t) {
	case SQL_JOIN_LEFT:
		return "Left";
	case SQL_JOIN_RIGHT:
		return "Right";
	case SQL_JOIN_FULL:
		return "Full";
	case SQL_JOIN_SEMI:
		return "Semi";
	case SQL_JOIN_ANTI:
		return "Anti";
	default:
		return "Inner";
	}
}

/* "col = value AND ..." of a key range (Index Cond), or of an interleaved
 * child's slice (its key columns from `from` on). */
static char *keyrange_text(explain_ctx *x, const sql_plan *p, const sql_keyrange *kr, int from);

static char *range_text(explain_ctx *x, const sql_plan *p)
{
	return keyrange_text(x, p, &p->scan.ranges[0], 0);
}

static char *keyrange_text(explain_ctx *x, const sql_plan *p, const sql_keyrange *kr, int from)
{
	const cat_rel *r = &p->scan.rel->rel;
	int nfix = kr->nfix;
	char **parts = ty_alloc(sizeof(char *) * (size_t)(nfix + 3));
	int np = 0;
	for (int i = 0; i < nfix; i++) {
		util_buf b = UTIL_BUF_INIT;
		const ty_type *vt = ty_type_get(kr->lo.vals[i]->type);
		const char *col =
		    qual_name(x, scan_alias(x, p), cat_column_by_attnum(r, r->pk[from + i])->name);
		util_buf_printf(&b, "(%s %s ", col, vt && vt->category == 'A' ? "= ANY" : "=");
		if (vt && vt->category == 'A')
			util_buf_putc(&b, '(');
		deparse(x, kr->lo.vals[i], NULL, &b, false);
		if (vt && vt->category == 'A')
			util_buf_putc(&b, ')');
		util_buf_putc(&b, ')');
		parts[np++] = ty_strdup(b.data);
		util_buf_free(&b);
	}
	const char *rc = from + nfix < r->npk ? qual_name(x, scan_alias(x, p),
							  cat_column_by_attnum(r, r->pk[from + nfix])->name)
					      : NULL;
	if (rc && kr->lo.ncols > nfix) {
		util_buf b = UTIL_BUF_INIT;
		util_buf_printf(&b, "(%s %s ", rc, kr->lo.inclusive ? ">=" : ">");
		deparse(x, kr->lo.vals[nfix], NULL, &b, false);
		util_buf_putc(&b, ')');
		parts[np++] = ty_strdup(b.data);
		util_buf_free(&b);
	}
	if (rc && kr->hi.ncols > nfix) {
		util_buf b = UTIL_BUF_INIT;
		util_buf_printf(&b, "(%s %s ", rc, kr->hi.inclusive ? "<=" : "<");
		deparse(x, kr->hi.vals[nfix], NULL, &b, false);
		util_buf_putc(&b, ')');
		parts[np++] = ty_strdup(b.data);
		util_buf_free(&b);
	}
	if (np == 1)
		return parts[0];
	util_buf b = UTIL_BUF_INIT;
	util_buf_putc(&b, '(');
	for (int i = 0; i < np; i++) {
		if (i)
			util_buf_puts(&b, " AND ");
		util_buf_puts(&b, parts[i]);
	}
	util_buf_putc(&b, ')');
	char *res = ty_strdup(b.data ? b.data : "");
	util_buf_free(&b);
	return res;
}

static const char *pk_name(const cat_rel *r)
{
	for (int i = 0; i < r->ncons; i++)
		if (r->cons[i].type == 'p')
			return r->cons[i].name;
	char *s = ty_alloc(strlen(r->name) + 6);
	sprintf(s, "%s_pkey", r->name);
	return s;
}

static char *and_text(const char *a, const char *b)
{
	if (!a)
		return (char *)b;
	if (!b)
		return (char *)a;
	char *s = ty_alloc(strlen(a) + strlen(b) + 8);
	sprintf(s, "(%s AND %s)", a, b);
	return s;
}

static xnode *build(explain_ctx *x, const sql_plan *p, const char *filter);

/* Sublinks met while printing a node's expressions become its SubPlan /
 * InitPlan children. */
static void level_add(explain_ctx *x, xnode *k)
{
	xnode **nl = ty_alloc(sizeof(xnode *) * (size_t)(x->nlevel_init + 1));
	if (x->nlevel_init)
		memcpy(nl, x->level_init, sizeof(xnode *) * (size_t)x->nlevel_init);
	nl[x->nlevel_init++] = k;
	x->level_init = nl;
}

/* Builds the plan of one query level (the statement, a subquery, a CTE)
 * and puts the InitPlans met in it first among its top node's children. */
static xnode *build_level(explain_ctx *x, const sql_plan *p)
{
	xnode **saved = x->level_init;
	int nsaved = x->nlevel_init;
	x->level_init = NULL;
	x->nlevel_init = 0;
	xnode *n = build(x, p, NULL);
	for (int i = 1; i < x->nlevel_init; i++) {
		xnode *k = x->level_init[i];
		int j = i;
		while (j > 0 && x->level_init[j - 1]->init_order > k->init_order) {
			x->level_init[j] = x->level_init[j - 1];
			j--;
		}
		x->level_init[j] = k;
	}
	if (x->nlevel_init) {
		xnode **nk = ty_alloc(sizeof(xnode *) * (size_t)(x->nlevel_init + n->nkids));
		memcpy(nk, x->level_init, sizeof(xnode *) * (size_t)x->nlevel_init);
		if (n->nkids)
			memcpy(nk + x->nlevel_init, n->kids, sizeof(xnode *) * (size_t)n->nkids);
		n->kids = nk;
		n->nkids += x->nlevel_init;
	}
	x->level_init = saved;
	x->nlevel_init = nsaved;
	return n;
}

static void add_subplans(explain_ctx *x, xnode *n, int from)
{
	for (int i = from; i < x->nsubs; i++) {
		const sql_expr *e = x->subs[i];
		xnode *k = build_level(x, e->sub.plan);
		bool init = !e->sub.correlated && e->sub.kind != SQL_SUB_ANY && e->sub.kind != SQL_SUB_ALL &&
			    e->sub.kind != SQL_SUB_ROWCMP;
		char *name = ty_alloc(48);
		snprintf(name, 48, "%s %d", init ? "InitPlan" : "SubPlan", x->subno[i]);
		k->rel_label = init ? "InitPlan" : "SubPlan";
		k->plan_name = name;
		if (init) {
			char *r = ty_alloc(24);
			snprintf(r, 24, "$%d", x->parno[x->subno[i] - 1]);
			k->returns = r;
			k->init_order = 1000000 + x->subno[i];
			level_add(x, k);
		} else {
			kid(n, k);
		}
	}
	x->nsubs = from;
}

static xnode *build(explain_ctx *x, const sql_plan *p, const char *filter)
{
	if (p->kind == SQL_P_CTEPREP) {
		/* The data-modifying CTEs show as CTE blocks of the top node. */
		xnode *c = build(x, p->left, filter);
		for (int i = 0; i < p->cte.nprep; i++) {
			int id = p->cte.prep[i];
			if (x->cte_shown[id])
				continue;
			x->cte_shown[id] = true;
			xnode *k = build_level(x, x->pl->cte_plans[id]);
			k->rel_label = "InitPlan";
			const char *nm = x->pl->ctes[id]->name;
			char *pn = ty_alloc(strlen(nm) + 8);
			sprintf(pn, "CTE %s", nm);
			k->plan_name = pn;
			k->init_order = id;
			level_add(x, k);
		}
		return c;
	}
	/* Projections happen inside nodes in PostgreSQL: not shown. */
	if ((p->kind == SQL_P_PROJECT || p->kind == SQL_P_LOCKROWS || p->kind == SQL_P_MATERIAL) && p->left) {
		int mark = x->nsubs;
		if (p->kind == SQL_P_PROJECT) {
			xnames *in = names_of(x, p->left);
			for (int i = 0; i < p->ncols; i++)
				(void)expr_text_plain(x, p->project.exprs[i], in);
		}
		xnode *c = build(x, p->left, filter);
		add_subplans(x, c, mark);
		return c;
	}
	/* A filter node shows as the Filter of what it filters (a constant
	 * false one as a gating Result). */
	if (p->kind == SQL_P_FILTER && p->left) {
		if (p->qual && p->qual->kind == SQL_E_CONST) {
			xnode *n = xnew("Result", p);
			prop(n, "One-Time Filter", expr_text(x, p->qual, NULL));
			xnode *c = build(x, p->left, filter);
			c->rel_label = "Outer";
			kid(n, c);
			return n;
		}
		int mark = x->nsubs;
		bool scan = p->left->kind == SQL_P_SCAN || p->left->kind == SQL_P_INDEXSCAN ||
			    p->left->kind == SQL_P_FUNCSCAN || p->left->kind == SQL_P_VALUES ||
			    p->left->kind == SQL_P_CTESCAN || p->left->kind == SQL_P_SYSSCAN ||
			    p->left->kind == SQL_P_WORKTABLE;
		bool q = x->qualify;
		if (scan)
			x->qualify = false;
		char *f = and_text(expr_text(x, p->qual, names_of(x, p->left)), filter);
		x->qualify = q;
		xnode *c = build(x, p->left, f);
		add_subplans(x, c, mark);
		return c;
	}
	int mark = x->nsubs;
	xnames *in = p->left ? names_of(x, p->left) : NULL;
	xnode *n = NULL;
	char buf[256];
	switch (p->kind) {
	case SQL_P_SCAN:
		/* A scan whose key order is relied on (sort dropped, LIMIT taken,
		 * merge join input, backward) reads the table through its primary
		 * key, as PostgreSQL's index scan on the _pkey would. */
		if (p->scan.nranges || p->scan.reverse || p->scan.ordered) {
			/* Parallel: a key range cut among workers, or a salted
			 * table's buckets (merged in key order where needed). */
			bool par = p->scan.parallel > 0;
			const char *kind =
			    par ? (p->scan.reverse ? "Parallel Index Scan Backward" : "Parallel Index Scan")
				: (p->scan.reverse ? "Index Scan Backward" : "Index Scan");
			n = xnew(kind, p);
			n->jtype = "Index Scan";
			n->parallel_aware = par;
			n->direction = p->scan.reverse ? "Backward" : "Forward";
			n->index = pk_name(&p->scan.rel->rel);
		} else if (p->scan.parallel) {
			n = xnew("Parallel Seq Scan", p);
			n->jtype = "Seq Scan";
			n->parallel_aware = true;
		} else {
			n = xnew("Seq Scan", p);
		}
		n->relation = p->scan.rel->rel.name;
		n->alias = scan_alias(x, p);
		{
			/* Scan conditions name the scan's columns without prefix. */
			bool q = x->qualify;
			x->qualify = false;
			if (p->scan.nranges)
				prop(n, "Index Cond", range_text(x, p));
			if (p->scan.slice)
				prop(n, "Group Slice",
				     keyrange_text(x, p, p->scan.slice, p->scan.rel->rel.ilv_path[0]));
			char *own = p->qual ? expr_text(x, p->qual, names_of(x, p)) : NULL;
			x->qualify = q;
			if (own || filter)
				prop(n, "Filter", and_text(own, filter));
		}
		if (p->scan.rel->rel.salt_buckets) {
			/* One scan per bucket merged in key order, or point reads
			 * each in its key's bucket (exec_salt.c). */
			char *v = ty_alloc(48);
			snprintf(v, 48,
				 p->scan.npoint                         ? "%d (one per key)"
				 : p->scan.parallel && !p->scan.nranges ? "%d (read as stored)"
									: "%d",
				 p->scan.rel->rel.salt_buckets);
			prop(n, "Salt Buckets", v);
		}
		break;
	case SQL_P_INDEXSCAN: {
		/* A secondary index (plan_index.c): its conditions as written, or
		 * for the inner side of a lookup join its keys equal to values of
		 * the outer row. */
		const sql_ixscan *xs = p->scan.ixscan;
		if (p->scan.index_only)
			n = xnew(p->scan.reverse ? "Index Only Scan Backward" : "Index Only Scan", p);
		else
			n = xnew(p->scan.reverse ? "Index Scan Backward" : "Index Scan", p);
		n->jtype = p->scan.index_only ? "Index Only Scan" : "Index Scan";
		n->direction = p->scan.reverse ? "Backward" : "Forward";
		n->relation = p->scan.rel->rel.name;
		n->alias = scan_alias(x, p);
		n->index = xs ? xs->index_name : "?";
		bool q = x->qualify;
		x->qualify = false;
		xnames *self = names_of(x, p);
		util_buf b = UTIL_BUF_INIT;
		int nc = 0;
		if (xs && xs->nconds) {
			for (int i = 0; i < xs->nconds; i++, nc++) {
				if (i)
					util_buf_puts(&b, " AND ");
				util_buf_puts(&b, expr_text(x, xs->conds[i], self));
			}
		} else if (xs && xs->nranges && xs->ranges[0].nfix) {
			for (int i = 0; i < xs->ranges[0].nfix; i++, nc++) {
				if (i)
					util_buf_puts(&b, " AND ");
				util_buf_printf(&b, "(%s = ", xs->ix->key_text[i]);
				deparse(x, xs->ranges[0].eq[i], self, &b, false);
				util_buf_putc(&b, ')');
			}
		}
		if (nc) {
			if (nc > 1) {
				char *t = ty_alloc(b.len + 3);
				sprintf(t, "(%s)", b.data);
				prop(n, "Index Cond", t);
			} else {
				prop(n, "Index Cond", b.data);
			}
		}
		util_buf_free(&b);
		char *own = p->qual ? expr_text(x, p->qual, self) : NULL;
		x->qualify = q;
		if (own || filter)
			prop(n, "Filter", and_text(own, filter));
		break;
	}
	case SQL_P_SYSSCAN:
		n = xnew("Seq Scan", p);
		n->relation = p->scan.rel ? p->scan.rel->rel.name : "pg_catalog";
		n->alias = n->relation;
		if (filter)
			prop(n, "Filter", filter);
		break;
	case SQL_P_VALUES:
		if (p->values.nrows == 1) {
			n = xnew("Result", p); /* PostgreSQL plans one VALUES row as a Result */
			if (filter)
				prop(n, "Filter", filter);
			break;
		}
		n = xnew("Values Scan", p);
		n->alias = "\"*VALUES*\"";
		if (filter)
			prop(n, "Filter", filter);
		break;
	case SQL_P_FUNCSCAN:
		n = xnew("Function Scan", p);
		n->func = p->func.funcs[0]->kind == SQL_E_FUNC || p->func.funcs[0]->kind == SQL_E_SRF
			      ? p->func.funcs[0]->f.fn->name
			      : "function";
		n->alias = func_alias(x, p) ? func_alias(x, p) : n->func;
		if (filter)
			prop(n, "Filter", filter);
		break;
	case SQL_P_CTESCAN:
	case SQL_P_WORKTABLE: {
		const sql_cte *c = x->pl && p->cte.cte < x->pl->nctes ? x->pl->ctes[p->cte.cte] : NULL;
		n = xnew(p->kind == SQL_P_CTESCAN ? "CTE Scan" : "WorkTable Scan", p);
		n->jtype = n->type;
		n->relation = c ? c->name : "cte";
		n->alias = cte_alias(x, p, c) ? cte_alias(x, p, c) : n->relation;
		if (filter)
			prop(n, "Filter", filter);
		if (p->kind == SQL_P_CTESCAN && c && x->pl->cte_plans && !x->cte_shown[p->cte.cte]) {
			x->cte_shown[p->cte.cte] = true;
			xnode *k = build_level(x, x->pl->cte_plans[p->cte.cte]);
			k->rel_label = "InitPlan";
			char *nm = ty_alloc(strlen(c->name) + 8);
			sprintf(nm, "CTE %s", c->name);
			k->plan_name = nm;
			k->init_order = p->cte.cte;
			level_add(x, k);
		}
		break;
	}
	case SQL_P_RESULT:
		n = xnew("Result", p);
		if (p->result.onetime)
			prop(n, "One-Time Filter", expr_text(x, p->result.onetime, NULL));
		if (filter)
			prop(n, "Filter", filter);
		break;
	case SQL_P_PROJECT:
		n = xnew("Result", p);
		for (int i = 0; i < p->ncols; i++)
			(void)expr_text_plain(x, p->project.exprs[i], NULL);
		break;
	case SQL_P_PROJECTSET:
		n = xnew("ProjectSet", p);
		for (int i = 0; i < p->ncols; i++)
			(void)expr_text_plain(x, p->project.exprs[i], in);
		if (filter)
			prop(n, "Filter", filter);
		break;
	case SQL_P_HASHJOIN:
	case SQL_P_MERGEJOIN:
	case SQL_P_NESTLOOP: {
		bool hash = p->kind == SQL_P_HASHJOIN, merge = p->kind == SQL_P_MERGEJOIN;
		const char *kname = hash ? "Hash" : merge ? "Merge" : "Nested Loop";
		if (p->join.type == SQL_JOIN_INNER)
			n = xnew(hash ? "Hash Join" : merge ? "Merge Join" : "Nested Loop", p);
		else {
			snprintf(buf, sizeof buf, "%s %s Join", kname, join_type_name(p->join.type));
			n = xnew(ty_strdup(buf), p);
		}
		n->join_type = join_type_name(p->join.type);
		n->jtype = hash ? "Hash Join" : merge ? "Merge Join" : "Nested Loop";
		xnames *l = names_of(x, p->left), *r = names_of(x, p->right), *both = names_of(x, p);
		/* Keys: a merge join's leading (ordered) keys are its Merge Cond,
		 * the others are checked like a join filter. */
		int ncond = merge ? p->join.nmerge : p->join.nkeys;
		for (int part = 0; part < 2; part++) {
			int from = part ? ncond : 0, to = part ? p->join.nkeys : ncond;
			int nitems = to - from + (part && p->join.joinqual ? 1 : 0);
			if (nitems <= 0)
				continue;
			util_buf b = UTIL_BUF_INIT;
			if (nitems > 1)
				util_buf_putc(&b, '(');
			for (int i = from; i < to; i++) {
				if (i > from)
					util_buf_puts(&b, " AND ");
				util_buf_putc(&b, '(');
				deparse(x, p->join.lkeys[i], l, &b, false);
				util_buf_puts(&b, " = ");
				deparse(x, p->join.rkeys[i], r, &b, false);
				util_buf_putc(&b, ')');
			}
			if (part && p->join.joinqual) {
				if (to > from)
					util_buf_puts(&b, " AND ");
				util_buf_puts(&b, expr_text(x, p->join.joinqual, both));
			}
			if (nitems > 1)
				util_buf_putc(&b, ')');
			prop(n, part ? "Join Filter" : hash ? "Hash Cond" : "Merge Cond", b.data);
			util_buf_free(&b);
		}
		for (int i = 0; i < p->join.nparams; i++)
			set_param_text(x, p->join.params[i], p->join.param_vals[i], l);
		if (filter)
			prop(n, "Filter", filter);
		xnode *lk = build(x, p->left, NULL);
		lk->rel_label = "Outer";
		kid(n, lk);
		xnode *rk = build(x, p->right, NULL);
		if (hash) {
			xnode *h = xnew("Hash", NULL);
			h->rel_label = "Inner";
			rk->rel_label = "Outer";
			kid(h, rk);
			kid(n, h);
		} else {
			rk->rel_label = "Inner";
			kid(n, rk);
		}
		add_subplans(x, n, mark);
		return n;
	}
	case SQL_P_AGG: {
		bool sets = p->agg.ngsets > 0;
		bool fin = p->agg.partial; /* PostgreSQL's names for the two halves */
		n = xnew(sets            ? "MixedAggregate"
			 : p->agg.ngroup ? (fin ? "Finalize HashAggregate" : "HashAggregate")
					 : (fin ? "Finalize Aggregate" : "Aggregate"),
			 p);
		n->strategy = sets ? "Mixed" : p->agg.ngroup ? "Hashed" : "Plain";
		n->jtype = "Aggregate";
		if (p->agg.ngroup && !sets) {
			char **keys = ty_alloc(sizeof(char *) * (size_t)p->agg.ngroup);
			for (int i = 0; i < p->agg.ngroup; i++)
				keys[i] = expr_text_plain(x, p->agg.group[i], in);
			prop_list(n, "Group Key", keys, p->agg.ngroup);
		}
		for (int s = 0; sets && s < p->agg.ngsets; s++) {
			int len = p->agg.gset_len[s];
			char **keys = ty_alloc(sizeof(char *) * (size_t)(len ? len : 1));
			for (int i = 0; i < len; i++)
				keys[i] = expr_text_plain(x, p->agg.group[p->agg.gsets[s][i]], in);
			prop_list(n, len ? "Hash Key" : "Group Key", keys, len);
		}
		if (filter)
			prop(n, "Filter", filter);
		break;
	}
	case SQL_P_SORT: {
		n = xnew("Sort", p);
		char **keys = ty_alloc(sizeof(char *) * (size_t)(p->sort.nkeys ? p->sort.nkeys : 1));
		for (int i = 0; i < p->sort.nkeys; i++) {
			util_buf b = UTIL_BUF_INIT;
			deparse(x, p->sort.keys[i].expr, in, &b, true);
			if (p->sort.keys[i].desc)
				util_buf_puts(&b, " DESC");
			if (p->sort.keys[i].nulls_first && !p->sort.keys[i].desc)
				util_buf_puts(&b, " NULLS FIRST");
			if (!p->sort.keys[i].nulls_first && p->sort.keys[i].desc)
				util_buf_puts(&b, " NULLS LAST");
			keys[i] = ty_strdup(b.data ? b.data : "");
			util_buf_free(&b);
		}
		prop_list(n, "Sort Key", keys, p->sort.nkeys);
		if (filter)
			prop(n, "Filter", filter);
		break;
	}
	case SQL_P_LIMIT:
		n = xnew("Limit", p);
		break;
	case SQL_P_UNIQUE:
		if (p->unique.hashed) {
			n = xnew("HashAggregate", p);
			n->strategy = "Hashed";
			n->jtype = "Aggregate";
			int nk = p->unique.nkeys ? p->unique.nkeys : p->ncols;
			char **keys = ty_alloc(sizeof(char *) * (size_t)(nk ? nk : 1));
			for (int i = 0; i < nk; i++)
				keys[i] = in && i < in->n && in->names[i] ? in->names[i] : "?";
			prop_list(n, "Group Key", keys, nk);
		} else {
			n = xnew("Unique", p);
		}
		break;
	case SQL_P_SETOP: {
		n = xnew(p->setop.op == SQL_SETOP_INTERSECT
			     ? (p->setop.all ? "HashSetOp Intersect All" : "HashSetOp Intersect")
			     : (p->setop.all ? "HashSetOp Except All" : "HashSetOp Except"),
			 p);
		n->strategy = "Hashed";
		n->jtype = "SetOp";
		n->command = p->setop.op == SQL_SETOP_INTERSECT
				 ? (p->setop.all ? "Intersect All" : "Intersect")
				 : (p->setop.all ? "Except All" : "Except");
		xnode *app = xnew("Append", NULL);
		app->rel_label = "Outer";
		xnode *a = build(x, p->left, NULL), *b = build(x, p->right, NULL);
		a->rel_label = b->rel_label = "Member";
		kid(app, a);
		kid(app, b);
		kid(n, app);
		add_subplans(x, n, mark);
		return n;
	}
	case SQL_P_APPEND:
		n = xnew("Append", p);
		for (int i = 0; i < p->append.nchildren; i++) {
			xnode *k = build(x, p->append.children[i], NULL);
			k->rel_label = "Member";
			kid(n, k);
		}
		add_subplans(x, n, mark);
		return n;
	case SQL_P_WINDOW:
		n = xnew("WindowAgg", p);
		if (filter)
			prop(n, "Filter", filter);
		break;
	case SQL_P_MODIFY:
		n = xnew(p->modify.cmd == SQL_CMD_INSERT   ? "Insert"
			 : p->modify.cmd == SQL_CMD_UPDATE ? "Update"
							   : "Delete",
			 p);
		n->type = p->modify.cmd == SQL_CMD_INSERT ? "ModifyTable" : "ModifyTable";
		n->relation = p->modify.rel->rel.name;
		n->alias = n->relation;
		n->join_type = p->modify.cmd == SQL_CMD_INSERT   ? "Insert"
			       : p->modify.cmd == SQL_CMD_UPDATE ? "Update"
								 : "Delete";
		if (p->modify.oc) {
			/* ON CONFLICT (no Conflict Filter or ANALYZE counts yet) */
			prop(n, "Conflict Resolution", p->modify.oc->do_update ? "UPDATE" : "NOTHING");
			if (p->modify.oc->arbiter_name) {
				char **names = ty_alloc(sizeof(char *));
				names[0] = ty_strdup(p->modify.oc->arbiter_name);
				prop_list(n, "Conflict Arbiter Indexes", names, 1);
			}
			if (p->modify.oc_where)
				prop(n, "Conflict Filter",
				     expr_text(x, p->modify.oc_where, conflict_names(p)));
		}
		break;
	case SQL_P_GROUPJOIN: {
		/* Entity groups: a parent and its interleaved children in one read. */
		snprintf(buf, sizeof buf, "Interleaved Join (%s > %s, one read per group)",
			 p->group.parent->scan.rel->rel.name, p->group.child->scan.rel->rel.name);
		n = xnew(ty_strdup(buf), p);
		if (p->group.join->join.joinqual)
			prop(n, "Join Filter",
			     expr_text(x, p->group.join->join.joinqual, names_of(x, p->group.join)));
		if (filter)
			prop(n, "Filter", filter);
		xnode *a = build(x, p->group.parent, NULL), *c = build(x, p->group.child, NULL);
		a->rel_label = "Outer";
		c->rel_label = "Inner";
		kid(n, a);
		kid(n, c);
		add_subplans(x, n, mark);
		return n;
	}
	case SQL_P_RECURSIVE: {
		n = xnew("Recursive Union", p);
		xnode *a = build(x, p->left, NULL), *b = build(x, p->right, NULL);
		a->rel_label = "Outer";
		b->rel_label = "Inner";
		kid(n, a);
		kid(n, b);
		add_subplans(x, n, mark);
		return n;
	}
	case SQL_P_FIRSTROW:
		n = xnew("Limit", p);
		break;
	default:
		n = xnew("Node", p);
		break;
	}
	if (p->left) {
		xnode *c = build(x, p->left, NULL);
		c->rel_label = "Outer";
		kid(n, c);
	}
	if (p->right) {
		xnode *c = build(x, p->right, NULL);
		c->rel_label = "Inner";
		kid(n, c);
	}
	add_subplans(x, n, mark);
	if (p->kind == SQL_P_AGG && p->agg.partial && n->nkids == 1 && !strcmp(n->kids[0]->type, "Gather") &&
	    n->kids[0]->nkids == 1) {
		/* The workers aggregate: Finalize <- Gather <- Partial <- scan. */
		xnode *g = n->kids[0];
		xnode *pa = xnew(p->agg.ngroup ? "Partial HashAggregate" : "Partial Aggregate", p);
		pa->jtype = "Aggregate";
		pa->strategy = n->strategy;
		for (int i = 0; i < n->nprops; i++)
			if (!strcmp(n->props[i].key, "Group Key"))
				prop_list(pa, "Group Key", n->props[i].list, n->props[i].nlist);
		pa->rel_label = "Outer";
		kid(pa, g->kids[0]);
		g->kids[0] = pa;
	}
	if (n->parallel_aware) {
		/* PostgreSQL's shape: the workers' rows come up through a Gather,
		 * or a Gather Merge when they are merged in key order (salted). */
		xnode *g =
		    xnew(p->kind == SQL_P_SCAN && sql_scan_needs_order(p) ? "Gather Merge" : "Gather", p);
		char *w = ty_alloc(16);
		snprintf(w, 16, "%d", p->scan.parallel);
		prop(g, "Workers Planned", w);
		if (x->analyze && x->ex && p->id < x->ex->pl->nnodes && x->ex->ops[p->id]) {
			char *l = ty_alloc(16);
			snprintf(l, 16, "%d", sql_scan_workers_launched(x->ex->ops[p->id]));
			prop(g, "Workers Launched", l);
		}
		n->rel_label = "Outer";
		kid(g, n);
		return g;
	}
	return n;
}

/* ---------------------------------------------------------------- rendering */

static const char *display_name(const xnode *n, char *buf, size_t cap)
{
	if (!strcmp(n->type, "ModifyTable")) {
		snprintf(buf, cap, "%s on %s", n->join_type, n->relation);
		return buf;
	}
	if (n->index && n->relation) {
		if (n->alias && strcmp(n->alias, n->relation))
			snprintf(buf, cap, "%s using %s on %s %s", n->type, n->index, n->relation, n->alias);
		else
			snprintf(buf, cap, "%s using %s on %s", n->type, n->index, n->relation);
		return buf;
	}
	if (n->relation) {
		if (n->alias && strcmp(n->alias, n->relation))
			snprintf(buf, cap, "%s on %s %s", n->type, n->relation, n->alias);
		else
			snprintf(buf, cap, "%s on %s", n->type, n->relation);
		return buf;
	}
	if (n->func) {
		if (n->alias && strcmp(n->alias, n->func))
			snprintf(buf, cap, "%s on %s %s", n->type, n->func, n->alias);
		else
			snprintf(buf, cap, "%s on %s", n->type, n->func);
		return buf;
	}
	if (n->alias) {
		snprintf(buf, cap, "%s on %s", n->type, n->alias);
		return buf;
	}
	return n->type;
}

static void analyze_text(explain_ctx *x, const xnode *n, util_buf *b)
{
	if (!x->analyze || !n->plan)
		return;
	const sql_plan *p = n->plan;
	/* A node whose operator was built but never pulled (the inner side of
	 * a join with an empty outer side) was not executed either. */
	if (x->ex && p->id < x->ex->pl->nnodes && x->ex->ops[p->id] && x->ex->ops[p->id]->loops) {
		sql_op *op = x->ex->ops[p->id];
		uint64_t loops = op->loops;
		double ms = op->time_us / 1000.0 / (double)loops;
		if (x->timing)
			util_buf_printf(b, " (actual time=%.3f..%.3f rows=%llu loops=%llu)", ms, ms,
					(unsigned long long)(op->rows_out / loops),
					(unsigned long long)op->loops);
		else
			util_buf_printf(b, " (actual rows=%llu loops=%llu)",
					(unsigned long long)(op->rows_out / loops),
					(unsigned long long)op->loops);
	} else {
		util_buf_puts(b, " (never executed)");
	}
}

/* PostgreSQL's text layout: indent in units of two spaces; a node's
 * properties one unit deeper than its name, children behind "->  ". */
static void render_text(explain_ctx *x, const xnode *n, int indent)
{
	char buf[512];
	util_buf b = UTIL_BUF_INIT;
	if (n->plan_name) {
		line(x, "%*s%s%s%s", indent * 2, "", n->plan_name, n->returns ? " (returns " : "",
		     n->returns ? n->returns : "");
		if (n->returns)
			x->lines[x->nlines - 1] = and_paren(x->lines[x->nlines - 1]);
		indent++;
	}
	if (indent) {
		util_buf_printf(&b, "%*s->  ", indent * 2, "");
		indent += 2;
	}
	util_buf_puts(&b, display_name(n, buf, sizeof buf));
	if (x->costs && n->plan)
		util_buf_printf(&b, "  (cost=0.00..%.2f rows=%.0f width=%d)",
				n->plan->cost > 0 ? n->plan->cost : n->plan->rows,
				n->plan->rows < 1 ? 1 : n->plan->rows, n->plan->ncols * 8);
	analyze_text(x, n, &b);
	line(x, "%s", b.data);
	util_buf_free(&b);
	indent++;
	for (int i = 0; i < n->nprops; i++) {
		const xprop *pr = &n->props[i];
		if (pr->list) {
			util_buf v = UTIL_BUF_INIT;
			for (int k = 0; k < pr->nlist; k++) {
				if (k)
					util_buf_puts(&v, ", ");
				util_buf_puts(&v, pr->list[k]);
			}
			line(x, "%*s%s: %s", indent * 2, "", pr->key, v.data ? v.data : "");
			util_buf_free(&v);
		} else {
			line(x, "%*s%s: %s", indent * 2, "", pr->key, pr->val);
		}
	}
	/* InitPlans first, then the children, then SubPlans (PostgreSQL's order). */
	for (int i = 0; i < n->nkids; i++)
		if (n->kids[i]->rel_label && !strcmp(n->kids[i]->rel_label, "InitPlan"))
			render_text(x, n->kids[i], indent);
	for (int i = 0; i < n->nkids; i++)
		if (!n->kids[i]->rel_label ||
		    (strcmp(n->kids[i]->rel_label, "InitPlan") && strcmp(n->kids[i]->rel_label, "SubPlan")))
			render_text(x, n->kids[i], indent);
	for (int i = 0; i < n->nkids; i++)
		if (n->kids[i]->rel_label && !strcmp(n->kids[i]->rel_label, "SubPlan"))
			render_text(x, n->kids[i], indent);
}

static void json_str(util_buf *b, const char *s)
{
	util_buf_putc(b, '"');
	for (const char *p = s ? s : ""; *p; p++) {
		if (*p == '"' || *p == '\\')
			util_buf_putc(b, '\\');
		if ((unsigned char)*p < 0x20)
			util_buf_printf(b, "\\u%04x", *p);
		else
			util_buf_putc(b, *p);
	}
	util_buf_putc(b, '"');
}

static void json_field(util_buf *b, int ind, bool *first, const char *key)
{
	util_buf_puts(b, *first ? "\n" : ",\n");
	*first = false;
	util_buf_printf(b, "%*s", ind, "");
	json_str(b, key);
	util_buf_puts(b, ": ");
}

/* FORMAT JSON: PostgreSQL's keys, in its order, for what the node carries. */
static void render_json(explain_ctx *x, const xnode *n, util_buf *b, int ind)
{
	bool first = true;
	bool modify = !strcmp(n->type, "ModifyTable");
	util_buf_putc(b, '{');
	json_field(b, ind + 2, &first, "Node Type");
	json_str(b, n->jtype ? n->jtype : n->type);
	if (modify) {
		json_field(b, ind + 2, &first, "Operation");
		json_str(b, n->join_type);
	}
	if (n->strategy) {
		json_field(b, ind + 2, &first, "Strategy");
		json_str(b, n->strategy);
	}
	if (n->command) {
		json_field(b, ind + 2, &first, "Command");
		json_str(b, n->command);
	}
	if (n->jtype && !strcmp(n->jtype, "Aggregate")) {
		json_field(b, ind + 2, &first, "Partial Mode");
		json_str(b, "Simple");
	}
	if (n->rel_label) {
		json_field(b, ind + 2, &first, "Parent Relationship");
		json_str(b, n->rel_label);
	}
	if (n->plan_name) {
		json_field(b, ind + 2, &first, "Subplan Name");
		json_str(b, n->plan_name);
	}
	json_field(b, ind + 2, &first, "Parallel Aware");
	util_buf_puts(b, n->parallel_aware ? "true" : "false");
	json_field(b, ind + 2, &first, "Async Capable");
	util_buf_puts(b, "false");
	if (n->join_type && !modify) {
		json_field(b, ind + 2, &first, "Join Type");
		json_str(b, n->join_type);
	}
	if (n->direction) {
		json_field(b, ind + 2, &first, "Scan Direction");
		json_str(b, n->direction);
	}
	if (n->index) {
		json_field(b, ind + 2, &first, "Index Name");
		json_str(b, n->index);
	}
	if (n->func) {
		json_field(b, ind + 2, &first, "Function Name");
		json_str(b, n->func);
	}
	if (n->relation && !n->func) {
		json_field(b, ind + 2, &first,
			   n->jtype && !strcmp(n->jtype, "CTE Scan") ? "CTE Name" : "Relation Name");
		json_str(b, n->relation);
	}
	if (n->alias) {
		json_field(b, ind + 2, &first, "Alias");
		json_str(b, n->alias);
	}
	if (x->analyze && n->plan && x->ex && n->plan->id < x->ex->pl->nnodes && x->ex->ops[n->plan->id]) {
		sql_op *op = x->ex->ops[n->plan->id];
		uint64_t loops = op->loops ? op->loops : 1;
		if (x->timing) {
			double ms = op->time_us / 1000.0 / (double)loops;
			json_field(b, ind + 2, &first, "Actual Startup Time");
			util_buf_printf(b, "%.3f", ms);
			json_field(b, ind + 2, &first, "Actual Total Time");
			util_buf_printf(b, "%.3f", ms);
		}
		json_field(b, ind + 2, &first, "Actual Rows");
		util_buf_printf(b, "%llu", (unsigned long long)(op->rows_out / loops));
		json_field(b, ind + 2, &first, "Actual Loops");
		util_buf_printf(b, "%llu", (unsigned long long)op->loops);
	}
	for (int i = 0; i < n->nprops; i++) {
		const xprop *pr = &n->props[i];
		json_field(b, ind + 2, &first, pr->key);
		if (pr->list) {
			util_buf_putc(b, '[');
			for (int k = 0; k < pr->nlist; k++) {
				if (k)
					util_buf_puts(b, ", ");
				json_str(b, pr->list[k]);
			}
			util_buf_putc(b, ']');
		} else if (!strcmp(pr->key, "Workers Planned")) {
			util_buf_puts(b, pr->val); /* a number in PostgreSQL's JSON */
		} else {
			json_str(b, pr->val);
		}
	}
	if (n->nkids) {
		json_field(b, ind + 2, &first, "Plans");
		util_buf_putc(b, '[');
		for (int i = 0; i < n->nkids; i++) {
			util_buf_printf(b, "%s\n%*s", i ? "," : "", ind + 4, "");
			render_json(x, n->kids[i], b, ind + 4);
		}
		util_buf_printf(b, "\n%*s]", ind + 2, "");
	}
	util_buf_printf(b, "\n%*s}", ind, "");
}

/* Relations the plan reads (scans, also in subqueries and CTEs). */
/* ---------------------------------------------------------------- unique names */

/* PostgreSQL names each relation of the statement once (EXPLAIN's
 * select_rtable_names_for_explain): in range-table order, which is the
 * main query's relations, then those of its subplans in plan order; a name
 * already taken gets _1, _2 ... ("Seq Scan on ex ex_1" for a subquery
 * reading the outer query's table). */
typedef struct alias_pass {
	explain_ctx *x;
	const sql_plan **ctes; /* CTE plans met, walked after the plan that uses them */
	int nctes;
	const char **used;
	int nused;
} alias_pass;

static bool name_used(const alias_pass *ap, const char *n)
{
	for (int i = 0; i < ap->nused; i++)
		if (!strcmp(ap->used[i], n))
			return true;
	return false;
}

static void give_alias(alias_pass *ap, const sql_plan *p, const char *base)
{
	explain_ctx *x = ap->x;
	if (!base || mapped_alias(x, p))
		return;
	const char *name = base;
	for (int k = 1; name_used(ap, name); k++) {
		char *t = ty_alloc(strlen(base) + 16);
		sprintf(t, "%s_%d", base, k);
		name = t;
	}
	const char **nu = ty_alloc(sizeof(char *) * (size_t)(ap->nused + 1));
	if (ap->nused)
		memcpy(nu, ap->used, sizeof(char *) * (size_t)ap->nused);
	nu[ap->nused++] = name;
	ap->used = nu;
	const sql_plan **np = ty_alloc(sizeof(sql_plan *) * (size_t)(x->naliased + 1));
	const char **na = ty_alloc(sizeof(char *) * (size_t)(x->naliased + 1));
	if (x->naliased) {
		memcpy(np, x->aliased, sizeof(sql_plan *) * (size_t)x->naliased);
		memcpy(na, x->alias_of, sizeof(char *) * (size_t)x->naliased);
	}
	np[x->naliased] = p;
	na[x->naliased++] = name;
	x->aliased = np;
	x->alias_of = na;
}

static void alias_walk(alias_pass *ap, const sql_plan *p)
{
	if (!p)
		return;
	explain_ctx *x = ap->x;
	switch (p->kind) {
	case SQL_P_SCAN:
	case SQL_P_INDEXSCAN:
		give_alias(ap, p, raw_scan_alias(p));
		break;
	case SQL_P_FUNCSCAN:
		give_alias(ap, p, p->func.alias);
		break;
	case SQL_P_CTESCAN:
	case SQL_P_WORKTABLE: {
		const sql_cte *c = x->pl && p->cte.cte < x->pl->nctes ? x->pl->ctes[p->cte.cte] : NULL;
		give_alias(ap, p, p->cte.alias ? p->cte.alias : c ? c->name : NULL);
		if (p->kind == SQL_P_CTESCAN && c && x->pl->cte_plans) {
			const sql_plan *cp = x->pl->cte_plans[p->cte.cte];
			bool seen = false;
			for (int i = 0; i < ap->nctes; i++)
				seen |= ap->ctes[i] == cp;
			if (!seen && cp) {
				const sql_plan **nc = ty_alloc(sizeof(sql_plan *) * (size_t)(ap->nctes + 1));
				if (ap->nctes)
					memcpy(nc, ap->ctes, sizeof(sql_plan *) * (size_t)ap->nctes);
				nc[ap->nctes++] = cp;
				ap->ctes = nc;
			}
		}
		break;
	}
	case SQL_P_GROUPJOIN:
		alias_walk(ap, p->group.parent);
		alias_walk(ap, p->group.child);
		break;
	case SQL_P_APPEND:
		for (int i = 0; i < p->append.nchildren; i++)
			alias_walk(ap, p->append.children[i]);
		break;
	default:
		break;
	}
	alias_walk(ap, p->left);
	if (p->kind != SQL_P_RECURSIVE || p->right != p->left)
		alias_walk(ap, p->right);
}

/* Needs the SubPlans in their numbering order: a first, discarded build
 * finds them. */
static xnode **build_top_ctes(explain_ctx *x, int *n);

static bool is_cte_plan(const explain_ctx *x, const sql_plan *p)
{
	for (int i = 0; i < x->pl->nctes; i++)
		if (x->pl->cte_plans && x->pl->cte_plans[i] == p)
			return true;
	return false;
}

static void assign_aliases(explain_ctx *x, const sql_plan *root)
{
	int ntop;
	(void)build_top_ctes(x, &ntop);
	(void)build_level(x, root);
	const sql_plan **subs = x->numbered;
	int nsubs = x->nnumbered;
	alias_pass ap = {x, NULL, 0, NULL, 0};
	alias_walk(&ap, root);
	for (int i = 0; i < ap.nctes; i++)
		alias_walk(&ap, ap.ctes[i]);
	for (int i = 0; i < nsubs; i++) {
		if (is_cte_plan(x, subs[i])) /* the statement's CTEs: walked above */
			continue;
		int before = ap.nctes;
		alias_walk(&ap, subs[i]);
		for (int k = before; k < ap.nctes; k++)
			alias_walk(&ap, ap.ctes[k]);
	}
	/* The real build starts afresh. */
	x->numbered = NULL;
	x->queued = NULL;
	x->parno = NULL;
	x->nnumbered = 0;
	x->nparams_numbered = 0;
	x->nsubs = 0;
	x->param_text = NULL;
	x->nparam_text = 0;
	x->names_memo = NULL;
	memset(x->cte_shown, 0, sizeof(bool) * (size_t)(x->pl->nctes + 1));
}

static int count_relations(const sql_plan *p);
/* The statement's own CTEs, as PostgreSQL plans them before anything else
 * of the statement (SS_process_ctes): each, in WITH order, takes the next
 * plan number (and parameter, so "$n" of the InitPlans after them match)
 * after the sublinks inside it, and shows on the top node whichever
 * SubPlan or InitPlan first scans it. Caller prepends them to the top
 * node's children. */
static xnode **build_top_ctes(explain_ctx *x, int *n)
{
	*n = 0;
	const sql_query *q = x->pl->query;
	if (!q || !q->nctes || !x->pl->cte_plans)
		return NULL;
	xnode **out = ty_alloc(sizeof(xnode *) * (size_t)q->nctes);
	for (int i = 0; i < q->nctes; i++) {
		const sql_cte *c = q->ctes[i];
		if (c->id < 0 || c->id >= x->pl->nctes || !x->pl->cte_plans[c->id] || x->cte_shown[c->id])
			continue;
		x->cte_shown[c->id] = true;
		xnode *k = build_level(x, x->pl->cte_plans[c->id]);
		k->rel_label = "InitPlan";
		char *nm = ty_alloc(strlen(c->name) + 8);
		sprintf(nm, "CTE %s", c->name);
		k->plan_name = nm;
		k->init_order = c->id;
		const sql_plan *cp = x->pl->cte_plans[c->id];
		(void)add_numbered(x, cp, true, cp->kind == SQL_P_RECURSIVE ? 2 : 1);
		out[(*n)++] = k;
	}
	return out;
}

static bool sub_rel_walker(sql_expr *e, void *arg)
{
	if (e->kind == SQL_E_SUBLINK && e->sub.plan)
		*(int *)arg += count_relations(e->sub.plan);
	return false;
}

static int count_relations(const sql_plan *p)
{
	if (!p)
		return 0;
	int n = 0;
	switch (p->kind) {
	case SQL_P_SCAN:
	case SQL_P_INDEXSCAN:
	case SQL_P_SYSSCAN:
	case SQL_P_FUNCSCAN:
	case SQL_P_VALUES:
	case SQL_P_CTESCAN:
	case SQL_P_WORKTABLE:
		n = 1;
		break;
	case SQL_P_APPEND:
		for (int i = 0; i < p->append.nchildren; i++)
			n += count_relations(p->append.children[i]);
		break;
	case SQL_P_PROJECT:
	case SQL_P_PROJECTSET:
		for (int i = 0; i < p->ncols; i++)
			sql_expr_walk(p->project.exprs[i], sub_rel_walker, &n);
		break;
	default:
		break;
	}
	sql_expr_walk(p->qual, sub_rel_walker, &n);
	if (p->kind == SQL_P_NESTLOOP || p->kind == SQL_P_HASHJOIN || p->kind == SQL_P_MERGEJOIN)
		sql_expr_walk(p->join.joinqual, sub_rel_walker, &n);
	return n + count_relations(p->left) + count_relations(p->right);
}

static bool opt_bool(PgQuery__DefElem *d)
{
	if (!d->arg)
		return true;
	if (d->arg->node_case == PG_QUERY__NODE__NODE_BOOLEAN)
		return d->arg->boolean->boolval;
	if (d->arg->node_case == PG_QUERY__NODE__NODE_STRING) {
		const char *v = d->arg->string->sval;
		return !util_strcasecmp(v, "true") || !util_strcasecmp(v, "on") || !strcmp(v, "1");
	}
	if (d->arg->node_case == PG_QUERY__NODE__NODE_INTEGER)
		return d->arg->integer->ival != 0;
	return true;
}

void sql_exec_explain(sql_session *s, PgQuery__ExplainStmt *st, const char *text, sql_dest *dest,
		      sql_complete *c)
{
	explain_ctx x;
	memset(&x, 0, sizeof x);
	x.s = s;
	x.costs = true;
	x.timing = true;
	x.summary = true;
	bool timing_set = false, summary_set = false;
	for (size_t i = 0; i < st->n_options; i++) {
		PgQuery__DefElem *d = st->options[i]->def_elem;
		if (!strcmp(d->defname, "analyze"))
			x.analyze = opt_bool(d);
		else if (!strcmp(d->defname, "costs"))
			x.costs = opt_bool(d);
		else if (!strcmp(d->defname, "verbose"))
			x.verbose = opt_bool(d);
		else if (!strcmp(d->defname, "format")) {
			const char *v = d->arg && d->arg->node_case == PG_QUERY__NODE__NODE_STRING
					    ? d->arg->string->sval
					    : "text";
			if (!util_strcasecmp(v, "json"))
				x.json = true;
			else if (util_strcasecmp(v, "text"))
				ty_error(UTIL_E_FEATURE_NOT_SUPPORTED,
					 "EXPLAIN format \"%s\" is not supported", v);
		} else if (!strcmp(d->defname, "timing")) {
			x.timing = opt_bool(d);
			timing_set = true;
		} else if (!strcmp(d->defname, "summary")) {
			x.summary = opt_bool(d);
			summary_set = true;
		} else if (!strcmp(d->defname, "buffers") || !strcmp(d->defname, "settings") ||
			   !strcmp(d->defname, "wal")) {
		} else {
			util_err *e = ty_errstart(UTIL_E_SYNTAX_ERROR, "unrecognized EXPLAIN option \"%s\"",
						  d->defname);
			e->position = sql_errposition(text, d->location);
			ty_errthrow();
		}
	}
	if (timing_set && x.timing && !x.analyze)
		ty_error(UTIL_E_INVALID_PARAMETER_VALUE, "EXPLAIN option TIMING requires ANALYZE");
	if (!summary_set)
		x.summary = x.analyze;
	pnode *q = st->query;
	if (sql_stmt_is_utility(q))
		ty_error(UTIL_E_FEATURE_NOT_SUPPORTED, "EXPLAIN of %s is not supported", sql_command_tag(q));
	sql_pstate ps = {.text = text};
	ps.param_types = ty_alloc0(sizeof(ty_oid) * 8);
	ps.params_cap = 8;
	sql_actx ax = {s, s->cat, ty_get_arena(), &ps};
	sql_query *qq = sql_analyze(&ax, q);
	sql_planned *pl = sql_plan_query(&ax, qq);
	int64_t t0 = util_mono_us();
	if (x.analyze) {
		if (pl->cmd != SQL_CMD_SELECT && s->txn->read_only)
			ty_error(UTIL_E_READ_ONLY_SQL_TRANSACTION,
				 "cannot execute EXPLAIN ANALYZE of a write in a read-only transaction");
		x.ex = sql_exec_new(s, pl, ty_get_arena(), NULL, 0);
		x.ex->analyze = true;
		sql_op *root = sql_exec_node(x.ex, pl->plan);
		for (;;) {
			sql_batch *b = sql_op_next(root);
			if (b->n == 0)
				break;
		}
	}
	int64_t elapsed = util_mono_us() - t0;
	x.pl = pl;
	x.cte_shown = ty_alloc0(sizeof(bool) * (size_t)(pl->nctes + 1));
	x.qualify = count_relations(pl->plan) > 1;
	assign_aliases(&x, pl->plan);
	int ntop;
	xnode **top = build_top_ctes(&x, &ntop);
	xnode *root = build_level(&x, pl->plan);
	if (ntop) {
		xnode **nk = ty_alloc(sizeof(xnode *) * (size_t)(ntop + root->nkids));
		memcpy(nk, top, sizeof(xnode *) * (size_t)ntop);
		if (root->nkids)
			memcpy(nk + ntop, root->kids, sizeof(xnode *) * (size_t)root->nkids);
		root->kids = nk;
		root->nkids += ntop;
	}
	if (!x.json)
		render_text(&x, root, 0);
	if (x.analyze && x.summary && !x.json) {
		line(&x, "Planning Time: 0.100 ms");
		line(&x, "Execution Time: %.3f ms", elapsed / 1000.0);
	}
	const char *names[1] = {"QUERY PLAN"};
	if (x.json) {
		util_buf b = UTIL_BUF_INIT;
		util_buf_puts(&b, "[\n  {\n    \"Plan\": ");
		render_json(&x, root, &b, 4);
		if (x.analyze && x.summary)
			util_buf_printf(&b, ",\n    \"Planning Time\": 0.100,\n    \"Execution Time\": %.3f",
					elapsed / 1000.0);
		util_buf_puts(&b, "\n  }\n]");
		ty_oid types[1] = {TY_JSON};
		ty_datum v = ty_text(b.data);
		util_buf_free(&b);
		sql_send_rows(s, dest, 1, names, types, &v, 1);
	} else {
		ty_oid types[1] = {TY_TEXT};
		ty_datum *vals = ty_alloc(sizeof(ty_datum) * (size_t)(x.nlines ? x.nlines : 1));
		for (int i = 0; i < x.nlines; i++)
			vals[i] = ty_text(x.lines[i]);
		sql_send_rows(s, dest, 1, names, types, vals, x.nlines);
	}
	if (x.ex)
		sql_exec_close(x.ex);
	snprintf(c->tag, sizeof c->tag, "EXPLAIN");
}
