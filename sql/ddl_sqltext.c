/*
 * ddl_sqltext.c — keeping stored SQL text right when names change.
 * Defaults, CHECK constraints and views are stored as SQL text (PostgreSQL
 * stores trees that refer to objects by number); when ALTER TABLE renames
 * a column or a table, or moves it to another schema, the texts that
 * mention it are parsed, the references rewritten and the text deparsed
 * again, so they keep meaning what they meant.
 *
 * The parse trees belong to libpg_query's allocator: strings swapped in
 * are swapped back before the tree is freed.
 */
#include <string.h>

#include "ddl_int.h"

static const char *str_of(pnode *n)
{
	return n && n->node_case == PG_QUERY__NODE__NODE_STRING ? n->string->sval : NULL;
}

typedef bool (*msg_fn)(ProtobufCMessage *m, void *arg);

static bool walk(ProtobufCMessage *m, msg_fn fn, void *arg)
{
	if (!m)
		return false;
	if (fn(m, arg))
		return true;
	const ProtobufCMessageDescriptor *d = m->descriptor;
	for (unsigned i = 0; i < d->n_fields; i++) {
		const ProtobufCFieldDescriptor *f = &d->fields[i];
		if (f->type != PROTOBUF_C_TYPE_MESSAGE)
			continue;
		char *base = (char *)m;
		if (f->label == PROTOBUF_C_LABEL_REPEATED) {
			size_t n = *(size_t *)(base + f->quantifier_offset);
			ProtobufCMessage **arr = *(ProtobufCMessage ***)(base + f->offset);
			for (size_t k = 0; k < n; k++)
				if (walk(arr[k], fn, arg))
					return true;
		} else {
			if (f->flags & PROTOBUF_C_FIELD_FLAG_ONEOF) {
				uint32_t which = *(uint32_t *)(base + f->quantifier_offset);
				if (which != f->id)
					continue;
			}
			if (walk(*(ProtobufCMessage **)(base + f->offset), fn, arg))
				return true;
		}
	}
	return false;
}

/* String fields swapped for arena copies, restored before the free. */
typedef struct patches {
	char ***fields;
	char **orig;
	int n;
} patches;

static void patch(patches *p, char **field, const char *val)
{
	char ***nf = ty_alloc(sizeof(char **) * (size_t)(p->n + 1));
	char **no = ty_alloc(sizeof(char *) * (size_t)(p->n + 1));
	if (p->n) {
		memcpy(nf, p->fields, sizeof(char **) * (size_t)p->n);
		memcpy(no, p->orig, sizeof(char *) * (size_t)p->n);
	}
	nf[p->n] = field;
	no[p->n] = *field;
	p->fields = nf;
	p->orig = no;
	p->n++;
	*field = ty_strdup(val);
}

static void unpatch_and_free(patches *p, PgQuery__ParseResult *pr)
{
	for (int i = p->n - 1; i >= 0; i--)
		*p->fields[i] = p->orig[i];
	pg_query__parse_result__free_unpacked(pr, NULL);
}

/* ---------------------------------------------------------------- column references */

typedef struct colref {
	const char *col;
	const char *newname;
	const char **quals; /* qualifiers naming the table (NULL = any) */
	int nquals;
	bool star;
	bool found;
	patches *p;
} colref;

static bool qual_ok(colref *w, const char *q)
{
	if (!w->quals)
		return true;
	for (int i = 0; i < w->nquals; i++)
		if (q && !strcmp(q, w->quals[i]))
			return true;
	return false;
}

static bool colref_fn(ProtobufCMessage *m, void *arg)
{
	colref *w = arg;
	if (m->descriptor == &pg_query__a__star__descriptor) {
		if (w->star)
			w->found = true;
		return false;
	}
	if (m->descriptor != &pg_query__column_ref__descriptor)
		return false;
	PgQuery__ColumnRef *cr = (PgQuery__ColumnRef *)m;
	if (!cr->n_fields)
		return false;
	pnode *last = cr->fields[cr->n_fields - 1];
	const char *name = str_of(last);
	if (!name || strcmp(name, w->col))
		return false;
	if (cr->n_fields > 1 && !qual_ok(w, str_of(cr->fields[cr->n_fields - 2])))
		return false;
	w->found = true;
	if (w->newname)
		patch(w->p, &last->string->sval, w->newname);
	return false;
}

bool sql_text_mentions_column(const char *sql, const char *col, bool star)
{
	util_err err;
	PgQuery__ParseResult *pr = sql_parse_text(sql, &err);
	if (!pr)
		return false;
	patches p = {0};
	colref w = {col, NULL, NULL, 0, star, false, &p};
	walk(&pr->base, colref_fn, &w);
	unpatch_and_free(&p, pr);
	return w.found;
}

