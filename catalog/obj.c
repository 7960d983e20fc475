/* obj.c — catalog object lifetime: creation, deep copy, reference counts. */
#include <stdatomic.h>
#include <string.h>

#include "cat_int.h"

cat_obj *cat_obj_new(cat_kind kind, cat_oid oid, cat_oid database)
{
	util_arena *a = util_arena_new(1024, 0);
	cat_obj *o = util_arena_zalloc(a, sizeof *o);
	UTIL_ASSERT(o, "catalog object allocation");
	o->kind = kind;
	o->oid = oid;
	o->database = database;
	o->arena = a;
	o->refs = 0;
	o->own_write = false;
	return o;
}

void *cat_obj_alloc(cat_obj *o, size_t n)
{
	void *p = util_arena_zalloc(o->arena, n ? n : 1);
	UTIL_ASSERT(p, "catalog object allocation of %zu bytes", n);
	return p;
}

char *cat_obj_strdup(cat_obj *o, const char *s)
{
	if (!s)
		return NULL;
	size_t n = strlen(s) + 1;
	return memcpy(cat_obj_alloc(o, n), s, n);
}

static void *dup_array(cat_obj *o, const void *p, size_t n)
{
	if (!p || !n)
		return NULL;
	return memcpy(cat_obj_alloc(o, n), p, n);
}

cat_obj *cat_obj_copy(const cat_obj *src)
{
	cat_obj *o = cat_obj_new(src->kind, src->oid, src->database);
	util_arena *a = o->arena;
	memcpy(o, src, sizeof *o);
	o->arena = a;
	o->refs = 0;
	switch (o->kind) {
	case CAT_DATABASE:
		o->db.comment = cat_obj_strdup(o, src->db.comment);
		break;
	case CAT_SCHEMA:
		o->schema.comment = cat_obj_strdup(o, src->schema.comment);
		o->schema.acl = dup_array(o, src->schema.acl, sizeof(cat_acl) * (size_t)src->schema.nacl);
		break;
	case CAT_ROLE:
		o->role.comment = cat_obj_strdup(o, src->role.comment);
		o->role.password = cat_obj_strdup(o, src->role.password);
		o->role.member_of = dup_array(o, src->role.member_of, sizeof(cat_oid) * (size_t)src->role.nmembers_of);
		if (src->role.member_admin)
			o->role.member_admin =
				dup_array(o, src->role.member_admin, sizeof(bool) * (size_t)src->role.nmembers_of);
		o->role.defacl = dup_array(o, src->role.defacl, sizeof(cat_defacl) * (size_t)src->role.ndefacl);
		for (int i = 0; i < src->role.ndefacl; i++)
			o->role.defacl[i].acl =
				dup_array(o, src->role.defacl[i].acl, sizeof(cat_acl) * (size_t)src->role.defacl[i].nacl);
		break;
	case CAT_REL: {
		const cat_rel *s = &src->rel;
		cat_rel *r = &o->rel;
		r->cols = dup_array(o, s->cols, sizeof(cat_column) * (size_t)s->ncols);
		for (int i = 0; i < s->ncols; i++) {
			r->cols[i].default_sql = cat_obj_strdup(o, s->cols[i].default_sql);
			r->cols[i].comment = cat_obj_strdup(o, s->cols[i].comment);
			r->cols[i].acl = dup_array(o, s->cols[i].acl, sizeof(cat_acl) * (size_t)s->cols[i].nacl);
		}
		r->pk = dup_array(o, s->pk, sizeof(int16_t) * (size_t)s->npk);
		r->pk_desc = dup_array(o, s->pk_desc, sizeof(bool) * (size_t)s->npk);
		r->ilv_path = s->ilv_depth ? dup_array(o, s->ilv_path, sizeof(int16_t) * (size_t)(1 + 2 * s->ilv_depth)) : NULL;
		r->cons = dup_array(o, s->cons, sizeof(cat_constraint) * (size_t)s->ncons);
		for (int i = 0; i < s->ncons; i++) {
			cat_constraint *c = &r->cons[i];
			const cat_constraint *sc = &s->cons[i];
			c->cols = dup_array(o, sc->cols, sizeof(int16_t) * (size_t)sc->ncols);
			c->ref_cols = dup_array(o, sc->ref_cols, sizeof(int16_t) * (size_t)sc->ncols);
			c->check_sql = cat_obj_strdup(o, sc->check_sql);
			c->comment = cat_obj_strdup(o, sc->comment);
		}
		r->indexes = dup_array(o, s->indexes, sizeof(cat_oid) * (size_t)s->nindexes);
		r->opts = dup_array(o, s->opts, sizeof(cat_reloption) * (size_t)s->nopts);
		for (int i = 0; i < s->nopts; i++) {
			r->opts[i].name = cat_obj_strdup(o, s->opts[i].name);
			r->opts[i].value = cat_obj_strdup(o, s->opts[i].value);
		}
		r->acl = dup_array(o, s->acl, sizeof(cat_acl) * (size_t)s->nacl);
		r->view_sql = cat_obj_strdup(o, s->view_sql);
		r->comment = cat_obj_strdup(o, s->comment);
		if (s->index) {
			r->index = dup_array(o, s->index, sizeof *s->index);
			r->index->keys = dup_array(o, s->index->keys, sizeof(cat_index_col) * (size_t)s->index->nkeys);
			for (int i = 0; i < s->index->nkeys; i++)
				r->index->keys[i].expr_sql = cat_obj_strdup(o, s->index->keys[i].expr_sql);
			r->index->include = dup_array(o, s->index->include, sizeof(int16_t) * (size_t)s->index->ninclude);
			r->index->predicate_sql = cat_obj_strdup(o, s->index->predicate_sql);
		}
		if (s->seq)
			r->seq = dup_array(o, s->seq, sizeof *s->seq);
		break;
	}
	}
	return o;
}

