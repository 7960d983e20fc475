/* err.c — the SQLSTATE table, the util_err error struct and assertion failure. */
#include "util.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const struct {
	const char *sqlstate;
	const char *name;
} errcodes[] = {
#define UTIL_ERRCODE(name, code, cond, kind) {code, cond},
#include "errcodes.def"
#undef UTIL_ERRCODE
};

const char *util_errcode_sqlstate(util_errcode code)
{
	if ((unsigned)code >= UTIL_E__COUNT)
		return "XX000";
	return errcodes[code].sqlstate;
}

const char *util_errcode_name(util_errcode code)
{
	if ((unsigned)code >= UTIL_E__COUNT)
		return "internal_error";
	return errcodes[code].name;
}

int util_errcode_lookup(const char *s)
{
	for (int i = 0; i < UTIL_E__COUNT; i++)
		if (strcmp(errcodes[i].sqlstate, s) == 0 || util_strcasecmp(errcodes[i].name, s) == 0)
			return i;
	return -1;
}

void util_err_clear(util_err *e)
{
	e->code = UTIL_E_SUCCESSFUL_COMPLETION;
	e->severity = UTIL_SEV_ERROR;
	e->position = 0;
	e->internal_position = 0;
	e->message[0] = e->detail[0] = e->hint[0] = e->context[0] = '\0';
	e->schema[0] = e->table[0] = e->column[0] = e->datatype[0] = e->constraint[0] = '\0';
}

bool util_err_isset(const util_err *e) { return e->message[0] != '\0' || e->code != UTIL_E_SUCCESSFUL_COMPLETION; }

int util_err_vset(util_err *e, util_errcode code, const char *fmt, va_list ap)
{
	if (!e)
		return -1;
	util_err_clear(e);
	e->code = code;
	vsnprintf(e->message, sizeof e->message, fmt, ap);
	return -1;
}

int util_err_set(util_err *e, util_errcode code, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	util_err_vset(e, code, fmt, ap);
	va_end(ap);
	return -1;
}

#define ERR_FIELD_PRINTF(field)                                                      \
	do {                                                                         \
		if (!e)                                                              \
			return;                                                      \
		va_list ap;                                                          \
		va_start(ap, fmt);                                                   \
		vsnprintf(e->field, sizeof e->field, fmt, ap);                       \
		va_end(ap);                                                          \
	} while (0)

void util_err_detail(util_err *e, const char *fmt, ...) { ERR_FIELD_PRINTF(detail); }
void util_err_hint(util_err *e, const char *fmt, ...) { ERR_FIELD_PRINTF(hint); }
void util_err_context(util_err *e, const char *fmt, ...) { ERR_FIELD_PRINTF(context); }

void util_err_field(char *dst, const char *src)
{
	size_t n = src ? strlen(src) : 0;
	if (n >= UTIL_ERR_NAME_MAX)
		n = UTIL_ERR_NAME_MAX - 1;
	if (n)
		memcpy(dst, src, n);
	dst[n] = '\0';
}

const char *util_severity_name(util_severity s)
{
	switch (s) {
	case UTIL_SEV_ERROR: return "ERROR";
	case UTIL_SEV_FATAL: return "FATAL";
	case UTIL_SEV_PANIC: return "PANIC";
	case UTIL_SEV_WARNING: return "WARNING";
	case UTIL_SEV_NOTICE: return "NOTICE";
	case UTIL_SEV_DEBUG: return "DEBUG";
	case UTIL_SEV_INFO: return "INFO";
	case UTIL_SEV_LOG: return "LOG";
	}
	return "ERROR";
}

void util_assert_fail(const char *file, int line, const char *expr, const char *fmt, ...)
{
	char ctx[512];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(ctx, sizeof ctx, fmt, ap);
	va_end(ap);
	fprintf(stderr, "strata: assertion failed at %s:%d: %s (%s)\n", file, line, expr, ctx);
	fflush(stderr);
	abort();
}
