/*
 * index_def.c — an index relation compiled against its table: key column
 * types and orders, index expressions and the partial-index predicate
 * analyzed over the table row, which columns the index depends on, and the
 * computation of a row's entry (key, value with the INCLUDE payload). Also
 * the row model index/ calls during backfills, checks and GC.
 */
#include <stdio.h>
#include <string.h>

#include "sql_index.h"

/* ---------------------------------------------------------------- compile */

typedef struct slot_ctx {
	sql_pstate *ps;
	bool bad_volatile, bad_sublink;
} slot_ctx;

/* Vars of RTE 1 -> row slots; a cache slot for every call. */
static sql_expr *to_slots(sql_expr *e, void *arg)
{
	slot_ctx *c = arg;
	if (e->kind == SQL_E_VAR && e->var.levelsup == 0) {
		sql_expr *s = sql_expr_new(SQL_E_SLOT, e->type, e->location);
		s->typmod = e->typmod;
		s->slot = e->var.col;
		return s;
	}
	if (e->kind == SQL_E_SUBLINK)
		c->bad_sublink = true;
	if (e->kind == SQL_E_FUNC || e->kind == SQL_E_SRF || e->kind == SQL_E_ANYARRAY) {
		if (e->f.fn && e->f.fn->volatility != TY_IMMUTABLE)
			c->bad_volatile = true;
		e->f.cache = c->ps->ncache++;
	}
	return e;
}

/* Operator names point into the parse tree, which is freed after
 * analysis: keep copies. */
static bool own_strings(sql_expr *e, void *arg)
{
	(void)arg;
	switch (e->kind) {
	case SQL_E_FUNC:
	case SQL_E_ANYARRAY:
	case SQL_E_ROWCMP:
	case SQL_E_DISTINCT:
	case SQL_E_NULLIF:
		if (e->f.opname)
			e->f.opname = ty_strdup(e->f.opname);
		break;
	default:
		break;
	}
	return false;
}

static bool mark_deps(sql_expr *e, void *arg)
{
	bool *deps = arg;
	if (e->kind == SQL_E_SLOT)
		deps[e->slot] = true;
	return false;
}

/* Analyzes "SELECT <expr>" text over the table; returns the Var form and
 * (in *slots) the slot form. */
static sql_expr *analyze_text(sql_session *s, cat_snap *cs, const cat_obj *table, const char *sqltext,
			      sql_pstate *ps, bool predicate, sql_expr **slots)
{
	util_err perr;
	PgQuery__ParseResult *pr = sql_parse_text(sqltext, &perr);
	if (!pr)
		ty_error(UTIL_E_DATA_CORRUPTED, "index expression is not valid SQL: %s", perr.message);
	sql_expr *e = NULL;
	sql_pstate local = *ps;
	local.text = sqltext;
	sql_actx ax = {s, cs, ty_get_arena(), &local};
	TY_TRY(tc)
	{
		if (pr->n_stmts != 1 || pr->stmts[0]->stmt->node_case != PG_QUERY__NODE__NODE_SELECT_STMT ||
		    pr->stmts[0]->stmt->select_stmt->n_target_list != 1)
			ty_error(UTIL_E_DATA_CORRUPTED, "malformed index expression");
		sql_query *q = sql_new_query(&ax, SQL_CMD_SELECT, NULL);
		sql_jnode *j;
		int rte = sql_add_table_rte(&ax, q, table, NULL, &j);
		sql_add_namespace(q, rte, true, true);
		q->cur_ctx = SQL_EXPR_INDEX;
		e = sql_transform_expr(
		    &ax, q, pr->stmts[0]->stmt->select_stmt->target_list[0]->res_target->val, SQL_EXPR_INDEX);
		if (predicate)
			e = sql_coerce_bool(&ax, e, "WHERE");
	}
	TY_CATCH(tc)
	{
		TY_END(tc);
		pg_query__parse_result__free_unpacked(pr, NULL);
		ty_errthrow();
	}
	TY_END(tc);
	sql_expr_walk(e, own_strings, NULL);
	pg_query__parse_result__free_unpacked(pr, NULL);
	ps->ncache = local.ncache;
	ps->nexec_params = local.nexec_params;
	slot_ctx sc = {ps, false, false};
	*slots = sql_expr_mutate(sql_expr_copy(e), to_slots, &sc);
	if (sc.bad_sublink)
		ty_error(UTIL_E_FEATURE_NOT_SUPPORTED, "cannot use subquery in index %s",
			 predicate ? "predicate" : "expression");
	if (sc.bad_volatile)
		ty_error(UTIL_E_INVALID_OBJECT_DEFINITION, "functions in index %s must be marked IMMUTABLE",
			 predicate ? "predicate" : "expression");
	return e;
}

