/*
 * rowpack_test.c — the packed row format (docs/row-format.md, "Packed
 * rows"): every type class through sql_row_pack and back through the
 * readers (sql_row_decode_cells, sql_packed_find), NULLs, dropped and
 * added columns, rows of more than SQL_PACK_INLINE values and longer than
 * 64 KiB (4-byte offsets), the byte layout, a cells-format row read by
 * the same reader, and malformed values refused with XX001.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sql_int.h"
#include "sqlt_util.h"

static util_arena *arena;

static int setup(void **state)
{
	arena = sqlt_arena_setup(state);
	return 0;
}

static int teardown(void **state)
{
	return sqlt_arena_teardown(state, arena);
}

#define MAXC 200

/* A table of n columns of the given types; column 1 is the primary key
 * (int8, stored only in the key) when pk is set. */
typedef struct tab {
	cat_rel r;
	cat_column cols[MAXC];
	int16_t pk[1];
} tab;

static void make(tab *t, int n, const ty_oid *types, bool pk)
{
	memset(t, 0, sizeof *t);
	t->r.relkind = 'r';
	t->r.packed = true;
	snprintf(t->r.name, sizeof t->r.name, "t");
	for (int i = 0; i < n; i++) {
		cat_column *c = &t->cols[i];
		snprintf(c->name, sizeof c->name, "c%d", i + 1);
		c->attnum = (int16_t)(i + 1);
		c->col_id = (uint16_t)(i + 1);
		c->type = types ? types[i] : TY_INT4;
		c->typmod = -1;
	}
	t->r.cols = t->cols;
	t->r.ncols = n;
	t->r.next_col_id = (uint16_t)(n + 1);
	if (pk) {
		t->pk[0] = 1;
		t->r.pk = t->pk;
		t->r.npk = 1;
	}
}

/* A kv row of one cell: the sentinel with value v. */
static bool decode(const tab *t, const util_buf *v, const bool *needed, ty_datum *out)
{
	sql_rowmap m;
	sql_rowmap_build(&t->r, arena, &m);
	kv_cell c;
	memset(&c, 0, sizeof c);
	c.qualifier = (kv_slice){(const uint8_t *)"", 0};
	c.value = (kv_slice){(const uint8_t *)v->data, v->len};
	return sql_row_decode_cells(&t->r, &m, &c, 1, needed, out);
}

/* The packed bytes of column id in b (false: not there). */
static bool find(const util_buf *b, uint16_t id, const uint8_t **v, size_t *vl)
{
	sql_packed pk;
	sql_packed_open(&pk, (const uint8_t *)b->data, b->len);
	return sql_packed_find(&pk, id, v, vl);
}

static ty_datum text(const char *s)
{
	return ty_bytes(ty_strdup(s), strlen(s));
}

static void assert_same(ty_oid type, ty_datum a, ty_datum b)
{
	assert_int_equal(a.null, b.null);
	if (a.null)
		return;
	const ty_type *t = ty_type_get(type);
	if (t && !t->byval) {
		assert_int_equal(a.len, b.len);
		assert_memory_equal(a.p, b.p, a.len);
	} else if (type == TY_FLOAT4 || type == TY_FLOAT8) {
		assert_true(a.f == b.f);
	} else {
		assert_int_equal(a.i, b.i);
	}
}

/* One value of each storage class, the key and two NULLs among them. */
static void test_types_roundtrip(void **state)
{
	(void)state;
	static const ty_oid types[] = {TY_INT8, TY_BOOL,  TY_CHAR,   TY_INT2,   TY_INT4,
				       TY_DATE, TY_OID,   TY_FLOAT4, TY_FLOAT8, TY_TIMESTAMPTZ,
				       TY_TEXT, TY_BYTEA, TY_INT4,   TY_TEXT};
	int n = (int)(sizeof types / sizeof types[0]);
	tab t;
	make(&t, n, types, true);
	ty_datum in[16], out[16];
	in[0] = ty_int(77); /* the key: not packed */
	in[1] = ty_int(1);
	in[2] = ty_int(-5);
	in[3] = ty_int(-32768);
	in[4] = ty_int(INT32_MIN);
	in[5] = ty_int(-1);
	in[6] = ty_int(4000000000LL);
	in[7] = ty_float(1.5);
	in[8] = ty_float(-0.0);
	in[9] = ty_int(INT64_MAX);
	in[10] = text("héllo");
	in[11] = ty_bytes(ty_strdup(""), 0); /* an empty value is not NULL */
	in[12] = ty_null();
	in[13] = ty_null();
	util_buf b = UTIL_BUF_INIT;
	sql_row_pack(&t.r, in, n, &b);
	assert_true(decode(&t, &b, NULL, out));
	assert_true(out[0].null); /* key columns come from the key (sql_key_decode) */
	for (int i = 1; i < n; i++)
		assert_same(types[i], in[i], out[i]);
	/* Only the needed ones decoded. */
	bool needed[16] = {false};
	needed[10] = true;
	assert_true(decode(&t, &b, needed, out));
	assert_same(TY_TEXT, in[10], out[10]);
	assert_true(out[4].null);
	util_buf_free(&b);
}

