/*
 * qmem.c — the memory budget of one statement execution. Strata keeps sorts,
 * hash joins, aggregation and set-operation hash tables and window
 * partitions in memory (it does not spill to disk as PostgreSQL does), so
 * their arenas are charged to one account per execution whose limit is
 * SQL_QUERY_MEM_FACTOR times work_mem (1 GB with the default 4 MB); past
 * it an allocation fails with 53200 "out of memory" and the statement ends,
 * the server and other sessions unaffected.
 */
#include "sql_int.h"

size_t sql_query_mem_limit(const sql_session *s)
{
	size_t wm = s->work_mem ? s->work_mem : (size_t)4 << 20;
	return wm > SIZE_MAX / SQL_QUERY_MEM_FACTOR ? SIZE_MAX : wm * SQL_QUERY_MEM_FACTOR;
}

void sql_exec_charge(sql_exec *ex, util_arena *a)
{
	if (!ex->mem.limit)
		ex->mem.limit = sql_query_mem_limit(ex->s);
	util_arena_set_account(a, &ex->mem);
}
