/*
 * ddl_misc.c — the smaller DDL statements: views, CREATE TABLE AS,
 * TRUNCATE, COMMENT ON, ALTER SEQUENCE, RENAME, roles and databases,
 * reloptions, foreign-key resolution at CREATE TABLE, and view
 * dependencies for DROP.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ddl_int.h"

static const char *str_of(pnode *n)
{
	return n && n->node_case == PG_QUERY__NODE__NODE_STRING ? n->string->sval : NULL;
}

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
    {"row_format", 's', 0, 0, true},
};

static char *opt_value(pnode *arg)
{
	if (!arg)
		return ty_strdup("true");
	switch (arg->node_case) {
	case PG_QUERY__NODE__NODE_STRING:
		return ty_strdup(arg->string->sval);
	case PG_QUERY__NODE__NODE_INTEGER: {
		char b[32];
		snprintf(b, sizeof b, "%d", arg->integer->ival);
		return ty_strdup(b);
	}
	case PG_QUERY__NODE__NODE_FLOAT:
		return ty_strdup(arg->float_->fval);
	case PG_QUERY__NODE__NODE_BOOLEAN:
		return ty_strdup(arg->boolean->boolval ? "true" : "false");
	case PG_QUERY__NODE__NODE_TYPE_NAME:
		return ty_strdup(sql_last_name(arg->type_name->names, arg->type_name->n_names));
	default:
		return ty_strdup("");
	}
}

static void check_opt(const relopt *ro, const char *v)
{
	char *end;
	switch (ro->kind) {
	case 'i': {
		long long x = strtoll(v, &end, 10);
		if (*end || end == v)
			ty_error(UTIL_E_INVALID_PARAMETER_VALUE,
				 "invalid value for integer option \"%s\": %s", ro->name, v);
		if (x < ro->min || x > ro->max) {
			util_err *e = ty_errstart(UTIL_E_INVALID_PARAMETER_VALUE,
						  "value %s out of bounds for option \"%s\"", v, ro->name);
			util_err_detail(e, "Valid values are between \"%lld\" and \"%lld\".",
					(long long)ro->min, (long long)ro->max);
			ty_errthrow();
		}
		return;
	}
	case 'r': {
		double x = strtod(v, &end);
		if (*end || end == v)
			ty_error(UTIL_E_INVALID_PARAMETER_VALUE,
				 "invalid value for floating point option \"%s\": %s", ro->name, v);
		if (x < (double)ro->min || x > (double)ro->max)
			ty_error(UTIL_E_INVALID_PARAMETER_VALUE, "value %s out of bounds for option \"%s\"",
				 v, ro->name);
		return;
	}
	case 'b':
		if (util_strcasecmp(v, "true") && util_strcasecmp(v, "false") && util_strcasecmp(v, "on") &&
		    util_strcasecmp(v, "off") && strcmp(v, "1") && strcmp(v, "0"))
			ty_error(UTIL_E_INVALID_PARAMETER_VALUE,
				 "invalid value for boolean option \"%s\": %s", ro->name, v);
		return;
	case 'z':
		if (util_strcasecmp(v, "none") && util_strcasecmp(v, "zstd") &&
		    !(strncmp(v, "zstd:", 5) == 0 && atoi(v + 5) >= 1 && atoi(v + 5) <= 19))
			ty_error(
			    UTIL_E_INVALID_PARAMETER_VALUE,
			    "invalid value for option \"compression\": %s (use none, zstd or zstd:LEVEL)", v);
		return;
	default:
		if (!strcmp(ro->name, "bloom_filter") && util_strcasecmp(v, "none") &&
		    util_strcasecmp(v, "row") && util_strcasecmp(v, "rowcol"))
			ty_error(UTIL_E_INVALID_PARAMETER_VALUE,
				 "invalid value for option \"bloom_filter\": %s (use none, row or rowcol)",
				 v);
		if (!strcmp(ro->name, "key_order") && util_strcasecmp(v, "asc") && util_strcasecmp(v, "desc"))
			ty_error(UTIL_E_INVALID_PARAMETER_VALUE,
				 "invalid value for option \"key_order\": %s (use asc or desc)", v);
		if (!strcmp(ro->name, "row_format") && util_strcasecmp(v, "cells") &&
		    util_strcasecmp(v, "packed"))
			ty_error(UTIL_E_INVALID_PARAMETER_VALUE,
				 "invalid value for option \"row_format\": %s (use cells or packed)", v);
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
			ty_error(UTIL_E_INVALID_PARAMETER_VALUE, "unrecognized parameter namespace \"%s\"",
				 d->defnamespace);
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
		if (!strcmp(name, "row_format")) {
			r->packed = !util_strcasecmp(v, "packed");
			if (r->relkind != 'r' && r->relkind != 'm')
				ty_error(UTIL_E_INVALID_PARAMETER_VALUE, "unrecognized parameter \"%s\"",
					 name);
		}
		if (!strcmp(name, "salt_buckets")) {
			/* Row keys get a bucket byte (docs/key-encoding.md); 0 = not salted. */
			r->salt_buckets = atoi(v);
			if (r->salt_buckets > 0 && r->relkind != 'r')
				ty_error(UTIL_E_INVALID_PARAMETER_VALUE, "unrecognized parameter \"%s\"", name);
		}
	}
}

