/*
 * analyze.c — SELECT statements to analyzed queries: FROM items (tables,
 * views, subqueries, functions, VALUES, joins with USING/NATURAL), the
 * target list with * expansion, WHERE, GROUP BY (with grouping sets),
 * HAVING, windows, ORDER BY/DISTINCT/LIMIT resolution by PostgreSQL's rules,
 * set operations and WITH. Also name lookup helpers shared by DDL and DML.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "datetime.h"
#include "sql_int.h"

static const char *str_of(pnode *n) { return n && n->node_case == PG_QUERY__NODE__NODE_STRING ? n->string->sval : NULL; }

/* ---------------------------------------------------------------- lookups */

const char *sql_schema_name(cat_snap *cs, cat_oid oid)
{
	const cat_obj *o = cat_get(cs, oid);
	return o && o->kind == CAT_SCHEMA ? o->schema.name : NULL;
}

const cat_obj *sql_lookup_schema(sql_session *s, cat_snap *cs, const char *name)
{
	if (!strcmp(name, "pg_temp")) /* the session's own temporary schema (ddl_temp.c) */
		return cat_get(cs, sql_temp_schema_oid(s, cs));
	const cat_obj *o = cat_schema_by_name(cs, s->db_oid, name);
	if (!o)
		o = cat_schema_by_name(cs, 0, name);
	return o;
}

/* Calls fn for each schema of the search path in order (pg_catalog first
 * unless listed, as PostgreSQL does). */
int sql_search_path(sql_session *s, cat_snap *cs, cat_oid *out, int max)
{
	int n = 0;
	char buf[256];
	snprintf(buf, sizeof buf, "%s", s->search_path);
	bool has_catalog = strstr(buf, "pg_catalog") != NULL;
	/* Temporary relations come first unless pg_temp is placed explicitly. */
	cat_oid tmp = sql_temp_schema_oid(s, cs);
	if (tmp && !strstr(buf, "pg_temp") && n < max)
		out[n++] = tmp;
	if (!has_catalog && n < max)
		out[n++] = CAT_OID_PG_CATALOG;
	char *save = NULL; /* strtok_r: sessions run on many threads */
	for (char *tok = strtok_r(buf, ",", &save); tok && n < max; tok = strtok_r(NULL, ",", &save)) {
		while (*tok == ' ')
			tok++;
		char *end = tok + strlen(tok);
		while (end > tok && end[-1] == ' ')
			*--end = '\0';
		if (*tok == '"' && end > tok + 1 && end[-1] == '"') {
			end[-1] = '\0';
			tok++;
		}
		if (!strcmp(tok, "$user"))
			tok = s->user;
		const cat_obj *o = sql_lookup_schema(s, cs, tok);
		if (o)
			out[n++] = o->oid;
	}
	return n;
}

const char *sql_current_schema_name(sql_session *s)
{
	cat_snap *cs = s->cat ? s->cat : NULL;
	bool own = false;
	if (!cs) {
		cs = cat_current(s->e->cat);
		own = true;
	}
	cat_oid path[32];
	int n = sql_search_path(s, cs, path, 32);
	const char *name = NULL;
	for (int i = 0; i < n && !name; i++) {
		/* pg_catalog is implicitly first but current_schema() skips it unless listed. */
		if (path[i] == CAT_OID_PG_CATALOG && !strstr(s->search_path, "pg_catalog"))
			continue;
		if (sql_temp_schema_is_temp(cs, path[i]))
			continue;
		const char *sn = sql_schema_name(cs, path[i]);
		if (sn)
			name = ty_strdup(sn);
	}
	if (own)
		cat_snap_release(cs);
	return name;
}

const cat_obj *sql_lookup_rel_name(sql_session *s, cat_snap *cs, const char *schema, const char *name)
{
	if (schema && *schema) {
		const cat_obj *sch = sql_lookup_schema(s, cs, schema);
		if (!sch)
			return NULL;
		return cat_rel_by_name(cs, sch->oid, name);
	}
	cat_oid path[32];
	int n = sql_search_path(s, cs, path, 32);
	for (int i = 0; i < n; i++) {
		const cat_obj *o = cat_rel_by_name(cs, path[i], name);
		if (o)
			return o;
	}
	return NULL;
}

const cat_obj *sql_lookup_rel(sql_session *s, cat_snap *cs, PgQuery__RangeVar *rv, bool missing_ok)
{
	const char *schema = rv->schemaname && *rv->schemaname ? rv->schemaname : NULL;
	if (schema && !sql_lookup_schema(s, cs, schema)) {
		if (missing_ok)
			return NULL;
		util_err *e = ty_errstart(UTIL_E_INVALID_SCHEMA_NAME, "schema \"%s\" does not exist", schema);
		e->position = 0;
		if (sql_current_session())
			e->position = rv->location >= 0 ? rv->location + 1 : 0;
		ty_errthrow();
	}
	const cat_obj *o = sql_lookup_rel_name(s, cs, schema, rv->relname);
	if (!o && !missing_ok) {
		util_err *e;
		if (schema)
			e = ty_errstart(UTIL_E_UNDEFINED_TABLE, "relation \"%s.%s\" does not exist", schema, rv->relname);
		else
			e = ty_errstart(UTIL_E_UNDEFINED_TABLE, "relation \"%s\" does not exist", rv->relname);
		e->position = -1 - rv->location; /* fixed up by the caller with the text */
		ty_errthrow();
	}
	return o;
}

cat_oid sql_creation_schema(sql_session *s, cat_snap *cs, const char *schema, int location)
{
	(void)location;
	if (schema && *schema) {
		const cat_obj *o = sql_lookup_schema(s, cs, schema);
		if (!o)
			ty_error(UTIL_E_INVALID_SCHEMA_NAME, "schema \"%s\" does not exist", schema);
		return o->oid;
	}
	cat_oid path[32];
	int n = sql_search_path(s, cs, path, 32);
	for (int i = 0; i < n; i++)
		if (path[i] != CAT_OID_PG_CATALOG && !sql_temp_schema_is_temp(cs, path[i]))
			return path[i];
	ty_error(UTIL_E_INVALID_SCHEMA_NAME, "no schema has been selected to create in");
}

/* The typmod of a date/time type from the grammar's modifiers, with
 * PostgreSQL's errors and its WARNING when a precision is reduced to 6
 * (both at the type name). */
static int32_t datetime_typmod(sql_actx *ax, ty_oid type, const int *mods, int n, int location)
{
	int32_t m[4];
	for (int i = 0; i < n && i < 4; i++)
		m[i] = mods[i];
	char warning[UTIL_ERR_MSG_MAX];
	int32_t tm;
	TY_TRY(tc)
	{
		tm = ty_dt_typmodin(type, m, n, warning);
	}
	TY_CATCH(tc)
	{
		TY_END(tc);
		if (ax && location >= 0 && !ty_err()->position)
			ty_err()->position = sql_errposition(ax->ps->text, location);
		ty_errthrow();
	}
	TY_END(tc);
	if (warning[0] && ax && ax->s && ax->s->client.notice) {
		util_err w;
		util_err_clear(&w);
		util_err_set(&w, UTIL_E_INVALID_PARAMETER_VALUE, "%s", warning); /* PostgreSQL: 22023 */
		w.severity = UTIL_SEV_WARNING;
		if (location >= 0)
			w.position = sql_errposition(ax->ps->text, location);
		ax->s->client.notice(ax->s->client.arg, &w);
	}
	return tm;
}

/* Resolves a TypeName (with typmods and array bounds). */
void sql_typename(sql_actx *ax, PgQuery__TypeName *tn, ty_oid *type, int32_t *typmod)
{
	const char *name = sql_last_name(tn->names, tn->n_names);
	const char *schema = tn->n_names > 1 ? str_of(tn->names[0]) : NULL;
	const ty_type *t = NULL;
	if (tn->pct_type)
		sql_error_at(ax, tn->location, UTIL_E_FEATURE_NOT_SUPPORTED, "%%TYPE references are not supported");
	if (schema && strcmp(schema, "pg_catalog") && strcmp(schema, "public") && strcmp(schema, "information_schema"))
		sql_error_at(ax, tn->location, UTIL_E_UNDEFINED_OBJECT, "type \"%s.%s\" does not exist", schema, name);
	/* serial types are handled by CREATE TABLE; here they are their base types. */
	if (!strcmp(name, "serial") || !strcmp(name, "serial4"))
		name = "int4";
	else if (!strcmp(name, "bigserial") || !strcmp(name, "serial8"))
		name = "int8";
	else if (!strcmp(name, "smallserial") || !strcmp(name, "serial2"))
		name = "int2";
	t = ty_type_by_name(name);
	if (!t && !strcmp(name, "timestamptz"))
		t = ty_type_get(TY_TIMESTAMPTZ);
	if (!t) {
		if (ax)
			sql_error_at(ax, tn->location, UTIL_E_UNDEFINED_OBJECT, "type \"%s\" does not exist", name);
		ty_error(UTIL_E_UNDEFINED_OBJECT, "type \"%s\" does not exist", name);
	}
	int32_t tm = -1;
	/* float(p): real for p <= 24, double precision above. */
	if (!strcmp(name, "float8") && tn->n_typmods == 1 && !strcmp(sql_last_name(tn->names, tn->n_names), "float8")) {
		pnode *a = tn->typmods[0];
		if (a->node_case == PG_QUERY__NODE__NODE_A_CONST && a->a_const->val_case == PG_QUERY__A__CONST__VAL_IVAL) {
			int p = a->a_const->ival->ival;
			if (p < 1)
				sql_error_at(ax, tn->location, UTIL_E_INVALID_PARAMETER_VALUE, "precision for type float must be at least 1 bit");
			if (p > 53)
				sql_error_at(ax, tn->location, UTIL_E_INVALID_PARAMETER_VALUE, "precision for type float must be less than 54 bits");
			t = ty_type_get(p <= 24 ? TY_FLOAT4 : TY_FLOAT8);
		}
	} else if (tn->n_typmods > 0) {
		int mods[4] = {0};
		int nm = 0;
		for (size_t i = 0; i < tn->n_typmods && nm < 4; i++) {
			pnode *a = tn->typmods[i];
			if (a->node_case == PG_QUERY__NODE__NODE_A_CONST && a->a_const->val_case == PG_QUERY__A__CONST__VAL_IVAL)
				mods[nm++] = a->a_const->ival->ival;
			else
				sql_error_at(ax, tn->location, UTIL_E_SYNTAX_ERROR, "type modifiers must be simple constants or identifiers");
		}
		ty_oid o = t->oid;
		if (o == TY_VARCHAR || o == TY_BPCHAR) {
			if (mods[0] < 1)
				sql_error_at(ax, tn->location, UTIL_E_INVALID_PARAMETER_VALUE, "length for type %s must be at least 1",
					     o == TY_VARCHAR ? "varchar" : "char");
			if (mods[0] > 10485760)
				sql_error_at(ax, tn->location, UTIL_E_INVALID_PARAMETER_VALUE, "length for type %s cannot exceed 10485760",
					     o == TY_VARCHAR ? "varchar" : "char");
			tm = mods[0] + TY_VARHDRSZ;
		} else if (o == TY_NUMERIC) {
			int p = mods[0], sc = nm > 1 ? mods[1] : 0;
			if (nm > 2)
				sql_error_at(ax, tn->location, UTIL_E_INVALID_PARAMETER_VALUE, "invalid NUMERIC type modifier");
			if (p < 1 || p > 1000)
				sql_error_at(ax, tn->location, UTIL_E_INVALID_PARAMETER_VALUE, "NUMERIC precision %d must be between 1 and 1000", p);
			if (sc < -1000 || sc > 1000)
				sql_error_at(ax, tn->location, UTIL_E_INVALID_PARAMETER_VALUE, "NUMERIC scale %d must be between -1000 and 1000", sc);
			tm = ((p << 16) | (sc & 0x7ff)) + TY_VARHDRSZ;
		} else if (o == TY_TIMESTAMP || o == TY_TIMESTAMPTZ || o == TY_TIME || o == TY_TIMETZ || o == TY_INTERVAL) {
			/* PostgreSQL's timestamptypmodin / intervaltypmodin: interval
			 * packs its fields and precision into one typmod. */
			tm = datetime_typmod(ax, o, mods, nm, tn->location);
		} else if (o == TY_BIT || o == TY_VARBIT) {
			tm = mods[0];
		} else {
			sql_error_at(ax, tn->location, UTIL_E_SYNTAX_ERROR, "type modifier is not allowed for type \"%s\"", t->name);
		}
	} else if (t->oid == TY_BPCHAR && (!strcmp(name, "char") || !strcmp(name, "character") || !strcmp(name, "bpchar"))) {
		/* char without length is char(1); bpchar is unlimited. */
		if (strcmp(name, "bpchar") != 0)
			tm = 1 + TY_VARHDRSZ;
	}
	ty_oid result = t->oid;
	if (tn->n_array_bounds > 0) {
		if (!t->array)
			sql_error_at(ax, tn->location, UTIL_E_UNDEFINED_OBJECT, "could not find array type for data type %s", t->name);
		result = t->array;
	}
	*type = result;
	*typmod = tm;
}

/* ---------------------------------------------------------------- range table */

static int add_rte(sql_query *q, sql_rte *r)
{
	sql_rte **nr = ty_alloc(sizeof(sql_rte *) * (size_t)(q->nrtes + 1));
	if (q->nrtes)
		memcpy(nr, q->rtes, sizeof(sql_rte *) * (size_t)q->nrtes);
	nr[q->nrtes++] = r;
	q->rtes = nr;
	if (!r->used)
		r->used = ty_alloc0(sizeof(bool) * (size_t)(r->ncols ? r->ncols : 1));
	return q->nrtes;
}

static void add_ns(sql_query *q, int rte, bool rel_visible, bool cols_visible)
{
	if (q->nns == q->ns_cap) {
		int cap = q->ns_cap ? q->ns_cap * 2 : 8;
		sql_nsitem *n = ty_alloc(sizeof(sql_nsitem) * (size_t)cap);
		if (q->nns)
			memcpy(n, q->ns, sizeof(sql_nsitem) * (size_t)q->nns);
		q->ns = n;
		q->ns_cap = cap;
	}
	q->ns[q->nns++] = (sql_nsitem){rte, rel_visible, cols_visible, true};
}

/* Hides namespace items [from, to) from name lookup; returns what
 * ns_restore needs to show them again. */
static bool *ns_hide(sql_query *q, int from, int to)
{
	int n = to - from;
	bool *saved = ty_alloc(sizeof(bool) * 2 * (size_t)(n > 0 ? n : 1));
	for (int i = 0; i < n; i++) {
		saved[2 * i] = q->ns[from + i].rel_visible;
		saved[2 * i + 1] = q->ns[from + i].cols_visible;
		q->ns[from + i].rel_visible = q->ns[from + i].cols_visible = false;
	}
	return saved;
}

static void ns_restore(sql_query *q, int from, int to, const bool *saved)
{
	for (int i = 0; i < to - from; i++) {
		q->ns[from + i].rel_visible = saved[2 * i];
		q->ns[from + i].cols_visible = saved[2 * i + 1];
	}
}

/* Applies alias column names (FROM t AS x(a, b)). */
static void apply_alias(sql_actx *ax, sql_rte *r, PgQuery__Alias *al, int location)
{
	if (!al || !al->aliasname || !*al->aliasname)
		return;
	snprintf(r->alias, sizeof r->alias, "%s", al->aliasname);
	r->has_alias = true;
	if (al->n_colnames > (size_t)r->ncols)
		sql_error_at(ax, location, UTIL_E_INVALID_COLUMN_REFERENCE, "table \"%s\" has %d columns available but %d columns specified",
			     al->aliasname, r->ncols, (int)al->n_colnames);
	char **names = ty_alloc(sizeof(char *) * (size_t)(r->ncols ? r->ncols : 1));
	for (int i = 0; i < r->ncols; i++)
		names[i] = r->colnames[i];
	for (size_t i = 0; i < al->n_colnames; i++)
		names[i] = ty_strdup(str_of(al->colnames[i]));
	r->colnames = names;
}