char *sql_text_rename_column_in_expr(const char *sql, const char *col, const char *newname)
{
	util_err err;
	PgQuery__ParseResult *pr = sql_parse_text(sql, &err);
	if (!pr)
		return NULL;
	patches p = {0};
	colref w = {col, newname, NULL, 0, false, false, &p};
	walk(&pr->base, colref_fn, &w);
	char *out = NULL;
	if (w.found)
		out = sql_deparse_stmt(pr->stmts[0]->stmt);
	unpatch_and_free(&p, pr);
	return out;
}

/* ---------------------------------------------------------------- views */

typedef struct relref {
	sql_session *s;
	cat_snap *cs;
	cat_oid rel;
	const char *newschema; /* qualify with this schema (NULL = keep) */
	const char *newname;   /* rename to this (NULL = keep) */
	const char *oldname;
	const char **quals; /* names the table is referred to by */
	int nquals;
	bool found;
	patches *p;
} relref;

/* A regclass literal naming the relation: renamed (or moved) with it, as
 * PostgreSQL's view holds the oid. */
static void relref_literal(relref *w, ProtobufCMessage *m)
{
	PgQuery__AConst *lit = NULL;
	const cat_obj *o = sql_text_regclass_ref(w->s, w->cs, m, &lit);
	if (!o || o->oid != w->rel || !lit || (!w->newname && !w->newschema))
		return;
	util_buf b = UTIL_BUF_INIT;
	sql_quote_ident(w->newschema ? w->newschema : sql_schema_name(w->cs, o->rel.schema), &b);
	util_buf_puts(&b, ".");
	sql_quote_ident(w->newname ? w->newname : o->rel.name, &b);
	patch(w->p, &lit->sval->sval, ty_strdup(b.data));
	util_buf_free(&b);
	w->found = true;
}

static bool relref_fn(ProtobufCMessage *m, void *arg)
{
	relref *w = arg;
	if (m->descriptor == &pg_query__func_call__descriptor ||
	    m->descriptor == &pg_query__type_cast__descriptor)
		relref_literal(w, m);
	if (m->descriptor != &pg_query__range_var__descriptor)
		return false;
	PgQuery__RangeVar *rv = (PgQuery__RangeVar *)m;
	const cat_obj *o = sql_lookup_rel_name(
	    w->s, w->cs, rv->schemaname && *rv->schemaname ? rv->schemaname : NULL, rv->relname);
	if (!o || o->oid != w->rel)
		return false;
	w->found = true;
	const char *q =
	    rv->alias && rv->alias->aliasname && *rv->alias->aliasname ? rv->alias->aliasname : rv->relname;
	const char **nq = ty_alloc(sizeof(char *) * (size_t)(w->nquals + 1));
	if (w->nquals)
		memcpy(nq, w->quals, sizeof(char *) * (size_t)w->nquals);
	nq[w->nquals++] = ty_strdup(q);
	w->quals = nq;
	if (w->newname)
		patch(w->p, &rv->relname, w->newname);
	if (w->newschema)
		patch(w->p, &rv->schemaname, w->newschema);
	return false;
}

/* Renames ColumnRef qualifiers equal to the old table name (no alias). */
typedef struct qualren {
	const char *from, *to;
	patches *p;
} qualren;

static bool qualren_fn(ProtobufCMessage *m, void *arg)
{
	qualren *w = arg;
	if (m->descriptor != &pg_query__column_ref__descriptor)
		return false;
	PgQuery__ColumnRef *cr = (PgQuery__ColumnRef *)m;
	if (cr->n_fields < 2)
		return false;
	pnode *q = cr->fields[cr->n_fields - 2];
	if (str_of(q) && !strcmp(str_of(q), w->from))
		patch(w->p, &q->string->sval, w->to);
	return false;
}

char *sql_text_view_rename_rel(sql_session *s, cat_snap *cs, const char *view_sql, cat_oid rel,
			       const char *newschema, const char *newname)
{
	util_err err;
	PgQuery__ParseResult *pr = sql_parse_text(view_sql, &err);
	if (!pr)
		return NULL;
	patches p = {0};
	const cat_obj *o = cat_get(cs, rel);
	relref w = {s, cs, rel, newschema, newname, o ? o->rel.name : "", NULL, 0, false, &p};
	walk(&pr->base, relref_fn, &w);
	if (w.found && newname) {
		qualren qr = {w.oldname, newname, &p};
		walk(&pr->base, qualren_fn, &qr);
	}
	char *out = w.found ? sql_deparse_stmt(pr->stmts[0]->stmt) : NULL;
	unpatch_and_free(&p, pr);
	return out;
}

