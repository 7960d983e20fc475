/*
 * ddl_drop.c — DROP TABLE/VIEW/SEQUENCE/SCHEMA with PostgreSQL's dependency
 * rules. The objects that depend on what is dropped are found first
 * (depth-first, oldest first, as PostgreSQL's pg_depend scan orders them):
 * views reading a relation, foreign keys referencing a table, column
 * defaults using a sequence, the members of a schema. Without CASCADE any
 * such object is an error listing them all ("X depends on Y"); with
 * CASCADE they go too, reported as "drop cascades to ..." notices. Indexes
 * and sequences owned by a column go silently with their table.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ddl_int.h"

static const char *str_of(pnode *n)
{
	return n && n->node_case == PG_QUERY__NODE__NODE_STRING ? n->string->sval : NULL;
}

typedef struct dobj {
	char kind;    /* 'r' relation, 'c' foreign-key constraint, 'd' column default, 's' schema */
	cat_oid oid;  /* relation or schema; for 'c' and 'd' the table */
	cat_oid sub;  /* 'c': constraint oid, 'd': attnum */
	char on_kind; /* what it was reached from (error detail) */
	cat_oid on_oid, on_sub;
	bool target; /* named by the statement */
	bool silent; /* goes with its owner without a notice (indexes, owned sequences) */
} dobj;

typedef struct dropset {
	sql_session *s;
	cat_snap *cs;
	dobj *v;
	int n, cap;
	util_map seen;     /* kind|oid|sub -> 1: in v */
	util_map visiting; /* entered by visit() (cycles) */
} dropset;

static bool in_set(dropset *d, char kind, cat_oid oid, cat_oid sub)
{
	uint8_t k[9] = {(uint8_t)kind};
	util_put_be32(k + 1, oid);
	util_put_be32(k + 5, sub);
	return util_map_get(&d->seen, k, 9) != NULL;
}

static bool add(dropset *d, dobj o)
{
	uint8_t k[9] = {(uint8_t)o.kind};
	util_put_be32(k + 1, o.oid);
	util_put_be32(k + 5, o.sub);
	if (util_map_get(&d->seen, k, 9))
		return false;
	util_map_put(&d->seen, k, 9, (void *)1);
	if (d->n == d->cap) {
		d->cap = d->cap ? d->cap * 2 : 16;
		dobj *nv = ty_alloc(sizeof(dobj) * (size_t)d->cap);
		if (d->n)
			memcpy(nv, d->v, sizeof(dobj) * (size_t)d->n);
		d->v = nv;
	}
	d->v[d->n++] = o;
	return true;
}

static void notice_detail(sql_session *s, const char *detail, const char *fmt, ...) UTIL_PRINTF(3, 4);
static void notice_detail(sql_session *s, const char *detail, const char *fmt, ...)
{
	util_err n;
	util_err_clear(&n);
	va_list ap;
	va_start(ap, fmt);
	util_err_vset(&n, UTIL_E_SUCCESSFUL_COMPLETION, fmt, ap);
	va_end(ap);
	util_err_detail(&n, "%s", detail);
	n.severity = UTIL_SEV_NOTICE;
	if (s->client.notice)
		s->client.notice(s->client.arg, &n);
}

/* ---------------------------------------------------------------- finding dependents */

typedef struct oidlist {
	cat_oid *a, *b; /* pairs (a = object, b = sub) */
	int n;
} oidlist;

static void push(oidlist *l, cat_oid a, cat_oid b)
{
	cat_oid *na = ty_alloc(sizeof(cat_oid) * (size_t)(l->n + 1)),
		*nb = ty_alloc(sizeof(cat_oid) * (size_t)(l->n + 1));
	if (l->n) {
		memcpy(na, l->a, sizeof(cat_oid) * (size_t)l->n);
		memcpy(nb, l->b, sizeof(cat_oid) * (size_t)l->n);
	}
	na[l->n] = a;
	nb[l->n] = b;
	l->a = na;
	l->b = nb;
	l->n++;
}

typedef struct dep_find {
	dropset *d;
	const cat_obj *target;
	oidlist views, fks, defaults, owned, members;
} dep_find;

