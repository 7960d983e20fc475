/* memory.c — the thread's current arena and settings (PostgreSQL's
 * CurrentMemoryContext and GUC globals, per session thread), and datum
 * copying helpers. */
#include "types.h"

#include <string.h>

static _Thread_local util_arena *cur_arena;
static _Thread_local const ty_settings *cur_settings;

util_arena *ty_set_arena(util_arena *a)
{
	util_arena *old = cur_arena;
	cur_arena = a;
	return old;
}

util_arena *ty_get_arena(void) { return cur_arena; }

void *ty_alloc(size_t n)
{
	UTIL_ASSERT(cur_arena, "ty_alloc without a current arena");
	void *p = util_arena_alloc(cur_arena, n);
	if (UTIL_UNLIKELY(!p)) {
		util_err *e = ty_errstart(UTIL_E_OUT_OF_MEMORY, "out of memory");
		util_err_detail(e, "Failed on request of size %zu.", n);
		if (util_arena_refused(cur_arena))
			util_err_hint(e, "What a statement's sorts, hash tables and aggregates cannot spill to disk is kept in "
					 "memory, up to 256 times work_mem in all; raise work_mem for this one.");
		ty_errthrow();
	}
	return p;
}

void *ty_alloc0(size_t n)
{
	void *p = ty_alloc(n);
	memset(p, 0, n);
	return p;
}

char *ty_strndup(const char *s, size_t n)
{
	char *p = ty_alloc(n + 1);
	memcpy(p, s, n);
	p[n] = '\0';
	return p;
}

char *ty_strdup(const char *s) { return ty_strndup(s, strlen(s)); }

ty_datum ty_datum_copy(ty_datum d, bool byval)
{
	if (d.null || byval || !d.p)
		return d;
	void *p = ty_alloc(d.len ? d.len : 1);
	memcpy(p, d.p, d.len);
	d.p = p;
	return d;
}

ty_datum ty_textn(const char *s, size_t n) { return ty_bytes(ty_strndup(s, n), n); }
ty_datum ty_text(const char *s) { return ty_textn(s, strlen(s)); }

char *ty_cstring(ty_datum d) { return ty_strndup(d.p ? d.p : "", d.len); }

void ty_settings_default(ty_settings *s)
{
	memset(s, 0, sizeof *s);
	s->datestyle = TY_DATES_ISO;
	s->dateorder = TY_ORDER_MDY;
	s->intervalstyle = TY_INTERVAL_POSTGRES;
	s->timezone = NULL;
	s->extra_float_digits = 1;
	s->standard_conforming_strings = true;
}

static const ty_settings default_settings = {
	.datestyle = TY_DATES_ISO,
	.dateorder = TY_ORDER_MDY,
	.intervalstyle = TY_INTERVAL_POSTGRES,
	.extra_float_digits = 1,
	.standard_conforming_strings = true,
};

const ty_settings *ty_set_settings(const ty_settings *s)
{
	const ty_settings *old = cur_settings;
	cur_settings = s;
	return old;
}

const ty_settings *ty_get_settings(void) { return cur_settings ? cur_settings : &default_settings; }
