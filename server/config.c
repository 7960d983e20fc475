/* config.c — the server's settings table: one row per setting gives its
 * name, type, default and help text, used by the config file, the command
 * line and --help alike. */
#include "config.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef enum { T_STR, T_INT, T_LL, T_BOOL, T_MS } setting_type; /* T_MS: int, -1 = off */

typedef struct setting {
	const char *name;
	setting_type type;
	size_t offset;
	size_t size; /* for strings */
	const char *def;
	const char *help;
} setting;

#define S(name, field, def, help) {name, T_STR, offsetof(srv_config, field), sizeof(((srv_config *)0)->field), def, help}
#define I(name, field, def, help) {name, T_INT, offsetof(srv_config, field), 0, def, help}
#define L(name, field, def, help) {name, T_LL, offsetof(srv_config, field), 0, def, help}
#define B(name, field, def, help) {name, T_BOOL, offsetof(srv_config, field), 0, def, help}
#define M(name, field, def, help) {name, T_MS, offsetof(srv_config, field), 0, def, help}

static const setting settings[] = {
	S("listen", listen, "127.0.0.1", "address to listen on (\"*\" = all interfaces)"),
	I("port", port, "5433", "TCP port"),
	S("data_dir", data_dir, "./strata-data", "data directory (created and initialised on first start)"),
	S("log_level", log_level, "info", "debug, info, warning, error"),
	S("log_file", log_file, "", "append the log to this file instead of stderr"),
	S("hba_file", hba_file, "", "host-based authentication rules (docs/wire.md); default: trust on loopback"),
	S("tls_cert", tls_cert, "", "TLS certificate (PEM); enables SSL with tls_key"),
	S("tls_key", tls_key, "", "TLS private key (PEM)"),
	S("tls_ca", tls_ca, "", "CA bundle for client certificates (optional)"),
	S("unix_socket_dir", unix_socket_dir, "", "directory for a Unix-domain socket (empty = none)"),
	S("store", store, "", "kv backend URI: etcd://host:port,host:port[/prefix] keeps the data in an etcd v3 cluster shared by several servers; etcds://...?cacert=&cert=&key=&user=&password_file= for TLS and etcd authentication (docs/scale-out.md; empty = embedded store in data_dir)"),
	I("max_connections", max_connections, "200", "maximum concurrent client connections"),
	M("worker_threads", worker_threads, "0",
	  "threads that run the sessions' statements, more while some block (0 = one per core, -1 = a thread per connection)"),
	L("work_mem_kb", work_mem_kb, "4096", "memory per sort/hash operator before spilling, in kB"),
	L("block_cache_mb", block_cache_mb, "0",
	  "block cache size, in MB (0 = an eighth of the memory the server may use, at least 256 MB)"),
	B("sync_commit", sync_commit, "on", "fsync the log before acknowledging a commit"),
	L("history_retention", history_retention_s, "3600",
	  "seconds of history kept for time travel and incremental backups (a table's retention option overrides)"),
	M("log_min_duration_statement", log_min_duration_ms, "-1",
	  "log statements that run at least this many milliseconds (-1 = off, 0 = all)"),
	L("memstore_flush_kb", memstore_flush_kb, "0", "tests: flush a table's memstore at this size in kB (0 = 64 MB)"),
	L("wal_segment_kb", wal_segment_kb, "0", "tests: start a new log segment at this size in kB (0 = 64 MB)"),
};

static const setting *find(const char *name)
{
	char norm[64];
	size_t n = strlen(name);
	if (n >= sizeof norm)
		return NULL;
	for (size_t i = 0; i <= n; i++)
		norm[i] = name[i] == '-' ? '_' : name[i];
	for (size_t i = 0; i < UTIL_ARRAY_LEN(settings); i++)
		if (strcmp(settings[i].name, norm) == 0)
			return &settings[i];
	return NULL;
}

static int parse_bool(const char *v, bool *out)
{
	if (!util_strcasecmp(v, "on") || !util_strcasecmp(v, "true") || !util_strcasecmp(v, "yes") ||
	    !strcmp(v, "1"))
		*out = true;
	else if (!util_strcasecmp(v, "off") || !util_strcasecmp(v, "false") || !util_strcasecmp(v, "no") ||
		 !strcmp(v, "0"))
		*out = false;
	else
		return -1;
	return 0;
}

