/* hba.c — host-based authentication rules: parsing the pg_hba.conf-style file (format in
 * docs/wire.md) and choosing the method for a connection by its first matching line. */
#include "pgw_int.h"

#include <arpa/inet.h>
#include <errno.h>
#include <ifaddrs.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef enum conn_type {
	CT_LOCAL,
	CT_HOST,
	CT_HOSTSSL,
	CT_HOSTNOSSL,
	CT_HOSTGSSENC,
	CT_HOSTNOGSSENC
} conn_type;
typedef enum addr_kind { AK_ALL, AK_CIDR, AK_SAMEHOST, AK_SAMENET } addr_kind;

/* One name of a database or user list; `keyword` is set for unquoted
 * all / sameuser / replication. */
typedef struct hba_name {
	char *name;
	bool quoted;
} hba_name;

typedef struct hba_rule {
	int line;
	conn_type type;
	hba_name *dbs;
	int ndbs;
	hba_name *users;
	int nusers;
	addr_kind ak;
	int family; /* AF_INET / AF_INET6 for AK_CIDR */
	uint8_t addr[16], mask[16];
	pgw_auth_method method;
} hba_rule;

struct pgw_hba {
	hba_rule *rules;
	int n;
};

/* ------------------------------------------------------------ tokenizer */

typedef struct tok {
	char *s;
	bool quoted;
} tok;

/* A field is a comma-separated list of tokens. */
typedef struct field {
	tok *t;
	int n;
} field;

static bool is_space(char c)
{
	return c == ' ' || c == '\t' || c == '\r' || c == '\n' || c == '\f' || c == '\v';
}

/* Reads one token at *pp (quoted with "", a doubled "" inside is a quote);
 * returns 0, or -1 on an unterminated quote. */
static int read_token(const char **pp, tok *out)
{
	const char *p = *pp;
	util_buf b = UTIL_BUF_INIT;
	out->quoted = false;
	util_buf_reserve(&b, 16);
	b.data[0] = '\0';
	while (*p && !is_space(*p) && *p != ',' && *p != '#') {
		if (*p == '"') {
			out->quoted = true;
			p++;
			for (;;) {
				if (!*p) {
					util_buf_free(&b);
					return -1;
				}
				if (*p == '"') {
					if (p[1] == '"') {
						util_buf_putc(&b, '"');
						p += 2;
						continue;
					}
					p++;
					break;
				}
				util_buf_putc(&b, *p++);
			}
			continue;
		}
		util_buf_putc(&b, *p++);
	}
	*pp = p;
	out->s = b.data;
	return 0;
}

static void fields_free(field *f, int n)
{
	for (int i = 0; i < n; i++) {
		for (int j = 0; j < f[i].n; j++)
			free(f[i].t[j].s);
		free(f[i].t);
	}
	free(f);
}

/* Splits a line into fields; comments run from an unquoted # to the end. */
static int split_line(const char *line, field **out, int *nout)
{
	field *f = NULL;
	int n = 0;
	const char *p = line;
	for (;;) {
		while (is_space(*p))
			p++;
		if (!*p || *p == '#')
			break;
		f = util_xrealloc(f, sizeof *f * (size_t)(n + 1));
		field *cur = &f[n++];
		cur->t = NULL;
		cur->n = 0;
		for (;;) {
			tok t;
			if (read_token(&p, &t) < 0) {
				fields_free(f, n);
				return -1;
			}
			cur->t = util_xrealloc(cur->t, sizeof *cur->t * (size_t)(cur->n + 1));
			cur->t[cur->n++] = t;
			if (*p != ',')
				break;
			p++;
			while (is_space(*p))
				p++;
		}
	}
	*out = f;
	*nout = n;
	return 0;
}

/* ------------------------------------------------------------ rules */

static int parse_addr(const char *s, int *family, uint8_t addr[16])
{
	struct in_addr a4;
	struct in6_addr a6;
	memset(addr, 0, 16);
	if (inet_pton(AF_INET, s, &a4) == 1) {
		*family = AF_INET;
		memcpy(addr, &a4, 4);
		return 0;
	}
	if (inet_pton(AF_INET6, s, &a6) == 1) {
		*family = AF_INET6;
		memcpy(addr, &a6, 16);
		return 0;
	}
	return -1;
}

static void prefix_mask(int bits, int family, uint8_t mask[16])
{
	int len = family == AF_INET ? 4 : 16;
	memset(mask, 0, 16);
	for (int i = 0; i < len; i++) {
		int b = bits - i * 8;
		mask[i] = b >= 8 ? 0xff : b <= 0 ? 0 : (uint8_t)(0xff << (8 - b));
	}
}

