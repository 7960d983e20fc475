/*
 * sql_fault_test.c — disk faults seen through SQL (issue 12). The real
 * engine and wire server run in this process on kvstore's fault-injecting
 * file system (kvstore/kv_fault.h); clients talk to them over TCP with libpq,
 * as any client would, while the test makes the "disk" fail:
 *
 *   enospc_log     ENOSPC on log writes: every write fails with 53100, reads
 *                  go on, writes resume when space returns, nothing is lost
 *   enospc_flush   ENOSPC while flushing memstores: writes go on (the data
 *                  stays in memstore and log), CHECKPOINT says 53100, the
 *                  flush succeeds later
 *   eio_read       EIO reading sorted files: that query fails with 58030, the
 *                  server and other sessions live, the next read works; EIO
 *                  reading the log at start: the engine refuses to open
 *   fsync_fail     a failed log fsync: that COMMIT fails with 58030 and its
 *                  row is not visible, every later write is refused (never
 *                  acknowledged), reads go on; reopening recovers from the
 *                  log and writes work again; also with a power loss after it
 *   power_loss     the machine "crashes" at a random file operation (unsynced
 *                  data lost, torn tails with garbage): every acknowledged
 *                  transaction survives whole, the one in flight is whole or
 *                  absent; with sync_commit off, what survives is a prefix
 *   bitflip_sst    a flipped bit in a sorted file: XX001 for queries
 *                  reading it, never a wrong row; the server lives
 *   bitflip_wal    a flipped bit inside the log (not its tail): the engine
 *                  refuses to open with XX001 rather than lose commits
 *
 * usage: sql_fault_test [--rounds N] [--seed N] [case...]
 * Prints "ok/FAIL case: ..." lines and "N passed, N failed" at the end.
 * Data directories go under $KVT_DIR, /dev/shm or /tmp.
 */
#include <dirent.h>
#include <errno.h>
#include <libpq-fe.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "kv_fault.h"
#include "kv_fs.h"
#include "pgw.h"
#include "sql.h"
#include "util.h"

/* ---------------------------------------------------------------- checks */

static int case_failures;

static void fail(const char *fmt, ...) UTIL_PRINTF(1, 2);
static void fail(const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	printf("    ");
	vprintf(fmt, ap);
	printf("\n");
	va_end(ap);
	fflush(stdout);
	case_failures++;
}

#define CHECK(cond, ...)                                                                                     \
	do {                                                                                                 \
		if (!(cond))                                                                                 \
			fail(__VA_ARGS__);                                                                   \
	} while (0)

/* ---------------------------------------------------------------- the server in this process */

typedef struct fx {
	char dir[512];
	kv_fault_fs *ff;
	sql_engine_opts eo;
	sql_engine *eng;
	pgw_server *srv;
	pthread_t th;
	char conninfo[256];
} fx;

static void *serve(void *arg)
{
	pgw_server_run(arg);
	return NULL;
}

static void fx_init(fx *x, const char *name)
{
	memset(x, 0, sizeof *x);
	const char *base = getenv("KVT_DIR");
	struct stat st;
	if (!base)
		base = stat("/dev/shm", &st) == 0 ? "/dev/shm" : "/tmp";
	snprintf(x->dir, sizeof x->dir, "%s/strata-fault-%s-%d-XXXXXX", base, name, (int)getpid());
	if (!mkdtemp(x->dir)) {
		perror("mkdtemp");
		exit(2);
	}
	x->ff = kv_fault_fs_new(kv_fs_posix());
	sql_engine_opts_default(&x->eo);
	x->eo.data_dir = x->dir;
	x->eo.fs = kv_fault_fs_get(x->ff);
	x->eo.block_cache_bytes = 64 << 10; /* small: reads go to the "disk" */
	x->eo.memstore_flush_bytes = 256 << 10;
	x->eo.wal_segment_bytes = 128 << 10;
}

