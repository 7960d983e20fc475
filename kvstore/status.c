/* status.c — kv_status names, the per-thread error message, errno mapping
 * and the public slice/cell comparators. */
#include "kv_int.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

static _Thread_local char errmsg[512];

const char *kv_status_name(kv_status s)
{
	static const char *const names[] = {
	    "OK",       "NOT_FOUND", "EXISTS",    "CONFLICT",  "CHECK_FAILED", "INVALID", "CORRUPTION",
	    "IO_ERROR", "NO_SPACE",  "READ_ONLY", "NO_MEMORY", "BUSY",         "CLOSED",  "TOO_LARGE",
	    "NOT_SUPPORTED",
	};
	if ((unsigned)s < sizeof(names) / sizeof(names[0]))
		return names[s];
	return "UNKNOWN";
}

const char *kv_errmsg(void)
{
	return errmsg;
}

kv_status kv_fail(kv_status st, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(errmsg, sizeof(errmsg), fmt, ap);
	va_end(ap);
	return st;
}

kv_status kv_not_supported(const char *what)
{
	return kv_fail(KV_NOT_SUPPORTED, "%s is not supported by the etcd backend", what);
}

kv_status kv_errno_status(int e)
{
	switch (e) {
	case 0:
		return KV_OK;
	case ENOENT:
		return KV_NOT_FOUND;
	case ENOSPC:
	case EDQUOT:
		return KV_NO_SPACE;
	case ENOMEM:
		return KV_NO_MEMORY;
	case EEXIST:
		return KV_EXISTS;
	default:
		return KV_IO_ERROR;
	}
}

kv_status kv_fail_errno(int e, const char *what, const char *path)
{
	return kv_fail(kv_errno_status(e), "%s %s: %s", what, path ? path : "", strerror(e));
}

int kv_slice_cmp(kv_slice a, kv_slice b)
{
	return ikey_bytes_cmp(a.data, a.len, b.data, b.len);
}

int kv_cell_cmp(const kv_cell *a, const kv_cell *b)
{
	int c = kv_slice_cmp(a->row, b->row);
	if (c)
		return c;
	c = kv_slice_cmp(a->family, b->family);
	if (c)
		return c;
	c = kv_slice_cmp(a->qualifier, b->qualifier);
	if (c)
		return c;
	if (a->ts != b->ts)
		return a->ts > b->ts ? -1 : 1;
	if (a->type != b->type)
		return a->type > b->type ? -1 : 1;
	return 0;
}
