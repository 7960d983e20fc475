/*
 * ddl_truncate_ilv.c — TRUNCATE of interleaved tables (docs/entity-groups.md).
 * The tables of one hierarchy share their root's kv table, so:
 *   - a truncated root (CASCADE brings every descendant along) gets a new
 *     storage generation for the whole hierarchy: every table of it is
 *     repointed at the new kv table, indexes renewed, the old kv table
 *     dropped after commit — O(1) as for a plain table;
 *   - a truncated child whose root stays deletes its rows (every group's
 *     cells of that table) through the transaction's buffer, one row at a
 *     time: the other tables' cells in the same kv rows must stay.
 * ddl_misc.c decides what is truncated (interleaved children count as
 * referencing tables, as a foreign key to the parent would).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ddl_int.h"

typedef struct kids_list {
	cat_oid parent; /* children of this table, or (root != 0) every table under root */
	cat_oid root;
	cat_oid *oids;
	int n;
} kids_list;

static int collect(void *arg, const cat_obj *o)
{
	kids_list *k = arg;
	if (o->rel.relkind != CAT_RELKIND_TABLE || !o->rel.ilv_depth)
		return 0;
	if (k->root ? o->rel.ilv_root != k->root : o->rel.interleave_parent != k->parent)
		return 0;
	cat_oid *n = ty_alloc(sizeof(cat_oid) * (size_t)(k->n + 1));
	if (k->n)
		memcpy(n, k->oids, sizeof(cat_oid) * (size_t)k->n);
	n[k->n++] = o->oid;
	k->oids = n;
	return 0;
}

int sql_ilv_children(cat_snap *cs, cat_oid parent, cat_oid **out)
{
	kids_list k = {parent, 0, NULL, 0};
	cat_foreach(cs, CAT_REL, 0, collect, &k);
	*out = k.oids;
	return k.n;
}

/* The root and every table interleaved under it: a new kv table. */
static void truncate_hierarchy(sql_session *s, cat_txn *ct, const cat_obj *root)
{
	cat_snap *cs = cat_txn_snap(ct);
	cat_obj *c = cat_obj_copy(root);
	sql_ddl_create_next_storage(s, s->txn, &root->rel, 'r', root->oid, NULL, 0, c->rel.storage,
				    sizeof c->rel.storage);
	if (root->rel.ilv_next_tag) {
		/* The children's family, as sql_ilv_create made it. */
		kv_family_opts fam;
		kv_family_opts_default(&fam, SQL_ILV_FAMILY);
		kv_status st = kv_table_alter_family(s->e->kv, c->rel.storage, &fam, false);
		if (st != KV_OK && st != KV_EXISTS)
			sql_kv_error(st, "adding the interleaved family");
	}
	/* Dropped after commit once no table names it (sql_ilv_storage_in_use). */
	sql_txn_drop_storage_after_commit(s->txn, root->rel.storage);
	sql_txn_table_reshape(s->txn, root->oid, 0, true);
	sql_truncate_indexes(s, ct, root);
	kids_list k = {0, root->oid, NULL, 0};
	cat_foreach(cs, CAT_REL, 0, collect, &k);
	for (int i = 0; i < k.n; i++) {
		const cat_obj *d = cat_get(cs, k.oids[i]);
		if (!d)
			continue;
		cat_obj *dc = cat_obj_copy(d);
		snprintf(dc->rel.storage, sizeof dc->rel.storage, "%s", c->rel.storage);
		sql_txn_table_reshape(s->txn, d->oid, 0, true);
		sql_truncate_indexes(s, ct, d);
		cat_txn_put(ct, dc);
	}
	cat_txn_put(ct, c);
}

/* Deletes every row of a child table (committed rows and this
 * transaction's own), leaving the other tables' cells of each group. */
static void delete_rows(sql_session *s, const cat_obj *o)
{
	sql_txn *t = s->txn;
	const cat_rel *r = &o->rel;
	kv_table *kv;
	kv_status ks = kv_table_open(s->e->kv, r->storage, &kv);
	if (ks != KV_OK)
		sql_kv_error(ks, "opening a table");
	/* Everything committed now (the relation is locked exclusively, as
	 * PostgreSQL's TRUNCATE removes every row whatever the snapshot; a row
	 * committed after a REPEATABLE READ snapshot makes the commit fail with
	 * 40001 rather than survive). */
	kv_ts ts = kv_read_point(s->e->kv);
	if (t->iso == SQL_READ_COMMITTED)
		t->stmt_ts = ts;
	sql_plan *p = sql_plan_new(SQL_P_SCAN, r->ncols + 1);
	p->id = 0;
	p->types = ty_alloc(sizeof(ty_oid) * (size_t)(r->ncols + 1));
	p->typmods = ty_alloc(sizeof(int32_t) * (size_t)(r->ncols + 1));
	for (int c = 0; c < r->ncols; c++) {
		p->types[c] = r->cols[c].type;
		p->typmods[c] = r->cols[c].typmod;
	}
	p->types[r->ncols] = TY_BYTEA;
	p->typmods[r->ncols] = -1;
	p->scan.rel = o;
	p->scan.reloid = o->oid;
	snprintf(p->scan.storage, sizeof p->scan.storage, "%s", r->storage);
	/* The row key alone (the last slot): no column needs decoding. */
	p->scan.needed = ty_alloc0(sizeof(bool) * (size_t)(r->ncols + 1));
	p->scan.needed[r->ncols] = true;
	sql_planned *pl = ty_alloc0(sizeof *pl);
	pl->plan = p;
	pl->nnodes = 1;
	sql_exec *ex = sql_exec_new(s, pl, ty_get_arena(), NULL, 0);
	ex->cat = sql_ddl_snap(s);
	ex->read_ts = ts;
	TY_TRY(tc)
	{
		sql_op *root = sql_exec_node(ex, p);
		for (;;) {
			sql_batch *b = sql_op_next(root);
			if (b->n == 0)
				break;
			for (int i = 0; i < b->n; i++) {
				ty_datum key = sql_batch_row(b, i)[r->ncols];
				sql_txn_delete_row(t, o, kv, key.p, key.len);
			}
			sql_check_interrupts(s);
		}
		sql_exec_close(ex);
	}
	TY_CATCH(tc)
	{
		TY_END(tc);
		util_err err;
		memcpy(&err, ty_err(), sizeof err);
		util_err ignore;
		ty_protect((void (*)(void *))sql_exec_close, ex, &ignore);
		kv_table_close(kv);
		ty_throw(&err);
	}
	TY_END(tc);
	kv_table_close(kv); /* the transaction holds its own reference */
}

void sql_ilv_truncate(sql_session *s, cat_txn *ct, const cat_obj *o, const cat_obj *const *list, int n)
{
	if (!o->rel.ilv_depth) {
		truncate_hierarchy(s, ct, o);
		return;
	}
	for (int i = 0; i < n; i++)
		if (list[i]->oid == o->rel.ilv_root)
			return; /* its root's new generation takes it along */
	delete_rows(s, o);
}
