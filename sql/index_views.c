/*
 * index_views.c — indexes as PostgreSQL's catalog shows them: the
 * pg_indexes view and pg_get_indexdef(oid [, column, pretty]), which spell
 * an index back as its CREATE INDEX statement (column names quoted when
 * needed, DESC / NULLS FIRST|LAST when not the default, expressions in
 * parentheses unless they are function calls, INCLUDE, NULLS NOT DISTINCT,
 * WHERE). Expressions come from the stored SQL text, so their spelling is
 * libpg_query's deparse rather than ruleutils' (parenthesisation differs
 * for operators inside expressions).
 */
#include <string.h>

#include "sql_index.h"
#include "sysview.h"

/* "SELECT <expr>" as stored -> the expression; *call: it is a function call. */
static void expr_of(const char *sqltext, util_buf *out, bool *call)
{
	const char *t = sqltext;
	if (!strncmp(t, "SELECT ", 7))
		t += 7;
	util_buf_puts(out, t);
	*call = false;
	util_err err;
	PgQuery__ParseResult *pr = sql_parse_text(sqltext, &err);
	if (pr && pr->n_stmts == 1 && pr->stmts[0]->stmt->node_case == PG_QUERY__NODE__NODE_SELECT_STMT &&
	    pr->stmts[0]->stmt->select_stmt->n_target_list == 1) {
		pnode *v = pr->stmts[0]->stmt->select_stmt->target_list[0]->res_target->val;
		*call = v && v->node_case == PG_QUERY__NODE__NODE_FUNC_CALL;
	}
	if (pr)
		pg_query__parse_result__free_unpacked(pr, NULL);
}

static void key_text(const cat_rel *t, const cat_index_col *k, bool pretty, util_buf *out)
{
	if (k->attnum) {
		const cat_column *c = cat_column_by_attnum(t, k->attnum);
		sql_quote_ident(c ? c->name : "?", out);
		return;
	}
	util_buf e = UTIL_BUF_INIT;
	bool call;
	expr_of(k->expr_sql ? k->expr_sql : "", &e, &call);
	if (call)
		util_buf_puts(out, e.data);
	else
		util_buf_printf(out, pretty ? "(%s)" : "((%s))", e.data);
	util_buf_free(&e);
}

void sql_index_def_text(sql_session *s, cat_snap *cs, const cat_obj *ix, int column, bool pretty,
			util_buf *out)
{
	const cat_index_info *info = ix->rel.index;
	const cat_obj *table = info ? cat_get(cs, info->table) : NULL;
	if (!info || !table)
		return;
	const cat_rel *t = &table->rel;
	if (column > 0) {
		if (column <= info->nkeys) {
			key_text(t, &info->keys[column - 1], pretty, out);
		} else if (column <= info->nkeys + info->ninclude) {
			const cat_column *c =
			    cat_column_by_attnum(t, info->include[column - info->nkeys - 1]);
			sql_quote_ident(c ? c->name : "?", out);
		}
		return;
	}
	util_buf_printf(out, "CREATE %sINDEX ", info->unique ? "UNIQUE " : "");
	sql_quote_ident(ix->rel.name, out);
	util_buf_puts(out, " ON ");
	const char *schema = sql_schema_name(cs, t->schema);
	if (!pretty || !s || !sql_rel_visible(s, cs, table)) {
		sql_quote_ident(schema ? schema : "?", out);
		util_buf_putc(out, '.');
	}
	sql_quote_ident(t->name, out);
	util_buf_puts(out, " USING btree (");
	for (int i = 0; i < info->nkeys; i++) {
		const cat_index_col *k = &info->keys[i];
		if (i)
			util_buf_puts(out, ", ");
		key_text(t, k, pretty, out);
		if (k->desc)
			util_buf_puts(out, " DESC");
		if (k->desc && !k->nulls_first)
			util_buf_puts(out, " NULLS LAST");
		else if (!k->desc && k->nulls_first)
			util_buf_puts(out, " NULLS FIRST");
	}
	util_buf_putc(out, ')');
	if (info->ninclude) {
		util_buf_puts(out, " INCLUDE (");
		for (int i = 0; i < info->ninclude; i++) {
			const cat_column *c = cat_column_by_attnum(t, info->include[i]);
			if (i)
				util_buf_puts(out, ", ");
			sql_quote_ident(c ? c->name : "?", out);
		}
		util_buf_putc(out, ')');
	}
	if (info->nulls_not_distinct)
		util_buf_puts(out, " NULLS NOT DISTINCT");
	if (info->predicate_sql) {
		util_buf e = UTIL_BUF_INIT;
		bool call;
		expr_of(info->predicate_sql, &e, &call);
		util_buf_printf(out, " WHERE (%s)", e.data);
		util_buf_free(&e);
	}
}

