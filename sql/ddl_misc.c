/*
 * ddl_misc.c — the smaller DDL statements: views, CREATE TABLE AS,
 * TRUNCATE, COMMENT ON, ALTER SEQUENCE, RENAME, roles and databases,
 * reloptions, foreign-key resolution at CREATE TABLE, and view
 * dependencies for DROP.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sql_int.h"
#include "crypto.h"

static const char *str_of(pnode *n) { return n && n->node_case == PG_QUERY__NODE__NODE_STRING ? n->string->sval : NULL; }

static cat_oid new_oid(sql_session *s)
{
	cat_oid o;
	util_err err;
	if (cat_new_oid(s->e->cat, &o, &err) != 0)
		ty_throw(&err);
	return o;
}

static const cat_obj *must_rel(sql_session *s, cat_snap *cs, PgQuery__RangeVar *rv, bool missing_ok)
{
	const cat_obj *o;
	TY_TRY(tc)
	{
		o = sql_lookup_rel(s, cs, rv, missing_ok);
	}
	TY_CATCH(tc)
	{
		TY_END(tc);
		if (ty_err()->position < 0)
			ty_err()->position = 0;
		ty_errthrow();
	}
	TY_END(tc);
	return o;
}

/* ---------------------------------------------------------------- reloptions */

typedef struct relopt {
	const char *name;
	char kind; /* 'i' integer, 'b' bool, 'r' real, 's' string, 'z' compression */
	int64_t min, max;
	bool strata;
} relopt;

static const relopt reloptions[] = {
	{"fillfactor", 'i', 10, 100, false},
	{"autovacuum_enabled", 'b', 0, 0, false},
	{"autovacuum_vacuum_threshold", 'i', 0, INT32_MAX, false},
	{"autovacuum_vacuum_scale_factor", 'r', 0, 100, false},
	{"autovacuum_analyze_threshold", 'i', 0, INT32_MAX, false},
	{"autovacuum_analyze_scale_factor", 'r', 0, 100, false},
	{"toast_tuple_target", 'i', 128, 8160, false},
	{"parallel_workers", 'i', 0, 1024, false},
	{"user_catalog_table", 'b', 0, 0, false},
	{"vacuum_truncate", 'b', 0, 0, false},
	/* Strata's own (docs/table-options.md) */
	{"versions", 'i', 1, 1000000, true},
	{"min_versions", 'i', 0, 1000000, true},
	{"ttl", 'i', 0, INT64_MAX, true},
	{"keep_deleted_cells", 'b', 0, 0, true},
	{"compression", 'z', 0, 0, true},
	{"bloom_filter", 's', 0, 0, true},
	{"block_size", 'i', 1024, 16 * 1024 * 1024, true},
	{"salt_buckets", 'i', 0, 256, true},
	{"interleave_in_parent", 's', 0, 0, true},
	{"interleave_on_delete", 's', 0, 0, true},
	{"key_order", 's', 0, 0, true},
	{"retention", 'i', 0, INT64_MAX, true},
};

static char *opt_value(pnode *arg)
{
	if (!arg)
		return ty_strdup("true");
	switch (arg->node_case) {
	case PG_QUERY__NODE__NODE_STRING: return ty_strdup(arg->string->sval);
	case PG_QUERY__NODE__NODE_INTEGER: {
		char b[32];
		snprintf(b, sizeof b, "%d", arg->integer->ival);
		return ty_strdup(b);
	}
	case PG_QUERY__NODE__NODE_FLOAT: return ty_strdup(arg->float_->fval);
	case PG_QUERY__NODE__NODE_BOOLEAN: return ty_strdup(arg->boolean->boolval ? "true" : "false");
	case PG_QUERY__NODE__NODE_TYPE_NAME: return ty_strdup(sql_last_name(arg->type_name->names, arg->type_name->n_names));
	default: return ty_strdup("");
	}
}

