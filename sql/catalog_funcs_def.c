/*
 * catalog_funcs_def.c — the text of catalog objects as PostgreSQL prints
 * it: pg_get_constraintdef (PRIMARY KEY / UNIQUE / FOREIGN KEY / CHECK),
 * pg_get_indexdef (CREATE INDEX ... USING btree (...)), and the function
 * signatures of pg_get_function_arguments / _identity_arguments / _result.
 */
#include <stdio.h>
#include <string.h>

#include "sysview.h"

static void put_rel(sql_session *s, cat_snap *cs, const cat_obj *rel, bool qualify, util_buf *b)
{
	if (qualify || !sql_rel_visible(s, cs, rel)) {
		sql_quote_identifier(sql_schema_name(cs, rel->rel.schema), b);
		util_buf_putc(b, '.');
	}
	sql_quote_identifier(rel->rel.name, b);
}

static void put_cols(const cat_obj *t, int n, const int16_t *cols, util_buf *b)
{
	util_buf_putc(b, '(');
	for (int i = 0; i < n; i++) {
		if (i)
			util_buf_puts(b, ", ");
		const cat_column *c = t ? cat_column_by_attnum(&t->rel, cols[i]) : NULL;
		if (c)
			sql_quote_identifier(c->name, b);
		else
			util_buf_printf(b, "%d", cols[i]);
	}
	util_buf_putc(b, ')');
}

static const char *fk_action_text(char a)
{
	switch (a) {
	case CAT_FK_RESTRICT:
		return "RESTRICT";
	case CAT_FK_CASCADE:
		return "CASCADE";
	case CAT_FK_SET_NULL:
		return "SET NULL";
	case CAT_FK_SET_DEFAULT:
		return "SET DEFAULT";
	default:
		return NULL;
	}
}

char *sql_constraintdef_text(sql_session *s, cat_snap *cs, const cat_obj *t, const cat_constraint *c,
			     bool pretty)
{
	util_buf b = UTIL_BUF_INIT;
	switch (c->type) {
	case 'p':
	case 'u': {
		util_buf_puts(&b, c->type == 'p' ? "PRIMARY KEY " : "UNIQUE ");
		int n;
		sql_index_desc *d = sql_table_indexes(cs, t, &n);
		for (int i = 0; i < n; i++)
			if (d[i].con == c && d[i].info.nulls_not_distinct)
				util_buf_puts(&b, "NULLS NOT DISTINCT ");
		put_cols(t, c->ncols, c->cols, &b);
		for (int i = 0; i < n; i++)
			if (d[i].con == c && d[i].info.ninclude) {
				util_buf_puts(&b, " INCLUDE ");
				put_cols(t, d[i].info.ninclude, d[i].info.include, &b);
			}
		break;
	}
	case 'f': {
		util_buf_puts(&b, "FOREIGN KEY ");
		put_cols(t, c->ncols, c->cols, &b);
		util_buf_puts(&b, " REFERENCES ");
		const cat_obj *ref = cat_get(cs, c->ref_table);
		if (ref)
			put_rel(s, cs, ref, false, &b);
		put_cols(ref, c->ncols, c->ref_cols, &b);
		if (c->match == 'f')
			util_buf_puts(&b, " MATCH FULL");
		const char *a = fk_action_text(c->on_update);
		if (a)
			util_buf_printf(&b, " ON UPDATE %s", a);
		a = fk_action_text(c->on_delete);
		if (a)
			util_buf_printf(&b, " ON DELETE %s", a);
		break;
	}
	case 'c': {
		util_buf_puts(&b, "CHECK (");
		util_buf_puts(&b, sql_deparse_expr_text(s, cs, t, c->check_sql, pretty));
		util_buf_putc(&b, ')');
		if (c->no_inherit)
			util_buf_puts(&b, " NO INHERIT");
		break;
	}
	default:
		util_buf_puts(&b, "?");
		break;
	}
	if (c->deferrable)
		util_buf_puts(&b, " DEFERRABLE");
	if (c->deferred)
		util_buf_puts(&b, " INITIALLY DEFERRED");
	if ((c->type == 'c') && !c->validated)
		util_buf_puts(&b, " NOT VALID");
	char *r = ty_strndup(b.data ? b.data : "", b.len);
	util_buf_free(&b);
	return r;
}

/* Whether an index expression prints without extra parentheses (a
 * function call, as ruleutils' looks_like_function). */
