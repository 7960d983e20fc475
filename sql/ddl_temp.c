/*
 * ddl_temp.c — temporary tables, sequences and views. Each session that
 * creates one gets a schema pg_temp_<pid> (named like PostgreSQL's; on a
 * store shared by several servers pg_temp_<server no>_<pid>, as session
 * ids are per server: kv_store_server_no), searched
 * before everything else for relations and reachable as "pg_temp". The
 * catalog keeps temporary objects like any other, so they follow the
 * transaction rules; they are dropped when the session ends, and any left
 * by a crash are dropped when the server starts (on a store shared by
 * several servers: by any server, once the owning server's lease is gone,
 * sql_temp_sweep_dead). ON COMMIT DROP and ON
 * COMMIT DELETE ROWS act just before the transaction commits.
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "ddl_int.h"

#define TEMP_PREFIX "pg_temp_"

struct sql_temp {
	cat_oid schema;     /* 0 until the first temporary object */
	cat_oid *on_commit; /* tables with ON COMMIT DROP ('x') / DELETE ROWS ('d') */
	char *action;
	int n, cap;
};

static struct sql_temp *temp_of(sql_session *s)
{
	if (!s->temp)
		s->temp = util_xcalloc(1, sizeof *s->temp);
	return s->temp;
}

bool sql_temp_schema_is_temp(cat_snap *cs, cat_oid schema)
{
	const cat_obj *o = cat_get(cs, schema);
	return o && o->kind == CAT_SCHEMA && !strncmp(o->schema.name, TEMP_PREFIX, strlen(TEMP_PREFIX));
}

cat_oid sql_temp_schema_oid(sql_session *s, cat_snap *cs)
{
	if (!s->temp || !s->temp->schema)
		return 0;
	const cat_obj *o = cat_get(cs, s->temp->schema);
	return o && o->kind == CAT_SCHEMA ? o->oid : 0;
}

cat_oid sql_temp_schema(sql_session *s)
{
	cat_txn *ct = sql_txn_ddl(s->txn);
	cat_snap *cs = cat_txn_snap(ct);
	cat_oid have = sql_temp_schema_oid(s, cs);
	if (have)
		return have;
	/* Created in this transaction: gone again if it rolls back. */
	char name[CAT_NAME_MAX];
	uint64_t srv = kv_store_server_no(s->e->kv);
	if (srv)
		snprintf(name, sizeof name, TEMP_PREFIX "%llu_%d", (unsigned long long)srv, s->pid);
	else
		snprintf(name, sizeof name, TEMP_PREFIX "%d", s->pid);
	const cat_obj *old = cat_schema_by_name(cs, s->db_oid, name);
	if (old) {
		/* Left by an earlier session with this id whose end could not
		 * drop it: this server's (names carry the server number). */
		if (old->schema.temp_owner != kv_store_owner_id(s->e->kv))
			ty_error(UTIL_E_DUPLICATE_SCHEMA, "temporary schema \"%s\" belongs to another server",
				 name);
		temp_of(s)->schema = old->oid;
		return old->oid;
	}
	cat_obj *o = cat_obj_new(CAT_SCHEMA, sql_ddl_new_oid(s), s->db_oid);
	snprintf(o->schema.name, sizeof o->schema.name, "%s", name);
	o->schema.owner = CAT_OID_POSTGRES_ROLE;
	/* Every session may create in its own temporary schema. */
	o->schema.acl = cat_obj_alloc(o, sizeof(cat_acl) * 2);
	o->schema.acl[0] =
	    (cat_acl){CAT_OID_POSTGRES_ROLE, CAT_OID_POSTGRES_ROLE, CAT_PRIV_USAGE | CAT_PRIV_CREATE, 0};
	o->schema.acl[1] = (cat_acl){0, CAT_OID_POSTGRES_ROLE, CAT_PRIV_USAGE | CAT_PRIV_CREATE, 0};
	o->schema.nacl = 2;
	/* On a shared store: whose it is, so other servers drop it if this
	 * server dies (sql_temp_sweep_dead). */
	o->schema.temp_owner = kv_store_owner_id(s->e->kv);
	temp_of(s)->schema = o->oid;
	cat_txn_put(ct, o);
	return temp_of(s)->schema;
}