static const struct {
	const char *name;
	pgw_auth_method m;
} methods[] = {
    {"trust", PGW_AUTH_TRUST}, {"reject", PGW_AUTH_REJECT},       {"password", PGW_AUTH_PASSWORD},
    {"md5", PGW_AUTH_MD5},     {"scram-sha-256", PGW_AUTH_SCRAM}, {"peer", PGW_AUTH_PEER},
};

const char *pgw_auth_method_name(pgw_auth_method m)
{
	for (size_t i = 0; i < UTIL_ARRAY_LEN(methods); i++)
		if (methods[i].m == m)
			return methods[i].name;
	return "none";
}

static int copy_names(field *f, hba_name **out, int *nout, bool is_user, char *why, size_t whylen)
{
	*out = util_xcalloc((size_t)f->n, sizeof **out);
	*nout = f->n;
	for (int i = 0; i < f->n; i++) {
		const tok *t = &f->t[i];
		if (!t->quoted && t->s[0] == '@') {
			snprintf(why, whylen, "@file inclusion is not supported");
			return -1;
		}
		if (!t->quoted && is_user && t->s[0] == '+') {
			snprintf(why, whylen, "role membership (+role) is not supported");
			return -1;
		}
		if (!t->quoted && !is_user &&
		    (strcmp(t->s, "samerole") == 0 || strcmp(t->s, "samegroup") == 0)) {
			snprintf(why, whylen, "\"%s\" is not supported", t->s);
			return -1;
		}
		if (!t->s[0]) {
			snprintf(why, whylen, "empty %s name", is_user ? "user" : "database");
			return -1;
		}
		(*out)[i].name = util_xstrdup(t->s);
		(*out)[i].quoted = t->quoted;
	}
	return 0;
}

static void rule_free(hba_rule *r)
{
	for (int i = 0; i < r->ndbs; i++)
		free(r->dbs[i].name);
	for (int i = 0; i < r->nusers; i++)
		free(r->users[i].name);
	free(r->dbs);
	free(r->users);
}

/* Parses one non-empty line's fields into r; on failure writes why. */
static int parse_rule(field *f, int n, hba_rule *r, char *why, size_t whylen)
{
	memset(r, 0, sizeof *r);
	for (int i = 0; i < n; i++)
		if (f[i].n > 1 && i != 1 && i != 2) {
			snprintf(why, whylen, "multiple values in a field other than database or user");
			return -1;
		}
	const char *type = f[0].t[0].s;
	static const struct {
		const char *name;
		conn_type t;
	} types[] = {{"local", CT_LOCAL},           {"host", CT_HOST},
		     {"hostssl", CT_HOSTSSL},       {"hostnossl", CT_HOSTNOSSL},
		     {"hostgssenc", CT_HOSTGSSENC}, {"hostnogssenc", CT_HOSTNOGSSENC}};
	size_t ti;
	for (ti = 0; ti < UTIL_ARRAY_LEN(types); ti++)
		if (strcmp(type, types[ti].name) == 0)
			break;
	if (ti == UTIL_ARRAY_LEN(types)) {
		snprintf(why, whylen, "invalid connection type \"%s\"", type);
		return -1;
	}
	r->type = types[ti].t;
	int need = r->type == CT_LOCAL ? 4 : 5;
	if (n < need) {
		snprintf(why, whylen, "end-of-line before %s",
			 n < 2                ? "database specification"
			 : n < 3              ? "role specification"
			 : need == 5 && n < 4 ? "IP address specification"
					      : "authentication method");
		return -1;
	}
	if (copy_names(&f[1], &r->dbs, &r->ndbs, false, why, whylen) < 0 ||
	    copy_names(&f[2], &r->users, &r->nusers, true, why, whylen) < 0)
		return -1;
	int mi = 3;
	if (r->type != CT_LOCAL) {
		const char *a = f[3].t[0].s;
		bool quoted = f[3].t[0].quoted;
		mi = 4;
		if (!quoted && strcmp(a, "all") == 0) {
			r->ak = AK_ALL;
		} else if (!quoted && strcmp(a, "samehost") == 0) {
			r->ak = AK_SAMEHOST;
		} else if (!quoted && strcmp(a, "samenet") == 0) {
			r->ak = AK_SAMENET;
		} else {
			r->ak = AK_CIDR;
			char buf[128];
			snprintf(buf, sizeof buf, "%s", a);
			char *slash = strchr(buf, '/');
			if (slash)
				*slash = '\0';
			if (parse_addr(buf, &r->family, r->addr) < 0) {
				snprintf(why, whylen,
					 "invalid IP address \"%s\" (host names are not supported)", buf);
				return -1;
			}
			int maxbits = r->family == AF_INET ? 32 : 128;
			if (slash) {
				char *end;
				errno = 0;
				long bits = strtol(slash + 1, &end, 10);
				if (*end || end == slash + 1 || bits < 0 || bits > maxbits || errno) {
					snprintf(why, whylen, "invalid CIDR mask in address \"%s\"", a);
					return -1;
				}
				prefix_mask((int)bits, r->family, r->mask);
			} else {
				/* "address mask" in two fields */
				if (n < 6) {
					snprintf(why, whylen, "end-of-line before netmask specification");
					return -1;
				}
				int mf;
				if (parse_addr(f[4].t[0].s, &mf, r->mask) < 0 || mf != r->family) {
					snprintf(why, whylen, "invalid IP mask \"%s\"", f[4].t[0].s);
					return -1;
				}
				mi = 5;
			}
			for (int i = 0; i < 16; i++)
				r->addr[i] &= r->mask[i];
		}
	}
	if (mi >= n) {
		snprintf(why, whylen, "end-of-line before authentication method");
		return -1;
	}
	const char *m = f[mi].t[0].s;
	size_t k;
	for (k = 0; k < UTIL_ARRAY_LEN(methods); k++)
		if (strcmp(m, methods[k].name) == 0)
			break;
	if (k == UTIL_ARRAY_LEN(methods)) {
		snprintf(why, whylen, "invalid or unsupported authentication method \"%s\"", m);
		return -1;
	}
	r->method = methods[k].m;
	if (r->method == PGW_AUTH_PEER && r->type != CT_LOCAL) {
		snprintf(why, whylen, "peer authentication is only supported on local sockets");
		return -1;
	}
	if (mi + 1 < n) {
		snprintf(why, whylen, "authentication option \"%s\" is not supported", f[mi + 1].t[0].s);
		return -1;
	}
	return 0;
}