/* Opens the engine and starts serving; 0, or -1 with err filled. */
static int fx_open(fx *x, util_err *err)
{
	if (sql_engine_open(&x->eo, &x->eng, err) != 0) {
		x->eng = NULL;
		return -1;
	}
	pgw_opts wo;
	pgw_opts_default(&wo);
	wo.listen_addr = "127.0.0.1";
	wo.port = 0;
	if (pgw_server_start(&wo, x->eng, &x->srv, err) != 0) {
		sql_engine_close(x->eng);
		x->eng = NULL;
		return -1;
	}
	snprintf(x->conninfo, sizeof x->conninfo, "host=127.0.0.1 port=%d user=postgres dbname=postgres",
		 pgw_server_port(x->srv));
	pthread_create(&x->th, NULL, serve, x->srv);
	return 0;
}

static void fx_open_or_die(fx *x)
{
	util_err err;
	util_err_clear(&err);
	if (fx_open(x, &err) != 0) {
		fail("engine did not open: %s %s", util_errcode_sqlstate(err.code), err.message);
		printf("%d passed, %d failed\n", 0, 1);
		exit(1);
	}
}

static void fx_close(fx *x)
{
	if (x->srv) {
		pgw_server_shutdown(x->srv);
		pthread_join(x->th, NULL);
		pgw_server_free(x->srv);
		x->srv = NULL;
	}
	if (x->eng) {
		sql_engine_close(x->eng);
		x->eng = NULL;
	}
}

static void rm_rf(const char *path)
{
	DIR *d = opendir(path);
	if (d) {
		struct dirent *e;
		while ((e = readdir(d))) {
			if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, ".."))
				continue;
			char p[1024];
			snprintf(p, sizeof p, "%s/%s", path, e->d_name);
			rm_rf(p);
		}
		closedir(d);
	}
	if (rmdir(path) != 0)
		unlink(path);
}

static void fx_free(fx *x)
{
	fx_close(x);
	kv_fault_fs_free(x->ff);
	rm_rf(x->dir);
}

/* Paths of the store's files whose name ends with suffix ("*.sst"), sorted. */
static int store_files(fx *x, const char *suffix, char out[][1024], int max)
{
	char sd[600];
	snprintf(sd, sizeof sd, "%s/store", x->dir);
	DIR *d = opendir(sd);
	int n = 0;
	if (!d)
		return 0;
	struct dirent *e;
	while ((e = readdir(d)) && n < max) {
		size_t l = strlen(e->d_name), sl = strlen(suffix);
		if (l > sl && !strcmp(e->d_name + l - sl, suffix))
			snprintf(out[n++], 1024, "%s/%s", sd, e->d_name);
	}
	closedir(d);
	for (int i = 1; i < n; i++)
		for (int k = i; k > 0 && strcmp(out[k - 1], out[k]) > 0; k--) {
			char t[1024];
			memcpy(t, out[k], 1024);
			memcpy(out[k], out[k - 1], 1024);
			memcpy(out[k - 1], t, 1024);
		}
	return n;
}

static uint64_t file_size(const char *p)
{
	struct stat st;
	return stat(p, &st) == 0 ? (uint64_t)st.st_size : 0;
}

/* ---------------------------------------------------------------- SQL helpers */

static PGconn *conn(fx *x)
{
	PGconn *c = PQconnectdb(x->conninfo);
	if (PQstatus(c) != CONNECTION_OK) {
		fail("connect: %s", PQerrorMessage(c));
		PQfinish(c);
		return NULL;
	}
	return c;
}

/* Runs sql; returns the SQLSTATE of its error ("" on success) in a static
 * buffer and the first value of the first row in val (if given). */
static const char *run(PGconn *c, const char *sql, char *val, size_t vlen)
{
	static __thread char state[8];
	state[0] = 0;
	if (val)
		val[0] = 0;
	if (!c) {
		strcpy(state, "NOCON");
		return state;
	}
	PGresult *r = PQexec(c, sql);
	ExecStatusType s = PQresultStatus(r);
	if (s == PGRES_COMMAND_OK || s == PGRES_TUPLES_OK) {
		if (val && s == PGRES_TUPLES_OK && PQntuples(r) > 0)
			snprintf(val, vlen, "%s", PQgetvalue(r, 0, 0));
	} else {
		const char *st = PQresultErrorField(r, PG_DIAG_SQLSTATE);
		snprintf(state, sizeof state, "%s", st ? st : "CONN");
	}
	PQclear(r);
	return state;
}

static void expect_ok(PGconn *c, const char *sql)
{
	const char *st = run(c, sql, NULL, 0);
	CHECK(!*st, "%s: failed with %s: %s", sql, st, c ? PQerrorMessage(c) : "");
}