sql_ix *sql_ix_compile(sql_session *s, cat_snap *cs, const cat_obj *ixo, sql_pstate *ps)
{
	const cat_index_info *info = ixo->rel.index;
	if (!info)
		ty_error(UTIL_E_DATA_CORRUPTED, "index \"%s\" has no definition", ixo->rel.name);
	const cat_obj *table = cat_get(cs, info->table);
	if (!table)
		ty_error(UTIL_E_DATA_CORRUPTED, "table of index \"%s\" does not exist", ixo->rel.name);
	const cat_rel *r = &table->rel;
	sql_ix *x = ty_alloc0(sizeof *x);
	sql_pstate own = {.text = ""};
	if (!ps)
		ps = &own;
	x->obj = ixo;
	x->table = table;
	x->info = info;
	x->nkeys = info->nkeys;
	x->keys = ty_alloc0(sizeof(ty_keycol) * (size_t)(x->nkeys + 1));
	x->key_attnum = ty_alloc0(sizeof(int16_t) * (size_t)(x->nkeys + 1));
	x->key_expr = ty_alloc0(sizeof(sql_expr *) * (size_t)(x->nkeys + 1));
	x->key_var = ty_alloc0(sizeof(sql_expr *) * (size_t)(x->nkeys + 1));
	x->key_text = ty_alloc0(sizeof(char *) * (size_t)(x->nkeys + 1));
	x->deps = ty_alloc0(sizeof(bool) * (size_t)(r->ncols + 1));
	for (int i = 0; i < x->nkeys; i++) {
		const cat_index_col *ic = &info->keys[i];
		ty_oid type;
		if (ic->attnum) {
			const cat_column *c = cat_column_by_attnum(r, ic->attnum);
			if (!c || c->dropped)
				ty_error(UTIL_E_DATA_CORRUPTED, "index \"%s\" names a missing column",
					 ixo->rel.name);
			type = c->type;
			x->key_attnum[i] = ic->attnum;
			x->deps[ic->attnum - 1] = true;
			x->key_text[i] = ty_strdup(c->name);
		} else {
			x->key_var[i] = analyze_text(s, cs, table, ic->expr_sql, ps, false, &x->key_expr[i]);
			type = x->key_var[i]->type;
			sql_expr_walk(x->key_expr[i], mark_deps, x->deps);
			const char *t = ic->expr_sql;
			if (!strncmp(t, "SELECT ", 7))
				t += 7;
			x->key_text[i] = ty_strdup(t);
			x->needs_eval = true;
		}
		const ty_type *ty = ty_type_get(type);
		if (!ty || !ty->keyenc)
			ty_error(UTIL_E_UNDEFINED_OBJECT,
				 "data type %s has no default operator class for access method \"btree\"",
				 ty ? ty->name : "?");
		x->keys[i] = (ty_keycol){type, ic->desc, ic->nulls_first};
	}
	if (info->predicate_sql) {
		x->pred_var = analyze_text(s, cs, table, info->predicate_sql, ps, true, &x->pred);
		sql_expr_walk(x->pred, mark_deps, x->deps);
		x->needs_eval = true;
	}
	for (int i = 0; i < info->ninclude; i++)
		if (info->include[i] >= 1 && info->include[i] <= r->ncols)
			x->deps[info->include[i] - 1] = true;
	x->ncache = ps->ncache;
	/* Dependencies by column id, and the cells to read to judge an entry. */
	x->ncolids = r->next_col_id + 1;
	x->dep_colid = ty_alloc0(sizeof(bool) * (size_t)x->ncolids);
	x->cols = ty_alloc0(sizeof(kv_column) * (size_t)(r->ncols + 1));
	x->cols[x->ncols_read++] = (kv_column){SQL_FAMILY, "", 0};
	for (int c = 0; c < r->ncols; c++) {
		const cat_column *col = &r->cols[c];
		if (!x->deps[c] || col->dropped)
			continue;
		if (col->col_id < x->ncolids)
			x->dep_colid[col->col_id] = true;
		if (!sql_column_in_cells(r, col))
			continue;
		uint8_t *q = ty_alloc(2);
		sql_colid_qual(col->col_id, q);
		x->cols[x->ncols_read++] = (kv_column){SQL_FAMILY, q, 2};
	}
	int total = 0;
	for (int c = 0; c < r->ncols; c++)
		total += !r->cols[c].dropped && sql_column_in_cells(r, &r->cols[c]);
	if (total >= 32 && x->ncols_read * 8 <= total) {
		x->read_cols = x->cols;
		x->nread_cols = x->ncols_read;
	}
	x->def = (idx_def){ixo->oid, NULL, info->unique, info->nulls_not_distinct, x->nkeys, x->keys};
	return x;
}