static sql_rte *new_rte(sql_rte_kind kind, const char *alias, int ncols)
{
	sql_rte *r = ty_alloc0(sizeof *r);
	r->kind = kind;
	snprintf(r->alias, sizeof r->alias, "%s", alias ? alias : "");
	r->ncols = ncols;
	r->colnames = ty_alloc0(sizeof(char *) * (size_t)(ncols ? ncols : 1));
	r->coltypes = ty_alloc0(sizeof(ty_oid) * (size_t)(ncols ? ncols : 1));
	r->coltypmods = ty_alloc0(sizeof(int32_t) * (size_t)(ncols ? ncols : 1));
	return r;
}

/* Fills an RTE's columns from a query's visible targets. */
static void rte_from_query(sql_rte *r, sql_query *sq)
{
	int k = 0;
	for (int i = 0; i < sq->ntargets; i++) {
		if (sq->targets[i].junk)
			continue;
		r->colnames[k] = sq->targets[i].name;
		r->coltypes[k] = sq->targets[i].expr->type;
		r->coltypmods[k] = sq->targets[i].expr->typmod;
		k++;
	}
}

sql_query *sql_new_query(sql_actx *ax, sql_cmd cmd, sql_query *parent)
{
	sql_query *q = ty_alloc0(sizeof *q);
	q->cmd = cmd;
	q->ps = ax->ps;
	q->parent = parent;
	return q;
}

/* A view's definition, analyzed as a subquery. */
static sql_query *expand_view(sql_actx *ax, const cat_obj *rel, sql_query *parent, int location)
{
	util_err perr;
	PgQuery__ParseResult *pr = sql_parse_text(rel->rel.view_sql, &perr);
	if (!pr || pr->n_stmts != 1 || pr->stmts[0]->stmt->node_case != PG_QUERY__NODE__NODE_SELECT_STMT) {
		if (pr)
			pg_query__parse_result__free_unpacked(pr, NULL);
		sql_error_at(ax, location, UTIL_E_DATA_CORRUPTED, "view \"%s\" has a broken definition", rel->rel.name);
	}
	/* The view body's own locations refer to its own text. */
	sql_pstate *saved = ax->ps;
	sql_pstate vps = *saved;
	vps.text = rel->rel.view_sql;
	ax->ps = &vps;
	sql_query *vq;
	TY_TRY(tc)
	{
		vq = sql_analyze_select(ax, pr->stmts[0]->stmt->select_stmt, NULL, NULL, 0);
	}
	TY_CATCH(tc)
	{
		TY_END(tc);
		ax->ps = saved;
		pg_query__parse_result__free_unpacked(pr, NULL);
		ty_errthrow();
	}
	TY_END(tc);
	saved->nexec_params = vps.nexec_params;
	saved->ncache = vps.ncache;
	saved->nctes = vps.nctes;
	ax->ps = saved;
	/* The parse tree may be freed: the analyzed query holds copies of
	 * everything it needs (names are duplicated into the arena). */
	pg_query__parse_result__free_unpacked(pr, NULL);
	(void)parent;
	return vq;
}

static sql_cte *find_cte(sql_query *q, const char *name, int *levelsup)
{
	int lv = 0;
	for (sql_query *p = q; p; p = p->parent, lv++)
		for (int i = p->nctes - 1; i >= 0; i--)
			if (!strcmp(p->ctes[i]->name, name)) {
				*levelsup = lv;
				return p->ctes[i];
			}
	return NULL;
}

static int transform_from_item(sql_actx *ax, sql_query *q, pnode *n, sql_jnode **out);

static sql_rte *table_rte(sql_actx *ax, sql_query *q, PgQuery__RangeVar *rv)
{
	const cat_obj *rel;
	TY_TRY(tc)
	{
		rel = sql_lookup_rel(ax->s, ax->cat, rv, false);
	}
	TY_CATCH(tc)
	{
		TY_END(tc);
		if (ty_err()->position < 0)
			ty_err()->position = sql_errposition(ax->ps->text, -1 - ty_err()->position);
		ty_errthrow();
	}
	TY_END(tc);
	if (rel->rel.relkind == CAT_RELKIND_INDEX)
		sql_error_at(ax, rv->location, UTIL_E_WRONG_OBJECT_TYPE, "\"%s\" is an index", rel->rel.name);
	if (rel->rel.relkind == CAT_RELKIND_VIEW) {
		sql_query *vq = expand_view(ax, rel, q, rv->location);
		sql_rte *r = new_rte(SQL_RTE_SUBQUERY, rel->rel.name, vq->nret);
		r->subquery = vq;
		r->rel = rel;
		rte_from_query(r, vq);
		return r;
	}
	const cat_rel *cr = &rel->rel;
	sql_rte *r = new_rte(SQL_RTE_TABLE, cr->name, cr->ncols);
	r->rel = rel;
	r->inh = rv->inh;
	for (int i = 0; i < cr->ncols; i++) {
		/* Dropped columns keep their slot (attnum) but have no name. */
		r->colnames[i] = cr->cols[i].dropped ? NULL : ty_strdup(cr->cols[i].name);
		r->coltypes[i] = cr->cols[i].type;
		r->coltypmods[i] = cr->cols[i].typmod;
	}
	if (cr->relkind == CAT_RELKIND_SEQUENCE) {
		/* SELECT * FROM seq: last_value, log_cnt, is_called (generated). */
		r->kind = SQL_RTE_SYSTEM;
	}
	return r;
}

/* Looks up a generated catalog relation (pg_catalog / information_schema). */
const struct sql_sysview *sql_sysview_find(const char *schema, const char *name);
void sql_sysview_columns(const struct sql_sysview *v, int *ncols, const char *const **names, const ty_oid **types);

static sql_rte *system_rte(sql_actx *ax, PgQuery__RangeVar *rv)
{
	const char *schema = rv->schemaname && *rv->schemaname ? rv->schemaname : NULL;
	if (schema && strcmp(schema, "pg_catalog") && strcmp(schema, "information_schema"))
		return NULL;
	if (!schema && sql_lookup_rel_name(ax->s, ax->cat, NULL, rv->relname))
		return NULL; /* a user relation shadows nothing in pg_catalog unless path says so */
	const struct sql_sysview *v = sql_sysview_find(schema ? schema : "pg_catalog", rv->relname);
	if (!v)
		return NULL;
	int n;
	const char *const *names;
	const ty_oid *types;
	sql_sysview_columns(v, &n, &names, &types);
	sql_rte *r = new_rte(SQL_RTE_SYSTEM, rv->relname, n);
	r->sysview = v;
	for (int i = 0; i < n; i++) {
		r->colnames[i] = (char *)names[i];
		r->coltypes[i] = types[i];
		r->coltypmods[i] = -1;
	}
	return r;
}

static int add_leaf(sql_query *q, sql_rte *r, sql_jnode **out)
{
	int idx = add_rte(q, r);
	sql_jnode *j = ty_alloc0(sizeof *j);
	j->rte = idx;
	*out = j;
	return idx;
}

/* Output columns of one function in FROM: its OUT columns, or one column
 * named after the function (or the alias for a single scalar function). */
static int func_columns(sql_actx *ax, sql_expr **fe, const char *fname, char **names, ty_oid *types, int32_t *typmods,
			int max)
{
	sql_expr *f = *fe;
	if ((f->kind == SQL_E_FUNC || f->kind == SQL_E_SRF) && f->f.fn->nout > 0) {
		const ty_func *fn = f->f.fn;
		for (int i = 0; i < fn->nout && i < max; i++) {
			names[i] = (char *)fn->outnames[i];
			types[i] = fn->outtypes[i];
			typmods[i] = -1;
		}
		return fn->nout;
	}
	if (f->type == TY_RECORD)
		sql_error_at(ax, f->location, UTIL_E_SYNTAX_ERROR,
			     "a column definition list is required for functions returning \"record\"");
	if (f->type == TY_UNKNOWN)
		*fe = f = sql_coerce(ax, f, TY_TEXT, -1, SQL_COERCE_IMPLICIT, -1);
	names[0] = ty_strdup(fname);
	types[0] = f->type;
	typmods[0] = f->typmod;
	return 1;
}

static sql_rte *function_rte(sql_actx *ax, sql_query *q, PgQuery__RangeFunction *rf)
{
	if (rf->n_coldeflist)
		sql_error_at(ax, -1, UTIL_E_FEATURE_NOT_SUPPORTED, "column definition lists are not supported");
	/* The calls: ROWS FROM (f(), g()) lists several; unnest(a, b) in FROM
	 * is ROWS FROM (unnest(a), unnest(b)) as in PostgreSQL. */
	int ncalls = 0;
	pnode **calls = ty_alloc(sizeof(pnode *) * (rf->n_functions + 64));
	for (size_t i = 0; i < rf->n_functions; i++) {
		PgQuery__List *fl = rf->functions[i]->list;
		if (fl->n_items > 1 && fl->items[1] && fl->items[1]->node_case == PG_QUERY__NODE__NODE_LIST &&
		    fl->items[1]->list->n_items)
			sql_error_at(ax, -1, UTIL_E_FEATURE_NOT_SUPPORTED, "column definition lists are not supported");
		pnode *call = fl->items[0];
		PgQuery__FuncCall *fc = call->node_case == PG_QUERY__NODE__NODE_FUNC_CALL ? call->func_call : NULL;
		if (!rf->is_rowsfrom && fc && fc->n_args > 1 && fc->n_funcname <= 2 &&
		    !strcmp(sql_last_name(fc->funcname, fc->n_funcname), "unnest") && !fc->func_variadic) {
			for (size_t k = 0; k < fc->n_args && ncalls < 64; k++) {
				PgQuery__FuncCall *one = ty_alloc(sizeof *one);
				*one = *fc;
				one->n_args = 1;
				one->args = &fc->args[k];
				pnode *n = ty_alloc0(sizeof *n);
				*n = *call;
				n->func_call = one;
				calls[ncalls++] = n;
			}
			continue;
		}
		calls[ncalls++] = call;
	}
	/* Functions in FROM are implicitly LATERAL: the FROM items before them
	 * are visible (and planned as parameters of a nested loop). */
	sql_expr **fes = ty_alloc(sizeof(sql_expr *) * (size_t)ncalls);
	const char **fnames = ty_alloc(sizeof(char *) * (size_t)ncalls);
	int maxcols = 0;
	for (int i = 0; i < ncalls; i++) {
		fes[i] = sql_transform_expr(ax, q, calls[i], SQL_EXPR_FROM_FUNCTION);
		fnames[i] = calls[i]->node_case == PG_QUERY__NODE__NODE_FUNC_CALL
				    ? sql_last_name(calls[i]->func_call->funcname, calls[i]->func_call->n_funcname)
				    : "?column?";
		maxcols += (fes[i]->kind == SQL_E_FUNC || fes[i]->kind == SQL_E_SRF) && fes[i]->f.fn->nout > 0 ? fes[i]->f.fn->nout
																	: 1;
	}
	sql_rte *r = new_rte(SQL_RTE_FUNCTION, fnames[0], maxcols + (rf->ordinality ? 1 : 0));
	int k = 0;
	for (int i = 0; i < ncalls; i++)
		k += func_columns(ax, &fes[i], fnames[i], r->colnames + k, r->coltypes + k, r->coltypmods + k, maxcols - k);
	if (rf->ordinality) {
		r->colnames[r->ncols - 1] = "ordinality";
		r->coltypes[r->ncols - 1] = TY_INT8;
		r->coltypmods[r->ncols - 1] = -1;
	}
	r->nfuncs = ncalls;
	r->funcs = fes;
	r->ordinality = rf->ordinality;
	r->lateral = rf->lateral;
	return r;
}

static sql_query *analyze_values(sql_actx *ax, PgQuery__SelectStmt *sel, sql_query *parent, sql_cte **ctes, int nctes);

/* JOIN ... USING / NATURAL: the join RTE's merged columns first. */
static sql_rte *join_rte(sql_actx *ax, sql_query *q, sql_jnode *j, PgQuery__JoinExpr *je)
{
	sql_rte *l = q->rtes[j->left->rte - 1], *r = q->rtes[j->right->rte - 1];
	int nl = l->ncols, nr = r->ncols;
	char **using = NULL;
	int nusing = 0;
	if (je->is_natural) {
		using = ty_alloc(sizeof(char *) * (size_t)(nl ? nl : 1));
		for (int i = 0; i < nl; i++) {
			if (!l->colnames[i])
				continue;
			for (int k = 0; k < nr; k++)
				if (r->colnames[k] && !strcmp(l->colnames[i], r->colnames[k])) {
					using[nusing++] = l->colnames[i];
					break;
				}
		}
	} else if (je->n_using_clause) {
		nusing = (int)je->n_using_clause;
		using = ty_alloc(sizeof(char *) * (size_t)nusing);
		for (int i = 0; i < nusing; i++)
			using[i] = ty_strdup(str_of(je->using_clause[i])); /* (the parse tree of a view is freed) */
	}
	int total = nl + nr - nusing;
	sql_rte *jr = new_rte(SQL_RTE_JOIN, "", total);
	jr->joinvars = ty_alloc(sizeof(sql_expr *) * (size_t)(total ? total : 1));
	jr->jointype = j->jointype;
	bool *lused = ty_alloc0(sizeof(bool) * (size_t)(nl ? nl : 1));
	bool *rused = ty_alloc0(sizeof(bool) * (size_t)(nr ? nr : 1));
	int k = 0;
	sql_expr *quals = NULL;
	for (int u = 0; u < nusing; u++) {
		int li = -1, ri = -1;
		for (int i = 0; i < nl; i++)
			if (l->colnames[i] && !strcmp(l->colnames[i], using[u])) {
				if (li >= 0)
					sql_error_at(ax, -1, UTIL_E_AMBIGUOUS_COLUMN, "common column name \"%s\" appears more than once in left table", using[u]);
				li = i;
			}
		for (int i = 0; i < nr; i++)
			if (r->colnames[i] && !strcmp(r->colnames[i], using[u])) {
				if (ri >= 0)
					sql_error_at(ax, -1, UTIL_E_AMBIGUOUS_COLUMN, "common column name \"%s\" appears more than once in right table", using[u]);
				ri = i;
			}
		if (li < 0)
			sql_error_at(ax, -1, UTIL_E_UNDEFINED_COLUMN, "column \"%s\" specified in USING clause does not exist in left table", using[u]);
		if (ri < 0)
			sql_error_at(ax, -1, UTIL_E_UNDEFINED_COLUMN, "column \"%s\" specified in USING clause does not exist in right table", using[u]);
		lused[li] = rused[ri] = true;
		/* Vars of the child RTEs (through their own joinvars for joins). */
		sql_expr *lv = sql_make_var(q, j->left->rte, li, 0, -1);
		sql_expr *rv = sql_make_var(q, j->right->rte, ri, 0, -1);
		sql_expr *eq = sql_make_op(ax, "=", lv, rv, -1);
		if (quals) {
			sql_expr *a = sql_expr_new(SQL_E_AND, TY_BOOL, -1);
			a->f.nargs = 2;
			a->f.args = ty_alloc(sizeof(sql_expr *) * 2);
			a->f.args[0] = quals;
			a->f.args[1] = eq;
			quals = a;
		} else {
			quals = eq;
		}
		sql_expr *two[2] = {lv, rv};
		ty_oid ct = sql_common_type(two, 2, "JOIN/USING", NULL);
		sql_expr *m;
		if (j->jointype == SQL_JOIN_RIGHT)
			m = sql_coerce(ax, sql_expr_copy(rv), ct, -1, SQL_COERCE_IMPLICIT, -1);
		else if (j->jointype == SQL_JOIN_FULL) {
			m = sql_expr_new(SQL_E_COALESCE, ct, -1);
			m->f.nargs = 2;
			m->f.args = ty_alloc(sizeof(sql_expr *) * 2);
			m->f.args[0] = sql_coerce(ax, sql_expr_copy(lv), ct, -1, SQL_COERCE_IMPLICIT, -1);
			m->f.args[1] = sql_coerce(ax, sql_expr_copy(rv), ct, -1, SQL_COERCE_IMPLICIT, -1);
		} else
			m = sql_coerce(ax, sql_expr_copy(lv), ct, -1, SQL_COERCE_IMPLICIT, -1);
		jr->colnames[k] = using[u];
		jr->coltypes[k] = m->type;
		jr->coltypmods[k] = m->typmod;
		jr->joinvars[k++] = m;
	}
	for (int pass = 0; pass < 2; pass++) {
		sql_rte *side = pass ? r : l;
		int idx = pass ? j->right->rte : j->left->rte;
		bool *used = pass ? rused : lused;
		for (int i = 0; i < side->ncols; i++) {
			if (used[i])
				continue;
			jr->colnames[k] = side->colnames[i];
			jr->coltypes[k] = side->coltypes[i];
			jr->coltypmods[k] = side->coltypmods[i];
			if (side->kind == SQL_RTE_JOIN) {
				jr->joinvars[k] = sql_expr_copy(side->joinvars[i]);
			} else {
				sql_expr *v = sql_expr_new(SQL_E_VAR, side->coltypes[i], -1);
				v->typmod = side->coltypmods[i];
				v->var.rte = idx;
				v->var.col = i;
				jr->joinvars[k] = v;
				if (side->used)
					side->used[i] = true;
			}
			k++;
		}
	}
	jr->ncols = k;
	j->quals = quals;
	return jr;
}

