/*
 * arr_types.c — registers an array type for every base type that has one in
 * PostgreSQL (pg_type.typarray) and is registered in Strata. Element types
 * belong to other areas; everything dispatches to the element type at run
 * time through ty_type_get(elem). Input, binary receive and key decoding
 * need the element type before they see a value, so each array type gets
 * small wrappers generated from the table below.
 */
#include "arr_int.h"

/* X(array oid, element oid, pg_type.typname): PostgreSQL 15's arrays. */
#define ARR_TYPES(X)                                                                                         \
	X(1000, 16, "_bool")                                                                                 \
	X(1001, 17, "_bytea")                                                                                \
	X(1002, 18, "_char")                                                                                 \
	X(1003, 19, "_name")                                                                                 \
	X(1016, 20, "_int8")                                                                                 \
	X(1005, 21, "_int2")                                                                                 \
	X(1006, 22, "_int2vector")                                                                           \
	X(1007, 23, "_int4")                                                                                 \
	X(1008, 24, "_regproc")                                                                              \
	X(1009, 25, "_text")                                                                                 \
	X(1028, 26, "_oid")                                                                                  \
	X(1010, 27, "_tid")                                                                                  \
	X(1011, 28, "_xid")                                                                                  \
	X(1012, 29, "_cid")                                                                                  \
	X(1013, 30, "_oidvector")                                                                            \
	X(199, 114, "_json")                                                                                 \
	X(143, 142, "_xml")                                                                                  \
	X(1017, 600, "_point")                                                                               \
	X(1018, 601, "_lseg")                                                                                \
	X(1019, 602, "_path")                                                                                \
	X(1020, 603, "_box")                                                                                 \
	X(1027, 604, "_polygon")                                                                             \
	X(629, 628, "_line")                                                                                 \
	X(651, 650, "_cidr")                                                                                 \
	X(1021, 700, "_float4")                                                                              \
	X(1022, 701, "_float8")                                                                              \
	X(719, 718, "_circle")                                                                               \
	X(775, 774, "_macaddr8")                                                                             \
	X(791, 790, "_money")                                                                                \
	X(1040, 829, "_macaddr")                                                                             \
	X(1041, 869, "_inet")                                                                                \
	X(1034, 1033, "_aclitem")                                                                            \
	X(1014, 1042, "_bpchar")                                                                             \
	X(1015, 1043, "_varchar")                                                                            \
	X(1182, 1082, "_date")                                                                               \
	X(1183, 1083, "_time")                                                                               \
	X(1115, 1114, "_timestamp")                                                                          \
	X(1185, 1184, "_timestamptz")                                                                        \
	X(1187, 1186, "_interval")                                                                           \
	X(1270, 1266, "_timetz")                                                                             \
	X(1561, 1560, "_bit")                                                                                \
	X(1563, 1562, "_varbit")                                                                             \
	X(1231, 1700, "_numeric")                                                                            \
	X(2201, 1790, "_refcursor")                                                                          \
	X(2207, 2202, "_regprocedure")                                                                       \
	X(2208, 2203, "_regoper")                                                                            \
	X(2209, 2204, "_regoperator")                                                                        \
	X(2210, 2205, "_regclass")                                                                           \
	X(2211, 2206, "_regtype")                                                                            \
	X(2287, 2249, "_record")                                                                             \
	X(1263, 2275, "_cstring")                                                                            \
	X(2951, 2950, "_uuid")                                                                               \
	X(2949, 2970, "_txid_snapshot")                                                                      \
	X(3221, 3220, "_pg_lsn")                                                                             \
	X(3643, 3614, "_tsvector")                                                                           \
	X(3645, 3615, "_tsquery")                                                                            \
	X(3644, 3642, "_gtsvector")                                                                          \
	X(3735, 3734, "_regconfig")                                                                          \
	X(3770, 3769, "_regdictionary")                                                                      \
	X(3807, 3802, "_jsonb")                                                                              \
	X(4073, 4072, "_jsonpath")                                                                           \
	X(4090, 4089, "_regnamespace")                                                                       \
	X(4097, 4096, "_regrole")                                                                            \
	X(4192, 4191, "_regcollation")                                                                       \
	X(5039, 5038, "_pg_snapshot")                                                                        \
	X(271, 5069, "_xid8")

#define X(aoid, eoid, nm)                                                                                    \
	static ty_datum in_##aoid(const char *s, size_t n, int32_t tm)                                       \
	{                                                                                                    \
		return arr_in(eoid, s, n, tm);                                                               \
	}                                                                                                    \
	static ty_datum recv_##aoid(const uint8_t *p, size_t n, int32_t tm)                                  \
	{                                                                                                    \
		return arr_recv(eoid, p, n, tm);                                                             \
	}                                                                                                    \
	static size_t keydec_##aoid(const uint8_t *p, const uint8_t *e, ty_datum *o)                         \
	{                                                                                                    \
		return arr_keydec(eoid, p, e, o);                                                            \
	}
ARR_TYPES(X)
#undef X

typedef struct arr_def {
	ty_oid aoid, eoid;
	const char *name;
	ty_in_fn in;
	ty_recv_fn recv;
	ty_keydec_fn keydec;
} arr_def;

static const arr_def defs[] = {
#define X(aoid, eoid, nm) {aoid, eoid, nm, in_##aoid, recv_##aoid, keydec_##aoid},
    ARR_TYPES(X)
#undef X
};

static ty_type types[UTIL_ARRAY_LEN(defs)];
static bool done[UTIL_ARRAY_LEN(defs)];

void arr_register_array_of(ty_oid elem)
{
	const ty_type *et = ty_type_get(elem);
	if (!et)
		return;
	for (size_t i = 0; i < UTIL_ARRAY_LEN(defs); i++) {
		if (defs[i].eoid != elem || done[i] || ty_type_get(defs[i].aoid))
			continue;
		ty_type *t = &types[i];
		t->oid = defs[i].aoid;
		t->name = defs[i].name;
		t->len = -1;
		t->byval = false;
		t->category = 'A';
		t->typtype = 'b';
		t->align = et->align == 'd' ? 'd' : 'i';
		t->elem = elem;
		t->in = defs[i].in;
		t->out = arr_out;
		t->recv = et->recv ? defs[i].recv : NULL;
		t->send = et->send ? arr_send : NULL;
		t->cmp = et->cmp ? arr_cmp : NULL;
		t->hash = et->hash ? arr_hash : NULL;
		t->keyenc = et->keyenc && et->keydec ? arr_keyenc : NULL;
		t->keydec = et->keyenc && et->keydec ? defs[i].keydec : NULL;
		t->key_lossy = et->key_lossy;
		t->typmod_apply = et->typmod_apply ? arr_typmod_apply : NULL;
		t->typmod_out = et->typmod_out ? et->typmod_out : NULL;
		t->input_name = "array_in";
		t->output_name = "array_out";
		done[i] = true;
		ty_type_register(t);
	}
}

void arr_register_types(void)
{
	for (size_t i = 0; i < UTIL_ARRAY_LEN(defs); i++)
		arr_register_array_of(defs[i].eoid);
}

ty_oid ty_array_type_of(ty_oid elemtype)
{
	for (size_t i = 0; i < UTIL_ARRAY_LEN(defs); i++)
		if (defs[i].eoid == elemtype)
			return ty_type_get(defs[i].aoid) ? defs[i].aoid : 0;
	const ty_type *t = ty_type_get(elemtype);
	return t && t->array && ty_type_get(t->array) ? t->array : 0;
}