/* ---------------------------------------------------------------- pg_indexes */

#define N TY_NAME
#define T TY_TEXT

static const sql_syscol indexes_cols[] = {
    {"schemaname", N}, {"tablename", N}, {"indexname", N}, {"tablespace", N}, {"indexdef", T},
};

typedef struct gen_ctx {
	sql_session *s;
	cat_snap *cs;
	sql_sysrows *out;
} gen_ctx;

static int index_row(void *arg, const cat_obj *o)
{
	gen_ctx *g = arg;
	const cat_rel *r = &o->rel;
	if (r->relkind != CAT_RELKIND_INDEX || !r->index)
		return 0;
	const cat_obj *t = cat_get(g->cs, r->index->table);
	if (!t)
		return 0;
	util_buf def = UTIL_BUF_INIT;
	sql_index_def_text(g->s, g->cs, o, 0, false, &def);
	ty_datum v[5] = {sql_d_name(sql_schema_name(g->cs, t->rel.schema)), sql_d_name(t->rel.name),
			 sql_d_name(r->name), ty_null(), sql_d_text(def.data ? def.data : "")};
	sql_sysrows_add(g->out, v);
	util_buf_free(&def);
	return 0;
}

static void gen_indexes(sql_session *s, cat_snap *cs, sql_sysrows *out)
{
	gen_ctx g = {s, cs, out};
	cat_foreach(cs, CAT_REL, s->db_oid, index_row, &g);
}

static const sql_sysview views[] = {
    {"pg_catalog", "pg_indexes", 12101, (int)UTIL_ARRAY_LEN(indexes_cols), indexes_cols, gen_indexes},
};

/* ---------------------------------------------------------------- pg_get_indexdef */

static ty_datum indexdef(ty_fcinfo *fc, int column, bool pretty)
{
	sql_session *s = sql_current_session();
	if (!s || !s->cat)
		return ty_null();
	const cat_obj *o = cat_get(s->cat, (cat_oid)fc->args[0].i);
	if (!o || o->kind != CAT_REL || o->rel.relkind != CAT_RELKIND_INDEX)
		return ty_null();
	util_buf b = UTIL_BUF_INIT;
	sql_index_def_text(s, s->cat, o, column, pretty, &b);
	ty_datum d = ty_text(b.data ? b.data : "");
	util_buf_free(&b);
	return d;
}

static ty_datum f_indexdef(ty_fcinfo *fc)
{
	return indexdef(fc, 0, false);
}
static ty_datum f_indexdef_ext(ty_fcinfo *fc)
{
	return indexdef(fc, (int)fc->args[1].i, fc->args[2].i != 0);
}

static const ty_func funcs[] = {
    {.name = "pg_get_indexdef",
     .nargs = 1,
     .args = {TY_OID},
     .ret = TY_TEXT,
     .fn = f_indexdef,
     .volatility = TY_STABLE,
     .strict = true,
     .kind = 'f',
     .prosrc = "pg_get_indexdef",
     .oid = 1643},
    {.name = "pg_get_indexdef",
     .nargs = 3,
     .args = {TY_OID, TY_INT4, TY_BOOL},
     .ret = TY_TEXT,
     .fn = f_indexdef_ext,
     .volatility = TY_STABLE,
     .strict = true,
     .kind = 'f',
     .prosrc = "pg_get_indexdef_ext",
     .oid = 2507},
};

void sql_register_index_views(void)
{
	sql_sysview_register(views, (int)UTIL_ARRAY_LEN(views));
	ty_func_register(funcs, (int)UTIL_ARRAY_LEN(funcs));
}