static sql_jointype jointype_of(PgQuery__JoinType t)
{
	switch (t) {
	case PG_QUERY__JOIN_TYPE__JOIN_LEFT: return SQL_JOIN_LEFT;
	case PG_QUERY__JOIN_TYPE__JOIN_RIGHT: return SQL_JOIN_RIGHT;
	case PG_QUERY__JOIN_TYPE__JOIN_FULL: return SQL_JOIN_FULL;
	default: return SQL_JOIN_INNER;
	}
}

/* Adds a FROM item to the range table; returns the namespace items it
 * contributes through q->ns (the caller decides visibility). */
static int transform_from_item(sql_actx *ax, sql_query *q, pnode *n, sql_jnode **out)
{
	switch (n->node_case) {
	case PG_QUERY__NODE__NODE_RANGE_VAR: {
		PgQuery__RangeVar *rv = n->range_var;
		sql_rte *r = NULL;
		int lv;
		sql_cte *cte = (!rv->schemaname || !*rv->schemaname) ? find_cte(q, rv->relname, &lv) : NULL;
		if (cte && cte->dml && !cte->ncols)
			sql_error_at(ax, rv->location, UTIL_E_FEATURE_NOT_SUPPORTED, "WITH query \"%s\" does not have a RETURNING clause",
				     cte->name);
		if (cte) {
			r = new_rte(SQL_RTE_CTE, rv->relname, cte->ncols);
			r->cte = cte;
			cte->refcount++;
			for (int i = 0; i < cte->ncols; i++) {
				r->colnames[i] = cte->colnames[i];
				r->coltypes[i] = cte->coltypes[i];
				r->coltypmods[i] = cte->coltypmods[i];
			}
		}
		if (!r)
			r = system_rte(ax, rv);
		if (!r)
			r = table_rte(ax, q, rv);
		r->location = rv->location;
		apply_alias(ax, r, rv->alias, rv->location);
		int idx = add_leaf(q, r, out);
		add_ns(q, idx, true, true);
		return idx;
	}
	case PG_QUERY__NODE__NODE_RANGE_SUBSELECT: {
		PgQuery__RangeSubselect *rs = n->range_subselect;
		if (!rs->alias && false)
			sql_error_at(ax, -1, UTIL_E_SYNTAX_ERROR, "subquery in FROM must have an alias");
		pnode *sub = rs->subquery;
		/* Outer FROM items are visible only for LATERAL (hidden, not
		 * removed: a missing column's hint still names them). */
		int nhide = q->nns;
		bool *saved = rs->lateral ? NULL : ns_hide(q, 0, nhide);
		/* The subquery is one level below q even when q's items are hidden
		 * (so that references to q's own parents count levels right). */
		sql_query *sq = sql_analyze_select(ax, sub->select_stmt, q, q->ctes, q->nctes);
		if (saved)
			ns_restore(q, 0, nhide, saved);
		sql_rte *r = new_rte(SQL_RTE_SUBQUERY, rs->alias ? rs->alias->aliasname : "unnamed_subquery", sq->nret);
		r->subquery = sq;
		r->lateral = rs->lateral;
		rte_from_query(r, sq);
		apply_alias(ax, r, rs->alias, -1);
		if (!rs->alias)
			r->has_alias = false;
		int idx = add_leaf(q, r, out);
		add_ns(q, idx, rs->alias != NULL, true);
		return idx;
	}
	case PG_QUERY__NODE__NODE_RANGE_FUNCTION: {
		PgQuery__RangeFunction *rf = n->range_function;
		sql_rte *r = function_rte(ax, q, rf);
		apply_alias(ax, r, rf->alias, -1);
		if (rf->alias && rf->alias->n_colnames == 0 && r->nfuncs == 1 && r->ncols == 1 + (rf->ordinality ? 1 : 0) &&
		    !((r->funcs[0]->kind == SQL_E_FUNC || r->funcs[0]->kind == SQL_E_SRF) && r->funcs[0]->f.fn->nout > 0))
			r->colnames[0] = ty_strdup(rf->alias->aliasname); /* scalar function: column named after the alias */
		int idx = add_leaf(q, r, out);
		add_ns(q, idx, true, true);
		return idx;
	}
	case PG_QUERY__NODE__NODE_JOIN_EXPR: {
		PgQuery__JoinExpr *je = n->join_expr;
		sql_jnode *j = ty_alloc0(sizeof *j);
		j->is_join = true;
		j->jointype = jointype_of(je->jointype);
		int ns_start = q->nns;
		transform_from_item(ax, q, je->larg, &j->left);
		int ns_mid = q->nns;
		/* The right side may reference the left one (LATERAL) only in
		 * INNER and LEFT joins; PostgreSQL still resolves the names and
		 * then refuses them (42P10). */
		bool lateral_ok = j->jointype == SQL_JOIN_INNER || j->jointype == SQL_JOIN_LEFT;
		for (int i = ns_start; i < ns_mid; i++)
			q->ns[i].lateral_ok = lateral_ok;
		transform_from_item(ax, q, je->rarg, &j->right);
		for (int i = ns_start; i < ns_mid; i++)
			q->ns[i].lateral_ok = true;
		sql_rte *jr = join_rte(ax, q, j, je);
		if (je->quals) {
			/* ON sees the join's two sides (by name and columns) and outer
			 * queries, not the FROM items beside the join. */
			bool *saved = ns_hide(q, 0, ns_start);
			sql_expr *on = sql_coerce_bool(ax, sql_transform_expr(ax, q, je->quals, SQL_EXPR_JOIN_ON), "JOIN/ON");
			ns_restore(q, 0, ns_start, saved);
			j->quals = on;
		} else if (!je->is_natural && je->n_using_clause == 0 && j->jointype != SQL_JOIN_INNER) {
			j->quals = NULL;
		}
		if (je->join_using_alias && je->join_using_alias->aliasname && je->n_using_clause > 0) {
			/* JOIN ... USING (a) AS x: x names the merged columns only (the
			 * join's first ones); hidden like the children below. */
			int nu = (int)je->n_using_clause;
			sql_rte *ur = new_rte(SQL_RTE_JOIN, je->join_using_alias->aliasname, nu);
			ur->joinvars = ty_alloc(sizeof(sql_expr *) * (size_t)nu);
			for (int i = 0; i < nu; i++) {
				ur->colnames[i] = jr->colnames[i];
				ur->coltypes[i] = jr->coltypes[i];
				ur->coltypmods[i] = jr->coltypmods[i];
				ur->joinvars[i] = sql_expr_copy(jr->joinvars[i]);
			}
			ur->jointype = j->jointype;
			ur->has_alias = true;
			add_ns(q, add_rte(q, ur), true, false);
		}
		/* Children: referenceable by name, columns only through the join. */
		for (int i = ns_start; i < q->nns; i++)
			q->ns[i].cols_visible = false;
		if (je->alias && je->alias->aliasname && *je->alias->aliasname) {
			/* An aliased join hides the children's names. */
			for (int i = ns_start; i < q->nns; i++)
				q->ns[i].rel_visible = false;
			apply_alias(ax, jr, je->alias, -1);
		}
		jr->jointype = j->jointype;
		int idx = add_rte(q, jr);
		j->rte = idx;
		add_ns(q, idx, je->alias && je->alias->aliasname && *je->alias->aliasname, true);
		*out = j;
		return idx;
	}
	default:
		sql_error_at(ax, -1, UTIL_E_FEATURE_NOT_SUPPORTED, "unsupported FROM item");
	}
}

static void check_duplicate_aliases(sql_actx *ax, sql_query *q)
{
	for (int i = 0; i < q->nns; i++) {
		if (!q->ns[i].rel_visible)
			continue;
		sql_rte *a = q->rtes[q->ns[i].rte - 1];
		for (int k = i + 1; k < q->nns; k++) {
			if (!q->ns[k].rel_visible)
				continue;
			sql_rte *b = q->rtes[q->ns[k].rte - 1];
			if (!strcmp(a->alias, b->alias) && *a->alias) {
				bool both_tables = a->kind == SQL_RTE_TABLE && b->kind == SQL_RTE_TABLE && !a->has_alias &&
						   !b->has_alias && a->rel != b->rel;
				if (both_tables)
					continue; /* s1.t and s2.t may coexist */
				sql_error_at(ax, -1, UTIL_E_DUPLICATE_ALIAS, "table name \"%s\" specified more than once",
					     a->alias);
			}
		}
	}
}

/* ---------------------------------------------------------------- target list */

/* PostgreSQL's FigureColnameInternal: the name and its strength (0 none,
 * 1 a weak guess such as a cast's type name or "case", 2 a real name). */
static int colname_strength(pnode *n, const char **out)
{
	*out = "?column?";
	if (!n)
		return 0;
	switch (n->node_case) {
	case PG_QUERY__NODE__NODE_COLUMN_REF: {
		PgQuery__ColumnRef *cr = n->column_ref;
		pnode *last = cr->fields[cr->n_fields - 1];
		if (last->node_case == PG_QUERY__NODE__NODE_STRING) {
			*out = last->string->sval;
			return 2;
		}
		return 0;
	}
	case PG_QUERY__NODE__NODE_FUNC_CALL:
		*out = sql_last_name(n->func_call->funcname, n->func_call->n_funcname);
		return 2;
	case PG_QUERY__NODE__NODE_TYPE_CAST: {
		int st = colname_strength(n->type_cast->arg, out);
		if (st <= 1) {
			PgQuery__TypeName *tn = n->type_cast->type_name;
			*out = sql_last_name(tn->names, tn->n_names);
			return 1;
		}
		return st;
	}
	case PG_QUERY__NODE__NODE_A_INDIRECTION: {
		PgQuery__AIndirection *ai = n->a_indirection;
		for (size_t i = ai->n_indirection; i-- > 0;)
			if (ai->indirection[i]->node_case == PG_QUERY__NODE__NODE_STRING) {
				*out = ai->indirection[i]->string->sval;
				return 2;
			}
		return colname_strength(ai->arg, out);
	}
	case PG_QUERY__NODE__NODE_COLLATE_CLAUSE:
		return colname_strength(n->collate_clause->arg, out);
	case PG_QUERY__NODE__NODE_CASE_EXPR: {
		int st = colname_strength(n->case_expr->defresult, out);
		if (st <= 1) {
			*out = "case";
			return 1;
		}
		return st;
	}
	case PG_QUERY__NODE__NODE_COALESCE_EXPR: *out = "coalesce"; return 2;
	case PG_QUERY__NODE__NODE_MIN_MAX_EXPR:
		*out = n->min_max_expr->op == PG_QUERY__MIN_MAX_OP__IS_GREATEST ? "greatest" : "least";
		return 2;
	case PG_QUERY__NODE__NODE_A_ARRAY_EXPR: *out = "array"; return 2;
	case PG_QUERY__NODE__NODE_ROW_EXPR: *out = "row"; return 2;
	case PG_QUERY__NODE__NODE_GROUPING_FUNC: *out = "grouping"; return 2;
	case PG_QUERY__NODE__NODE_A_EXPR:
		if (n->a_expr->kind == PG_QUERY__A__EXPR__KIND__AEXPR_NULLIF) {
			*out = "nullif";
			return 2;
		}
		return 0;
	case PG_QUERY__NODE__NODE_SUB_LINK: {
		PgQuery__SubLink *sl = n->sub_link;
		if (sl->sub_link_type == PG_QUERY__SUB_LINK_TYPE__EXISTS_SUBLINK) {
			*out = "exists";
			return 2;
		}
		if (sl->sub_link_type == PG_QUERY__SUB_LINK_TYPE__ARRAY_SUBLINK) {
			*out = "array";
			return 2;
		}
		if ((sl->sub_link_type == PG_QUERY__SUB_LINK_TYPE__EXPR_SUBLINK ||
		     sl->sub_link_type == PG_QUERY__SUB_LINK_TYPE__MULTIEXPR_SUBLINK) &&
		    sl->subselect->node_case == PG_QUERY__NODE__NODE_SELECT_STMT) {
			PgQuery__SelectStmt *ss = sl->subselect->select_stmt;
			while (ss->op != PG_QUERY__SET_OPERATION__SETOP_NONE && ss->larg)
				ss = ss->larg;
			if (ss->n_target_list >= 1) {
				PgQuery__ResTarget *rt = ss->target_list[0]->res_target;
				if (rt->name && *rt->name) {
					*out = rt->name;
					return 2;
				}
				return colname_strength(rt->val, out);
			}
		}
		return 0;
	}
	case PG_QUERY__NODE__NODE_SQLVALUE_FUNCTION:
		*out = NULL;
		switch (n->sqlvalue_function->op) {
		case PG_QUERY__SQLVALUE_FUNCTION_OP__SVFOP_CURRENT_DATE: *out = "current_date"; break;
		case PG_QUERY__SQLVALUE_FUNCTION_OP__SVFOP_CURRENT_TIME:
		case PG_QUERY__SQLVALUE_FUNCTION_OP__SVFOP_CURRENT_TIME_N: *out = "current_time"; break;
		case PG_QUERY__SQLVALUE_FUNCTION_OP__SVFOP_CURRENT_TIMESTAMP:
		case PG_QUERY__SQLVALUE_FUNCTION_OP__SVFOP_CURRENT_TIMESTAMP_N: *out = "current_timestamp"; break;
		case PG_QUERY__SQLVALUE_FUNCTION_OP__SVFOP_LOCALTIME:
		case PG_QUERY__SQLVALUE_FUNCTION_OP__SVFOP_LOCALTIME_N: *out = "localtime"; break;
		case PG_QUERY__SQLVALUE_FUNCTION_OP__SVFOP_LOCALTIMESTAMP:
		case PG_QUERY__SQLVALUE_FUNCTION_OP__SVFOP_LOCALTIMESTAMP_N: *out = "localtimestamp"; break;
		case PG_QUERY__SQLVALUE_FUNCTION_OP__SVFOP_CURRENT_ROLE: *out = "current_role"; break;
		case PG_QUERY__SQLVALUE_FUNCTION_OP__SVFOP_CURRENT_USER: *out = "current_user"; break;
		case PG_QUERY__SQLVALUE_FUNCTION_OP__SVFOP_USER: *out = "user"; break;
		case PG_QUERY__SQLVALUE_FUNCTION_OP__SVFOP_SESSION_USER: *out = "session_user"; break;
		case PG_QUERY__SQLVALUE_FUNCTION_OP__SVFOP_CURRENT_CATALOG: *out = "current_catalog"; break;
		case PG_QUERY__SQLVALUE_FUNCTION_OP__SVFOP_CURRENT_SCHEMA: *out = "current_schema"; break;
		default: *out = "?column?"; return 0;
		}
		return 2;
	default:
		return 0;
	}
}

static const char *figure_colname(pnode *n)
{
	const char *name;
	colname_strength(n, &name);
	return name;
}

static void add_target(sql_query *q, sql_expr *e, const char *name, bool junk)
{
	sql_target *nt = ty_alloc0(sizeof(sql_target) * (size_t)(q->ntargets + 1));
	if (q->ntargets)
		memcpy(nt, q->targets, sizeof(sql_target) * (size_t)q->ntargets);
	sql_target *t = &nt[q->ntargets++];
	t->expr = e;
	t->name = ty_strdup(name);
	t->junk = junk;
	if (e->kind == SQL_E_VAR && e->var.levelsup == 0) {
		sql_rte *r = q->rtes[e->var.rte - 1];
		if (r->kind == SQL_RTE_TABLE && r->rel) {
			t->src_table = r->rel->oid;
			t->src_attnum = r->rel->rel.cols[e->var.col].attnum;
		}
	}
	q->targets = nt;
	if (!junk)
		q->nret++;
}

