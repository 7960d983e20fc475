/*
 * sysview.c — the registry of generated catalog relations, the scan
 * operator over them (the generator runs once per scan into the scan's
 * arena, then rows stream out in batches), and the helpers generators
 * share: datum builders, ACL text, predefined roles, derived oids and the
 * index descriptions behind pg_index/pg_class/pg_indexes.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "array.h"
#include "datetime.h"
#include "sysview.h"

sql_batch *sql_op_begin_batch(sql_op *op);
sql_op *sql_op_new_internal(sql_exec *ex, size_t state);

static const sql_sysview **views;
static int nviews, views_cap;

void sql_sysview_register(const sql_sysview *vs, int n)
{
	for (int i = 0; i < n; i++) {
		if (nviews == views_cap) {
			views_cap = views_cap ? views_cap * 2 : 64;
			views = util_xrealloc(views, sizeof *views * (size_t)views_cap);
		}
		views[nviews++] = &vs[i];
	}
}

const sql_sysview *sql_sysview_find(const char *schema, const char *name)
{
	for (int i = 0; i < nviews; i++)
		if (!strcmp(views[i]->name, name) && !strcmp(views[i]->schema, schema))
			return views[i];
	return NULL;
}

int sql_sysview_count(void)
{
	return nviews;
}
const sql_sysview *sql_sysview_nth(int i)
{
	return i >= 0 && i < nviews ? views[i] : NULL;
}

void sql_sysview_columns(const sql_sysview *v, int *ncols, const char *const **names, const ty_oid **types)
{
	/* Column arrays are built once per view and kept (views are static). */
	typedef struct cache {
		const sql_sysview *v;
		const char **names;
		ty_oid *types;
	} cache;
	static cache *caches;
	static int ncaches;
	static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;
	pthread_mutex_lock(&mu);
	for (int i = 0; i < ncaches; i++)
		if (caches[i].v == v) {
			*ncols = v->ncols;
			*names = caches[i].names;
			*types = caches[i].types;
			pthread_mutex_unlock(&mu);
			return;
		}
	caches = util_xrealloc(caches, sizeof *caches * (size_t)(ncaches + 1));
	cache *c = &caches[ncaches++];
	c->v = v;
	c->names = util_xmalloc(sizeof(char *) * (size_t)(v->ncols ? v->ncols : 1));
	c->types = util_xmalloc(sizeof(ty_oid) * (size_t)(v->ncols ? v->ncols : 1));
	for (int i = 0; i < v->ncols; i++) {
		c->names[i] = v->cols[i].name;
		c->types[i] = v->cols[i].type;
	}
	*ncols = v->ncols;
	*names = c->names;
	*types = c->types;
	pthread_mutex_unlock(&mu);
}

cat_oid sql_sysview_oid(const sql_sysview *v)
{
	return v->oid;
}

const sql_sysview *sql_sysview_by_oid(cat_oid oid)
{
	for (int i = 0; oid && i < nviews; i++)
		if (views[i]->oid == oid)
			return views[i];
	return NULL;
}

const char *sql_sysview_schema_by_oid(cat_oid oid)
{
	const sql_sysview *v = sql_sysview_by_oid(oid);
	return v ? v->schema : NULL;
}

const char *sql_sysview_name_by_oid(cat_oid oid)
{
	const sql_sysview *v = sql_sysview_by_oid(oid);
	return v ? v->name : NULL;
}

/* ---- datum helpers ---- */

ty_datum sql_d_text(const char *s)
{
	return s ? ty_text(s) : ty_null();
}
ty_datum sql_d_name(const char *s)
{
	return s ? ty_text(s) : ty_null();
}
ty_datum sql_d_oid(cat_oid o)
{
	return ty_int(o);
}
ty_datum sql_d_int(int64_t v)
{
	return ty_int(v);
}
ty_datum sql_d_bool(bool b)
{
	return ty_bool(b);
}
ty_datum sql_d_char(char c)
{
	return ty_int((unsigned char)c);
}
ty_datum sql_d_float(double v)
{
	return ty_float(v);
}

