/*
 * sqlt_util.h — what the sql module's unit tests share (sqlt_util.c).
 */
#ifndef SQLT_UTIL_H
#define SQLT_UTIL_H

#include "sql_int.h"

/* A cmocka setup: the types initialised and a fresh arena made current
 * (returned; sqlt_arena_teardown destroys it). */
util_arena *sqlt_arena_setup(void **state);
int sqlt_arena_teardown(void **state, util_arena *a);

#endif
