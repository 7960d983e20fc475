/*
 * dt_tz.c — time zones: a reader for the system tz database (TZif v1/v2/v3
 * files under /usr/share/zoneinfo, or $TZDIR), POSIX TZ strings (the file
 * footer that covers times past the table, and zone specs such as
 * "EST5EDT,M3.2.0,M11.1.0" or "<+0530>-5:30"), case-insensitive zone names
 * as PostgreSQL's pg_tzset, and lookups of the local time type at an instant.
 *
 * Loaded zones are cached forever in a mutex-protected list: sessions keep
 * plain pointers to them (ty_settings.timezone).
 */
#include "dt_int.h"

#include <ctype.h>
#include <dirent.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* One POSIX TZ rule date: Jn, n or Mm.w.d, plus the local time of day. */
typedef struct tz_rule {
	char kind; /* 'J', 'D' (zero-based day of year), 'M' */
	int day, week, mon;
	int32_t time; /* seconds after local midnight (may be negative or > 24h) */
} tz_rule;

struct ty_timezone {
	char *name; /* canonical name as SHOW reports it */
	bool leap;
	int ntrans;
	int64_t *trans; /* Unix seconds, ascending */
	uint8_t *idx;   /* type index per transition */
	int ntypes;
	dt_ttinfo *types;
	/* POSIX footer or spec: applies after the last transition. */
	bool has_rule; /* a usable rule (with or without DST) */
	bool rule_dst;
	dt_ttinfo std, dst;
	tz_rule start, end;
	struct ty_timezone *next; /* cache chain */
	char *key;                /* upper-case lookup key */
};

/* ---------------------------------------------------------------- POSIX TZ strings */

static const char *posix_name(const char *p, const char **start, int *len)
{
	if (*p == '<') {
		p++;
		*start = p;
		while (*p && *p != '>')
			p++;
		if (*p != '>')
			return NULL;
		*len = (int)(p - *start);
		return p + 1;
	}
	*start = p;
	while (*p && !isdigit((unsigned char)*p) && *p != ',' && *p != '-' && *p != '+')
		p++;
	*len = (int)(p - *start);
	return p;
}

static const char *posix_num(const char *p, int *v, int lo, int hi)
{
	if (!isdigit((unsigned char)*p))
		return NULL;
	long n = 0;
	while (isdigit((unsigned char)*p)) {
		n = n * 10 + (*p++ - '0');
		if (n > hi)
			return NULL;
	}
	if (n < lo)
		return NULL;
	*v = (int)n;
	return p;
}

/* hh[:mm[:ss]] -> seconds. */
static const char *posix_secs(const char *p, int32_t *secs)
{
	int h, m = 0, s = 0;
	p = posix_num(p, &h, 0, 24 * 7 - 1);
	if (!p)
		return NULL;
	if (*p == ':') {
		p = posix_num(p + 1, &m, 0, 59);
		if (!p)
			return NULL;
		if (*p == ':') {
			p = posix_num(p + 1, &s, 0, 60);
			if (!p)
				return NULL;
		}
	}
	*secs = h * 3600 + m * 60 + s;
	return p;
}

/* [+-]hh[:mm[:ss]]: POSIX sign (positive = west). */
static const char *posix_offset(const char *p, int32_t *off)
{
	bool neg = false;
	if (*p == '-' || *p == '+') {
		neg = *p == '-';
		p++;
	}
	p = posix_secs(p, off);
	if (p && neg)
		*off = -*off;
	return p;
}

static const char *posix_rule(const char *p, tz_rule *r)
{
	if (*p == 'J') {
		r->kind = 'J';
		p = posix_num(p + 1, &r->day, 1, 365);
	} else if (*p == 'M') {
		r->kind = 'M';
		p = posix_num(p + 1, &r->mon, 1, 12);
		if (!p || *p++ != '.')
			return NULL;
		p = posix_num(p, &r->week, 1, 5);
		if (!p || *p++ != '.')
			return NULL;
		p = posix_num(p, &r->day, 0, 6);
	} else if (isdigit((unsigned char)*p)) {
		r->kind = 'D';
		p = posix_num(p, &r->day, 0, 365);
	} else {
		return NULL;
	}
	if (!p)
		return NULL;
	r->time = 2 * 3600;
	if (*p == '/')
		p = posix_offset(p + 1, &r->time);
	return p;
}