ty_datum sql_d_timestamptz_us(int64_t unix_us)
{
	return unix_us ? ty_int(unix_us - TY_UNIX_PG_EPOCH_DIFF_US) : ty_null();
}

static ty_datum str_array(ty_oid elem, int n, const char *const *vals)
{
	ty_datum *d = ty_alloc(sizeof(ty_datum) * (size_t)(n ? n : 1));
	for (int i = 0; i < n; i++)
		d[i] = sql_d_text(vals[i]);
	return ty_array_from_list(elem, n, d);
}

ty_datum sql_d_text_array(int n, const char *const *vals)
{
	return str_array(TY_TEXT, n, vals);
}
ty_datum sql_d_name_array(int n, const char *const *vals)
{
	return str_array(TY_NAME, n, vals);
}

ty_datum sql_d_oid_array(int n, const cat_oid *vals)
{
	ty_datum *d = ty_alloc(sizeof(ty_datum) * (size_t)(n ? n : 1));
	for (int i = 0; i < n; i++)
		d[i] = ty_int(vals[i]);
	return ty_array_from_list(TY_OID, n, d);
}

ty_datum sql_d_int2_array(int n, const int16_t *vals)
{
	ty_datum *d = ty_alloc(sizeof(ty_datum) * (size_t)(n ? n : 1));
	for (int i = 0; i < n; i++)
		d[i] = ty_int(vals[i]);
	return ty_array_from_list(TY_INT2, n, d);
}

ty_datum sql_d_char_array(int n, const char *vals)
{
	ty_datum *d = ty_alloc(sizeof(ty_datum) * (size_t)(n ? n : 1));
	for (int i = 0; i < n; i++)
		d[i] = sql_d_char(vals[i]);
	return ty_array_from_list(TY_CHAR, n, d);
}

/* PostgreSQL's ACL letters, in its print order. */
static const struct {
	uint32_t bit;
	char letter;
} acl_letters[] = {
    {CAT_PRIV_INSERT, 'a'},   {CAT_PRIV_SELECT, 'r'},     {CAT_PRIV_UPDATE, 'w'},  {CAT_PRIV_DELETE, 'd'},
    {CAT_PRIV_TRUNCATE, 'D'}, {CAT_PRIV_REFERENCES, 'x'}, {CAT_PRIV_TRIGGER, 't'}, {CAT_PRIV_USAGE, 'U'},
    {CAT_PRIV_CREATE, 'C'},   {CAT_PRIV_TEMP, 'T'},       {CAT_PRIV_CONNECT, 'c'},
};

static void put_role(cat_snap *cs, cat_oid oid, util_buf *out)
{
	const char *n = sql_role_name(cs, oid);
	if (n)
		sql_quote_ident(n, out);
	else
		util_buf_printf(out, "%u", oid);
}

void sql_acl_item_text(cat_snap *cs, const cat_acl *a, util_buf *out)
{
	if (a->grantee)
		put_role(cs, a->grantee, out);
	util_buf_putc(out, '=');
	for (size_t i = 0; i < UTIL_ARRAY_LEN(acl_letters); i++)
		if (a->privs & acl_letters[i].bit) {
			util_buf_putc(out, acl_letters[i].letter);
			if (a->grant_option & acl_letters[i].bit)
				util_buf_putc(out, '*');
		}
	util_buf_putc(out, '/');
	put_role(cs, a->grantor, out);
}

ty_datum sql_d_acl(cat_snap *cs, int nacl, const cat_acl *acl)
{
	if (!nacl)
		return ty_null();
	ty_datum *d = ty_alloc(sizeof(ty_datum) * (size_t)nacl);
	util_buf b = UTIL_BUF_INIT;
	for (int i = 0; i < nacl; i++) {
		util_buf_reset(&b);
		sql_acl_item_text(cs, &acl[i], &b);
		d[i] = ty_textn(b.data, b.len);
	}
	util_buf_free(&b);
	return ty_array_from_list(TY_ACLITEM, nacl, d);
}

