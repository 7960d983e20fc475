/*
 * protocol_test.c — the entry format and the write/read protocol of index/
 * on a real store: atomic and split commits, unique conditions, judging
 * and repairing entries, and crashes between the split protocol's steps
 * (kv_fault kills the store's I/O at the fault point; the store is then
 * crashed, reopened, and every index answer must equal the data).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "idxt_util.h"
#include "kv_fault.h"

static void expect_same(idxt *t)
{
	util_buf a = UTIL_BUF_INIT, b = UTIL_BUF_INIT;
	idxt_index_ids(t, 0, &a);
	idxt_data_ids(t, 0, &b);
	assert_string_equal(a.data ? a.data : "", b.data ? b.data : "");
	util_buf_free(&a);
	util_buf_free(&b);
}

static void test_entry_format(void **state)
{
	(void)state;
	idxt t;
	idxt_open(&t, NULL, false, NULL);
	util_buf k = UTIL_BUF_INIT, v = UTIL_BUF_INIT;
	idxt_entry(&t, 7, 42, false, "payload", &k, &v);
	kv_cell c = {{(const uint8_t *)k.data, k.len}, {(const uint8_t *)"d", 1}, {NULL, 0}, 99, KV_PUT,
		     {(const uint8_t *)v.data, v.len}};
	idx_entry e;
	assert_true(idx_entry_parse(&t.def, &c, &e));
	util_buf pk = UTIL_BUF_INIT;
	idxt_pk(7, &pk);
	assert_int_equal(e.pk.len, pk.len);
	assert_memory_equal(e.pk.data, pk.data, pk.len);
	assert_int_equal(e.payload.len, 7);
	assert_memory_equal(e.payload.data, "payload", 7);
	assert_int_equal(e.ts, 99);
	assert_false(e.guard);
	size_t off[2];
	assert_true(idx_split_values(&t.def, (const uint8_t *)k.data, k.len, off));
	assert_int_equal(off[1], e.values_len);
	assert_false(idx_values_have_null(&t.def, (const uint8_t *)k.data, e.values_len));
	/* Order: the key sorts by a first, then by the primary key. */
	util_buf k2 = UTIL_BUF_INIT, v2 = UTIL_BUF_INIT;
	idxt_entry(&t, 1, 43, false, NULL, &k2, &v2);
	kv_slice s1 = {(const uint8_t *)k.data, k.len}, s2 = {(const uint8_t *)k2.data, k2.len};
	assert_true(kv_slice_cmp(s1, s2) < 0);
	/* A malformed cell is refused, never a crash. */
	kv_cell bad = c;
	bad.row.len = 3;
	assert_false(idx_entry_parse(&t.def, &bad, &e));
	bad = c;
	bad.value.len = 0;
	assert_false(idx_entry_parse(&t.def, &bad, &e));
	/* A key of values alone is a guard only in a unique index. */
	bad = c;
	bad.row.len = e.values_len;
	assert_false(idx_entry_parse(&t.def, &bad, &e));
	idxt_close(&t, true);
	idxt_open(&t, NULL, true, NULL);
	util_buf gv = UTIL_BUF_INIT;
	idx_make_guard_value(pk.data, pk.len, &gv);
	c.row.len = off[1];
	c.value = (kv_slice){(const uint8_t *)gv.data, gv.len};
	assert_true(idx_entry_parse(&t.def, &c, &e));
	assert_true(e.guard);
	assert_memory_equal(e.pk.data, pk.data, pk.len);
	util_buf_free(&gv);
	/* NULL values are seen as such. */
	util_buf_reset(&k);
	util_buf_reset(&v);
	idxt_entry(&t, 7, 0, true, NULL, &k, &v);
	assert_true(idx_values_have_null(&t.def, (const uint8_t *)k.data, k.len - pk.len));
	util_buf_free(&k);
	util_buf_free(&v);
	util_buf_free(&k2);
	util_buf_free(&v2);
	util_buf_free(&pk);
	idxt_close(&t, true);
}

/* Updates in both modes keep the index equal to the data, and every entry
 * carries its data write's timestamp. */
