/*
 * etcd_inspect.h — strata-kv's commands on an etcd store URI
 * (etcd_inspect.c), and the printing helpers of strata_kv.c they share.
 */
#ifndef STRATA_KV_ETCD_INSPECT_H
#define STRATA_KV_ETCD_INSPECT_H

#include <stddef.h>
#include <stdint.h>

/* strata_kv.c: prints bytes readably (\xNN for the rest), at most max. */
void kvtool_print_bytes(const uint8_t *p, size_t n, size_t max);
/* strata_kv.c: a cell type's name ("Put", "Delete", ...). */
const char *kvtool_type_name(int t);

/* argv[1] the command, argv[2] the URI; returns the exit status (0 ok, 1
 * problems found, 2 usage or I/O error). */
int etcd_inspect_main(int argc, char **argv);

#endif
