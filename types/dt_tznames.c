/*
 * dt_tznames.c — pg_timezone_names() and pg_timezone_abbrevs(), the
 * set-returning functions behind PostgreSQL's views of the same names: every
 * loadable zone of the tz database (leap-second zones left out) with its
 * abbreviation, UTC offset and DST flag at the transaction's start, and the
 * input abbreviation table with the current meaning of dynamic entries.
 */
#include "dt_int.h"

#include <ctype.h>
#include <dirent.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

static pthread_mutex_t names_mu = PTHREAD_MUTEX_INITIALIZER;
static char **zone_names;
static int nzone_names;

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

static void scan_dir(const char *root, const char *rel, int depth, char ***out, int *n, int *cap)
{
	if (depth > 4)
		return;
	char path[1024];
	snprintf(path, sizeof path, "%s%s%s", root, *rel ? "/" : "", rel);
	DIR *d = opendir(path);
	if (!d)
		return;
	struct dirent *de;
	while ((de = readdir(d))) {
		if (de->d_name[0] == '.')
			continue;
		char relname[512], full[1536];
		snprintf(relname, sizeof relname, "%s%s%s", rel, *rel ? "/" : "", de->d_name);
		snprintf(full, sizeof full, "%s/%s", root, relname);
		struct stat st;
		if (stat(full, &st) != 0)
			continue;
		if (S_ISDIR(st.st_mode)) {
			scan_dir(root, relname, depth + 1, out, n, cap);
			continue;
		}
		if (*n == *cap) {
			*cap = *cap ? *cap * 2 : 1024;
			*out = util_xrealloc(*out, (size_t)*cap * sizeof **out);
		}
		(*out)[(*n)++] = util_xstrdup(relname);
	}
	closedir(d);
}

/* Zone names that load (TZif files) and are acceptable for SET TIME ZONE,
 * sorted; computed once. */
static void load_names(void)
{
	pthread_mutex_lock(&names_mu);
	if (!zone_names) {
		const char *root = getenv("TZDIR");
		if (!root || !*root)
			root = "/usr/share/zoneinfo";
		char **all = NULL;
		int n = 0, cap = 0;
		scan_dir(root, "", 0, &all, &n, &cap);
		qsort(all, (size_t)n, sizeof *all, cmp_str);
		char **ok = util_xcalloc((size_t)n + 1, sizeof *ok);
		int k = 0;
		pthread_mutex_unlock(&names_mu);
		for (int i = 0; i < n; i++) {
			const ty_timezone *tz = dt_tzset(all[i]);
			/* Only real zone files: a POSIX-spec fallback would be upper-cased. */
			if (tz && !dt_tz_has_leapsecs(tz) && strcmp(ty_timezone_name(tz), all[i]) == 0)
				ok[k++] = all[i];
			else
				free(all[i]);
		}
		free(all);
		pthread_mutex_lock(&names_mu);
		if (!zone_names) {
			zone_names = ok;
			nzone_names = k;
		} else {
			for (int i = 0; i < k; i++)
				free(ok[i]);
			free(ok);
		}
	}
	pthread_mutex_unlock(&names_mu);
}

static ty_datum make_row(int n, const ty_oid *types, const char *const *names, ty_datum *vals)
{
	ty_record *r = ty_alloc(sizeof *r);
	ty_datum *v = ty_alloc(sizeof(ty_datum) * (size_t)n);
	memcpy(v, vals, sizeof(ty_datum) * (size_t)n);
	r->n = n;
	r->types = types;
	r->names = names;
	r->vals = v;
	return ty_bytes(r, sizeof *r);
}

static ty_datum offset_interval(int32_t secs_east)
{
	ty_interval iv = {(int64_t)secs_east * DT_USECS_PER_SEC, 0, 0};
	return dt_interval_datum(&iv);
}

static const ty_oid names_types[4] = {TY_TEXT, TY_TEXT, TY_INTERVAL, TY_BOOL};
static const char *const names_cols[4] = {"name", "abbrev", "utc_offset", "is_dst"};
static const ty_oid abbrevs_types[3] = {TY_TEXT, TY_INTERVAL, TY_BOOL};
static const char *const abbrevs_cols[3] = {"abbrev", "utc_offset", "is_dst"};

typedef struct iter_state {
	int next;
} iter_state;

static iter_state *srf_state(ty_fcinfo *fc)
{
	if (!fc->srf_state) {
		iter_state *s = util_arena_alloc(fc->cache_arena, sizeof *s);
		if (!s)
			ty_error(UTIL_E_OUT_OF_MEMORY, "out of memory");
		s->next = 0;
		fc->srf_state = s;
	}
	return fc->srf_state;
}

static DT_FN(pg_timezone_names)
{
	load_names();
	iter_state *s = srf_state(fc);
	int64_t now = dt_txn_timestamp();
	while (s->next < nzone_names) {
		const char *name = zone_names[s->next++];
		const ty_timezone *tz = dt_tzset(name);
		dt_tm tm;
		int32_t fsec;
		int off;
		const char *tzn;
		if (!tz || dt_ts2tm(now, &off, &tm, &fsec, &tzn, tz) != 0)
			continue;
		if (tzn && strlen(tzn) > 31)
			continue;
		ty_datum vals[4] = {ty_text(name), ty_text(tzn ? tzn : ""), offset_interval(-off),
				    ty_bool(tm.isdst > 0)};
		return make_row(4, names_types, names_cols, vals);
	}
	fc->srf_done = true;
	return ty_null();
}

static DT_FN(pg_timezone_abbrevs)
{
	iter_state *s = srf_state(fc);
	if (s->next >= dt_nabbrevs) {
		fc->srf_done = true;
		return ty_null();
	}
	const dt_abbrev *a = &dt_abbrevs[s->next++];
	char upper[16];
	size_t n = strlen(a->name);
	for (size_t i = 0; i <= n && i < sizeof upper; i++)
		upper[i] = (char)toupper((unsigned char)a->name[i]);
	upper[sizeof upper - 1] = '\0';
	int32_t off = a->offset;
	bool dst = a->kind == DT_ABBR_DTZ;
	if (a->kind == DT_ABBR_DYN) {
		const ty_timezone *tz = dt_tzset(a->zone);
		int isdst = 0;
		off = tz ? -dt_determine_abbrev_offset_ts(dt_txn_timestamp(), upper, tz, &isdst) : 0;
		dst = isdst > 0;
	}
	ty_datum vals[3] = {ty_text(upper), offset_interval(off), ty_bool(dst)};
	return make_row(3, abbrevs_types, abbrevs_cols, vals);
}

static const ty_func tzname_funcs[] = {
    {.name = "pg_timezone_names",
     .nargs = 0,
     .ret = TY_RECORD,
     .fn = dtf_pg_timezone_names,
     .volatility = 's',
     .strict = true,
     .retset = true,
     .kind = 'f',
     .prosrc = "pg_timezone_names",
     .oid = 2856,
     .nout = 4,
     .outtypes = names_types,
     .outnames = names_cols},
    {.name = "pg_timezone_abbrevs",
     .nargs = 0,
     .ret = TY_RECORD,
     .fn = dtf_pg_timezone_abbrevs,
     .volatility = 's',
     .strict = true,
     .retset = true,
     .kind = 'f',
     .prosrc = "pg_timezone_abbrevs",
     .oid = 2599,
     .nout = 3,
     .outtypes = abbrevs_types,
     .outnames = abbrevs_cols},
};

void dt_register_tznames(void)
{
	ty_func_register(tzname_funcs, (int)UTIL_ARRAY_LEN(tzname_funcs));
}