static void check_opt(const relopt *ro, const char *v)
{
	char *end;
	switch (ro->kind) {
	case 'i': {
		long long x = strtoll(v, &end, 10);
		if (*end || end == v)
			ty_error(UTIL_E_INVALID_PARAMETER_VALUE, "invalid value for integer option \"%s\": %s", ro->name, v);
		if (x < ro->min || x > ro->max) {
			util_err *e = ty_errstart(UTIL_E_INVALID_PARAMETER_VALUE, "value %s out of bounds for option \"%s\"", v, ro->name);
			util_err_detail(e, "Valid values are between \"%lld\" and \"%lld\".", (long long)ro->min, (long long)ro->max);
			ty_errthrow();
		}
		return;
	}
	case 'r': {
		double x = strtod(v, &end);
		if (*end || end == v)
			ty_error(UTIL_E_INVALID_PARAMETER_VALUE, "invalid value for floating point option \"%s\": %s", ro->name, v);
		if (x < (double)ro->min || x > (double)ro->max)
			ty_error(UTIL_E_INVALID_PARAMETER_VALUE, "value %s out of bounds for option \"%s\"", v, ro->name);
		return;
	}
	case 'b':
		if (util_strcasecmp(v, "true") && util_strcasecmp(v, "false") && util_strcasecmp(v, "on") &&
		    util_strcasecmp(v, "off") && strcmp(v, "1") && strcmp(v, "0"))
			ty_error(UTIL_E_INVALID_PARAMETER_VALUE, "invalid value for boolean option \"%s\": %s", ro->name, v);
		return;
	case 'z':
		if (util_strcasecmp(v, "none") && util_strcasecmp(v, "zstd") &&
		    !(strncmp(v, "zstd:", 5) == 0 && atoi(v + 5) >= 1 && atoi(v + 5) <= 19))
			ty_error(UTIL_E_INVALID_PARAMETER_VALUE, "invalid value for option \"compression\": %s (use none, zstd or zstd:LEVEL)", v);
		return;
	default:
		if (!strcmp(ro->name, "bloom_filter") && util_strcasecmp(v, "none") && util_strcasecmp(v, "row") &&
		    util_strcasecmp(v, "rowcol"))
			ty_error(UTIL_E_INVALID_PARAMETER_VALUE, "invalid value for option \"bloom_filter\": %s (use none, row or rowcol)", v);
		if (!strcmp(ro->name, "key_order") && util_strcasecmp(v, "asc") && util_strcasecmp(v, "desc"))
			ty_error(UTIL_E_INVALID_PARAMETER_VALUE, "invalid value for option \"key_order\": %s (use asc or desc)", v);
		return;
	}
}

void sql_apply_reloptions(sql_session *s, cat_obj *o, PgQuery__Node **opts, size_t n)
{
	(void)s;
	cat_rel *r = &o->rel;
	for (size_t i = 0; i < n; i++) {
		PgQuery__DefElem *d = opts[i]->def_elem;
		const char *name = d->defname;
		if (d->defnamespace && *d->defnamespace && strcmp(d->defnamespace, "toast"))
			ty_error(UTIL_E_INVALID_PARAMETER_VALUE, "unrecognized parameter namespace \"%s\"", d->defnamespace);
		const relopt *ro = NULL;
		for (size_t k = 0; k < UTIL_ARRAY_LEN(reloptions); k++)
			if (!strcmp(reloptions[k].name, name))
				ro = &reloptions[k];
		if (!ro && !(d->defnamespace && *d->defnamespace))
			ty_error(UTIL_E_INVALID_PARAMETER_VALUE, "unrecognized parameter \"%s\"", name);
		char *v = opt_value(d->arg);
		if (ro)
			check_opt(ro, v);
		/* Replace an existing value. */
		bool done = false;
		for (int k = 0; k < r->nopts; k++)
			if (!strcmp(r->opts[k].name, name)) {
				r->opts[k].value = cat_obj_strdup(o, v);
				done = true;
			}
		if (done)
			continue;
		cat_reloption *no = cat_obj_alloc(o, sizeof(cat_reloption) * (size_t)(r->nopts + 1));
		if (r->nopts)
			memcpy(no, r->opts, sizeof(cat_reloption) * (size_t)r->nopts);
		no[r->nopts].name = cat_obj_strdup(o, name);
		no[r->nopts].value = cat_obj_strdup(o, v);
		r->opts = no;
		r->nopts++;
		if (!strcmp(name, "salt_buckets"))
			r->salt_buckets = atoi(v);
		if (!strcmp(name, "key_order") && !util_strcasecmp(v, "desc") && r->npk)
			for (int k = 0; k < r->npk; k++)
				r->pk_desc[k] = true;
	}
}

ty_datum sql_reloptions_array(const cat_rel *r)
{
	if (!r->nopts)
		return ty_null();
	ty_datum *vals = ty_alloc(sizeof(ty_datum) * (size_t)r->nopts);
	for (int i = 0; i < r->nopts; i++) {
		char *b = ty_alloc(strlen(r->opts[i].name) + strlen(r->opts[i].value) + 2);
		sprintf(b, "%s=%s", r->opts[i].name, r->opts[i].value);
		vals[i] = ty_text(b);
	}
	return sql_make_text_array(vals, r->nopts);
}

/* ---------------------------------------------------------------- foreign keys */