static void run_updates(bool split)
{
	idxt t;
	idxt_open(&t, NULL, false, NULL);
	idxt_row rows[20];
	for (int i = 0; i < 20; i++) {
		rows[i] = (idxt_row){i, i % 5, false, "x"};
		assert_int_equal(idxt_write(&t, NULL, &rows[i], split, NULL, NULL), KV_OK);
	}
	expect_same(&t);
	unsigned seed = 7;
	for (int step = 0; step < 200; step++) {
		int i = (int)(rand_r(&seed) % 20);
		idxt_row nw = rows[i];
		int what = (int)(rand_r(&seed) % 5);
		if (what == 0 && rows[i].b) {
			assert_int_equal(idxt_write(&t, &rows[i], NULL, split, NULL, NULL), KV_OK);
			rows[i].b = NULL; /* deleted */
			continue;
		}
		nw.a = rand_r(&seed) % 7;
		nw.a_null = what == 1;
		nw.b = what == 2 ? "y" : "x";
		assert_int_equal(idxt_write(&t, rows[i].b ? &rows[i] : NULL, &nw, split, NULL, NULL), KV_OK);
		rows[i] = nw;
	}
	expect_same(&t);
	idx_check_report r;
	assert_int_equal(idx_check(t.data, &t.def, &t.model, 0, &r, NULL, NULL), KV_OK);
	assert_int_equal(r.missing, 0);
	assert_int_equal(r.stale, 0);
	assert_int_equal(r.mismatched, 0);
	assert_int_equal(r.rows, r.entries);
	idxt_close(&t, true);
}

static void test_atomic_updates(void **state)
{
	(void)state;
	run_updates(false);
}

static void test_split_updates(void **state)
{
	(void)state;
	run_updates(true);
}

/* A re-put at the same timestamp (step 3, repairs) replaces the cell. */
static void test_same_ts_reput(void **state)
{
	(void)state;
	idxt t;
	idxt_open(&t, NULL, false, NULL);
	idxt_row r = {1, 5, false, "x"};
	assert_int_equal(idxt_write(&t, NULL, &r, true, NULL, NULL), KV_OK);
	kv_scan_opts so;
	memset(&so, 0, sizeof so);
	so.read.max_versions = 10;
	kv_iter *it = kv_scan(t.index, &so);
	assert_true(kv_iter_valid(it));
	assert_true(kv_iter_cell(it)->value.data[0] & IDX_F_VERIFIED);
	kv_iter_next(it);
	assert_false(kv_iter_valid(it)); /* one version: step 3 replaced step 1 */
	kv_iter_close(it);
	/* After a flush and a compaction too. */
	assert_int_equal(kv_table_flush(t.index), KV_OK);
	assert_int_equal(kv_table_compact(t.index, true), KV_OK);
	it = kv_scan(t.index, &so);
	assert_true(kv_iter_valid(it));
	assert_true(kv_iter_cell(it)->value.data[0] & IDX_F_VERIFIED);
	kv_iter_close(it);
	idxt_close(&t, true);
}

static void test_unique_require(void **state)
{
	(void)state;
	idxt t;
	idxt_open(&t, NULL, true, NULL);
	for (int split = 0; split < 2; split++) {
		idxt_row r1 = {1 + split * 10, 5 + split, false, NULL},
			 r2 = {2 + split * 10, 5 + split, false, NULL};
		util_buf k = UTIL_BUF_INIT, v = UTIL_BUF_INIT, pk = UTIL_BUF_INIT;
		assert_int_equal(idxt_write(&t, NULL, &r1, split, NULL, NULL), KV_OK);
		/* r2 takes the same key requiring it absent: refused. */
		idxt_entry(&t, r2.id, r2.a, false, NULL, &k, &v);
		idxt_pk(r2.id, &pk);
		idx_writer *w = idx_writer_new();
		idx_writer_put(w, &t.def, k.data, k.len, v.data, v.len);
		idx_writer_guard(w, &t.def, k.data, k.len - pk.len, pk.data, pk.len, true);
		idx_writer_require(w, &t.def, k.data, k.len - pk.len, NULL, 0);
		kv_batch *b = kv_batch_new();
		kv_batch_put(b, t.data, pk.data, pk.len, "d", "", 0, KV_TS_LATEST, "", 0);
		kv_status st;
		if (split) {
			st = idx_commit_split(w, t.s, b, NULL, NULL);
		} else {
			idx_writer_to_batch(w, b);
			st = kv_commit(t.s, b, NULL, NULL);
		}
		assert_int_equal(st, KV_CHECK_FAILED);
		expect_same(&t); /* nothing of r2 was written */
		idx_writer_free(w);
		kv_batch_free(b);
		util_buf_free(&k);
		util_buf_free(&v);
		util_buf_free(&pk);
	}
	idxt_close(&t, true);
}

/* Judging: a stale entry (no row, other key) is rejected and its repair
 * removes exactly that version; an unverified right entry is verified. */
