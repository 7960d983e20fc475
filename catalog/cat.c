/*
 * cat.c — the catalog manager: loading "sys.catalog" into a snapshot,
 * first-start bootstrap, oid allocation, change sets (cat_txn) and
 * publishing new snapshots, and removal of kv tables left behind by a
 * crash in the middle of DDL.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cat_int.h"

static const char META_ROW[] = "m";
static const char META_NEXT_OID[] = "next_oid";
static const char META_VERSION[] = "version"; /* shared stores only, in VER_ROW */
/* The catalog version has a kv row of its own: a DDL transaction writes it
 * and REPEATABLE READ commits are first-committer-wins per kv row, so it
 * must not share a row with the oid reservations the same transaction
 * commits on the way (META_ROW). */
static const char VER_ROW[] = "v";
#define OID_BATCH 256

static void obj_row(cat_oid oid, uint8_t row[5])
{
	row[0] = 'o';
	util_put_be32(row + 1, oid);
}

static int kv_fail(util_err *err, kv_status st, const char *what)
{
	util_errcode code = st == KV_NO_SPACE	 ? UTIL_E_DISK_FULL
			    : st == KV_CORRUPTION ? UTIL_E_DATA_CORRUPTED
			    : st == KV_IO_ERROR	  ? UTIL_E_IO_ERROR
						  : UTIL_E_INTERNAL_ERROR;
	return util_err_set(err, code, "catalog: %s: %s (%s)", what, kv_status_name(st), kv_errmsg());
}

kv_store *cat_kv(cat *c) { return c->kv; }

/* ---- bootstrap ---- */

static cat_obj *boot_schema(cat_oid oid, cat_oid db, const char *name, const char *comment)
{
	cat_obj *o = cat_obj_new(CAT_SCHEMA, oid, db);
	snprintf(o->schema.name, sizeof o->schema.name, "%s", name);
	o->schema.owner = CAT_OID_POSTGRES_ROLE;
	o->schema.comment = cat_obj_strdup(o, comment);
	return o;
}

static cat_obj *boot_db(cat_oid oid, const char *name, bool allow, const char *comment)
{
	cat_obj *o = cat_obj_new(CAT_DATABASE, oid, 0);
	snprintf(o->db.name, sizeof o->db.name, "%s", name);
	o->db.owner = CAT_OID_POSTGRES_ROLE;
	o->db.allow_connections = allow;
	o->db.conn_limit = -1;
	o->db.comment = cat_obj_strdup(o, comment);
	return o;
}

/* Writes the first catalog. On a shared store several servers may find the
 * catalog empty at once: the commit requires the oid counter absent (on
 * etcd: one compare in the bootstrap's transaction), so exactly one
 * bootstrap is written; *lost is set for the others, which load the
 * winner's catalog instead (an unconditional second bootstrap would reset
 * the oid counter under tables the winner had already created). */