void sql_fk_resolve(sql_session *s, cat_snap *cs, const cat_rel *r, cat_oid self_oid, cat_constraint *c,
		    PgQuery__Constraint *con, cat_obj *owner)
{
	PgQuery__RangeVar *rv = con->pktable;
	const cat_obj *ref = NULL;
	const cat_rel *rr;
	bool self = !strcmp(rv->relname, r->name) &&
		    (!rv->schemaname || !*rv->schemaname || !strcmp(rv->schemaname, sql_schema_name(cs, r->schema)));
	if (self) {
		rr = r;
	} else {
		ref = must_rel(s, cs, rv, false);
		if (ref->rel.relkind != CAT_RELKIND_TABLE)
			ty_error(UTIL_E_WRONG_OBJECT_TYPE, "referenced relation \"%s\" is not a table", ref->rel.name);
		rr = &ref->rel;
	}
	c->ref_table = self ? self_oid : ref->oid;
	c->ref_cols = cat_obj_alloc(owner, sizeof(int16_t) * (size_t)(c->ncols ? c->ncols : 1));
	if (con->n_pk_attrs) {
		if ((int)con->n_pk_attrs != c->ncols)
			ty_error(UTIL_E_INVALID_FOREIGN_KEY, "number of referencing and referenced columns for foreign key disagree");
		for (size_t i = 0; i < con->n_pk_attrs; i++) {
			const cat_column *col = cat_column_by_name(rr, str_of(con->pk_attrs[i]));
			if (!col)
				ty_error(UTIL_E_UNDEFINED_COLUMN, "column \"%s\" referenced in foreign key constraint does not exist",
					 str_of(con->pk_attrs[i]));
			c->ref_cols[i] = col->attnum;
		}
	} else {
		/* The referenced table's primary key. */
		const cat_constraint *pk = NULL;
		for (int i = 0; i < rr->ncons; i++)
			if (rr->cons[i].type == 'p')
				pk = &rr->cons[i];
		if (!pk)
			ty_error(UTIL_E_UNDEFINED_OBJECT, "there is no primary key for referenced table \"%s\"", rr->name);
		if (pk->ncols != c->ncols)
			ty_error(UTIL_E_INVALID_FOREIGN_KEY, "number of referencing and referenced columns for foreign key disagree");
		for (int i = 0; i < c->ncols; i++)
			c->ref_cols[i] = pk->cols[i];
	}
	/* The referenced columns must carry a primary key or unique constraint. */
	bool unique = false;
	for (int i = 0; i < rr->ncons && !unique; i++) {
		const cat_constraint *k = &rr->cons[i];
		if ((k->type != 'p' && k->type != 'u') || k->ncols != c->ncols)
			continue;
		bool all = true;
		for (int a = 0; a < k->ncols && all; a++) {
			bool f = false;
			for (int b = 0; b < c->ncols; b++)
				f |= k->cols[a] == c->ref_cols[b];
			all = f;
		}
		unique = all;
	}
	if (!unique)
		ty_error(UTIL_E_INVALID_FOREIGN_KEY, "there is no unique constraint matching given keys for referenced table \"%s\"",
			 rr->name);
	for (int i = 0; i < c->ncols; i++) {
		const cat_column *a = cat_column_by_attnum(r, c->cols[i]);
		const cat_column *b = cat_column_by_attnum(rr, c->ref_cols[i]);
		if (a->type != b->type && !sql_can_coerce(a->type, b->type, SQL_COERCE_IMPLICIT)) {
			util_buf ta = UTIL_BUF_INIT, tb = UTIL_BUF_INIT;
			ty_format_type(a->type, -1, &ta);
			ty_format_type(b->type, -1, &tb);
			util_err *e = ty_errstart(UTIL_E_DATATYPE_MISMATCH, "foreign key constraint \"%s\" cannot be implemented",
						  c->name[0] ? c->name : "?");
			util_err_detail(e, "Key columns \"%s\" and \"%s\" are of incompatible types: %s and %s.", a->name, b->name,
					ta.data, tb.data);
			util_buf_free(&ta);
			util_buf_free(&tb);
			ty_errthrow();
		}
	}
}

/* ---------------------------------------------------------------- views */

typedef struct rv_walk {
	sql_session *s;
	cat_snap *cs;
	cat_oid target;
	bool found;
} rv_walk;

/* Walks every RangeVar in a raw parse tree (protobuf-c reflection). */
static void walk_msg(const ProtobufCMessage *m, rv_walk *w)
{
	if (!m || w->found)
		return;
	if (m->descriptor == &pg_query__range_var__descriptor) {
		const PgQuery__RangeVar *rv = (const PgQuery__RangeVar *)m;
		const cat_obj *o = sql_lookup_rel_name(w->s, w->cs, rv->schemaname && *rv->schemaname ? rv->schemaname : NULL,
						       rv->relname);
		if (o && o->oid == w->target)
			w->found = true;
		return;
	}
	const ProtobufCMessageDescriptor *d = m->descriptor;
	for (unsigned i = 0; i < d->n_fields; i++) {
		const ProtobufCFieldDescriptor *f = &d->fields[i];
		if (f->type != PROTOBUF_C_TYPE_MESSAGE)
			continue;
		const char *base = (const char *)m;
		if (f->label == PROTOBUF_C_LABEL_REPEATED) {
			size_t n = *(const size_t *)(base + f->quantifier_offset);
			ProtobufCMessage *const *arr = *(ProtobufCMessage *const *const *)(base + f->offset);
			for (size_t k = 0; k < n; k++)
				walk_msg(arr[k], w);
		} else {
			if (f->flags & PROTOBUF_C_FIELD_FLAG_ONEOF) {
				uint32_t which = *(const uint32_t *)(base + f->quantifier_offset);
				if (which != f->id)
					continue;
			}
			walk_msg(*(ProtobufCMessage *const *)(base + f->offset), w);
		}
	}
}