static int find_fn(void *arg, const cat_obj *o)
{
	dep_find *f = arg;
	const cat_obj *t = f->target;
	if (o->oid == t->oid)
		return 0;
	if (t->kind == CAT_SCHEMA) {
		if (o->rel.schema != t->oid || o->rel.relkind == CAT_RELKIND_INDEX)
			return 0;
		if (o->rel.relkind == CAT_RELKIND_SEQUENCE && o->rel.seq && o->rel.seq->owned_by_table)
			return 0;
		push(&f->members, o->oid, 0);
		return 0;
	}
	const cat_rel *r = &o->rel;
	if (r->relkind == CAT_RELKIND_VIEW && r->view_sql && sql_view_depends_on(f->d->s, o, t->oid))
		push(&f->views, o->oid, 0);
	if (t->rel.relkind == CAT_RELKIND_TABLE)
		for (int i = 0; i < r->ncons; i++)
			if (r->cons[i].type == 'f' && r->cons[i].ref_table == t->oid)
				push(&f->fks, o->oid, r->cons[i].oid);
	if (t->rel.relkind == CAT_RELKIND_SEQUENCE && r->relkind == CAT_RELKIND_TABLE)
		for (int i = 0; i < r->ncols; i++)
			if (!r->cols[i].dropped && r->cols[i].default_sql &&
			    strstr(r->cols[i].default_sql, "nextval(") &&
			    sql_text_default_uses_seq(f->d->s, f->d->cs, r->cols[i].default_sql, t->oid))
				push(&f->defaults, o->oid, (cat_oid)r->cols[i].attnum);
	if (t->rel.relkind == CAT_RELKIND_TABLE && r->relkind == CAT_RELKIND_SEQUENCE && r->seq &&
	    r->seq->owned_by_table == t->oid)
		push(&f->owned, o->oid, 0);
	return 0;
}

static void visit(dropset *d, dobj o);

static int cmp_child(const void *a, const void *b)
{
	const dobj *x = a, *y = b;
	cat_oid kx = x->kind == 'c' ? x->sub : x->oid, ky = y->kind == 'c' ? y->sub : y->oid;
	return (kx < ky) - (kx > ky); /* newest first */
}

/* Visits what depends on a relation or schema, newest first. Like
 * PostgreSQL's findDependentObjects, an object is appended after everything
 * that depends on it (the list is a deletion order; reports read it
 * backwards). */
static void visit_children(dropset *d, const cat_obj *o)
{
	dep_find f;
	memset(&f, 0, sizeof f);
	f.d = d;
	f.target = o;
	cat_foreach(d->cs, CAT_REL, d->s->db_oid, find_fn, &f);
	char on = o->kind == CAT_SCHEMA ? 's' : 'r';
	int cap = f.views.n + f.fks.n + f.defaults.n + f.members.n + f.owned.n +
		  (o->kind == CAT_REL ? o->rel.nindexes : 0);
	dobj *kids = ty_alloc(sizeof(dobj) * (size_t)(cap + 1));
	int n = 0;
	for (int i = 0; i < f.views.n; i++)
		kids[n++] = (dobj){'r', f.views.a[i], 0, on, o->oid, 0, false, false};
	for (int i = 0; i < f.fks.n; i++)
		kids[n++] = (dobj){'c', f.fks.a[i], f.fks.b[i], on, o->oid, 0, false, false};
	for (int i = 0; i < f.defaults.n; i++)
		kids[n++] = (dobj){'d', f.defaults.a[i], f.defaults.b[i], on, o->oid, 0, false, false};
	for (int i = 0; i < f.members.n; i++)
		kids[n++] = (dobj){'r', f.members.a[i], 0, on, o->oid, 0, false, false};
	/* Indexes and owned sequences go silently with the table. */
	for (int i = 0; i < f.owned.n; i++)
		kids[n++] = (dobj){'r', f.owned.a[i], 0, on, o->oid, 0, false, true};
	if (o->kind == CAT_REL)
		for (int i = 0; i < o->rel.nindexes; i++)
			if (cat_get(d->cs, o->rel.indexes[i]))
				kids[n++] = (dobj){'r', o->rel.indexes[i], 0, on, o->oid, 0, false, true};
	qsort(kids, (size_t)n, sizeof(dobj), cmp_child);
	for (int i = 0; i < n; i++)
		visit(d, kids[i]);
}

static void visit(dropset *d, dobj o)
{
	uint8_t k[9] = {(uint8_t)o.kind};
	util_put_be32(k + 1, o.oid);
	util_put_be32(k + 5, o.sub);
	if (in_set(d, o.kind, o.oid, o.sub) || util_map_get(&d->visiting, k, 9))
		return;
	util_map_put(&d->visiting, k, 9, (void *)1);
	if (o.kind == 'r' || o.kind == 's') {
		const cat_obj *obj = cat_get(d->cs, o.oid);
		if (obj)
			visit_children(d, obj);
	}
	add(d, o);
}

/* ---------------------------------------------------------------- descriptions */