static int bootstrap(cat *c, bool *lost, util_err *err)
{
	*lost = false;
	cat_obj *objs[8];
	int n = 0;
	cat_obj *role = cat_obj_new(CAT_ROLE, CAT_OID_POSTGRES_ROLE, 0);
	snprintf(role->role.name, sizeof role->role.name, "postgres");
	role->role.superuser = role->role.inherit = role->role.createrole = role->role.createdb = true;
	role->role.login = role->role.replication = role->role.bypassrls = true;
	role->role.conn_limit = -1;
	objs[n++] = role;
	objs[n++] = boot_db(CAT_OID_TEMPLATE1, "template1", true, "default template for new databases");
	objs[n++] = boot_db(4, "template0", false, "unmodifiable empty database");
	objs[n++] = boot_db(CAT_OID_POSTGRES_DB, "postgres", true, "default administrative connection database");
	objs[n++] = boot_schema(CAT_OID_PG_CATALOG, 0, "pg_catalog", "system catalog schema");
	objs[n++] = boot_schema(CAT_OID_INFORMATION_SCHEMA, 0, "information_schema", NULL);
	cat_obj *pub = boot_schema(CAT_OID_PUBLIC, CAT_OID_POSTGRES_DB, "public", "standard public schema");
	pub->schema.owner = 6171; /* pg_database_owner, as PostgreSQL 15 */
	objs[n++] = pub;
	cat_obj *pub1 = boot_schema(CAT_FIRST_USER_OID - 1, CAT_OID_TEMPLATE1, "public", "standard public schema");
	pub1->schema.owner = 6171;
	objs[n++] = pub1;

	kv_batch *b = kv_batch_new();
	util_buf buf = UTIL_BUF_INIT;
	for (int i = 0; i < n; i++) {
		uint8_t row[5];
		obj_row(objs[i]->oid, row);
		util_buf_reset(&buf);
		cat_obj_encode(objs[i], &buf);
		kv_batch_put(b, c->tbl, row, 5, CAT_FAMILY, "", 0, KV_TS_LATEST, buf.data, buf.len);
		cat_snap_add(c->current, objs[i]);
	}
	uint8_t next[4];
	util_put_be32(next, CAT_FIRST_USER_OID);
	kv_batch_put(b, c->tbl, META_ROW, 1, CAT_FAMILY, META_NEXT_OID, strlen(META_NEXT_OID), KV_TS_LATEST, next, 4);
	kv_batch_require(b, c->tbl, META_ROW, 1, CAT_FAMILY, META_NEXT_OID, strlen(META_NEXT_OID), KV_CMP_ABSENT,
			 NULL, 0);
	kv_status st = kv_commit(c->kv, b, NULL, NULL);
	kv_batch_free(b);
	util_buf_free(&buf);
	c->next_oid = c->oid_limit = CAT_FIRST_USER_OID;
	if (st == KV_CHECK_FAILED) {
		*lost = true;
		return 0;
	}
	if (st != KV_OK)
		return kv_fail(err, st, "bootstrap");
	util_info("initialised a new catalog (role \"postgres\", database \"postgres\")");
	return 0;
}

/* ---- load ---- */

static int load(cat *c, cat_snap *snap, bool *empty, util_err *err)
{
	kv_scan_opts so;
	memset(&so, 0, sizeof so);
	/* (at a read point of ours: the snapshot's as_of, which commits check
	 * against, must map to an exact store state) */
	so.read.read_ts = kv_read_point(c->kv);
	atomic_store(&snap->as_of, so.read.read_ts);
	kv_iter *it = kv_scan(c->tbl, &so);
	*empty = true;
	int rc = 0;
	for (; kv_iter_valid(it); kv_iter_next(it)) {
		const kv_cell *cell = kv_iter_cell(it);
		*empty = false;
		if (cell->row.len == 1 && cell->row.data[0] == 'm') {
			if (cell->qualifier.len == strlen(META_NEXT_OID) && cell->value.len == 4) {
				cat_oid stored = util_get_be32(cell->value.data);
				/* A reload on a shared store keeps the rest of this
				 * server's own reservation if nobody reserved since. */
				if (!(c->shared && c->oid_limit == stored && c->next_oid < stored))
					c->next_oid = c->oid_limit = stored;
			}
			continue;
		}
		if (cell->row.len == 1 && cell->row.data[0] == VER_ROW[0]) {
			if (cell->qualifier.len == strlen(META_VERSION) &&
			    !memcmp(cell->qualifier.data, META_VERSION, cell->qualifier.len))
				c->ver_ts = cell->ts;
			continue;
		}
		if (cell->row.len == 5 && cell->row.data[0] == 's' && cell->value.len == 8) {
			/* (after the objects: rows in order, 'o' < 's') */
			cat_obj *o = util_map_get_u64(&snap->by_oid, util_get_be32(cell->row.data + 1));
			if (o && o->kind == CAT_REL)
				o->rel.stats_rows = util_get_be64(cell->value.data);
			continue;
		}
		if (cell->row.len != 5 || cell->row.data[0] != 'o')
			continue;
		cat_oid oid = util_get_be32(cell->row.data + 1);
		cat_obj *o = cat_obj_decode(oid, cell->value.data, cell->value.len);
		if (!o) {
			rc = util_err_set(err, UTIL_E_DATA_CORRUPTED, "catalog entry for oid %u is corrupted", oid);
			break;
		}
		cat_snap_add(snap, o);
	}
	if (rc == 0 && kv_iter_status(it) != KV_OK)
		rc = kv_fail(err, kv_iter_status(it), "load");
	kv_iter_close(it);
	return rc;
}

