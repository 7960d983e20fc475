/*
 * fuzz_keys.c — libFuzzer target for key decoding (types/keys.c and each
 * type's key decoder): arbitrary bytes as a composite key of 1-3 columns of
 * keyable types (every keyable built-in type, arrays included), ASC/DESC,
 * NULLS FIRST/LAST. Decoding may refuse (0) but never crash; ty_key_skip
 * agrees with ty_key_decode on lengths; a decoded value prints (text
 * output), re-encodes to a key that decodes to an equal value, and
 * re-encoding that value gives the same bytes again (the encoding is
 * canonical after one round).
 *
 * Input: byte 0 = number of columns (1-3); per column two bytes: type
 * selector and flags (bit 0 DESC, bit 1 NULLS FIRST); the rest is the key.
 * FUZZ_KEYS_SEEDS=<dir> writes seeds (sample values of every keyable type,
 * one and two columns) into dir and exits: fuzz/make_seeds.sh uses it.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz_util.h"
#include "types.h"
#include "util.h"

static ty_oid keyable[256];
static int nkeyable;
static util_arena *arena;
/* Reused across inputs: an error thrown mid-way must not leak them. */
static util_buf out, e1, e2;

static const char *samples[] = {"0",
				"1",
				"-1",
				"42",
				"3.5",
				"-2.25",
				"1e10",
				"NaN",
				"true",
				"abc",
				"",
				"a\\000b",
				"2024-02-29",
				"12:34:56.789",
				"2024-02-29 12:34:56+02",
				"1 day 02:03:04",
				"infinity",
				"-infinity",
				"{1,2,3}",
				"{a,NULL,\"b c\"}",
				"{\"k\": [1, 2.5, null, true, \"s\"]}",
				"a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11",
				"\\x00ff10",
				"99999999999999999999.000001"};

typedef struct seed_arg {
	ty_keycol col;
	const char *text;
	util_buf *out;
} seed_arg;

static void seed_encode(void *a)
{
	seed_arg *x = a;
	ty_key_encode(&x->col, ty_input(x->col.type, x->text, strlen(x->text), -1), x->out);
}

/* Writes seed inputs for every keyable type and each sample that parses as
 * it; the sample's index picks the ASC/DESC and NULLS FIRST/LAST variant. */
static void write_seeds(const char *dir)
{
	int nseeds = 0;
	util_arena *prev = ty_set_arena(arena);
	for (int t = 0; t < nkeyable; t++) {
		for (size_t i = 0; i < sizeof samples / sizeof *samples; i++) {
			uint8_t flags = (uint8_t)(i % 4);
			util_buf f = UTIL_BUF_INIT;
			uint8_t hdr[3] = {0, (uint8_t)t, flags};
			util_buf_append(&f, hdr, 3);
			seed_arg a = {{keyable[t], flags & 1, flags & 2}, samples[i], &f};
			util_err err;
			util_err_clear(&err);
			if (ty_protect(seed_encode, &a, &err) == 0) {
				char path[1024];
				snprintf(path, sizeof path, "%s/%s-%zu", dir, ty_type_get(keyable[t])->name,
					 i);
				fuzz_write_file(path, f.data, f.len);
				nseeds++;
			}
			util_buf_free(&f);
			util_arena_reset(arena);
		}
	}
	ty_set_arena(prev);
	fprintf(stderr, "fuzz_keys: wrote %d seeds to %s\n", nseeds, dir);
	exit(0);
}

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	(void)argc, (void)argv;
	ty_init();
	for (ty_oid o = 1; o < 10000 && nkeyable < 256; o++) {
		const ty_type *t = ty_type_get(o);
		if (t && t->oid == o && t->keyenc && t->keydec)
			keyable[nkeyable++] = o;
	}
	if (nkeyable == 0)
		abort();
	arena = util_arena_new(64 << 10, 256u << 20);
	if (getenv("FUZZ_KEYS_SEEDS"))
		write_seeds(getenv("FUZZ_KEYS_SEEDS"));
	return 0;
}

static void check(const uint8_t *data, size_t size)
{
	int ncols = 1 + data[0] % 3;
	if (size < 1 + 2 * (size_t)ncols)
		return;
	ty_keycol cols[3];
	for (int i = 0; i < ncols; i++) {
		cols[i].type = keyable[data[1 + 2 * i] % nkeyable];
		cols[i].desc = data[2 + 2 * i] & 1;
		cols[i].nulls_first = data[2 + 2 * i] & 2;
	}
	const uint8_t *p = data + 1 + 2 * ncols, *end = data + size;
	for (int i = 0; i < ncols && p < end; i++) {
		ty_datum v;
		size_t n = ty_key_decode(&cols[i], p, end, &v);
		size_t sk = ty_key_skip(&cols[i], p, end);
		if (sk != n) {
			fprintf(stderr, "type %u: decode took %zu bytes, skip %zu\n", cols[i].type, n, sk);
			abort();
		}
		if (n == 0)
			return;
		if (n > (size_t)(end - p))
			abort();
		if (!v.null) {
			const ty_type *t = ty_type_get(cols[i].type);
			util_buf_reset(&out);
			util_buf_reset(&e1);
			util_buf_reset(&e2);
			ty_output(cols[i].type, v, &out);
			fuzz_consume(out.data, out.len);
			ty_key_encode(&cols[i], v, &e1);
			ty_datum v2;
			size_t n2 = ty_key_decode(&cols[i], (const uint8_t *)e1.data,
						  (const uint8_t *)e1.data + e1.len, &v2);
			if (n2 != e1.len) {
				fprintf(stderr, "type %s: a fresh encoding of %zu bytes decodes as %zu\n",
					t->name, e1.len, n2);
				abort();
			}
			/* Arbitrary bytes may decode to a value no encoder writes (a
			 * jsonb object with keys out of order ...), so the value may
			 * change once; after that the round trip is a fixed point. */
			ty_key_encode(&cols[i], v2, &e2);
			if (e1.len != e2.len || memcmp(e1.data, e2.data, e1.len) != 0) {
				util_buf o2 = UTIL_BUF_INIT;
				ty_output(cols[i].type, v2, &o2);
				fprintf(stderr, "type %s: re-encoding is not stable: %s -> %s\n", t->name,
					out.data, o2.data);
				abort();
			}
			ty_datum v3;
			ty_key_decode(&cols[i], (const uint8_t *)e2.data, (const uint8_t *)e2.data + e2.len,
				      &v3);
			if (ty_compare(cols[i].type, v2, v3) != 0) {
				fprintf(stderr, "type %s: value changed in a second round trip\n", t->name);
				abort();
			}
		}
		p += n;
	}
}

typedef struct arg {
	const uint8_t *data;
	size_t size;
} arg;

static void run(void *a)
{
	arg *x = a;
	check(x->data, x->size);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (size < 1 || size > 1 << 16)
		return 0;
	util_arena *prev = ty_set_arena(arena);
	arg a = {data, size};
	util_err err;
	util_err_clear(&err);
	/* errors (values out of range, bad json inside a key ...) are fine */
	ty_protect(run, &a, &err);
	ty_set_arena(prev);
	util_arena_reset(arena);
	return 0;
}
