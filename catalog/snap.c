/* snap.c — catalog snapshots: oid and name indexes over shared,
 * reference-counted objects; cloning copies the indexes, not the objects. */
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cat_int.h"

/* Name keys: one namespace per kind and parent (pg_class names are unique
 * per schema, schema names per database, roles and databases globally). */
static size_t name_key(char *buf, size_t cap, cat_kind kind, cat_oid parent, const char *name)
{
	int n = snprintf(buf, cap, "%d:%u:%s", (int)kind, parent, name);
	return n < 0 ? 0 : (size_t)n < cap ? (size_t)n : cap - 1;
}

size_t cat_obj_name_key(char *buf, size_t cap, const cat_obj *o)
{
	switch (o->kind) {
	case CAT_DATABASE: return name_key(buf, cap, o->kind, 0, o->db.name);
	case CAT_ROLE: return name_key(buf, cap, o->kind, 0, o->role.name);
	case CAT_SCHEMA: return name_key(buf, cap, o->kind, o->database, o->schema.name);
	case CAT_REL: return name_key(buf, cap, o->kind, o->rel.schema, o->rel.name);
	}
	return 0;
}

cat_snap *cat_snap_new(uint64_t version)
{
	cat_snap *s = util_xcalloc(1, sizeof *s);
	s->refs = 1;
	s->version = version;
	return s;
}

cat_snap *cat_snap_clone(const cat_snap *src)
{
	cat_snap *s = cat_snap_new(src->version + 1);
	size_t pos = 0;
	void *v;
	while (util_map_next(&src->by_oid, &pos, NULL, NULL, &v))
		cat_snap_add(s, v);
	return s;
}

void cat_snap_add(cat_snap *s, cat_obj *o)
{
	cat_snap_remove(s, o->oid);
	cat_obj_addref(o);
	util_map_put_u64(&s->by_oid, o->oid, o);
	char key[CAT_NAME_MAX + 32];
	size_t n = cat_obj_name_key(key, sizeof key, o);
	util_map_put(&s->by_name, key, n, o);
}

void cat_snap_remove(cat_snap *s, cat_oid oid)
{
	cat_obj *o = util_map_del_u64(&s->by_oid, oid);
	if (!o)
		return;
	char key[CAT_NAME_MAX + 32];
	size_t n = cat_obj_name_key(key, sizeof key, o);
	if (util_map_get(&s->by_name, key, n) == o)
		util_map_del(&s->by_name, key, n);
	cat_obj_release(o);
}

void cat_snap_ref(cat_snap *s) { atomic_fetch_add_explicit((_Atomic int *)&s->refs, 1, memory_order_relaxed); }

void cat_snap_release(cat_snap *s)
{
	if (!s || atomic_fetch_sub_explicit((_Atomic int *)&s->refs, 1, memory_order_acq_rel) != 1)
		return;
	size_t pos = 0;
	void *v;
	while (util_map_next(&s->by_oid, &pos, NULL, NULL, &v))
		cat_obj_release(v);
	util_map_free(&s->by_oid);
	util_map_free(&s->by_name);
	free(s);
}

uint64_t cat_snap_version(const cat_snap *s) { return s->version; }

const cat_obj *cat_get(const cat_snap *s, cat_oid oid) { return util_map_get_u64(&s->by_oid, oid); }

static const cat_obj *by_name(const cat_snap *s, cat_kind kind, cat_oid parent, const char *name)
{
	char key[CAT_NAME_MAX + 32];
	size_t n = name_key(key, sizeof key, kind, parent, name);
	return util_map_get(&s->by_name, key, n);
}

const cat_obj *cat_database_by_name(const cat_snap *s, const char *name) { return by_name(s, CAT_DATABASE, 0, name); }
const cat_obj *cat_role_by_name(const cat_snap *s, const char *name) { return by_name(s, CAT_ROLE, 0, name); }
const cat_obj *cat_schema_by_name(const cat_snap *s, cat_oid db, const char *name)
{
	return by_name(s, CAT_SCHEMA, db, name);
}
const cat_obj *cat_rel_by_name(const cat_snap *s, cat_oid schema, const char *name)
{
	return by_name(s, CAT_REL, schema, name);
}

static int cmp_oid(const void *a, const void *b)
{
	cat_oid x = (*(const cat_obj *const *)a)->oid, y = (*(const cat_obj *const *)b)->oid;
	return x < y ? -1 : x > y;
}

void cat_foreach(const cat_snap *s, cat_kind kind, cat_oid db, int (*fn)(void *arg, const cat_obj *o), void *arg)
{
	size_t n = 0, pos = 0;
	void *v;
	const cat_obj **list = util_xmalloc(sizeof *list * (util_map_count(&s->by_oid) + 1));
	while (util_map_next(&s->by_oid, &pos, NULL, NULL, &v)) {
		const cat_obj *o = v;
		if (o->kind == kind && (db == 0 || o->database == db || o->database == 0))
			list[n++] = o;
	}
	qsort(list, n, sizeof *list, cmp_oid);
	for (size_t i = 0; i < n; i++)
		if (fn(arg, list[i]))
			break;
	free(list);
}