/* Expands * or t.* into the visible columns. */
static void expand_star(sql_actx *ax, sql_query *q, PgQuery__ColumnRef *cr)
{
	if (cr->n_fields == 1) {
		bool any = false;
		for (int i = 0; i < q->nns; i++) {
			sql_nsitem *it = &q->ns[i];
			if (!it->cols_visible)
				continue;
			sql_rte *r = q->rtes[it->rte - 1];
			for (int c = 0; c < r->ncols; c++) {
				if (!r->colnames[c])
					continue;
				PgQuery__String s = PG_QUERY__STRING__INIT;
				(void)s;
				sql_expr *v;
				if (r->kind == SQL_RTE_JOIN)
					v = sql_expr_copy(r->joinvars[c]);
				else {
					v = sql_expr_new(SQL_E_VAR, r->coltypes[c], cr->location);
					v->typmod = r->coltypmods[c];
					v->var.rte = it->rte;
					v->var.col = c;
					if (r->used)
						r->used[c] = true;
				}
				add_target(q, v, r->colnames[c], false);
				any = true;
			}
		}
		if (!any && q->nns == 0)
			sql_error_at(ax, cr->location, UTIL_E_SYNTAX_ERROR, "SELECT * with no tables specified is not valid");
		return;
	}
	/* t.* : resolve t. */
	const char *rel = str_of(cr->fields[cr->n_fields - 2]);
	const char *schema = cr->n_fields == 3 ? str_of(cr->fields[0]) : NULL;
	for (int i = 0; i < q->nns; i++) {
		sql_nsitem *it = &q->ns[i];
		sql_rte *r = q->rtes[it->rte - 1];
		if (!it->rel_visible || strcmp(r->alias, rel) != 0)
			continue;
		if (schema && (r->kind != SQL_RTE_TABLE || strcmp(sql_schema_name(ax->cat, r->rel->rel.schema), schema)))
			continue;
		for (int c = 0; c < r->ncols; c++) {
			if (!r->colnames[c])
				continue;
			sql_expr *v;
			if (r->kind == SQL_RTE_JOIN)
				v = sql_expr_copy(r->joinvars[c]);
			else {
				v = sql_expr_new(SQL_E_VAR, r->coltypes[c], cr->location);
				v->typmod = r->coltypmods[c];
				v->var.rte = it->rte;
				v->var.col = c;
				if (r->used)
					r->used[c] = true;
			}
			add_target(q, v, r->colnames[c], false);
		}
		return;
	}
	sql_error_at(ax, cr->location, UTIL_E_UNDEFINED_TABLE, "missing FROM-clause entry for table \"%s\"", rel);
}

static bool is_star(pnode *n)
{
	if (n->node_case != PG_QUERY__NODE__NODE_COLUMN_REF)
		return false;
	PgQuery__ColumnRef *cr = n->column_ref;
	return cr->fields[cr->n_fields - 1]->node_case == PG_QUERY__NODE__NODE_A_STAR;
}

void sql_transform_targets(sql_actx *ax, sql_query *q, PgQuery__Node **list, size_t n, sql_expr_ctx ctx)
{
	for (size_t i = 0; i < n; i++) {
		PgQuery__ResTarget *rt = list[i]->res_target;
		if (is_star(rt->val)) {
			expand_star(ax, q, rt->val->column_ref);
			continue;
		}
		sql_expr *e = sql_transform_expr(ax, q, rt->val, ctx);
		const char *name = rt->name && *rt->name ? rt->name : figure_colname(rt->val);
		add_target(q, e, name, false);
	}
}

/* ---------------------------------------------------------------- GROUP BY / ORDER BY / DISTINCT */

/* PostgreSQL's findTargetlistEntrySQL92: a bare name matching an output
 * column name, or an integer ordinal, refers to a target. */
static int find_target_sql92(sql_actx *ax, sql_query *q, pnode *n, bool is_order)
{
	if (n->node_case == PG_QUERY__NODE__NODE_COLUMN_REF && n->column_ref->n_fields == 1 &&
	    n->column_ref->fields[0]->node_case == PG_QUERY__NODE__NODE_STRING) {
		const char *name = n->column_ref->fields[0]->string->sval;
		if (is_order) {
			int found = -1;
			for (int i = 0; i < q->ntargets; i++)
				if (!q->targets[i].junk && !strcmp(q->targets[i].name, name)) {
					if (found >= 0 && !sql_expr_equal(q->targets[found].expr, q->targets[i].expr))
						sql_error_at(ax, n->column_ref->location, UTIL_E_AMBIGUOUS_COLUMN,
							     "ORDER BY \"%s\" is ambiguous", name);
					if (found < 0)
						found = i;
				}
			if (found >= 0)
				return found;
		} else {
			/* GROUP BY prefers an input column over an output name. */
			bool is_input = false;
			for (int i = 0; i < q->nns && !is_input; i++) {
				sql_nsitem *it = &q->ns[i];
				if (!it->cols_visible)
					continue;
				sql_rte *r = q->rtes[it->rte - 1];
				for (int c = 0; c < r->ncols; c++)
					if (r->colnames[c] && !strcmp(r->colnames[c], name))
						is_input = true;
			}
			if (!is_input)
				for (int i = 0; i < q->ntargets; i++)
					if (!q->targets[i].junk && !strcmp(q->targets[i].name, name))
						return i;
		}
	}
	if (n->node_case == PG_QUERY__NODE__NODE_A_CONST && n->a_const->val_case == PG_QUERY__A__CONST__VAL_IVAL) {
		int pos = n->a_const->ival->ival;
		if (pos < 1 || pos > q->nret)
			sql_error_at(ax, n->a_const->location, UTIL_E_INVALID_COLUMN_REFERENCE, "%s position %d is not in select list",
				     is_order ? "ORDER BY" : "GROUP BY", pos);
		int k = 0;
		for (int i = 0; i < q->ntargets; i++)
			if (!q->targets[i].junk && ++k == pos)
				return i;
	}
	return -1;
}

/* Finds or adds (as junk) the target for an expression. */
static int target_for(sql_actx *ax, sql_query *q, pnode *n, sql_expr_ctx ctx, bool is_order, bool allow_add)
{
	int t = find_target_sql92(ax, q, n, is_order);
	if (t >= 0)
		return t;
	sql_expr *e = sql_transform_expr(ax, q, n, ctx);
	for (int i = 0; i < q->ntargets; i++)
		if (sql_expr_equal(q->targets[i].expr, e))
			return i;
	if (!allow_add)
		return -1 - 0;
	add_target(q, e, figure_colname(n), true);
	return q->ntargets - 1;
}

static int next_sortgroupref(sql_query *q)
{
	int m = 0;
	for (int i = 0; i < q->ntargets; i++)
		if (q->targets[i].sortgroupref > m)
			m = q->targets[i].sortgroupref;
	return m + 1;
}

static void add_group_expr(sql_query *q, sql_expr *e)
{
	for (int i = 0; i < q->ngroup; i++)
		if (sql_expr_equal(q->group[i], e))
			return;
	sql_expr **ng = ty_alloc(sizeof(sql_expr *) * (size_t)(q->ngroup + 1));
	if (q->ngroup)
		memcpy(ng, q->group, sizeof(sql_expr *) * (size_t)q->ngroup);
	ng[q->ngroup++] = e;
	q->group = ng;
}

static int group_index(sql_query *q, sql_expr *e)
{
	for (int i = 0; i < q->ngroup; i++)
		if (sql_expr_equal(q->group[i], e))
			return i;
	return -1;
}

/* One GROUP BY item (an expression) → group index. */
static int group_item(sql_actx *ax, sql_query *q, pnode *n)
{
	int t = target_for(ax, q, n, SQL_EXPR_GROUP, false, true);
	sql_expr *e = q->targets[t].expr;
	if (e->type == TY_UNKNOWN) {
		q->targets[t].expr = e = sql_coerce(ax, e, TY_TEXT, -1, SQL_COERCE_IMPLICIT, e->location);
	}
	if (!q->targets[t].sortgroupref)
		q->targets[t].sortgroupref = next_sortgroupref(q);
	add_group_expr(q, e);
	return group_index(q, e);
}

typedef struct gsets {
	int **sets;
	int *lens;
	int n;
} gsets;

static void gs_add(gsets *g, const int *items, int len)
{
	int **ns = ty_alloc(sizeof(int *) * (size_t)(g->n + 1));
	int *nl = ty_alloc(sizeof(int) * (size_t)(g->n + 1));
	if (g->n) {
		memcpy(ns, g->sets, sizeof(int *) * (size_t)g->n);
		memcpy(nl, g->lens, sizeof(int) * (size_t)g->n);
	}
	ns[g->n] = ty_alloc(sizeof(int) * (size_t)(len ? len : 1));
	if (len) /* the empty set () may come with items == NULL */
		memcpy(ns[g->n], items, sizeof(int) * (size_t)len);
	nl[g->n] = len;
	g->sets = ns;
	g->lens = nl;
	g->n++;
}

/* Cross product of grouping-set lists (GROUP BY a, ROLLUP(b, c)). */
static gsets gs_cross(gsets a, gsets b)
{
	gsets r = {0};
	for (int i = 0; i < a.n; i++)
		for (int k = 0; k < b.n; k++) {
			int *items = ty_alloc(sizeof(int) * (size_t)(a.lens[i] + b.lens[k] + 1));
			int len = 0;
			for (int x = 0; x < a.lens[i]; x++)
				items[len++] = a.sets[i][x];
			for (int x = 0; x < b.lens[k]; x++) {
				bool dup = false;
				for (int y = 0; y < len; y++)
					dup |= items[y] == b.sets[k][x];
				if (!dup)
					items[len++] = b.sets[k][x];
			}
			gs_add(&r, items, len);
		}
	return r;
}

static gsets group_element(sql_actx *ax, sql_query *q, pnode *n);

/* The items of a ROLLUP/CUBE element: each a group of expressions. */
static void element_items(sql_actx *ax, sql_query *q, pnode *n, int *items, int *len)
{
	*len = 0;
	if (n->node_case == PG_QUERY__NODE__NODE_ROW_EXPR) {
		for (size_t i = 0; i < n->row_expr->n_args; i++)
			items[(*len)++] = group_item(ax, q, n->row_expr->args[i]);
	} else {
		items[(*len)++] = group_item(ax, q, n);
	}
}

/* (a, b) written without ROW in GROUP BY is a list of grouping columns
 * (PostgreSQL's flatten_grouping_sets). */
static bool implicit_row(pnode *n)
{
	return n->node_case == PG_QUERY__NODE__NODE_ROW_EXPR &&
	       n->row_expr->row_format == PG_QUERY__COERCION_FORM__COERCE_IMPLICIT_CAST;
}

static gsets group_element(sql_actx *ax, sql_query *q, pnode *n)
{
	gsets g = {0};
	if (implicit_row(n)) {
		int items[64], len = 0;
		for (size_t i = 0; i < n->row_expr->n_args && len < 64; i++)
			items[len++] = group_item(ax, q, n->row_expr->args[i]);
		gs_add(&g, items, len);
		return g;
	}
	if (n->node_case != PG_QUERY__NODE__NODE_GROUPING_SET) {
		int it = group_item(ax, q, n);
		gs_add(&g, &it, 1);
		return g;
	}
	PgQuery__GroupingSet *gs = n->grouping_set;
	switch (gs->kind) {
	case PG_QUERY__GROUPING_SET_KIND__GROUPING_SET_EMPTY:
		gs_add(&g, NULL, 0);
		return g;
	case PG_QUERY__GROUPING_SET_KIND__GROUPING_SET_SIMPLE: {
		int items[64], len = 0;
		for (size_t i = 0; i < gs->n_content && len < 64; i++)
			items[len++] = group_item(ax, q, gs->content[i]);
		gs_add(&g, items, len);
		return g;
	}
	case PG_QUERY__GROUPING_SET_KIND__GROUPING_SET_ROLLUP: {
		int all[64], len = 0;
		int nel = (int)gs->n_content;
		int starts[65];
		for (int i = 0; i < nel; i++) {
			int tmp[16], tl;
			element_items(ax, q, gs->content[i], tmp, &tl);
			starts[i] = len;
			for (int k = 0; k < tl && len < 64; k++)
				all[len++] = tmp[k];
		}
		starts[nel] = len;
		for (int i = nel; i >= 0; i--)
			gs_add(&g, all, starts[i]);
		return g;
	}
	case PG_QUERY__GROUPING_SET_KIND__GROUPING_SET_CUBE: {
		int nel = (int)gs->n_content;
		if (nel > 12)
			sql_error_at(ax, gs->location, UTIL_E_PROGRAM_LIMIT_EXCEEDED, "CUBE is limited to 12 elements");
		int el[12][16], ell[12];
		for (int i = 0; i < nel; i++)
			element_items(ax, q, gs->content[i], el[i], &ell[i]);
		/* PostgreSQL orders CUBE sets by decreasing size. */
		for (int size = nel; size >= 0; size--)
			for (int mask = (1 << nel) - 1; mask >= 0; mask--) {
				if (__builtin_popcount((unsigned)mask) != size)
					continue;
				int items[192], len = 0;
				for (int i = 0; i < nel; i++)
					if (mask & (1 << (nel - 1 - i)))
						for (int k = 0; k < ell[i]; k++)
							items[len++] = el[i][k];
				gs_add(&g, items, len);
			}
		return g;
	}
	case PG_QUERY__GROUPING_SET_KIND__GROUPING_SET_SETS: {
		for (size_t i = 0; i < gs->n_content; i++) {
			gsets sub = group_element(ax, q, gs->content[i]);
			for (int k = 0; k < sub.n; k++)
				gs_add(&g, sub.sets[k], sub.lens[k]);
		}
		return g;
	}
	default:
		sql_error_at(ax, gs->location, UTIL_E_FEATURE_NOT_SUPPORTED, "unsupported grouping set");
	}
}

static void transform_group(sql_actx *ax, sql_query *q, PgQuery__SelectStmt *sel)
{
	bool has_sets = false;
	for (size_t i = 0; i < sel->n_group_clause; i++)
		if (sel->group_clause[i]->node_case == PG_QUERY__NODE__NODE_GROUPING_SET)
			has_sets = true;
	if (!has_sets) {
		for (size_t i = 0; i < sel->n_group_clause; i++) {
			pnode *n = sel->group_clause[i];
			if (implicit_row(n))
				for (size_t k = 0; k < n->row_expr->n_args; k++)
					group_item(ax, q, n->row_expr->args[k]);
			else
				group_item(ax, q, n);
		}
		return;
	}
	gsets acc = {0};
	gs_add(&acc, NULL, 0);
	for (size_t i = 0; i < sel->n_group_clause; i++)
		acc = gs_cross(acc, group_element(ax, q, sel->group_clause[i]));
	if (sel->group_distinct) {
		/* GROUP BY DISTINCT: drop sets equal (as sets) to an earlier one. */
		gsets d = {0};
		for (int i = 0; i < acc.n; i++) {
			bool dup = false;
			for (int k = 0; k < d.n && !dup; k++) {
				bool same = true;
				for (int x = 0; x < acc.lens[i] && same; x++) {
					bool in = false;
					for (int y = 0; y < d.lens[k]; y++)
						in |= d.sets[k][y] == acc.sets[i][x];
					same = in;
				}
				for (int y = 0; y < d.lens[k] && same; y++) {
					bool in = false;
					for (int x = 0; x < acc.lens[i]; x++)
						in |= d.sets[k][y] == acc.sets[i][x];
					same = in;
				}
				dup = same;
			}
			if (!dup)
				gs_add(&d, acc.sets[i], acc.lens[i]);
		}
		acc = d;
	}
	q->ngsets = acc.n;
	q->gsets = acc.sets;
	q->gset_len = acc.lens;
}

