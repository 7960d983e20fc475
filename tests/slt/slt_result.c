/*
 * slt_result.c — turns a server's result into sqllogictest's canonical form:
 * values formatted per column type letter, sorted per the query's sort mode,
 * and hashed ("N values hashing to <md5>") exactly as SQLite's sqllogictest
 * does, so the corpus's expected results compare byte for byte.
 */
#include <errno.h>
#include <math.h>
#include <openssl/evp.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "slt.h"

static char *xstrdup(const char *s)
{
	char *d = strdup(s);
	if (!d) {
		fprintf(stderr, "slt: out of memory\n");
		exit(2);
	}
	return d;
}

/* Integer rendering: the reference driver reads the column as an integer, so
 * reals truncate toward zero and text that is not a number reads as 0. */
static char *format_int(const char *raw)
{
	char buf[64];
	const char *p = raw;
	while (*p == ' ')
		p++;
	char *end;
	errno = 0;
	long long v = strtoll(p, &end, 10);
	if (end != p && *end == '\0' && errno == 0) {
		snprintf(buf, sizeof buf, "%lld", v);
		return xstrdup(buf);
	}
	errno = 0;
	double d = strtod(p, &end);
	if (end == p || isnan(d))
		return xstrdup("0");
	d = trunc(d);
	if (d >= -9.2e18 && d <= 9.2e18)
		snprintf(buf, sizeof buf, "%lld", (long long)d);
	else
		snprintf(buf, sizeof buf, "%.0f", d);
	return xstrdup(buf);
}

static char *format_real(const char *raw)
{
	char buf[512];
	char *end;
	double d = strtod(raw, &end);
	if (end == raw)
		d = 0.0;
	snprintf(buf, sizeof buf, "%.3f", d);
	return xstrdup(buf);
}

static char *format_text(const char *raw)
{
	if (raw[0] == '\0')
		return xstrdup("(empty)");
	char *d = xstrdup(raw);
	for (unsigned char *p = (unsigned char *)d; *p; p++) {
		if (*p < ' ' || *p > '~')
			*p = '@';
	}
	return d;
}

char *slt_format_value(char type, const char *raw, bool is_bool)
{
	if (!raw)
		return xstrdup("NULL");
	if (is_bool && (type == 'I' || type == 'R')) {
		if (strcmp(raw, "t") == 0)
			raw = "1";
		else if (strcmp(raw, "f") == 0)
			raw = "0";
	}
	switch (type) {
	case 'I':
		return format_int(raw);
	case 'R':
		return format_real(raw);
	default:
		return format_text(raw);
	}
}

static int g_ncols; /* qsort has no context argument in C11 */

static int cmp_row(const void *a, const void *b)
{
	char *const *ra = a, *const *rb = b;
	for (int c = 0; c < g_ncols; c++) {
		int r = strcmp(ra[c], rb[c]);
		if (r)
			return r;
	}
	return 0;
}

static int cmp_value(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

void slt_result_sort(slt_result *r, slt_sort mode)
{
	size_t n = (size_t)r->n_rows * (size_t)r->n_cols;
	if (n == 0)
		return;
	if (mode == SLT_VALUESORT) {
		qsort(r->vals, n, sizeof(char *), cmp_value);
	} else if (mode == SLT_ROWSORT) {
		g_ncols = r->n_cols;
		qsort(r->vals, (size_t)r->n_rows, sizeof(char *) * (size_t)r->n_cols, cmp_row);
	}
}

void slt_result_hash(const slt_result *r, char *out)
{
	size_t n = (size_t)r->n_rows * (size_t)r->n_cols;
	unsigned char md[EVP_MAX_MD_SIZE];
	unsigned int mdlen = 0;
	EVP_MD_CTX *ctx = EVP_MD_CTX_new();
	if (!ctx || EVP_DigestInit_ex(ctx, EVP_md5(), NULL) != 1) {
		fprintf(stderr, "slt: MD5 unavailable\n");
		exit(2);
	}
	for (size_t i = 0; i < n; i++) {
		EVP_DigestUpdate(ctx, r->vals[i], strlen(r->vals[i]));
		EVP_DigestUpdate(ctx, "\n", 1);
	}
	EVP_DigestFinal_ex(ctx, md, &mdlen);
	EVP_MD_CTX_free(ctx);
	int w = snprintf(out, 80, "%zu values hashing to ", n);
	for (unsigned int i = 0; i < mdlen && w + 2 < 80; i++)
		w += snprintf(out + w, (size_t)(80 - w), "%02x", md[i]);
}

bool slt_is_hash_line(const char *line)
{
	const char *p = line;
	if (*p < '0' || *p > '9')
		return false;
	while (*p >= '0' && *p <= '9')
		p++;
	static const char mid[] = " values hashing to ";
	if (strncmp(p, mid, sizeof mid - 1) != 0)
		return false;
	p += sizeof mid - 1;
	int hex = 0;
	for (; *p; p++, hex++) {
		if (!((*p >= '0' && *p <= '9') || (*p >= 'a' && *p <= 'f')))
			return false;
	}
	return hex == 32;
}

void slt_result_free(slt_result *r)
{
	size_t n = (size_t)r->n_rows * (size_t)r->n_cols;
	for (size_t i = 0; i < n; i++)
		free(r->vals[i]);
	free(r->vals);
	r->vals = NULL;
	r->n_rows = r->n_cols = 0;
}