/* ---- roles ---- */

static const sql_builtin_role builtin_roles[] = {
    {3373, "pg_monitor"},           {3374, "pg_read_all_settings"},  {3375, "pg_read_all_stats"},
    {3377, "pg_stat_scan_tables"},  {4200, "pg_signal_backend"},     {4544, "pg_checkpoint"},
    {4569, "pg_read_server_files"}, {4570, "pg_write_server_files"}, {4571, "pg_execute_server_program"},
    {6171, "pg_database_owner"},    {6181, "pg_read_all_data"},      {6182, "pg_write_all_data"},
};

int sql_builtin_role_count(void)
{
	return (int)UTIL_ARRAY_LEN(builtin_roles);
}
const sql_builtin_role *sql_builtin_role_nth(int i)
{
	return i >= 0 && i < (int)UTIL_ARRAY_LEN(builtin_roles) ? &builtin_roles[i] : NULL;
}

const char *sql_role_name(cat_snap *cs, cat_oid oid)
{
	const cat_obj *o = cat_get(cs, oid);
	if (o && o->kind == CAT_ROLE)
		return o->role.name;
	for (size_t i = 0; i < UTIL_ARRAY_LEN(builtin_roles); i++)
		if (builtin_roles[i].oid == oid)
			return builtin_roles[i].name;
	return NULL;
}

cat_oid sql_role_oid(cat_snap *cs, const char *name)
{
	const cat_obj *o = cat_role_by_name(cs, name);
	if (o)
		return o->oid;
	for (size_t i = 0; i < UTIL_ARRAY_LEN(builtin_roles); i++)
		if (!strcmp(builtin_roles[i].name, name))
			return builtin_roles[i].oid;
	return 0;
}

cat_oid sql_db_owner(cat_snap *cs, cat_oid db)
{
	const cat_obj *o = cat_get(cs, db);
	return o && o->kind == CAT_DATABASE ? o->db.owner : CAT_OID_POSTGRES_ROLE;
}

/* ---- derived oids ---- */

/* Derived oids live from 2^30 up, far from the catalog's allocator (which
 * counts up from 16384) and below 2^31 for clients that read oids as signed
 * 32-bit integers: 2^30 + (rel - 16384) * 2048 + slot. Unique for relation
 * oids below 16384 + 2^19. */
#define DOID_BASE  0x40000000u
#define DOID_SLOTS 2048u

cat_oid sql_derived_oid(cat_oid rel, int slot)
{
	uint32_t r = rel >= CAT_FIRST_USER_OID ? rel - CAT_FIRST_USER_OID : rel;
	return DOID_BASE + ((r * DOID_SLOTS) & 0x3fffffffu) + (uint32_t)slot;
}

bool sql_derived_oid_parts(cat_oid oid, cat_oid *rel, int *slot)
{
	if (oid < DOID_BASE)
		return false;
	uint32_t v = oid - DOID_BASE;
	*rel = v / DOID_SLOTS + CAT_FIRST_USER_OID;
	*slot = (int)(v % DOID_SLOTS);
	return true;
}

/* ---- indexes ---- */

bool sql_constraint_index_synthetic(const cat_obj *table, int con)
{
	const cat_constraint *c = &table->rel.cons[con];
	return (c->type == 'p' || c->type == 'u') && c->index_oid == 0;
}

cat_oid sql_constraint_index_oid(const cat_obj *table, int con)
{
	const cat_constraint *c = &table->rel.cons[con];
	if (c->type != 'p' && c->type != 'u')
		return 0;
	if (c->index_oid)
		return c->index_oid;
	return sql_derived_oid(table->oid,
			       c->type == 'p' ? SQL_DOID_PKEY_INDEX : SQL_DOID_UNIQUE_INDEX + con);
}

