/*
 * txn_savepoint.c — SAVEPOINT, RELEASE and ROLLBACK TO: while savepoints
 * exist, the state of every buffered row before it changes is kept in an
 * undo log; rolling back to a savepoint restores those states (rows first
 * written after it become dead). Catalog changes after a savepoint cannot
 * be rolled back to it (0A000).
 *
 * The rows, values and undo entries written while a savepoint is the
 * innermost one go into an arena of its own, so ROLLBACK TO gives their
 * memory back (the rows it undoes are unlinked from the write buffer and
 * their arenas destroyed): a loop of SAVEPOINT, writes, ROLLBACK TO stays
 * within the transaction's memory budget. RELEASE hands the arenas to the
 * enclosing savepoint (or to the transaction), as their rows now belong
 * there.
 */
#include <stdlib.h>
#include <string.h>

#include "sql_int.h"

typedef struct sql_undo {
	sql_wrow *w;
	sql_wrow saved;   /* the row's state before the change */
	ty_datum *cols;
	bool *set;
	bool created;
} sql_undo;

/* Arenas holding writes (heap array). */
typedef struct sql_sp_arenas {
	util_arena **a;
	int n, cap;
} sql_sp_arenas;

typedef struct sql_savepoint {
	char *name;
	size_t undo_pos;
	cat_snap *cat;    /* catalog working snapshot at the savepoint (not a reference) */
	int cid;
	sql_lock_mark locks;        /* row locks taken since are given back by ROLLBACK TO */
	struct sql_xlock *xlocks;   /* as are those noted for a shared store's commit */
	sql_sp_arenas arenas;       /* a[n-1]: the current one (made at the first write); the
				       others come from savepoints released inside this one */
	struct sql_savepoint *next; /* outer savepoint */
} sql_savepoint;

static void arenas_add(sql_sp_arenas *l, util_arena *a)
{
	if (l->n == l->cap) {
		l->cap = l->cap ? 2 * l->cap : 4;
		l->a = util_xrealloc(l->a, sizeof *l->a * (size_t)l->cap);
	}
	l->a[l->n++] = a;
}

static void arenas_free(sql_sp_arenas *l)
{
	for (int i = 0; i < l->n; i++)
		util_arena_destroy(l->a[i]);
	free(l->a);
	memset(l, 0, sizeof *l);
}

/* Moves the arenas of `from` into `to` (to's current one stays last). */
static void arenas_move(sql_sp_arenas *from, sql_sp_arenas *to)
{
	util_arena *cur = to->n ? to->a[--to->n] : NULL;
	for (int i = 0; i < from->n; i++)
		arenas_add(to, from->a[i]);
	if (cur)
		arenas_add(to, cur);
	free(from->a);
	memset(from, 0, sizeof *from);
}

util_arena *sql_txn_write_arena(sql_txn *t)
{
	sql_savepoint *sp = t->savepoints;
	if (!sp)
		return t->arena;
	if (!sp->arenas.n) {
		/* Small first blocks (the arena grows its blocks with its size):
		 * a savepoint around every statement (JDBC autosave, psql's
		 * ON_ERROR_ROLLBACK) keeps one arena per released savepoint, and
		 * 16 KiB each ran out of the budget 36 times sooner. */
		util_arena *a = util_arena_new(128, 0);
		util_arena_set_account(a, &t->mem); /* destroyed before t->arena (sql_savepoints_free) */
		arenas_add(&sp->arenas, a);
	}
	return sp->arenas.a[sp->arenas.n - 1];
}

void sql_savepoints_free(sql_txn *t)
{
	for (sql_savepoint *sp = t->savepoints; sp; sp = sp->next)
		arenas_free(&sp->arenas);
	t->savepoints = NULL;
	if (t->sp_kept) {
		arenas_free(t->sp_kept);
		free(t->sp_kept);
		t->sp_kept = NULL;
	}
}

/* Rows a running portal (a cursor, an Execute with a row limit) has read
 * may point into the write buffer (own writes are read by reference). */
static bool portal_running(sql_session *s)
{
	size_t pos = 0;
	const void *k;
	size_t kl;
	void *v;
	const sql_portal_s *un = s->unnamed_portal; /* outside the map */
	if (un && (un->ex || un->mat))
		return true;
	while (util_map_next(&s->portals, &pos, &k, &kl, &v)) {
		const sql_portal_s *po = v;
		if (po->ex || po->mat)
			return true;
	}
	return false;
}

/* The arenas of savepoints rolled back to: freed, or while a portal runs
 * kept to the end of the transaction. */
static void arenas_drop(sql_txn *t, sql_sp_arenas *l, bool keep)
{
	if (!keep) {
		arenas_free(l);
		return;
	}
	if (!t->sp_kept)
		t->sp_kept = util_xcalloc(1, sizeof *t->sp_kept);
	arenas_move(l, t->sp_kept);
}