void sql_default_salt(sql_session *s, cat_obj *o)
{
	cat_rel *r = &o->rel;
	const char *v = sql_guc_get(s, "strata.default_salt_buckets");
	if (!v || !strcmp(v, "0") || r->relkind != 'r' || cat_rel_option(r, "salt_buckets") ||
	    cat_rel_option(r, "interleave_in_parent"))
		return;
	/* Recorded as if written in WITH (...): pg_dump and \d+ show it. */
	cat_reloption *no = cat_obj_alloc(o, sizeof(cat_reloption) * (size_t)(r->nopts + 1));
	if (r->nopts)
		memcpy(no, r->opts, sizeof(cat_reloption) * (size_t)r->nopts);
	no[r->nopts].name = cat_obj_strdup(o, "salt_buckets");
	no[r->nopts].value = cat_obj_strdup(o, v);
	r->opts = no;
	r->nopts++;
	r->salt_buckets = atoi(v);
}

void sql_default_row_format(sql_session *s, cat_obj *o)
{
	cat_rel *r = &o->rel;
	if ((r->relkind != 'r' && r->relkind != 'm') || cat_rel_option(r, "row_format"))
		return;
	const char *v = sql_guc_get(s, "strata.row_format");
	if (!v || !strcmp(v, "default"))
		v = getenv("STRATA_ROW_FORMAT");
	/* Not an option: \d+ and pg_dump show only one given in WITH (...).
	 * Packed unless asked for cells (docs/row-format.md, "Packed rows"). */
	r->packed = !v || strcmp(v, "cells");
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

/* ---------------------------------------------------------------- views */

typedef struct rv_walk {
	sql_session *s;
	cat_snap *cs;
	cat_oid target;
	bool found;
	cat_txn *collect; /* set: every relation named is a dependency of it */
} rv_walk;

static void note_rel(rv_walk *w, const cat_obj *o)
{
	if (o && w->collect)
		cat_txn_depend(w->collect, o->oid);
	else if (o && o->oid == w->target)
		w->found = true;
}

/* Walks every RangeVar and regclass literal in a raw parse tree
 * (protobuf-c reflection). */
static void walk_msg(const ProtobufCMessage *m, rv_walk *w)
{
	if (!m || w->found)
		return;
	if (m->descriptor == &pg_query__range_var__descriptor) {
		const PgQuery__RangeVar *rv = (const PgQuery__RangeVar *)m;
		const cat_obj *o = sql_lookup_rel_name(
		    w->s, w->cs, rv->schemaname && *rv->schemaname ? rv->schemaname : NULL, rv->relname);
		note_rel(w, o);
		return;
	}
	/* nextval('s'), 'r'::regclass: PostgreSQL binds the literal to the
	 * relation, so the view depends on it as on one it reads. */
	note_rel(w, sql_text_regclass_ref(w->s, w->cs, m, NULL));
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
	rv_walk w = {s, s->txn && s->txn->ddl ? cat_txn_snap(s->txn->ddl) : s->cat, rel, false, NULL};
	walk_msg(&pr->base, &w);
	pg_query__parse_result__free_unpacked(pr, NULL);
	return w.found;
}

void sql_ddl_create_view(sql_session *s, PgQuery__ViewStmt *st, const char *text)
{
	cat_txn *ct = sql_txn_ddl(s->txn);
	cat_snap *cs = cat_txn_snap(ct);
	PgQuery__RangeVar *rv = st->view;
	cat_oid schema = sql_ddl_creation_schema(s, cs, rv, NULL); /* no position, as PostgreSQL */
	cs = cat_txn_snap(ct);
	const cat_obj *old = cat_rel_by_name(cs, schema, rv->relname);
	if (old && !st->replace)
		ty_error(UTIL_E_DUPLICATE_TABLE, "relation \"%s\" already exists", rv->relname);
	if (old && old->rel.relkind != CAT_RELKIND_VIEW)
		ty_error(UTIL_E_WRONG_OBJECT_TYPE, "\"%s\" is not a view", rv->relname);
	if (old) {
		sql_ddl_check_owner(s, old);
		sql_rel_lock(s, old->oid, true);
	}
	/* Analyze the body now: errors surface at CREATE VIEW, and the columns
	 * are fixed. */
	sql_pstate ps = {.text = text};
	sql_actx ax = {s, cs, ty_get_arena(), &ps};
	sql_query *q = sql_analyze_select(&ax, st->query->select_stmt, NULL, NULL, 0);
	if (st->n_aliases > (size_t)q->nret)
		ty_error(UTIL_E_SYNTAX_ERROR, "CREATE VIEW specifies more column names than columns");
	/* WITH [LOCAL | CASCADED] CHECK OPTION is the check_option reloption
	 * (as PostgreSQL stores it); only for automatically updatable views. */
	PgQuery__Node **opts = ty_alloc(sizeof(PgQuery__Node *) * (st->n_options + 1));
	size_t nopts = 0;
	const char *check = st->with_check_option == PG_QUERY__VIEW_CHECK_OPTION__LOCAL_CHECK_OPTION ? "local"
			    : st->with_check_option == PG_QUERY__VIEW_CHECK_OPTION__CASCADED_CHECK_OPTION
				? "cascaded"
				: NULL;
	for (size_t i = 0; i < st->n_options; i++) {
		PgQuery__DefElem *d = st->options[i]->def_elem;
		if (!strcmp(d->defname, "check_option") && !(d->defnamespace && *d->defnamespace)) {
			char *v = opt_value(d->arg);
			if (strcmp(v, "local") != 0 && strcmp(v, "cascaded") != 0) {
				util_err *e =
				    ty_errstart(UTIL_E_INVALID_PARAMETER_VALUE,
						"invalid value for enum option \"check_option\": %s", v);
				util_err_detail(e, "Valid values are \"local\" and \"cascaded\".");
				ty_errthrow();
			}
			if (!check)
				check = v;
			continue;
		}
		opts[nopts++] = st->options[i];
	}
	const char *why = check ? sql_view_not_updatable(q) : NULL;
	if (why) {
		util_err *e =
		    ty_errstart(UTIL_E_FEATURE_NOT_SUPPORTED,
				"WITH CHECK OPTION is supported only on automatically updatable views");
		util_err_hint(e, "%s", why);
		ty_errthrow();
	}
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
				ty_error(UTIL_E_DUPLICATE_COLUMN, "column \"%s\" specified more than once",
					 name);
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
				ty_error(UTIL_E_INVALID_TABLE_DEFINITION,
					 "cannot change name of view column \"%s\" to \"%s\"",
					 old->rel.cols[i].name, r->cols[i].name);
			if (old->rel.cols[i].type != r->cols[i].type)
				ty_error(UTIL_E_INVALID_TABLE_DEFINITION,
					 "cannot change data type of view column \"%s\"", r->cols[i].name);
		}
		r->comment = cat_obj_strdup(o, old->rel.comment);
		/* The view stays its owner's, with its privileges. */
		r->owner = old->rel.owner;
		r->nacl = old->rel.nacl;
		r->acl = cat_obj_alloc(o, sizeof(cat_acl) * (size_t)(old->rel.nacl + 1));
		if (old->rel.nacl)
			memcpy(r->acl, old->rel.acl, sizeof(cat_acl) * (size_t)old->rel.nacl);
	}
	r->next_col_id = (uint16_t)(k + 1);
	/* Relations are bound now, as PostgreSQL binds a view's tree at creation:
	 * the stored text names them with their schema. */
	r->view_sql = cat_obj_strdup(o, sql_text_deparse_bound(s, cs, st->query));
	/* The catalog records no dependencies of a view: tell the commit which
	 * relations it rests on, so that another server dropping or altering
	 * one meanwhile conflicts with it (docs/scale-out.md). */
	rv_walk deps = {s, cs, 0, false, ct};
	walk_msg(&st->query->base, &deps);
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
	TY_TRY(tc)
	{
		sql_apply_reloptions(s, o, opts, nopts);
	}
	TY_CATCH(tc)
	{
		TY_END(tc);
		cat_obj_free(o);
		ty_errthrow();
	}
	TY_END(tc);
	if (check) {
		cat_reloption *no = cat_obj_alloc(o, sizeof(cat_reloption) * (size_t)(r->nopts + 1));
		if (r->nopts)
			memcpy(no, r->opts, sizeof(cat_reloption) * (size_t)r->nopts);
		no[r->nopts].name = cat_obj_strdup(o, "check_option");
		no[r->nopts].value = cat_obj_strdup(o, check);
		r->opts = no;
		r->nopts++;
	}
	if (!old)
		sql_priv_apply_default_acl(s, cs, o);
	cat_txn_put(ct, o);
}

