/* startup.c — parsing of startup-phase packets: StartupMessage (protocol version, user, database,
 * settings, "options" switches), SSLRequest, GSSENCRequest and CancelRequest. */
#include "pgw_int.h"

#include <stdlib.h>
#include <string.h>

/* Room for settings; a 10000-byte packet holds at most ~5000 pairs. */
typedef struct strvec {
	const char **v;
	int n, cap;
} strvec;

static void vec_push(util_arena *a, strvec *s, const char *x)
{
	if (s->n == s->cap) {
		int cap = s->cap ? s->cap * 2 : 16;
		const char **v = util_arena_alloc(a, sizeof *v * (size_t)cap);
		if (s->n)
			memcpy(v, s->v, sizeof *v * (size_t)s->n);
		s->v = v;
		s->cap = cap;
	}
	s->v[s->n++] = x;
}

/* Splits "options" like pg_split_opts(): whitespace separates words, a
 * backslash makes the next character literal. */
static int split_words(util_arena *a, const char *s, strvec *out)
{
	size_t n = strlen(s);
	char *buf = util_arena_alloc(a, n + 1);
	for (size_t i = 0; i < n;) {
		while (i < n && (s[i] == ' ' || s[i] == '\t' || s[i] == '\n' || s[i] == '\r' ||
				 s[i] == '\f' || s[i] == '\v'))
			i++;
		if (i >= n)
			break;
		char *w = buf;
		size_t o = 0;
		while (i < n && !(s[i] == ' ' || s[i] == '\t' || s[i] == '\n' || s[i] == '\r' ||
				  s[i] == '\f' || s[i] == '\v')) {
			if (s[i] == '\\' && i + 1 < n)
				i++;
			w[o++] = s[i++];
		}
		w[o] = '\0';
		buf += o + 1;
		vec_push(a, out, w);
	}
	return 0;
}

/* "name=value" of a -c or -- switch: the name's dashes become underscores
 * (ParseLongOption). */
static int long_option(util_arena *a, const char *arg, const char *flag, strvec *names, strvec *values,
		       util_err *err)
{
	const char *eq = strchr(arg, '=');
	if (!eq)
		return util_err_set(err, UTIL_E_SYNTAX_ERROR, "%s%s requires a value", flag, arg);
	char *name = util_arena_strndup(a, arg, (size_t)(eq - arg));
	for (char *p = name; *p; p++)
		if (*p == '-')
			*p = '_';
	vec_push(a, names, name);
	vec_push(a, values, util_arena_strdup(a, eq + 1));
	return 0;
}

/* The switches of the "options" parameter that a session may use: -c
 * name=value, -cname=value and --name=value. Anything else is an error. */
static int parse_options(util_arena *a, const char *opts, strvec *names, strvec *values, util_err *err)
{
	strvec w = {0};
	split_words(a, opts, &w);
	for (int i = 0; i < w.n; i++) {
		const char *x = w.v[i];
		if (strcmp(x, "-c") == 0) {
			if (i + 1 >= w.n)
				return util_err_set(err, UTIL_E_SYNTAX_ERROR,
						    "option requires an argument -- 'c'");
			if (long_option(a, w.v[++i], "-c ", names, values, err) < 0)
				return -1;
		} else if (strncmp(x, "-c", 2) == 0) {
			if (long_option(a, x + 2, "-c ", names, values, err) < 0)
				return -1;
		} else if (strncmp(x, "--", 2) == 0 && x[2]) {
			if (long_option(a, x + 2, "--", names, values, err) < 0)
				return -1;
		} else {
			util_err_set(err, UTIL_E_SYNTAX_ERROR,
				     "invalid command-line argument for server process: %s", x);
			util_err_hint(err, "Try \"postgres --help\" for more information.");
			return -1;
		}
	}
	return 0;
}

/* PostgreSQL's parse_bool for the replication parameter. */
static int parse_bool(const char *s, bool *out)
{
	static const char *const yes[] = {"true", "yes", "on", "1", "t", "y"};
	static const char *const no[] = {"false", "no", "off", "0", "f", "n"};
	for (size_t i = 0; i < UTIL_ARRAY_LEN(yes); i++) {
		if (util_strcasecmp(s, yes[i]) == 0) {
			*out = true;
			return 0;
		}
		if (util_strcasecmp(s, no[i]) == 0) {
			*out = false;
			return 0;
		}
	}
	return -1;
}