int pgw_hba_parse(const char *text, const char *source, pgw_hba **out, util_err *err)
{
	pgw_hba *h = util_xcalloc(1, sizeof *h);
	const char *p = text;
	int lineno = 0;
	while (*p) {
		lineno++;
		const char *nl = strchr(p, '\n');
		size_t len = nl ? (size_t)(nl - p) : strlen(p);
		char *line = util_xmalloc(len + 1);
		memcpy(line, p, len);
		line[len] = '\0';
		p += len + (nl ? 1 : 0);
		field *f;
		int n;
		char why[256];
		int rc = split_line(line, &f, &n);
		free(line);
		if (rc < 0) {
			snprintf(why, sizeof why, "unterminated quoted string");
			goto bad;
		}
		if (n == 0) {
			free(f);
			continue;
		}
		h->rules = util_xrealloc(h->rules, sizeof *h->rules * (size_t)(h->n + 1));
		hba_rule *r = &h->rules[h->n];
		rc = parse_rule(f, n, r, why, sizeof why);
		fields_free(f, n);
		if (rc < 0) {
			rule_free(r);
			goto bad;
		}
		r->line = lineno;
		h->n++;
		continue;
	bad:
		pgw_hba_free(h);
		return util_err_set(err, UTIL_E_CONFIG_FILE_ERROR, "%s:%d: %s", source, lineno, why);
	}
	*out = h;
	return 0;
}

int pgw_hba_load(const char *path, pgw_hba **out, util_err *err)
{
	FILE *fp = fopen(path, "r");
	if (!fp)
		return util_err_set(err, UTIL_E_CONFIG_FILE_ERROR, "could not open hba file \"%s\": %s", path,
				    strerror(errno));
	util_buf b = UTIL_BUF_INIT;
	char chunk[4096];
	size_t n;
	while ((n = fread(chunk, 1, sizeof chunk, fp)) > 0)
		util_buf_append(&b, chunk, n);
	bool bad = ferror(fp);
	fclose(fp);
	if (bad) {
		util_buf_free(&b);
		return util_err_set(err, UTIL_E_CONFIG_FILE_ERROR, "could not read hba file \"%s\"", path);
	}
	int rc = pgw_hba_parse(b.data ? b.data : "", path, out, err);
	util_buf_free(&b);
	return rc;
}