/* ---------------------------------------------------------------- TRUNCATE */

typedef struct trunc_list {
	const cat_obj **rels;
	int n;
} trunc_list;

static bool trunc_has(trunc_list *l, cat_oid oid)
{
	for (int i = 0; i < l->n; i++)
		if (l->rels[i]->oid == oid)
			return true;
	return false;
}

static void trunc_add(trunc_list *l, const cat_obj *o)
{
	const cat_obj **n = ty_alloc(sizeof(cat_obj *) * (size_t)(l->n + 1));
	if (l->n)
		memcpy(n, l->rels, sizeof(cat_obj *) * (size_t)l->n);
	n[l->n++] = o;
	l->rels = n;
}

typedef struct owned_seqs {
	trunc_list *tables;
	cat_oid *oids;
	int n;
} owned_seqs;

static int find_owned_seqs(void *arg, const cat_obj *o)
{
	owned_seqs *os = arg;
	if (o->rel.relkind != CAT_RELKIND_SEQUENCE || !o->rel.seq ||
	    !trunc_has(os->tables, o->rel.seq->owned_by_table))
		return 0;
	cat_oid *n = ty_alloc(sizeof(cat_oid) * (size_t)(os->n + 1));
	if (os->n)
		memcpy(n, os->oids, sizeof(cat_oid) * (size_t)os->n);
	n[os->n++] = o->oid;
	os->oids = n;
	return 0;
}

