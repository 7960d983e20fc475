/*
 * main.c — the `strata` server: reads settings, opens the SQL engine on
 * the data directory (initialising it on first start), serves the
 * PostgreSQL protocol until SIGINT/SIGTERM, then shuts down cleanly.
 */
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "admin.h"
#include "config.h"
#include "crypto.h"
#include "pgw.h"
#include "sql.h"
#include "util.h"

/* A limit from a cgroup file ("max" or bytes), 0 if none. */
static unsigned long long cgroup_limit(const char *path)
{
	FILE *f = fopen(path, "r");
	if (!f)
		return 0;
	unsigned long long v = 0;
	if (fscanf(f, "%llu", &v) != 1)
		v = 0;
	fclose(f);
	return v;
}

/* block_cache_mb = 0: an eighth of the memory this server may use (the
 * machine's, or its cgroup's limit when lower), at least 256 MB. The
 * cache holds decompressed blocks; PostgreSQL gets the same from the OS
 * page cache, which here only holds the compressed files, and a working
 * set past the cache costs a zstd decompression per block read (a 10M
 * row table's point reads 7x the CPU with 256 MB, docs/performance.md). */
static size_t auto_block_cache(void)
{
	long pages = sysconf(_SC_PHYS_PAGES), psz = sysconf(_SC_PAGE_SIZE);
	unsigned long long mem =
	    pages > 0 && psz > 0 ? (unsigned long long)pages * (unsigned long long)psz : 0;
	const char *limits[] = {"/sys/fs/cgroup/memory.max", "/sys/fs/cgroup/memory/memory.limit_in_bytes"};
	for (size_t i = 0; i < UTIL_ARRAY_LEN(limits); i++) {
		unsigned long long l = cgroup_limit(limits[i]);
		if (l && (!mem || l < mem))
			mem = l;
	}
	unsigned long long c = mem / 8, floor = 256ull << 20;
	return (size_t)(c > floor ? c : floor);
}

static int parse_args(int argc, char **argv, srv_config *cfg)
{
	util_err err;
	util_err_clear(&err);
	/* The config file is read first so that flags override it. */
	for (int i = 1; i < argc; i++) {
		const char *a = argv[i];
		if (strncmp(a, "--config=", 9) == 0 || (strcmp(a, "--config") == 0 && i + 1 < argc)) {
			const char *path = a[8] == '=' ? a + 9 : argv[++i];
			if (srv_config_load_file(cfg, path, &err) != 0) {
				fprintf(stderr, "strata: %s%s%s\n", err.message, err.context[0] ? ": " : "", err.context);
				return -1;
			}
		}
	}
	for (int i = 1; i < argc; i++) {
		const char *a = argv[i];
		if (strcmp(a, "--help") == 0 || strcmp(a, "-h") == 0) {
			srv_config_print_help(argv[0]);
			srv_admin_print_help();
			exit(0);
		}
		if (strcmp(a, "--version") == 0 || strcmp(a, "-V") == 0) {
			printf("strata %s (PostgreSQL %s compatible)\n", STRATA_VERSION, STRATA_PG_VERSION);
			exit(0);
		}
		if (strncmp(a, "--", 2) != 0) {
			fprintf(stderr, "strata: unexpected argument \"%s\" (try --help)\n", a);
			return -1;
		}
		char name[128];
		const char *value;
		const char *eq = strchr(a, '=');
		if (eq) {
			snprintf(name, sizeof name, "%.*s", (int)(eq - a - 2), a + 2);
			value = eq + 1;
		} else {
			snprintf(name, sizeof name, "%s", a + 2);
			if (i + 1 >= argc) {
				fprintf(stderr, "strata: option --%s needs a value\n", name);
				return -1;
			}
			value = argv[++i];
		}
		if (strcmp(name, "config") == 0)
			continue;
		if (srv_config_set(cfg, name, value, &err) != 0) {
			fprintf(stderr, "strata: %s\n", err.message);
			return -1;
		}
	}
	return 0;
}

typedef struct sig_ctx {
	pgw_server *server;
	sigset_t set;
} sig_ctx;

/* A dedicated thread receives SIGINT/SIGTERM/SIGHUP synchronously, so shutdown
 * runs as ordinary code rather than in a signal handler. */
