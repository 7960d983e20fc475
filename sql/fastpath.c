/*
 * fastpath.c — the FunctionCall ('F') message: calls a function by its
 * pg_proc oid with arguments in text or binary format (libpq's PQfn, the
 * lo_* functions). The call runs as the statement
 * `SELECT pg_catalog.name($1, ...)` with the parameters typed as the
 * function declares them, through the extended protocol's Parse, Bind and
 * Execute on a statement and portal of its own, so argument decoding, the
 * result's format, errors and the transaction rules are those of every
 * other statement (the wire then ends the call as Sync would). Errors
 * follow PostgreSQL's fastpath.c.
 */
#include <string.h>

#include "sql_int.h"

/* (The client's unnamed statement and portal are left alone, as in PostgreSQL.) */
#define FP_NAME SQL_FASTPATH_NAME

/* A polymorphic argument type (anyelement, anyarray, "any" ...). */
static bool polymorphic(ty_oid oid)
{
	const ty_type *ty = ty_type_get(oid);
	return ty && ty->typtype == 'p' && !strncmp(ty->name, "any", 3);
}

/* Arguments of polymorphic types, as PostgreSQL's parse_fcall_arguments
 * reads them: a value fails in the type's input function (0A000), and
 * binary format for want of a receive function (42883, NULL or not;
 * anyarray's receive function fails as its input does); only NULLs pass.
 * Returns the position of the first argument refused (nargs if none), the
 * error in err. */
static int polymorphic_refused(const ty_func *f, const sql_bind_params *p, util_err *err)
{
	for (int i = 0; i < f->nargs; i++) {
		if (!polymorphic(f->args[i]))
			continue;
		const ty_type *ty = ty_type_get(f->args[i]);
		int16_t fmt = p->nformats == 0 ? 0 : p->nformats == 1 ? p->formats[0] : p->formats[i];
		if (fmt != 0 && ty->oid != TY_ANYARRAY && ty->oid != TY_ANYCOMPATIBLEARRAY) {
			util_err_set(err, UTIL_E_UNDEFINED_FUNCTION, "no binary input function available for type %s",
				     ty->name);
			return i;
		}
		if (p->values[i]) {
			util_err_set(err, UTIL_E_FEATURE_NOT_SUPPORTED, "cannot accept a value of type %s", ty->name);
			return i;
		}
	}
	return f->nargs;
}

/* Reads the first n arguments (their polymorphic ones NULL) with their
 * declared types' input functions, as Bind reads parameters, for their
 * errors alone. */
static int read_args(sql_session *s, const ty_func *f, const sql_bind_params *p, int n, util_err *err)
{
	uint32_t types[TY_FUNC_MAX_ARGS];
	for (int i = 0; i < n; i++)
		types[i] = polymorphic(f->args[i]) ? TY_TEXT : f->args[i];
	sql_bind_params prefix = *p;
	prefix.nparams = n;
	if (prefix.nformats > 1)
		prefix.nformats = n;
	prefix.nresult_formats = 0;
	sql_close_portal(s, FP_NAME);
	sql_close_stmt(s, FP_NAME);
	int rc = sql_parse(s, FP_NAME, "SELECT NULL", n, types, err);
	if (rc == 0)
		rc = sql_bind(s, FP_NAME, FP_NAME, &prefix, err);
	sql_close_portal(s, FP_NAME);
	sql_close_stmt(s, FP_NAME);
	return rc;
}

/* A function with polymorphic arguments: every argument is read in order
 * (the first error wins), and a strict function then returns NULL without
 * being called, as in PostgreSQL. A non-strict one would be called with no
 * type to resolve its arguments by: not supported (PostgreSQL calls it
 * blind). Returns 1 to go on with the call (no polymorphic argument), 0
 * for the NULL result (nothing sent), -1 on an error. */
static int polymorphic_args(sql_session *s, const ty_func *f, const sql_bind_params *p, util_err *err)
{
	bool any = false;
	for (int i = 0; i < f->nargs; i++)
		any |= polymorphic(f->args[i]);
	if (!any)
		return 1;
	util_err refused;
	util_err_clear(&refused);
	int k = polymorphic_refused(f, p, &refused);
	if (k > 0 && read_args(s, f, p, k, err) != 0)
		return -1;
	if (k < f->nargs) {
		*err = refused;
		return -1;
	}
	if (f->strict)
		return 0;
	return util_err_set(
	    err, UTIL_E_FEATURE_NOT_SUPPORTED,
	    "function %s with polymorphic arguments cannot be called through the fastpath interface",
	    f->name);
}

int sql_fastpath_call(sql_session *s, uint32_t fn, const sql_bind_params *p, sql_dest *dest, util_err *err)
{
	const ty_func *f = ty_func_by_oid(fn);
	if (!f)
		return util_err_set(err, UTIL_E_UNDEFINED_FUNCTION, "function with OID %u does not exist",
				    fn);
	if (s->txn_state == SQL_TXN_FAILED)
		return util_err_set(
		    err, UTIL_E_IN_FAILED_SQL_TRANSACTION,
		    "current transaction is aborted, commands ignored until end of transaction block");
	if (f->kind == 'a' || f->kind == 'w')
		return util_err_set(err, UTIL_E_WRONG_OBJECT_TYPE, "%s function %u called as normal function",
				    f->kind == 'a' ? "aggregate" : "window", fn);
	if (p->nparams != f->nargs)
		return util_err_set(err, UTIL_E_PROTOCOL_VIOLATION,
				    "function call message contains %d arguments but function requires %d",
				    p->nparams, f->nargs);
	if (p->nformats > 1 && p->nformats != p->nparams)
		return util_err_set(err, UTIL_E_PROTOCOL_VIOLATION,
				    "function call message contains %d argument formats but %d arguments",
				    p->nformats, p->nparams);
	int rc = polymorphic_args(s, f, p, err);
	if (rc <= 0)
		return rc;
	util_buf q = UTIL_BUF_INIT;
	util_buf_puts(&q, "SELECT pg_catalog.");
	sql_quote_ident(f->name, &q);
	util_buf_putc(&q, '(');
	for (int i = 0; i < f->nargs; i++)
		util_buf_printf(&q, "%s$%d", i ? ", " : "", i + 1);
	util_buf_putc(&q, ')');
	uint32_t types[TY_FUNC_MAX_ARGS];
	for (int i = 0; i < f->nargs; i++)
		types[i] = f->args[i];
	sql_close_portal(s, FP_NAME);
	sql_close_stmt(s, FP_NAME);
	rc = sql_parse(s, FP_NAME, q.data, f->nargs, types, err);
	util_buf_free(&q);
	if (rc == 0)
		rc = sql_bind(s, FP_NAME, FP_NAME, p, err);
	if (rc == 0) {
		sql_complete cc;
		memset(&cc, 0, sizeof cc);
		rc = sql_execute(s, FP_NAME, 0, dest, &cc, err);
	}
	sql_close_portal(s, FP_NAME);
	sql_close_stmt(s, FP_NAME);
	return rc;
}