/* A fresh storage generation per table (and index): O(1), transactional,
 * the old generation dropped after commit. */
void sql_truncate_rel(sql_session *s, cat_txn *ct, const cat_obj *o)
{
	if (o->rel.ilv_depth || o->rel.ilv_nchildren)
		ty_error(UTIL_E_FEATURE_NOT_SUPPORTED,
			 "TRUNCATE of interleaved table \"%s\" is not supported; use DELETE", o->rel.name);
	cat_obj *c = cat_obj_copy(o);
	sql_ddl_create_next_storage_like(s, s->txn, &o->rel, 'r', o->oid, c->rel.storage,
					 sizeof c->rel.storage);
	sql_txn_drop_storage_after_commit(s->txn, o->rel.storage);
	/* Rows this transaction wrote before are gone with the old storage. */
	sql_txn_table_reshape(s->txn, o->oid, 0, true);
	sql_truncate_indexes(s, ct, o);
	cat_txn_put(ct, c);
}

void sql_truncate_indexes(sql_session *s, cat_txn *ct, const cat_obj *o)
{
	for (int k = 0; k < o->rel.nindexes; k++) {
		const cat_obj *ix = cat_get(cat_txn_snap(ct), o->rel.indexes[k]);
		if (!ix)
			continue;
		cat_obj *nx = cat_obj_copy(ix);
		sql_ddl_create_next_storage_like(s, s->txn, &ix->rel, 'i', ix->oid, nx->rel.storage,
						 sizeof nx->rel.storage);
		sql_txn_drop_storage_after_commit(s->txn, ix->rel.storage);
		sql_txn_table_reshape(s->txn, ix->oid, 0, true);
		cat_txn_put(ct, nx);
	}
}