char *sql_text_view_rename_column(sql_session *s, cat_snap *cs, const char *view_sql, cat_oid rel,
				  const char *col, const char *newname)
{
	util_err err;
	PgQuery__ParseResult *pr = sql_parse_text(view_sql, &err);
	if (!pr)
		return NULL;
	patches p = {0};
	relref rw = {s, cs, rel, NULL, NULL, "", NULL, 0, false, &p};
	walk(&pr->base, relref_fn, &rw);
	char *out = NULL;
	if (rw.found) {
		/* The view's own output names stay: a renamed top-level column
		 * keeps its old name as an alias. */
		pnode *st = pr->stmts[0]->stmt;
		if (st->node_case == PG_QUERY__NODE__NODE_SELECT_STMT)
			for (size_t i = 0; i < st->select_stmt->n_target_list; i++) {
				PgQuery__ResTarget *rt = st->select_stmt->target_list[i]->res_target;
				if (rt->name && *rt->name)
					continue;
				if (rt->val && rt->val->node_case == PG_QUERY__NODE__NODE_COLUMN_REF) {
					PgQuery__ColumnRef *cr = rt->val->column_ref;
					const char *last =
					    cr->n_fields ? str_of(cr->fields[cr->n_fields - 1]) : NULL;
					if (last && !strcmp(last, col))
						patch(&p, &rt->name, col);
				}
			}
		/* Qualified references through the table's names; unqualified
		 * ones resolve to it when it is in scope. */
		colref cw = {col, newname, rw.quals, rw.nquals, false, false, &p};
		walk(&pr->base, colref_fn, &cw);
		if (cw.found)
			out = sql_deparse_stmt(st);
	}
	unpatch_and_free(&p, pr);
	return out;
}

/* ---------------------------------------------------------------- raw expressions */

typedef struct colnames {
	const char **names;
	int n, max;
} colnames;

static bool colnames_fn(ProtobufCMessage *m, void *arg)
{
	colnames *c = arg;
	if (m->descriptor != &pg_query__column_ref__descriptor)
		return false;
	PgQuery__ColumnRef *cr = (PgQuery__ColumnRef *)m;
	const char *name = cr->n_fields ? str_of(cr->fields[cr->n_fields - 1]) : NULL;
	if (!name)
		return false;
	for (int i = 0; i < c->n; i++)
		if (!strcmp(c->names[i], name))
			return false;
	if (c->n < c->max)
		c->names[c->n++] = name;
	return false;
}

int sql_text_column_refs(pnode *expr, const char **out, int max)
{
	colnames c = {out, 0, max};
	walk((ProtobufCMessage *)expr, colnames_fn, &c);
	return c.n;
}

/* ---------------------------------------------------------------- sequence references */

/* A regclass literal as regclass input reads it: dotted identifiers,
 * double quotes keep case, the rest folds to lower case. Returns parts. */
static int split_name(const char *lit, char parts[3][CAT_NAME_MAX])
{
	int n = 0;
	const char *p = lit;
	while (*p && n < 3) {
		size_t k = 0;
		if (*p == '"') {
			p++;
			while (*p && !(*p == '"' && p[1] != '"')) {
				if (*p == '"')
					p++;
				if (k + 1 < CAT_NAME_MAX)
					parts[n][k++] = *p;
				p++;
			}
			if (*p == '"')
				p++;
		} else {
			while (*p && *p != '.') {
				if (k + 1 < CAT_NAME_MAX)
					parts[n][k++] = (char)(*p >= 'A' && *p <= 'Z' ? *p + 32 : *p);
				p++;
			}
		}
		parts[n][k] = 0;
		n++;
		if (*p != '.')
			break;
		p++;
	}
	return n;
}

static bool is_regclass(const PgQuery__TypeName *tn)
{
	const char *t = tn && tn->n_names && !tn->n_array_bounds ? str_of(tn->names[tn->n_names - 1]) : NULL;
	return t && !strcmp(t, "regclass");
}