/* Drops data tables that no relation references (left by a crash between
 * creating a kv table and committing the DDL, or after a DROP committed). */
typedef struct orphan_ctx {
	cat_snap *snap;
	char **names;
	int n, cap;
} orphan_ctx;

static int collect_table(void *arg, const char *name)
{
	orphan_ctx *oc = arg;
	if (name[0] != 'r' && name[0] != 'i')
		return 0; /* only Strata's data and index tables */
	if (oc->n == oc->cap) {
		oc->cap = oc->cap ? oc->cap * 2 : 16;
		oc->names = util_xrealloc(oc->names, sizeof *oc->names * (size_t)oc->cap);
	}
	oc->names[oc->n++] = util_xstrdup(name);
	return 0;
}

static int mark_used(void *arg, const cat_obj *o)
{
	util_map *used = arg;
	if (o->rel.storage[0])
		util_map_puts(used, o->rel.storage, (void *)1);
	return 0;
}

static void drop_orphans(cat *c)
{
	orphan_ctx oc = {c->current, NULL, 0, 0};
	kv_table_list(c->kv, collect_table, &oc);
	util_map used = UTIL_MAP_INIT;
	cat_foreach(c->current, CAT_REL, 0, mark_used, &used);
	for (int i = 0; i < oc.n; i++) {
		if (!util_map_gets(&used, oc.names[i])) {
			util_info("dropping orphaned kv table \"%s\"", oc.names[i]);
			kv_table_drop(c->kv, oc.names[i]);
		}
		free(oc.names[i]);
	}
	free(oc.names);
	util_map_free(&used);
}

int cat_open(kv_store *kv, cat **out, util_err *err)
{
	return cat_open_shared(kv, false, out, err);
}

int cat_open_shared(kv_store *kv, bool shared, cat **out, util_err *err)
{
	cat *c = util_xcalloc(1, sizeof *c);
	c->kv = kv;
	c->shared = shared;
	pthread_mutex_init(&c->mu, NULL);
	pthread_mutex_init(&c->ddl_mu, NULL);
	pthread_cond_init(&c->ddl_cv, NULL);
	pthread_mutex_init(&c->ver_mu, NULL);
	atomic_init(&c->reload, false);
	kv_status st = kv_table_open(kv, CAT_KV_TABLE, &c->tbl);
	if (st == KV_NOT_FOUND) {
		kv_family_opts fam;
		kv_family_opts_default(&fam, CAT_FAMILY);
		fam.max_versions = 1;
		st = kv_table_create(kv, CAT_KV_TABLE, &fam, 1);
		/* (KV_EXISTS: another server sharing the store created it first) */
		if (st == KV_OK || st == KV_EXISTS)
			st = kv_table_open(kv, CAT_KV_TABLE, &c->tbl);
	}
	if (st != KV_OK) {
		kv_fail(err, st, "open sys.catalog");
		goto fail;
	}
	/* Every read point then reads the version cell in the same round trip
	 * (cat_refresh reads nothing more). */
	if (shared)
		kv_watch_cell(c->tbl, VER_ROW, 1, CAT_FAMILY, META_VERSION, strlen(META_VERSION));
	c->current = cat_snap_new(1);
	bool empty;
	if (load(c, c->current, &empty, err) != 0)
		goto fail;
	bool lost = false;
	if (empty && bootstrap(c, &lost, err) != 0)
		goto fail;
	if (lost) {
		/* Another server bootstrapped first: use its catalog. */
		cat_snap_release(c->current);
		c->current = cat_snap_new(1);
		c->next_oid = c->oid_limit = 0;
		if (load(c, c->current, &empty, err) != 0)
			goto fail;
		if (empty) {
			util_err_set(err, UTIL_E_INTERNAL_ERROR, "catalog: empty after another server's bootstrap");
			goto fail;
		}
		util_info("loaded the catalog another server initialised at the same time");
	}
	atomic_store(&c->published, c->current);
	/* On a shared store a kv table nobody references may be another
	 * server's CREATE TABLE in progress: leave it. */
	if (!shared)
		drop_orphans(c);
	*out = c;
	return 0;
fail:
	if (c->tbl)
		kv_table_close(c->tbl);
	cat_snap_release(c->current);
	free(c);
	return -1;
}