bool sql_view_depends_on(sql_session *s, const cat_obj *view, cat_oid rel)
{
	util_err err;
	PgQuery__ParseResult *pr = sql_parse_text(view->rel.view_sql, &err);
	if (!pr)
		return false;
	rv_walk w = {s, s->txn && s->txn->ddl ? cat_txn_snap(s->txn->ddl) : s->cat, rel, false};
	walk_msg(&pr->base, &w);
	pg_query__parse_result__free_unpacked(pr, NULL);
	return w.found;
}

void sql_ddl_create_view(sql_session *s, PgQuery__ViewStmt *st, const char *text)
{
	cat_txn *ct = sql_txn_ddl(s->txn);
	cat_snap *cs = cat_txn_snap(ct);
	PgQuery__RangeVar *rv = st->view;
	cat_oid schema = sql_creation_schema(s, cs, rv->schemaname, rv->location);
	const cat_obj *old = cat_rel_by_name(cs, schema, rv->relname);
	if (old && !st->replace)
		ty_error(UTIL_E_DUPLICATE_TABLE, "relation \"%s\" already exists", rv->relname);
	if (old && old->rel.relkind != CAT_RELKIND_VIEW)
		ty_error(UTIL_E_WRONG_OBJECT_TYPE, "\"%s\" is not a view", rv->relname);
	/* Analyze the body now: errors surface at CREATE VIEW, and the columns
	 * are fixed. */
	sql_pstate ps = {.text = text};
	sql_actx ax = {s, cs, ty_get_arena(), &ps};
	sql_query *q = sql_analyze_select(&ax, st->query->select_stmt, NULL, NULL, 0);
	if (st->n_aliases > (size_t)q->nret)
		ty_error(UTIL_E_SYNTAX_ERROR, "CREATE VIEW specifies more column names than columns");
	cat_obj *o = cat_obj_new(CAT_REL, old ? old->oid : new_oid(s), s->db_oid);
	cat_rel *r = &o->rel;
	r->relkind = CAT_RELKIND_VIEW;
	r->schema = schema;
	r->owner = s->user_oid;
	snprintf(r->name, sizeof r->name, "%s", rv->relname);
	r->ncols = q->nret;
	r->cols = cat_obj_alloc(o, sizeof(cat_column) * (size_t)(q->nret ? q->nret : 1));
	int k = 0;
	for (int i = 0; i < q->ntargets; i++) {
		if (q->targets[i].junk)
			continue;
		cat_column *c = &r->cols[k];
		const char *name = (size_t)k < st->n_aliases ? str_of(st->aliases[k]) : q->targets[i].name;
		for (int x = 0; x < k; x++)
			if (!strcmp(r->cols[x].name, name))
				ty_error(UTIL_E_DUPLICATE_COLUMN, "column \"%s\" specified more than once", name);
		snprintf(c->name, sizeof c->name, "%s", name);
		c->attnum = (int16_t)(k + 1);
		c->col_id = (uint16_t)(k + 1);
		c->type = q->targets[i].expr->type;
		c->typmod = q->targets[i].expr->typmod;
		k++;
	}
	if (old) {
		/* CREATE OR REPLACE may only add columns at the end. */
		for (int i = 0; i < old->rel.ncols; i++) {
			if (i >= r->ncols)
				ty_error(UTIL_E_INVALID_TABLE_DEFINITION, "cannot drop columns from view");
			if (strcmp(old->rel.cols[i].name, r->cols[i].name))
				ty_error(UTIL_E_INVALID_TABLE_DEFINITION, "cannot change name of view column \"%s\" to \"%s\"",
					 old->rel.cols[i].name, r->cols[i].name);
			if (old->rel.cols[i].type != r->cols[i].type)
				ty_error(UTIL_E_INVALID_TABLE_DEFINITION, "cannot change data type of view column \"%s\"",
					 r->cols[i].name);
		}
		r->comment = cat_obj_strdup(o, old->rel.comment);
	}
	r->next_col_id = (uint16_t)(k + 1);
	r->view_sql = cat_obj_strdup(o, sql_deparse_stmt(st->query));
	/* Column aliases become part of the stored query's output names. */
	if (st->n_aliases) {
		util_buf b = UTIL_BUF_INIT;
		util_buf_puts(&b, "SELECT * FROM (");
		util_buf_puts(&b, r->view_sql);
		util_buf_puts(&b, ") AS ");
		util_buf_puts(&b, "v(");
		for (size_t i = 0; i < st->n_aliases; i++) {
			if (i)
				util_buf_puts(&b, ", ");
			sql_quote_ident(str_of(st->aliases[i]), &b);
		}
		util_buf_puts(&b, ")");
		r->view_sql = cat_obj_strdup(o, b.data);
		util_buf_free(&b);
	}
	sql_apply_reloptions(s, o, st->options, st->n_options);
	cat_txn_put(ct, o);
}

/* ---------------------------------------------------------------- TRUNCATE */

