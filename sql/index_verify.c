/*
 * index_verify.c — strata_verify_index(name): runs index/'s checker on one
 * index at the statement's snapshot and returns one row: the index, the
 * data rows that should have an entry, the entries found, and the missing,
 * stale and mismatched ones (each problem is also sent as a NOTICE naming
 * the data row, up to 20). tools/strata-verify-index is the CLI form.
 */
#include <stdio.h>
#include <string.h>

#include "sql_index.h"

static const ty_oid verify_types[] = {TY_TEXT, TY_INT8, TY_INT8, TY_INT8, TY_INT8, TY_INT8};
static const char *const verify_names[] = {"index_name", "rows", "entries", "missing", "stale", "mismatched"};

typedef struct describe_ctx {
	const sql_ix *x;
	sql_ix_problem_fn fn;
	void *arg;
} describe_ctx;

/* What disagreed and both timestamps: enough to tell a crash's leftover
 * from a maintenance bug without the store at hand. */
static void describe(void *arg, const idx_check_problem *p)
{
	describe_ctx *d = arg;
	util_buf t = UTIL_BUF_INIT;
	util_buf_printf(&t, "%s entry ",
			p->kind == IDX_MISSING       ? "missing"
			: p->kind == IDX_STALE_ENTRY ? "stale"
						     : "mismatched");
	size_t off[33];
	if (d->x->nkeys <= 32 && idx_split_values(&d->x->def, p->entry_key.data, p->entry_key.len, off))
		sql_ix_describe_key(d->x, p->entry_key.data, off[d->x->nkeys], &t);
	else
		util_buf_puts(&t, "(?)");
	util_buf_puts(&t, " for row key \\x");
	for (size_t i = 0; i < p->data_key.len; i++)
		util_buf_printf(&t, "%02x", p->data_key.data[i]);
	if (p->why)
		util_buf_printf(&t, ": %s", p->why);
	if (p->entry_ts)
		util_buf_printf(&t, " (entry ts %llu%s", (unsigned long long)p->entry_ts,
				p->verified ? " verified" : " unverified");
	if (p->row_ts)
		util_buf_printf(&t, "%s row ts %llu", p->entry_ts ? "," : " (",
				(unsigned long long)p->row_ts);
	if (p->entry_ts || p->row_ts)
		util_buf_puts(&t, ")");
	d->fn(d->arg, p, t.data);
	util_buf_free(&t);
}

void sql_verify_index_obj(sql_session *s, const cat_obj *o, kv_ts ts, idx_check_report *r,
			  sql_ix_problem_fn fn, void *arg)
{
	const cat_obj *table = cat_get(s->cat, o->rel.index->table);
	if (!table)
		ty_error(UTIL_E_UNDEFINED_TABLE, "table of index \"%s\" does not exist", o->rel.name);
	util_arena *a = util_arena_new(16 * 1024, 0);
	util_arena *old = ty_set_arena(a);
	kv_table *data = NULL, *ikv = NULL;
	idx_rowmodel *m = NULL;
	memset(r, 0, sizeof *r);
	kv_status st = KV_OK;
	TY_TRY(tc)
	{
		sql_ix *x = sql_ix_compile(s, s->cat, o, NULL);
		st = kv_table_open(s->e->kv, table->rel.storage, &data);
		if (st == KV_OK)
			st = kv_table_open(s->e->kv, o->rel.storage, &ikv);
		if (st == KV_OK) {
			x->def.kv = ikv;
			m = sql_ix_rowmodel(s, x, a, false);
			describe_ctx dc = {x, fn, arg};
			if (table->rel.ilv_depth) /* rows inside the root's kv rows */
				st = sql_ilv_index_check(data, &table->rel, &x->def, m, ts, r, describe, &dc);
			else
				st = idx_check(data, &x->def, m, ts, r, describe, &dc);
		}
	}
	TY_CATCH(tc)
	{
		TY_END(tc);
		sql_ix_rowmodel_free(m);
		if (data)
			kv_table_close(data);
		if (ikv)
			kv_table_close(ikv);
		ty_set_arena(old);
		util_arena_destroy(a);
		ty_errthrow();
	}
	TY_END(tc);
	sql_ix_rowmodel_free(m);
	if (data)
		kv_table_close(data);
	if (ikv)
		kv_table_close(ikv);
	ty_set_arena(old);
	util_arena_destroy(a);
	if (st != KV_OK)
		sql_kv_error(st, "verifying an index");
}

typedef struct notice_ctx {
	sql_session *s;
	const cat_obj *ix;
	int sent;
} notice_ctx;

static void notice(void *arg, const idx_check_problem *p, const char *text)
{
	notice_ctx *n = arg;
	(void)p;
	if (n->sent++ < 20)
		sql_notice(n->s, UTIL_E_INDEX_CORRUPTED, "index \"%s\": %s", n->ix->rel.name, text);
}

static ty_datum f_verify_index(ty_fcinfo *fc)
{
	if (fc->srf_state) {
		fc->srf_done = true;
		return ty_null();
	}
	fc->srf_state = (void *)1;
	sql_session *s = sql_current_session();
	char *name = ty_cstring(fc->args[0]);
	const char *dot = strchr(name, '.');
	const cat_obj *o;
	if (dot) {
		char schema[CAT_NAME_MAX];
		snprintf(schema, sizeof schema, "%.*s", (int)(dot - name), name);
		o = sql_lookup_rel_name(s, s->cat, schema, dot + 1);
	} else {
		o = sql_lookup_rel_name(s, s->cat, NULL, name);
	}
	if (!o)
		ty_error(UTIL_E_UNDEFINED_TABLE, "relation \"%s\" does not exist", name);
	if (o->rel.relkind != CAT_RELKIND_INDEX || !o->rel.index)
		ty_error(UTIL_E_WRONG_OBJECT_TYPE, "\"%s\" is not an index", o->rel.name);
	idx_check_report r;
	notice_ctx nc = {s, o, 0};
	sql_verify_index_obj(s, o, s->txn ? sql_txn_read_ts(s->txn) : 0, &r, notice, &nc);
	ty_record *rec = ty_alloc(sizeof *rec);
	ty_datum *v = ty_alloc(sizeof(ty_datum) * 6);
	v[0] = ty_text(o->rel.name);
	v[1] = ty_int((int64_t)r.rows);
	v[2] = ty_int((int64_t)r.entries);
	v[3] = ty_int((int64_t)r.missing);
	v[4] = ty_int((int64_t)r.stale);
	v[5] = ty_int((int64_t)r.mismatched);
	rec->n = 6;
	rec->types = verify_types;
	rec->names = verify_names;
	rec->vals = v;
	return ty_bytes(rec, sizeof *rec);
}

static const ty_func verify_funcs[] = {
    {.name = "strata_verify_index",
     .nargs = 1,
     .args = {TY_TEXT},
     .ret = TY_RECORD,
     .fn = f_verify_index,
     .volatility = TY_VOLATILE,
     .strict = true,
     .retset = true,
     .kind = 'f',
     .prosrc = "strata_verify_index",
     .nout = 6,
     .outtypes = verify_types,
     .outnames = verify_names},
};

void sql_register_index_functions(void)
{
	ty_func_register(verify_funcs, (int)UTIL_ARRAY_LEN(verify_funcs));
}