void sql_ddl_truncate(sql_session *s, PgQuery__TruncateStmt *st)
{
	cat_txn *ct = sql_txn_ddl(s->txn);
	cat_snap *cs = cat_txn_snap(ct);
	bool cascade = st->behavior == PG_QUERY__DROP_BEHAVIOR__DROP_CASCADE;
	trunc_list l = {NULL, 0};
	for (size_t i = 0; i < st->n_relations; i++) {
		PgQuery__RangeVar *rv = st->relations[i]->range_var;
		const cat_obj *o = must_rel(s, cs, rv, false);
		if (o->rel.relkind != CAT_RELKIND_TABLE)
			ty_error(UTIL_E_WRONG_OBJECT_TYPE, "\"%s\" is not a table", o->rel.name);
		if (o->rel.schema == CAT_OID_PG_CATALOG || o->rel.schema == CAT_OID_INFORMATION_SCHEMA)
			ty_error(UTIL_E_INSUFFICIENT_PRIVILEGE,
				 "permission denied: \"%s\" is a system catalog", o->rel.name);
		sql_priv_check_rel(s, cs, o, CAT_PRIV_TRUNCATE);
		if (!trunc_has(&l, o->oid))
			trunc_add(&l, o);
	}
	/* Tables referencing a truncated one: an error, or (CASCADE) truncated too. */
	for (int i = 0; i < l.n; i++) {
		cat_oid *refs;
		int nrefs;
		sql_fk_referencing_tables(s, cs, l.rels[i]->oid, &refs, &nrefs);
		/* Interleaved children count as referencing their parent. */
		cat_oid *kids;
		int nkids = sql_ilv_children(cs, l.rels[i]->oid, &kids);
		if (nkids) {
			cat_oid *all = ty_alloc(sizeof(cat_oid) * (size_t)(nrefs + nkids));
			if (nrefs)
				memcpy(all, refs, sizeof(cat_oid) * (size_t)nrefs);
			memcpy(all + nrefs, kids, sizeof(cat_oid) * (size_t)nkids);
			refs = all;
			nrefs += nkids;
		}
		for (int k = 0; k < nrefs; k++) {
			if (trunc_has(&l, refs[k]))
				continue;
			const cat_obj *r = cat_get(cs, refs[k]);
			if (!cascade) {
				util_err *e = ty_errstart(
				    UTIL_E_FEATURE_NOT_SUPPORTED,
				    "cannot truncate a table referenced in a foreign key constraint");
				util_err_detail(e, "Table \"%s\" references \"%s\".", r->rel.name,
						l.rels[i]->rel.name);
				util_err_hint(
				    e, "Truncate table \"%s\" at the same time, or use TRUNCATE ... CASCADE.",
				    r->rel.name);
				ty_errthrow();
			}
			sql_notice(s, UTIL_E_SUCCESSFUL_COMPLETION, "truncate cascades to table \"%s\"",
				   r->rel.name);
			sql_priv_check_rel(s, cs, r, CAT_PRIV_TRUNCATE);
			trunc_add(&l, r);
		}
	}
	for (int i = 0; i < l.n; i++)
		sql_rel_lock(s, l.rels[i]->oid, true);
	for (int i = 0; i < l.n; i++) {
		if (l.rels[i]->rel.ilv_depth || l.rels[i]->rel.ilv_nchildren)
			sql_ilv_truncate(s, ct, l.rels[i], l.rels, l.n);
		else
			sql_truncate_rel(s, ct, l.rels[i]);
	}
	if (st->restart_seqs) {
		owned_seqs os = {&l, NULL, 0};
		cat_foreach(cs, CAT_REL, s->db_oid, find_owned_seqs, &os);
		for (int i = 0; i < os.n; i++) {
			const cat_obj *sq = cat_get(cs, os.oids[i]);
			sql_priv_check_rel(s, cs, sq, CAT_PRIV_UPDATE);
			sql_setval(s, sq->oid, sq->rel.seq->start, false);
		}
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
		if (col && !cat_column_by_name(&o->rel, colname))
			ty_error(UTIL_E_UNDEFINED_COLUMN, "column \"%s\" of relation \"%s\" does not exist",
				 colname, name);
		sql_ddl_check_owner(s, o);
		cat_obj *c = cat_obj_copy(o);
		if (col) {
			cat_column *cc = (cat_column *)cat_column_by_name(&c->rel, colname);
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
			ty_error(UTIL_E_INVALID_SCHEMA_NAME, "schema \"%s\" does not exist",
				 str_of(st->object));
		cat_obj *c = cat_obj_copy(o);
		c->schema.comment = cat_obj_strdup(c, text);
		cat_txn_put(ct, c);
		return;
	}
	case PG_QUERY__OBJECT_TYPE__OBJECT_DATABASE: {
		const cat_obj *o = cat_database_by_name(cs, str_of(st->object));
		if (!o)
			ty_error(UTIL_E_INVALID_CATALOG_NAME, "database \"%s\" does not exist",
				 str_of(st->object));
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
		if (!cat_constraint_by_name(&o->rel, conname))
			ty_error(UTIL_E_UNDEFINED_OBJECT, "constraint \"%s\" for table \"%s\" does not exist",
				 conname, name);
		sql_ddl_check_owner(s, o);
		cat_obj *c = cat_obj_copy(o);
		cat_constraint *k = (cat_constraint *)cat_constraint_by_name(&c->rel, conname);
		k->comment = cat_obj_strdup(c, text);
		cat_txn_put(ct, c);
		return;
	}
	default:
		ty_error(UTIL_E_FEATURE_NOT_SUPPORTED, "COMMENT on this kind of object is not supported");
	}
}