void sql_ddl_truncate(sql_session *s, PgQuery__TruncateStmt *st)
{
	cat_txn *ct = sql_txn_ddl(s->txn);
	for (size_t i = 0; i < st->n_relations; i++) {
		PgQuery__RangeVar *rv = st->relations[i]->range_var;
		const cat_obj *o = must_rel(s, cat_txn_snap(ct), rv, false);
		if (o->rel.relkind != CAT_RELKIND_TABLE)
			ty_error(UTIL_E_WRONG_OBJECT_TYPE, "\"%s\" is not a table", o->rel.name);
		if (o->rel.ilv_depth || o->rel.ilv_nchildren)
			ty_error(UTIL_E_FEATURE_NOT_SUPPORTED, "TRUNCATE of interleaved table \"%s\" is not supported; use DELETE",
				 o->rel.name);
		/* Referenced by a foreign key from another table? */
		cat_obj *c = cat_obj_copy(o);
		/* A fresh storage generation: O(1), transactional. */
		const char *dot = strrchr(o->rel.storage, '.');
		int gen = dot ? atoi(dot + 1) : 1;
		snprintf(c->rel.storage, sizeof c->rel.storage, "r%u.%d", o->oid, gen + 1);
		sql_create_storage(s, s->txn, c->rel.storage);
		sql_txn_drop_storage_after_commit(s->txn, o->rel.storage);
		for (int k = 0; k < o->rel.nindexes; k++) {
			const cat_obj *ix = cat_get(cat_txn_snap(ct), o->rel.indexes[k]);
			if (!ix)
				continue;
			cat_obj *nx = cat_obj_copy(ix);
			const char *d2 = strrchr(ix->rel.storage, '.');
			int g2 = d2 ? atoi(d2 + 1) : 1;
			snprintf(nx->rel.storage, sizeof nx->rel.storage, "i%u.%d", ix->oid, g2 + 1);
			sql_create_storage(s, s->txn, nx->rel.storage);
			sql_txn_drop_storage_after_commit(s->txn, ix->rel.storage);
			cat_txn_put(ct, nx);
		}
		cat_txn_put(ct, c);
		if (st->restart_seqs)
			for (int k = 0; k < o->rel.ncols; k++)
				(void)k;
	}
}

/* ---------------------------------------------------------------- COMMENT */

void sql_ddl_comment(sql_session *s, PgQuery__CommentStmt *st)
{
	cat_txn *ct = sql_txn_ddl(s->txn);
	cat_snap *cs = cat_txn_snap(ct);
	const char *text = st->comment && *st->comment ? st->comment : NULL;
	switch (st->objtype) {
	case PG_QUERY__OBJECT_TYPE__OBJECT_TABLE:
	case PG_QUERY__OBJECT_TYPE__OBJECT_VIEW:
	case PG_QUERY__OBJECT_TYPE__OBJECT_SEQUENCE:
	case PG_QUERY__OBJECT_TYPE__OBJECT_INDEX:
	case PG_QUERY__OBJECT_TYPE__OBJECT_COLUMN: {
		PgQuery__List *l = st->object->list;
		int n = (int)l->n_items;
		bool col = st->objtype == PG_QUERY__OBJECT_TYPE__OBJECT_COLUMN;
		const char *colname = col ? str_of(l->items[n - 1]) : NULL;
		int tn = col ? n - 1 : n;
		const char *schema = tn > 1 ? str_of(l->items[tn - 2]) : NULL;
		const char *name = str_of(l->items[tn - 1]);
		const cat_obj *o = sql_lookup_rel_name(s, cs, schema, name);
		if (!o)
			ty_error(UTIL_E_UNDEFINED_TABLE, "relation \"%s\" does not exist", name);
		cat_obj *c = cat_obj_copy(o);
		if (col) {
			cat_column *cc = (cat_column *)cat_column_by_name(&c->rel, colname);
			if (!cc)
				ty_error(UTIL_E_UNDEFINED_COLUMN, "column \"%s\" of relation \"%s\" does not exist", colname, name);
			cc->comment = cat_obj_strdup(c, text);
		} else {
			c->rel.comment = cat_obj_strdup(c, text);
		}
		cat_txn_put(ct, c);
		return;
	}
	case PG_QUERY__OBJECT_TYPE__OBJECT_SCHEMA: {
		const cat_obj *o = sql_lookup_schema(s, cs, str_of(st->object));
		if (!o)
			ty_error(UTIL_E_INVALID_SCHEMA_NAME, "schema \"%s\" does not exist", str_of(st->object));
		cat_obj *c = cat_obj_copy(o);
		c->schema.comment = cat_obj_strdup(c, text);
		cat_txn_put(ct, c);
		return;
	}
	case PG_QUERY__OBJECT_TYPE__OBJECT_DATABASE: {
		const cat_obj *o = cat_database_by_name(cs, str_of(st->object));
		if (!o)
			ty_error(UTIL_E_INVALID_CATALOG_NAME, "database \"%s\" does not exist", str_of(st->object));
		cat_obj *c = cat_obj_copy(o);
		c->db.comment = cat_obj_strdup(c, text);
		cat_txn_put(ct, c);
		return;
	}
	case PG_QUERY__OBJECT_TYPE__OBJECT_ROLE: {
		const cat_obj *o = cat_role_by_name(cs, str_of(st->object));
		if (!o)
			ty_error(UTIL_E_UNDEFINED_OBJECT, "role \"%s\" does not exist", str_of(st->object));
		cat_obj *c = cat_obj_copy(o);
		c->role.comment = cat_obj_strdup(c, text);
		cat_txn_put(ct, c);
		return;
	}
	case PG_QUERY__OBJECT_TYPE__OBJECT_TABCONSTRAINT: {
		PgQuery__List *l = st->object->list;
		int n = (int)l->n_items;
		const char *conname = str_of(l->items[n - 1]);
		const char *schema = n > 2 ? str_of(l->items[n - 3]) : NULL;
		const char *name = str_of(l->items[n - 2]);
		const cat_obj *o = sql_lookup_rel_name(s, cs, schema, name);
		if (!o)
			ty_error(UTIL_E_UNDEFINED_TABLE, "relation \"%s\" does not exist", name);
		cat_obj *c = cat_obj_copy(o);
		cat_constraint *k = (cat_constraint *)cat_constraint_by_name(&c->rel, conname);
		if (!k)
			ty_error(UTIL_E_UNDEFINED_OBJECT, "constraint \"%s\" for table \"%s\" does not exist", conname, name);
		k->comment = cat_obj_strdup(c, text);
		cat_txn_put(ct, c);
		return;
	}
	default:
		ty_error(UTIL_E_FEATURE_NOT_SUPPORTED, "COMMENT on this kind of object is not supported");
	}
}