static char *dup_abbr(const char *s, int len)
{
	char *p = util_xmalloc((size_t)len + 1);
	memcpy(p, s, (size_t)len);
	p[len] = '\0';
	return p;
}

/* Parses a POSIX TZ string into the rule part of tz. */
static bool parse_posix(const char *s, ty_timezone *tz)
{
	const char *stdname, *dstname;
	int stdlen, dstlen;
	int32_t stdoff, dstoff;
	const char *p = posix_name(s, &stdname, &stdlen);
	if (!p || *p == '\0')
		return false;
	p = posix_offset(p, &stdoff);
	if (!p)
		return false;
	tz->std.utoff = -stdoff;
	tz->std.isdst = false;
	tz->std.abbr = dup_abbr(stdname, stdlen);
	tz->has_rule = true;
	tz->rule_dst = false;
	if (*p == '\0')
		return true;
	p = posix_name(p, &dstname, &dstlen);
	if (!p || dstlen == 0)
		return false;
	if (*p && *p != ',' && *p != ';') {
		p = posix_offset(p, &dstoff);
		if (!p)
			return false;
	} else {
		dstoff = stdoff - 3600;
	}
	if (*p == '\0')
		p = ",M3.2.0,M11.1.0"; /* the default US rules, as tzcode's TZDEFRULESTRING */
	if (*p != ',' && *p != ';')
		return false;
	p = posix_rule(p + 1, &tz->start);
	if (!p || *p != ',')
		return false;
	p = posix_rule(p + 1, &tz->end);
	if (!p || *p != '\0')
		return false;
	tz->dst.utoff = -dstoff;
	tz->dst.isdst = true;
	tz->dst.abbr = dup_abbr(dstname, dstlen);
	tz->rule_dst = true;
	return true;
}

/* UTC Unix time of a rule date in year y, the local clock running at utoff. */
static int64_t rule_time(int y, const tz_rule *r, int32_t utoff)
{
	int64_t jan1 = dt_date2j(y, 1, 1);
	int64_t day;
	switch (r->kind) {
	case 'J': /* 1..365, February 29th never counted */
		day = r->day - 1 + (dt_isleap(y) && r->day >= 60 ? 1 : 0);
		break;
	case 'D':
		day = r->day;
		break;
	default: {
		int first = dt_date2j(y, r->mon, 1);
		int d = r->day - dt_j2day(first);
		if (d < 0)
			d += 7;
		int len = dt_days_in_month(y, r->mon);
		for (int i = 1; i < r->week; i++) {
			if (d + 7 >= len)
				break;
			d += 7;
		}
		day = first - jan1 + d;
		break;
	}
	}
	return (jan1 + day - DT_UNIX_EPOCH_JDATE) * DT_SECS_PER_DAY + r->time - utoff;
}

static int year_of(int64_t t)
{
	int64_t days = t / DT_SECS_PER_DAY - (t % DT_SECS_PER_DAY < 0 ? 1 : 0);
	int y, m, d;
	dt_j2date((int)(days + DT_UNIX_EPOCH_JDATE), &y, &m, &d);
	return y;
}

/* Rule transitions of years y0..y1 in order: times[i], into_dst[i]. */
static int rule_events(const ty_timezone *tz, int y0, int y1, int64_t *times, bool *into_dst)
{
	int n = 0;
	for (int y = y0; y <= y1; y++) {
		int64_t s = rule_time(y, &tz->start, tz->std.utoff);
		int64_t e = rule_time(y, &tz->end, tz->dst.utoff);
		if (s <= e) {
			times[n] = s, into_dst[n++] = true;
			times[n] = e, into_dst[n++] = false;
		} else {
			times[n] = e, into_dst[n++] = false;
			times[n] = s, into_dst[n++] = true;
		}
	}
	return n;
}

static void rule_lookup(const ty_timezone *tz, int64_t t, dt_ttinfo *out)
{
	if (!tz->rule_dst) {
		*out = tz->std;
		return;
	}
	int64_t times[8];
	bool into[8];
	int y = year_of(t);
	int n = rule_events(tz, y - 1, y + 1, times, into);
	bool dst = false;
	for (int i = 0; i < n; i++)
		if (times[i] <= t)
			dst = into[i];
	*out = dst ? tz->dst : tz->std;
}