void sql_temp_on_commit(sql_session *s, cat_oid table, int action)
{
	if (action != PG_QUERY__ON_COMMIT_ACTION__ONCOMMIT_DROP &&
	    action != PG_QUERY__ON_COMMIT_ACTION__ONCOMMIT_DELETE_ROWS)
		return;
	struct sql_temp *t = temp_of(s);
	if (t->n == t->cap) {
		t->cap = t->cap ? t->cap * 2 : 8;
		t->on_commit = util_xrealloc(t->on_commit, sizeof(cat_oid) * (size_t)t->cap);
		t->action = util_xrealloc(t->action, (size_t)t->cap);
	}
	t->on_commit[t->n] = table;
	t->action[t->n++] = action == PG_QUERY__ON_COMMIT_ACTION__ONCOMMIT_DROP ? 'x' : 'd';
}

static void drop_rel_now(sql_session *s, cat_txn *ct, const cat_obj *o)
{
	PgQuery__String sch = PG_QUERY__STRING__INIT, nm = PG_QUERY__STRING__INIT;
	sch.sval = (char *)sql_schema_name(cat_txn_snap(ct), o->rel.schema);
	nm.sval = (char *)o->rel.name;
	PgQuery__Node sn = PG_QUERY__NODE__INIT, nn = PG_QUERY__NODE__INIT, ln = PG_QUERY__NODE__INIT;
	sn.node_case = nn.node_case = PG_QUERY__NODE__NODE_STRING;
	sn.string = &sch;
	nn.string = &nm;
	pnode *items[2] = {&sn, &nn};
	PgQuery__List l = PG_QUERY__LIST__INIT;
	l.n_items = 2;
	l.items = items;
	ln.node_case = PG_QUERY__NODE__NODE_LIST;
	ln.list = &l;
	pnode *objs[1] = {&ln};
	PgQuery__DropStmt st = PG_QUERY__DROP_STMT__INIT;
	st.remove_type = o->rel.relkind == CAT_RELKIND_VIEW       ? PG_QUERY__OBJECT_TYPE__OBJECT_VIEW
			 : o->rel.relkind == CAT_RELKIND_SEQUENCE ? PG_QUERY__OBJECT_TYPE__OBJECT_SEQUENCE
								  : PG_QUERY__OBJECT_TYPE__OBJECT_TABLE;
	st.n_objects = 1;
	st.objects = objs;
	st.behavior = PG_QUERY__DROP_BEHAVIOR__DROP_CASCADE;
	st.missing_ok = true;
	sql_ddl_drop(s, &st, NULL);
}

typedef struct commit_arg {
	sql_session *s;
	sql_txn *t;
} commit_arg;

static void at_commit(void *p)
{
	commit_arg *a = p;
	sql_session *s = a->s;
	struct sql_temp *tp = s->temp;
	cat_snap *cs = a->t->ddl ? cat_txn_snap(a->t->ddl) : s->cat;
	int k = 0;
	for (int i = 0; i < tp->n; i++) {
		const cat_obj *o = cat_get(cs, tp->on_commit[i]);
		if (!o || o->kind != CAT_REL) /* dropped, or its CREATE rolled back */
			continue;
		if (tp->action[i] == 'x') {
			drop_rel_now(s, sql_txn_ddl(a->t), o);
			continue;
		}
		/* DELETE ROWS: only when the transaction wrote to the table. */
		int nw;
		a->t->cid++; /* count the last statement's writes too */
		sql_txn_table_writes(a->t, o->oid, a->t->arena, &nw);
		if (nw)
			sql_truncate_rel(s, sql_txn_ddl(a->t), o);
		tp->on_commit[k] = tp->on_commit[i];
		tp->action[k++] = tp->action[i];
		cs = a->t->ddl ? cat_txn_snap(a->t->ddl) : s->cat;
	}
	tp->n = k;
}

int sql_temp_at_commit(sql_txn *t, util_err *err)
{
	sql_session *s = t->s;
	if (!s->temp || !s->temp->n)
		return 0;
	sql_txn *saved = s->txn;
	s->txn = t;
	commit_arg a = {s, t};
	int rc = ty_protect(at_commit, &a, err);
	s->txn = saved;
	return rc;
}

/* ---------------------------------------------------------------- session end and startup */

typedef struct temp_objs {
	cat_oid schema; /* 0: every temporary schema */
	cat_oid *schemas;
	int nschemas;
	cat_oid *rels;
	char **storages;
	cat_oid *seqs;
	int nrels, nseqs;
} temp_objs;

static void push_oid(cat_oid **a, int *n, cat_oid v)
{
	*a = util_xrealloc(*a, sizeof(cat_oid) * (size_t)(*n + 1));
	(*a)[(*n)++] = v;
}