/* ---------------------------------------------------------------- ALTER SEQUENCE */

void sql_ddl_alter_sequence(sql_session *s, PgQuery__AlterSeqStmt *st)
{
	cat_txn *ct = sql_txn_ddl(s->txn);
	const cat_obj *o = must_rel(s, cat_txn_snap(ct), st->sequence, st->missing_ok);
	if (!o) {
		sql_notice(s, UTIL_E_SUCCESSFUL_COMPLETION, "relation \"%s\" does not exist, skipping", st->sequence->relname);
		return;
	}
	if (o->rel.relkind != CAT_RELKIND_SEQUENCE)
		ty_error(UTIL_E_WRONG_OBJECT_TYPE, "\"%s\" is not a sequence", o->rel.name);
	cat_obj *c = cat_obj_copy(o);
	sql_seq_options(s, c->rel.seq, st->options, st->n_options, false);
	if (c->rel.seq->restart_requested) {
		c->rel.seq->restart_requested = false;
		sql_setval(s, o->oid, c->rel.seq->restart_value, false);
	}
	cat_txn_put(ct, c);
}

/* ---------------------------------------------------------------- RENAME */

void sql_ddl_rename(sql_session *s, PgQuery__RenameStmt *st)
{
	cat_txn *ct = sql_txn_ddl(s->txn);
	cat_snap *cs = cat_txn_snap(ct);
	switch (st->rename_type) {
	case PG_QUERY__OBJECT_TYPE__OBJECT_TABLE:
	case PG_QUERY__OBJECT_TYPE__OBJECT_VIEW:
	case PG_QUERY__OBJECT_TYPE__OBJECT_SEQUENCE:
	case PG_QUERY__OBJECT_TYPE__OBJECT_INDEX: {
		const cat_obj *o = must_rel(s, cs, st->relation, st->missing_ok);
		if (!o) {
			sql_notice(s, UTIL_E_SUCCESSFUL_COMPLETION, "relation \"%s\" does not exist, skipping", st->relation->relname);
			return;
		}
		if (cat_rel_by_name(cs, o->rel.schema, st->newname))
			ty_error(UTIL_E_DUPLICATE_TABLE, "relation \"%s\" already exists", st->newname);
		cat_obj *c = cat_obj_copy(o);
		snprintf(c->rel.name, sizeof c->rel.name, "%s", st->newname);
		cat_txn_put(ct, c);
		return;
	}
	case PG_QUERY__OBJECT_TYPE__OBJECT_COLUMN: {
		const cat_obj *o = must_rel(s, cs, st->relation, st->missing_ok);
		if (!o)
			return;
		cat_obj *c = cat_obj_copy(o);
		cat_column *col = (cat_column *)cat_column_by_name(&c->rel, st->subname);
		if (!col)
			ty_error(UTIL_E_UNDEFINED_COLUMN, "column \"%s\" does not exist", st->subname);
		if (cat_column_by_name(&c->rel, st->newname))
			ty_error(UTIL_E_DUPLICATE_COLUMN, "column \"%s\" of relation \"%s\" already exists", st->newname, o->rel.name);
		snprintf(col->name, sizeof col->name, "%s", st->newname);
		cat_txn_put(ct, c);
		return;
	}
	case PG_QUERY__OBJECT_TYPE__OBJECT_TABCONSTRAINT: {
		const cat_obj *o = must_rel(s, cs, st->relation, st->missing_ok);
		if (!o)
			return;
		cat_obj *c = cat_obj_copy(o);
		cat_constraint *k = (cat_constraint *)cat_constraint_by_name(&c->rel, st->subname);
		if (!k)
			ty_error(UTIL_E_UNDEFINED_OBJECT, "constraint \"%s\" for table \"%s\" does not exist", st->subname, o->rel.name);
		snprintf(k->name, sizeof k->name, "%s", st->newname);
		cat_txn_put(ct, c);
		return;
	}
	case PG_QUERY__OBJECT_TYPE__OBJECT_SCHEMA: {
		const cat_obj *o = sql_lookup_schema(s, cs, st->subname);
		if (!o)
			ty_error(UTIL_E_INVALID_SCHEMA_NAME, "schema \"%s\" does not exist", st->subname);
		if (sql_lookup_schema(s, cs, st->newname))
			ty_error(UTIL_E_DUPLICATE_SCHEMA, "schema \"%s\" already exists", st->newname);
		cat_obj *c = cat_obj_copy(o);
		snprintf(c->schema.name, sizeof c->schema.name, "%s", st->newname);
		cat_txn_put(ct, c);
		return;
	}
	default:
		ty_error(UTIL_E_FEATURE_NOT_SUPPORTED, "this kind of RENAME is not supported");
	}
}