sql_exec *sql_ix_evaluator(sql_session *s, const sql_ix *x, util_arena *arena)
{
	if (!x->needs_eval)
		return NULL;
	sql_planned *pl = util_arena_zalloc(arena, sizeof *pl);
	if (!pl)
		ty_error(UTIL_E_OUT_OF_MEMORY, "out of memory");
	pl->ncache = x->ncache;
	return sql_exec_new(s, pl, arena, NULL, 0);
}

/* ---------------------------------------------------------------- entries */

static ty_datum key_value(sql_exec *ev, const sql_ix *x, int i, const ty_datum *row)
{
	if (x->key_attnum[i])
		return row[x->key_attnum[i] - 1];
	UTIL_ASSERT(ev, "index expression without an evaluator");
	return sql_eval(ev, x->key_expr[i], row);
}

void sql_ix_payload(const sql_ix *x, const ty_datum *row, util_buf *out)
{
	const cat_rel *r = &x->table->rel;
	util_buf tmp = UTIL_BUF_INIT;
	for (int i = 0; i < x->info->ninclude; i++) {
		int c = x->info->include[i] - 1;
		if (c < 0 || c >= r->ncols || row[c].null) {
			util_buf_put_varint(out, 0);
			continue;
		}
		util_buf_reset(&tmp);
		sql_value_encode(r->cols[c].type, row[c], &tmp);
		util_buf_put_varint(out, tmp.len + 1);
		util_buf_append(out, tmp.data, tmp.len);
	}
	util_buf_free(&tmp);
}

bool sql_ix_payload_decode(const sql_ix *x, const uint8_t *p, size_t n, ty_datum *row)
{
	const cat_rel *r = &x->table->rel;
	const uint8_t *end = p + n;
	for (int i = 0; i < x->info->ninclude; i++) {
		uint64_t len;
		size_t k = util_varint_get(p, end, &len);
		if (k == 0)
			return false;
		p += k;
		int c = x->info->include[i] - 1;
		if (len == 0) {
			if (c >= 0 && c < r->ncols)
				row[c] = ty_null();
			continue;
		}
		len--;
		if (len > (uint64_t)(end - p))
			return false;
		if (c >= 0 && c < r->ncols)
			row[c] = sql_value_decode(r->cols[c].type, p, (size_t)len);
		p += len;
	}
	return true;
}

