/*
 * slt.h — internal interfaces of the sqllogictest runner (tests/slt): the
 * script parser, result formatting/hashing as SQLite's sqllogictest does it,
 * and the per-directory report. The runner itself (slt_runner.c) drives a
 * server through libpq. Not a library: only the runner and its unit tests
 * include this.
 */
#ifndef STRATA_SLT_H
#define STRATA_SLT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

/* ---------------------------------------------------------------- scripts */

typedef enum slt_kind {
	SLT_STATEMENT_OK,
	SLT_STATEMENT_ERROR,
	SLT_QUERY,
	SLT_HASH_THRESHOLD,
	SLT_HALT,
} slt_kind;

typedef enum slt_sort { SLT_NOSORT, SLT_ROWSORT, SLT_VALUESORT } slt_sort;

/* One record of a script. All strings point into the owning slt_script. */
typedef struct slt_record {
	slt_kind kind;
	int line;              /* 1-based line of the record's first line (after conditions) */
	bool skip;             /* skipif/onlyif conditions exclude it for the engine */
	const char *sql;       /* statement or query text, lines joined with '\n' */
	const char *types;     /* query: column type letters, e.g. "IIT" */
	slt_sort sort;         /* query */
	const char *label;     /* query: label or NULL */
	bool has_expected;     /* query: a "----" section exists */
	const char **expected; /* query: expected lines (values or one hash line) */
	int n_expected;
	int threshold; /* SLT_HASH_THRESHOLD */
} slt_record;

/* A parsed script; owns every string its records point to. */
typedef struct slt_script {
	char *path;
	slt_record *recs;
	int n_recs;
	char *text;   /* the file's bytes, split in place into lines */
	char **lines; /* line pointers into text */
	int n_lines;
	void *pool; /* extra allocations (joined SQL, arrays) */
} slt_script;

/*
 * Parses the script at `path` for the database engine `engine` (e.g.
 * "postgresql"): skipif/onlyif mark records skipped. On failure returns -1
 * and writes a message to `err`. Caller frees with slt_script_free().
 */
int slt_script_load(slt_script *s, const char *path, const char *engine, char *err, size_t errlen);
/* Same, from a NUL-terminated buffer (for tests); takes a copy of `text`. */
int slt_script_parse(slt_script *s, const char *name, const char *text, const char *engine, char *err,
		     size_t errlen);
void slt_script_free(slt_script *s);

/* ---------------------------------------------------------------- results */

/*
 * A query result being formatted: n_rows x n_cols values, row-major, each a
 * malloc'd string formatted by slt_format_value(). Caller frees with
 * slt_result_free().
 */
typedef struct slt_result {
	char **vals;
	int n_rows, n_cols;
} slt_result;

/*
 * Formats one raw text value from the server for type letter `type` the way
 * sqllogictest's reference driver prints it: NULL as "NULL"; 'I' as a 64-bit
 * integer (non-integers truncated toward zero, booleans 1/0 when `is_bool`);
 * 'R' with "%.3f"; 'T' with "(empty)" for "" and bytes outside ' '..'~'
 * replaced by '@'. `raw` NULL means SQL NULL. Caller frees.
 */
char *slt_format_value(char type, const char *raw, bool is_bool);

/* Sorts the values per mode (rowsort: rows by strcmp column by column;
 * valuesort: every value on its own). */
void slt_result_sort(slt_result *r, slt_sort mode);

/* "N values hashing to <md5>" of the values in order (each followed by
 * '\n', as sqllogictest hashes). `out` must hold 80 bytes. */
void slt_result_hash(const slt_result *r, char *out);

/* True if `line` is a hash line ("N values hashing to <32 hex>"). */
bool slt_is_hash_line(const char *line);

void slt_result_free(slt_result *r);

/* ---------------------------------------------------------------- report */

/*
 * The report groups files by directory: the file's directory relative to the
 * corpus root with trailing all-digit components removed, so
 * index/between/1/slt_good_0.test counts under "index/between". Writes the
 * group of `relpath` into `out`.
 */
void slt_group_of(const char *relpath, char *out, size_t outlen);

/* Counts of one directory. A record passes or fails when run; "known" are
 * failures listed with a reason in the known-failures file (not in "failed",
 * not in the rate); "fixed" are listed records that pass (also in "passed");
 * "skipped" records are excluded by skipif/onlyif; "not run" ones were left
 * out by sampling or the time budget. Records after a halt are not counted. */
typedef struct slt_dir_stats {
	char name[256];
	int files;
	long passed, failed, known, fixed, skipped, not_run;
	double seconds;
	double threshold; /* minimum pass rate in percent; 0 = informational */
} slt_dir_stats;

typedef struct slt_report {
	const char *engine;
	slt_dir_stats *dirs;
	int n_dirs, cap_dirs;
	struct {
		char dir[256];
		double rate;
	} thresholds[64]; /* "*" is the default for directories not listed */
	int n_thresholds;
	int disconnects;
	char first_disconnect[512];
} slt_report;

/* Reads "<dir> <min rate %>" lines ('#' comments). Call before adding dirs. */
int slt_report_load_thresholds(slt_report *rep, const char *path, char *err, size_t errlen);
double slt_threshold_for(const slt_report *rep, const char *group);
/* The stats of `group`, created on first use; valid until the next call. */
slt_dir_stats *slt_report_dir(slt_report *rep, const char *group);
/* Pass rate in percent (100 when nothing ran). */
double slt_rate(long passed, long failed);
/* Meets its threshold: informational (0), or something ran and the rate is
 * at least the threshold. */
bool slt_dir_ok(const slt_dir_stats *d);
/* Prints one "# slt ..." line per directory, a total line and a final
 * "directories: N passed, N failed" line; returns the number below threshold. */
int slt_report_print(slt_report *rep, FILE *out);
int slt_report_json(const slt_report *rep, const char *path, double seconds);
void slt_report_free(slt_report *rep);

#endif