/* A constraint's synthesized index: its columns, ascending, unique. */
static void desc_from_constraint(const cat_obj *t, int con, sql_index_desc *d)
{
	const cat_constraint *c = &t->rel.cons[con];
	memset(d, 0, sizeof *d);
	d->oid = sql_constraint_index_oid(t, con);
	snprintf(d->name, sizeof d->name, "%s", c->name);
	d->table = t;
	d->con = c;
	d->info.table = t->oid;
	d->info.unique = true;
	d->info.primary = c->type == 'p';
	d->info.nkeys = c->ncols;
	d->info.keys = ty_alloc0(sizeof(cat_index_col) * (size_t)(c->ncols ? c->ncols : 1));
	for (int i = 0; i < c->ncols; i++) {
		d->info.keys[i].attnum = c->cols[i];
		/* A primary key stored descending shows as DESC, as it is ordered. */
		if (c->type == 'p' && t->rel.pk && t->rel.pk_desc)
			for (int k = 0; k < t->rel.npk; k++)
				if (t->rel.pk[k] == c->cols[i])
					d->info.keys[i].desc = t->rel.pk_desc[k];
	}
	d->info.state = CAT_INDEX_PUBLIC;
}

static void desc_from_index(cat_snap *cs, const cat_obj *ix, sql_index_desc *d)
{
	memset(d, 0, sizeof *d);
	d->oid = ix->oid;
	snprintf(d->name, sizeof d->name, "%s", ix->rel.name);
	d->index = ix;
	d->table = cat_get(cs, ix->rel.index->table);
	d->info = *ix->rel.index;
	if (d->table)
		for (int i = 0; i < d->table->rel.ncons; i++)
			if (d->table->rel.cons[i].index_oid == ix->oid)
				d->con = &d->table->rel.cons[i];
}

static int cmp_desc(const void *a, const void *b)
{
	return strcmp(((const sql_index_desc *)a)->name, ((const sql_index_desc *)b)->name);
}

sql_index_desc *sql_table_indexes(cat_snap *cs, const cat_obj *table, int *n)
{
	const cat_rel *r = &table->rel;
	int cap = r->nindexes + r->ncons;
	sql_index_desc *out = ty_alloc(sizeof(sql_index_desc) * (size_t)(cap ? cap : 1));
	int k = 0;
	for (int i = 0; i < r->nindexes; i++) {
		const cat_obj *ix = cat_get(cs, r->indexes[i]);
		if (ix && ix->kind == CAT_REL && ix->rel.index)
			desc_from_index(cs, ix, &out[k++]);
	}
	for (int i = 0; i < r->ncons; i++)
		if (sql_constraint_index_synthetic(table, i))
			desc_from_constraint(table, i, &out[k++]);
	qsort(out, (size_t)k, sizeof *out, cmp_desc);
	*n = k;
	return out;
}

bool sql_index_by_oid(cat_snap *cs, cat_oid oid, sql_index_desc *out)
{
	const cat_obj *o = cat_get(cs, oid);
	if (o) {
		if (o->kind != CAT_REL || !o->rel.index)
			return false;
		desc_from_index(cs, o, out);
		return true;
	}
	cat_oid rel;
	int slot;
	if (!sql_derived_oid_parts(oid, &rel, &slot) || slot < SQL_DOID_UNIQUE_INDEX)
		return false;
	const cat_obj *t = cat_get(cs, rel);
	if (!t || t->kind != CAT_REL)
		return false;
	for (int i = 0; i < t->rel.ncons; i++)
		if (sql_constraint_index_synthetic(t, i) && sql_constraint_index_oid(t, i) == oid) {
			desc_from_constraint(t, i, out);
			return true;
		}
	return false;
}

typedef struct synth_find {
	cat_oid schema; /* 0: any */
	const char *name;
	cat_oid found;
} synth_find;

