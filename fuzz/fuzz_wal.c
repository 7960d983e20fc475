/*
 * fuzz_wal.c — libFuzzer target for log replay: the input becomes the last
 * log segment of a small store (two kv tables, one of them with two
 * families) and the store is opened, which replays it (record framing,
 * torn-tail detection, batch decoding, applying cells to memstores). The
 * open may fail with KV_CORRUPTION; if it succeeds every table is scanned
 * both ways, a write is committed and the store closed. Nothing may crash,
 * hang or leak.
 *
 * Input byte 0: bit 0 = fix checksums (each record that fits gets its
 * correct CRC, so mutations reach the batch decoder); the rest is the
 * segment. Seeds (fuzz/corpus/wal) are real segments with byte 0 = 0x01.
 */
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "fuzz_util.h"
#include "kv.h"
#include "util.h"

#define HEADER 8 /* u32 length, u32 masked CRC32C of (length, payload) */

static char tmpl[600], work[600], seg_name[64];
static const char *tables[] = {"t", "u"};

static void copy_file(const char *from, const char *to)
{
	FILE *a = fopen(from, "rb"), *b = fopen(to, "wb");
	if (!a || !b)
		abort();
	char buf[8192];
	size_t n;
	while ((n = fread(buf, 1, sizeof buf, a)) > 0)
		fwrite(buf, 1, n, b);
	fclose(a);
	fclose(b);
}

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	(void)argc, (void)argv;
	util_log_set_level(UTIL_LOG_FATAL);
	char *dir = fuzz_tmpdir("wal");
	snprintf(tmpl, sizeof tmpl, "%s/template", dir);
	snprintf(work, sizeof work, "%s/work", dir);
	kv_store_opts o;
	kv_store_opts_default(&o);
	o.create_if_missing = true;
	kv_store *s;
	if (kv_store_open(tmpl, &o, &s) != KV_OK)
		abort();
	kv_family_opts f[2];
	kv_family_opts_default(&f[0], "d");
	kv_family_opts_default(&f[1], "e");
	if (kv_table_create(s, "t", f, 1) != KV_OK || kv_table_create(s, "u", f, 2) != KV_OK)
		abort();
	kv_store_close(s);
	/* the template keeps everything but its log: the input is the log */
	DIR *d = opendir(tmpl);
	struct dirent *e;
	while ((e = readdir(d))) {
		size_t l = strlen(e->d_name);
		if (l > 4 && !strcmp(e->d_name + l - 4, ".wal")) {
			if (strcmp(e->d_name, seg_name) > 0)
				snprintf(seg_name, sizeof seg_name, "%s", e->d_name);
		}
	}
	closedir(d);
	if (!seg_name[0])
		abort();
	return 0;
}

static void scan_all(kv_store *s)
{
	for (size_t i = 0; i < sizeof tables / sizeof *tables; i++) {
		kv_table *t;
		if (kv_table_open(s, tables[i], &t) != KV_OK)
			continue;
		for (int rev = 0; rev < 2; rev++) {
			kv_scan_opts so;
			memset(&so, 0, sizeof so);
			so.reverse = rev;
			so.read.raw = rev == 0;
			kv_iter *it = kv_scan(t, &so);
			for (int n = 0; kv_iter_valid(it) && n < 100000; n++) {
				const kv_cell *c = kv_iter_cell(it);
				fuzz_consume(c->row.data, c->row.len);
				fuzz_consume(c->value.data, c->value.len);
				kv_iter_next(it);
			}
			kv_iter_close(it);
		}
		kv_batch *b = kv_batch_new();
		kv_batch_put(b, t, "r", 1, "d", "q", 1, KV_TS_LATEST, "v", 1);
		kv_commit(s, b, NULL, NULL);
		kv_batch_free(b);
		kv_table_close(t);
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (size < 1 || size > 1 << 20)
		return 0;
	uint8_t *seg = malloc(size);
	memcpy(seg, data + 1, size - 1);
	size_t n = size - 1;
	if (data[0] & 1) {
		for (size_t off = 0; off + HEADER <= n;) {
			uint32_t len = util_get_be32(seg + off);
			if (len == 0 || len > n - off - HEADER)
				break;
			uint32_t crc = util_crc32c(util_crc32c(0, seg + off, 4), seg + off + HEADER, len);
			util_put_be32(seg + off + 4, util_crc_mask(crc));
			off += HEADER + len;
		}
	}
	fuzz_rm_rf(work);
	mkdir(work, 0700);
	DIR *d = opendir(tmpl);
	struct dirent *e;
	char from[1200], to[1200];
	while ((e = readdir(d))) {
		size_t l = strlen(e->d_name);
		if (e->d_name[0] == '.' || (l > 4 && !strcmp(e->d_name + l - 4, ".wal")))
			continue;
		snprintf(from, sizeof from, "%s/%s", tmpl, e->d_name);
		snprintf(to, sizeof to, "%s/%s", work, e->d_name);
		copy_file(from, to);
	}
	closedir(d);
	snprintf(to, sizeof to, "%s/%s", work, seg_name);
	fuzz_write_file(to, seg, n);
	free(seg);
	kv_store_opts o;
	kv_store_opts_default(&o);
	o.durability = KV_SYNC_NONE;
	o.block_cache_bytes = 1 << 20;
	kv_store *s;
	if (kv_store_open(work, &o, &s) == KV_OK) {
		scan_all(s);
		kv_store_close(s);
	}
	return 0;
}