void cat_close(cat *c)
{
	if (!c)
		return;
	cat_snap_release(c->current);
	kv_table_close(c->tbl);
	pthread_mutex_destroy(&c->mu);
	pthread_mutex_destroy(&c->ddl_mu);
	pthread_cond_destroy(&c->ddl_cv);
	pthread_mutex_destroy(&c->ver_mu);
	free(c);
}

cat_snap *cat_current(cat *c)
{
	pthread_mutex_lock(&c->mu);
	cat_snap *s = c->current;
	cat_snap_ref(s);
	pthread_mutex_unlock(&c->mu);
	return s;
}

bool cat_is_current(cat *c, const cat_snap *s)
{
	return atomic_load_explicit(&c->published, memory_order_acquire) == s;
}

bool cat_snap_stale(cat *c, const cat_snap *s)
{
	pthread_mutex_lock(&c->mu);
	bool stale = c->current->version != s->version;
	pthread_mutex_unlock(&c->mu);
	return stale;
}

int cat_reload(cat *c, util_err *err)
{
	/* Cleared before the load: a change published meanwhile sets it again
	 * and the next refresh loads once more. */
	atomic_store(&c->reload, false);
	cat_snap *s = cat_snap_new(0);
	bool empty;
	if (load(c, s, &empty, err) != 0) {
		cat_snap_release(s);
		atomic_store(&c->reload, true);
		return -1;
	}
	pthread_mutex_lock(&c->mu);
	s->version = c->current->version + 1;
	cat_snap *old = c->current;
	c->current = s;
	atomic_store_explicit(&c->published, s, memory_order_release);
	pthread_mutex_unlock(&c->mu);
	cat_snap_release(old);
	return 0;
}

/* The newest version of one meta cell at read point at: its timestamp
 * (0: none) and up to cap bytes of its value in out (*len: its length). */
static kv_status read_meta(cat *c, const char *row, const char *qual, kv_ts at, kv_ts *ts, uint8_t *out,
			   size_t cap, size_t *len)
{
	util_arena *a = util_arena_new(256, 0);
	kv_column col = {CAT_FAMILY, qual, strlen(qual)};
	kv_read_opts ro;
	memset(&ro, 0, sizeof ro);
	ro.read_ts = at;
	ro.columns = &col;
	ro.ncolumns = 1;
	kv_row r;
	kv_status st = kv_get(c->tbl, row, 1, &ro, a, &r);
	*ts = 0;
	*len = 0;
	if (st == KV_OK && r.n) {
		*ts = r.cells[0].ts;
		*len = r.cells[0].value.len;
		memcpy(out, r.cells[0].value.data, *len < cap ? *len : cap);
	}
	util_arena_destroy(a);
	return st;
}

/* The version cell held ver_ts at read point at: the current snapshot is
 * the stored catalog as of at, unless this server published a change of
 * its own since it was loaded (then the next refresh reloads). */
static void confirm(cat *c, kv_ts at)
{
	pthread_mutex_lock(&c->mu);
	if (!atomic_load(&c->reload) && at > atomic_load(&c->current->as_of))
		atomic_store(&c->current->as_of, at);
	pthread_mutex_unlock(&c->mu);
}

