/*
 * ddl_ctas.c — CREATE TABLE AS / SELECT INTO: the table takes the query's
 * output columns, then the query runs and its rows are inserted in the
 * same transaction. Also DROP DATABASE's removal of a database's objects.
 */
#include <stdio.h>
#include <string.h>

#include "ddl_int.h"

static const char *str_of(pnode *n) { return n && n->node_case == PG_QUERY__NODE__NODE_STRING ? n->string->sval : NULL; }

void sql_ctas(sql_session *s, PgQuery__CreateTableAsStmt *st, const char *text, sql_complete *c)
{
	if (st->objtype == PG_QUERY__OBJECT_TYPE__OBJECT_MATVIEW)
		ty_error(UTIL_E_FEATURE_NOT_SUPPORTED, "materialized views are not supported");
	PgQuery__IntoClause *into = st->into;
	PgQuery__RangeVar *rv = into->rel;
	cat_txn *ct = sql_txn_ddl(s->txn);
	cat_snap *cs = cat_txn_snap(ct);
	cat_oid schema = sql_ddl_creation_schema(s, cs, rv, text);
	cs = cat_txn_snap(ct);
	if (cat_rel_by_name(cs, schema, rv->relname)) {
		if (st->if_not_exists) {
			sql_notice(s, UTIL_E_DUPLICATE_TABLE, "relation \"%s\" already exists, skipping", rv->relname);
			snprintf(c->tag, sizeof c->tag, "CREATE TABLE AS");
			return;
		}
		ty_error(UTIL_E_DUPLICATE_TABLE, "relation \"%s\" already exists", rv->relname);
	}
	pnode *qn = st->query;
	if (qn->node_case != PG_QUERY__NODE__NODE_SELECT_STMT)
		ty_error(UTIL_E_FEATURE_NOT_SUPPORTED, "CREATE TABLE AS EXECUTE is not supported");
	PgQuery__SelectStmt sel = *qn->select_stmt;
	sel.into_clause = NULL;
	sql_pstate ps = {.text = text};
	ps.param_types = ty_alloc0(sizeof(ty_oid) * 8);
	ps.params_cap = 8;
	sql_actx ax = {s, cs, ty_get_arena(), &ps};
	sql_query *q = sql_analyze_select(&ax, &sel, NULL, NULL, 0);
	if (into->n_col_names > (size_t)q->nret)
		ty_error(UTIL_E_SYNTAX_ERROR, "too many column names were specified");
	cat_oid oid;
	util_err err;
	if (cat_new_oid(s->e->cat, &oid, &err) != 0)
		ty_throw(&err);
	cat_obj *o = cat_obj_new(CAT_REL, oid, s->db_oid);
	cat_rel *r = &o->rel;
	/* o is freed on an error until the change set owns it. */
	TY_TRY(tb)
	{
		r->relkind = CAT_RELKIND_TABLE;
		r->schema = schema;
		r->owner = s->user_oid;
		snprintf(r->name, sizeof r->name, "%s", rv->relname);
		r->ncols = q->nret;
		r->cols = cat_obj_alloc(o, sizeof(cat_column) * (size_t)(q->nret ? q->nret : 1));
		int k = 0;
		for (int i = 0; i < q->ntargets; i++) {
			if (q->targets[i].junk)
				continue;
			cat_column *col = &r->cols[k];
			const char *name =
			    (size_t)k < into->n_col_names ? str_of(into->col_names[k]) : q->targets[i].name;
			for (int x = 0; x < k; x++)
				if (!strcmp(r->cols[x].name, name))
					ty_error(UTIL_E_DUPLICATE_COLUMN,
						 "column \"%s\" specified more than once", name);
			snprintf(col->name, sizeof col->name, "%s", name);
			col->attnum = (int16_t)(k + 1);
			col->col_id = (uint16_t)(k + 1);
			col->type =
			    q->targets[i].expr->type == TY_UNKNOWN ? TY_TEXT : q->targets[i].expr->type;
			col->typmod = q->targets[i].expr->typmod;
			k++;
		}
		r->next_col_id = (uint16_t)(k + 1);
		sql_apply_reloptions(s, o, into->options, into->n_options);
		sql_default_salt(s, o);
		sql_default_row_format(s, o);
		snprintf(r->storage, sizeof r->storage, "r%u.1", oid);
		sql_create_storage(s, s->txn, r->storage);
		sql_priv_apply_default_acl(s, cs, o);
	}
	TY_CATCH(tb)
	{
		TY_END(tb);
		cat_obj_free(o);
		ty_errthrow();
	}
	TY_END(tb);
	cat_txn_put(ct, o);
	uint64_t n = 0;
	if (!into->skip_data) {
		/* Run the query and insert its rows. */
		sql_planned *pl = sql_plan_query(&ax, q);
		const cat_obj *rel = cat_get(cat_txn_snap(ct), oid);
		kv_table *kv;
		kv_status kst = kv_table_open(s->e->kv, r->storage, &kv);
		if (kst != KV_OK)
			sql_kv_error(kst, "opening a table");
		sql_exec *ex = sql_exec_new(s, pl, ty_get_arena(), NULL, 0);
		TY_TRY(tc)
		{
			sql_op *root = sql_exec_node(ex, pl->plan);
			util_buf key = UTIL_BUF_INIT;
			for (;;) {
				sql_batch *b = sql_op_next(root);
				if (b->n == 0)
					break;
				for (int i = 0; i < b->n; i++) {
					ty_datum *row = sql_batch_row(b, i);
					util_buf_reset(&key);
					sql_row_key(&rel->rel, row, &key);
					sql_txn_put_row(s->txn, rel, kv, (const uint8_t *)key.data, key.len, row, NULL, true, false);
					n++;
				}
			}
			util_buf_free(&key);
			sql_exec_close(ex);
		}
		TY_CATCH(tc)
		{
			TY_END(tc);
			util_err saved;
			memcpy(&saved, ty_err(), sizeof saved);
			util_err ignore;
			ty_protect((void (*)(void *))sql_exec_close, ex, &ignore);
			kv_table_close(kv);
			ty_throw(&saved);
		}
		TY_END(tc);
		kv_table_close(kv);
	}
	snprintf(c->tag, sizeof c->tag, "SELECT %llu", (unsigned long long)n);
}