void sql_txn_undo_record(sql_txn *t, sql_wrow *w, bool created)
{
	if (t->nundo == t->undo_cap) {
		t->undo_cap = t->undo_cap ? t->undo_cap * 2 : 64;
		t->undo = util_xrealloc(t->undo, sizeof(sql_undo) * t->undo_cap);
	}
	sql_undo *u = &t->undo[t->nundo++];
	u->w = w;
	u->saved = *w;
	u->created = created;
	util_arena *a = sql_txn_write_arena(t);
	u->cols = util_arena_memdup(a, w->cols, sizeof(ty_datum) * (size_t)(w->ncols ? w->ncols : 1));
	u->set = util_arena_memdup(a, w->set, sizeof(bool) * (size_t)(w->ncols ? w->ncols : 1));
	if (!u->cols || !u->set)
		ty_error(UTIL_E_OUT_OF_MEMORY, "out of memory");
}

static sql_savepoint *find(sql_txn *t, const char *name)
{
	for (sql_savepoint *sp = t->savepoints; sp; sp = sp->next)
		if (!strcmp(sp->name, name))
			return sp;
	return NULL;
}

static cat_snap *ddl_snap(sql_txn *t) { return t->ddl ? cat_txn_snap(t->ddl) : NULL; }

void sql_savepoint_create(sql_session *s, const char *name)
{
	sql_stmt_ensure_txn(s);
	sql_txn *t = s->txn;
	sql_savepoint *sp = util_arena_zalloc(t->arena, sizeof *sp);
	sp->name = util_arena_strdup(t->arena, name);
	sp->undo_pos = t->nundo;
	sp->cat = ddl_snap(t);
	sp->cid = t->cid;
	sp->locks = sql_txn_lock_mark(t);
	sp->xlocks = t->xlocks;
	sp->next = t->savepoints;
	t->savepoints = sp;
}

static UTIL_NORETURN void no_savepoint(const char *name)
{
	ty_error(UTIL_E_S_E_INVALID_SPECIFICATION, "savepoint \"%s\" does not exist", name);
}

void sql_release_savepoint(sql_session *s, const char *name)
{
	sql_txn *t = s->txn;
	if (!t || !find(t, name))
		no_savepoint(name);
	/* Releasing drops it and every savepoint opened after it; their writes
	 * (and arenas) now belong to the enclosing one. */
	while (t->savepoints) {
		sql_savepoint *sp = t->savepoints;
		t->savepoints = sp->next;
		if (sp->next)
			arenas_move(&sp->arenas, &sp->next->arenas);
		else
			arenas_drop(t, &sp->arenas, true);
		if (!strcmp(sp->name, name))
			break;
	}
	if (!t->savepoints)
		t->nundo = 0;
}

void sql_rollback_to_savepoint(sql_session *s, const char *name)
{
	sql_txn *t = s->txn;
	sql_savepoint *sp = t ? find(t, name) : NULL;
	if (!sp)
		no_savepoint(name);
	if (ddl_snap(t) != sp->cat)
		ty_error(UTIL_E_FEATURE_NOT_SUPPORTED, "ROLLBACK TO SAVEPOINT cannot undo schema changes made after the savepoint");
	cat_oid *tables = NULL; /* of the rows created since (heap) */
	int ntables = 0, tables_cap = 0;
	for (size_t i = t->nundo; i > sp->undo_pos; i--) {
		sql_undo *u = &t->undo[i - 1];
		sql_wrow *w = u->w;
		if (u->created) {
			w->dead = true;
			int k = 0;
			while (k < ntables && tables[k] != w->table)
				k++;
			if (k == ntables) {
				if (ntables == tables_cap) {
					tables_cap = tables_cap ? 2 * tables_cap : 8;
					tables = util_xrealloc(tables, sizeof *tables * (size_t)tables_cap);
				}
				tables[ntables++] = w->table;
			}
			continue;
		}
		sql_wrow *next = w->next_in_table;
		*w = u->saved;
		w->next_in_table = next;
		memcpy(w->cols, u->cols, sizeof(ty_datum) * (size_t)w->ncols);
		memcpy(w->set, u->set, sizeof(bool) * (size_t)w->ncols);
	}
	t->nundo = sp->undo_pos;
	/* The rows created since are unlinked; then the arenas of this
	 * savepoint and of those opened after it hold nothing in use (the rows
	 * older than the savepoint point at older memory again), unless a
	 * running portal read from them. */
	for (int k = 0; k < ntables; k++)
		sql_txn_forget_dead(t, tables[k]);
	free(tables);
	bool keep = portal_running(s);
	while (t->savepoints != sp) {
		sql_savepoint *in = t->savepoints;
		arenas_drop(t, &in->arenas, keep);
		t->savepoints = in->next;
	}
	arenas_drop(t, &sp->arenas, keep);
	/* Savepoints opened after this one are gone; this one stays. */
	t->savepoints = sp;
	/* The row locks taken since belong to the writes and reads undone. */
	sql_txn_unlock_since(t, sp->locks);
	t->xlocks = sp->xlocks;
	s->txn_state = SQL_TXN_BLOCK;
}