static int find_synth(void *arg, const cat_obj *o)
{
	synth_find *f = arg;
	if (o->rel.relkind != CAT_RELKIND_TABLE || (f->schema && o->rel.schema != f->schema))
		return 0;
	for (int i = 0; i < o->rel.ncons; i++)
		if (sql_constraint_index_synthetic(o, i) && !strcmp(o->rel.cons[i].name, f->name)) {
			f->found = sql_constraint_index_oid(o, i);
			return 1;
		}
	return 0;
}

cat_oid sql_synth_index_by_name(sql_session *s, cat_snap *cs, const char *schema, const char *name)
{
	cat_oid path[32];
	int n;
	if (schema) {
		const cat_obj *sch = sql_lookup_schema(s, cs, schema);
		if (!sch)
			return 0;
		path[0] = sch->oid;
		n = 1;
	} else {
		n = sql_search_path(s, cs, path, 32);
	}
	for (int i = 0; i < n; i++) {
		if (cat_rel_by_name(cs, path[i], name))
			return 0; /* a catalog relation of that name comes first */
		synth_find f = {path[i], name, 0};
		cat_foreach(cs, CAT_REL, s->db_oid, find_synth, &f);
		if (f.found)
			return f.found;
	}
	return 0;
}

bool sql_synth_index_out(sql_session *s, cat_snap *cs, cat_oid oid, util_buf *out)
{
	sql_index_desc d;
	if (cat_get(cs, oid) || !sql_index_by_oid(cs, oid, &d) || !d.table)
		return false;
	if (sql_synth_index_by_name(s, cs, NULL, d.name) != oid) {
		sql_quote_ident(sql_schema_name(cs, d.table->rel.schema), out);
		util_buf_putc(out, '.');
	}
	sql_quote_ident(d.name, out);
	return true;
}

/* ---- types ---- */

cat_oid sql_type_collation(ty_oid type)
{
	const ty_type *t = ty_type_get(type);
	if (!t)
		return 0;
	if (t->category == 'A' && t->elem && type != TY_INT2VECTOR && type != TY_OIDVECTOR)
		return sql_type_collation(t->elem);
	if (type == TY_NAME)
		return 950; /* "C", as PostgreSQL 15 */
	if (type == TY_TEXT || type == TY_VARCHAR || type == TY_BPCHAR || type == TY_PG_NODE_TREE)
		return 100;
	return 0;
}

/* ---- the scan ---- */

struct sql_sysrows {
	const sql_sysview *v;
	util_arena *arena;
	ty_datum **rows;
	size_t n, cap;
};

const sql_sysview *sql_sysrows_view(const sql_sysrows *out)
{
	return out->v;
}

void sql_sysrows_add(sql_sysrows *out, const ty_datum *vals)
{
	if (out->n == out->cap) {
		out->cap = out->cap ? out->cap * 2 : 64;
		out->rows = util_xrealloc(out->rows, sizeof(ty_datum *) * out->cap);
	}
	util_arena *old = ty_set_arena(out->arena);
	ty_datum *r = ty_alloc(sizeof(ty_datum) * (size_t)(out->v->ncols ? out->v->ncols : 1));
	for (int i = 0; i < out->v->ncols; i++) {
		const ty_type *t = ty_type_get(out->v->cols[i].type);
		r[i] = ty_datum_copy(vals[i], t ? t->byval : true);
	}
	ty_set_arena(old);
	out->rows[out->n++] = r;
}

void sql_sysrow_init(sql_sysrow *r, const sql_sysrows *out)
{
	r->v = out->v;
	r->vals = ty_alloc(sizeof(ty_datum) * (size_t)(r->v->ncols ? r->v->ncols : 1));
	for (int i = 0; i < r->v->ncols; i++)
		r->vals[i] = ty_null();
}