/* ---------------------------------------------------------------- TZif files */

static int64_t get_be(const uint8_t *p, int size)
{
	if (size == 4)
		return (int32_t)util_get_be32(p);
	return (int64_t)util_get_be64(p);
}

static bool parse_tzif(const uint8_t *buf, size_t len, ty_timezone *tz)
{
	if (len < 44 || memcmp(buf, "TZif", 4) != 0)
		return false;
	const uint8_t *p = buf;
	int version = buf[4];
	int tsize = 4;
	for (int pass = 0; pass < 2; pass++) {
		if ((size_t)(p - buf) + 44 > len || memcmp(p, "TZif", 4) != 0)
			return false;
		uint32_t isut = util_get_be32(p + 20), isstd = util_get_be32(p + 24),
			 leap = util_get_be32(p + 28), timecnt = util_get_be32(p + 32),
			 typecnt = util_get_be32(p + 36), charcnt = util_get_be32(p + 40);
		if (timecnt > 100000 || typecnt == 0 || typecnt > 256 || charcnt > 65536 || leap > 100000)
			return false;
		size_t body = (size_t)timecnt * (size_t)tsize + timecnt + (size_t)typecnt * 6 + charcnt +
			      (size_t)leap * (size_t)(tsize + 4) + isstd + isut;
		p += 44;
		if ((size_t)(p - buf) + body > len)
			return false;
		if (pass == 0 && version >= '2') {
			p += body;
			tsize = 8;
			continue;
		}
		tz->ntrans = (int)timecnt;
		tz->trans = util_xmalloc(sizeof(int64_t) * (timecnt ? timecnt : 1));
		tz->idx = util_xmalloc(timecnt ? timecnt : 1);
		for (uint32_t i = 0; i < timecnt; i++)
			tz->trans[i] = get_be(p + (size_t)i * (size_t)tsize, tsize);
		p += (size_t)timecnt * (size_t)tsize;
		for (uint32_t i = 0; i < timecnt; i++) {
			if (p[i] >= typecnt)
				return false;
			tz->idx[i] = p[i];
		}
		p += timecnt;
		const uint8_t *tt = p;
		const char *chars = (const char *)(p + typecnt * 6);
		char *abbrs = util_xmalloc(charcnt + 1);
		memcpy(abbrs, chars, charcnt);
		abbrs[charcnt] = '\0';
		tz->ntypes = (int)typecnt;
		tz->types = util_xcalloc(typecnt, sizeof(dt_ttinfo));
		for (uint32_t i = 0; i < typecnt; i++) {
			tz->types[i].utoff = (int32_t)util_get_be32(tt + i * 6);
			tz->types[i].isdst = tt[i * 6 + 4] != 0;
			uint8_t ai = tt[i * 6 + 5];
			tz->types[i].abbr = ai < charcnt ? abbrs + ai : "";
		}
		tz->leap = leap > 0;
		p += body - (size_t)timecnt * (size_t)tsize - timecnt;
		break;
	}
	/* v2+: the footer "\n<POSIX TZ>\n" covers times after the table. */
	if (version >= '2' && (size_t)(p - buf) < len && *p == '\n') {
		const uint8_t *e = memchr(p + 1, '\n', len - (size_t)(p - buf) - 1);
		if (e && e > p + 1) {
			char *spec = dup_abbr((const char *)p + 1, (int)(e - p - 1));
			ty_timezone rule = {0};
			if (!parse_posix(spec, &rule)) {
				free((void *)rule.std.abbr);
				free((void *)rule.dst.abbr);
			} else {
				tz->has_rule = true;
				tz->rule_dst = rule.rule_dst;
				tz->std = rule.std;
				tz->dst = rule.dst;
				tz->start = rule.start;
				tz->end = rule.end;
			}
			free(spec);
		}
	}
	return true;
}

static const char *tzdir(void)
{
	const char *d = getenv("TZDIR");
	return d && *d ? d : "/usr/share/zoneinfo";
}

/* Resolves name case-insensitively under the tz directory; fills canon
 * with the on-disk spelling. Returns the file's bytes (caller frees). */
