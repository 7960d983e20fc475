/*
 * admin.c — `strata backup`, `strata restore`, `strata backup-info`,
 * `strata verify`.
 *
 * backup and verify talk to a running server with libpq and run
 * strata_backup() / strata_verify() there (the backup is written by the
 * server, into a directory on its machine, while it keeps serving). restore and backup-info work offline
 * on directories (restore refuses a data directory that is in use or not
 * empty). Usage in docs/operations.md.
 */
#include "admin.h"

#include <libpq-fe.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "kv.h"
#include "sql.h"
#include "util.h"

static void usage(void)
{
	fprintf(stderr, "usage:\n"
			"  strata backup DIR [--incremental-from DIR] [--as-of TIMESTAMP]\n"
			"                    [--host HOST] [--port PORT] [--user USER] [--dbname DB]\n"
			"  strata restore BACKUP_DIR --data-dir DIR [--as-of TIMESTAMP] [--quiet]\n"
			"  strata restore BACKUP_DIR --store etcd://HOST:PORT[,...]/PREFIX [--as-of TIMESTAMP]\n"
			"  strata backup-info DIR [--verify]\n"
			"  strata verify [--verbose] [--host HOST] [--port PORT] [--user USER] [--dbname DB]\n");
}

void srv_admin_print_help(void)
{
	printf("\nAdministration (docs/operations.md):\n");
	printf("  %-22s %s\n", "backup DIR [options]",
	       "take a consistent backup through a running server (--incremental-from DIR, --as-of TS,");
	printf("  %-22s %s\n", "", "--host, --port, --user, --dbname; libpq's PG* variables apply)");
	printf("  %-22s %s\n", "restore DIR --data-dir D",
	       "restore a backup (and its incremental chain) into a new data");
	printf("  %-22s %s\n", "",
	       "directory; --as-of TS restores a point in time within the backups' history;");
	printf("  %-22s %s\n", "", "--store etcd://... restores into an empty etcd prefix instead");
	printf("  %-22s %s\n", "backup-info DIR", "show what a backup holds; --verify checks every checksum");
	printf("  %-22s %s\n", "verify [options]",
	       "check a running server's store: kv layer, catalog rows, kv tables, every index");
	printf("  %-22s %s\n", "", "(--verbose lists every check; exit status 1 on a problem)");
}

bool srv_admin_is_command(const char *arg)
{
	return arg && (!strcmp(arg, "backup") || !strcmp(arg, "restore") || !strcmp(arg, "backup-info") ||
		       !strcmp(arg, "verify"));
}

/* --name VALUE or --name=VALUE at argv[*i]; advances *i. */
static bool opt(int argc, char **argv, int *i, const char *name, const char **val)
{
	size_t n = strlen(name);
	const char *a = argv[*i];
	if (strncmp(a, name, n))
		return false;
	if (a[n] == '=') {
		*val = a + n + 1;
		return true;
	}
	if (a[n] || *i + 1 >= argc)
		return false;
	*val = argv[++*i];
	return true;
}

/* Absolute form of a path given on the command line (the server resolves
 * nothing relative to the client's directory). */
static const char *absolute(const char *p, char *buf, size_t len)
{
	if (!p || p[0] == '/')
		return p;
	char cwd[PATH_MAX];
	if (!getcwd(cwd, sizeof cwd))
		return p;
	snprintf(buf, len, "%s/%s", cwd, p);
	return buf;
}

/* libpq connection options of the subcommands that talk to a server. */
typedef struct conn_opts {
	const char *host, *port, *user, *db;
} conn_opts;

static bool conn_opt(int argc, char **argv, int *i, conn_opts *c)
{
	return opt(argc, argv, i, "--host", &c->host) || opt(argc, argv, i, "-h", &c->host) ||
	       opt(argc, argv, i, "--port", &c->port) || opt(argc, argv, i, "-p", &c->port) ||
	       opt(argc, argv, i, "--user", &c->user) || opt(argc, argv, i, "-U", &c->user) ||
	       opt(argc, argv, i, "--dbname", &c->db) || opt(argc, argv, i, "-d", &c->db);
}