static int find_temp_schemas(void *arg, const cat_obj *o)
{
	temp_objs *t = arg;
	if ((t->schema && o->oid == t->schema) ||
	    (!t->schema && !strncmp(o->schema.name, TEMP_PREFIX, strlen(TEMP_PREFIX))))
		push_oid(&t->schemas, &t->nschemas, o->oid);
	return 0;
}

static int find_temp_rels(void *arg, const cat_obj *o)
{
	temp_objs *t = arg;
	for (int i = 0; i < t->nschemas; i++)
		if (o->rel.schema == t->schemas[i]) {
			t->storages = util_xrealloc(t->storages, sizeof(char *) * (size_t)(t->nrels + 1));
			t->storages[t->nrels] = o->rel.storage[0] ? util_xstrdup(o->rel.storage) : NULL;
			push_oid(&t->rels, &t->nrels, o->oid);
			if (o->rel.relkind == CAT_RELKIND_SEQUENCE)
				push_oid(&t->seqs, &t->nseqs, o->oid);
			/* The indexes of a temporary table are in its schema too. */
		}
	return 0;
}

static void temp_objs_free(temp_objs *t)
{
	for (int i = 0; i < t->nrels; i++)
		free(t->storages[i]);
	free(t->storages);
	free(t->rels);
	free(t->seqs);
	free(t->schemas);
}

/* Deletes the temporary schemas (one, or all) and their contents from the
 * catalog in one committed change; returns the storages to drop. */
static int drop_temp(cat *c, kv_store *kv, cat_oid schema, temp_objs *t, util_err *err)
{
	memset(t, 0, sizeof *t);
	t->schema = schema;
	cat_ddl_lock(c);
	cat_snap *cur = cat_current(c);
	cat_foreach(cur, CAT_SCHEMA, 0, find_temp_schemas, t);
	cat_foreach(cur, CAT_REL, 0, find_temp_rels, t);
	int rc = 0;
	if (t->nschemas) {
		cat_txn *ct = cat_txn_begin(c, cur);
		for (int i = 0; i < t->nrels; i++)
			cat_txn_delete(ct, t->rels[i]);
		for (int i = 0; i < t->nschemas; i++)
			cat_txn_delete(ct, t->schemas[i]);
		kv_batch *b = kv_batch_new();
		cat_txn_write(ct, b);
		kv_status st = kv_commit(kv, b, NULL, NULL);
		kv_batch_free(b);
		if (st != KV_OK) {
			cat_txn_abort(ct);
			rc = util_err_set(err, UTIL_E_IO_ERROR, "could not drop temporary objects: %s",
					  kv_errmsg());
		} else {
			cat_txn_publish(ct);
			for (int i = 0; i < t->nrels; i++)
				if (t->storages[i])
					kv_table_drop(kv, t->storages[i]);
		}
	}
	cat_snap_release(cur);
	cat_ddl_unlock(c);
	return rc;
}

void sql_temp_session_end(sql_session *s)
{
	if (!s->temp)
		return;
	if (s->temp->schema) {
		temp_objs t;
		util_err err;
		if (drop_temp(s->e->cat, s->e->kv, s->temp->schema, &t, &err) != 0)
			util_log(UTIL_LOG_WARNING, "session %d: %s", s->pid, err.message);
		for (int i = 0; i < t.nseqs; i++)
			sql_seq_forget(s, t.seqs[i]);
		temp_objs_free(&t);
	}
	free(s->temp->on_commit);
	free(s->temp->action);
	free(s->temp);
	s->temp = NULL;
}

int sql_temp_cleanup_orphans(cat *c, kv_store *kv, util_err *err)
{
	temp_objs t;
	int rc = drop_temp(c, kv, 0, &t, err);
	if (!rc && t.nschemas)
		util_log(UTIL_LOG_INFO, "dropped %d temporary schema(s) left by a previous run", t.nschemas);
	temp_objs_free(&t);
	return rc;
}

/* ---------------------------------------------------------------- dead servers' schemas */

#define CONFIRM_MS 3000

typedef struct owned {
	cat_oid *oids;
	uint64_t *owners;
	int n;
	uint64_t self;
} owned;

