/*
 * sysview.h — private to sql/: generated catalog relations (pg_catalog and
 * information_schema). A view declares its columns and a generator that
 * emits its rows from Strata's catalog at scan time; nothing is stored.
 * Views are registered from tables in sysview_*.c files.
 */
#ifndef STRATA_SYSVIEW_H
#define STRATA_SYSVIEW_H

#include "sql_int.h"

typedef struct sql_sysrows sql_sysrows; /* the sink rows are emitted to */

typedef struct sql_syscol {
	const char *name;
	ty_oid type;
} sql_syscol;

typedef struct sql_sysview {
	const char *schema; /* "pg_catalog" or "information_schema" */
	const char *name;
	cat_oid oid;        /* PostgreSQL's relation oid when it has one */
	int ncols;
	const sql_syscol *cols;
	/* Emits every row with sql_sysrows_add(). Runs in the scan's arena. */
	void (*generate)(sql_session *s, cat_snap *cs, sql_sysrows *out);
} sql_sysview;

/* Adds one row (ncols datums, copied). */
void sql_sysrows_add(sql_sysrows *out, const ty_datum *vals);

/* Registers views (startup only). The table must stay alive. */
void sql_sysview_register(const sql_sysview *views, int n);

const sql_sysview *sql_sysview_find(const char *schema, const char *name);
void sql_sysview_columns(const sql_sysview *v, int *ncols, const char *const **names, const ty_oid **types);
cat_oid sql_sysview_oid(const sql_sysview *v);
const char *sql_sysview_name_by_oid(cat_oid oid);
int sql_sysview_count(void);
const sql_sysview *sql_sysview_nth(int i);

/* Datum helpers for generators. */
ty_datum sql_d_text(const char *s);      /* NULL pointer -> NULL */
ty_datum sql_d_name(const char *s);
ty_datum sql_d_oid(cat_oid o);
ty_datum sql_d_int(int64_t v);
ty_datum sql_d_bool(bool b);
ty_datum sql_d_char(char c);

#endif