/* The bytes as docs/row-format.md draws them. */
static void test_layout(void **state)
{
	(void)state;
	static const ty_oid types[] = {TY_INT8, TY_INT4, TY_TEXT, TY_INT2};
	tab t;
	make(&t, 4, types, true);
	ty_datum in[4] = {ty_int(1), ty_int(7), text("ab"), ty_null()};
	util_buf b = UTIL_BUF_INIT;
	sql_row_pack(&t.r, in, 4, &b);
	/* clang-format off */
	static const uint8_t want[] = {
		0, 0, 0, 7, 'a', 'b', /* values */
		0, 2, 0, 3,           /* ids */
		0, 4, 0, 6,           /* ends */
		0, 2, SQL_PACK_TAG_W2};
	/* clang-format on */
	assert_int_equal(b.len, sizeof want);
	assert_memory_equal(b.data, want, sizeof want);
	const uint8_t *v;
	size_t vl;
	assert_true(find(&b, 3, &v, &vl));
	assert_int_equal(vl, 2);
	assert_memory_equal(v, "ab", 2);
	assert_false(find(&b, 4, &v, &vl)); /* NULL */
	assert_false(find(&b, 1, &v, &vl)); /* the key */
	util_buf_free(&b);
}

/* No value at all: the empty sentinel of the cells format. */
static void test_all_null(void **state)
{
	(void)state;
	tab t;
	make(&t, 3, NULL, true);
	ty_datum in[3] = {ty_int(1), ty_null(), ty_null()}, out[3];
	util_buf b = UTIL_BUF_INIT;
	sql_row_pack(&t.r, in, 3, &b);
	assert_int_equal(b.len, 0);
	assert_true(decode(&t, &b, NULL, out));
	assert_true(out[1].null && out[2].null);
	util_buf_free(&b);
}

/* A dropped column's value is ignored; a column added after the row was
 * written reads as NULL; fewer values than columns (nvals) packs those. */
static void test_dropped_and_added(void **state)
{
	(void)state;
	tab t;
	make(&t, 3, NULL, false);
	ty_datum in[4] = {ty_int(10), ty_int(20), ty_int(30), ty_int(40)}, out[4];
	util_buf b = UTIL_BUF_INIT;
	sql_row_pack(&t.r, in, 3, &b);
	t.cols[1].dropped = true;
	t.cols[3] = t.cols[2];
	t.cols[3].attnum = 4;
	t.cols[3].col_id = 4;
	snprintf(t.cols[3].name, sizeof t.cols[3].name, "c4");
	t.r.ncols = 4;
	t.r.next_col_id = 5;
	assert_true(decode(&t, &b, NULL, out));
	assert_int_equal(out[0].i, 10);
	assert_true(out[1].null);
	assert_int_equal(out[2].i, 30);
	assert_true(out[3].null);
	/* Written now, the dropped column is not packed. */
	util_buf_reset(&b);
	sql_row_pack(&t.r, in, 4, &b);
	sql_packed pk;
	sql_packed_open(&pk, (const uint8_t *)b.data, b.len);
	assert_int_equal(pk.n, 3);
	util_buf_free(&b);
}

/* More values than the packer's inline arrays, and values past 64 KiB:
 * 4-byte offsets. */
static void test_wide_rows(void **state)
{
	(void)state;
	static ty_oid types[MAXC];
	for (int i = 0; i < MAXC; i++)
		types[i] = i % 2 ? TY_TEXT : TY_INT8;
	tab t;
	make(&t, MAXC, types, false);
	ty_datum in[MAXC], out[MAXC];
	char *big = ty_alloc(1000);
	memset(big, 'x', 1000);
	for (int i = 0; i < MAXC; i++) {
		big[i % 1000] = (char)('a' + i % 26);
		in[i] = i % 2 ? ty_bytes(memcpy(ty_alloc(1000), big, 1000), 1000) : ty_int(i * 1000003LL);
		big[i % 1000] = 'x';
	}
	util_buf b = UTIL_BUF_INIT;
	sql_row_pack(&t.r, in, MAXC, &b);
	assert_int_equal((uint8_t)b.data[b.len - 1], SQL_PACK_TAG_W4);
	assert_true(decode(&t, &b, NULL, out));
	for (int i = 0; i < MAXC; i++)
		assert_same(types[i], in[i], out[i]);
	const uint8_t *v;
	size_t vl;
	assert_true(find(&b, 200, &v, &vl));
	assert_int_equal(vl, 1000);
	assert_memory_equal(v, in[199].p, 1000);
	util_buf_free(&b);
}