static void expect_state(PGconn *c, const char *sql, const char *want)
{
	const char *st = run(c, sql, NULL, 0);
	CHECK(!strcmp(st, want), "%s: expected %s, got \"%s\" %s", sql, want, st, c ? PQerrorMessage(c) : "");
}

static long long count_rows(PGconn *c, const char *table)
{
	char sql[200], val[64];
	snprintf(sql, sizeof sql, "SELECT count(*) FROM %s", table);
	const char *st = run(c, sql, val, sizeof val);
	if (*st) {
		fail("%s: %s %s", sql, st, PQerrorMessage(c));
		return -1;
	}
	return atoll(val);
}

static void fill(PGconn *c, const char *table, int from, int to, int padlen)
{
	char sql[300];
	snprintf(sql, sizeof sql,
		 "INSERT INTO %s SELECT g, repeat(md5(g::text), %d) FROM generate_series(%d, %d) g", table,
		 padlen / 32 + 1, from, to);
	expect_ok(c, sql);
}

/* ---------------------------------------------------------------- cases */

static void case_enospc_log(unsigned seed)
{
	(void)seed;
	fx x;
	fx_init(&x, "enospc");
	fx_open_or_die(&x);
	PGconn *a = conn(&x), *b = conn(&x);
	expect_ok(a, "CREATE TABLE t (id int PRIMARY KEY, v text)");
	fill(a, "t", 1, 100, 10);
	kv_fault_set(x.ff, KV_FAULT_WRITE, ENOSPC, 0, ".wal");
	expect_state(a, "INSERT INTO t VALUES (101, 'x')", "53100");
	expect_state(a, "UPDATE t SET v = 'y' WHERE id = 1", "53100");
	expect_state(a, "DELETE FROM t WHERE id < 50", "53100");
	expect_state(a, "CREATE TABLE u (id int)", "53100");
	expect_ok(a, "BEGIN");
	expect_ok(a, "INSERT INTO t VALUES (102, 'x')");
	expect_state(a, "COMMIT", "53100");
	CHECK(PQtransactionStatus(a) == PQTRANS_IDLE, "after a failed COMMIT the session is not idle");
	/* reads go on, in this session and others */
	CHECK(count_rows(a, "t") == 100, "rows changed although every write failed");
	CHECK(count_rows(b, "t") == 100, "second session: wrong count");
	char v[64];
	run(b, "SELECT v FROM t WHERE id = 1", v, sizeof v);
	CHECK(strcmp(v, "y") != 0, "a failed UPDATE is visible");
	CHECK(kv_fault_injected(x.ff) > 0, "no fault was injected");
	/* space returns: writes resume */
	kv_fault_clear(x.ff);
	expect_ok(a, "INSERT INTO t VALUES (101, 'x')");
	expect_ok(b, "CREATE TABLE u (id int)");
	expect_ok(b, "INSERT INTO u VALUES (1)");
	CHECK(count_rows(b, "t") == 101, "after space returned: wrong count");
	PQfinish(a);
	PQfinish(b);
	/* and nothing is lost or half-there after a restart */
	fx_close(&x);
	fx_open_or_die(&x);
	a = conn(&x);
	CHECK(count_rows(a, "t") == 101, "after restart: wrong count");
	CHECK(count_rows(a, "u") == 1, "after restart: table u");
	run(a, "SELECT count(*) FROM t WHERE id = 102 OR v = 'y'", v, sizeof v);
	CHECK(!strcmp(v, "0"), "a failed commit came back after restart");
	PQfinish(a);
	fx_free(&x);
}