int cat_refresh(cat *c, kv_ts read_ts, util_err *err)
{
	if (!c->shared)
		return 0;
	kv_ts at = read_ts ? read_ts : kv_read_point(c->kv);
	kv_ts vts;
	int rc = 0;
	pthread_mutex_lock(&c->ver_mu);
	/* Usually the read point read the version cell with the clock: no read. */
	if (!kv_watched_ts(c->kv, at, &vts)) {
		uint8_t v[8];
		size_t len;
		kv_status st = read_meta(c, VER_ROW, META_VERSION, at, &vts, v, sizeof v, &len);
		if (st != KV_OK)
			rc = kv_fail(err, st, "read the catalog version");
	}
	if (rc == 0) {
		if (vts != c->ver_ts || atomic_load(&c->reload))
			rc = cat_reload(c, err); /* load() takes the new version */
		else
			confirm(c, at);
	}
	pthread_mutex_unlock(&c->ver_mu);
	return rc;
}

void cat_ddl_lock(cat *c)
{
	pthread_mutex_lock(&c->ddl_mu);
	if (c->ddl_held) {
		util_wait_begin();
		while (c->ddl_held)
			pthread_cond_wait(&c->ddl_cv, &c->ddl_mu);
		util_wait_end();
	}
	c->ddl_held = true;
	pthread_mutex_unlock(&c->ddl_mu);
}

void cat_ddl_unlock(cat *c)
{
	pthread_mutex_lock(&c->ddl_mu);
	c->ddl_held = false;
	pthread_cond_signal(&c->ddl_cv);
	pthread_mutex_unlock(&c->ddl_mu);
}

/* The stored oid limit (4 bytes), latest state. */
static kv_status read_next_oid(cat *c, uint8_t out[4])
{
	kv_ts ts;
	size_t len;
	kv_status st = read_meta(c, META_ROW, META_NEXT_OID, kv_read_point(c->kv), &ts, out, 4, &len);
	return st == KV_OK && (!ts || len != 4) ? KV_NOT_FOUND : st;
}

int cat_new_oid(cat *c, cat_oid *out, util_err *err)
{
	pthread_mutex_lock(&c->mu);
	if (c->next_oid >= c->oid_limit) {
		/* Reserve a range durably first so that oids are never reused. */
		uint8_t v[4], cur[4];
		if (c->shared) {
			/* Other servers reserve too: start from the stored limit
			 * and set it only if nobody moved it meanwhile. */
			kv_status gst = read_next_oid(c, cur);
			if (gst != KV_OK) {
				pthread_mutex_unlock(&c->mu);
				return kv_fail(err, gst, "allocate oid");
			}
			c->next_oid = c->oid_limit = util_get_be32(cur);
		}
		util_put_be32(v, c->oid_limit + OID_BATCH);
		kv_batch *b = kv_batch_new();
		if (c->shared)
			kv_batch_require(b, c->tbl, META_ROW, 1, CAT_FAMILY, META_NEXT_OID, strlen(META_NEXT_OID),
					 KV_CMP_EQ, cur, 4);
		kv_batch_put(b, c->tbl, META_ROW, 1, CAT_FAMILY, META_NEXT_OID, strlen(META_NEXT_OID), KV_TS_LATEST,
			     v, 4);
		kv_status st = kv_commit(c->kv, b, NULL, NULL);
		kv_batch_free(b);
		if (st == KV_CHECK_FAILED) {
			pthread_mutex_unlock(&c->mu);
			return cat_new_oid(c, out, err); /* another server reserved first */
		}
		if (st != KV_OK) {
			pthread_mutex_unlock(&c->mu);
			return kv_fail(err, st, "allocate oid");
		}
		c->oid_limit += OID_BATCH;
	}
	*out = c->next_oid++;
	pthread_mutex_unlock(&c->mu);
	return 0;
}

/* ---- change sets ---- */

cat_txn *cat_txn_begin(cat *c, cat_snap *base)
{
	cat_txn *t = util_xcalloc(1, sizeof *t);
	t->c = c;
	t->base = base;
	cat_snap_ref(base);
	return t;
}

/* Every change makes a new snapshot, so that snapshots handed out earlier
 * (statements, cached plans) never change under their holders. */