pgw_hba *pgw_hba_default(void)
{
	pgw_hba *h = NULL;
	util_err err;
	static const char rules[] = "local all all trust\n"
				    "host all all 127.0.0.0/8 trust\n"
				    "host all all ::1/128 trust\n"
				    "host all all all scram-sha-256\n";
	UTIL_ASSERT(pgw_hba_parse(rules, "default", &h, &err) == 0, "%s", err.message);
	return h;
}

void pgw_hba_free(pgw_hba *h)
{
	if (!h)
		return;
	for (int i = 0; i < h->n; i++)
		rule_free(&h->rules[i]);
	free(h->rules);
	free(h);
}

/* ------------------------------------------------------------ matching */

static bool name_match(const hba_name *names, int n, const char *value, const char *user, bool is_db)
{
	for (int i = 0; i < n; i++) {
		const hba_name *x = &names[i];
		if (!x->quoted) {
			if (strcmp(x->name, "all") == 0)
				return true;
			if (is_db && strcmp(x->name, "sameuser") == 0) {
				if (strcmp(value, user) == 0)
					return true;
				continue;
			}
			if (is_db && strcmp(x->name, "replication") == 0)
				continue; /* replication connections are never made */
		}
		if (strcmp(x->name, value) == 0)
			return true;
	}
	return false;
}

static int sockaddr_bytes(const struct sockaddr *sa, uint8_t out[16])
{
	memset(out, 0, 16);
	if (sa->sa_family == AF_INET) {
		memcpy(out, &((const struct sockaddr_in *)sa)->sin_addr, 4);
		return AF_INET;
	}
	if (sa->sa_family == AF_INET6) {
		const struct in6_addr *a6 = &((const struct sockaddr_in6 *)sa)->sin6_addr;
		if (IN6_IS_ADDR_V4MAPPED(a6)) {
			memcpy(out, (const uint8_t *)a6 + 12, 4);
			return AF_INET;
		}
		memcpy(out, a6, 16);
		return AF_INET6;
	}
	return -1;
}

static bool masked_eq(const uint8_t *a, const uint8_t *b, const uint8_t *mask)
{
	for (int i = 0; i < 16; i++)
		if ((a[i] & mask[i]) != (b[i] & mask[i]))
			return false;
	return true;
}

/* samehost / samenet: compare with the addresses of this machine's interfaces. */
static bool iface_match(int family, const uint8_t *client, bool net)
{
	struct ifaddrs *ifs;
	if (getifaddrs(&ifs) < 0)
		return false;
	bool hit = false;
	for (struct ifaddrs *i = ifs; i && !hit; i = i->ifa_next) {
		if (!i->ifa_addr)
			continue;
		uint8_t a[16], m[16];
		if (sockaddr_bytes(i->ifa_addr, a) != family)
			continue;
		if (net && i->ifa_netmask) {
			sockaddr_bytes(i->ifa_netmask, m);
		} else {
			memset(m, 0xff, sizeof m);
		}
		hit = masked_eq(a, client, m);
	}
	freeifaddrs(ifs);
	return hit;
}

static bool addr_match(const hba_rule *r, const struct sockaddr *sa)
{
	if (r->ak == AK_ALL)
		return true;
	uint8_t a[16];
	int fam = sockaddr_bytes(sa, a);
	if (fam < 0)
		return false;
	if (r->ak == AK_SAMEHOST || r->ak == AK_SAMENET)
		return iface_match(fam, a, r->ak == AK_SAMENET);
	return fam == r->family && masked_eq(a, r->addr, r->mask);
}

pgw_auth_method pgw_hba_match(const pgw_hba *h, const pgw_hba_client *c, int *line)
{
	*line = 0;
	for (int i = 0; i < h->n; i++) {
		const hba_rule *r = &h->rules[i];
		if (c->local != (r->type == CT_LOCAL))
			continue;
		if ((r->type == CT_HOSTSSL && !c->ssl) || (r->type == CT_HOSTNOSSL && c->ssl) ||
		    r->type == CT_HOSTGSSENC)
			continue;
		if (!c->local && !addr_match(r, c->addr))
			continue;
		if (!name_match(r->dbs, r->ndbs, c->database, c->user, true) ||
		    !name_match(r->users, r->nusers, c->user, c->user, false))
			continue;
		*line = r->line;
		return r->method;
	}
	return PGW_AUTH_NO_MATCH;
}