static void case_enospc_flush(unsigned seed)
{
	(void)seed;
	fx x;
	fx_init(&x, "enospc-flush");
	x.eo.memstore_flush_bytes = 64 << 10;
	fx_open_or_die(&x);
	PGconn *a = conn(&x);
	expect_ok(a, "CREATE TABLE t (id int PRIMARY KEY, v text)");
	kv_fault_set(x.ff, KV_FAULT_WRITE, ENOSPC, 0, ".sst");
	/* ~600 KB: several memstores' worth, their flushes fail */
	for (int i = 0; i < 6; i++)
		fill(a, "t", i * 500 + 1, i * 500 + 500, 200);
	expect_state(a, "CHECKPOINT", "53100");
	CHECK(count_rows(a, "t") == 3000, "wrong count while flushes fail");
	CHECK(kv_fault_injected(x.ff) > 0, "no flush was attempted");
	kv_fault_clear(x.ff);
	expect_ok(a, "CHECKPOINT");
	char ssts[64][1024];
	CHECK(store_files(&x, ".sst", ssts, 64) > 0, "no sorted file after the flush succeeded");
	fill(a, "t", 3001, 3100, 10);
	PQfinish(a);
	fx_close(&x);
	fx_open_or_die(&x);
	a = conn(&x);
	CHECK(count_rows(a, "t") == 3100, "after restart: wrong count");
	PQfinish(a);
	fx_free(&x);
}

static void case_eio_read(unsigned seed)
{
	(void)seed;
	fx x;
	fx_init(&x, "eio");
	fx_open_or_die(&x);
	PGconn *a = conn(&x);
	expect_ok(a, "CREATE TABLE t (id int PRIMARY KEY, v text)");
	expect_ok(a, "CREATE TABLE w (id int PRIMARY KEY)");
	fill(a, "t", 1, 2000, 100);
	expect_ok(a, "CHECKPOINT");
	PQfinish(a);
	/* restart: the memstores are empty, t is read from its sorted files */
	fx_close(&x);
	fx_open_or_die(&x);
	a = conn(&x);
	PGconn *b = conn(&x);
	kv_fault_set(x.ff, KV_FAULT_READ, EIO, 0, ".sst");
	expect_state(a, "SELECT count(*) FROM t", "58030");
	expect_state(a, "SELECT v FROM t WHERE id = 1234", "58030");
	CHECK(PQstatus(a) == CONNECTION_OK, "the session ended after an I/O error");
	expect_ok(a, "SELECT 1");
	expect_ok(b, "INSERT INTO w VALUES (1)"); /* writes need no reads of t */
	expect_state(b, "BEGIN; SELECT count(*) FROM t; COMMIT", "58030");
	expect_ok(b, "ROLLBACK");
	kv_fault_clear(x.ff);
	CHECK(count_rows(a, "t") == 2000, "after the fault: wrong count");
	CHECK(count_rows(b, "w") == 1, "after the fault: w");
	PQfinish(a);
	PQfinish(b);
	fx_close(&x);
	/* EIO reading the log at start: the engine refuses to open, then opens */
	kv_fault_set(x.ff, KV_FAULT_READ, EIO, 0, ".wal");
	util_err err;
	util_err_clear(&err);
	int rc = fx_open(&x, &err);
	CHECK(rc != 0, "the engine opened although its log could not be read");
	if (rc != 0)
		CHECK(!strcmp(util_errcode_sqlstate(err.code), "58030"), "open with an unreadable log: %s %s",
		      util_errcode_sqlstate(err.code), err.message);
	else
		fx_close(&x);
	kv_fault_clear(x.ff);
	fx_open_or_die(&x);
	a = conn(&x);
	CHECK(count_rows(a, "t") == 2000, "after reopening: wrong count");
	CHECK(count_rows(a, "w") == 1, "after reopening: w");
	PQfinish(a);
	fx_free(&x);
}

