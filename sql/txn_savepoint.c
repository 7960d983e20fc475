/*
 * txn_savepoint.c — SAVEPOINT, RELEASE and ROLLBACK TO: while savepoints
 * exist, the state of every buffered row before it changes is kept in an
 * undo log; rolling back to a savepoint restores those states (rows first
 * written after it become dead). Catalog changes after a savepoint cannot
 * be rolled back to it (0A000).
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

typedef struct sql_savepoint {
	char *name;
	size_t undo_pos;
	cat_snap *cat;    /* catalog working snapshot at the savepoint (not a reference) */
	int cid;
	struct sql_savepoint *next; /* outer savepoint */
} sql_savepoint;

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
	u->cols = util_arena_memdup(t->arena, w->cols, sizeof(ty_datum) * (size_t)(w->ncols ? w->ncols : 1));
	u->set = util_arena_memdup(t->arena, w->set, sizeof(bool) * (size_t)(w->ncols ? w->ncols : 1));
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
	/* Releasing drops it and every savepoint opened after it. */
	while (t->savepoints) {
		sql_savepoint *sp = t->savepoints;
		t->savepoints = sp->next;
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
	for (size_t i = t->nundo; i > sp->undo_pos; i--) {
		sql_undo *u = &t->undo[i - 1];
		sql_wrow *w = u->w;
		if (u->created) {
			w->dead = true;
			continue;
		}
		sql_wrow *next = w->next_in_table;
		*w = u->saved;
		w->next_in_table = next;
		memcpy(w->cols, u->cols, sizeof(ty_datum) * (size_t)w->ncols);
		memcpy(w->set, u->set, sizeof(bool) * (size_t)w->ncols);
	}
	t->nundo = sp->undo_pos;
	/* Savepoints opened after this one are gone; this one stays. */
	t->savepoints = sp;
	s->txn_state = SQL_TXN_BLOCK;
}