const cat_obj *sql_text_regclass_ref(sql_session *s, cat_snap *cs, const ProtobufCMessage *m,
				     PgQuery__AConst **lit)
{
	pnode *a = NULL;
	if (m->descriptor == &pg_query__func_call__descriptor) {
		const PgQuery__FuncCall *fc = (const PgQuery__FuncCall *)m;
		const char *fn = fc->n_funcname ? str_of(fc->funcname[fc->n_funcname - 1]) : NULL;
		if (!fn || (strcmp(fn, "nextval") && strcmp(fn, "currval") && strcmp(fn, "setval")) ||
		    !fc->n_args)
			return NULL;
		a = fc->args[0];
		/* ('s'::text: looked up when called, no dependency in PostgreSQL) */
		if (a->node_case == PG_QUERY__NODE__NODE_TYPE_CAST)
			a = is_regclass(a->type_cast->type_name) ? a->type_cast->arg : NULL;
	} else if (m->descriptor == &pg_query__type_cast__descriptor) {
		const PgQuery__TypeCast *tc = (const PgQuery__TypeCast *)m;
		if (!is_regclass(tc->type_name))
			return NULL;
		a = tc->arg;
	} else {
		return NULL;
	}
	if (!a || a->node_case != PG_QUERY__NODE__NODE_A_CONST ||
	    a->a_const->val_case != PG_QUERY__A__CONST__VAL_SVAL)
		return NULL;
	if (lit)
		*lit = a->a_const;
	char parts[3][CAT_NAME_MAX];
	int n = split_name(a->a_const->sval->sval, parts);
	return n == 1   ? sql_lookup_rel_name(s, cs, NULL, parts[0])
	       : n >= 2 ? sql_lookup_rel_name(s, cs, parts[n - 2], parts[n - 1])
			: NULL;
}

typedef struct seqref {
	sql_session *s;
	cat_snap *cs;
	cat_oid seq;
	bool found;
} seqref;

static bool seqref_fn(ProtobufCMessage *m, void *arg)
{
	seqref *w = arg;
	if (m->descriptor != &pg_query__func_call__descriptor)
		return false;
	const cat_obj *o = sql_text_regclass_ref(w->s, w->cs, m, NULL);
	if (o && o->oid == w->seq) {
		w->found = true;
		return true;
	}
	return false;
}

bool sql_text_default_uses_seq(sql_session *s, cat_snap *cs, const char *sql, cat_oid seq)
{
	util_err err;
	PgQuery__ParseResult *pr = sql_parse_text(sql, &err);
	if (!pr)
		return false;
	seqref w = {s, cs, seq, false};
	walk(&pr->base, seqref_fn, &w);
	pg_query__parse_result__free_unpacked(pr, NULL);
	return w.found;
}

/* ---------------------------------------------------------------- binding names at CREATE VIEW */

typedef struct ctenames {
	const char **names;
	int n;
} ctenames;

static bool cte_fn(ProtobufCMessage *m, void *arg)
{
	ctenames *c = arg;
	if (m->descriptor != &pg_query__common_table_expr__descriptor)
		return false;
	PgQuery__CommonTableExpr *cte = (PgQuery__CommonTableExpr *)m;
	const char **n = ty_alloc(sizeof(char *) * (size_t)(c->n + 1));
	if (c->n)
		memcpy(n, c->names, sizeof(char *) * (size_t)c->n);
	n[c->n++] = cte->ctename;
	c->names = n;
	return false;
}

typedef struct qualify {
	sql_session *s;
	cat_snap *cs;
	ctenames ctes;
	patches *p;
} qualify;

static bool qualify_fn(ProtobufCMessage *m, void *arg)
{
	qualify *q = arg;
	if (m->descriptor != &pg_query__range_var__descriptor)
		return false;
	PgQuery__RangeVar *rv = (PgQuery__RangeVar *)m;
	if (rv->schemaname && *rv->schemaname)
		return false;
	for (int i = 0; i < q->ctes.n; i++)
		if (!strcmp(q->ctes.names[i], rv->relname))
			return false;
	const cat_obj *o = sql_lookup_rel_name(q->s, q->cs, NULL, rv->relname);
	if (!o)
		return false;
	patch(q->p, &rv->schemaname, sql_schema_name(q->cs, o->rel.schema));
	return false;
}

char *sql_text_deparse_bound(sql_session *s, cat_snap *cs, pnode *stmt)
{
	patches p = {0};
	qualify q = {s, cs, {NULL, 0}, &p};
	walk((ProtobufCMessage *)stmt, cte_fn, &q.ctes);
	walk((ProtobufCMessage *)stmt, qualify_fn, &q);
	char *out;
	TY_TRY(tc)
	{
		out = sql_deparse_stmt(stmt);
	}
	TY_CATCH(tc)
	{
		TY_END(tc);
		for (int i = p.n - 1; i >= 0; i--)
			*p.fields[i] = p.orig[i];
		ty_errthrow();
	}
	TY_END(tc);
	for (int i = p.n - 1; i >= 0; i--)
		*p.fields[i] = p.orig[i];
	return out;
}
