/*
 * ddl_drop_builtin.c — DROP FUNCTION / DROP TYPE. Strata has no
 * user-defined functions or types, so every one that exists is built in:
 * refused as PostgreSQL refuses to drop its own (2BP01 "required by the
 * database system"); one that does not exist is 42883 / 42704, or a
 * NOTICE with IF EXISTS. (So no view can depend on a function or type
 * that a DROP on another server removes: docs/scale-out.md.)
 */
#include <string.h>

#include "ddl_int.h"

static const char *str_of(pnode *n)
{
	return n && n->node_case == PG_QUERY__NODE__NODE_STRING ? n->string->sval : NULL;
}

/* The argument types (throws 42704 for an unknown one), then
 * "name(type, ...)" as PostgreSQL prints a function signature. */
static char *signature(sql_actx *ax, PgQuery__ObjectWithArgs *ow, ty_oid *types, int *n)
{
	*n = 0;
	for (size_t i = 0; i < ow->n_objargs && i < TY_FUNC_MAX_ARGS; i++) {
		pnode *a = ow->objargs[i];
		int32_t typmod;
		if (a->node_case == PG_QUERY__NODE__NODE_TYPE_NAME)
			sql_typename(ax, a->type_name, &types[(*n)++], &typmod);
	}
	util_buf out = UTIL_BUF_INIT;
	util_buf_puts(&out, ow->n_objname ? str_of(ow->objname[ow->n_objname - 1]) : "?");
	util_buf_puts(&out, "(");
	for (int i = 0; i < *n; i++) {
		if (i)
			util_buf_puts(&out, ", ");
		ty_format_type(types[i], -1, &out);
	}
	util_buf_puts(&out, ")");
	char *text = ty_strdup(out.data);
	util_buf_free(&out);
	return text;
}

/* "name(arg, ...)" with each argument type as written (dotted names,
 * [] per array bound): PostgreSQL's IF EXISTS notice (TypeNameToString). */
static void written_signature(PgQuery__ObjectWithArgs *ow, util_buf *out)
{
	util_buf_puts(out, ow->n_objname ? str_of(ow->objname[ow->n_objname - 1]) : "?");
	util_buf_puts(out, "(");
	for (size_t i = 0; i < ow->n_objargs; i++) {
		pnode *a = ow->objargs[i];
		if (a->node_case != PG_QUERY__NODE__NODE_TYPE_NAME)
			continue;
		PgQuery__TypeName *tn = a->type_name;
		if (i)
			util_buf_puts(out, ",");
		for (size_t k = 0; k < tn->n_names; k++)
			util_buf_printf(out, "%s%s", k ? "." : "",
					str_of(tn->names[k]) ? str_of(tn->names[k]) : "");
		for (size_t k = 0; k < tn->n_array_bounds; k++)
			util_buf_puts(out, "[]");
	}
	util_buf_puts(out, ")");
}

static bool function_exists(const char *name, const ty_oid *types, int n, bool any_args)
{
	int cursor = 0;
	for (const ty_func *f; (f = ty_func_lookup(name, &cursor));) {
		if (any_args)
			return true;
		if (f->nargs == n && !memcmp(f->args, types, sizeof(ty_oid) * (size_t)n))
			return true;
	}
	return false;
}

static void drop_function(sql_actx *ax, PgQuery__DropStmt *st, pnode *obj)
{
	if (obj->node_case != PG_QUERY__NODE__NODE_OBJECT_WITH_ARGS)
		ty_error(UTIL_E_FEATURE_NOT_SUPPORTED, "this kind of DROP is not supported");
	PgQuery__ObjectWithArgs *ow = obj->object_with_args;
	ty_oid types[TY_FUNC_MAX_ARGS];
	int n;
	char *sig = signature(ax, ow, types, &n);
	const char *name = ow->n_objname ? str_of(ow->objname[ow->n_objname - 1]) : NULL;
	bool found = name && function_exists(name, types, n, ow->args_unspecified);
	const char *text = ow->args_unspecified && name ? name : sig;
	if (found)
		ty_error(UTIL_E_DEPENDENT_OBJECTS_STILL_EXIST,
			 "cannot drop function %s because it is required by the database system", text);
	if (st->missing_ok) {
		util_buf w = UTIL_BUF_INIT;
		written_signature(ow, &w);
		sql_notice(ax->s, UTIL_E_SUCCESSFUL_COMPLETION, "function %s does not exist, skipping",
			   w.data);
		util_buf_free(&w);
	} else
		ty_error(UTIL_E_UNDEFINED_FUNCTION, "function %s does not exist", text);
}

static void drop_type(sql_actx *ax, PgQuery__DropStmt *st, pnode *obj)
{
	if (obj->node_case != PG_QUERY__NODE__NODE_TYPE_NAME)
		ty_error(UTIL_E_FEATURE_NOT_SUPPORTED, "this kind of DROP is not supported");
	ty_oid type = 0;
	int32_t typmod;
	TY_TRY(tc)
	{
		sql_typename(ax, obj->type_name, &type, &typmod);
	}
	TY_CATCH(tc)
	{
		TY_END(tc);
		if (!st->missing_ok || ty_err()->code != UTIL_E_UNDEFINED_OBJECT)
			ty_errthrow();
		/* PostgreSQL's notice names the type as written */
		PgQuery__TypeName *tn = obj->type_name;
		sql_notice(ax->s, UTIL_E_SUCCESSFUL_COMPLETION, "type \"%s\" does not exist, skipping",
			   tn->n_names ? str_of(tn->names[tn->n_names - 1]) : "?");
		return;
	}
	TY_END(tc);
	util_buf b = UTIL_BUF_INIT;
	ty_format_type(type, -1, &b);
	char *text = ty_strdup(b.data);
	util_buf_free(&b);
	ty_error(UTIL_E_DEPENDENT_OBJECTS_STILL_EXIST,
		 "cannot drop type %s because it is required by the database system", text);
}

bool sql_ddl_drop_builtin(sql_session *s, PgQuery__DropStmt *st, const char *text)
{
	bool fn = st->remove_type == PG_QUERY__OBJECT_TYPE__OBJECT_FUNCTION;
	if (!fn && st->remove_type != PG_QUERY__OBJECT_TYPE__OBJECT_TYPE)
		return false;
	/* (no statement text: PostgreSQL's errors here carry no position) */
	(void)text;
	sql_actx ax = {s, s->cat, ty_get_arena(), &(sql_pstate){0}};
	for (size_t i = 0; i < st->n_objects; i++) {
		if (fn)
			drop_function(&ax, st, st->objects[i]);
		else
			drop_type(&ax, st, st->objects[i]);
	}
	return true;
}