static uint8_t *read_zone_file(const char *name, char *canon, size_t canon_size, size_t *len)
{
	if (!*name || name[0] == '/' || strlen(name) > 255)
		return NULL;
	char path[1024];
	snprintf(path, sizeof path, "%s", tzdir());
	canon[0] = '\0';
	const char *p = name;
	while (*p) {
		const char *slash = strchr(p, '/');
		size_t n = slash ? (size_t)(slash - p) : strlen(p);
		if (n == 0 || (n <= 2 && p[0] == '.' && (n == 1 || p[1] == '.')))
			return NULL;
		char part[256];
		memcpy(part, p, n);
		part[n] = '\0';
		DIR *dir = opendir(path);
		if (!dir)
			return NULL;
		struct dirent *de;
		bool found = false;
		while ((de = readdir(dir))) {
			if (util_strcasecmp(de->d_name, part) == 0) {
				found = true;
				snprintf(part, sizeof part, "%s", de->d_name);
				break;
			}
		}
		closedir(dir);
		if (!found)
			return NULL;
		size_t pl = strlen(path), cl = strlen(canon);
		if (pl + strlen(part) + 2 > sizeof path || cl + strlen(part) + 2 > canon_size)
			return NULL;
		snprintf(path + pl, sizeof path - pl, "/%s", part);
		snprintf(canon + cl, canon_size - cl, "%s%s", cl ? "/" : "", part);
		p += n;
		if (*p == '/')
			p++;
	}
	FILE *f = fopen(path, "rb");
	if (!f)
		return NULL;
	uint8_t *buf = NULL;
	size_t cap = 0, n = 0;
	for (;;) {
		if (n == cap) {
			if (cap >= (1u << 20)) {
				free(buf);
				fclose(f);
				return NULL;
			}
			cap = cap ? cap * 2 : 4096;
			buf = util_xrealloc(buf, cap);
		}
		size_t r = fread(buf + n, 1, cap - n, f);
		if (r == 0)
			break;
		n += r;
	}
	fclose(f);
	*len = n;
	return buf;
}

/* ---------------------------------------------------------------- cache */

/* The zone cache: a chained hash table keyed by the upper-cased name,
 * growing by doubling; entries are never removed. */
static pthread_mutex_t cache_mu = PTHREAD_MUTEX_INITIALIZER;
static ty_timezone **cache_tab;
static size_t cache_cap, cache_n;

static size_t cache_slot(const char *key, size_t cap)
{
	return (size_t)(util_hash64(key, strlen(key), 7) & (cap - 1));
}

static void cache_insert(ty_timezone *tz)
{
	if (cache_n * 2 >= cache_cap) {
		size_t ncap = cache_cap ? cache_cap * 2 : 256;
		ty_timezone **ntab = util_xcalloc(ncap, sizeof *ntab);
		for (size_t i = 0; i < cache_cap; i++) {
			ty_timezone *z = cache_tab[i];
			while (z) {
				ty_timezone *next = z->next;
				size_t h = cache_slot(z->key, ncap);
				z->next = ntab[h];
				ntab[h] = z;
				z = next;
			}
		}
		free(cache_tab);
		cache_tab = ntab;
		cache_cap = ncap;
	}
	size_t h = cache_slot(tz->key, cache_cap);
	tz->next = cache_tab[h];
	cache_tab[h] = tz;
	cache_n++;
}

static ty_timezone utc_zone = {
    .name = "UTC", .ntypes = 1, .types = &utc_zone.std, .has_rule = true, .std = {0, false, "UTC"}};

const ty_timezone *dt_tz_utc(void)
{
	return &utc_zone;
}

static ty_timezone *cache_find(const char *key)
{
	if (!cache_cap)
		return NULL;
	for (ty_timezone *z = cache_tab[cache_slot(key, cache_cap)]; z; z = z->next)
		if (strcmp(z->key, key) == 0)
			return z;
	return NULL;
}

/* Frees a zone that failed to load (loaded zones live forever). */
static void zone_discard(ty_timezone *tz)
{
	free(tz->trans);
	free(tz->idx);
	if (tz->types && tz->types != &tz->std) {
		/* TZif abbreviations share one block starting at the first type's. */
		free(tz->types);
	}
	free((void *)tz->std.abbr);
	free((void *)tz->dst.abbr);
	memset(tz, 0, sizeof *tz);
}