static void *signal_thread(void *arg)
{
	sig_ctx *sc = arg;
	for (;;) {
		int sig;
		if (sigwait(&sc->set, &sig) != 0)
			continue;
		if (sig == SIGHUP) {
			/* PostgreSQL reloads its configuration on SIGHUP; the only
			 * reloadable file here (hba) is re-read when it changes. */
			util_info("received SIGHUP: the hba file reloads on change, other settings need a restart");
			continue;
		}
		if (sig == SIGINT || sig == SIGTERM) {
			util_info("received %s, shutting down", sig == SIGINT ? "SIGINT" : "SIGTERM");
			pgw_server_shutdown(sc->server);
			return NULL;
		}
	}
}

int main(int argc, char **argv)
{
	if (argc > 1 && srv_admin_is_command(argv[1]))
		return srv_admin_main(argc, argv);
	srv_config cfg;
	srv_config_default(&cfg);
	if (parse_args(argc, argv, &cfg) != 0)
		return 2;
	int lvl = util_log_parse_level(cfg.log_level);
	if (lvl < 0) {
		fprintf(stderr, "strata: invalid log level \"%s\"\n", cfg.log_level);
		return 2;
	}
	util_log_set_level((util_log_level)lvl);
	if (cfg.log_file[0] && util_log_set_file(cfg.log_file) != 0) {
		fprintf(stderr, "strata: cannot open log file \"%s\": %s\n", cfg.log_file, strerror(errno));
		return 2;
	}

	/* Before any thread: the one pthread key of per-thread objects, and
	 * libcrypto's keys (util.h, crypto.c: libpg_query uses up the keys). */
	util_tls_init();
	util_crypto_init();

	/* Signals: block them everywhere; the signal thread waits for them. */
	static sig_ctx sc;
	sigemptyset(&sc.set);
	sigaddset(&sc.set, SIGINT);
	sigaddset(&sc.set, SIGTERM);
	sigaddset(&sc.set, SIGHUP);
	pthread_sigmask(SIG_BLOCK, &sc.set, NULL);
	signal(SIGPIPE, SIG_IGN);

	util_err err;
	util_err_clear(&err);
	sql_engine_opts eo;
	sql_engine_opts_default(&eo);
	eo.data_dir = cfg.data_dir;
	eo.store_uri = cfg.store[0] ? cfg.store : NULL;
	eo.max_connections = cfg.max_connections;
	eo.work_mem = (size_t)cfg.work_mem_kb * 1024;
	eo.block_cache_bytes = cfg.block_cache_mb > 0 ? (size_t)cfg.block_cache_mb << 20 : auto_block_cache();
	eo.sync_commit = cfg.sync_commit;
	eo.history_retention_s = cfg.history_retention_s;
	eo.log_min_duration_ms = cfg.log_min_duration_ms;
	eo.memstore_flush_bytes = (size_t)cfg.memstore_flush_kb * 1024;
	eo.wal_segment_bytes = (size_t)cfg.wal_segment_kb * 1024;
	sql_engine *engine;
	if (sql_engine_open(&eo, &engine, &err) != 0) {
		fprintf(stderr, "strata: could not open data directory \"%s\": %s\n", cfg.data_dir, err.message);
		return 1;
	}

	pgw_opts wo;
	pgw_opts_default(&wo);
	wo.listen_addr = cfg.listen;
	wo.port = cfg.port;
	wo.max_connections = cfg.max_connections;
	wo.worker_threads = cfg.worker_threads;
	wo.hba_file = cfg.hba_file[0] ? cfg.hba_file : NULL;
	wo.tls_cert_file = cfg.tls_cert[0] ? cfg.tls_cert : NULL;
	wo.tls_key_file = cfg.tls_key[0] ? cfg.tls_key : NULL;
	wo.tls_ca_file = cfg.tls_ca[0] ? cfg.tls_ca : NULL;
	wo.unix_socket_dir = cfg.unix_socket_dir[0] ? cfg.unix_socket_dir : NULL;
	pgw_server *server;
	if (pgw_server_start(&wo, engine, &server, &err) != 0) {
		fprintf(stderr, "strata: %s\n", err.message);
		sql_engine_close(engine);
		return 1;
	}
	util_info("strata %s listening on %s:%d, data directory \"%s\"", STRATA_VERSION, cfg.listen,
		  pgw_server_port(server), cfg.data_dir);

	sc.server = server;
	pthread_t st;
	bool st_started = pthread_create(&st, NULL, signal_thread, &sc) == 0;

	int rc = pgw_server_run(server);
	/* The run ends once the signal thread called pgw_server_shutdown; join
	 * it before the server is freed (it may still be writing the stop pipe
	 * the free closes: a data race under TSan when it was detached). */
	if (st_started)
		pthread_join(st, NULL);
	pgw_server_free(server);
	sql_engine_close(engine);
	util_info("shutdown complete");
	return rc == 0 ? 0 : 1;
}
