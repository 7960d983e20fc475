/*
 * slt_runner.c — runs sqllogictest scripts (SQLite's format) against a
 * PostgreSQL-protocol server through libpq and reports pass counts per
 * directory. Each script gets its own connection and, when it ends, the
 * tables and views it created are dropped (or the public schema is recreated,
 * --reset=schema), so scripts start from a clean database. See
 * docs/development.md ("sqllogictest") and `slt_runner --help`.
 */
#include <dirent.h>
#include <errno.h>
#include <getopt.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "slt_exec.h"

typedef enum reset_mode { RESET_TABLES, RESET_SCHEMA, RESET_NONE } reset_mode;

typedef struct options {
	char conninfo[1024];
	const char *engine;
	const char *root;
	int max_queries;
	double time_budget;
	double query_timeout;
	int show_failures;
	const char *failures_path;
	const char *json_path;
	const char *thresholds_path;
	const char *known_path;
	reset_mode reset;
	bool verbose;
} options;

/* Labels of one script: label -> result hash. */
typedef struct label_map {
	struct label_ent {
		char *label;
		char *hash;
		struct label_ent *next;
	} * buckets[1024];
} label_map;

typedef struct runner {
	options opt;
	slt_report rep;
	double start;
	double file_deadline; /* with --time-budget: this file's share ends */
	bool out_of_time;
	bool server_gone; /* the last connect attempt failed */
	long failures_shown;
	FILE *failures;
	const char *root; /* of the current argument */
	label_map known;  /* "relpath:line" -> reason, from --known */
} runner;

/* ------------------------------------------------------------------ labels */

static unsigned label_hash(const char *s)
{
	unsigned h = 2166136261u;
	for (; *s; s++)
		h = (h ^ (unsigned char)*s) * 16777619u;
	return h % 1024;
}

/* Returns the stored hash of `label`, storing `hash` if it is new. */
static const char *label_check(label_map *m, const char *label, const char *hash)
{
	unsigned b = label_hash(label);
	for (struct label_ent *e = m->buckets[b]; e; e = e->next)
		if (strcmp(e->label, label) == 0)
			return e->hash;
	struct label_ent *e = malloc(sizeof *e);
	if (!e || !(e->label = strdup(label)) || !(e->hash = strdup(hash))) {
		fprintf(stderr, "slt: out of memory\n");
		exit(2);
	}
	e->next = m->buckets[b];
	m->buckets[b] = e;
	return e->hash;
}

static void label_free(label_map *m)
{
	for (int b = 0; b < 1024; b++) {
		struct label_ent *e = m->buckets[b];
		while (e) {
			struct label_ent *n = e->next;
			free(e->label);
			free(e->hash);
			free(e);
			e = n;
		}
		m->buckets[b] = NULL;
	}
}

/* ---------------------------------------------------------------- failures */

static void print_lines(FILE *f, const char *prefix, const char *const *lines, int n, int max)
{
	for (int i = 0; i < n && i < max; i++)
		fprintf(f, "%s%s\n", prefix, lines[i]);
	if (n > max)
		fprintf(f, "%s... (%d more)\n", prefix, n - max);
}

/* The reason a record is a listed known failure, or NULL. */
static const char *known_reason(runner *R, const char *rel, int line)
{
	char key[512];
	snprintf(key, sizeof key, "%s:%d", rel, line);
	unsigned b = label_hash(key);
	for (struct label_ent *e = R->known.buckets[b]; e; e = e->next)
		if (strcmp(e->label, key) == 0)
			return e->hash;
	return NULL;
}

/* Reads --known: "relpath:line reason..." lines, '#' comments. */
static int load_known(runner *R, const char *path)
{
	FILE *f = fopen(path, "r");
	if (!f) {
		fprintf(stderr, "slt: %s: %s\n", path, strerror(errno));
		return -1;
	}
	char line[2048];
	while (fgets(line, sizeof line, f)) {
		line[strcspn(line, "\r\n")] = '\0';
		char *p = line;
		while (*p == ' ' || *p == '\t')
			p++;
		if (*p == '\0' || *p == '#')
			continue;
		char *sp = p + strcspn(p, " \t");
		char *reason = sp;
		if (*sp) {
			*sp = '\0';
			reason = sp + 1;
			while (*reason == ' ' || *reason == '\t')
				reason++;
		}
		label_check(&R->known, p, *reason ? reason : "(no reason given)");
	}
	fclose(f);
	return 0;
}