void sql_sysrow_set(sql_sysrow *r, const char *col, ty_datum d)
{
	for (int i = 0; i < r->v->ncols; i++)
		if (!strcmp(r->v->cols[i].name, col)) {
			r->vals[i] = d;
			return;
		}
	ty_error(UTIL_E_INTERNAL_ERROR, "catalog view %s has no column %s", r->v->name, col);
}

void sql_sysrow_emit(sql_sysrow *r, sql_sysrows *out)
{
	sql_sysrows_add(out, r->vals);
}

typedef struct sysscan_state {
	sql_sysrows rows;
	util_arena *work; /* generator scratch, dropped after generation */
	size_t pos;
	bool loaded;
} sysscan_state;

static void sysscan_load(sql_op *op, sysscan_state *st)
{
	const sql_plan *p = op->plan;
	st->loaded = true;
	st->rows.arena = util_arena_new(64 * 1024, 0);
	if (p->scan.sysview) {
		st->rows.v = p->scan.sysview;
		st->work = util_arena_new(64 * 1024, 0);
		util_arena *old = ty_set_arena(st->work);
		TY_TRY(tc)
		{
			p->scan.sysview->generate(op->ex->s, op->ex->cat, &st->rows);
		}
		TY_CATCH(tc)
		{
			TY_END(tc);
			ty_set_arena(old);
			ty_errthrow();
		}
		TY_END(tc);
		ty_set_arena(old);
		util_arena_destroy(st->work);
		st->work = NULL;
	} else if (p->scan.rel && p->scan.rel->rel.relkind == CAT_RELKIND_SEQUENCE) {
		static const sql_syscol seqcols[] = {
		    {"last_value", TY_INT8}, {"log_cnt", TY_INT8}, {"is_called", TY_BOOL}};
		static const sql_sysview seqview = {"", "", 0, 'S', 3, seqcols, NULL};
		st->rows.v = &seqview;
		int64_t last, logc;
		bool called;
		sql_seq_peek(op->ex->s, p->scan.rel->oid, &last, &logc, &called);
		ty_datum vals[3] = {ty_int(last), ty_int(logc), ty_bool(called)};
		sql_sysrows_add(&st->rows, vals);
	}
}

static sql_batch *sysscan_next(sql_op *op)
{
	sysscan_state *st = op->state;
	const sql_plan *p = op->plan;
	if (!st->loaded)
		sysscan_load(op, st);
	sql_batch *b = sql_op_begin_batch(op);
	while (st->pos < st->rows.n && b->n < b->cap) {
		ty_datum *row = sql_batch_row(b, b->n);
		memcpy(row, st->rows.rows[st->pos++], sizeof(ty_datum) * (size_t)p->ncols);
		if (p->qual && !sql_eval_qual(op->ex, p->qual, row))
			continue;
		b->n++;
	}
	return b;
}

static void sysscan_close(sql_op *op)
{
	sysscan_state *st = op->state;
	if (st->rows.arena)
		util_arena_destroy(st->rows.arena);
	if (st->work)
		util_arena_destroy(st->work);
	free(st->rows.rows);
	memset(st, 0, sizeof *st);
}

static void sysscan_rescan(sql_op *op)
{
	sysscan_state *st = op->state;
	st->pos = 0; /* rows stay: a rescan within one statement sees the same catalog */
}

sql_op *sql_op_sysscan(sql_exec *ex, const sql_plan *p)
{
	(void)p;
	sql_op *op = sql_op_new_internal(ex, sizeof(sysscan_state));
	op->next = sysscan_next;
	op->close = sysscan_close;
	op->rescan = sysscan_rescan;
	return op;
}

static pthread_once_t views_once = PTHREAD_ONCE_INIT;

static void init_views(void)
{
	sql_sysviews_core_init();
	sql_sysviews_rel_init();
	sql_sysviews_proc_init();
	sql_sysviews_views_init();
	sql_sysviews_empty_init();
	sql_sysviews_infoschema_init();
}

void sql_sysviews_init(void)
{
	pthread_once(&views_once, init_views);
}