void cat_obj_free(cat_obj *o)
{
	if (o)
		util_arena_destroy(o->arena);
}

void cat_obj_addref(cat_obj *o) { atomic_fetch_add_explicit((_Atomic int *)&o->refs, 1, memory_order_relaxed); }

void cat_obj_release(cat_obj *o)
{
	if (atomic_fetch_sub_explicit((_Atomic int *)&o->refs, 1, memory_order_acq_rel) == 1)
		cat_obj_free(o);
}

const cat_column *cat_column_by_name(const cat_rel *r, const char *name)
{
	for (int i = 0; i < r->ncols; i++)
		if (!r->cols[i].dropped && strcmp(r->cols[i].name, name) == 0)
			return &r->cols[i];
	return NULL;
}

const cat_column *cat_column_by_attnum(const cat_rel *r, int attnum)
{
	if (attnum >= 1 && attnum <= r->ncols && r->cols[attnum - 1].attnum == attnum)
		return &r->cols[attnum - 1];
	for (int i = 0; i < r->ncols; i++)
		if (r->cols[i].attnum == attnum)
			return &r->cols[i];
	return NULL;
}

const cat_constraint *cat_constraint_by_name(const cat_rel *r, const char *name)
{
	for (int i = 0; i < r->ncons; i++)
		if (strcmp(r->cons[i].name, name) == 0)
			return &r->cons[i];
	return NULL;
}

const char *cat_rel_option(const cat_rel *r, const char *name)
{
	for (int i = 0; i < r->nopts; i++)
		if (strcmp(r->opts[i].name, name) == 0)
			return r->opts[i].value;
	return NULL;
}

bool cat_obj_same_definition(const cat_obj *a, const cat_obj *b)
{
	if (a == b)
		return true;
	if (!a || !b || a->kind != b->kind)
		return false;
	/* A shallow copy of b with a's bookkeeping encodes to a's bytes exactly
	 * when nothing else differs. */
	cat_obj t = *b;
	cat_index_info ii;
	if (t.kind == CAT_REL) {
		t.rel.stats_rows = a->rel.stats_rows;
		if (t.rel.index && a->rel.index) {
			ii = *t.rel.index;
			ii.backfill_progress = a->rel.index->backfill_progress;
			t.rel.index = &ii;
		}
	}
	util_buf ea = UTIL_BUF_INIT, eb = UTIL_BUF_INIT;
	cat_obj_encode(a, &ea);
	cat_obj_encode(&t, &eb);
	bool same = ea.len == eb.len && !memcmp(ea.data, eb.data, ea.len);
	util_buf_free(&ea);
	util_buf_free(&eb);
	return same;
}