static cat_snap *work(cat_txn *t)
{
	cat_snap *n = cat_snap_clone(t->snap ? t->snap : t->base);
	cat_snap_release(t->snap);
	t->snap = n;
	return n;
}

cat_snap *cat_txn_snap(cat_txn *t) { return t->snap ? t->snap : t->base; }
bool cat_txn_dirty(const cat_txn *t) { return util_map_count(&t->changed) > 0; }

void cat_txn_put(cat_txn *t, cat_obj *o)
{
	cat_snap_add(work(t), o);
	util_map_put_u64(&t->changed, o->oid, (void *)1);
}

void cat_txn_delete(cat_txn *t, cat_oid oid)
{
	cat_snap_remove(work(t), oid);
	util_map_put_u64(&t->changed, oid, (void *)2);
}

void cat_txn_depend(cat_txn *t, cat_oid oid)
{
	if (oid)
		util_map_put_u64(&t->rests_on, oid, (void *)1);
}

/* ---- conflicts between servers (shared store) ----
 *
 * A commit checks what its change was based on, per object: each object it
 * changes or deletes, and each object a new or changed one depends on (its
 * schema, table, referenced tables ...), unchanged since its base
 * snapshot's as_of; each name it adds or removes locked (a row 'n' name
 * key that holds no cell: two servers creating one name conflict). A
 * dependency gets a share mark, which a later change or delete of it
 * checks, so "drop the table" and "create an index or a foreign key on it"
 * on two servers conflict too, while two commits that only depend on one
 * schema do not. docs/scale-out.md, "Several servers". */

/* An object this server wrote itself since the last load: its row's marker
 * is past as_of (our own commit), so compare the stored value instead. */
static void guard_obj(cat *c, kv_batch *b, const cat_obj *o, kv_ts at, bool share, util_buf *buf)
{
	uint8_t row[5];
	obj_row(o->oid, row);
	if (o->own_write) {
		/* The stored row as we wrote it: an ANALYZE since (its own 's'
		 * row) changed only the in-memory estimate. */
		cat_obj w = *o;
		if (w.kind == CAT_REL)
			w.rel.stats_rows = o->row_stats_rows;
		util_buf_reset(buf);
		cat_obj_encode(&w, buf);
		kv_batch_require(b, c->tbl, row, 5, CAT_FAMILY, "", 0, KV_CMP_EQ, buf->data, buf->len);
		if (share)
			kv_batch_share_row(b, c->tbl, row, 5, 0);
	} else if (share) {
		kv_batch_share_row(b, c->tbl, row, 5, at);
	} else {
		kv_batch_check_row_at(b, c->tbl, row, 5, at);
	}
}

static void add_dep(util_map *deps, cat_oid oid)
{
	if (oid)
		util_map_put_u64(deps, oid, (void *)1);
}

/* The objects o's definition rests on (they must not change or go while
 * it is committed). */
static void obj_deps(const cat_obj *o, util_map *deps)
{
	if (o->kind == CAT_SCHEMA) {
		add_dep(deps, o->database);
		return;
	}
	if (o->kind != CAT_REL)
		return;
	const cat_rel *r = &o->rel;
	add_dep(deps, r->schema);
	if (r->index)
		add_dep(deps, r->index->table);
	if (r->seq)
		add_dep(deps, r->seq->owned_by_table);
	add_dep(deps, r->interleave_parent);
	add_dep(deps, r->ilv_root);
	for (int i = 0; i < r->ncons; i++)
		if (r->cons[i].type == 'f')
			add_dep(deps, r->cons[i].ref_table);
}

static void lock_name(cat *c, kv_batch *b, const cat_obj *o, kv_ts at, util_buf *buf)
{
	char key[CAT_NAME_MAX + 32];
	size_t n = cat_obj_name_key(key, sizeof key, o);
	util_buf_reset(buf);
	util_buf_putc(buf, 'n');
	util_buf_append(buf, key, n);
	kv_batch_lock_row(b, c->tbl, buf->data, buf->len, at);
}

