/*
 * config.h — server settings from defaults, the config file and the
 * command line (in that order of precedence, later wins).
 */
#ifndef STRATA_SERVER_CONFIG_H
#define STRATA_SERVER_CONFIG_H

#include <stdbool.h>
#include <stddef.h>

#include "util.h"

typedef struct srv_config {
	char listen[256];
	int port;
	char data_dir[1024];
	char config_file[1024];
	char log_level[16];
	char log_file[1024];
	char hba_file[1024];
	char tls_cert[1024];
	char tls_key[1024];
	char tls_ca[1024];
	char unix_socket_dir[1024];
	char store[1024];
	int max_connections;
	int worker_threads;
	long long work_mem_kb;
	long long block_cache_mb;
	bool sync_commit;
	long long history_retention_s;
	int log_min_duration_ms;
	long long memstore_flush_kb; /* test knob, 0 = store default */
	long long wal_segment_kb;    /* test knob, 0 = store default */
} srv_config;

void srv_config_default(srv_config *c);
/* Applies one setting by name ("port", "data_dir" or "data-dir", ...). */
int srv_config_set(srv_config *c, const char *name, const char *value, util_err *err);
/* Reads "name = value" lines ('#' comments, optional quotes). */
int srv_config_load_file(srv_config *c, const char *path, util_err *err);
/* Prints every setting with its default (for --help and docs). */
void srv_config_print_help(const char *prog);

#endif