static void rel_name(dropset *d, const cat_obj *o, util_buf *b)
{
	const cat_obj *vis = sql_lookup_rel_name(d->s, d->cs, NULL, o->rel.name);
	if (!vis || vis->oid != o->oid) {
		util_buf_puts(b, sql_schema_name(d->cs, o->rel.schema));
		util_buf_putc(b, '.');
	}
	util_buf_puts(b, o->rel.name);
}

static void describe(dropset *d, char kind, cat_oid oid, cat_oid sub, util_buf *b)
{
	const cat_obj *o = cat_get(d->cs, oid);
	if (!o) {
		util_buf_puts(b, "?");
		return;
	}
	switch (kind) {
	case 's':
		util_buf_printf(b, "schema %s", o->schema.name);
		return;
	case 'r':
		util_buf_printf(b, "%s ", sql_ddl_kind_word(o->rel.relkind));
		rel_name(d, o, b);
		return;
	case 'c': {
		const char *cn = "?";
		for (int i = 0; i < o->rel.ncons; i++)
			if (o->rel.cons[i].oid == sub)
				cn = o->rel.cons[i].name;
		util_buf_printf(b, "constraint %s on table ", cn);
		rel_name(d, o, b);
		return;
	}
	case 'd': {
		const cat_column *c = cat_column_by_attnum(&o->rel, (int)sub);
		util_buf_printf(b, "default value for column %s of table ", c ? c->name : "?");
		rel_name(d, o, b);
		return;
	}
	default:
		util_buf_puts(b, "?");
	}
}

/* Is the entry reported (not a target, not silent, not part of a table
 * that is dropped anyway)? */
static bool reported(dropset *d, const dobj *o)
{
	if (o->target || o->silent)
		return false;
	if ((o->kind == 'c' || o->kind == 'd') && in_set(d, 'r', o->oid, 0))
		return false;
	return true;
}

static void report(dropset *d, bool cascade, const char *what)
{
	int n = 0;
	for (int i = 0; i < d->n; i++)
		n += reported(d, &d->v[i]);
	if (!n)
		return;
	util_buf det = UTIL_BUF_INIT;
	for (int i = d->n - 1; i >= 0; i--) {
		const dobj *o = &d->v[i];
		if (!reported(d, o))
			continue;
		if (det.len)
			util_buf_putc(&det, '\n');
		if (cascade) {
			util_buf_puts(&det, "drop cascades to ");
			describe(d, o->kind, o->oid, o->sub, &det);
		} else {
			describe(d, o->kind, o->oid, o->sub, &det);
			util_buf_puts(&det, " depends on ");
			describe(d, o->on_kind, o->on_oid, o->on_sub, &det);
		}
	}
	if (!cascade) {
		util_err *e =
		    what ? ty_errstart(UTIL_E_DEPENDENT_OBJECTS_STILL_EXIST,
				       "cannot drop %s because other objects depend on it", what)
			 : ty_errstart(UTIL_E_DEPENDENT_OBJECTS_STILL_EXIST,
				       "cannot drop desired object(s) because other objects depend on them");
		util_err_detail(e, "%s", det.data);
		util_err_hint(e, "Use DROP ... CASCADE to drop the dependent objects too.");
		util_buf_free(&det);
		ty_errthrow();
	}
	if (n == 1)
		sql_notice(d->s, UTIL_E_SUCCESSFUL_COMPLETION, "%s", det.data);
	else
		notice_detail(d->s, det.data, "drop cascades to %d other objects", n);
	util_buf_free(&det);
}

/* ---------------------------------------------------------------- executing */

static void drop_constraint(dropset *d, cat_txn *ct, cat_oid table, cat_oid con)
{
	const cat_obj *o = cat_get(cat_txn_snap(ct), table);
	if (!o)
		return;
	cat_obj *c = cat_obj_copy(o);
	int k = 0;
	for (int i = 0; i < c->rel.ncons; i++)
		if (c->rel.cons[i].oid != con)
			c->rel.cons[k++] = c->rel.cons[i];
	c->rel.ncons = k;
	cat_txn_put(ct, c);
	(void)d;
}

static void drop_default(cat_txn *ct, cat_oid table, int attnum)
{
	const cat_obj *o = cat_get(cat_txn_snap(ct), table);
	if (!o)
		return;
	cat_obj *c = cat_obj_copy(o);
	cat_column *col = (cat_column *)cat_column_by_attnum(&c->rel, attnum);
	if (col)
		col->default_sql = NULL;
	cat_txn_put(ct, c);
}

