/*
 * num_register.c — registers the numeric area with the types registry:
 * the types bool, int2/4/8, float4/8, numeric, oid, xid, cid and the reg*
 * oid aliases, then the
 * generated pg_proc/pg_operator/pg_cast tables (num_catalog.inc) and the
 * aggregates.
 */
#include "num_priv.h"

extern const ty_type num_bool_type;
extern const ty_type num_int_types[3];
extern const ty_type num_float_types[2];
extern const ty_type num_oid_types[3];
extern const ty_type num_numeric_type;
void num_register_reg_types(void);
extern const ty_agg num_aggs[];
extern const int num_naggs;
extern const ty_agg num_regr_aggs[];
extern const int num_nregr_aggs;

#include "num_catalog.inc"

void ty_register_numeric(void)
{
	ty_type_register(&num_bool_type);
	for (int i = 0; i < 3; i++)
		ty_type_register(&num_int_types[i]);
	for (int i = 0; i < 2; i++)
		ty_type_register(&num_float_types[i]);
	ty_type_register(&num_numeric_type);
	for (int i = 0; i < 3; i++)
		ty_type_register(&num_oid_types[i]);
	num_register_reg_types();
	ty_func_register(num_funcs, (int)UTIL_ARRAY_LEN(num_funcs));
	ty_operator_register(num_ops, (int)UTIL_ARRAY_LEN(num_ops));
	ty_cast_register(num_casts, (int)UTIL_ARRAY_LEN(num_casts));
	ty_agg_register(num_aggs, num_naggs);
	ty_agg_register(num_regr_aggs, num_nregr_aggs);
}