/* NULL after printing why (prefixed with what). */
static PGconn *conn_open(const conn_opts *o, const char *what)
{
	const char *keys[6], *vals[6];
	int n = 0;
	if (o->host) {
		keys[n] = "host";
		vals[n++] = o->host;
	}
	if (o->port) {
		keys[n] = "port";
		vals[n++] = o->port;
	}
	keys[n] = "user";
	vals[n++] = o->user ? o->user : (getenv("PGUSER") ? getenv("PGUSER") : "postgres");
	if (o->db) {
		keys[n] = "dbname";
		vals[n++] = o->db;
	}
	keys[n] = "application_name";
	vals[n++] = what;
	keys[n] = NULL;
	vals[n] = NULL;
	PGconn *c = PQconnectdbParams(keys, vals, 0);
	if (PQstatus(c) != CONNECTION_OK) {
		fprintf(stderr, "%s: %s", what, PQerrorMessage(c));
		PQfinish(c);
		return NULL;
	}
	return c;
}

static int cmd_backup(int argc, char **argv)
{
	const char *dir = NULL, *parent = NULL, *as_of = NULL;
	conn_opts co = {0};
	for (int i = 2; i < argc; i++) {
		const char *v;
		if (opt(argc, argv, &i, "--incremental-from", &v))
			parent = v;
		else if (opt(argc, argv, &i, "--as-of", &v))
			as_of = v;
		else if (conn_opt(argc, argv, &i, &co))
			continue;
		else if (argv[i][0] != '-' && !dir)
			dir = argv[i];
		else {
			fprintf(stderr, "strata backup: unexpected argument \"%s\"\n", argv[i]);
			usage();
			return 2;
		}
	}
	if (!dir) {
		usage();
		return 2;
	}
	char b1[PATH_MAX + 256], b2[PATH_MAX + 256];
	dir = absolute(dir, b1, sizeof b1);
	parent = absolute(parent, b2, sizeof b2);
	PGconn *c = conn_open(&co, "strata backup");
	if (!c)
		return 1;
	const char *params[3] = {dir, parent, as_of};
	PGresult *r = PQexecParams(
	    c,
	    "SELECT backup_id, kind, backup_time, backup_ts, since, history_from, tables, cells, bytes "
	    "FROM strata_backup($1, $2, $3::timestamptz)",
	    3, NULL, params, NULL, NULL, 0);
	int rc = 0;
	if (PQresultStatus(r) != PGRES_TUPLES_OK) {
		fprintf(stderr, "strata backup: %s", PQresultErrorMessage(r));
		rc = 1;
	} else {
		for (int i = 0; i < PQnfields(r); i++)
			printf("%-13s %s\n", PQfname(r, i), PQgetisnull(r, 0, i) ? "" : PQgetvalue(r, 0, i));
		printf("%-13s %s\n", "directory", dir);
	}
	PQclear(r);
	PQfinish(c);
	return rc;
}

/* strata_verify() through a running server: every problem, a summary;
 * status 1 when there is a problem (docs/operations.md, "Verify"). */