static void test_judge_repair(void **state)
{
	(void)state;
	idxt t;
	idxt_open(&t, NULL, false, NULL);
	idxt_row r = {1, 5, false, "x"};
	assert_int_equal(idxt_write(&t, NULL, &r, false, NULL, NULL), KV_OK);
	/* A leftover entry for row 1 with a = 9 (as a crash after step 1 leaves). */
	util_buf k = UTIL_BUF_INIT, v = UTIL_BUF_INIT;
	idxt_entry(&t, 1, 9, false, "x", &k, &v);
	kv_batch *b = kv_batch_new();
	kv_batch_put(b, t.index, k.data, k.len, "d", "", 0, KV_TS_LATEST, v.data, v.len);
	assert_int_equal(kv_commit(t.s, b, NULL, NULL), KV_OK);
	expect_same(&t); /* rejected at read */
	idx_check_report rep;
	assert_int_equal(idx_check(t.data, &t.def, &t.model, 0, &rep, NULL, NULL), KV_OK);
	assert_int_equal(rep.stale, 1);
	/* Repair every entry the way a reader does. */
	kv_scan_opts so;
	memset(&so, 0, sizeof so);
	kv_iter *it = kv_scan(t.index, &so);
	kv_batch_clear(b);
	int repaired = 0;
	util_arena *a = util_arena_new(4096, 0);
	for (; kv_iter_valid(it); kv_iter_next(it)) {
		idx_entry e;
		assert_true(idx_entry_parse(&t.def, kv_iter_cell(it), &e));
		kv_read_opts ro;
		memset(&ro, 0, sizeof ro);
		kv_row row;
		assert_int_equal(kv_get(t.data, e.pk.data, e.pk.len, &ro, a, &row), KV_OK);
		util_buf rk = UTIL_BUF_INIT, rv = UTIL_BUF_INIT;
		kv_ts rts = 0;
		bool has = t.model.entry(&t, row.cells, row.n, &rk, &rv, &rts);
		idx_verdict vd = idx_judge(&e, has, rk.data, rk.len, rts);
		repaired += idx_repair(b, &t.def, &e, vd, rv.data, rv.len, rts);
		util_buf_free(&rk);
		util_buf_free(&rv);
	}
	kv_iter_close(it);
	util_arena_destroy(a);
	assert_int_equal(repaired, 1); /* the good entry was verified already */
	assert_int_equal(kv_commit(t.s, b, NULL, NULL), KV_OK);
	assert_int_equal(idx_check(t.data, &t.def, &t.model, 0, &rep, NULL, NULL), KV_OK);
	assert_int_equal(rep.stale + rep.missing + rep.mismatched, 0);
	assert_int_equal(rep.entries, 1);
	kv_batch_free(b);
	util_buf_free(&k);
	util_buf_free(&v);
	idxt_close(&t, true);
}

/* Crashes between the split protocol's steps. */
typedef struct crash_ctx {
	kv_fault_fs *f;
	idx_split_step at;
} crash_ctx;

static void crash_at(void *arg, idx_split_step step)
{
	crash_ctx *c = arg;
	if (step == c->at)
		kv_fault_kill(c->f); /* the process "dies": nothing more reaches the disk */
}

/* same_key: the update keeps a (the entry key) and changes only b (the
 * INCLUDE payload), so after step 1 the one entry key of the row holds the
 * new payload, unverified, newer than the row that kept the old one. */