/* The cells format's row (empty sentinel, a cell per column) through the
 * same reader: tables created before the flip read as they did. */
static void test_cells_row(void **state)
{
	(void)state;
	tab t;
	make(&t, 3, NULL, true);
	t.r.packed = false;
	sql_rowmap m;
	sql_rowmap_build(&t.r, arena, &m);
	kv_cell c[3];
	memset(c, 0, sizeof c);
	uint8_t q2[2], q3[2], v2[4] = {0, 0, 1, 0}, v3[4] = {0xff, 0xff, 0xff, 0xfe};
	sql_colid_qual(2, q2);
	sql_colid_qual(3, q3);
	c[0].qualifier = (kv_slice){(const uint8_t *)"", 0};
	c[0].value = (kv_slice){(const uint8_t *)"", 0};
	c[1].qualifier = (kv_slice){q2, 2};
	c[1].value = (kv_slice){v2, 4};
	c[2].qualifier = (kv_slice){q3, 2};
	c[2].value = (kv_slice){v3, 4};
	ty_datum out[3];
	assert_true(sql_row_decode_cells(&t.r, &m, c, 3, NULL, out));
	assert_int_equal(out[1].i, 256);
	assert_int_equal(out[2].i, -2);
	/* No sentinel: no row. */
	assert_false(sql_row_decode_cells(&t.r, &m, c + 1, 2, NULL, out));
}

static int corrupt(const tab *t, const uint8_t *v, size_t n)
{
	util_buf b = UTIL_BUF_INIT;
	util_buf_append(&b, v, n);
	ty_datum out[4];
	volatile int code = 0;
	TY_TRY(x)
	{
		decode(t, &b, NULL, out);
	}
	TY_CATCH(x)
	{
		code = (int)ty_err()->code;
	}
	TY_END(x);
	util_buf_free(&b);
	return code;
}

static void test_malformed(void **state)
{
	(void)state;
	tab t;
	make(&t, 3, NULL, false);
	static const uint8_t bad_tag[] = {0, 0, 0, 1, 0, 1, 0, 4, 0, 1, 9};
	static const uint8_t zero_n[] = {0, 0, SQL_PACK_TAG_W2};
	static const uint8_t short_v[] = {0, SQL_PACK_TAG_W2};
	static const uint8_t too_many[] = {0, 0, 0, 1, 0, 1, 0, 4, 0, 9, SQL_PACK_TAG_W2};
	static const uint8_t end_off[] = {0, 0, 0, 1, 0, 1, 0, 5, 0, 1, SQL_PACK_TAG_W2};
	static const uint8_t descending[] = {
	    0, 0, 0, 1, 0, 0, 0, 2, 0, 1, 0, 2, 0, 9, 0, 8, 0, 2, SQL_PACK_TAG_W2};
	static const uint8_t bad_len[] = {0, 0, 1, 0, 1, 0, 3, 0, 1, SQL_PACK_TAG_W2}; /* int4 of 3 bytes */
	int e = UTIL_E_DATA_CORRUPTED;
	assert_int_equal(corrupt(&t, bad_tag, sizeof bad_tag), e);
	assert_int_equal(corrupt(&t, zero_n, sizeof zero_n), e);
	assert_int_equal(corrupt(&t, short_v, sizeof short_v), e);
	assert_int_equal(corrupt(&t, too_many, sizeof too_many), e);
	assert_int_equal(corrupt(&t, end_off, sizeof end_off), e);
	assert_int_equal(corrupt(&t, descending, sizeof descending), e);
	assert_int_equal(corrupt(&t, bad_len, sizeof bad_len), e);
	/* Every truncation of a good value is refused, never read past. */
	ty_datum in[3] = {ty_int(1), ty_int(2), ty_int(3)};
	util_buf b = UTIL_BUF_INIT;
	sql_row_pack(&t.r, in, 3, &b);
	for (size_t n = 1; n < b.len; n++)
		assert_int_equal(corrupt(&t, (const uint8_t *)b.data + b.len - n, n), e);
	util_buf_free(&b);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test_setup_teardown(test_types_roundtrip, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_layout, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_all_null, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_dropped_and_added, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_wide_rows, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_cells_row, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_malformed, setup, teardown),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