static bool looks_like_function(const char *text)
{
	const char *p = text;
	/* Upper case: COALESCE, NULLIF, GREATEST, LEAST and SQL-syntax calls
	 * (EXTRACT ...) are function-like; a ROW constructor is not. */
	if (!*p || !((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') || *p == '_' || *p == '"') ||
	    !strncmp(p, "ROW(", 4))
		return false;
	while ((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') || (*p >= '0' && *p <= '9') ||
	       *p == '_' || *p == '.')
		p++;
	if (*p != '(')
		return false;
	int depth = 0;
	for (; *p; p++) {
		if (*p == '(')
			depth++;
		else if (*p == ')' && --depth == 0)
			return p[1] == '\0';
	}
	return false;
}

char *sql_indexdef_text(sql_session *s, cat_snap *cs, const sql_index_desc *d, int col, bool pretty)
{
	util_buf b = UTIL_BUF_INIT;
	const cat_index_info *ix = &d->info;
	const cat_obj *t = d->table;
	if (!col) {
		util_buf_puts(&b, ix->unique ? "CREATE UNIQUE INDEX " : "CREATE INDEX ");
		sql_quote_identifier(d->name, &b);
		util_buf_puts(&b, " ON ");
		if (t)
			put_rel(s, cs, t, true, &b);
		util_buf_puts(&b, " USING btree (");
	}
	for (int i = 0; i < ix->nkeys; i++) {
		if (col && col != i + 1)
			continue;
		if (!col && i)
			util_buf_puts(&b, ", ");
		const cat_index_col *k = &ix->keys[i];
		if (k->attnum) {
			const cat_column *c = t ? cat_column_by_attnum(&t->rel, k->attnum) : NULL;
			if (c)
				sql_quote_identifier(c->name, &b);
		} else {
			char *e = t ? sql_deparse_expr_text(s, cs, t, k->expr_sql, pretty) : (char *)"";
			if (col || looks_like_function(e))
				util_buf_puts(&b, e);
			else
				util_buf_printf(&b, "(%s)", e);
		}
		if (!col) {
			if (k->desc)
				util_buf_puts(&b, " DESC");
			if (k->nulls_first && !k->desc)
				util_buf_puts(&b, " NULLS FIRST");
			else if (!k->nulls_first && k->desc)
				util_buf_puts(&b, " NULLS LAST");
		}
	}
	if (col && col > ix->nkeys && col <= ix->nkeys + ix->ninclude) {
		const cat_column *c =
		    t ? cat_column_by_attnum(&t->rel, ix->include[col - ix->nkeys - 1]) : NULL;
		if (c)
			sql_quote_identifier(c->name, &b);
	}
	if (!col) {
		util_buf_putc(&b, ')');
		if (ix->ninclude) {
			util_buf_puts(&b, " INCLUDE ");
			put_cols(t, ix->ninclude, ix->include, &b);
		}
		if (ix->nulls_not_distinct)
			util_buf_puts(&b, " NULLS NOT DISTINCT");
		if (ix->predicate_sql && t) {
			util_buf_puts(&b, " WHERE ");
			util_buf_puts(&b, sql_deparse_expr_text(s, cs, t, ix->predicate_sql, pretty));
		}
	}
	char *r = ty_strndup(b.data ? b.data : "", b.len);
	util_buf_free(&b);
	return r;
}

/* ---- function signatures ---- */

void sql_function_arguments(const ty_func *f, bool identity, util_buf *b)
{
	(void)identity;
	for (int i = 0; i < f->nargs; i++) {
		if (i)
			util_buf_puts(b, ", ");
		if (f->variadic && i == f->nargs - 1)
			util_buf_puts(b, "VARIADIC ");
		ty_format_type(f->args[i], -1, b);
	}
}

void sql_function_result(const ty_func *f, util_buf *b)
{
	if (f->nout && f->retset) {
		util_buf_puts(b, "TABLE(");
		for (int i = 0; i < f->nout; i++) {
			if (i)
				util_buf_puts(b, ", ");
			if (f->outnames && f->outnames[i] && *f->outnames[i]) {
				sql_quote_identifier(f->outnames[i], b);
				util_buf_putc(b, ' ');
			}
			ty_format_type(f->outtypes[i], -1, b);
		}
		util_buf_putc(b, ')');
		return;
	}
	if (f->retset)
		util_buf_puts(b, "SETOF ");
	ty_format_type(f->ret, -1, b);
}