/* ---------------------------------------------------------------- OWNED BY */

/* CREATE/ALTER SEQUENCE ... OWNED BY table.column | NONE, checked as
 * PostgreSQL's process_owned_by. info is the sequence's new settings. */
void sql_seq_owned_by(sql_session *s, cat_snap *cs, const cat_obj *seq, cat_sequence_info *info,
		      cat_oid seq_schema, cat_oid seq_owner, PgQuery__Node **opts, size_t n)
{
	PgQuery__List *names = NULL;
	for (size_t i = 0; i < n; i++)
		if (!strcmp(opts[i]->def_elem->defname, "owned_by"))
			names = opts[i]->def_elem->arg->list;
	if (!names)
		return;
	/* An identity column's sequence stays with it. */
	if (seq && seq->rel.seq && seq->rel.seq->owned_by_table) {
		const cat_obj *t = cat_get(cs, seq->rel.seq->owned_by_table);
		const cat_column *c = t ? cat_column_by_attnum(&t->rel, seq->rel.seq->owned_by_col) : NULL;
		if (c && c->identity) {
			util_err *e = ty_errstart(UTIL_E_FEATURE_NOT_SUPPORTED,
						  "cannot change ownership of identity sequence");
			util_err_detail(e, "Sequence \"%s\" is linked to table \"%s\".", seq->rel.name,
					t->rel.name);
			ty_errthrow();
		}
	}
	if (names->n_items == 1 && !strcmp(str_of(names->items[0]), "none")) {
		info->owned_by_table = 0;
		info->owned_by_col = 0;
		return;
	}
	if (names->n_items < 2) {
		util_err *e = ty_errstart(UTIL_E_SYNTAX_ERROR, "invalid OWNED BY option");
		util_err_hint(e, "Specify OWNED BY table.column or OWNED BY NONE.");
		ty_errthrow();
	}
	const char *col = str_of(names->items[names->n_items - 1]);
	const char *tname = str_of(names->items[names->n_items - 2]);
	const char *sname = names->n_items > 2 ? str_of(names->items[names->n_items - 3]) : NULL;
	if (sname && !sql_lookup_schema(s, cs, sname))
		ty_error(UTIL_E_INVALID_SCHEMA_NAME, "schema \"%s\" does not exist", sname);
	const cat_obj *t = sql_lookup_rel_name(s, cs, sname, tname);
	if (!t)
		ty_error(UTIL_E_UNDEFINED_TABLE, "relation \"%s\" does not exist", tname);
	if (t->rel.relkind != CAT_RELKIND_TABLE && t->rel.relkind != CAT_RELKIND_VIEW)
		ty_error(UTIL_E_WRONG_OBJECT_TYPE, "sequence cannot be owned by relation \"%s\"",
			 t->rel.name);
	if (t->rel.owner != seq_owner)
		ty_error(UTIL_E_OBJECT_NOT_IN_PREREQUISITE_STATE,
			 "sequence must have same owner as table it is linked to");
	if (t->rel.schema != seq_schema)
		ty_error(UTIL_E_OBJECT_NOT_IN_PREREQUISITE_STATE,
			 "sequence must be in same schema as table it is linked to");
	const cat_column *c = cat_column_by_name(&t->rel, col);
	if (!c)
		ty_error(UTIL_E_UNDEFINED_COLUMN, "column \"%s\" of relation \"%s\" does not exist", col,
			 t->rel.name);
	info->owned_by_table = t->oid;
	info->owned_by_col = c->attnum;
}