static void case_fsync_fail(unsigned seed)
{
	for (int crash = 0; crash < 2; crash++) {
		fx x;
		fx_init(&x, "fsync");
		fx_open_or_die(&x);
		PGconn *a = conn(&x), *b = conn(&x);
		expect_ok(a, "CREATE TABLE t (id int PRIMARY KEY, v text)");
		fill(a, "t", 1, 100, 10);
		kv_fault_set(x.ff, KV_FAULT_SYNC, EIO, 0, NULL);
		expect_state(a, "INSERT INTO t VALUES (101, 'lost')", "58030");
		char v[64];
		run(b, "SELECT count(*) FROM t WHERE id = 101", v, sizeof v);
		CHECK(!strcmp(v, "0"), "a commit whose fsync failed is visible");
		/* the disk is fine again, but the store never pretends: no more acknowledgements */
		kv_fault_clear(x.ff);
		expect_state(b, "INSERT INTO t VALUES (102, 'no')", "58030");
		expect_state(b, "CREATE TABLE u (id int)", "58030");
		CHECK(count_rows(a, "t") == 100, "reads after the fsync failure");
		PQfinish(a);
		PQfinish(b);
		if (crash) {
			/* the machine dies: unsynced data goes, maybe leaving a torn tail */
			kv_fault_kill(x.ff);
			fx_close(&x);
			kv_fault_crash(x.ff, seed, true);
			kv_fault_revive(x.ff);
		} else {
			fx_close(&x);
		}
		/* recovery from the log: everything acknowledged, writes work again */
		fx_open_or_die(&x);
		a = conn(&x);
		long long n = count_rows(a, "t");
		run(a, "SELECT count(*) FROM t WHERE id <= 100", v, sizeof v);
		CHECK(!strcmp(v, "100"), "after recovery%s: %s of 100 acknowledged rows",
		      crash ? " from a crash" : "", v);
		CHECK(n == 100 || n == 101, "after recovery: %lld rows", n);
		run(a, "SELECT count(*) FROM t WHERE id = 102", v, sizeof v);
		CHECK(!strcmp(v, "0"), "a write refused after the failure came back");
		expect_ok(a, "INSERT INTO t VALUES (103, 'ok')");
		expect_ok(a, "CREATE TABLE u (id int)");
		PQfinish(a);
		fx_free(&x);
	}
}

/* One client's view of its transactions for power_loss. */
typedef struct ledger {
	int acked;    /* transactions 1..acked were acknowledged */
	int sent;     /* transaction `sent` had its COMMIT sent without an answer (0 = none) */
	int rows_per; /* rows per transaction */
} ledger;

static int power_acked, power_indoubt, power_indoubt_present, power_lost_unsynced;

static void power_round(unsigned seed, bool sync_commit)
{
	fx x;
	fx_init(&x, "power");
	x.eo.sync_commit = sync_commit;
	x.eo.memstore_flush_bytes = 32 << 10; /* crashes land in flushes and compactions too */
	x.eo.wal_segment_bytes = 32 << 10;
	fx_open_or_die(&x);
	PGconn *a = conn(&x);
	expect_ok(a, "CREATE TABLE t (tx int, i int, v text, PRIMARY KEY (tx, i))");
	expect_ok(a, "CREATE TABLE c (id int PRIMARY KEY, n int)");
	expect_ok(a, "INSERT INTO c VALUES (1, 0)");
	unsigned r = seed;
	uint64_t start_ops = kv_fault_ops(x.ff);
	kv_fault_kill_after(x.ff, start_ops + 50 + (uint64_t)(rand_r(&r) % 1500));
	ledger L = {0, 0, 1 + (int)(rand_r(&r) % 4)};
	char sql[512];
	for (int tx = 1; tx < 100000; tx++) {
		if (!*run(a, "BEGIN", NULL, 0)) {
			bool ok = true;
			for (int i = 0; i < L.rows_per && ok; i++) {
				snprintf(sql, sizeof sql, "INSERT INTO t VALUES (%d, %d, repeat('%d', %d))",
					 tx, i, tx, (int)(rand_r(&r) % 3000));
				ok = !*run(a, sql, NULL, 0);
			}
			ok = ok && !*run(a, "UPDATE c SET n = n + 1 WHERE id = 1", NULL, 0);
			if (ok) {
				L.sent = tx;
				if (!*run(a, "COMMIT", NULL, 0)) {
					L.acked = tx;
					L.sent = 0;
					continue;
				}
			}
		}
		break;
	}
	PQfinish(a);
	fx_close(&x);
	kv_fault_crash(x.ff, seed, rand_r(&r) % 2);
	kv_fault_revive(x.ff);
	util_err err;
	util_err_clear(&err);
	if (fx_open(&x, &err) != 0) {
		fail("seed %u: the engine did not open after the crash: %s %s", seed,
		     util_errcode_sqlstate(err.code), err.message);
		kv_fault_fs_free(x.ff);
		rm_rf(x.dir);
		return;
	}
	a = conn(&x);
	char v[64];
	/* per transaction: all of its rows or none */
	const char *st = run(a,
			     "SELECT count(*) FROM (SELECT tx FROM t GROUP BY tx HAVING count(*) <> "
			     "(SELECT max(i) + 1 FROM t)) p",
			     v, sizeof v);
	CHECK(!*st && !strcmp(v, "0"), "seed %u: %s transactions are partly there (%s)", seed, v, st);
	run(a, "SELECT count(DISTINCT tx), coalesce(max(tx), 0), coalesce(min(tx), 0) FROM t", NULL, 0);
	PGresult *res = PQexec(a, "SELECT count(DISTINCT tx), coalesce(max(tx), 0) FROM t");
	int present = -1, maxtx = -1;
	if (PQresultStatus(res) == PGRES_TUPLES_OK) {
		present = atoi(PQgetvalue(res, 0, 0));
		maxtx = atoi(PQgetvalue(res, 0, 1));
	}
	PQclear(res);
	run(a, "SELECT n FROM c WHERE id = 1", v, sizeof v);
	CHECK(atoi(v) == present, "seed %u: counter %s but %d transactions present", seed, v, present);
	/* what survives is a prefix of the commits (no holes) */
	CHECK(present == maxtx, "seed %u: %d transactions present but the newest is %d", seed, present,
	      maxtx);
	if (sync_commit) {
		CHECK(present >= L.acked, "seed %u: %d transactions acknowledged, only %d survived", seed,
		      L.acked, present);
		CHECK(present <= L.acked + (L.sent ? 1 : 0),
		      "seed %u: %d present, more than acknowledged (%d) + in doubt", seed, present, L.acked);
	} else {
		CHECK(present <= L.acked + (L.sent ? 1 : 0), "seed %u: %d present of %d", seed, present,
		      L.acked);
	}
	power_acked += L.acked;
	power_indoubt += L.sent ? 1 : 0;
	power_indoubt_present += L.sent && present > L.acked;
	power_lost_unsynced += !sync_commit && present < L.acked;
	/* and the database works */
	expect_ok(a, "INSERT INTO t VALUES (-1, 0, 'after')");
	PQfinish(a);
	fx_free(&x);
}