static void transform_sort(sql_actx *ax, sql_query *q, PgQuery__Node **items, size_t n, bool distinct_ok)
{
	q->sort = ty_alloc0(sizeof(sql_sortkey) * (n ? n : 1));
	q->nsort = 0;
	for (size_t i = 0; i < n; i++) {
		PgQuery__SortBy *sb = items[i]->sort_by;
		int t = target_for(ax, q, sb->node, SQL_EXPR_ORDER, true, !distinct_ok);
		if (t < 0)
			sql_error_at(ax, sql_raw_location(sb->node), UTIL_E_INVALID_COLUMN_REFERENCE,
				     "for SELECT DISTINCT, ORDER BY expressions must appear in select list");
		sql_target *tg = &q->targets[t];
		if (tg->expr->type == TY_UNKNOWN)
			tg->expr = sql_coerce(ax, tg->expr, TY_TEXT, -1, SQL_COERCE_IMPLICIT, tg->expr->location);
		if (!tg->sortgroupref)
			tg->sortgroupref = next_sortgroupref(q);
		sql_sortkey *k = &q->sort[q->nsort++];
		k->expr = tg->expr;
		k->target = t;
		k->desc = sb->sortby_dir == PG_QUERY__SORT_BY_DIR__SORTBY_DESC;
		if (sb->sortby_dir == PG_QUERY__SORT_BY_DIR__SORTBY_USING) {
			const char *op = sql_last_name(sb->use_op, sb->n_use_op);
			if (strcmp(op, "<") && strcmp(op, ">"))
				sql_error_at(ax, sb->location, UTIL_E_WRONG_OBJECT_TYPE, "operator %s is not a valid ordering operator", op);
			k->desc = op[0] == '>';
		}
		k->nulls_first = sb->sortby_nulls == PG_QUERY__SORT_BY_NULLS__SORTBY_NULLS_FIRST ||
				 (sb->sortby_nulls != PG_QUERY__SORT_BY_NULLS__SORTBY_NULLS_LAST && k->desc);
		k->type = ty_type_get(tg->expr->type);
		if (!k->type || !k->type->cmp)
			sql_error_at(ax, sb->location, UTIL_E_UNDEFINED_FUNCTION, "could not identify an ordering operator for type %s",
				     k->type ? k->type->name : "?");
	}
}

/* ---------------------------------------------------------------- windows */

static bool var_walker(sql_expr *e, void *arg)
{
	(void)arg;
	return e->kind == SQL_E_VAR;
}

/* A frame offset (PostgreSQL's transformFrameOffset): ROWS and GROUPS take
 * a bigint; RANGE picks the in_range support function of the ORDER BY
 * column's type that the offset coerces to. */
static sql_expr *frame_offset(sql_actx *ax, sql_query *q, sql_window_clause *w, pnode *n, const ty_func **inr)
{
	int fo = w->frame_options;
	const char *what = (fo & 0x4) ? "ROWS" : (fo & 0x8) ? "GROUPS" : "RANGE";
	sql_expr *e = sql_transform_expr(ax, q, n, SQL_EXPR_WINDOW);
	if (sql_expr_walk(e, var_walker, NULL))
		sql_error_at(ax, e->location, UTIL_E_INVALID_COLUMN_REFERENCE, "argument of %s must not contain variables", what);
	if (!(fo & 0x2)) {
		if (e->type != TY_INT8 && e->type != TY_UNKNOWN && !sql_can_coerce(e->type, TY_INT8, SQL_COERCE_IMPLICIT)) {
			util_buf b = UTIL_BUF_INIT;
			ty_format_type(e->type, -1, &b);
			util_err *er = ty_errstart(UTIL_E_DATATYPE_MISMATCH, "argument of %s must be type bigint, not type %s", what,
						   b.data);
			util_buf_free(&b);
			er->position = sql_errposition(ax->ps->text, e->location);
			ty_errthrow();
		}
		return sql_coerce(ax, e, TY_INT8, -1, SQL_COERCE_IMPLICIT, e->location);
	}
	if (w->norder != 1)
		sql_error_at(ax, w->location, UTIL_E_WINDOWING_ERROR,
			     "RANGE with offset PRECEDING/FOLLOWING requires exactly one ORDER BY column");
	ty_oid col = w->order[0].expr->type;
	ty_oid pref = e->type != TY_UNKNOWN ? e->type : col;
	const ty_func *f, *chosen = NULL;
	int cur = 0, nfuncs = 0, nmatch = 0;
	while ((f = ty_func_lookup("in_range", &cur))) {
		if (f->nargs != 5 || f->args[0] != col || f->args[1] != col)
			continue;
		nfuncs++;
		if (!sql_can_coerce(e->type, f->args[2], SQL_COERCE_IMPLICIT))
			continue;
		nmatch++;
		if (!chosen || (f->args[2] == pref && chosen->args[2] != pref))
			chosen = f;
	}
	util_buf ct = UTIL_BUF_INIT, ot = UTIL_BUF_INIT;
	ty_format_type(col, -1, &ct);
	ty_format_type(e->type, -1, &ot);
	if (!nfuncs)
		sql_error_at(ax, e->location, UTIL_E_FEATURE_NOT_SUPPORTED,
			     "RANGE with offset PRECEDING/FOLLOWING is not supported for column type %s", ct.data);
	if (!nmatch) {
		util_err *er = ty_errstart(UTIL_E_FEATURE_NOT_SUPPORTED,
					   "RANGE with offset PRECEDING/FOLLOWING is not supported for column type %s and offset type %s",
					   ct.data, ot.data);
		util_err_hint(er, "Cast the offset value to an appropriate type.");
		er->position = sql_errposition(ax->ps->text, e->location);
		ty_errthrow();
	}
	if (nmatch > 1 && chosen->args[2] != pref) {
		util_err *er = ty_errstart(UTIL_E_FEATURE_NOT_SUPPORTED,
					   "RANGE with offset PRECEDING/FOLLOWING has multiple interpretations for column type %s and offset type %s",
					   ct.data, ot.data);
		util_err_hint(er, "Cast the offset value to the exact intended type.");
		er->position = sql_errposition(ax->ps->text, e->location);
		ty_errthrow();
	}
	util_buf_free(&ct);
	util_buf_free(&ot);
	*inr = chosen;
	return sql_coerce(ax, e, chosen->args[2], -1, SQL_COERCE_IMPLICIT, e->location);
}

int sql_window_clause_for(sql_actx *ax, sql_query *q, PgQuery__WindowDef *wd)
{
	/* OVER w: a named window of the query. */
	if (wd->name && *wd->name && wd->n_partition_clause == 0 && wd->n_order_clause == 0 && !(wd->refname && *wd->refname)) {
		for (int i = 0; i < q->nwinclauses; i++)
			if (q->winclauses[i].name && !strcmp(q->winclauses[i].name, wd->name))
				return i;
		sql_error_at(ax, wd->location, UTIL_E_UNDEFINED_OBJECT, "window \"%s\" does not exist", wd->name);
	}
	sql_window_clause w;
	memset(&w, 0, sizeof w);
	const sql_window_clause *base = NULL;
	if (wd->refname && *wd->refname) {
		for (int i = 0; i < q->nwinclauses; i++)
			if (q->winclauses[i].name && !strcmp(q->winclauses[i].name, wd->refname))
				base = &q->winclauses[i];
		if (!base)
			sql_error_at(ax, wd->location, UTIL_E_UNDEFINED_OBJECT, "window \"%s\" does not exist", wd->refname);
	}
	sql_expr_ctx saved = q->cur_ctx;
	if (base) {
		w.npart = base->npart;
		w.part = base->part;
		if (wd->n_partition_clause)
			sql_error_at(ax, wd->location, UTIL_E_WINDOWING_ERROR, "cannot override PARTITION BY clause of window \"%s\"",
				     wd->refname);
	} else {
		w.npart = (int)wd->n_partition_clause;
		w.part = ty_alloc(sizeof(sql_expr *) * (size_t)(w.npart ? w.npart : 1));
		for (int i = 0; i < w.npart; i++) {
			w.part[i] = sql_transform_expr(ax, q, wd->partition_clause[i], SQL_EXPR_WINDOW);
			if (w.part[i]->type == TY_UNKNOWN)
				w.part[i] = sql_coerce(ax, w.part[i], TY_TEXT, -1, SQL_COERCE_IMPLICIT, -1);
		}
	}
	q->cur_ctx = SQL_EXPR_WINDOW;
	if (wd->n_order_clause)
		sql_add_sortby(ax, q, wd->order_clause, wd->n_order_clause, &w.order, &w.norder);
	else if (base) {
		w.order = base->order;
		w.norder = base->norder;
	}
	q->cur_ctx = saved;
	w.frame_options = wd->frame_options;
	if (base && !(wd->frame_options & 0x1) && (base->frame_options & 0x1))
		w.frame_options = base->frame_options;
	w.location = wd->location;
	if (wd->start_offset)
		w.start_offset = frame_offset(ax, q, &w, wd->start_offset, &w.start_in_range);
	if (wd->end_offset)
		w.end_offset = frame_offset(ax, q, &w, wd->end_offset, &w.end_in_range);
	w.name = wd->name && *wd->name ? ty_strdup(wd->name) : NULL;
	/* Reuse an identical unnamed clause. */
	for (int i = 0; i < q->nwinclauses; i++) {
		sql_window_clause *o = &q->winclauses[i];
		if (o->npart != w.npart || o->norder != w.norder || o->frame_options != w.frame_options || w.start_offset ||
		    w.end_offset || o->start_offset || o->end_offset)
			continue;
		bool same = true;
		for (int k = 0; k < w.npart && same; k++)
			same = sql_expr_equal(o->part[k], w.part[k]);
		for (int k = 0; k < w.norder && same; k++)
			same = sql_expr_equal(o->order[k].expr, w.order[k].expr) && o->order[k].desc == w.order[k].desc &&
			       o->order[k].nulls_first == w.order[k].nulls_first;
		if (same && !w.name)
			return i;
	}
	sql_window_clause *nw = ty_alloc(sizeof(sql_window_clause) * (size_t)(q->nwinclauses + 1));
	if (q->nwinclauses)
		memcpy(nw, q->winclauses, sizeof(sql_window_clause) * (size_t)q->nwinclauses);
	nw[q->nwinclauses++] = w;
	q->winclauses = nw;
	return q->nwinclauses - 1;
}

/* ---------------------------------------------------------------- grouping checks */

/* ---------------------------------------------------------------- expression roots */

static void exprs_list(sql_expr **l, int n, void (*fn)(sql_expr **e, void *arg), void *arg)
{
	for (int i = 0; l && i < n; i++)
		if (l[i])
			fn(&l[i], arg);
}

static void exprs_jnode(sql_jnode *j, void (*fn)(sql_expr **e, void *arg), void *arg)
{
	if (!j)
		return;
	if (j->quals)
		fn(&j->quals, arg);
	if (j->is_join) {
		exprs_jnode(j->left, fn, arg);
		exprs_jnode(j->right, fn, arg);
	}
}

void sql_query_exprs(sql_query *q, void (*fn)(sql_expr **e, void *arg), void *arg)
{
	for (int i = 0; i < q->ntargets; i++)
		fn(&q->targets[i].expr, arg);
	if (q->where)
		fn(&q->where, arg);
	if (q->having)
		fn(&q->having, arg);
	exprs_list(q->group, q->ngroup, fn, arg);
	for (int i = 0; i < q->nsort; i++)
		fn(&q->sort[i].expr, arg);
	exprs_list(q->distinct_on, q->ndistinct_on, fn, arg);
	if (q->limit)
		fn(&q->limit, arg);
	if (q->offset)
		fn(&q->offset, arg);
	for (int i = 0; i < q->naggs; i++) {
		sql_aggref *a = &q->aggs[i];
		exprs_list(a->args, a->nargs, fn, arg);
		if (a->filter)
			fn(&a->filter, arg);
		exprs_list(a->direct, a->ndirect, fn, arg);
		for (int k = 0; k < a->norder; k++)
			fn(&a->order[k].expr, arg);
	}
	for (int i = 0; i < q->nwins; i++) {
		exprs_list(q->wins[i].args, q->wins[i].nargs, fn, arg);
		if (q->wins[i].filter)
			fn(&q->wins[i].filter, arg);
	}
	for (int i = 0; i < q->nwinclauses; i++) {
		sql_window_clause *w = &q->winclauses[i];
		exprs_list(w->part, w->npart, fn, arg);
		for (int k = 0; k < w->norder; k++)
			fn(&w->order[k].expr, arg);
		if (w->start_offset)
			fn(&w->start_offset, arg);
		if (w->end_offset)
			fn(&w->end_offset, arg);
	}
	for (int i = 0; i < q->nfrom; i++)
		exprs_jnode(q->from[i], fn, arg);
	for (int i = 0; i < q->nrtes; i++) {
		sql_rte *r = q->rtes[i];
		if (r->kind == SQL_RTE_FUNCTION)
			exprs_list(r->funcs, r->nfuncs, fn, arg);
		else if (r->kind == SQL_RTE_VALUES)
			for (int k = 0; k < r->nrows; k++)
				exprs_list(r->rows[k], r->ncols, fn, arg);
		else if (r->kind == SQL_RTE_JOIN)
			exprs_list(r->joinvars, r->ncols, fn, arg);
	}
	exprs_list(q->set_exprs, q->nset, fn, arg);
	for (int i = 0; i < q->nreturning; i++)
		fn(&q->returning[i].expr, arg);
	if (q->onconflict) {
		exprs_list(q->onconflict->set_exprs, q->onconflict->nset, fn, arg);
		if (q->onconflict->where)
			fn(&q->onconflict->where, arg);
	}
}

/* ---------------------------------------------------------------- grouping checks */

typedef struct grp_check {
	sql_actx *ax;
	sql_query *q;
	bool *pk_grouped; /* per RTE: all primary-key columns grouped */
	int depth;        /* sublink nesting below q while checking outer references */
} grp_check;

static sql_visit group_visitor(sql_expr *e, void *arg);

static void check_grouped(grp_check *gc, sql_expr *e)
{
	if (e)
		sql_expr_visit(e, group_visitor, gc);
}

static void check_grouped_root(sql_expr **e, void *arg) { check_grouped(arg, *e); }

/* Outer references of a subquery to the grouped query must be grouped too. */
static void check_grouped_subquery(grp_check *gc, sql_query *sq)
{
	gc->depth++;
	sql_query_exprs(sq, check_grouped_root, gc);
	for (int i = 0; i < sq->nrtes; i++)
		if (sq->rtes[i]->kind == SQL_RTE_SUBQUERY && sq->rtes[i]->subquery)
			check_grouped_subquery(gc, sq->rtes[i]->subquery);
	gc->depth--;
}

static bool grouped_var(grp_check *gc, const sql_expr *v)
{
	sql_query *q = gc->q;
	for (int i = 0; i < q->ngroup; i++) {
		const sql_expr *g = q->group[i];
		if (g->kind == SQL_E_VAR && g->var.levelsup == 0 && g->var.rte == v->var.rte && g->var.col == v->var.col)
			return true;
	}
	return gc->pk_grouped && gc->pk_grouped[v->var.rte - 1];
}

static sql_visit group_visitor(sql_expr *e, void *arg)
{
	grp_check *gc = arg;
	sql_query *q = gc->q;
	if (gc->depth == 0) {
		for (int i = 0; i < q->ngroup; i++)
			if (sql_expr_equal(q->group[i], e))
				return SQL_VISIT_SKIP; /* grouped: its inputs need not be */
		if (e->kind == SQL_E_AGG || e->kind == SQL_E_WINDOW || e->kind == SQL_E_GROUPING)
			return SQL_VISIT_SKIP;
	}
	if (e->kind == SQL_E_VAR && e->var.levelsup == gc->depth) {
		if (grouped_var(gc, e))
			return SQL_VISIT_CONTINUE;
		sql_rte *r = q->rtes[e->var.rte - 1];
		const char *col = r->colnames[e->var.col] ? r->colnames[e->var.col] : "?";
		util_err *er = gc->depth == 0
				       ? ty_errstart(UTIL_E_GROUPING_ERROR,
						     "column \"%s.%s\" must appear in the GROUP BY clause or be used in an aggregate function",
						     r->alias, col)
				       : ty_errstart(UTIL_E_GROUPING_ERROR, "subquery uses ungrouped column \"%s.%s\" from outer query",
						     r->alias, col);
		er->position = sql_errposition(gc->ax->ps->text, e->location);
		ty_errthrow();
	}
	if (e->kind == SQL_E_SUBLINK && e->sub.query)
		check_grouped_subquery(gc, e->sub.query);
	return SQL_VISIT_CONTINUE;
}

