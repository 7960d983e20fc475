/*
 * kv_bench.c — a db_bench-style benchmark of the KV core, with the same
 * workloads and key/value shapes as RocksDB's db_bench so the two can run
 * side by side (bench/kv/run.sh):
 *   fillseq fillrandom overwrite readrandom readseq readreverse seekrandom
 *   filterscan (full scan with a filter matching nothing)
 *   scan20m    (the filtered scan: --rows rows, two families, a few
 *               dozen bytes a row, all cached, filter matching nothing)
 * Keys are db_bench's: the number in 8 big-endian bytes, padded with '0' to
 * --key_size; values are half random, half repeated (compressible 2:1).
 */
#include <pthread.h>
#include <time.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kv.h"

static struct {
	const char *db;
	long num, reads, rows;
	int key_size, value_size, threads, batch, seek_nexts, scan_threads;
	long cache_size, write_buffer_size;
	int compression_level, block_size, bloom;
	bool sync, use_existing;
	const char *benchmarks;
} F = {"/tmp/kv_bench",
       1000000,
       -1,
       20000000,
       16,
       100,
       1,
       1,
       0,
       1,
       268435456,
       67108864,
       3,
       16384,
       1,
       false,
       false,
       "fillseq,fillrandom,overwrite,readrandom,readseq,readreverse,seekrandom,filterscan"};

static kv_store *S;
static kv_table *T;
static char *valbuf;
#define VALBUF (1 << 20)

static uint64_t rnd_next(uint64_t *s)
{
	*s ^= *s << 13;
	*s ^= *s >> 7;
	*s ^= *s << 17;
	return *s;
}

static void make_key(char *k, uint64_t n)
{
	for (int i = 0; i < 8; i++)
		k[i] = (char)(n >> (56 - 8 * i));
	memset(k + 8, '0', (size_t)F.key_size - 8);
}

static void gen_values(void)
{
	valbuf = malloc(VALBUF);
	uint64_t s = 42;
	for (size_t i = 0; i < VALBUF; i += 100) {
		for (size_t j = 0; j < 50 && i + j < VALBUF; j++)
			valbuf[i + j] = (char)(' ' + rnd_next(&s) % 95);
		for (size_t j = 50; j < 100 && i + j < VALBUF; j++)
			valbuf[i + j] = valbuf[i + j - 50];
	}
}

static void die(const char *what, kv_status st)
{
	fprintf(stderr, "kv_bench: %s: %s %s\n", what, kv_status_name(st), kv_errmsg());
	exit(1);
}

static void open_table(const char *name, bool fresh, int nfam, const char *const *fams)
{
	if (T)
		kv_table_close(T);
	T = NULL;
	if (fresh)
		kv_table_drop(S, name);
	kv_family_opts fo[4];
	for (int i = 0; i < nfam; i++) {
		kv_family_opts_default(&fo[i], fams[i]);
		fo[i].compression_level = F.compression_level;
		fo[i].block_size = (uint32_t)F.block_size;
		fo[i].bloom = F.bloom ? KV_BLOOM_ROW : KV_BLOOM_NONE;
	}
	kv_status st = kv_table_create(S, name, fo, nfam);
	if (st && st != KV_EXISTS)
		die("create table", st);
	if ((st = kv_table_open(S, name, &T)))
		die("open table", st);
}

typedef struct job {
	const char *name;
	int tid;
	long ops, found, bytes;
	double secs, cpu;
} job;