static int find_owned(void *arg, const cat_obj *o)
{
	owned *w = arg;
	if (!o->schema.temp_owner || o->schema.temp_owner == w->self ||
	    strncmp(o->schema.name, TEMP_PREFIX, strlen(TEMP_PREFIX)))
		return 0;
	w->oids = util_xrealloc(w->oids, sizeof(cat_oid) * (size_t)(w->n + 1));
	w->owners = util_xrealloc(w->owners, sizeof(uint64_t) * (size_t)(w->n + 1));
	w->oids[w->n] = o->oid;
	w->owners[w->n++] = o->schema.temp_owner;
	return 0;
}

int sql_temp_sweep_dead(cat *c, kv_store *kv)
{
	uint64_t self = kv_store_owner_id(kv);
	if (!self)
		return 0;
	util_err err;
	if (cat_refresh(c, kv_read_point(kv), &err) != 0) /* other servers' new schemas */
		return 0;
	owned w = {NULL, NULL, 0, self};
	cat_snap *cur = cat_current(c);
	cat_foreach(cur, CAT_SCHEMA, 0, find_owned, &w);
	cat_snap_release(cur);
	/* Owners whose key is gone, asked twice CONFIRM_MS apart: a live
	 * server whose lease lapsed (keepalives late under load) publishes its
	 * key again on a new lease within its 2 s publishing period. An
	 * unanswered question keeps the schema. */
	int ndead = 0;
	for (int i = 0; i < w.n; i++) {
		bool alive = true;
		if (kv_store_owner_alive(kv, w.owners[i], &alive) == KV_OK && !alive) {
			w.oids[ndead] = w.oids[i];
			w.owners[ndead++] = w.owners[i];
		}
	}
	if (ndead) {
		struct timespec ts = {CONFIRM_MS / 1000, (CONFIRM_MS % 1000) * 1000000L};
		nanosleep(&ts, NULL);
	}
	int dropped = 0;
	for (int i = 0; i < ndead; i++) {
		bool alive = true;
		if (kv_store_owner_alive(kv, w.owners[i], &alive) != KV_OK || alive)
			continue;
		temp_objs t;
		if (drop_temp(c, kv, w.oids[i], &t, &err) == 0 && t.nschemas) {
			util_log(UTIL_LOG_INFO, "dropped temporary schema %u (%d relation(s)) of a server that is gone",
				 w.oids[i], t.nrels);
			dropped++;
		}
		/* (a failure — another server dropping it first, 40001 — is
		 * retried at the next sweep) */
		temp_objs_free(&t);
	}
	free(w.oids);
	free(w.owners);
	return dropped;
}

struct sql_temp_sweeper {
	pthread_mutex_t mu;
	pthread_cond_t cv;
	pthread_t thread;
	bool stop;
	int every_s;
	sql_engine *e;
};

static void *sweeper_main(void *arg)
{
	struct sql_temp_sweeper *w = arg;
	pthread_mutex_lock(&w->mu);
	while (!w->stop) {
		pthread_mutex_unlock(&w->mu);
		sql_temp_sweep_dead(w->e->cat, w->e->kv);
		pthread_mutex_lock(&w->mu);
		if (w->stop)
			break;
		struct timespec ts;
		clock_gettime(CLOCK_REALTIME, &ts);
		ts.tv_sec += w->every_s;
		pthread_cond_timedwait(&w->cv, &w->mu, &ts);
	}
	pthread_mutex_unlock(&w->mu);
	return NULL;
}

struct sql_temp_sweeper *sql_temp_sweeper_start(sql_engine *e)
{
	int64_t every = util_env_int("STRATA_TEMP_SWEEP_S", 5);
	if (every <= 0 || !kv_store_owner_id(e->kv))
		return NULL;
	struct sql_temp_sweeper *w = util_xcalloc(1, sizeof *w);
	w->e = e;
	w->every_s = (int)every;
	pthread_mutex_init(&w->mu, NULL);
	pthread_cond_init(&w->cv, NULL);
	if (pthread_create(&w->thread, NULL, sweeper_main, w) != 0) {
		pthread_mutex_destroy(&w->mu);
		pthread_cond_destroy(&w->cv);
		free(w);
		return NULL;
	}
	return w;
}

void sql_temp_sweeper_stop(struct sql_temp_sweeper *w)
{
	if (!w)
		return;
	pthread_mutex_lock(&w->mu);
	w->stop = true;
	pthread_cond_signal(&w->cv);
	pthread_mutex_unlock(&w->mu);
	pthread_join(w->thread, NULL);
	pthread_mutex_destroy(&w->mu);
	pthread_cond_destroy(&w->cv);
	free(w);
}
