/*
 * sqlt_util.c — helpers the sql module's unit tests share (linked into each).
 */
#include "sqlt_util.h"

util_arena *sqlt_arena_setup(void **state)
{
	(void)state;
	ty_init();
	util_arena *a = util_arena_new(1 << 16, 0);
	ty_set_arena(a);
	return a;
}

int sqlt_arena_teardown(void **state, util_arena *a)
{
	(void)state;
	ty_set_arena(NULL);
	util_arena_destroy(a);
	return 0;
}