/* Functional dependency: grouping by a table's primary key allows its
 * other columns (PostgreSQL 9.1+). */
static bool *pk_grouped_rtes(sql_query *q)
{
	bool *res = ty_alloc0(sizeof(bool) * (size_t)(q->nrtes ? q->nrtes : 1));
	for (int r = 0; r < q->nrtes; r++) {
		sql_rte *rt = q->rtes[r];
		if (rt->kind != SQL_RTE_TABLE || !rt->rel || rt->rel->rel.npk == 0)
			continue;
		bool all = true;
		for (int k = 0; k < rt->rel->rel.npk && all; k++) {
			int col = rt->rel->rel.pk[k] - 1;
			bool found = false;
			for (int g = 0; g < q->ngroup && !found; g++) {
				sql_expr *e = q->group[g];
				found = e->kind == SQL_E_VAR && e->var.levelsup == 0 && e->var.rte == r + 1 && e->var.col == col;
			}
			all = found;
		}
		res[r] = all;
	}
	return res;
}

static bool resolve_grouping_walker(sql_expr *e, void *arg)
{
	sql_query *q = arg;
	if (e->kind != SQL_E_GROUPING)
		return false;
	for (int i = 0; i < e->grouping.nargs; i++) {
		int gi = group_index(q, e->grouping.args[i]);
		if (gi < 0) {
			util_err *er = ty_errstart(UTIL_E_GROUPING_ERROR,
						   "arguments to GROUPING must be grouping expressions of the associated query level");
			er->position = sql_errposition(q->ps->text, e->grouping.args[i]->location);
			ty_errthrow();
		}
		e->grouping.refs[i] = gi;
	}
	return false;
}

/* ---------------------------------------------------------------- SELECT */

static sql_query *analyze_setop(sql_actx *ax, PgQuery__SelectStmt *sel, sql_query *parent, sql_cte **ctes, int nctes);

void sql_transform_with(sql_actx *ax, sql_query *q, PgQuery__WithClause *wc);

static void transform_locking(sql_actx *ax, sql_query *q, PgQuery__SelectStmt *sel)
{
	for (size_t i = 0; i < sel->n_locking_clause; i++) {
		PgQuery__LockingClause *lc = sel->locking_clause[i]->locking_clause;
		if (q->has_aggs || q->ngroup)
			sql_error_at(ax, -1, UTIL_E_FEATURE_NOT_SUPPORTED, "FOR UPDATE is not allowed with aggregate functions");
		if (q->distinct)
			sql_error_at(ax, -1, UTIL_E_FEATURE_NOT_SUPPORTED, "FOR UPDATE is not allowed with DISTINCT clause");
		for (int r = 0; r < q->nrtes; r++) {
			sql_rte *rt = q->rtes[r];
			if (rt->kind != SQL_RTE_TABLE)
				continue;
			bool applies = lc->n_locked_rels == 0;
			for (size_t k = 0; k < lc->n_locked_rels && !applies; k++) {
				PgQuery__RangeVar *rv = lc->locked_rels[k]->range_var;
				applies = !strcmp(rv->relname, rt->alias);
			}
			if (applies && (int)lc->strength > rt->lock_strength) {
				rt->lock_strength = lc->strength;
				rt->lock_wait = lc->wait_policy;
			}
		}
		if (!q->for_update)
			q->lock_strength = lc->strength;
		q->for_update = true;
	}
}

sql_query *sql_analyze_select(sql_actx *ax, PgQuery__SelectStmt *sel, sql_query *parent, sql_cte **ctes, int nctes)
{
	sql_check_stack_depth();
	ty_check_interrupts();
	bool setop_leaf = ax->setop_leaf;
	ax->setop_leaf = false;
	if (sel->op != PG_QUERY__SET_OPERATION__SETOP_NONE)
		return analyze_setop(ax, sel, parent, ctes, nctes);
	if (sel->n_values_lists)
		return analyze_values(ax, sel, parent, ctes, nctes);
	sql_query *q = sql_new_query(ax, SQL_CMD_SELECT, parent);
	q->ctes = ctes;
	q->nctes = nctes;
	if (sel->with_clause)
		sql_transform_with(ax, q, sel->with_clause);
	if (sel->into_clause)
		sql_error_at(ax, -1, UTIL_E_FEATURE_NOT_SUPPORTED, "SELECT INTO is not allowed here");
	/* FROM */
	q->from = ty_alloc(sizeof(sql_jnode *) * (sel->n_from_clause ? sel->n_from_clause : 1));
	for (size_t i = 0; i < sel->n_from_clause; i++) {
		sql_jnode *j;
		transform_from_item(ax, q, sel->from_clause[i], &j);
		q->from[q->nfrom++] = j;
	}
	check_duplicate_aliases(ax, q);
	/* Named windows (WINDOW w AS ...), before the target list refers to them */
	for (size_t i = 0; i < sel->n_window_clause; i++) {
		PgQuery__WindowDef *wd = sel->window_clause[i]->window_def;
		for (int k = 0; k < q->nwinclauses; k++)
			if (q->winclauses[k].name && !strcmp(q->winclauses[k].name, wd->name))
				sql_error_at(ax, wd->location, UTIL_E_WINDOWING_ERROR, "window \"%s\" is already defined", wd->name);
		PgQuery__WindowDef copy = *wd;
		PgQuery__WindowDef tmp = copy;
		tmp.name = NULL;
		int idx = sql_window_clause_for(ax, q, &tmp);
		/* give it its name (a fresh clause, not a reused one) */
		sql_window_clause *nw = ty_alloc(sizeof(sql_window_clause) * (size_t)(q->nwinclauses + 1));
		memcpy(nw, q->winclauses, sizeof(sql_window_clause) * (size_t)q->nwinclauses);
		nw[q->nwinclauses] = q->winclauses[idx];
		nw[q->nwinclauses].name = ty_strdup(wd->name);
		q->winclauses = nw;
		q->nwinclauses++;
	}
	/* Target list */
	sql_transform_targets(ax, q, sel->target_list, sel->n_target_list, SQL_EXPR_SELECT);
	for (int i = 0; i < q->ntargets && !setop_leaf; i++) {
		/* Unknown literals in the output become text (PostgreSQL 10+);
		 * a set operation resolves its leaves' unknowns itself. */
		sql_target *t = &q->targets[i];
		if (t->expr->type == TY_UNKNOWN)
			t->expr = sql_coerce(ax, t->expr, TY_TEXT, -1, SQL_COERCE_IMPLICIT, t->expr->location);
	}
	/* WHERE */
	if (sel->where_clause)
		q->where = sql_coerce_bool(ax, sql_transform_expr(ax, q, sel->where_clause, SQL_EXPR_WHERE), "WHERE");
	/* GROUP BY, HAVING */
	transform_group(ax, q, sel);
	if (sel->having_clause) {
		q->having = sql_coerce_bool(ax, sql_transform_expr(ax, q, sel->having_clause, SQL_EXPR_HAVING), "HAVING");
		q->has_aggs = true;
	}
	/* DISTINCT */
	bool distinct = sel->n_distinct_clause > 0;
	bool distinct_on = distinct && !(sel->n_distinct_clause == 1 && sel->distinct_clause[0] == NULL) &&
			   sel->distinct_clause[0] != NULL && sel->distinct_clause[0]->node_case != PG_QUERY__NODE__NODE__NOT_SET;
	/* ORDER BY */
	transform_sort(ax, q, sel->sort_clause, sel->n_sort_clause, distinct && !distinct_on);
	if (distinct) {
		q->distinct = true;
		if (distinct_on) {
			q->ndistinct_on = (int)sel->n_distinct_clause;
			q->distinct_on = ty_alloc(sizeof(sql_expr *) * sel->n_distinct_clause);
			for (size_t i = 0; i < sel->n_distinct_clause; i++) {
				int t = target_for(ax, q, sel->distinct_clause[i], SQL_EXPR_ORDER, true, true);
				q->distinct_on[i] = q->targets[t].expr;
				if (!q->targets[t].sortgroupref)
					q->targets[t].sortgroupref = next_sortgroupref(q);
			}
			/* ORDER BY must start with the DISTINCT ON expressions. */
			for (int i = 0; i < q->nsort && i < q->ndistinct_on; i++) {
				bool found = false;
				for (int k = 0; k < q->ndistinct_on; k++)
					found |= sql_expr_equal(q->sort[i].expr, q->distinct_on[k]);
				if (!found)
					sql_error_at(ax, sql_raw_location(sel->distinct_clause[i < (int)sel->n_distinct_clause ? i : 0]),
						     UTIL_E_INVALID_COLUMN_REFERENCE,
						     "SELECT DISTINCT ON expressions must match initial ORDER BY expressions");
			}
		}
	}
	/* LIMIT / OFFSET */
	if (sel->limit_count) {
		sql_expr *l = sql_transform_expr(ax, q, sel->limit_count, SQL_EXPR_LIMIT);
		if (!(l->kind == SQL_E_CONST && l->c.null && l->type == TY_UNKNOWN))
			q->limit = sql_coerce(ax, l, TY_INT8, -1, SQL_COERCE_IMPLICIT, l->location);
		q->limit_ties = sel->limit_option == PG_QUERY__LIMIT_OPTION__LIMIT_OPTION_WITH_TIES;
		if (q->limit_ties && sel->n_sort_clause == 0)
			sql_error_at(ax, -1, UTIL_E_SYNTAX_ERROR, "WITH TIES cannot be specified without ORDER BY clause");
	}
	if (sel->limit_offset) {
		sql_expr *o = sql_transform_expr(ax, q, sel->limit_offset, SQL_EXPR_OFFSET);
		q->offset = sql_coerce(ax, o, TY_INT8, -1, SQL_COERCE_IMPLICIT, o->location);
	}
	/* Grouping checks */
	if (q->has_aggs || q->ngroup) {
		for (int i = 0; i < q->ntargets; i++)
			sql_expr_walk(q->targets[i].expr, resolve_grouping_walker, q);
		if (q->having)
			sql_expr_walk(q->having, resolve_grouping_walker, q);
		grp_check gc = {ax, q, pk_grouped_rtes(q), 0};
		for (int i = 0; i < q->ntargets; i++)
			check_grouped(&gc, q->targets[i].expr);
		check_grouped(&gc, q->having);
		for (int i = 0; i < q->nsort; i++)
			check_grouped(&gc, q->sort[i].expr);
		for (int w = 0; w < q->nwinclauses; w++) {
			for (int i = 0; i < q->winclauses[w].npart; i++)
				check_grouped(&gc, q->winclauses[w].part[i]);
			for (int i = 0; i < q->winclauses[w].norder; i++)
				check_grouped(&gc, q->winclauses[w].order[i].expr);
		}
		for (int i = 0; i < q->nwins; i++)
			for (int k = 0; k < q->wins[i].nargs; k++)
				check_grouped(&gc, q->wins[i].args[k]);
	}
	transform_locking(ax, q, sel);
	return q;
}

/* VALUES (...), (...) as a query over one VALUES RTE. */
static sql_query *analyze_values(sql_actx *ax, PgQuery__SelectStmt *sel, sql_query *parent, sql_cte **ctes, int nctes)
{
	sql_query *q = sql_new_query(ax, SQL_CMD_SELECT, parent);
	q->ctes = ctes;
	q->nctes = nctes;
	q->is_values = true;
	if (sel->with_clause)
		sql_transform_with(ax, q, sel->with_clause);
	int nrows = (int)sel->n_values_lists;
	int ncols = (int)sel->values_lists[0]->list->n_items;
	sql_expr ***rows = ty_alloc(sizeof(sql_expr **) * (size_t)nrows);
	for (int r = 0; r < nrows; r++) {
		PgQuery__List *l = sel->values_lists[r]->list;
		if ((int)l->n_items != ncols)
			sql_error_at(ax, l->n_items ? sql_raw_location(l->items[0]) : -1, UTIL_E_SYNTAX_ERROR,
				     "VALUES lists must all be the same length");
		rows[r] = ty_alloc(sizeof(sql_expr *) * (size_t)(ncols ? ncols : 1));
		for (int c = 0; c < ncols; c++)
			rows[r][c] = sql_transform_expr(ax, q, l->items[c], SQL_EXPR_VALUES);
	}
	sql_rte *rt = new_rte(SQL_RTE_VALUES, "*VALUES*", ncols);
	sql_expr **col = ty_alloc(sizeof(sql_expr *) * (size_t)(nrows ? nrows : 1));
	for (int c = 0; c < ncols; c++) {
		for (int r = 0; r < nrows; r++)
			col[r] = rows[r][c];
		ty_oid t = sql_common_type(col, nrows, "VALUES", NULL);
		int32_t tm = -2;
		for (int r = 0; r < nrows; r++) {
			rows[r][c] = sql_coerce(ax, rows[r][c], t, -1, SQL_COERCE_IMPLICIT, rows[r][c]->location);
			tm = tm == -2 ? rows[r][c]->typmod : tm == rows[r][c]->typmod ? tm : -1;
		}
		rt->colnames[c] = ty_alloc(24);
		snprintf(rt->colnames[c], 24, "column%d", c + 1);
		rt->coltypes[c] = t;
		rt->coltypmods[c] = tm < -1 ? -1 : tm;
	}
	rt->rows = rows;
	rt->nrows = nrows;
	sql_jnode *j;
	int idx = add_leaf(q, rt, &j);
	add_ns(q, idx, true, true);
	q->from = ty_alloc(sizeof(sql_jnode *));
	q->from[0] = j;
	q->nfrom = 1;
	for (int c = 0; c < ncols; c++) {
		sql_expr *v = sql_expr_new(SQL_E_VAR, rt->coltypes[c], -1);
		v->typmod = rt->coltypmods[c];
		v->var.rte = idx;
		v->var.col = c;
		add_target(q, v, rt->colnames[c], false);
	}
	transform_sort(ax, q, sel->sort_clause, sel->n_sort_clause, false);
	if (sel->limit_count)
		q->limit = sql_coerce(ax, sql_transform_expr(ax, q, sel->limit_count, SQL_EXPR_LIMIT), TY_INT8, -1,
				      SQL_COERCE_IMPLICIT, -1);
	if (sel->limit_offset)
		q->offset = sql_coerce(ax, sql_transform_expr(ax, q, sel->limit_offset, SQL_EXPR_OFFSET), TY_INT8, -1,
				       SQL_COERCE_IMPLICIT, -1);
	return q;
}

/* ---------------------------------------------------------------- set operations */

/* The leftmost leaf's output expressions (what PostgreSQL's error
 * positions point at for a set operation subtree). */
static sql_expr *setop_col(sql_setop *s, int col)
{
	while (!s->is_leaf)
		s = s->left;
	for (int i = 0, k = 0; i < s->leaf->ntargets; i++)
		if (!s->leaf->targets[i].junk && k++ == col)
			return s->leaf->targets[i].expr;
	return NULL;
}