/* Reports one failing record: to stdout for the first --show-failures, and
 * to the --failures file always. `got`/`n_got` are formatted values. Known
 * failures (--known) go to the failures file only, marked with their reason. */
static void report_failure(runner *R, const char *rel, const slt_record *rec, const char *reason,
			   const char *const *got, int n_got, const char *got_hash)
{
	FILE *outs[2] = {NULL, NULL};
	const char *known = known_reason(R, rel, rec->line);
	if (!known && R->failures_shown < R->opt.show_failures) {
		outs[0] = stdout;
		R->failures_shown++;
	}
	outs[1] = R->failures;
	for (int k = 0; k < 2; k++) {
		FILE *f = outs[k];
		if (!f)
			continue;
		if (known)
			fprintf(f, "--- KNOWN %s:%d: %s [known: %s]\n", rel, rec->line, reason, known);
		else
			fprintf(f, "--- FAIL %s:%d: %s\n", rel, rec->line, reason);
		fprintf(f, "%s\n", rec->sql);
		if (rec->kind == SLT_QUERY && rec->has_expected && (got || got_hash)) {
			fprintf(f, "expected:\n");
			print_lines(f, "  ", rec->expected, rec->n_expected, 20);
			fprintf(f, "got:\n");
			if (rec->n_expected == 1 && slt_is_hash_line(rec->expected[0]))
				fprintf(f, "  %s\n", got_hash);
			else
				print_lines(f, "  ", got, n_got, 20);
		}
	}
}

/* ------------------------------------------------------------------ files */

typedef struct path_list {
	char **v;
	int n, cap;
} path_list;

static void path_add(path_list *l, const char *p)
{
	if (l->n == l->cap) {
		l->cap = l->cap ? l->cap * 2 : 64;
		l->v = realloc(l->v, (size_t)l->cap * sizeof(char *));
		if (!l->v) {
			fprintf(stderr, "slt: out of memory\n");
			exit(2);
		}
	}
	l->v[l->n++] = strdup(p);
}