static void truncate_name(char *s)
{
	if (strlen(s) >= PGW_NAMEDATALEN)
		s[PGW_NAMEDATALEN - 1] = '\0';
}

int pgw_startup_parse(const uint8_t *body, size_t len, pgw_startup *out, util_err *err)
{
	memset(out, 0, sizeof *out);
	util_err_clear(&out->options_err);
	if (len < 4 || len > PGW_MAX_STARTUP_PACKET)
		return util_err_set(err, UTIL_E_PROTOCOL_VIOLATION, "invalid length of startup packet");
	out->version = util_get_be32(body);
	switch (out->version) {
	case PGW_CANCEL_CODE:
		if (len != 12)
			return util_err_set(err, UTIL_E_PROTOCOL_VIOLATION,
					    "invalid length of cancel request");
		out->kind = PGW_SP_CANCEL;
		out->cancel_pid = (int32_t)util_get_be32(body + 4);
		out->cancel_key = (int32_t)util_get_be32(body + 8);
		return 0;
	case PGW_SSL_CODE:
		out->kind = PGW_SP_SSL;
		return 0;
	case PGW_GSSENC_CODE:
		out->kind = PGW_SP_GSSENC;
		return 0;
	}
	unsigned major = out->version >> 16, minor = out->version & 0xffff;
	if (major != 3)
		return util_err_set(err, UTIL_E_FEATURE_NOT_SUPPORTED,
				    "unsupported frontend protocol %u.%u: server supports 3.0 to 3.0", major,
				    minor);

	out->mem = util_arena_new(4096, 0);
	util_arena *a = out->mem;
	/* A private copy with a NUL past the end, so every string ends inside. */
	char *buf = util_arena_alloc(a, len + 1);
	memcpy(buf, body, len);
	buf[len] = '\0';
	strvec names = {0}, values = {0}, unknown = {0};
	size_t off = 4;
	while (off < len) {
		char *name = buf + off;
		if (!*name)
			break; /* the terminator */
		size_t voff = off + strlen(name) + 1;
		if (voff >= len)
			break; /* a name without a value: reported below */
		char *val = buf + voff;
		if (strcmp(name, "user") == 0) {
			out->user = val;
		} else if (strcmp(name, "database") == 0) {
			out->database = val;
		} else if (strcmp(name, "options") == 0) {
			if (!out->options_bad &&
			    parse_options(a, val, &names, &values, &out->options_err) < 0)
				out->options_bad = true;
		} else if (strcmp(name, "replication") == 0) {
			bool on;
			if (strcmp(val, "database") == 0 || (parse_bool(val, &on) == 0 && on))
				return util_err_set(err, UTIL_E_FEATURE_NOT_SUPPORTED,
						    "replication connections are not supported");
			if (parse_bool(val, &on) < 0) {
				util_err_set(err, UTIL_E_INVALID_PARAMETER_VALUE,
					     "invalid value for parameter \"replication\": \"%s\"", val);
				util_err_hint(
				    err,
				    "Valid values are: \"false\", \"0\", \"true\", \"1\", \"database\".");
				return -1;
			}
		} else if (strncmp(name, "_pq_.", 5) == 0) {
			vec_push(a, &unknown, name);
		} else {
			vec_push(a, &names, name);
			vec_push(a, &values, val);
		}
		off = voff + strlen(val) + 1;
	}
	if (off != len - 1)
		return util_err_set(err, UTIL_E_PROTOCOL_VIOLATION,
				    "invalid startup packet layout: expected terminator as last byte");
	if (!out->user || !*out->user)
		return util_err_set(err, UTIL_E_INVALID_AUTHORIZATION_SPECIFICATION,
				    "no PostgreSQL user name specified in startup packet");
	if (!out->database || !*out->database)
		out->database = out->user;
	truncate_name((char *)out->user);
	truncate_name((char *)out->database);
	out->kind = PGW_SP_STARTUP;
	out->nparams = names.n;
	out->names = names.v;
	out->values = values.v;
	out->nunknown = unknown.n;
	out->unknown = unknown.v;
	return 0;
}

void pgw_startup_free(pgw_startup *s)
{
	if (s->mem)
		util_arena_destroy(s->mem);
	s->mem = NULL;
}