bool sql_ix_entry(sql_exec *ev, const sql_ix *x, const ty_datum *row, util_buf *key, util_buf *val,
		  size_t *values_len, bool *unique)
{
	if (x->pred) {
		UTIL_ASSERT(ev, "index predicate without an evaluator");
		if (!sql_eval_qual(ev, x->pred, row))
			return false;
	}
	ty_datum stack[8];
	ty_datum *vals = x->nkeys <= 8 ? stack : ty_alloc(sizeof(ty_datum) * (size_t)x->nkeys);
	for (int i = 0; i < x->nkeys; i++)
		vals[i] = key_value(ev, x, i, row);
	const cat_rel *r = &x->table->rel;
	ty_datum pk = row[r->ncols];
	size_t start = key->len;
	bool any_null;
	idx_encode_values(&x->def, vals, key, &any_null);
	size_t vl = key->len - start;
	util_buf_append(key, pk.p, pk.len);
	if (val) {
		util_buf payload = UTIL_BUF_INIT;
		if (x->info->ninclude)
			sql_ix_payload(x, row, &payload);
		idx_make_value(0, payload.data, payload.len, val);
		util_buf_free(&payload);
	}
	if (values_len)
		*values_len = vl;
	if (unique)
		*unique = idx_unique_values(&x->def, any_null);
	return true;
}

kv_ts sql_ix_row_ts(const sql_ix *x, const kv_cell *cells, size_t n)
{
	kv_ts ts = 0;
	for (size_t i = 0; i < n; i++) {
		const kv_cell *c = &cells[i];
		bool dep = c->qualifier.len == 0;
		if (c->qualifier.len == 2) {
			uint16_t id = (uint16_t)((c->qualifier.data[0] << 8) | c->qualifier.data[1]);
			dep = id < x->ncolids && x->dep_colid[id];
		}
		if (dep && c->ts > ts)
			ts = c->ts;
	}
	return ts;
}

static void describe_vals(const sql_ix *x, const ty_datum *vals, util_buf *out)
{
	util_buf_putc(out, '(');
	for (int i = 0; i < x->nkeys; i++) {
		if (i)
			util_buf_puts(out, ", ");
		util_buf_puts(out, x->key_text[i]);
	}
	util_buf_puts(out, ")=(");
	for (int i = 0; i < x->nkeys; i++) {
		if (i)
			util_buf_puts(out, ", ");
		if (vals[i].null)
			util_buf_puts(out, "null");
		else
			ty_output(x->keys[i].type, vals[i], out);
	}
	util_buf_putc(out, ')');
}

void sql_ix_describe_row(sql_exec *ev, const sql_ix *x, const ty_datum *row, util_buf *out)
{
	ty_datum *vals = ty_alloc(sizeof(ty_datum) * (size_t)(x->nkeys + 1));
	for (int i = 0; i < x->nkeys; i++)
		vals[i] = key_value(ev, x, i, row);
	describe_vals(x, vals, out);
}

void sql_ix_describe_key(const sql_ix *x, const uint8_t *values, size_t len, util_buf *out)
{
	ty_datum *vals = ty_alloc(sizeof(ty_datum) * (size_t)(x->nkeys + 1));
	const uint8_t *p = values, *end = values + len;
	for (int i = 0; i < x->nkeys; i++) {
		size_t n = ty_key_decode(&x->keys[i], p, end, &vals[i]);
		if (n == 0) {
			util_buf_puts(out, "(?)");
			return;
		}
		p += n;
	}
	describe_vals(x, vals, out);
}

/* ---------------------------------------------------------------- row model */

typedef struct model_arg {
	sql_session *s;
	const sql_ix *x;
	sql_exec *ev;
	sql_rowmap map;
	util_arena *scratch; /* reset per row */
	bool gc;
} model_arg;

static bool model_entry(void *arg, const kv_cell *cells, size_t n, util_buf *key, util_buf *val, kv_ts *rts)
{
	model_arg *m = arg;
	const sql_ix *x = m->x;
	const cat_rel *r = &x->table->rel;
	if (n == 0)
		return false;
	util_arena_reset(m->scratch);
	util_arena *old = ty_set_arena(m->scratch);
	volatile bool ok = false;
	TY_TRY(tc)
	{
		ty_datum *row = ty_alloc(sizeof(ty_datum) * (size_t)(r->ncols + 1));
		if (sql_row_decode(r, &m->map, cells, n, x->deps, row)) {
			uint8_t *k = ty_alloc(cells[0].row.len ? cells[0].row.len : 1);
			memcpy(k, cells[0].row.data, cells[0].row.len);
			row[r->ncols] = ty_bytes(k, cells[0].row.len);
			ok = sql_ix_entry(m->ev, x, row, key, val, NULL, NULL);
			*rts = sql_ix_row_ts(x, cells, n);
		}
	}
	TY_CATCH(tc)
	{
		/* A row that cannot be decoded has no valid entry; the checker
		 * reports its entry as stale. */
		ok = false;
	}
	TY_END(tc);
	ty_set_arena(old);
	return ok;
}