static bool same_name(const cat_obj *a, const cat_obj *b)
{
	char ka[CAT_NAME_MAX + 32], kb[CAT_NAME_MAX + 32];
	size_t na = cat_obj_name_key(ka, sizeof ka, a), nb = cat_obj_name_key(kb, sizeof kb, b);
	return na == nb && !memcmp(ka, kb, na);
}

/* Only ANALYZE's row estimate changed. */
static bool stats_only(const cat_obj *old, const cat_obj *nw)
{
	if (!old || !nw || old->kind != CAT_REL || !cat_obj_same_definition(old, nw))
		return false;
	return !old->rel.index || !nw->rel.index ||
	       old->rel.index->backfill_progress == nw->rel.index->backfill_progress;
}

/* Shared store: a row estimate goes to a row of its own ('s' oid, the
 * count as 8 bytes big-endian; load() prefers it to the object's), an
 * update in place as PostgreSQL's ANALYZE makes of pg_class.reltuples: it
 * checks the object unchanged since the base (a table dropped or altered
 * first: 40001) but leaves the object's row alone, so DDL on the table
 * based on an older snapshot still commits (a DROP racing the background
 * ANALYZE wins), and other servers need not reload for it (they see it at
 * their next load). */
static void put_stats_row(cat_txn *t, kv_batch *b, const cat_obj *o)
{
	uint8_t row[5], v[8];
	obj_row(o->oid, row);
	row[0] = 's';
	util_put_be64(v, o->rel.stats_rows);
	kv_batch_put(b, t->c->tbl, row, 5, CAT_FAMILY, "", 0, KV_TS_LATEST, v, 8);
}

static void write_stats(cat_txn *t, kv_batch *b, const cat_obj *old, const cat_obj *nw, util_buf *buf)
{
	put_stats_row(t, b, nw);
	guard_obj(t->c, b, old, atomic_load(&t->base->as_of), false, buf);
}

/* The checks and the version move of a change to a shared catalog (the
 * objects' own rows are written by the caller). */
static void write_shared_checks(cat_txn *t, kv_batch *b, util_buf *buf)
{
	cat *c = t->c;
	kv_ts at = atomic_load(&t->base->as_of);
	util_map deps = UTIL_MAP_INIT;
	size_t pos = 0;
	const void *k;
	void *v;
	t->bumped = false;
	while (util_map_next(&t->changed, &pos, &k, NULL, &v)) {
		uint64_t oid;
		memcpy(&oid, k, sizeof oid);
		const cat_obj *old = cat_get(t->base, (cat_oid)oid);
		const cat_obj *nw = v == (void *)2 ? NULL : cat_get(t->snap, (cat_oid)oid);
		if (stats_only(old, nw))
			continue;
		t->bumped = true;
		uint8_t row[5];
		obj_row((cat_oid)oid, row);
		if (old) {
			guard_obj(c, b, old, at, false, buf);
			if (nw) /* (a delete checks the row's share mark itself) */
				kv_batch_guard_shares(b, c->tbl, row, 5);
		}
		if (!nw && old && old->kind == CAT_REL) {
			row[0] = 's';
			kv_batch_delete_row(b, c->tbl, row, 5, KV_TS_LATEST);
		}
		if (old && (!nw || !same_name(old, nw)))
			lock_name(c, b, old, at, buf);
		if (nw && (!old || !same_name(old, nw)))
			lock_name(c, b, nw, at, buf);
		if (nw)
			obj_deps(nw, &deps);
	}
	/* What the transaction's DDL said it rests on (a view's relations). */
	pos = 0;
	while (t->bumped && util_map_next(&t->rests_on, &pos, &k, NULL, NULL)) {
		uint64_t oid;
		memcpy(&oid, k, sizeof oid);
		add_dep(&deps, (cat_oid)oid);
	}
	pos = 0;
	while (util_map_next(&deps, &pos, &k, NULL, NULL)) {
		uint64_t oid;
		memcpy(&oid, k, sizeof oid);
		const cat_obj *d = cat_get(t->base, (cat_oid)oid);
		if (d && !util_map_get_u64(&t->changed, oid))
			guard_obj(c, b, d, at, true, buf);
	}
	util_map_free(&deps);
	if (t->bumped) {
		/* Other servers reload at their next statement (cat_refresh); no
		 * condition on it: the checks above decide conflicts. */
		uint8_t ver[8];
		util_put_be64(ver, (uint64_t)util_now_us() ^ ((uint64_t)(uintptr_t)t << 16));
		kv_batch_put(b, c->tbl, VER_ROW, 1, CAT_FAMILY, META_VERSION, strlen(META_VERSION), KV_TS_LATEST,
			     ver, 8);
	}
}