static int rounds = 6;

static void case_power_loss(unsigned seed)
{
	for (int i = 0; i < rounds; i++)
		power_round(seed + (unsigned)i, i % 3 != 2);
	printf("# fault: power_loss: %d crashes, %d transactions acknowledged, %d in doubt (%d present), "
	       "%d crashes without sync_commit lost acknowledged transactions (allowed)\n",
	       rounds, power_acked, power_indoubt, power_indoubt_present, power_lost_unsynced);
}

static void case_bitflip_sst(unsigned seed)
{
	fx x;
	fx_init(&x, "flip-sst");
	fx_open_or_die(&x);
	PGconn *a = conn(&x);
	expect_ok(a, "CREATE TABLE t (id int PRIMARY KEY, v text)");
	fill(a, "t", 1, 3000, 100);
	char sum[64];
	run(a, "SELECT sum(length(v) + id) FROM t", sum, sizeof sum);
	expect_ok(a, "CHECKPOINT");
	PQfinish(a);
	fx_close(&x);
	char ssts[64][1024];
	int n = store_files(&x, ".sst", ssts, 64);
	CHECK(n > 0, "no sorted files");
	unsigned r = seed;
	int detected = 0, flips = 0;
	for (int i = 0; i < 8 && n > 0; i++) {
		/* the biggest file holds t's rows; flip a bit in its first 90% (data blocks) */
		int big = 0;
		for (int k = 1; k < n; k++)
			if (file_size(ssts[k]) > file_size(ssts[big]))
				big = k;
		uint64_t off = (uint64_t)rand_r(&r) % (file_size(ssts[big]) * 9 / 10);
		uint8_t mask = (uint8_t)(1u << (rand_r(&r) % 8));
		if (kv_fault_flip(ssts[big], off, mask) != 0) {
			fail("flip %s at %llu", ssts[big], (unsigned long long)off);
			break;
		}
		flips++;
		fx_open_or_die(&x);
		a = conn(&x);
		char got[64];
		const char *st = run(a, "SELECT sum(length(v) + id) FROM t", got, sizeof got);
		if (!strcmp(st, "XX001"))
			detected++;
		else
			CHECK(0,
			      "bit %d of byte %llu flipped: query gave \"%s\" (%s, expected %s), not XX001",
			      mask, (unsigned long long)off, st, got, sum);
		expect_ok(a, "SELECT 1"); /* the session and the server live */
		PQfinish(a);
		fx_close(&x);
		kv_fault_flip(ssts[big], off, mask); /* undo */
	}
	fx_open_or_die(&x);
	a = conn(&x);
	char got[64];
	run(a, "SELECT sum(length(v) + id) FROM t", got, sizeof got);
	CHECK(!strcmp(got, sum), "after undoing the flips: %s, expected %s", got, sum);
	PQfinish(a);
	printf("    %d of %d flipped bits detected\n", detected, flips);
	fx_free(&x);
}