static void model_describe(void *arg, const uint8_t *values, size_t len, util_buf *out)
{
	model_arg *m = arg;
	util_arena *old = ty_set_arena(m->scratch);
	TY_TRY(tc)
	{
		sql_ix_describe_key(m->x, values, len, out);
	}
	TY_CATCH(tc)
	{
		util_buf_puts(out, "(?)");
	}
	TY_END(tc);
	ty_set_arena(old);
}

idx_rowmodel *sql_ix_rowmodel(sql_session *s, const sql_ix *x, util_arena *arena, bool gc)
{
	idx_rowmodel *rm = util_arena_zalloc(arena, sizeof *rm);
	model_arg *m = util_arena_zalloc(arena, sizeof *m);
	if (!rm || !m)
		ty_error(UTIL_E_OUT_OF_MEMORY, "out of memory");
	m->s = s;
	m->x = x;
	m->gc = gc;
	m->scratch = util_arena_new(16 * 1024, 0);
	util_arena *old = ty_set_arena(arena);
	sql_rowmap_build(&x->table->rel, arena, &m->map);
	if (!gc)
		m->ev = sql_ix_evaluator(s, x, arena);
	ty_set_arena(old);
	rm->entry = model_entry;
	rm->arg = m;
	rm->columns = x->read_cols;
	rm->ncolumns = x->nread_cols;
	rm->needs = x->cols;
	rm->nneeds = x->ncols_read;
	rm->gc_judge = !x->needs_eval || !gc;
	rm->describe = model_describe;
	return rm;
}

void sql_ix_rowmodel_free(idx_rowmodel *rm)
{
	if (rm && rm->arg)
		util_arena_destroy(((model_arg *)rm->arg)->scratch);
}

/* ---------------------------------------------------------------- sets */

sql_ixset *sql_ixset_open(sql_session *s, cat_snap *cs, const cat_obj *table, util_arena *arena)
{
	const cat_rel *r = &table->rel;
	if (r->nindexes == 0)
		return NULL;
	util_arena *old = ty_set_arena(arena);
	sql_ixset *set = ty_alloc0(sizeof *set);
	set->ix = ty_alloc0(sizeof(sql_ix *) * (size_t)r->nindexes);
	set->kv = ty_alloc0(sizeof(kv_table *) * (size_t)r->nindexes);
	set->ev = ty_alloc0(sizeof(sql_exec *) * (size_t)r->nindexes);
	TY_TRY(tc)
	{
		for (int i = 0; i < r->nindexes; i++) {
			const cat_obj *ixo = cat_get(cs, r->indexes[i]);
			if (!ixo || !ixo->rel.index || ixo->rel.index->primary || !ixo->rel.storage[0] ||
			    ixo->rel.index->state == CAT_INDEX_INVALID)
				continue;
			sql_ix *x = sql_ix_compile(s, cs, ixo, NULL);
			kv_status st = kv_table_open(s->e->kv, ixo->rel.storage, &set->kv[set->n]);
			if (st != KV_OK)
				sql_kv_error(st, "opening an index");
			x->def.kv = set->kv[set->n];
			set->ix[set->n] = x;
			set->ev[set->n] = sql_ix_evaluator(s, x, arena);
			set->n++;
		}
	}
	TY_CATCH(tc)
	{
		TY_END(tc);
		ty_set_arena(old);
		for (int i = 0; i < r->nindexes; i++)
			if (set->kv[i])
				kv_table_close(set->kv[i]);
		ty_errthrow();
	}
	TY_END(tc);
	ty_set_arena(old);
	if (set->n == 0)
		return NULL;
	return set;
}

void sql_ixset_close(sql_ixset *set)
{
	if (!set)
		return;
	for (int i = 0; i < set->n; i++)
		if (set->kv[i])
			kv_table_close(set->kv[i]);
	set->n = 0;
}