static double thread_cpu(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static void (*bench_fn)(job *);

static void *thread_main(void *arg)
{
	job *j = arg;
	int64_t t0 = util_mono_us();
	double c0 = thread_cpu();
	bench_fn(j);
	j->cpu = thread_cpu() - c0;
	j->secs = (double)(util_mono_us() - t0) / 1e6;
	return NULL;
}

static void run(const char *name, void (*fn)(job *), int threads)
{
	bench_fn = fn;
	job *jobs = calloc((size_t)threads, sizeof(job));
	pthread_t *th = calloc((size_t)threads, sizeof(pthread_t));
	int64_t t0 = util_mono_us();
	for (int i = 0; i < threads; i++) {
		jobs[i].name = name;
		jobs[i].tid = i;
		pthread_create(&th[i], NULL, thread_main, &jobs[i]);
	}
	long ops = 0, found = 0, bytes = 0;
	double cpu = 0;
	for (int i = 0; i < threads; i++) {
		pthread_join(th[i], NULL);
		ops += jobs[i].ops;
		found += jobs[i].found;
		bytes += jobs[i].bytes;
		cpu += jobs[i].cpu;
	}
	double secs = (double)(util_mono_us() - t0) / 1e6;
	printf("%-12s : %11.3f micros/op %ld ops/sec %.3f seconds %ld operations; %.1f MB/s", name,
	       secs * 1e6 / (double)(ops ? ops : 1) * threads, (long)((double)ops / secs), secs, ops,
	       (double)bytes / secs / 1048576.0);
	if (found)
		printf(" (%ld found)", found);
	printf(" [cpu %.3f us/op]\n", cpu * 1e6 / (double)(ops ? ops : 1));
	fflush(stdout);
	free(jobs);
	free(th);
}

/* ---------------------------------------------------------------- writes */

static void do_write(job *j, bool seq)
{
	uint64_t s = 1000 + (uint64_t)j->tid * 7919 + (uint64_t)util_mono_us();
	kv_batch *b = kv_batch_new();
	char k[64];
	long per = F.num / F.threads;
	kv_write_opts wo = {0};
	wo.no_sync = !F.sync;
	for (long i = 0; i < per; i += F.batch) {
		kv_batch_clear(b);
		for (int x = 0; x < F.batch && i + x < per; x++) {
			uint64_t n = seq ? (uint64_t)(j->tid * per + i + x) : rnd_next(&s) % (uint64_t)F.num;
			make_key(k, n);
			size_t vo = (size_t)((i + x) * 97 % (VALBUF - F.value_size));
			kv_batch_put(b, T, k, (size_t)F.key_size, "d", "v", 1, KV_TS_LATEST, valbuf + vo,
				     (size_t)F.value_size);
		}
		kv_status st = kv_commit(S, b, &wo, NULL);
		if (st)
			die("commit", st);
		j->ops += F.batch;
		j->bytes += (long)F.batch * (F.key_size + F.value_size);
	}
	kv_batch_free(b);
}

static void b_fillseq(job *j)
{
	do_write(j, true);
}

static void b_fillrandom(job *j)
{
	do_write(j, false);
}

/* ---------------------------------------------------------------- reads */

static void b_readrandom(job *j)
{
	uint64_t s = 2000 + (uint64_t)j->tid * 104729;
	long n = (F.reads < 0 ? F.num : F.reads) / F.threads;
	util_arena *a = util_arena_new(4096, 0);
	char k[64];
	for (long i = 0; i < n; i++) {
		make_key(k, rnd_next(&s) % (uint64_t)F.num);
		kv_row r;
		kv_status st = kv_get(T, k, (size_t)F.key_size, NULL, a, &r);
		if (st)
			die("get", st);
		if (r.n) {
			j->found++;
			j->bytes += (long)(F.key_size + r.cells[0].value.len);
		}
		util_arena_reset(a);
		j->ops++;
	}
	util_arena_destroy(a);
}

static void scan_all(job *j, bool reverse)
{
	kv_scan_opts o = {0};
	o.reverse = reverse;
	kv_iter *it = kv_scan(T, &o);
	for (; kv_iter_valid(it); kv_iter_next(it)) {
		const kv_cell *c = kv_iter_cell(it);
		j->bytes += (long)(c->row.len + c->value.len);
		j->ops++;
	}
	if (kv_iter_status(it))
		die("scan", kv_iter_status(it));
	kv_iter_close(it);
}

static void b_readseq(job *j)
{
	scan_all(j, false);
}

static void b_readreverse(job *j)
{
	scan_all(j, true);
}

static void b_seekrandom(job *j)
{
	uint64_t s = 3000 + (uint64_t)j->tid * 15485863;
	long n = (F.reads < 0 ? F.num : F.reads) / F.threads;
	kv_scan_opts o = {0};
	kv_iter *it = kv_scan(T, &o);
	char k[64];
	for (long i = 0; i < n; i++) {
		make_key(k, rnd_next(&s) % (uint64_t)F.num);
		kv_iter_seek_row(it, k, (size_t)F.key_size);
		if (kv_iter_valid(it)) {
			const kv_cell *c = kv_iter_cell(it);
			if (c->row.len == (size_t)F.key_size && !memcmp(c->row.data, k, (size_t)F.key_size))
				j->found++;
			for (int x = 0; x < F.seek_nexts && kv_iter_valid(it); x++)
				kv_iter_next(it);
		}
		j->ops++;
	}
	if (kv_iter_status(it))
		die("seek", kv_iter_status(it));
	kv_iter_close(it);
}

static void b_filterscan(job *j)
{
	kv_filter *f = kv_filter_single_column_value("d", "v", 1, KV_CMP_EQ, "nomatch", 7, true);
	kv_scan_opts o = {0};
	o.read.filter = f;
	kv_iter *it = kv_scan(T, &o);
	long n = 0;
	for (; kv_iter_valid(it); kv_iter_next(it))
		n++;
	if (kv_iter_status(it))
		die("filterscan", kv_iter_status(it));
	kv_iter_close(it);
	kv_filter_free(f);
	kv_table_stats ts;
	kv_table_get_stats(T, &ts);
	j->ops = (long)ts.entries; /* rows examined */
	j->found = n;
}

/* ---------------------------------------------------------------- the 20M-row filtered scan */

static const char *const FAMS2[] = {"a", "b"};

static void scan20m_load(void)
{
	open_table("scan2f", false, 2, FAMS2);
	kv_table_stats ts;
	kv_table_get_stats(T, &ts);
	if ((long)ts.entries >= 2 * F.rows) {
		printf("scan20m      : reusing %ld rows\n", F.rows);
		return;
	}
	open_table("scan2f", true, 2, FAMS2);
	kv_batch *b = kv_batch_new();
	kv_write_opts wo = {.no_sync = true};
	int64_t t0 = util_mono_us();
	for (long i = 0; i < F.rows; i += 2000) {
		kv_batch_clear(b);
		for (long x = i; x < i + 2000 && x < F.rows; x++) {
			char k[32], va[32], vb[32];
			snprintf(k, sizeof(k), "r%011ld", x);
			snprintf(va, sizeof(va), "a%07ld", x % 9999999);
			snprintf(vb, sizeof(vb), "b%07ld", x % 7777777);
			kv_batch_put(b, T, k, 12, "a", "x", 1, KV_TS_LATEST, va, 8);
			kv_batch_put(b, T, k, 12, "b", "y", 1, KV_TS_LATEST, vb, 8);
		}
		kv_status st = kv_commit(S, b, &wo, NULL);
		if (st)
			die("load", st);
	}
	kv_batch_free(b);
	kv_table_compact(T, true);
	printf("scan20m      : loaded %ld rows in %.1f s\n", F.rows, (double)(util_mono_us() - t0) / 1e6);
}

typedef struct part {
	kv_slice lo, hi;
	long rows_out;
	kv_status st;
	double cpu;
} part;

static void *scan_part(void *arg)
{
	part *p = arg;
	double c0 = thread_cpu();
	kv_filter *f = kv_filter_single_column_value("b", "y", 1, KV_CMP_EQ, "nomatch", 7, true);
	kv_scan_opts o = {0};
	o.read.filter = f;
	o.start = p->lo.data;
	o.start_len = p->lo.len;
	o.stop = p->hi.data;
	o.stop_len = p->hi.len;
	kv_iter *it = kv_scan(T, &o);
	for (; kv_iter_valid(it); kv_iter_next(it))
		p->rows_out++;
	p->st = kv_iter_status(it);
	kv_iter_close(it);
	kv_filter_free(f);
	p->cpu = thread_cpu() - c0;
	return NULL;
}

static double last_cpu;

static double scan20m_once(int nthreads)
{
	util_arena *a = util_arena_new(4096, 0);
	kv_slice pts[64];
	int n = 0;
	if (nthreads > 1)
		kv_split_points(T, NULL, 0, NULL, 0, nthreads, a, pts, &n);
	part parts[65];
	memset(parts, 0, sizeof(parts));
	for (int i = 0; i <= n; i++) {
		if (i > 0)
			parts[i].lo = pts[i - 1];
		if (i < n)
			parts[i].hi = pts[i];
	}
	pthread_t th[65];
	int64_t t0 = util_mono_us();
	for (int i = 0; i <= n; i++)
		pthread_create(&th[i], NULL, scan_part, &parts[i]);
	long out = 0;
	last_cpu = 0;
	for (int i = 0; i <= n; i++) {
		pthread_join(th[i], NULL);
		if (parts[i].st)
			die("scan20m", parts[i].st);
		out += parts[i].rows_out;
		last_cpu += parts[i].cpu;
	}
	double secs = (double)(util_mono_us() - t0) / 1e6;
	util_arena_destroy(a);
	if (out != 0)
		fprintf(stderr, "scan20m: filter matched %ld rows?\n", out);
	return secs;
}

static void b_scan20m(void)
{
	scan20m_load();
	scan20m_once(F.scan_threads); /* warm the block cache */
	double best = 1e9, best_cpu = 0;
	for (int i = 0; i < 3; i++) {
		double s = scan20m_once(F.scan_threads);
		if (s < best) {
			best = s;
			best_cpu = last_cpu;
		}
	}
	printf("scan20m      : %.3f seconds for %ld rows (%.1f M rows/s, %d scan thread%s, best of 3; "
	       "scan threads' cpu %.3f s)\n",
	       best, F.rows, (double)F.rows / best / 1e6, F.scan_threads, F.scan_threads == 1 ? "" : "s",
	       best_cpu);
}

/* ---------------------------------------------------------------- main */

static bool flag(const char *a, const char *name, const char **val)
{
	size_t n = strlen(name);
	if (strncmp(a, name, n) || a[n] != '=')
		return false;
	*val = a + n + 1;
	return true;
}

int main(int argc, char **argv)
{
	for (int i = 1; i < argc; i++) {
		const char *v;
		if (flag(argv[i], "--db", &v))
			F.db = v;
		else if (flag(argv[i], "--num", &v))
			F.num = atol(v);
		else if (flag(argv[i], "--reads", &v))
			F.reads = atol(v);
		else if (flag(argv[i], "--rows", &v))
			F.rows = atol(v);
		else if (flag(argv[i], "--key_size", &v))
			F.key_size = atoi(v);
		else if (flag(argv[i], "--value_size", &v))
			F.value_size = atoi(v);
		else if (flag(argv[i], "--threads", &v))
			F.threads = atoi(v);
		else if (flag(argv[i], "--scan_threads", &v))
			F.scan_threads = atoi(v);
		else if (flag(argv[i], "--batch", &v))
			F.batch = atoi(v);
		else if (flag(argv[i], "--seek_nexts", &v))
			F.seek_nexts = atoi(v);
		else if (flag(argv[i], "--cache_size", &v))
			F.cache_size = atol(v);
		else if (flag(argv[i], "--write_buffer_size", &v))
			F.write_buffer_size = atol(v);
		else if (flag(argv[i], "--compression_level", &v))
			F.compression_level = atoi(v);
		else if (flag(argv[i], "--block_size", &v))
			F.block_size = atoi(v);
		else if (flag(argv[i], "--bloom", &v))
			F.bloom = atoi(v);
		else if (flag(argv[i], "--sync", &v))
			F.sync = atoi(v) != 0;
		else if (flag(argv[i], "--use_existing_db", &v))
			F.use_existing = atoi(v) != 0;
		else if (flag(argv[i], "--benchmarks", &v))
			F.benchmarks = v;
		else {
			fprintf(stderr, "kv_bench: unknown flag %s\n", argv[i]);
			return 2;
		}
	}
	if (F.key_size < 8 || F.key_size > 64 || F.value_size < 1 || F.value_size > 4096 || F.threads < 1 ||
	    F.batch < 1) {
		fprintf(stderr, "kv_bench: bad sizes\n");
		return 2;
	}
	gen_values();
	kv_store_opts o;
	kv_store_opts_default(&o);
	o.durability = F.sync ? KV_SYNC_COMMIT : KV_SYNC_NONE;
	o.block_cache_bytes = (size_t)F.cache_size;
	o.memstore_flush_bytes = (size_t)F.write_buffer_size;
	kv_status st = kv_store_open(F.db, &o, &S);
	if (st)
		die("open", st);
	printf("kv_bench: %ld entries, %d-byte keys, %d-byte values, zstd %d, %d-byte blocks, bloom %d, "
	       "cache %ld, "
	       "threads %d, batch %d, sync %d\n",
	       F.num, F.key_size, F.value_size, F.compression_level, F.block_size, F.bloom, F.cache_size,
	       F.threads, F.batch, F.sync);
	static const char *const FAM[] = {"d"};
	char *list = strdup(F.benchmarks);
	for (char *name = strtok(list, ","); name; name = strtok(NULL, ",")) {
		if (!strcmp(name, "fillseq")) {
			open_table("bench", !F.use_existing, 1, FAM);
			run(name, b_fillseq, F.threads);
		} else if (!strcmp(name, "fillrandom")) {
			open_table("bench", !F.use_existing, 1, FAM);
			run(name, b_fillrandom, F.threads);
		} else if (!strcmp(name, "overwrite")) {
			open_table("bench", false, 1, FAM);
			run(name, b_fillrandom, F.threads);
		} else if (!strcmp(name, "readrandom")) {
			open_table("bench", false, 1, FAM);
			run(name, b_readrandom, F.threads);
		} else if (!strcmp(name, "readseq")) {
			open_table("bench", false, 1, FAM);
			run(name, b_readseq, 1);
		} else if (!strcmp(name, "readreverse")) {
			open_table("bench", false, 1, FAM);
			run(name, b_readreverse, 1);
		} else if (!strcmp(name, "seekrandom")) {
			open_table("bench", false, 1, FAM);
			run(name, b_seekrandom, F.threads);
		} else if (!strcmp(name, "filterscan")) {
			open_table("bench", false, 1, FAM);
			run(name, b_filterscan, 1);
		} else if (!strcmp(name, "compact")) {
			open_table("bench", false, 1, FAM);
			int64_t t0 = util_mono_us();
			kv_table_compact(T, true);
			printf("compact      : %.3f seconds\n", (double)(util_mono_us() - t0) / 1e6);
		} else if (!strcmp(name, "flush")) {
			open_table("bench", false, 1, FAM);
			kv_table_flush(T);
		} else if (!strcmp(name, "scan20m")) {
			b_scan20m();
		} else if (!strcmp(name, "stats")) {
			kv_store_stats ss;
			kv_store_get_stats(S, &ss);
			kv_table_stats ts = {0};
			if (T)
				kv_table_get_stats(T, &ts);
			printf("stats        : %llu files, %llu bytes in files, cache hits %llu misses %llu, "
			       "stalls %llu\n",
			       (unsigned long long)ts.file_count, (unsigned long long)ts.file_bytes,
			       (unsigned long long)ss.cache_hits, (unsigned long long)ss.cache_misses,
			       (unsigned long long)ss.stalls);
		} else {
			fprintf(stderr, "kv_bench: unknown benchmark %s\n", name);
		}
	}
	free(list);
	if (T)
		kv_table_close(T);
	kv_store_close(S);
	free(valbuf);
	return 0;
}