static int cmd_verify(int argc, char **argv)
{
	conn_opts co = {0};
	bool verbose = false;
	for (int i = 2; i < argc; i++) {
		if (!strcmp(argv[i], "--verbose") || !strcmp(argv[i], "-v"))
			verbose = true;
		else if (!conn_opt(argc, argv, &i, &co)) {
			fprintf(stderr, "strata verify: unexpected argument \"%s\"\n", argv[i]);
			usage();
			return 2;
		}
	}
	PGconn *c = conn_open(&co, "strata verify");
	if (!c)
		return 2;
	PGresult *r = PQexec(c, "SELECT \"check\", object, ok, detail FROM strata_verify()");
	int rc = 0;
	if (PQresultStatus(r) != PGRES_TUPLES_OK) {
		fprintf(stderr, "strata verify: %s", PQresultErrorMessage(r));
		rc = 2;
	} else {
		int problems = 0, n = PQntuples(r);
		for (int i = 0; i < n; i++) {
			bool ok = PQgetvalue(r, i, 2)[0] == 't';
			problems += !ok;
			if (!ok || verbose)
				printf("%s %-8s %s: %s\n", ok ? "ok     " : "PROBLEM", PQgetvalue(r, i, 0),
				       PQgetvalue(r, i, 1), PQgetvalue(r, i, 3));
		}
		printf("verify: %s (%d checks, %d problem%s)\n", problems ? "DAMAGED" : "ok", n - problems,
		       problems, problems == 1 ? "" : "s");
		rc = problems ? 1 : 0;
	}
	PQclear(r);
	PQfinish(c);
	return rc;
}

static int cmd_restore(int argc, char **argv)
{
	const char *dir = NULL, *data = NULL, *as_of = NULL;
	bool quiet = false;
	for (int i = 2; i < argc; i++) {
		const char *v;
		if (opt(argc, argv, &i, "--data-dir", &v) || opt(argc, argv, &i, "-D", &v) ||
		    opt(argc, argv, &i, "--store", &v)) /* an etcd URI: restore into that prefix */
			data = v;
		else if (opt(argc, argv, &i, "--as-of", &v))
			as_of = v;
		else if (!strcmp(argv[i], "--quiet") || !strcmp(argv[i], "-q"))
			quiet = true;
		else if (argv[i][0] != '-' && !dir)
			dir = argv[i];
		else {
			fprintf(stderr, "strata restore: unexpected argument \"%s\"\n", argv[i]);
			usage();
			return 2;
		}
	}
	if (!dir || !data) {
		usage();
		return 2;
	}
	util_err err;
	util_err_clear(&err);
	if (sql_restore_backup(dir, data, as_of, !quiet, &err) != 0) {
		fprintf(stderr, "strata restore: %s\n", err.message);
		return 1;
	}
	return 0;
}

static int cmd_info(int argc, char **argv)
{
	const char *dir = NULL;
	bool verify = false;
	for (int i = 2; i < argc; i++) {
		if (!strcmp(argv[i], "--verify"))
			verify = true;
		else if (argv[i][0] != '-' && !dir)
			dir = argv[i];
		else {
			usage();
			return 2;
		}
	}
	if (!dir) {
		usage();
		return 2;
	}
	kv_backup_info bi;
	kv_status st = kv_backup_inspect(dir, verify, NULL, &bi);
	if (st != KV_OK) {
		fprintf(stderr, "strata backup-info: %s: %s\n", kv_status_name(st), kv_errmsg());
		return 1;
	}
	printf("backup_id     %s\nkind          %s\n", bi.id, bi.incremental ? "incremental" : "full");
	if (bi.incremental)
		printf("parent_id     %s\nsince         %llu\n", bi.parent_id, (unsigned long long)bi.since);
	printf("backup_ts     %llu\nhistory_from  %llu\ntables        %llu\ncells         %llu\nbytes        "
	       " %llu\n",
	       (unsigned long long)bi.ts, (unsigned long long)bi.history_from, (unsigned long long)bi.tables,
	       (unsigned long long)bi.cells, (unsigned long long)bi.bytes);
	if (verify)
		printf("verified      every checksum\n");
	return 0;
}

int srv_admin_main(int argc, char **argv)
{
	if (!strcmp(argv[1], "backup"))
		return cmd_backup(argc, argv);
	if (!strcmp(argv[1], "restore"))
		return cmd_restore(argc, argv);
	if (!strcmp(argv[1], "verify"))
		return cmd_verify(argc, argv);
	return cmd_info(argc, argv);
}