static ty_timezone *load_zone(const char *upper)
{
	ty_timezone *tz = util_xcalloc(1, sizeof *tz);
	char canon[512];
	size_t len = 0;
	uint8_t *buf = strcmp(upper, "GMT") == 0 ? NULL : read_zone_file(upper, canon, sizeof canon, &len);
	if (buf && parse_tzif(buf, len, tz)) {
		free(buf);
		tz->name = util_xstrdup(canon);
		return tz;
	}
	free(buf);
	zone_discard(tz);
	/* "GMT" is parsed as a POSIX spec with offset 0, as tzcode's last-ditch parse. */
	if (upper[0] == ':' || !parse_posix(strcmp(upper, "GMT") == 0 ? "GMT0" : upper, tz)) {
		zone_discard(tz);
		free(tz);
		return NULL;
	}
	tz->ntypes = tz->rule_dst ? 2 : 1;
	tz->types = util_xcalloc((size_t)tz->ntypes, sizeof(dt_ttinfo));
	tz->types[0] = tz->std;
	if (tz->rule_dst)
		tz->types[1] = tz->dst;
	tz->name = util_xstrdup(upper);
	return tz;
}

const ty_timezone *dt_tzset(const char *name)
{
	size_t n = strlen(name);
	if (n == 0 || n > 255)
		return NULL;
	char upper[256];
	for (size_t i = 0; i <= n; i++)
		upper[i] = (char)toupper((unsigned char)name[i]);
	pthread_mutex_lock(&cache_mu);
	ty_timezone *tz = cache_find(upper);
	if (!tz) {
		tz = load_zone(upper);
		if (tz) {
			tz->key = util_xstrdup(upper);
			cache_insert(tz);
		}
	}
	pthread_mutex_unlock(&cache_mu);
	return tz;
}

const ty_timezone *ty_timezone_load(const char *name)
{
	return dt_tzset(name);
}

const char *ty_timezone_name(const ty_timezone *tz)
{
	return tz ? tz->name : "UTC";
}

/* ---------------------------------------------------------------- lookups */

static const dt_ttinfo *first_std(const ty_timezone *tz)
{
	for (int i = 0; i < tz->ntypes; i++)
		if (!tz->types[i].isdst)
			return &tz->types[i];
	return &tz->types[0];
}

/* Index of the first transition > t (ntrans if none). */
static int upper_bound(const ty_timezone *tz, int64_t t)
{
	int lo = 0, hi = tz->ntrans;
	while (lo < hi) {
		int mid = (lo + hi) / 2;
		if (t < tz->trans[mid])
			hi = mid;
		else
			lo = mid + 1;
	}
	return lo;
}

void dt_tz_lookup(const ty_timezone *tz, int64_t t, dt_ttinfo *out)
{
	if (!tz)
		tz = dt_tz_utc();
	if (tz->ntrans == 0) {
		if (tz->has_rule)
			rule_lookup(tz, t, out);
		else
			*out = tz->types[0];
		return;
	}
	if (t < tz->trans[0]) {
		*out = tz->types[0];
		return;
	}
	if (t >= tz->trans[tz->ntrans - 1] && tz->has_rule) {
		rule_lookup(tz, t, out);
		return;
	}
	int i = upper_bound(tz, t);
	*out = tz->types[tz->idx[i - 1]];
}

int dt_tz_next_boundary(const ty_timezone *tz, int64_t t, dt_ttinfo *before, int64_t *boundary,
			dt_ttinfo *after)
{
	if (!tz)
		tz = dt_tz_utc();
	if (tz->ntrans > 0 && t < tz->trans[0]) {
		*before = *first_std(tz);
		*boundary = tz->trans[0];
		*after = tz->types[tz->idx[0]];
		return 1;
	}
	if (tz->ntrans == 0 || t >= tz->trans[tz->ntrans - 1]) {
		if (tz->has_rule && tz->rule_dst) {
			rule_lookup(tz, t, before);
			int64_t times[10];
			bool into[10];
			int y = year_of(t);
			int n = rule_events(tz, y - 1, y + 3, times, into);
			for (int i = 0; i < n; i++) {
				if (times[i] > t && into[i] != before->isdst) {
					*boundary = times[i];
					*after = into[i] ? tz->dst : tz->std;
					return 1;
				}
			}
			return 0;
		}
		if (tz->ntrans == 0)
			*before = tz->has_rule ? tz->std : *first_std(tz);
		else
			*before = tz->types[tz->idx[tz->ntrans - 1]];
		return 0;
	}
	int i = upper_bound(tz, t);
	*before = tz->types[tz->idx[i - 1]];
	*boundary = tz->trans[i];
	*after = tz->types[tz->idx[i]];
	return 1;
}