static sql_setop *setop_tree(sql_actx *ax, PgQuery__SelectStmt *sel, sql_query *parent, sql_cte **ctes, int nctes,
			     bool top)
{
	sql_setop *s = ty_alloc0(sizeof *s);
	bool leaf = sel->op == PG_QUERY__SET_OPERATION__SETOP_NONE ||
		    (!top && (sel->n_sort_clause || sel->limit_count || sel->limit_offset || sel->with_clause) &&
		     sel->op == PG_QUERY__SET_OPERATION__SETOP_NONE);
	if (leaf) {
		s->is_leaf = true;
		ax->setop_leaf = true;
		s->leaf = sql_analyze_select(ax, sel, parent, ctes, nctes);
		ax->setop_leaf = false;
		s->ncols = s->leaf->nret;
		s->types = ty_alloc(sizeof(ty_oid) * (size_t)(s->ncols ? s->ncols : 1));
		s->typmods = ty_alloc(sizeof(int32_t) * (size_t)(s->ncols ? s->ncols : 1));
		int k = 0;
		for (int i = 0; i < s->leaf->ntargets; i++)
			if (!s->leaf->targets[i].junk) {
				s->types[k] = s->leaf->targets[i].expr->type;
				s->typmods[k] = s->leaf->targets[i].expr->typmod;
				k++;
			}
		return s;
	}
	s->op = sel->op == PG_QUERY__SET_OPERATION__SETOP_UNION ? SQL_SETOP_UNION
		: sel->op == PG_QUERY__SET_OPERATION__SETOP_INTERSECT ? SQL_SETOP_INTERSECT
								      : SQL_SETOP_EXCEPT;
	s->all = sel->all;
	s->left = setop_tree(ax, sel->larg, parent, ctes, nctes, false);
	s->right = setop_tree(ax, sel->rarg, parent, ctes, nctes, false);
	const char *ctx = s->op == SQL_SETOP_UNION ? "UNION" : s->op == SQL_SETOP_INTERSECT ? "INTERSECT" : "EXCEPT";
	if (s->left->ncols != s->right->ncols) {
		sql_expr *r0 = setop_col(s->right, 0);
		sql_error_at(ax, r0 ? r0->location : -1, UTIL_E_SYNTAX_ERROR, "each %s query must have the same number of columns",
			     ctx);
	}
	s->ncols = s->left->ncols;
	s->types = ty_alloc(sizeof(ty_oid) * (size_t)(s->ncols ? s->ncols : 1));
	s->typmods = ty_alloc(sizeof(int32_t) * (size_t)(s->ncols ? s->ncols : 1));
	for (int i = 0; i < s->ncols; i++) {
		sql_expr *le = setop_col(s->left, i), *re = setop_col(s->right, i);
		sql_expr a = {.type = s->left->types[i], .location = le ? le->location : -1};
		sql_expr b = {.type = s->right->types[i], .location = re ? re->location : -1};
		sql_expr *two[2] = {&a, &b};
		int locs[2] = {sql_errposition(ax->ps->text, a.location), sql_errposition(ax->ps->text, b.location)};
		/* Unknown on both sides stays unknown until the top resolves it. */
		s->types[i] = a.type == TY_UNKNOWN && b.type == TY_UNKNOWN ? TY_UNKNOWN : sql_common_type(two, 2, ctx, locs);
		s->typmods[i] = s->left->typmods[i] == s->right->typmods[i] ? s->left->typmods[i] : -1;
	}
	return s;
}

/* Coerces the leaves' outputs to the set operation's column types. */
static void coerce_setop(sql_actx *ax, sql_setop *s, const ty_oid *types, const int32_t *typmods)
{
	if (s->is_leaf) {
		int k = 0;
		for (int i = 0; i < s->leaf->ntargets; i++) {
			sql_target *t = &s->leaf->targets[i];
			if (t->junk)
				continue;
			if (t->expr->type != types[k])
				t->expr = sql_coerce(ax, t->expr, types[k], -1, SQL_COERCE_IMPLICIT, t->expr->location);
			s->types[k] = types[k];
			s->typmods[k] = typmods[k];
			k++;
		}
		return;
	}
	memcpy(s->types, types, sizeof(ty_oid) * (size_t)s->ncols);
	memcpy(s->typmods, typmods, sizeof(int32_t) * (size_t)s->ncols);
	coerce_setop(ax, s->left, types, typmods);
	coerce_setop(ax, s->right, types, typmods);
}

static sql_query *analyze_setop(sql_actx *ax, PgQuery__SelectStmt *sel, sql_query *parent, sql_cte **ctes, int nctes)
{
	sql_query *q = sql_new_query(ax, SQL_CMD_SELECT, parent);
	q->ctes = ctes;
	q->nctes = nctes;
	if (sel->with_clause)
		sql_transform_with(ax, q, sel->with_clause);
	/* The operands are analyzed with the WITH of this level. */
	PgQuery__SelectStmt tmp = *sel;
	tmp.n_sort_clause = 0;
	tmp.limit_count = NULL;
	tmp.limit_offset = NULL;
	tmp.with_clause = NULL;
	q->setop = setop_tree(ax, &tmp, parent, q->ctes, q->nctes, true);
	for (int i = 0; i < q->setop->ncols; i++)
		if (q->setop->types[i] == TY_UNKNOWN)
			q->setop->types[i] = TY_TEXT;
	coerce_setop(ax, q->setop, q->setop->types, q->setop->typmods);
	/* The result columns are named after the leftmost leaf. */
	sql_setop *l = q->setop;
	while (!l->is_leaf)
		l = l->left;
	sql_rte *rt = new_rte(SQL_RTE_SUBQUERY, "*SELECT*", q->setop->ncols);
	int k = 0;
	for (int i = 0; i < l->leaf->ntargets; i++) {
		if (l->leaf->targets[i].junk)
			continue;
		rt->colnames[k] = l->leaf->targets[i].name;
		rt->coltypes[k] = q->setop->types[k];
		rt->coltypmods[k] = q->setop->typmods[k];
		k++;
	}
	int idx = add_rte(q, rt);
	add_ns(q, idx, false, true);
	for (int c = 0; c < q->setop->ncols; c++) {
		sql_expr *v = sql_expr_new(SQL_E_VAR, rt->coltypes[c], -1);
		v->typmod = rt->coltypmods[c];
		v->var.rte = idx;
		v->var.col = c;
		add_target(q, v, rt->colnames[c], false);
	}
	/* ORDER BY on a set operation: only output columns (by name or ordinal). */
	if (sel->n_sort_clause) {
		transform_sort(ax, q, sel->sort_clause, sel->n_sort_clause, false);
		for (int i = 0; i < q->ntargets; i++)
			if (q->targets[i].junk)
				sql_error_at(ax, -1, UTIL_E_FEATURE_NOT_SUPPORTED,
					     "invalid UNION/INTERSECT/EXCEPT ORDER BY clause");
	}
	if (sel->limit_count)
		q->limit = sql_coerce(ax, sql_transform_expr(ax, q, sel->limit_count, SQL_EXPR_LIMIT), TY_INT8, -1,
				      SQL_COERCE_IMPLICIT, -1);
	if (sel->limit_offset)
		q->offset = sql_coerce(ax, sql_transform_expr(ax, q, sel->limit_offset, SQL_EXPR_OFFSET), TY_INT8, -1,
				       SQL_COERCE_IMPLICIT, -1);
	return q;
}

/* ---------------------------------------------------------------- WITH */

/* Does a raw parse tree mention relation `name` (unqualified)? Used to tell
 * recursive CTEs from plain ones before analysis (protobuf-c reflection
 * over every message field). */
static bool raw_mentions(const ProtobufCMessage *m, const char *name)
{
	if (!m)
		return false;
	if (m->descriptor == &pg_query__range_var__descriptor) {
		const PgQuery__RangeVar *rv = (const PgQuery__RangeVar *)m;
		return (!rv->schemaname || !*rv->schemaname) && rv->relname && !strcmp(rv->relname, name);
	}
	const ProtobufCMessageDescriptor *d = m->descriptor;
	const char *base = (const char *)m;
	for (unsigned i = 0; i < d->n_fields; i++) {
		const ProtobufCFieldDescriptor *f = &d->fields[i];
		if (f->type != PROTOBUF_C_TYPE_MESSAGE)
			continue;
		if (f->label == PROTOBUF_C_LABEL_REPEATED) {
			size_t n = *(const size_t *)(base + f->quantifier_offset);
			ProtobufCMessage *const *arr = *(ProtobufCMessage *const *const *)(base + f->offset);
			for (size_t k = 0; k < n; k++)
				if (raw_mentions(arr[k], name))
					return true;
		} else {
			if ((f->flags & PROTOBUF_C_FIELD_FLAG_ONEOF) && *(const uint32_t *)(base + f->quantifier_offset) != f->id)
				continue;
			if (raw_mentions(*(ProtobufCMessage *const *)(base + f->offset), name))
				return true;
		}
	}
	return false;
}

static int sortby_location(pnode *n)
{
	if (n->node_case == PG_QUERY__NODE__NODE_SORT_BY && n->sort_by->node)
		return sql_raw_location(n->sort_by->node);
	return -1;
}

/* PostgreSQL's checkWellFormedRecursion, for what it checks before the
 * recursive term is analyzed. */
static void check_recursive_form(sql_actx *ax, PgQuery__CommonTableExpr *ce, PgQuery__SelectStmt *cs)
{
	if (cs->op != PG_QUERY__SET_OPERATION__SETOP_UNION)
		sql_error_at(ax, ce->location, UTIL_E_INVALID_RECURSION,
			     "recursive query \"%s\" does not have the form non-recursive-term UNION [ALL] recursive-term",
			     ce->ctename);
	if (raw_mentions(&cs->larg->base, ce->ctename))
		sql_error_at(ax, ce->location, UTIL_E_INVALID_RECURSION,
			     "recursive reference to query \"%s\" must not appear within its non-recursive term", ce->ctename);
	if (cs->n_sort_clause)
		sql_error_at(ax, sortby_location(cs->sort_clause[0]), UTIL_E_FEATURE_NOT_SUPPORTED,
			     "ORDER BY in a recursive query is not implemented");
	if (cs->limit_offset)
		sql_error_at(ax, sql_raw_location(cs->limit_offset), UTIL_E_FEATURE_NOT_SUPPORTED,
			     "OFFSET in a recursive query is not implemented");
	if (cs->limit_count)
		sql_error_at(ax, sql_raw_location(cs->limit_count), UTIL_E_FEATURE_NOT_SUPPORTED,
			     "LIMIT in a recursive query is not implemented");
	if (cs->n_locking_clause)
		sql_error_at(ax, -1, UTIL_E_FEATURE_NOT_SUPPORTED, "FOR UPDATE/SHARE in a recursive query is not implemented");
}

static sql_visit agg_loc_visitor(sql_expr *e, void *arg)
{
	int *loc = arg;
	if ((e->kind == SQL_E_AGG || e->kind == SQL_E_WINDOW) && *loc < 0) {
		*loc = e->location;
		return SQL_VISIT_STOP;
	}
	return SQL_VISIT_CONTINUE;
}

/* Aggregates and window functions cannot run over the work table. */
static void check_recursive_term(sql_actx *ax, sql_query *rec)
{
	if (!rec->naggs && !rec->nwins && !rec->ngroup)
		return;
	int loc = -1;
	for (int i = 0; i < rec->ntargets && loc < 0; i++)
		sql_expr_visit(rec->targets[i].expr, agg_loc_visitor, &loc);
	if (rec->having && loc < 0)
		sql_expr_visit(rec->having, agg_loc_visitor, &loc);
	if (rec->nwins)
		sql_error_at(ax, loc, UTIL_E_INVALID_RECURSION,
			     "window functions are not allowed in a recursive query's recursive term");
	if (rec->naggs)
		sql_error_at(ax, loc, UTIL_E_INVALID_RECURSION,
			     "aggregate functions are not allowed in a recursive query's recursive term");
	sql_error_at(ax, -1, UTIL_E_INVALID_RECURSION, "GROUP BY in a recursive query's recursive term is not allowed");
}

sql_query *sql_analyze_insert(sql_actx *ax, PgQuery__InsertStmt *st);
sql_query *sql_analyze_update(sql_actx *ax, PgQuery__UpdateStmt *st);
sql_query *sql_analyze_delete(sql_actx *ax, PgQuery__DeleteStmt *st);

/* WITH d AS (INSERT/UPDATE/DELETE ... [RETURNING ...]): the statement is a
 * CTE whose rows are its RETURNING list; only at the top level. */
static void transform_dml_cte(sql_actx *ax, sql_query *q, sql_cte *c, PgQuery__CommonTableExpr *ce)
{
	if (q->parent || ax->setop_leaf)
		sql_error_at(ax, ce->location, UTIL_E_FEATURE_NOT_SUPPORTED,
			     "WITH clause containing a data-modifying statement must be at the top level");
	pnode *st = ce->ctequery;
	sql_query *dq;
	switch (st->node_case) {
	case PG_QUERY__NODE__NODE_INSERT_STMT: dq = sql_analyze_insert(ax, st->insert_stmt); break;
	case PG_QUERY__NODE__NODE_UPDATE_STMT: dq = sql_analyze_update(ax, st->update_stmt); break;
	case PG_QUERY__NODE__NODE_DELETE_STMT: dq = sql_analyze_delete(ax, st->delete_stmt); break;
	default:
		sql_error_at(ax, ce->location, UTIL_E_FEATURE_NOT_SUPPORTED, "unsupported statement in WITH");
	}
	c->query = dq;
	c->dml = true;
	c->materialized = true;
	c->ncols = dq->nreturning;
	c->colnames = ty_alloc(sizeof(char *) * (size_t)(c->ncols ? c->ncols : 1));
	c->coltypes = ty_alloc(sizeof(ty_oid) * (size_t)(c->ncols ? c->ncols : 1));
	c->coltypmods = ty_alloc(sizeof(int32_t) * (size_t)(c->ncols ? c->ncols : 1));
	for (int i = 0; i < c->ncols; i++) {
		c->colnames[i] = dq->returning[i].name;
		c->coltypes[i] = dq->returning[i].expr->type;
		c->coltypmods[i] = dq->returning[i].expr->typmod;
	}
	if (ce->n_aliascolnames) {
		if ((int)ce->n_aliascolnames > c->ncols)
			sql_error_at(ax, ce->location, UTIL_E_INVALID_COLUMN_REFERENCE,
				     "WITH query \"%s\" has %d columns available but %d columns specified", c->name, c->ncols,
				     (int)ce->n_aliascolnames);
		for (size_t a = 0; a < ce->n_aliascolnames; a++)
			c->colnames[a] = ty_strdup(str_of(ce->aliascolnames[a]));
	}
}

