/*
 * fault_kv.c — strata_test_kv(op, kv_table, row, family, value): damage
 * the store behind the SQL layer's back, for the tests of strata_verify()
 * (tests/ops). Only a server started with STRATA_TEST_FAULTS=1 has it on,
 * and only for superusers. Ops:
 *   'first_row'  the kv table's first row key (NULL: empty)
 *   'put'        value into row, family, the empty qualifier (a new version)
 *   'delete_row' every cell of the row
 *   'drop'       drops the kv table (the catalog still names it)
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sql_int.h"

static kv_slice arg_bytes(ty_fcinfo *fc, int i)
{
	if (fc->args[i].null)
		ty_error(UTIL_E_NULL_VALUE_NOT_ALLOWED, "strata_test_kv: argument %d is NULL", i + 1);
	return (kv_slice){fc->args[i].p, fc->args[i].len};
}

static ty_datum first_row(kv_table *t)
{
	kv_scan_opts so;
	memset(&so, 0, sizeof so);
	so.limit = 1;
	kv_iter *it = kv_scan(t, &so);
	ty_datum d = ty_null();
	if (kv_iter_valid(it)) {
		const kv_cell *c = kv_iter_cell(it);
		void *p = ty_alloc(c->row.len ? c->row.len : 1);
		memcpy(p, c->row.data, c->row.len);
		d = ty_bytes(p, c->row.len);
	}
	kv_status st = kv_iter_status(it);
	kv_iter_close(it);
	if (st != KV_OK)
		sql_kv_error(st, "strata_test_kv");
	return d;
}

static ty_datum f_test_kv(ty_fcinfo *fc)
{
	const char *on = getenv("STRATA_TEST_FAULTS");
	if (!on || strcmp(on, "1"))
		ty_error(UTIL_E_FEATURE_NOT_SUPPORTED,
			 "strata_test_kv needs a server started with STRATA_TEST_FAULTS=1");
	sql_session *s = sql_current_session();
	if (!s->superuser)
		ty_error(UTIL_E_INSUFFICIENT_PRIVILEGE, "must be superuser to damage the store");
	kv_slice op = arg_bytes(fc, 0), name = arg_bytes(fc, 1);
	char opn[16], tn[CAT_NAME_MAX + 1];
	snprintf(opn, sizeof opn, "%.*s", (int)op.len, (const char *)op.data);
	snprintf(tn, sizeof tn, "%.*s", (int)name.len, (const char *)name.data);
	if (!strcmp(opn, "drop")) {
		kv_status st = kv_table_drop(s->e->kv, tn);
		if (st != KV_OK)
			sql_kv_error(st, "strata_test_kv");
		return ty_null();
	}
	kv_table *t;
	kv_status st = kv_table_open(s->e->kv, tn, &t);
	if (st != KV_OK)
		sql_kv_error(st, "strata_test_kv");
	ty_datum out = ty_null();
	if (!strcmp(opn, "first_row")) {
		TY_TRY(tc)
		{
			out = first_row(t);
		}
		TY_CATCH(tc)
		{
			TY_END(tc);
			kv_table_close(t);
			ty_errthrow();
		}
		TY_END(tc);
		kv_table_close(t);
		return out;
	}
	kv_batch *b = kv_batch_new();
	if (!strcmp(opn, "put") && !fc->args[2].null && !fc->args[3].null && !fc->args[4].null) {
		char fam[64];
		snprintf(fam, sizeof fam, "%.*s", (int)fc->args[3].len, (const char *)fc->args[3].p);
		kv_batch_put(b, t, fc->args[2].p, fc->args[2].len, fam, "", 0, KV_TS_LATEST, fc->args[4].p,
			     fc->args[4].len);
	} else if (!strcmp(opn, "delete_row") && !fc->args[2].null) {
		kv_batch_delete_row(b, t, fc->args[2].p, fc->args[2].len, KV_TS_LATEST);
	} else {
		kv_batch_free(b);
		kv_table_close(t);
		ty_error(UTIL_E_INVALID_PARAMETER_VALUE, "strata_test_kv: unknown op \"%s\" or NULL argument",
			 opn);
	}
	st = kv_commit(s->e->kv, b, NULL, NULL);
	kv_batch_free(b);
	kv_table_close(t);
	if (st != KV_OK)
		sql_kv_error(st, "strata_test_kv");
	return out;
}

static const ty_func fault_funcs[] = {
    {.name = "strata_test_kv",
     .nargs = 5,
     .args = {TY_TEXT, TY_TEXT, TY_BYTEA, TY_TEXT, TY_BYTEA},
     .ret = TY_BYTEA,
     .fn = f_test_kv,
     .volatility = TY_VOLATILE,
     .kind = 'f',
     .prosrc = "strata_test_kv"},
};

void sql_register_fault_kv_functions(void)
{
	ty_func_register(fault_funcs, (int)UTIL_ARRAY_LEN(fault_funcs));
}
