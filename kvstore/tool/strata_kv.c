/*
 * strata_kv.c — the `strata-kv` maintenance tool:
 *   strata-kv dump <file.sst> [--values]   properties and cells of a sorted file
 *   strata-kv wal <segment.wal>            records of a log segment
 *   strata-kv verify <store-dir>           every checksum of every file and segment
 *   strata-kv stats <store-dir>            tables, families, files, sizes
 *   strata-kv tables|scan|intents|stats|verify etcd://...   an etcd prefix
 *                                          (etcd_inspect.c)
 * Stores are opened read-only (no recovery writes, no compaction).
 * Exit status: 0 ok, 1 problems found (corruption), 2 usage or I/O error.
 */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ekv.h"
#include "etcd_inspect.h"
#include "ikey.h"
#include "kv.h"
#include "kv_fs.h"
#include "sst.h"
#include "wal.h"

void kvtool_print_bytes(const uint8_t *p, size_t n, size_t max)
{
	for (size_t i = 0; i < n && i < max; i++) {
		if (isprint(p[i]) && p[i] != '\\')
			putchar(p[i]);
		else
			printf("\\x%02x", p[i]);
	}
	if (n > max)
		printf("...(%zu bytes)", n);
}

const char *kvtool_type_name(int t)
{
	switch (t) {
	case KV_PUT:
		return "Put";
	case KV_DELETE:
		return "Delete";
	case KV_DELETE_COLUMN:
		return "DeleteColumn";
	case KV_DELETE_FAMILY:
		return "DeleteFamily";
	case KV_DELETE_FAMILY_VERSION:
		return "DeleteFamilyVersion";
	}
	return "?";
}

static bool show_values;

static void dump_cell(void *arg, const uint8_t *k, size_t kl, const uint8_t *v, size_t vl)
{
	ikey_parts p;
	ikey_split(k, kl, &p);
	kvtool_print_bytes(p.row, p.rlen, 64);
	putchar('/');
	kvtool_print_bytes(p.fam, p.flen, 32);
	putchar(':');
	kvtool_print_bytes(p.qual, p.qlen, 64);
	printf(" @%llu %s", (unsigned long long)p.ts, kvtool_type_name(p.type));
	if (show_values) {
		printf(" = ");
		kvtool_print_bytes(v, vl, 200);
	} else {
		printf(" (%zu bytes)", vl);
	}
	putchar('\n');
	(*(uint64_t *)arg)++;
}

static int cmd_dump(const char *path)
{
	sst_reader *r;
	kv_status st = sst_open(kv_fs_posix(), path, 0, NULL, &r);
	if (st) {
		fprintf(stderr, "strata-kv: %s: %s\n", kv_status_name(st), kv_errmsg());
		return st == KV_CORRUPTION ? 1 : 2;
	}
	const sst_props *p = sst_get_props(r);
	printf("file %s\n  table id %u, family %s, bloom %u, index levels %u\n", path, p->table_id, p->family,
	       p->bloom, p->index_levels);
	printf("  %llu entries (%llu delete markers) in %llu data blocks, %llu bytes\n",
	       (unsigned long long)p->entries, (unsigned long long)p->deletes,
	       (unsigned long long)p->data_blocks, (unsigned long long)p->file_size);
	printf("  timestamps %llu .. %llu\n", (unsigned long long)p->min_ts, (unsigned long long)p->max_ts);
	uint64_t n = 0;
	st = sst_dump(r, dump_cell, &n);
	sst_unref(r);
	if (st) {
		fprintf(stderr, "strata-kv: %s after %llu cells: %s\n", kv_status_name(st),
			(unsigned long long)n, kv_errmsg());
		return 1;
	}
	return 0;
}

static kv_status wal_rec(void *arg, const uint8_t *p, size_t n)
{
	uint64_t *cnt = arg;
	(*cnt)++;
	if (n < 9) {
		printf("record %llu: %zu bytes (too short)\n", (unsigned long long)*cnt, n);
		return KV_OK;
	}
	uint64_t m = 0;
	util_varint_get(p + 9, p + n, &m);
	printf("record %llu: kind %u, commit ts %llu, %llu mutations, %zu bytes\n", (unsigned long long)*cnt,
	       p[0], (unsigned long long)util_get_be64(p + 1), (unsigned long long)m, n);
	return KV_OK;
}

/* Is everything from off on zeros (space the log zero-filled ahead)? */
static bool zero_tail(const char *path, uint64_t off)
{
	FILE *f = fopen(path, "rb");
	if (!f || fseek(f, (long)off, SEEK_SET) != 0) {
		if (f)
			fclose(f);
		return false;
	}
	int c;
	while ((c = getc(f)) == 0)
		;
	fclose(f);
	return c == EOF;
}

