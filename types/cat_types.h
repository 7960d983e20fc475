/*
 * cat_types.h — private to types/cat_*.c: the catalog-only types
 * (int2vector, oidvector, aclitem, pg_node_tree, inet) share the array
 * area's internals and register together (ty_catalog_types_register).
 */
#ifndef STRATA_CAT_TYPES_H
#define STRATA_CAT_TYPES_H

#include "arr_int.h"

void ty_register_inet(void);

#endif