static int collect(path_list *l, const char *path)
{
	struct stat st;
	if (stat(path, &st) != 0) {
		fprintf(stderr, "slt: %s: %s\n", path, strerror(errno));
		return -1;
	}
	if (!S_ISDIR(st.st_mode)) {
		path_add(l, path);
		return 0;
	}
	DIR *d = opendir(path);
	if (!d) {
		fprintf(stderr, "slt: %s: %s\n", path, strerror(errno));
		return -1;
	}
	struct dirent *e;
	int rc = 0;
	while ((e = readdir(d)) != NULL) {
		if (e->d_name[0] == '.')
			continue;
		char sub[4096];
		snprintf(sub, sizeof sub, "%s/%s", path, e->d_name);
		struct stat s2;
		if (stat(sub, &s2) != 0)
			continue;
		if (S_ISDIR(s2.st_mode))
			rc |= collect(l, sub);
		else {
			size_t n = strlen(e->d_name);
			if (n > 5 && strcmp(e->d_name + n - 5, ".test") == 0)
				path_add(l, sub);
		}
	}
	closedir(d);
	return rc;
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* ------------------------------------------------------------------ running */

static bool budget_left(runner *R)
{
	if (R->opt.time_budget > 0 && slt_now() > R->file_deadline)
		R->out_of_time = true;
	return !R->out_of_time;
}

static void note_disconnect(runner *R, const char *rel, int line, const char *why)
{
	if (R->rep.disconnects++ == 0) {
		/* One line: libpq's messages span several. */
		char *w = R->rep.first_disconnect, *end = w + sizeof R->rep.first_disconnect - 1;
		int n = snprintf(w, (size_t)(end - w), "%s:%d: ", rel, line);
		w += n < end - w ? n : end - w;
		bool space = false;
		for (const char *p = why; *p && w < end; p++) {
			bool ws = *p == '\n' || *p == '\t' || *p == ' ';
			if (ws && !space)
				*w++ = ' ';
			else if (!ws)
				*w++ = *p;
			space = ws;
		}
		*w = '\0';
	}
}

static void reset_schema(runner *R, PGconn *c)
{
	PGresult *r = NULL;
	char e[512];
	slt_exec(c, "DROP SCHEMA IF EXISTS public CASCADE", R->opt.query_timeout, &r, e, sizeof e);
	if (r)
		PQclear(r);
	r = NULL;
	if (slt_exec(c, "CREATE SCHEMA public", R->opt.query_timeout, &r, e, sizeof e) != SLT_EXEC_OK)
		fprintf(stderr, "slt: warning: resetting the public schema: %s\n", e);
	if (r)
		PQclear(r);
}

/* Checks one query's result against the record; returns true if it passes. */
static bool check_query(runner *R, const char *rel, const slt_record *rec, PGresult *res, label_map *labels)
{
	int ncols = PQnfields(res), nrows = PQntuples(res);
	int want = (int)strlen(rec->types);
	if (ncols != want) {
		char why[128];
		snprintf(why, sizeof why, "expected %d columns, got %d", want, ncols);
		report_failure(R, rel, rec, why, NULL, 0, NULL);
		return false;
	}
	slt_result out = {.n_rows = nrows, .n_cols = ncols};
	out.vals = calloc((size_t)nrows * (size_t)ncols + 1, sizeof(char *));
	if (!out.vals) {
		fprintf(stderr, "slt: out of memory\n");
		exit(2);
	}
	for (int c = 0; c < ncols; c++) {
		bool is_bool = PQftype(res, c) == 16; /* BOOLOID */
		for (int r = 0; r < nrows; r++) {
			const char *raw = PQgetisnull(res, r, c) ? NULL : PQgetvalue(res, r, c);
			out.vals[(size_t)r * (size_t)ncols + (size_t)c] =
			    slt_format_value(rec->types[c], raw, is_bool);
		}
	}
	slt_result_sort(&out, rec->sort);
	char hash[80];
	slt_result_hash(&out, hash);
	int nvals = nrows * ncols;
	bool ok = true;
	const char *why = NULL;
	if (rec->has_expected) {
		if (rec->n_expected == 1 && slt_is_hash_line(rec->expected[0])) {
			ok = strcmp(hash, rec->expected[0]) == 0;
		} else {
			ok = rec->n_expected == nvals;
			for (int i = 0; ok && i < nvals; i++)
				ok = strcmp(rec->expected[i], out.vals[i]) == 0;
		}
		if (!ok)
			why = "wrong result";
	}
	if (ok && rec->label) {
		const char *prev = label_check(labels, rec->label, hash);
		if (strcmp(prev, hash) != 0) {
			ok = false;
			why = "result differs from an earlier query with the same label";
		}
	}
	if (!ok)
		report_failure(R, rel, rec, why, (const char *const *)out.vals, nvals, hash);
	slt_result_free(&out);
	return ok;
}

/* Runs one script; adds its counts to its directory. */
static void run_file(runner *R, const char *path, const char *rel)
{
	char group[256], err[2048];
	slt_group_of(rel, group, sizeof group);
	if (strcmp(group, ".") == 0) {
		/* A file directly under the root: name the group after the root. */
		const char *base = strrchr(R->root, '/');
		snprintf(group, sizeof group, "%s", base && base[1] ? base + 1 : R->root);
	}
	slt_dir_stats *d = slt_report_dir(&R->rep, group);
	d->files++;
	double t0 = slt_now();

	slt_script s;
	if (slt_script_load(&s, path, R->opt.engine, err, sizeof err) != 0) {
		fprintf(stderr, "slt: %s\n", err);
		if (R->failures)
			fprintf(R->failures, "--- FAIL %s: cannot parse: %s\n", rel, err);
		d->failed++;
		d->seconds += slt_now() - t0;
		return;
	}

	/* Records up to the first effective halt; skipped ones counted now. */
	int end = s.n_recs, n_queries = 0;
	for (int i = 0; i < s.n_recs; i++) {
		const slt_record *rec = &s.recs[i];
		if (rec->skip) {
			if (rec->kind != SLT_HALT && rec->kind != SLT_HASH_THRESHOLD)
				d->skipped++;
			continue;
		}
		if (rec->kind == SLT_HALT) {
			end = i;
			break;
		}
		if (rec->kind == SLT_QUERY)
			n_queries++;
	}
	/* With --max-queries, run an evenly spread sample of the queries. */
	int max_q = R->opt.max_queries;
	bool sampling = max_q > 0 && n_queries > max_q;

	PGconn *c = NULL;
	if (budget_left(R)) {
		c = slt_connect(R->opt.conninfo, err, sizeof err);
		if (!c) {
			note_disconnect(R, rel, 0, err);
			R->server_gone = true;
		} else {
			R->server_gone = false;
		}
	}
	if (c && R->opt.reset == RESET_SCHEMA)
		reset_schema(R, c);

	slt_objects objs = {0};
	label_map *labels = calloc(1, sizeof *labels);
	int q_index = 0;
	long passed = 0, failed = 0, not_run = 0;
	for (int i = 0; i < end; i++) {
		const slt_record *rec = &s.recs[i];
		if (rec->skip)
			continue;
		if (rec->kind == SLT_HASH_THRESHOLD)
			continue; /* the expected section itself says whether results are hashed */
		if (rec->kind == SLT_QUERY) {
			int j = q_index++;
			if (sampling && (long)(j + 1) * max_q / n_queries == (long)j * max_q / n_queries) {
				not_run++;
				continue;
			}
		}
		if (!c) {
			/* Out of time: not run. No server: every record fails. */
			if (R->out_of_time)
				not_run++;
			else
				failed++;
			continue;
		}
		if (!budget_left(R)) {
			not_run++;
			continue;
		}
		PGresult *res = NULL;
		slt_exec_status st = slt_exec(c, rec->sql, R->opt.query_timeout, &res, err, sizeof err);
		bool ok;
		if (rec->kind == SLT_STATEMENT_OK || rec->kind == SLT_STATEMENT_ERROR) {
			if (st == SLT_EXEC_OK)
				slt_track(&objs, rec->sql);
			ok = rec->kind == SLT_STATEMENT_OK ? st == SLT_EXEC_OK : st == SLT_EXEC_ERROR;
			if (!ok) {
				char why[2200];
				if (rec->kind == SLT_STATEMENT_OK)
					snprintf(why, sizeof why, "statement failed: %s", err);
				else
					snprintf(why, sizeof why,
						 "statement succeeded but an error was expected");
				report_failure(R, rel, rec, why, NULL, 0, NULL);
			}
		} else if (st == SLT_EXEC_OK) {
			ok = check_query(R, rel, rec, res, labels);
		} else {
			char why[2200];
			snprintf(why, sizeof why, "query failed: %s", err);
			report_failure(R, rel, rec, why, NULL, 0, NULL);
			ok = false;
		}
		if (res)
			PQclear(res);
		const char *known = known_reason(R, rel, rec->line);
		if (ok)
			passed++;
		else if (known)
			d->known++;
		else
			failed++;
		if (ok && known) {
			d->fixed++;
			if (R->failures)
				fprintf(R->failures,
					"--- FIXED %s:%d: passes although listed in the known failures\n",
					rel, rec->line);
		}
		if (st == SLT_EXEC_LOST || st == SLT_EXEC_TIMEOUT_DEAD) {
			if (st == SLT_EXEC_LOST)
				note_disconnect(R, rel, rec->line, err);
			PQfinish(c);
			c = slt_connect(R->opt.conninfo, err, sizeof err);
			if (!c) {
				R->server_gone = true;
				note_disconnect(R, rel, rec->line, err);
			}
		}
	}
	if (c && R->opt.reset == RESET_TABLES && objs.n > 0) {
		int bad = slt_drop_tracked(c, &objs, R->opt.query_timeout, err, sizeof err);
		if (bad)
			fprintf(stderr, "slt: warning: %s: cleanup: %d DROPs failed, first: %s\n", rel, bad,
				err);
	} else if (c && R->opt.reset == RESET_SCHEMA) {
		reset_schema(R, c);
	}
	if (c)
		PQfinish(c);
	slt_objects_free(&objs);
	label_free(labels);
	free(labels);
	slt_script_free(&s);

	d->passed += passed;
	d->failed += failed;
	d->not_run += not_run;
	double secs = slt_now() - t0;
	d->seconds += secs;
	if (R->opt.verbose)
		printf("%s: %ld passed, %ld failed, %ld not run (%.1f s)\n", rel, passed, failed, not_run,
		       secs);
	fflush(stdout);
}

/* ------------------------------------------------------------------- main */

static void usage(FILE *f)
{
	fprintf(f, "usage: slt_runner [options] PATH...\n"
		   "Runs sqllogictest scripts (files, or directories searched for *.test) against a\n"
		   "PostgreSQL-protocol server and prints pass counts per directory.\n"
		   "\n"
		   "connection:\n"
		   "  -h, --host HOST          server host (default 127.0.0.1)\n"
		   "  -p, --port PORT          server port (default 5433)\n"
		   "  -U, --user USER          user (default postgres)\n"
		   "  -d, --dbname DB          database (default postgres)\n"
		   "      --conninfo STR       libpq connection string (overrides the four above)\n"
		   "selection and budget:\n"
		   "      --root DIR           report paths relative to DIR (default: the PATH if it\n"
		   "                           is a directory, else its parent)\n"
		   "      --max-queries N      per file, run an evenly spread sample of N queries\n"
		   "                           (statements always run); 0 = all (default)\n"
		   "      --time-budget SEC    stop after SEC seconds; the rest counts as not run\n"
		   "      --query-timeout SEC  per statement/query (default 30)\n"
		   "      --engine NAME        database name for skipif/onlyif (default postgresql)\n"
		   "      --reset MODE         clean up after each file: tables (drop the tables and\n"
		   "                           views it created; default), schema (DROP SCHEMA public\n"
		   "                           CASCADE + CREATE SCHEMA public before and after), none\n"
		   "output:\n"
		   "  -v, --verbose            one line per file\n"
		   "      --show-failures N    print the first N failures with their SQL\n"
		   "      --failures FILE      write every failure (SQL, expected, got) to FILE\n"
		   "      --json FILE          write a JSON summary to FILE\n"
		   "      --thresholds FILE    per-directory minimum pass rates ('<dir> <percent>' lines,\n"
		   "                           '*' for the rest); exit 1 if a directory is below\n"
		   "      --known FILE         known failures, 'relpath:line reason' lines: counted as\n"
		   "                           'known', not failed, and left out of the pass rate\n"
		   "\n"
		   "Exit status: 0 when every directory meets its threshold, 1 when one does not,\n"
		   "2 on usage or setup errors. The last output line is\n"
		   "'directories: N passed, N failed' (against the thresholds).\n");
}

static int parse_int(const char *s, const char *what)
{
	char *end;
	long v = strtol(s, &end, 10);
	if (*end || v < 0 || v > 1000000000) {
		fprintf(stderr, "slt: bad %s '%s'\n", what, s);
		exit(2);
	}
	return (int)v;
}

static double parse_secs(const char *s, const char *what)
{
	char *end;
	double v = strtod(s, &end);
	if (*end || v < 0) {
		fprintf(stderr, "slt: bad %s '%s'\n", what, s);
		exit(2);
	}
	return v;
}

int main(int argc, char **argv)
{
	runner R;
	memset(&R, 0, sizeof R);
	options *o = &R.opt;
	const char *host = "127.0.0.1", *port = "5433", *user = "postgres", *db = "postgres",
		   *conninfo = NULL;
	o->engine = "postgresql";
	o->query_timeout = 30;
	o->reset = RESET_TABLES;

	enum {
		O_CONNINFO = 256,
		O_ROOT,
		O_MAXQ,
		O_BUDGET,
		O_QTIMEOUT,
		O_ENGINE,
		O_RESET,
		O_SHOW,
		O_FAILURES,
		O_JSON,
		O_THRESH,
		O_KNOWN,
		O_HELP
	};
	static const struct option longopts[] = {
	    {"host", required_argument, NULL, 'h'},
	    {"port", required_argument, NULL, 'p'},
	    {"user", required_argument, NULL, 'U'},
	    {"dbname", required_argument, NULL, 'd'},
	    {"conninfo", required_argument, NULL, O_CONNINFO},
	    {"root", required_argument, NULL, O_ROOT},
	    {"max-queries", required_argument, NULL, O_MAXQ},
	    {"time-budget", required_argument, NULL, O_BUDGET},
	    {"query-timeout", required_argument, NULL, O_QTIMEOUT},
	    {"engine", required_argument, NULL, O_ENGINE},
	    {"reset", required_argument, NULL, O_RESET},
	    {"verbose", no_argument, NULL, 'v'},
	    {"show-failures", required_argument, NULL, O_SHOW},
	    {"failures", required_argument, NULL, O_FAILURES},
	    {"json", required_argument, NULL, O_JSON},
	    {"thresholds", required_argument, NULL, O_THRESH},
	    {"known", required_argument, NULL, O_KNOWN},
	    {"help", no_argument, NULL, O_HELP},
	    {NULL, 0, NULL, 0},
	};
	int ch;
	while ((ch = getopt_long(argc, argv, "h:p:U:d:v", longopts, NULL)) != -1) {
		switch (ch) {
		case 'h':
			host = optarg;
			break;
		case 'p':
			port = optarg;
			break;
		case 'U':
			user = optarg;
			break;
		case 'd':
			db = optarg;
			break;
		case 'v':
			o->verbose = true;
			break;
		case O_CONNINFO:
			conninfo = optarg;
			break;
		case O_ROOT:
			o->root = optarg;
			break;
		case O_MAXQ:
			o->max_queries = parse_int(optarg, "--max-queries");
			break;
		case O_BUDGET:
			o->time_budget = parse_secs(optarg, "--time-budget");
			break;
		case O_QTIMEOUT:
			o->query_timeout = parse_secs(optarg, "--query-timeout");
			break;
		case O_ENGINE:
			o->engine = optarg;
			break;
		case O_RESET:
			if (strcmp(optarg, "tables") == 0)
				o->reset = RESET_TABLES;
			else if (strcmp(optarg, "schema") == 0)
				o->reset = RESET_SCHEMA;
			else if (strcmp(optarg, "none") == 0)
				o->reset = RESET_NONE;
			else {
				fprintf(stderr, "slt: --reset must be tables, schema or none\n");
				return 2;
			}
			break;
		case O_SHOW:
			o->show_failures = parse_int(optarg, "--show-failures");
			break;
		case O_FAILURES:
			o->failures_path = optarg;
			break;
		case O_JSON:
			o->json_path = optarg;
			break;
		case O_THRESH:
			o->thresholds_path = optarg;
			break;
		case O_KNOWN:
			o->known_path = optarg;
			break;
		case O_HELP:
			usage(stdout);
			return 0;
		default:
			usage(stderr);
			return 2;
		}
	}
	if (optind >= argc) {
		usage(stderr);
		return 2;
	}
	if (o->query_timeout <= 0)
		o->query_timeout = 30;
	if (conninfo)
		snprintf(o->conninfo, sizeof o->conninfo, "%s", conninfo);
	else
		snprintf(o->conninfo, sizeof o->conninfo,
			 "host='%s' port='%s' user='%s' dbname='%s' connect_timeout=10", host, port, user,
			 db);

	R.rep.engine = o->engine;
	char err[1024];
	if (o->thresholds_path &&
	    slt_report_load_thresholds(&R.rep, o->thresholds_path, err, sizeof err) != 0) {
		fprintf(stderr, "slt: %s\n", err);
		return 2;
	}
	if (o->known_path && load_known(&R, o->known_path) != 0)
		return 2;
	if (o->failures_path) {
		R.failures = fopen(o->failures_path, "w");
		if (!R.failures) {
			fprintf(stderr, "slt: %s: %s\n", o->failures_path, strerror(errno));
			return 2;
		}
	}

	/* Collect every file first so the time budget can be shared fairly. */
	path_list files = {0}, roots = {0};
	for (int a = optind; a < argc; a++) {
		int first = files.n;
		if (collect(&files, argv[a]) != 0)
			return 2;
		qsort(files.v + first, (size_t)(files.n - first), sizeof(char *), cmp_str);
		/* Root for relative names: --root, else the argument if it is a
		 * directory, else its parent. */
		char root[4096];
		struct stat st;
		if (o->root)
			snprintf(root, sizeof root, "%s", o->root);
		else if (stat(argv[a], &st) == 0 && S_ISDIR(st.st_mode))
			snprintf(root, sizeof root, "%s", argv[a]);
		else {
			snprintf(root, sizeof root, "%s", argv[a]);
			char *sl = strrchr(root, '/');
			if (sl)
				*sl = '\0';
			else
				snprintf(root, sizeof root, ".");
		}
		size_t rl = strlen(root);
		while (rl > 1 && root[rl - 1] == '/')
			root[--rl] = '\0';
		for (int i = first; i < files.n; i++)
			path_add(&roots, root);
	}

	R.start = slt_now();
	for (int i = 0; i < files.n; i++) {
		/* Each file may use an equal share of the budget still left. */
		if (o->time_budget > 0) {
			double left = o->time_budget - (slt_now() - R.start);
			R.file_deadline = slt_now() + (left > 0 ? left / (files.n - i) : 0);
		}
		R.out_of_time = false;
		R.root = roots.v[i];
		size_t rl = strlen(R.root);
		const char *rel = files.v[i];
		if (strncmp(rel, R.root, rl) == 0 && rel[rl] == '/')
			rel += rl + 1;
		run_file(&R, files.v[i], rel);
		free(files.v[i]);
		free(roots.v[i]);
	}
	free(files.v);
	free(roots.v);
	double secs = slt_now() - R.start;
	if (R.failures)
		fclose(R.failures);
	int below = slt_report_print(&R.rep, stdout);
	if (o->json_path && slt_report_json(&R.rep, o->json_path, secs) != 0)
		fprintf(stderr, "slt: cannot write %s\n", o->json_path);
	slt_report_free(&R.rep);
	label_free(&R.known);
	return below ? 1 : 0;
}