/* ---------------------------------------------------------------- ALTER SEQUENCE */

void sql_ddl_alter_sequence(sql_session *s, PgQuery__AlterSeqStmt *st)
{
	cat_txn *ct = sql_txn_ddl(s->txn);
	const cat_obj *o = must_rel(s, cat_txn_snap(ct), st->sequence, st->missing_ok);
	if (!o) {
		sql_notice(s, UTIL_E_SUCCESSFUL_COMPLETION, "relation \"%s\" does not exist, skipping",
			   st->sequence->relname);
		return;
	}
	if (o->rel.relkind != CAT_RELKIND_SEQUENCE)
		ty_error(UTIL_E_WRONG_OBJECT_TYPE, "\"%s\" is not a sequence", o->rel.name);
	sql_ddl_check_owner(s, o);
	/* Options are checked on a copy of the settings: nothing to free on errors. */
	cat_sequence_info si = *o->rel.seq;
	sql_seq_options(s, &si, st->options, st->n_options, false);
	sql_seq_owned_by(s, cat_txn_snap(ct), o, &si, o->rel.schema, o->rel.owner, st->options,
			 st->n_options);
	if (si.restart_requested) {
		si.restart_requested = false;
		sql_setval(s, o->oid, si.restart_value, false);
	}
	cat_obj *c = cat_obj_copy(o);
	*c->rel.seq = si;
	cat_txn_put(ct, c);
}

/* ---------------------------------------------------------------- CREATE TABLE AS */

void sql_ddl_create_table_as(sql_session *s, PgQuery__CreateTableAsStmt *st, const char *text,
			     sql_complete *c)
{
	sql_ctas(s, st, text, c);
}

/* ---------------------------------------------------------------- databases */

void sql_ddl_database(sql_session *s, pnode *n)
{
	if (s->txn_state != SQL_TXN_IDLE || s->implicit_block)
		ty_error(UTIL_E_ACTIVE_SQL_TRANSACTION, "%s cannot run inside a transaction block",
			 sql_command_tag(n));
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
			sql_notice(s, UTIL_E_SUCCESSFUL_COMPLETION,
				   "database \"%s\" does not exist, skipping", st->dbname);
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