bool dt_tz_fixed_offset(const ty_timezone *tz, long *gmtoff)
{
	if (!tz)
		tz = dt_tz_utc();
	for (int i = 1; i < tz->ntypes; i++)
		if (tz->types[i].utoff != tz->types[0].utoff)
			return false;
	if (tz->has_rule &&
	    (tz->std.utoff != tz->types[0].utoff || (tz->rule_dst && tz->dst.utoff != tz->std.utoff)))
		return false;
	*gmtoff = tz->types[0].utoff;
	return true;
}

bool dt_tz_abbrev_offset(const ty_timezone *tz, int64_t t, const char *abbr, int32_t *gmtoff, bool *isdst)
{
	if (!tz)
		tz = dt_tz_utc();
	int cutoff = upper_bound(tz, t);
	for (int i = cutoff - 1; i >= 0; i--) {
		const dt_ttinfo *ti = &tz->types[tz->idx[i]];
		if (util_strcasecmp(ti->abbr, abbr) == 0) {
			*gmtoff = ti->utoff;
			*isdst = ti->isdst;
			return true;
		}
	}
	for (int i = cutoff; i < tz->ntrans; i++) {
		const dt_ttinfo *ti = &tz->types[tz->idx[i]];
		if (util_strcasecmp(ti->abbr, abbr) == 0) {
			*gmtoff = ti->utoff;
			*isdst = ti->isdst;
			return true;
		}
	}
	/* Zones made only of a POSIX rule have no transition table. */
	if (tz->ntrans == 0 && tz->has_rule) {
		if (util_strcasecmp(tz->std.abbr, abbr) == 0) {
			*gmtoff = tz->std.utoff;
			*isdst = false;
			return true;
		}
		if (tz->rule_dst && util_strcasecmp(tz->dst.abbr, abbr) == 0) {
			*gmtoff = tz->dst.utoff;
			*isdst = true;
			return true;
		}
	}
	return false;
}

bool dt_tz_has_leapsecs(const ty_timezone *tz)
{
	return tz && tz->leap;
}

int32_t ty_dt_tz_offset_at(const ty_timezone *tz, int64_t t, const char **abbrev)
{
	dt_ttinfo ti;
	int64_t secs = t / DT_USECS_PER_SEC - (t % DT_USECS_PER_SEC < 0 ? 1 : 0) +
		       (int64_t)(DT_POSTGRES_EPOCH_JDATE - DT_UNIX_EPOCH_JDATE) * DT_SECS_PER_DAY;
	dt_tz_lookup(tz, secs, &ti);
	if (abbrev)
		*abbrev = ti.abbr;
	return ti.utoff;
}

/* ---------------------------------------------------------------- local -> UTC */

/* PostgreSQL's DetermineTimeZoneOffsetInternal: *tp gets the Unix time. */
static int determine_offset(dt_tm *tm, const ty_timezone *tz, int64_t *tp)
{
	if (!DT_VALID_JULIAN(tm->year, tm->mon, tm->mday)) {
		/* Out of range: use the UTC offset at the epoch, as PostgreSQL. */
		tm->isdst = 0;
		*tp = 0;
		return 0;
	}
	int64_t date = (int64_t)dt_date2j(tm->year, tm->mon, tm->mday) - DT_UNIX_EPOCH_JDATE;
	int64_t sec = (int64_t)tm->hour * 3600 + tm->min * 60 + tm->sec;
	int64_t mytime = date * DT_SECS_PER_DAY + sec;
	/* Zones are within 24h of UTC and transitions 48h apart, so the next
	 * boundary after local-minus-a-day is the one that matters. */
	dt_ttinfo before, after;
	int64_t boundary;
	int res = dt_tz_next_boundary(tz, mytime - DT_SECS_PER_DAY, &before, &boundary, &after);
	if (res == 0) {
		tm->isdst = before.isdst;
		*tp = mytime - before.utoff;
		return -before.utoff;
	}
	int64_t beforetime = mytime - before.utoff, aftertime = mytime - after.utoff;
	if (beforetime < boundary && aftertime < boundary) {
		tm->isdst = before.isdst;
		*tp = beforetime;
		return -before.utoff;
	}
	if (beforetime >= boundary && aftertime >= boundary) {
		tm->isdst = after.isdst;
		*tp = aftertime;
		return -after.utoff;
	}
	/* A gap (spring forward) takes "before", an overlap (fall back) "after". */
	if (beforetime > aftertime) {
		tm->isdst = before.isdst;
		*tp = beforetime;
		return -before.utoff;
	}
	tm->isdst = after.isdst;
	*tp = aftertime;
	return -after.utoff;
}