static void execute(dropset *d, cat_txn *ct)
{
	sql_session *s = d->s;
	/* Every relation dropped or changed is locked first. */
	for (int i = 0; i < d->n; i++)
		if (d->v[i].kind != 's')
			sql_rel_lock(s, d->v[i].oid, true);
	for (int i = 0; i < d->n; i++) {
		const dobj *o = &d->v[i];
		switch (o->kind) {
		case 'c':
			if (!in_set(d, 'r', o->oid, 0))
				drop_constraint(d, ct, o->oid, o->sub);
			break;
		case 'd':
			if (!in_set(d, 'r', o->oid, 0))
				drop_default(ct, o->oid, (int)o->sub);
			break;
		case 'r': {
			const cat_obj *r = cat_get(cat_txn_snap(ct), o->oid);
			if (!r)
				break;
			if (r->rel.storage[0])
				sql_txn_drop_storage_after_commit(s->txn, r->rel.storage);
			if (r->rel.relkind == CAT_RELKIND_SEQUENCE)
				sql_seq_forget(s, r->oid);
			cat_txn_delete(ct, o->oid);
			break;
		}
		case 's':
			cat_txn_delete(ct, o->oid);
			break;
		}
	}
}

/* ---------------------------------------------------------------- DROP */

static char want_kind(PgQuery__ObjectType t)
{
	switch (t) {
	case PG_QUERY__OBJECT_TYPE__OBJECT_TABLE:
		return CAT_RELKIND_TABLE;
	case PG_QUERY__OBJECT_TYPE__OBJECT_VIEW:
		return CAT_RELKIND_VIEW;
	case PG_QUERY__OBJECT_TYPE__OBJECT_SEQUENCE:
		return CAT_RELKIND_SEQUENCE;
	case PG_QUERY__OBJECT_TYPE__OBJECT_INDEX:
		return CAT_RELKIND_INDEX;
	default:
		return 0;
	}
}

static const char *upper_kind(char relkind)
{
	switch (relkind) {
	case CAT_RELKIND_VIEW:
		return "VIEW";
	case CAT_RELKIND_TABLE:
		return "TABLE";
	case CAT_RELKIND_INDEX:
		return "INDEX";
	default:
		return "SEQUENCE";
	}
}

static const cat_obj *drop_target(sql_session *s, cat_snap *cs, PgQuery__DropStmt *st, pnode *obj, char want)
{
	PgQuery__List *l = obj->list;
	const char *schema = l->n_items > 1 ? str_of(l->items[l->n_items - 2]) : NULL;
	const char *name = str_of(l->items[l->n_items - 1]);
	if (schema && !sql_lookup_schema(s, cs, schema)) {
		if (st->missing_ok) {
			sql_notice(s, UTIL_E_SUCCESSFUL_COMPLETION, "schema \"%s\" does not exist, skipping",
				   schema);
			return NULL;
		}
		ty_error(UTIL_E_INVALID_SCHEMA_NAME, "schema \"%s\" does not exist", schema);
	}
	const cat_obj *o = sql_lookup_rel_name(s, cs, schema, name);
	if (!o) {
		if (st->missing_ok) {
			sql_notice(s, UTIL_E_SUCCESSFUL_COMPLETION, "%s \"%s\" does not exist, skipping",
				   sql_ddl_kind_word(want), name);
			return NULL;
		}
		/* PostgreSQL names the relation without its schema; an index is an
		 * "object" (42704), the others relations (42P01). */
		ty_error(want == CAT_RELKIND_INDEX ? UTIL_E_UNDEFINED_OBJECT : UTIL_E_UNDEFINED_TABLE,
			 "%s \"%s\" does not exist", sql_ddl_kind_word(want), name);
	}
	if (o->rel.relkind != want) {
		util_err *e = ty_errstart(UTIL_E_WRONG_OBJECT_TYPE, "\"%s\" is not a%s %s", name,
					  want == CAT_RELKIND_INDEX ? "n" : "", sql_ddl_kind_word(want));
		util_err_hint(e, "Use DROP %s to remove a%s %s.", upper_kind(o->rel.relkind),
			      o->rel.relkind == CAT_RELKIND_INDEX ? "n" : "",
			      sql_ddl_kind_word(o->rel.relkind));
		ty_errthrow();
	}
	if (o->rel.schema == CAT_OID_PG_CATALOG || o->rel.schema == CAT_OID_INFORMATION_SCHEMA)
		ty_error(UTIL_E_INSUFFICIENT_PRIVILEGE, "permission denied: \"%s\" is a system catalog",
			 name);
	/* The owner of the relation or of its schema may drop it. */
	const cat_obj *sch = cat_get(cs, o->rel.schema);
	if (!sql_priv_is_owner(s, cs, o->rel.owner) && !(sch && sql_priv_is_owner(s, cs, sch->schema.owner)))
		ty_error(UTIL_E_INSUFFICIENT_PRIVILEGE, "must be owner of %s %s",
			 sql_ddl_kind_word(o->rel.relkind), o->rel.name);
	if (o->rel.relkind == CAT_RELKIND_SEQUENCE && o->rel.seq && o->rel.seq->owned_by_table) {
		/* PostgreSQL: an owned sequence drops alone (its default goes with it). */
	}
	return o;
}