static void run_crash(idx_split_step at, bool unique, bool same_key)
{
	kv_fault_fs *f = kv_fault_fs_new(kv_fs_posix());
	kv_store_opts o;
	kv_store_opts_default(&o);
	o.durability = KV_SYNC_COMMIT;
	o.create_if_missing = true;
	o.fs = kv_fault_fs_get(f);
	idxt t;
	idxt_open(&t, NULL, unique, &o);
	char *dir = strdup(t.dir);
	for (int i = 0; i < 10; i++) {
		idxt_row r = {i, i, false, "x"};
		assert_int_equal(idxt_write(&t, NULL, &r, true, NULL, NULL), KV_OK);
	}
	/* Row 3 moves from a=3 to a=30 (or keeps a=3) and from b="x" to b="y";
	 * the crash hits between steps. */
	idxt_row old = {3, 3, false, "x"}, nw = {3, same_key ? 3 : 30, false, "y"};
	crash_ctx cc = {f, at};
	(void)idxt_write(&t, &old, &nw, true, crash_at, &cc);
	idxt_close(&t, false);
	kv_fault_crash(f, 1, false);
	kv_fault_revive(f);
	idxt_open(&t, dir, unique, &o);
	expect_same(&t);
	/* The row has exactly one member entry, matching its data. */
	util_buf ids = UTIL_BUF_INIT;
	idxt_index_ids(&t, 0, &ids);
	assert_string_equal(ids.data, "0,1,2,3,4,5,6,7,8,9");
	idx_check_report r;
	assert_int_equal(idx_check(t.data, &t.def, &t.model, 0, &r, NULL, NULL), KV_OK);
	assert_int_equal(r.missing, 0);
	assert_int_equal(r.mismatched, 0);
	/* Stale: the new key's entry without its data (after step 1) or the
	 * old key's intent (after step 2); with the key kept, the new payload
	 * the row never got (after step 1). */
	assert_int_equal(r.stale, at == IDX_STEP_INDEX_WRITTEN || !same_key ? 1 : 0);
	/* Repairs (as readers make them) and compactions never expose an
	 * older version: an index-only read that trusts verified entries
	 * still answers exactly. */
	assert_int_equal(kv_table_flush(t.index), KV_OK);
	idxt_repair_all(&t);
	util_buf trusted = UTIL_BUF_INIT;
	idxt_trusting_ids(&t, &trusted);
	assert_string_equal(trusted.data, "0,1,2,3,4,5,6,7,8,9");
	assert_int_equal(kv_table_flush(t.index), KV_OK);
	assert_int_equal(kv_table_compact(t.index, false), KV_OK);
	util_buf_reset(&trusted);
	idxt_trusting_ids(&t, &trusted);
	assert_string_equal(trusted.data, "0,1,2,3,4,5,6,7,8,9");
	assert_int_equal(kv_table_compact(t.index, true), KV_OK);
	util_buf_reset(&trusted);
	idxt_trusting_ids(&t, &trusted);
	assert_string_equal(trusted.data, "0,1,2,3,4,5,6,7,8,9");
	expect_same(&t);
	util_buf_free(&trusted);
	/* After the repairs the checker finds nothing: the leftovers are
	 * masked or rewritten with the row's payload, verified. */
	assert_int_equal(idx_check(t.data, &t.def, &t.model, 0, &r, NULL, NULL), KV_OK);
	assert_int_equal(r.missing + r.stale + r.mismatched, 0);
	assert_int_equal(r.rows, 10);
	assert_int_equal(r.entries, 10);
	/* Later writes to the same row keep it exact. */
	kv_read_opts ro;
	memset(&ro, 0, sizeof ro);
	util_buf pk = UTIL_BUF_INIT;
	idxt_pk(3, &pk);
	util_arena *a = util_arena_new(4096, 0);
	kv_row row;
	assert_int_equal(kv_get(t.data, pk.data, pk.len, &ro, a, &row), KV_OK);
	bool moved = false;
	for (size_t i = 0; i < row.n; i++)
		if (row.cells[i].qualifier.len == 2 && row.cells[i].qualifier.data[1] == 2)
			moved = row.cells[i].value.len == 1 && row.cells[i].value.data[0] == 'y';
	assert_true(moved == (at != IDX_STEP_INDEX_WRITTEN));
	idxt_row cur = moved ? nw : old, next = {3, 31, false, "z"};
	assert_int_equal(idxt_write(&t, &cur, &next, true, NULL, NULL), KV_OK);
	expect_same(&t);
	util_arena_destroy(a);
	util_buf_free(&pk);
	util_buf_free(&ids);
	idxt_close(&t, true);
	kv_fault_fs_free(f);
	free(dir);
}

static void test_crash_after_index(void **state)
{
	(void)state;
	run_crash(IDX_STEP_INDEX_WRITTEN, false, false);
	run_crash(IDX_STEP_INDEX_WRITTEN, true, false);
	run_crash(IDX_STEP_INDEX_WRITTEN, false, true);
	run_crash(IDX_STEP_INDEX_WRITTEN, true, true);
}

static void test_crash_after_data(void **state)
{
	(void)state;
	run_crash(IDX_STEP_DATA_WRITTEN, false, false);
	run_crash(IDX_STEP_DATA_WRITTEN, true, false);
	run_crash(IDX_STEP_DATA_WRITTEN, false, true);
	run_crash(IDX_STEP_DATA_WRITTEN, true, true);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_entry_format),      cmocka_unit_test(test_atomic_updates),
	    cmocka_unit_test(test_split_updates),     cmocka_unit_test(test_same_ts_reput),
	    cmocka_unit_test(test_unique_require),    cmocka_unit_test(test_judge_repair),
	    cmocka_unit_test(test_crash_after_index), cmocka_unit_test(test_crash_after_data),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