int dt_determine_tz_offset(dt_tm *tm, const ty_timezone *tz)
{
	int64_t t;
	return determine_offset(tm, tz ? tz : dt_tz_utc(), &t);
}

int dt_determine_abbrev_offset(dt_tm *tm, const char *abbr, const ty_timezone *tz)
{
	int64_t t;
	int zone_offset = determine_offset(tm, tz, &t);
	int32_t off;
	bool isdst;
	if (dt_tz_abbrev_offset(tz, t, abbr, &off, &isdst)) {
		tm->isdst = isdst;
		return -off;
	}
	return zone_offset;
}

int dt_determine_abbrev_offset_ts(int64_t ts, const char *abbr, const ty_timezone *tz, int *isdst)
{
	int64_t t = ts / DT_USECS_PER_SEC - (ts % DT_USECS_PER_SEC < 0 ? 1 : 0) +
		    (int64_t)(DT_POSTGRES_EPOCH_JDATE - DT_UNIX_EPOCH_JDATE) * DT_SECS_PER_DAY;
	int32_t off;
	bool dst;
	if (dt_tz_abbrev_offset(tz, t, abbr, &off, &dst)) {
		*isdst = dst;
		return -off;
	}
	dt_ttinfo ti;
	dt_tz_lookup(tz, t, &ti);
	*isdst = ti.isdst;
	return -ti.utoff;
}

/* ---------------------------------------------------------------- GUC helpers */

const ty_timezone *ty_dt_timezone_fixed(int32_t gmtoff)
{
	if (gmtoff <= -168 * 3600 || gmtoff >= 168 * 3600)
		return NULL;
	long a = gmtoff < 0 ? -(long)gmtoff : gmtoff;
	char off[64], name[160];
	snprintf(off, sizeof off, "%02ld", a / 3600);
	a %= 3600;
	if (a) {
		snprintf(off + strlen(off), sizeof off - strlen(off), ":%02ld", a / 60);
		a %= 60;
		if (a)
			snprintf(off + strlen(off), sizeof off - strlen(off), ":%02ld", a);
	}
	/* POSIX offsets count west: UTC+5 is "<+05>-05". */
	if (gmtoff < 0)
		snprintf(name, sizeof name, "<-%s>+%s", off, off);
	else
		snprintf(name, sizeof name, "<+%s>-%s", off, off);
	return dt_tzset(name);
}

const ty_timezone *ty_dt_timezone_for_guc(const char *value, util_err *err)
{
	char *end;
	double hours = strtod(value, &end);
	const ty_timezone *tz;
	if (end != value && *end == '\0') {
		/* SQL sign convention: '-8' is UTC-8. */
		double secs = hours * 3600;
		tz = secs > -1e9 && secs < 1e9 ? ty_dt_timezone_fixed((int32_t)secs) : NULL;
		if (!tz) {
			util_err_set(err, UTIL_E_INVALID_PARAMETER_VALUE,
				     "invalid value for parameter \"TimeZone\": \"%s\"", value);
			util_err_detail(err, "UTC timezone offset is out of range.");
		}
		return tz;
	}
	tz = dt_tzset(value);
	if (!tz) {
		util_err_set(err, UTIL_E_INVALID_PARAMETER_VALUE,
			     "invalid value for parameter \"TimeZone\": \"%s\"", value);
		return NULL;
	}
	if (dt_tz_has_leapsecs(tz)) {
		util_err_set(err, UTIL_E_INVALID_PARAMETER_VALUE,
			     "time zone \"%s\" appears to use leap seconds", value);
		util_err_detail(err, "PostgreSQL does not support leap seconds.");
		return NULL;
	}
	return tz;
}