static void case_bitflip_wal(unsigned seed)
{
	fx x;
	fx_init(&x, "flip-wal");
	x.eo.memstore_flush_bytes = 64 << 20; /* everything stays in the log */
	x.eo.wal_segment_bytes = 32 << 10;
	fx_open_or_die(&x);
	PGconn *a = conn(&x);
	expect_ok(a, "CREATE TABLE t (id int PRIMARY KEY, v text)");
	for (int i = 0; i < 40; i++)
		fill(a, "t", i * 50 + 1, i * 50 + 50, 100);
	PQfinish(a);
	fx_close(&x);
	char wals[64][1024];
	int n = store_files(&x, ".wal", wals, 64);
	CHECK(n >= 2, "expected several log segments, found %d", n);
	if (n >= 2) {
		/* a record in the middle of the first segment: not a torn tail */
		unsigned r = seed;
		uint64_t sz = file_size(wals[0]);
		uint64_t off = sz / 4 + (uint64_t)rand_r(&r) % (sz / 2);
		kv_fault_flip(wals[0], off, 0x10);
		util_err err;
		util_err_clear(&err);
		int rc = fx_open(&x, &err);
		CHECK(rc != 0, "the engine opened on a damaged log (byte %llu of %s)",
		      (unsigned long long)off, wals[0]);
		if (rc != 0)
			CHECK(!strcmp(util_errcode_sqlstate(err.code), "XX001"), "damaged log: %s %s",
			      util_errcode_sqlstate(err.code), err.message);
		else
			fx_close(&x);
		kv_fault_flip(wals[0], off, 0x10);
	}
	fx_open_or_die(&x);
	a = conn(&x);
	CHECK(count_rows(a, "t") == 2000, "after undoing the flip: wrong count");
	PQfinish(a);
	fx_free(&x);
}

/* ---------------------------------------------------------------- main */

typedef struct tcase {
	const char *name;
	void (*fn)(unsigned seed);
} tcase;

static const tcase cases[] = {
    {"enospc_log", case_enospc_log},   {"enospc_flush", case_enospc_flush}, {"eio_read", case_eio_read},
    {"fsync_fail", case_fsync_fail},   {"power_loss", case_power_loss},     {"bitflip_sst", case_bitflip_sst},
    {"bitflip_wal", case_bitflip_wal},
};

int main(int argc, char **argv)
{
	unsigned seed = (unsigned)time(NULL);
	const char *only[16];
	int nonly = 0;
	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--rounds") && i + 1 < argc)
			rounds = atoi(argv[++i]);
		else if (!strcmp(argv[i], "--seed") && i + 1 < argc)
			seed = (unsigned)strtoul(argv[++i], NULL, 10);
		else if (nonly < 16)
			only[nonly++] = argv[i];
	}
	util_log_set_level(UTIL_LOG_ERROR);
	printf("# fault: seed %u (--seed %u replays)\n", seed, seed);
	int passed = 0, failed = 0;
	for (size_t i = 0; i < UTIL_ARRAY_LEN(cases); i++) {
		bool run_it = nonly == 0;
		for (int k = 0; k < nonly; k++)
			run_it |= !strcmp(only[k], cases[i].name);
		if (!run_it)
			continue;
		case_failures = 0;
		int64_t t0 = util_mono_us();
		cases[i].fn(seed);
		double secs = (double)(util_mono_us() - t0) / 1e6;
		if (case_failures) {
			printf("FAIL %s (%.1f s)\n", cases[i].name, secs);
			printf("# fault: FAIL %s\n", cases[i].name);
			failed++;
		} else {
			printf("ok %s (%.1f s)\n", cases[i].name, secs);
			passed++;
		}
		fflush(stdout);
	}
	printf("%d passed, %d failed\n", passed, failed);
	return failed ? 1 : 0;
}