void sql_ddl_drop(sql_session *s, PgQuery__DropStmt *st, const char *text)
{
	if (sql_ddl_drop_builtin(s, st, text))
		return;
	if (st->concurrent && (s->txn_state != SQL_TXN_IDLE || s->implicit_block || s->txn->explicit_block))
		ty_error(UTIL_E_ACTIVE_SQL_TRANSACTION,
			 "DROP INDEX CONCURRENTLY cannot run inside a transaction block");
	cat_txn *ct = sql_txn_ddl(s->txn);
	bool cascade = st->behavior == PG_QUERY__DROP_BEHAVIOR__DROP_CASCADE;
	dropset d;
	memset(&d, 0, sizeof d);
	d.s = s;
	d.cs = cat_txn_snap(ct);
	cat_snap_ref(d.cs);
	const char *what = NULL;
	char wbuf[2 * CAT_NAME_MAX + 32];
	TY_TRY(tc)
	{
		if (st->remove_type == PG_QUERY__OBJECT_TYPE__OBJECT_SCHEMA) {
			for (size_t i = 0; i < st->n_objects; i++) {
				const char *name = str_of(st->objects[i]);
				const cat_obj *sch = sql_lookup_schema(s, d.cs, name);
				if (!sch) {
					if (st->missing_ok) {
						sql_notice(s, UTIL_E_SUCCESSFUL_COMPLETION,
							   "schema \"%s\" does not exist, skipping", name);
						continue;
					}
					ty_error(UTIL_E_INVALID_SCHEMA_NAME, "schema \"%s\" does not exist",
						 name);
				}
				if (sch->database == 0 || sch->oid == CAT_OID_PG_CATALOG ||
				    sch->oid == CAT_OID_INFORMATION_SCHEMA)
					ty_error(UTIL_E_DEPENDENT_OBJECTS_STILL_EXIST,
						 "cannot drop schema %s because it is required by the "
						 "database system",
						 name);
				if (!sql_priv_is_owner(s, d.cs, sch->schema.owner))
					ty_error(UTIL_E_INSUFFICIENT_PRIVILEGE, "must be owner of schema %s",
						 name);
				snprintf(wbuf, sizeof wbuf, "schema %s", name);
				what = st->n_objects == 1 ? wbuf : NULL;
				visit(&d, (dobj){'s', sch->oid, 0, 0, 0, 0, true, false});
			}
		} else {
			char want = want_kind(st->remove_type);
			if (!want)
				ty_error(UTIL_E_FEATURE_NOT_SUPPORTED, "this kind of DROP is not supported");
			const cat_obj **targets = ty_alloc(sizeof(cat_obj *) * (st->n_objects + 1));
			int nt = 0;
			for (size_t i = 0; i < st->n_objects; i++) {
				const cat_obj *o = drop_target(s, d.cs, st, st->objects[i], want);
				if (!o)
					continue;
				if (want == CAT_RELKIND_INDEX) {
					sql_drop_index(s, ct, o, cascade);
					continue;
				}
				targets[nt++] = o;
			}
			/* Every target is known before dependents are looked at. */
			for (int i = 0; i < nt; i++) {
				uint8_t k[9] = {'r'};
				util_put_be32(k + 1, targets[i]->oid);
				util_put_be32(k + 5, 0);
				util_map_put(&d.visiting, k, 9, (void *)1);
			}
			if (nt == 1) {
				snprintf(wbuf, sizeof wbuf, "%s %s",
					 sql_ddl_kind_word(targets[0]->rel.relkind), targets[0]->rel.name);
				what = wbuf;
			}
			for (int i = 0; i < nt; i++) {
				visit_children(&d, targets[i]);
				add(&d, (dobj){'r', targets[i]->oid, 0, 0, 0, 0, true, false});
			}
		}
		report(&d, cascade, what);
		execute(&d, ct);
	}
	TY_CATCH(tc)
	{
		TY_END(tc);
		cat_snap_release(d.cs);
		util_map_free(&d.seen);
		util_map_free(&d.visiting);
		ty_errthrow();
	}
	TY_END(tc);
	cat_snap_release(d.cs);
	util_map_free(&d.seen);
	util_map_free(&d.visiting);
}
