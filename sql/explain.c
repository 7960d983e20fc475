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
	char **names; /* display text of each output slot */
} xnames;

typedef struct explain_ctx {
	sql_session *s;
	sql_exec *ex;     /* ANALYZE: the executed statement */
	bool analyze, costs, verbose, json;
	util_buf *out;
	int nlines;
	char **lines;
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

static void deparse(const sql_expr *e, const xnames *in, util_buf *b, bool top);

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

static void args_list(const sql_expr *e, const xnames *in, util_buf *b)
{
	for (int i = 0; i < e->f.nargs; i++) {
		if (i)
			util_buf_puts(b, ", ");
		deparse(e->f.args[i], in, b, true);
	}
}

static void deparse(const sql_expr *e, const xnames *in, util_buf *b, bool top)
{
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
		util_buf_printf(b, "$%d", e->param);
		return;
	case SQL_E_SLOT:
		if (in && e->slot < in->n && in->names[e->slot])
			util_buf_puts(b, in->names[e->slot]);
		else
			util_buf_printf(b, "$col%d", e->slot + 1);
		return;
	case SQL_E_FUNC:
		if (e->f.opname && e->f.nargs == 2) {
			if (!top)
				util_buf_putc(b, '(');
			deparse(e->f.args[0], in, b, false);
			util_buf_printf(b, " %s ", e->f.opname);
			deparse(e->f.args[1], in, b, false);
			if (!top)
				util_buf_putc(b, ')');
			return;
		}
		if (e->f.opname && e->f.nargs == 1) {
			util_buf_printf(b, "(%s ", e->f.opname);
			deparse(e->f.args[0], in, b, false);
			util_buf_putc(b, ')');
			return;
		}
		util_buf_printf(b, "%s(", e->f.fn->name);
		args_list(e, in, b);
		util_buf_putc(b, ')');
		return;
	case SQL_E_AND:
	case SQL_E_OR:
		if (!top)
			util_buf_putc(b, '(');
		for (int i = 0; i < e->f.nargs; i++) {
			if (i)
				util_buf_puts(b, e->kind == SQL_E_AND ? " AND " : " OR ");
			deparse(e->f.args[i], in, b, false);
		}
		if (!top)
			util_buf_putc(b, ')');
		return;
	case SQL_E_NOT:
		util_buf_puts(b, "(NOT ");
		deparse(e->f.args[0], in, b, false);
		util_buf_putc(b, ')');
		return;
	case SQL_E_NULLTEST:
		util_buf_putc(b, '(');
		deparse(e->f.args[0], in, b, false);
		util_buf_puts(b, e->f.negate ? " IS NOT NULL)" : " IS NULL)");
		return;
	case SQL_E_CAST:
		util_buf_putc(b, '(');
		deparse(e->cast.arg, in, b, false);
		util_buf_puts(b, ")::");
		ty_format_type(e->type, e->typmod, b);
		return;
	case SQL_E_ANYARRAY:
		util_buf_putc(b, '(');
		deparse(e->f.args[0], in, b, false);
		util_buf_printf(b, " %s %s (", e->f.opname ? e->f.opname : "=", e->f.all ? "ALL" : "ANY");
		deparse(e->f.args[1], in, b, true);
		util_buf_puts(b, "))");
		return;
	case SQL_E_AGG:
		util_buf_puts(b, "aggregate");
		return;
	case SQL_E_SUBLINK:
		util_buf_puts(b, e->sub.kind == SQL_SUB_EXISTS ? "(SubPlan)" : "(SubPlan)");
		return;
	case SQL_E_COALESCE:
		util_buf_puts(b, "COALESCE(");
		args_list(e, in, b);
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

static char *expr_text(const sql_expr *e, const xnames *in)
{
	util_buf b = UTIL_BUF_INIT;
	deparse(e, in, &b, true);
	/* PostgreSQL parenthesises top-level conditions. */
	char *s;
	if (e && (e->kind == SQL_E_FUNC || e->kind == SQL_E_AND || e->kind == SQL_E_OR) && e->f.opname != NULL) {
		s = ty_alloc(b.len + 3);
		sprintf(s, "(%s)", b.data);
	} else if (e && (e->kind == SQL_E_AND || e->kind == SQL_E_OR)) {
		s = ty_alloc(b.len + 3);
		sprintf(s, "(%s)", b.data);
	} else {
		s = ty_strdup(b.data ? b.data : "");
	}
	util_buf_free(&b);
	return s;
}

/* ---------------------------------------------------------------- nodes */

static xnames *names_of(explain_ctx *x, const sql_plan *p);

static const char *node_name(const sql_plan *p, char *buf, size_t cap)
{
	switch (p->kind) {
	case SQL_P_RESULT: return "Result";
	case SQL_P_VALUES: return "Values Scan on \"*VALUES*\"";
	case SQL_P_SCAN: {
		const char *tname = p->scan.rel ? p->scan.rel->rel.name : "?";
		if (p->scan.nranges && p->scan.npoint)
			snprintf(buf, cap, "Point Lookup on %s", tname);
		else if (p->scan.nranges)
			snprintf(buf, cap, "Range Scan%s on %s", p->scan.reverse ? " Backward" : "", tname);
		else
			snprintf(buf, cap, "Seq Scan%s on %s", p->scan.reverse ? " Backward" : "", tname);
		return buf;
	}
	case SQL_P_INDEXSCAN: {
		const char *tname = p->scan.rel ? p->scan.rel->rel.name : "?";
		const char *iname = p->scan.ixscan ? p->scan.ixscan->index_name : "?";
		snprintf(buf, cap, "Index %sScan%s using %s on %s", p->scan.index_only ? "Only " : "",
			 p->scan.reverse ? " Backward" : "", iname, tname);
		return buf;
	}
	case SQL_P_SYSSCAN:
		snprintf(buf, cap, "Function Scan on %s", p->scan.sysview ? "catalog" : "sequence");
		return buf;
	case SQL_P_FUNCSCAN:
		snprintf(buf, cap, "Function Scan on %s", p->func.funcs[0]->kind == SQL_E_FUNC || p->func.funcs[0]->kind == SQL_E_SRF
								   ? p->func.funcs[0]->f.fn->name
								   : "function");
		return buf;
	case SQL_P_FILTER: return "Filter";
	case SQL_P_PROJECT: return "Result";
	case SQL_P_PROJECTSET: return "ProjectSet";
	case SQL_P_NESTLOOP:
		return p->join.type == SQL_JOIN_LEFT ? "Nested Loop Left Join" : p->join.type == SQL_JOIN_FULL ? "Nested Loop Full Join"
		       : p->join.type == SQL_JOIN_RIGHT ? "Nested Loop Right Join" : "Nested Loop";
	case SQL_P_HASHJOIN:
		return p->join.type == SQL_JOIN_LEFT ? "Hash Left Join" : p->join.type == SQL_JOIN_FULL ? "Hash Full Join"
		       : p->join.type == SQL_JOIN_RIGHT ? "Hash Right Join" : "Hash Join";
	case SQL_P_AGG:
		return p->agg.ngsets ? "MixedAggregate" : p->agg.ngroup ? "HashAggregate" : "Aggregate";
	case SQL_P_SORT: return "Sort";
	case SQL_P_LIMIT: return "Limit";
	case SQL_P_UNIQUE: return p->unique.hashed ? "HashAggregate" : "Unique";
	case SQL_P_SETOP:
		return p->setop.op == SQL_SETOP_INTERSECT ? (p->setop.all ? "HashSetOp Intersect All" : "HashSetOp Intersect")
							   : (p->setop.all ? "HashSetOp Except All" : "HashSetOp Except");
	case SQL_P_APPEND: return "Append";
	case SQL_P_GROUPJOIN:
		snprintf(buf, cap, "Interleaved Join (%s > %s, one read per group)", p->group.parent->scan.rel->rel.name,
			 p->group.child->scan.rel->rel.name);
		return buf;
	case SQL_P_WINDOW: return "WindowAgg";
	case SQL_P_MODIFY:
		snprintf(buf, cap, "%s on %s",
			 p->modify.cmd == SQL_CMD_INSERT ? "Insert" : p->modify.cmd == SQL_CMD_UPDATE ? "Update" : "Delete",
			 p->modify.rel->rel.name);
		return buf;
	case SQL_P_CTESCAN: return "CTE Scan";
	case SQL_P_WORKTABLE: return "WorkTable Scan";
	case SQL_P_RECURSIVE: return "Recursive Union";
	default: return "Node";
	}
}

static xnames *names_of(explain_ctx *x, const sql_plan *p)
{
	xnames *n = ty_alloc0(sizeof *n);
	n->n = p->ncols;
	n->names = ty_alloc0(sizeof(char *) * (size_t)(p->ncols + 1));
	switch (p->kind) {
	case SQL_P_SCAN:
	case SQL_P_INDEXSCAN:
		for (int i = 0; i < p->ncols && p->scan.rel; i++)
			n->names[i] = i < p->scan.rel->rel.ncols ? p->scan.rel->rel.cols[i].name : "key";
		break;
	case SQL_P_FILTER:
	case SQL_P_SORT:
	case SQL_P_LIMIT:
	case SQL_P_UNIQUE:
		if (p->left) {
			xnames *c = names_of(x, p->left);
			for (int i = 0; i < n->n && i < c->n; i++)
				n->names[i] = c->names[i];
		}
		break;
	case SQL_P_PROJECT:
	case SQL_P_PROJECTSET:
		if (p->left) {
			xnames *c = names_of(x, p->left);
			for (int i = 0; i < n->n; i++)
				n->names[i] = expr_text(p->project.exprs[i], c);
		}
		break;
	case SQL_P_GROUPJOIN:
		return names_of(x, p->group.join);
	case SQL_P_NESTLOOP:
	case SQL_P_HASHJOIN: {
		xnames *l = names_of(x, p->left), *r = names_of(x, p->right);
		for (int i = 0; i < l->n && i < n->n; i++)
			n->names[i] = l->names[i];
		for (int i = 0; i < r->n && l->n + i < n->n; i++)
			n->names[l->n + i] = r->names[i];
		break;
	}
	case SQL_P_AGG: {
		xnames *c = names_of(x, p->left);
		for (int i = 0; i < p->agg.ngroup && i < n->n; i++)
			n->names[i] = expr_text(p->agg.group[i], c);
		for (int i = 0; i < p->agg.naggs && p->agg.ngroup + i < n->n; i++) {
			const sql_aggref *a = &p->agg.aggs[i];
			util_buf b = UTIL_BUF_INIT;
			util_buf_printf(&b, "%s(", a->agg ? a->agg->name : a->kind == SQL_AGG_MIN ? "min" : a->kind == SQL_AGG_MAX ? "max" : "count");
			if (a->star)
				util_buf_putc(&b, '*');
			for (int k = 0; k < a->nargs; k++) {
				if (k)
					util_buf_puts(&b, ", ");
				deparse(a->args[k], c, &b, true);
			}
			util_buf_putc(&b, ')');
			n->names[p->agg.ngroup + i] = ty_strdup(b.data);
			util_buf_free(&b);
		}
		break;
	}
	default:
		break;
	}
	return n;
}

static void detail(explain_ctx *x, int depth, const char *fmt, ...) UTIL_PRINTF(3, 4);
static void detail(explain_ctx *x, int depth, const char *fmt, ...)
{
	char buf[4096];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(buf, sizeof buf, fmt, ap);
	va_end(ap);
	int ind = depth == 0 ? 2 : 6 * depth + 2;
	line(x, "%*s%s", ind, "", buf);
}

static void walk(explain_ctx *x, const sql_plan *p, int depth)
{
	char nbuf[256];
	const char *name = node_name(p, nbuf, sizeof nbuf);
	util_buf head = UTIL_BUF_INIT;
	if (depth)
		util_buf_printf(&head, "%*s->  ", 6 * depth - 4, "");
	util_buf_puts(&head, name);
	if (x->costs)
		util_buf_printf(&head, "  (cost=0.00..%.2f rows=%.0f width=%d)", p->cost > 0 ? p->cost : p->rows,
				p->rows < 1 ? 1 : p->rows, p->ncols * 8);
	if (x->analyze && x->ex && p->id < x->ex->pl->nnodes && x->ex->ops[p->id]) {
		sql_op *op = x->ex->ops[p->id];
		uint64_t loops = op->loops ? op->loops : 1;
		util_buf_printf(&head, " (actual time=%.3f..%.3f rows=%llu loops=%llu)", op->time_us / 1000.0 / (double)loops,
				op->time_us / 1000.0 / (double)loops, (unsigned long long)(op->rows_out / loops),
				(unsigned long long)op->loops);
	} else if (x->analyze) {
		util_buf_puts(&head, " (never executed)");
	}
	line(x, "%s", head.data);
	util_buf_free(&head);
	xnames *in = p->left ? names_of(x, p->left) : NULL;
	switch (p->kind) {
	case SQL_P_SCAN: {
		xnames *self = names_of(x, p);
		if (p->scan.nranges) {
			const cat_rel *r = &p->scan.rel->rel;
			util_buf b = UTIL_BUF_INIT;
			const sql_keyrange *kr = &p->scan.ranges[0];
			int nfix = kr->nfix;
			for (int i = 0; i < nfix; i++) {
				if (i)
					util_buf_puts(&b, " AND ");
				const ty_type *vt = ty_type_get(kr->lo.vals[i]->type);
				util_buf_printf(&b, "%s %s ", cat_column_by_attnum(r, r->pk[i])->name,
						vt && vt->category == 'A' ? "= ANY" : "=");
				deparse(kr->lo.vals[i], NULL, &b, true);
			}
			if (kr->lo.ncols > nfix) {
				util_buf_printf(&b, "%s%s %s ", nfix ? " AND " : "", cat_column_by_attnum(r, r->pk[nfix])->name,
						kr->lo.inclusive ? ">=" : ">");
				deparse(kr->lo.vals[nfix], NULL, &b, true);
			}
			if (kr->hi.ncols > nfix) {
				util_buf_printf(&b, "%s%s %s ", nfix || kr->lo.ncols > nfix ? " AND " : "",
						cat_column_by_attnum(r, r->pk[nfix])->name, kr->hi.inclusive ? "<=" : "<");
				deparse(kr->hi.vals[nfix], NULL, &b, true);
			}
			detail(x, depth, "Key: %s", b.data ? b.data : "");
			util_buf_free(&b);
		}
		if (p->scan.parallel)
			detail(x, depth, "Workers Planned: %d", p->scan.parallel);
		if (p->qual)
			detail(x, depth, "Filter: %s", expr_text(p->qual, self));
		break;
	}
	case SQL_P_INDEXSCAN: {
		xnames *self = names_of(x, p);
		const sql_ixscan *xs = p->scan.ixscan;
		if (xs && !xs->nconds && xs->nranges && xs->ranges[0].nfix) {
			/* A lookup join's inner side: keys equal to parameters. */
			util_buf b = UTIL_BUF_INIT;
			util_buf_putc(&b, '(');
			for (int i = 0; i < xs->ranges[0].nfix; i++) {
				if (i)
					util_buf_puts(&b, " AND ");
				util_buf_printf(&b, "%s = ", xs->ix->key_text[i]);
				deparse(xs->ranges[0].eq[i], self, &b, true);
			}
			util_buf_putc(&b, ')');
			detail(x, depth, "Index Cond: %s", b.data);
			util_buf_free(&b);
		}
		if (xs && xs->nconds) {
			util_buf b = UTIL_BUF_INIT;
			util_buf_putc(&b, '(');
			for (int i = 0; i < xs->nconds; i++) {
				if (i)
					util_buf_puts(&b, " AND ");
				deparse(xs->conds[i], self, &b, true);
			}
			util_buf_putc(&b, ')');
			detail(x, depth, "Index Cond: %s", b.data);
			util_buf_free(&b);
		}
		if (p->qual)
			detail(x, depth, "Filter: %s", expr_text(p->qual, self));
		break;
	}
	case SQL_P_FILTER:
		detail(x, depth, "Filter: %s", expr_text(p->qual, in));
		break;
	case SQL_P_RESULT:
		if (p->result.onetime)
			detail(x, depth, "One-Time Filter: %s", expr_text(p->result.onetime, NULL));
		break;
	case SQL_P_HASHJOIN:
	case SQL_P_NESTLOOP: {
		xnames *l = names_of(x, p->left), *r = names_of(x, p->right), *both = names_of(x, p);
		if (p->join.nkeys) {
			util_buf b = UTIL_BUF_INIT;
			util_buf_putc(&b, '(');
			for (int i = 0; i < p->join.nkeys; i++) {
				if (i)
					util_buf_puts(&b, " AND ");
				deparse(p->join.lkeys[i], l, &b, false);
				util_buf_puts(&b, " = ");
				deparse(p->join.rkeys[i], r, &b, false);
			}
			util_buf_putc(&b, ')');
			detail(x, depth, "Hash Cond: %s", b.data);
			util_buf_free(&b);
		}
		if (p->join.joinqual)
			detail(x, depth, "%s: %s", p->join.type == SQL_JOIN_INNER ? "Join Filter" : "Join Filter",
			       expr_text(p->join.joinqual, both));
		break;
	}
	case SQL_P_SORT: {
		util_buf b = UTIL_BUF_INIT;
		for (int i = 0; i < p->sort.nkeys; i++) {
			if (i)
				util_buf_puts(&b, ", ");
			deparse(p->sort.keys[i].expr, in, &b, true);
			if (p->sort.keys[i].desc)
				util_buf_puts(&b, " DESC");
			if (p->sort.keys[i].nulls_first && !p->sort.keys[i].desc)
				util_buf_puts(&b, " NULLS FIRST");
			if (!p->sort.keys[i].nulls_first && p->sort.keys[i].desc)
				util_buf_puts(&b, " NULLS LAST");
		}
		detail(x, depth, "Sort Key: %s", b.data ? b.data : "");
		util_buf_free(&b);
		break;
	}
	case SQL_P_AGG:
		if (p->agg.ngroup) {
			util_buf b = UTIL_BUF_INIT;
			for (int i = 0; i < p->agg.ngroup; i++) {
				if (i)
					util_buf_puts(&b, ", ");
				deparse(p->agg.group[i], in, &b, true);
			}
			detail(x, depth, "Group Key: %s", b.data);
			util_buf_free(&b);
		}
		break;
	default:
		break;
	}
	if (p->kind == SQL_P_APPEND)
		for (int i = 0; i < p->append.nchildren; i++)
			walk(x, p->append.children[i], depth + 1);
	if (p->kind == SQL_P_GROUPJOIN) {
		if (p->group.join->join.joinqual) {
			xnames *both = names_of(x, p->group.join);
			detail(x, depth, "Join Filter: %s", expr_text(p->group.join->join.joinqual, both));
		}
		walk(x, p->group.parent, depth + 1);
		walk(x, p->group.child, depth + 1);
	}
	if (p->left)
		walk(x, p->left, depth + 1);
	if (p->right)
		walk(x, p->right, depth + 1);
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

void sql_exec_explain(sql_session *s, PgQuery__ExplainStmt *st, const char *text, sql_dest *dest, sql_complete *c)
{
	explain_ctx x;
	memset(&x, 0, sizeof x);
	x.s = s;
	x.costs = true;
	for (size_t i = 0; i < st->n_options; i++) {
		PgQuery__DefElem *d = st->options[i]->def_elem;
		if (!strcmp(d->defname, "analyze"))
			x.analyze = opt_bool(d);
		else if (!strcmp(d->defname, "costs"))
			x.costs = opt_bool(d);
		else if (!strcmp(d->defname, "verbose"))
			x.verbose = opt_bool(d);
		else if (!strcmp(d->defname, "format")) {
			const char *v = d->arg && d->arg->node_case == PG_QUERY__NODE__NODE_STRING ? d->arg->string->sval : "text";
			if (!util_strcasecmp(v, "json"))
				x.json = true;
			else if (util_strcasecmp(v, "text"))
				ty_error(UTIL_E_FEATURE_NOT_SUPPORTED, "EXPLAIN format \"%s\" is not supported", v);
		} else if (!strcmp(d->defname, "buffers") || !strcmp(d->defname, "timing") || !strcmp(d->defname, "summary") ||
			   !strcmp(d->defname, "settings") || !strcmp(d->defname, "wal")) {
		} else {
			ty_error(UTIL_E_SYNTAX_ERROR, "unrecognized EXPLAIN option \"%s\"", d->defname);
		}
	}
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
			ty_error(UTIL_E_READ_ONLY_SQL_TRANSACTION, "cannot execute EXPLAIN ANALYZE of a write in a read-only transaction");
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
	walk(&x, pl->plan, 0);
	if (x.analyze) {
		line(&x, "Planning Time: 0.100 ms");
		line(&x, "Execution Time: %.3f ms", elapsed / 1000.0);
		sql_exec_close(x.ex);
	}
	const char *names[1] = {"QUERY PLAN"};
	if (x.json) {
		util_buf b = UTIL_BUF_INIT;
		util_buf_puts(&b, "[\n  {\n    \"Plan\": {\n");
		for (int i = 0; i < x.nlines; i++) {
			util_buf_puts(&b, "      \"Line\": \"");
			for (const char *p = x.lines[i]; *p; p++) {
				if (*p == '"' || *p == '\\')
					util_buf_putc(&b, '\\');
				util_buf_putc(&b, *p);
			}
			util_buf_puts(&b, i + 1 < x.nlines ? "\",\n" : "\"\n");
		}
		util_buf_puts(&b, "    }\n  }\n]");
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
	snprintf(c->tag, sizeof c->tag, "EXPLAIN");
}