/* ---------------------------------------------------------------- CREATE TABLE AS */

void sql_ddl_create_table_as(sql_session *s, PgQuery__CreateTableAsStmt *st, const char *text, sql_complete *c)
{
	sql_ctas(s, st, text, c);
}

/* ---------------------------------------------------------------- roles */

static void role_options(sql_session *s, cat_obj *o, PgQuery__Node **opts, size_t n)
{
	cat_role *r = &o->role;
	for (size_t i = 0; i < n; i++) {
		PgQuery__DefElem *d = opts[i]->def_elem;
		const char *k = d->defname;
		bool b = d->arg && d->arg->node_case == PG_QUERY__NODE__NODE_BOOLEAN ? d->arg->boolean->boolval
			 : d->arg && d->arg->node_case == PG_QUERY__NODE__NODE_INTEGER ? d->arg->integer->ival != 0
											: true;
		if (!strcmp(k, "superuser")) {
			if (!s->superuser)
				ty_error(UTIL_E_INSUFFICIENT_PRIVILEGE, "must be superuser to create superusers");
			r->superuser = b;
		} else if (!strcmp(k, "createrole"))
			r->createrole = b;
		else if (!strcmp(k, "createdb"))
			r->createdb = b;
		else if (!strcmp(k, "canlogin"))
			r->login = b;
		else if (!strcmp(k, "inherit"))
			r->inherit = b;
		else if (!strcmp(k, "isreplication"))
			r->replication = b;
		else if (!strcmp(k, "bypassrls"))
			r->bypassrls = b;
		else if (!strcmp(k, "connectionlimit")) {
			bool ok;
			r->conn_limit = (int)sql_def_int(d->arg, &ok);
		} else if (!strcmp(k, "password")) {
			if (!d->arg)
				r->password = NULL;
			else {
				const char *pw = str_of(d->arg);
				/* Already a SCRAM or md5 secret: kept as given (pg_dump). */
				if (!strncmp(pw, "SCRAM-SHA-256$", 14) || (!strncmp(pw, "md5", 3) && strlen(pw) == 35))
					r->password = cat_obj_strdup(o, pw);
				else if (sql_current_session() &&
					 !strcmp(sql_guc_get(sql_current_session(), "password_encryption"), "md5")) {
					char md5[UTIL_MD5_PASSWORD_LEN];
					util_md5_password(pw, r->name, md5);
					r->password = cat_obj_strdup(o, md5);
				} else {
					char secret[UTIL_SCRAM_SECRET_MAX];
					if (util_scram_secret(pw, 0, secret) != 0)
						ty_error(UTIL_E_INTERNAL_ERROR, "could not build password secret");
					r->password = cat_obj_strdup(o, secret);
				}
			}
		} else if (!strcmp(k, "validUntil")) {
			const char *v = str_of(d->arg);
			ty_datum t = ty_input(TY_TIMESTAMPTZ, v, strlen(v), -1);
			r->valid_until = t.i + 946684800000000LL;
		} else if (!strcmp(k, "addroleto") || !strcmp(k, "rolemembers") || !strcmp(k, "adminmembers")) {
			/* membership lists: IN ROLE / ROLE / ADMIN */
		} else {
			ty_error(UTIL_E_SYNTAX_ERROR, "unrecognized role option \"%s\"", k);
		}
	}
}

