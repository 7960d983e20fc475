/* error.c — throwing and catching SQL errors (PostgreSQL's ereport/PG_TRY
 * on sigsetjmp/siglongjmp), and the interrupt hook checked in long loops. */
#include "types.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static _Thread_local util_err cur_err;
static _Thread_local ty_catch *cur_catch;
static _Thread_local void (*interrupt_hook)(void);

util_err *ty_err(void) { return &cur_err; }

util_err *ty_errstart(util_errcode code, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	util_err_vset(&cur_err, code, fmt, ap);
	va_end(ap);
	return &cur_err;
}

void ty_errthrow(void)
{
	ty_catch *c = cur_catch;
	if (!c) {
		/* A throw outside any handler is a bug in the caller, not input. */
		fprintf(stderr, "strata: uncaught SQL error %s: %s\n", util_errcode_sqlstate(cur_err.code),
			cur_err.message);
		abort();
	}
	cur_catch = c->prev;
	siglongjmp(c->jb, 1);
}

void ty_error(util_errcode code, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	util_err_vset(&cur_err, code, fmt, ap);
	va_end(ap);
	ty_errthrow();
}

void ty_throw(const util_err *e)
{
	if (e != &cur_err)
		memcpy(&cur_err, e, sizeof cur_err);
	ty_errthrow();
}

void ty_catch_push(ty_catch *c)
{
	c->prev = cur_catch;
	cur_catch = c;
}

void ty_catch_pop(ty_catch *c)
{
	/* After a throw the handler was already unlinked by ty_errthrow. */
	if (cur_catch == c)
		cur_catch = c->prev;
}

int ty_protect(void (*fn)(void *arg), void *arg, util_err *err)
{
	TY_TRY(c)
	{
		fn(arg);
	}
	TY_CATCH(c)
	{
		TY_END(c);
		if (err)
			memcpy(err, &cur_err, sizeof *err);
		return -1;
	}
	TY_END(c);
	return 0;
}

void ty_set_interrupt_hook(void (*fn)(void)) { interrupt_hook = fn; }

void ty_check_interrupts(void)
{
	if (interrupt_hook)
		interrupt_hook();
}