typedef struct db_objs {
	cat_oid db;
	cat_oid *oids;
	int n, cap;
	char **storages;
} db_objs;

static int collect(void *arg, const cat_obj *o)
{
	db_objs *d = arg;
	if (o->database != d->db)
		return 0;
	if (d->n == d->cap) {
		d->cap = d->cap ? d->cap * 2 : 64;
		cat_oid *no = ty_alloc(sizeof(cat_oid) * (size_t)d->cap);
		char **ns = ty_alloc(sizeof(char *) * (size_t)d->cap);
		if (d->n) {
			memcpy(no, d->oids, sizeof(cat_oid) * (size_t)d->n);
			memcpy(ns, d->storages, sizeof(char *) * (size_t)d->n);
		}
		d->oids = no;
		d->storages = ns;
	}
	d->storages[d->n] = o->kind == CAT_REL && o->rel.storage[0] ? ty_strdup(o->rel.storage) : NULL;
	d->oids[d->n++] = o->oid;
	return 0;
}

void sql_drop_database_objects(sql_session *s, cat_txn *ct, cat_oid db)
{
	db_objs d = {db, NULL, 0, 0, NULL};
	cat_snap *cs = cat_txn_snap(ct);
	cat_foreach(cs, CAT_REL, db, collect, &d);
	cat_foreach(cs, CAT_SCHEMA, db, collect, &d);
	for (int i = 0; i < d.n; i++) {
		if (d.storages[i])
			sql_txn_drop_storage_after_commit(s->txn, d.storages[i]);
		cat_txn_delete(ct, d.oids[i]);
	}
}