void sql_ddl_role(sql_session *s, pnode *n)
{
	cat_txn *ct = sql_txn_ddl(s->txn);
	cat_snap *cs = cat_txn_snap(ct);
	if (n->node_case == PG_QUERY__NODE__NODE_CREATE_ROLE_STMT) {
		PgQuery__CreateRoleStmt *st = n->create_role_stmt;
		if (!s->superuser)
			ty_error(UTIL_E_INSUFFICIENT_PRIVILEGE, "permission denied to create role");
		if (cat_role_by_name(cs, st->role))
			ty_error(UTIL_E_DUPLICATE_OBJECT, "role \"%s\" already exists", st->role);
		if (!strncmp(st->role, "pg_", 3)) {
			util_err *e = ty_errstart(UTIL_E_RESERVED_NAME, "role name \"%s\" is reserved", st->role);
			util_err_detail(e, "Role names starting with \"pg_\" are reserved.");
			ty_errthrow();
		}
		cat_obj *o = cat_obj_new(CAT_ROLE, new_oid(s), 0);
		snprintf(o->role.name, sizeof o->role.name, "%s", st->role);
		o->role.inherit = true;
		o->role.conn_limit = -1;
		o->role.login = st->stmt_type == PG_QUERY__ROLE_STMT_TYPE__ROLESTMT_USER;
		role_options(s, o, st->options, st->n_options);
		cat_txn_put(ct, o);
		return;
	}
	if (n->node_case == PG_QUERY__NODE__NODE_ALTER_ROLE_STMT) {
		PgQuery__AlterRoleStmt *st = n->alter_role_stmt;
		const char *name = st->role->rolename;
		if (st->role->roletype == PG_QUERY__ROLE_SPEC_TYPE__ROLESPEC_CURRENT_USER ||
		    st->role->roletype == PG_QUERY__ROLE_SPEC_TYPE__ROLESPEC_SESSION_USER)
			name = s->user;
		const cat_obj *o = cat_role_by_name(cs, name);
		if (!o)
			ty_error(UTIL_E_UNDEFINED_OBJECT, "role \"%s\" does not exist", name);
		if (!s->superuser && o->oid != s->user_oid)
			ty_error(UTIL_E_INSUFFICIENT_PRIVILEGE, "permission denied");
		cat_obj *c = cat_obj_copy(o);
		role_options(s, c, st->options, st->n_options);
		cat_txn_put(ct, c);
		return;
	}
	PgQuery__DropRoleStmt *st = n->drop_role_stmt;
	if (!s->superuser)
		ty_error(UTIL_E_INSUFFICIENT_PRIVILEGE, "permission denied to drop role");
	for (size_t i = 0; i < st->n_roles; i++) {
		const char *name = st->roles[i]->role_spec->rolename;
		const cat_obj *o = cat_role_by_name(cs, name);
		if (!o) {
			if (st->missing_ok) {
				sql_notice(s, UTIL_E_SUCCESSFUL_COMPLETION, "role \"%s\" does not exist, skipping", name);
				continue;
			}
			ty_error(UTIL_E_UNDEFINED_OBJECT, "role \"%s\" does not exist", name);
		}
		if (o->oid == s->user_oid)
			ty_error(UTIL_E_OBJECT_IN_USE, "current user cannot be dropped");
		if (o->oid == CAT_OID_POSTGRES_ROLE)
			ty_error(UTIL_E_OBJECT_IN_USE, "cannot drop role %s because it is required by the database system", name);
		cat_txn_delete(ct, o->oid);
	}
}

/* ---------------------------------------------------------------- databases */

void sql_ddl_database(sql_session *s, pnode *n)
{
	if (s->txn_state != SQL_TXN_IDLE || s->implicit_block)
		ty_error(UTIL_E_ACTIVE_SQL_TRANSACTION, "%s cannot run inside a transaction block", sql_command_tag(n));
	cat_txn *ct = sql_txn_ddl(s->txn);
	cat_snap *cs = cat_txn_snap(ct);
	if (n->node_case == PG_QUERY__NODE__NODE_CREATEDB_STMT) {
		const char *name = n->createdb_stmt->dbname;
		if (cat_database_by_name(cs, name))
			ty_error(UTIL_E_DUPLICATE_DATABASE, "database \"%s\" already exists", name);
		cat_obj *o = cat_obj_new(CAT_DATABASE, new_oid(s), 0);
		snprintf(o->db.name, sizeof o->db.name, "%s", name);
		o->db.owner = s->user_oid;
		o->db.allow_connections = true;
		o->db.conn_limit = -1;
		cat_txn_put(ct, o);
		cat_obj *pub = cat_obj_new(CAT_SCHEMA, new_oid(s), o->oid);
		snprintf(pub->schema.name, sizeof pub->schema.name, "public");
		pub->schema.owner = 6171;
		pub->schema.comment = cat_obj_strdup(pub, "standard public schema");
		cat_txn_put(ct, pub);
		return;
	}
	PgQuery__DropdbStmt *st = n->dropdb_stmt;
	const cat_obj *o = cat_database_by_name(cs, st->dbname);
	if (!o) {
		if (st->missing_ok) {
			sql_notice(s, UTIL_E_SUCCESSFUL_COMPLETION, "database \"%s\" does not exist, skipping", st->dbname);
			return;
		}
		ty_error(UTIL_E_INVALID_CATALOG_NAME, "database \"%s\" does not exist", st->dbname);
	}
	if (o->oid == s->db_oid)
		ty_error(UTIL_E_OBJECT_IN_USE, "cannot drop the currently open database");
	if (o->oid == CAT_OID_TEMPLATE1 || o->oid == 4)
		ty_error(UTIL_E_OBJECT_IN_USE, "cannot drop a template database");
	/* Everything that belongs to the database goes with it. */
	sql_drop_database_objects(s, ct, o->oid);
	cat_txn_delete(ct, o->oid);
}