int srv_config_set(srv_config *c, const char *name, const char *value, util_err *err)
{
	const setting *s = find(name);
	if (!s)
		return util_err_set(err, UTIL_E_UNDEFINED_OBJECT, "unrecognized configuration parameter \"%s\"", name);
	char *field = (char *)c + s->offset;
	char *end;
	switch (s->type) {
	case T_STR:
		if (strlen(value) >= s->size)
			return util_err_set(err, UTIL_E_INVALID_PARAMETER_VALUE, "value for \"%s\" is too long", name);
		strcpy(field, value);
		return 0;
	case T_INT:
	case T_LL: {
		errno = 0;
		long long v = strtoll(value, &end, 10);
		if (errno || end == value || *end || v < 0 || (s->type == T_INT && v > 1000000000))
			return util_err_set(err, UTIL_E_INVALID_PARAMETER_VALUE,
					    "invalid value for parameter \"%s\": \"%s\"", s->name, value);
		if (s->type == T_INT)
			*(int *)field = (int)v;
		else
			*(long long *)field = v;
		return 0;
	}
	case T_MS: {
		errno = 0;
		long long v = strtoll(value, &end, 10);
		if (errno || end == value || *end || v < -1 || v > 2147483647)
			return util_err_set(err, UTIL_E_INVALID_PARAMETER_VALUE,
					    "invalid value for parameter \"%s\": \"%s\"", s->name, value);
		*(int *)field = (int)v;
		return 0;
	}
	case T_BOOL:
		if (parse_bool(value, (bool *)field) != 0)
			return util_err_set(err, UTIL_E_INVALID_PARAMETER_VALUE,
					    "parameter \"%s\" requires a Boolean value", s->name);
		return 0;
	}
	return 0;
}

void srv_config_default(srv_config *c)
{
	memset(c, 0, sizeof *c);
	for (size_t i = 0; i < UTIL_ARRAY_LEN(settings); i++)
		srv_config_set(c, settings[i].name, settings[i].def, NULL);
}

static char *trim(char *s)
{
	while (*s == ' ' || *s == '\t')
		s++;
	char *e = s + strlen(s);
	while (e > s && (e[-1] == ' ' || e[-1] == '\t' || e[-1] == '\n' || e[-1] == '\r'))
		*--e = '\0';
	return s;
}

int srv_config_load_file(srv_config *c, const char *path, util_err *err)
{
	FILE *f = fopen(path, "r");
	if (!f)
		return util_err_set(err, UTIL_E_CONFIG_FILE_ERROR, "could not open configuration file \"%s\": %s",
				    path, strerror(errno));
	char line[2048];
	int lineno = 0, rc = 0;
	while (fgets(line, sizeof line, f)) {
		lineno++;
		char *hash = strchr(line, '#');
		if (hash)
			*hash = '\0';
		char *s = trim(line);
		if (!*s)
			continue;
		char *eq = strchr(s, '=');
		if (!eq) {
			rc = util_err_set(err, UTIL_E_CONFIG_FILE_ERROR, "syntax error in file \"%s\" line %d", path,
					  lineno);
			break;
		}
		*eq = '\0';
		char *name = trim(s), *value = trim(eq + 1);
		size_t vl = strlen(value);
		if (vl >= 2 && (value[0] == '\'' || value[0] == '"') && value[vl - 1] == value[0]) {
			value[vl - 1] = '\0';
			value++;
		}
		if (srv_config_set(c, name, value, err) != 0) {
			util_err_context(err, "line %d of configuration file \"%s\"", lineno, path);
			rc = -1;
			break;
		}
	}
	fclose(f);
	return rc;
}

void srv_config_print_help(const char *prog)
{
	printf("strata %s — a PostgreSQL-compatible SQL server on an ordered key-value store\n\n", STRATA_VERSION);
	printf("Usage: %s [OPTION]...\n\nOptions (each also settable as \"name = value\" in the --config file):\n",
	       prog);
	for (size_t i = 0; i < UTIL_ARRAY_LEN(settings); i++) {
		char flag[64];
		snprintf(flag, sizeof flag, "--%s", settings[i].name);
		for (char *p = flag + 2; *p; p++)
			if (*p == '_')
				*p = '-';
		printf("  %-22s %s (default: %s)\n", flag, settings[i].help, *settings[i].def ? settings[i].def : "none");
	}
	printf("  %-22s %s\n", "--config FILE", "read settings from FILE first");
	printf("  %-22s %s\n", "--help", "show this help and exit");
	printf("  %-22s %s\n", "--version", "show the version and exit");
	printf("\nConnect with: psql -h 127.0.0.1 -p 5433 -U postgres\n");
}