void sql_transform_with(sql_actx *ax, sql_query *q, PgQuery__WithClause *wc)
{
	int base = q->nctes;
	sql_cte **all = ty_alloc(sizeof(sql_cte *) * (size_t)(q->nctes + (int)wc->n_ctes + 1));
	if (q->nctes)
		memcpy(all, q->ctes, sizeof(sql_cte *) * (size_t)q->nctes);
	q->ctes = all;
	for (size_t i = 0; i < wc->n_ctes; i++) {
		PgQuery__CommonTableExpr *ce = wc->ctes[i]->common_table_expr;
		for (int k = base; k < q->nctes; k++)
			if (!strcmp(q->ctes[k]->name, ce->ctename))
				sql_error_at(ax, ce->location, UTIL_E_DUPLICATE_ALIAS, "WITH query name \"%s\" specified more than once",
					     ce->ctename);
		sql_cte *c = ty_alloc0(sizeof *c);
		snprintf(c->name, sizeof c->name, "%s", ce->ctename);
		c->id = ax->ps->nctes++;
		c->materialized = ce->ctematerialized == PG_QUERY__CTEMATERIALIZE__CTEMaterializeAlways;
		c->location = ce->location;
		if (ce->ctequery->node_case != PG_QUERY__NODE__NODE_SELECT_STMT) {
			transform_dml_cte(ax, q, c, ce);
			q->ctes[q->nctes++] = c;
			continue;
		}
		PgQuery__SelectStmt *cs = ce->ctequery->select_stmt;
		bool selfref = false;
		bool recursive = wc->recursive && raw_mentions(&cs->base, ce->ctename);
		if (recursive)
			check_recursive_form(ax, ce, cs);
		if (recursive) {
			/* WITH RECURSIVE x AS (non-recursive UNION [ALL] recursive). */
			c->recursive = true;
			c->union_all = cs->all;
			c->nonrec = sql_analyze_select(ax, cs->larg, q, q->ctes, q->nctes);
			c->ncols = c->nonrec->nret;
			c->colnames = ty_alloc(sizeof(char *) * (size_t)(c->ncols ? c->ncols : 1));
			c->coltypes = ty_alloc(sizeof(ty_oid) * (size_t)(c->ncols ? c->ncols : 1));
			c->coltypmods = ty_alloc(sizeof(int32_t) * (size_t)(c->ncols ? c->ncols : 1));
			int k = 0;
			for (int t = 0; t < c->nonrec->ntargets; t++)
				if (!c->nonrec->targets[t].junk) {
					c->colnames[k] = c->nonrec->targets[t].name;
					c->coltypes[k] = c->nonrec->targets[t].expr->type;
					c->coltypmods[k] = c->nonrec->targets[t].expr->typmod;
					k++;
				}
			if (ce->n_aliascolnames) {
				if ((int)ce->n_aliascolnames > c->ncols)
					sql_error_at(ax, ce->location, UTIL_E_INVALID_COLUMN_REFERENCE,
						     "WITH query \"%s\" has %d columns available but %d columns specified", c->name,
						     c->ncols, (int)ce->n_aliascolnames);
				for (size_t a = 0; a < ce->n_aliascolnames; a++)
					c->colnames[a] = ty_strdup(str_of(ce->aliascolnames[a]));
			}
			q->ctes[q->nctes++] = c; /* visible to the recursive term */
			c->rec = sql_analyze_select(ax, cs->rarg, q, q->ctes, q->nctes);
			check_recursive_term(ax, c->rec);
			if (c->rec->nret != c->ncols)
				sql_error_at(ax, ce->location, UTIL_E_SYNTAX_ERROR, "each UNION query must have the same number of columns");
			for (int t = 0, k2 = 0; t < c->rec->ntargets; t++) {
				sql_target *tg = &c->rec->targets[t];
				if (tg->junk)
					continue;
				if (tg->expr->type != c->coltypes[k2]) {
					if (!sql_can_coerce(tg->expr->type, c->coltypes[k2], SQL_COERCE_IMPLICIT)) {
						util_buf b1 = UTIL_BUF_INIT, b2 = UTIL_BUF_INIT;
						ty_format_type(c->coltypes[k2], -1, &b1);
						ty_format_type(tg->expr->type, -1, &b2);
						util_err *e = ty_errstart(UTIL_E_DATATYPE_MISMATCH,
									  "recursive query \"%s\" column %d has type %s in non-recursive term but type %s overall",
									  c->name, k2 + 1, b1.data, b2.data);
						util_err_hint(e, "Cast the output of the non-recursive term to the correct type.");
						util_buf_free(&b1);
						util_buf_free(&b2);
						ty_errthrow();
					}
					tg->expr = sql_coerce(ax, tg->expr, c->coltypes[k2], -1, SQL_COERCE_IMPLICIT, -1);
				}
				k2++;
			}
			selfref = true;
		} else {
			c->query = sql_analyze_select(ax, cs, q, q->ctes, q->nctes);
			c->ncols = c->query->nret;
			c->colnames = ty_alloc(sizeof(char *) * (size_t)(c->ncols ? c->ncols : 1));
			c->coltypes = ty_alloc(sizeof(ty_oid) * (size_t)(c->ncols ? c->ncols : 1));
			c->coltypmods = ty_alloc(sizeof(int32_t) * (size_t)(c->ncols ? c->ncols : 1));
			int k = 0;
			for (int t = 0; t < c->query->ntargets; t++)
				if (!c->query->targets[t].junk) {
					c->colnames[k] = c->query->targets[t].name;
					c->coltypes[k] = c->query->targets[t].expr->type;
					c->coltypmods[k] = c->query->targets[t].expr->typmod;
					k++;
				}
			if (ce->n_aliascolnames) {
				if ((int)ce->n_aliascolnames > c->ncols)
					sql_error_at(ax, ce->location, UTIL_E_INVALID_COLUMN_REFERENCE,
						     "WITH query \"%s\" has %d columns available but %d columns specified", c->name,
						     c->ncols, (int)ce->n_aliascolnames);
				for (size_t a = 0; a < ce->n_aliascolnames; a++)
					c->colnames[a] = ty_strdup(str_of(ce->aliascolnames[a]));
			}
		}
		if (!selfref)
			q->ctes[q->nctes++] = c;
	}
}

/* ---------------------------------------------------------------- dispatch */

sql_query *sql_analyze_insert(sql_actx *ax, PgQuery__InsertStmt *st);
sql_query *sql_analyze_update(sql_actx *ax, PgQuery__UpdateStmt *st);
sql_query *sql_analyze_delete(sql_actx *ax, PgQuery__DeleteStmt *st);

sql_query *sql_analyze(sql_actx *ax, pnode *stmt)
{
	switch (stmt->node_case) {
	case PG_QUERY__NODE__NODE_SELECT_STMT:
		return sql_analyze_select(ax, stmt->select_stmt, NULL, NULL, 0);
	case PG_QUERY__NODE__NODE_INSERT_STMT:
		return sql_analyze_insert(ax, stmt->insert_stmt);
	case PG_QUERY__NODE__NODE_UPDATE_STMT:
		return sql_analyze_update(ax, stmt->update_stmt);
	case PG_QUERY__NODE__NODE_DELETE_STMT:
		return sql_analyze_delete(ax, stmt->delete_stmt);
	default:
		ty_error(UTIL_E_FEATURE_NOT_SUPPORTED, "statement is not supported: %s", sql_command_tag(stmt));
	}
}

/* Exposed for DML analysis (analyze_dml.c). */
int sql_add_from_item(sql_actx *ax, sql_query *q, pnode *n, sql_jnode **out) { return transform_from_item(ax, q, n, out); }
int sql_add_table_rte(sql_actx *ax, sql_query *q, const cat_obj *rel, const char *alias, sql_jnode **out)
{
	const cat_rel *cr = &rel->rel;
	sql_rte *r = new_rte(SQL_RTE_TABLE, alias ? alias : cr->name, cr->ncols);
	r->rel = rel;
	r->has_alias = alias != NULL;
	for (int i = 0; i < cr->ncols; i++) {
		r->colnames[i] = cr->cols[i].dropped ? NULL : ty_strdup(cr->cols[i].name);
		r->coltypes[i] = cr->cols[i].type;
		r->coltypmods[i] = cr->cols[i].typmod;
	}
	(void)ax;
	return add_leaf(q, r, out);
}
void sql_add_namespace(sql_query *q, int rte, bool rel_visible, bool cols_visible) { add_ns(q, rte, rel_visible, cols_visible); }

static UTIL_NORETURN void not_updatable(const cat_obj *view, const char *verb, const char *detail)
{
	util_err *e = ty_errstart(UTIL_E_OBJECT_NOT_IN_PREREQUISITE_STATE, "cannot %s view \"%s\"", verb, view->rel.name);
	util_err_detail(e, "%s", detail);
	const char *ing = !strcmp(verb, "insert into") ? "inserting into" : !strcmp(verb, "update") ? "updating" : "deleting from";
	const char *what = !strcmp(verb, "insert into") ? "INSERT" : !strcmp(verb, "update") ? "UPDATE" : "DELETE";
	util_err_hint(e, "To enable %s the view, provide an INSTEAD OF %s trigger or an unconditional ON %s DO INSTEAD rule.", ing,
		      what, what);
	ty_errthrow();
}

/* A view's check option: 'l' LOCAL, 'c' CASCADED, 0 none (the
 * "check_option" reloption, as PostgreSQL stores it). */
char sql_view_check_option(const cat_obj *view)
{
	const char *o = cat_rel_option(&view->rel, "check_option");
	return !o ? 0 : !strcmp(o, "cascaded") ? 'c' : 'l';
}

/* An updatable view level resolved onto its base table. */
typedef struct view_base {
	int base; /* the base table's RTE in the statement */
	sql_jnode *j;
	const cat_obj *rel; /* the base table */
	sql_expr **exprs;   /* per view column: over the base table */
	int16_t *attnums;   /* per view column: base attnum, 0 computed */
	sql_expr *where;    /* every level's condition, ANDed */
	int nchecks;        /* check options in force, innermost first */
	sql_expr **checks;
	const char **check_names;
	int nchain; /* the views below this one, outermost first */
	const cat_obj **chain;
} view_base;

typedef struct subst_ctx {
	int rte;          /* the level's FROM item in its query */
	sql_expr **exprs; /* what its columns are over the base table, */
	int base;         /* or NULL: it is the table, now this RTE */
} subst_ctx;

static sql_expr *subst_mutator(sql_expr *e, void *arg)
{
	subst_ctx *c = arg;
	if (e->kind == SQL_E_VAR && e->var.levelsup == 0 && e->var.rte == c->rte) {
		if (!c->exprs) {
			e->var.rte = c->base;
			return e;
		}
		return sql_expr_copy(c->exprs[e->var.col]);
	}
	return e;
}

static sql_expr *and_exprs(sql_expr *a, sql_expr *b)
{
	if (!a || !b)
		return a ? a : b;
	sql_expr *e = sql_expr_new(SQL_E_AND, TY_BOOL, -1);
	e->f.nargs = 2;
	e->f.args = ty_alloc(sizeof(sql_expr *) * 2);
	e->f.args[0] = a;
	e->f.args[1] = b;
	return e;
}

/* CREATE VIEW v (a, b) stores its query as "SELECT * FROM (query) AS v(a, b)"
 * (ddl_misc.c): that subquery is the view's own query, not a subquery in
 * FROM (which makes a view not updatable). */
static bool alias_wrapped(const cat_obj *view)
{
	const char *t = view->rel.view_sql;
	return t && !strncmp(t, "SELECT * FROM (", 15) && strstr(t, ") AS v(");
}

/* Why one view query is not automatically updatable (PostgreSQL's
 * view_query_is_auto_updatable), or NULL. */
static const char *not_updatable_detail(const sql_query *vq, bool wrapped)
{
	if (vq->setop)
		return "Views containing UNION, INTERSECT, or EXCEPT are not automatically updatable.";
	if (vq->nctes)
		return "Views containing WITH are not automatically updatable.";
	if (vq->distinct)
		return "Views containing DISTINCT are not automatically updatable.";
	if (vq->ngroup)
		return "Views containing GROUP BY are not automatically updatable.";
	if (vq->having)
		return "Views containing HAVING are not automatically updatable.";
	if (vq->limit || vq->offset)
		return "Views containing LIMIT or OFFSET are not automatically updatable.";
	if (vq->has_aggs)
		return "Views that return aggregate functions are not automatically updatable.";
	if (vq->nwins)
		return "Views that return window functions are not automatically updatable.";
	if (vq->has_srf)
		return "Views that return set-returning functions are not automatically updatable.";
	const sql_rte *brte = vq->nfrom == 1 && !vq->from[0]->is_join ? vq->rtes[vq->from[0]->rte - 1] : NULL;
	bool view_or_wrapped = brte && brte->kind == SQL_RTE_SUBQUERY && brte->subquery &&
			       ((brte->rel && brte->rel->rel.relkind == CAT_RELKIND_VIEW) || wrapped);
	if (!brte || !(brte->kind == SQL_RTE_TABLE || view_or_wrapped))
		return "Views that do not select from a single table or view are not automatically "
		       "updatable.";
	return NULL;
}

/* PostgreSQL's rewriteTargetView, for one level: view (named in errors;
 * opt its check option) is vq, which must be simply updatable over one
 * table, or over a view or subquery that is in turn (resolved first, so
 * the innermost view's errors and checks come first). cascaded: a view
 * above has WITH CASCADED CHECK OPTION; wrapped: vq is a view's stored
 * query wrapping its column aliases (alias_wrapped). */
static void view_onto_base(sql_actx *ax, sql_query *q, const cat_obj *view, sql_query *vq, char opt,
			   bool cascaded, bool wrapped, const char *verb, view_base *out)
{
	const char *why = not_updatable_detail(vq, wrapped);
	if (why)
		not_updatable(view, verb, why);
	sql_rte *brte = vq->rtes[vq->from[0]->rte - 1];
	int from = vq->from[0]->rte;
	sql_expr **inner_exprs;
	int16_t *inner_attnums = NULL;
	memset(out, 0, sizeof *out);
	if (brte->kind == SQL_RTE_TABLE) {
		out->base = sql_add_table_rte(ax, q, brte->rel, NULL, &out->j);
		out->rel = brte->rel;
		inner_exprs = NULL; /* Vars of the table move to its RTE in the statement */
	} else {
		/* A view (its own check option) or a subquery (the column
		 * aliases of CREATE VIEW v(a, b) wrap the query in one). */
		bool is_view = brte->rel && brte->rel->rel.relkind == CAT_RELKIND_VIEW;
		const cat_obj *iv = is_view ? brte->rel : view;
		char iopt = is_view ? sql_view_check_option(iv) : opt;
		view_base ib;
		view_onto_base(ax, q, iv, brte->subquery, iopt, cascaded || opt == 'c',
			       is_view && alias_wrapped(iv), verb, &ib);
		*out = ib;
		if (is_view) {
			out->chain = ty_alloc(sizeof(cat_obj *) * (size_t)(ib.nchain + 1));
			out->chain[0] = iv;
			for (int i = 0; i < ib.nchain; i++)
				out->chain[i + 1] = ib.chain[i];
			out->nchain = ib.nchain + 1;
		}
		inner_exprs = ib.exprs;
		inner_attnums = ib.attnums;
		if (!is_view) {
			/* The wrapper is the same view: its checks were the level's. */
			opt = 0;
			cascaded = false;
		}
	}
	subst_ctx sc = {from, inner_exprs, out->base};
	out->exprs = ty_alloc0(sizeof(sql_expr *) * (size_t)(vq->nret + 1));
	out->attnums = ty_alloc0(sizeof(int16_t) * (size_t)(vq->nret + 1));
	for (int i = 0, k = 0; i < vq->ntargets; i++) {
		sql_target *t = &vq->targets[i];
		if (t->junk)
			continue;
		out->exprs[k] = sql_expr_mutate(t->expr, subst_mutator, &sc);
		if (t->expr->kind == SQL_E_VAR && t->expr->var.levelsup == 0 && t->expr->var.rte == from)
			out->attnums[k] =
			    inner_attnums ? inner_attnums[t->expr->var.col] : (int16_t)(t->expr->var.col + 1);
		k++;
	}
	sql_expr *own = vq->where ? sql_expr_mutate(vq->where, subst_mutator, &sc) : NULL;
	if (own && (opt || cascaded)) {
		/* Copies: the statement's WHERE holds the conditions too. */
		sql_expr **nc = ty_alloc(sizeof(sql_expr *) * (size_t)(out->nchecks + 1));
		const char **nn = ty_alloc(sizeof(char *) * (size_t)(out->nchecks + 1));
		for (int i = 0; i < out->nchecks; i++) {
			nc[i] = out->checks[i];
			nn[i] = out->check_names[i];
		}
		nc[out->nchecks] = sql_expr_copy(own);
		nn[out->nchecks] = view->rel.name;
		out->checks = nc;
		out->check_names = nn;
		out->nchecks++;
	}
	out->where = and_exprs(out->where, own);
}

const char *sql_view_not_updatable(const sql_query *vq)
{
	return not_updatable_detail(vq, false); /* (the body as written: not wrapped yet) */
}

int sql_add_view_target(sql_actx *ax, sql_query *q, const cat_obj *view, const char *alias, const char *verb,
			sql_view_target *vt)
{
	sql_query *vq = expand_view(ax, view, q, -1);
	view_base vb;
	view_onto_base(ax, q, view, vq, sql_view_check_option(view), false, alias_wrapped(view), verb, &vb);
	/* The base table joins the statement's range table, hidden: the
	 * statement sees the view's columns. */
	sql_rte *vr = new_rte(SQL_RTE_JOIN, alias ? alias : view->rel.name, vq->nret);
	vr->has_alias = alias != NULL;
	vr->rel = view; /* privilege.c: the statement needs its privilege on the view */
	vr->location = -1;
	vr->joinvars = ty_alloc(sizeof(sql_expr *) * (size_t)(vq->nret ? vq->nret : 1));
	vt->view = view;
	vt->base = vb.rel;
	vt->ncols = vq->nret;
	vt->colnames = vr->colnames;
	vt->attnums = vb.attnums;
	for (int i = 0, k = 0; i < vq->ntargets; i++) {
		sql_target *t = &vq->targets[i];
		if (t->junk)
			continue;
		sql_expr *e = vb.exprs[k];
		vr->colnames[k] = t->name;
		vr->coltypes[k] = e->type;
		vr->coltypmods[k] = e->typmod;
		vr->joinvars[k] = e;
		k++;
	}
	vt->where = vb.where;
	vt->nchecks = vb.nchecks;
	vt->checks = vb.checks;
	vt->check_names = vb.check_names;
	vt->ninner = vb.nchain;
	vt->inner = vb.chain;
	vt->view_rte = add_rte(q, vr);
	add_ns(q, vt->view_rte, true, true);
	q->from = ty_alloc(sizeof(sql_jnode *) * 1);
	q->from[0] = vb.j;
	q->nfrom = 1;
	return vb.base;
}
void sql_add_query_target(sql_query *q, sql_expr *e, const char *name, bool junk) { add_target(q, e, name, junk); }
const char *sql_figure_colname(pnode *n) { return figure_colname(n); }