void cat_txn_write(cat_txn *t, kv_batch *b)
{
	util_buf buf = UTIL_BUF_INIT;
	bool shared = t->c->shared && util_map_count(&t->changed) > 0;
	size_t pos = 0;
	const void *k;
	void *v;
	while (util_map_next(&t->changed, &pos, &k, NULL, &v)) {
		uint64_t oid;
		memcpy(&oid, k, sizeof oid);
		uint8_t row[5];
		obj_row((cat_oid)oid, row);
		const cat_obj *o = cat_get(t->snap, (cat_oid)oid);
		if (v == (void *)2 || !o) {
			kv_batch_delete_row(b, t->c->tbl, row, 5, KV_TS_LATEST);
			continue;
		}
		const cat_obj *old = cat_get(t->base, (cat_oid)oid);
		if (shared && stats_only(old, o)) {
			write_stats(t, b, old, o, &buf);
			continue;
		}
		util_buf_reset(&buf);
		cat_obj_encode(o, &buf);
		kv_batch_put(b, t->c->tbl, row, 5, CAT_FAMILY, "", 0, KV_TS_LATEST, buf.data, buf.len);
		/* A change that also set the estimate (ANALYZE in a transaction
		 * with DDL): the stats row, which loading prefers, too. Otherwise
		 * it keeps the newest ANALYZE's, which this server's copy may
		 * predate. */
		if (shared && old && o->kind == CAT_REL && o->rel.stats_rows != old->rel.stats_rows)
			put_stats_row(t, b, o);
	}
	if (shared)
		write_shared_checks(t, b, &buf);
	util_buf_free(&buf);
}

static void txn_free(cat_txn *t)
{
	cat_snap_release(t->base);
	cat_snap_release(t->snap);
	util_map_free(&t->changed);
	util_map_free(&t->rests_on);
	free(t);
}

void cat_txn_publish(cat_txn *t)
{
	cat *c = t->c;
	if (t->snap && cat_txn_dirty(t)) {
		if (c->shared) {
			/* Until the next load: the objects we wrote are compared by
			 * value, the others are as of our base. A change others
			 * must see makes the next refresh load (another server's
			 * may have committed between our base and our commit); a
			 * statistics-only one leaves the snapshot current. */
			size_t pos = 0;
			const void *k;
			while (util_map_next(&t->changed, &pos, &k, NULL, NULL)) {
				uint64_t oid;
				memcpy(&oid, k, sizeof oid);
				cat_obj *o = (cat_obj *)cat_get(t->snap, (cat_oid)oid);
				if (o && !stats_only(cat_get(t->base, (cat_oid)oid), o)) {
					o->own_write = true;
					o->row_stats_rows = o->kind == CAT_REL ? o->rel.stats_rows : 0;
				}
			}
			atomic_store(&t->snap->as_of, atomic_load(&t->base->as_of));
		}
		pthread_mutex_lock(&c->mu);
		cat_snap *old = c->current;
		t->snap->version = old->version + 1;
		c->current = t->snap;
		atomic_store_explicit(&c->published, t->snap, memory_order_release);
		if (t->bumped)
			atomic_store(&c->reload, true);
		t->snap = NULL; /* the catalog owns it now */
		pthread_mutex_unlock(&c->mu);
		cat_snap_release(old);
	}
	txn_free(t);
}

void cat_txn_abort(cat_txn *t) { txn_free(t); }