static int cmd_wal(const char *path)
{
	uint64_t cnt = 0, end = 0, size = 0;
	kv_status st = wal_replay(kv_fs_posix(), path, wal_rec, &cnt, &end, &size);
	if (st) {
		fprintf(stderr, "strata-kv: %s: %s\n", kv_status_name(st), kv_errmsg());
		return st == KV_CORRUPTION ? 1 : 2;
	}
	printf("%llu records, valid up to byte %llu of %llu%s\n", (unsigned long long)cnt,
	       (unsigned long long)end, (unsigned long long)size,
	       end == size            ? ""
	       : zero_tail(path, end) ? " (zero-filled tail)"
				      : " (torn tail)");
	return 0;
}

static kv_store *open_ro(const char *dir)
{
	kv_store_opts o;
	kv_store_opts_default(&o);
	o.read_only = true;
	o.create_if_missing = false;
	kv_store *s = NULL;
	kv_status st = kv_store_open(dir, &o, &s);
	if (st) {
		fprintf(stderr, "strata-kv: cannot open %s: %s: %s\n", dir, kv_status_name(st), kv_errmsg());
		return NULL;
	}
	return s;
}

static void report(void *arg, const char *problem)
{
	(*(int *)arg)++;
	printf("PROBLEM: %s\n", problem);
}

static int cmd_verify(const char *dir)
{
	kv_store *s = open_ro(dir);
	if (!s)
		return 2;
	int problems = 0;
	kv_status st = kv_store_verify(s, report, &problems);
	kv_store_close(s);
	printf("%s: %s (%d problem%s)\n", dir, st ? "DAMAGED" : "ok", problems, problems == 1 ? "" : "s");
	return st ? 1 : 0;
}

static int print_table(void *arg, const char *name)
{
	kv_store *s = arg;
	kv_table *t;
	if (kv_table_open(s, name, &t))
		return 0;
	kv_table_stats ts;
	kv_table_get_stats(t, &ts);
	printf("table %s: %llu files, %llu bytes, ~%llu cells in files, memstore %llu bytes\n", name,
	       (unsigned long long)ts.file_count, (unsigned long long)ts.file_bytes,
	       (unsigned long long)ts.entries, (unsigned long long)ts.memstore_bytes);
	kv_family_opts fo[64];
	int n = 0;
	kv_table_families(s, name, fo, 64, &n);
	for (int i = 0; i < n && i < 64; i++)
		printf("  family %s: max_versions %d, min_versions %d, ttl %llds, keep_deleted %d, zstd %d, "
		       "bloom %d, block %u, retention %llds\n",
		       fo[i].name, fo[i].max_versions, fo[i].min_versions, (long long)fo[i].ttl_seconds,
		       fo[i].keep_deleted_cells, fo[i].compression_level, fo[i].bloom, fo[i].block_size,
		       (long long)fo[i].retention_seconds);
	kv_table_close(t);
	return 0;
}

static int cmd_stats(const char *dir)
{
	kv_store *s = open_ro(dir);
	if (!s)
		return 2;
	kv_store_stats st;
	kv_store_get_stats(s, &st);
	printf("store %s: read point %llu, memstores %llu bytes (replayed log)\n", dir,
	       (unsigned long long)st.read_point, (unsigned long long)st.memstore_bytes);
	kv_table_list(s, print_table, s);
	kv_store_close(s);
	return 0;
}

static int usage(void)
{
	fprintf(stderr,
		"usage: strata-kv dump <file.sst> [--values]\n"
		"       strata-kv wal <segment.wal>\n"
		"       strata-kv verify <store-dir>\n"
		"       strata-kv stats <store-dir>\n"
		"       strata-kv tables|intents|stats|verify etcd://HOST:PORT[,...][/PREFIX]\n"
		"       strata-kv scan etcd://... KV_TABLE [--from ROW] [--to ROW] [--limit N] [--values]\n");
	return 2;
}

int main(int argc, char **argv)
{
	if (argc < 3)
		return usage();
	if (ekv_is_uri(argv[2]))
		return etcd_inspect_main(argc, argv);
	if (!strcmp(argv[1], "dump")) {
		show_values = argc > 3 && !strcmp(argv[3], "--values");
		return cmd_dump(argv[2]);
	}
	if (!strcmp(argv[1], "wal"))
		return cmd_wal(argv[2]);
	if (!strcmp(argv[1], "verify"))
		return cmd_verify(argv[2]);
	if (!strcmp(argv[1], "stats"))
		return cmd_stats(argv[2]);
	return usage();
}
