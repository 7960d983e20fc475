/* misc.c — small helpers shared across sql/: PostgreSQL's reserved
 * keywords (for identifier quoting), and building text/name arrays. */
#include <string.h>

#include "array.h"
#include "sql_int.h"

/* PostgreSQL 15's reserved keywords (kwlist.h, RESERVED_KEYWORD), sorted. */
static const char *const reserved[] = {
	"all", "analyse", "analyze", "and", "any", "array", "as", "asc", "asymmetric", "both", "case", "cast", "check",
	"collate", "column", "constraint", "create", "current_catalog", "current_date", "current_role", "current_time",
	"current_timestamp", "current_user", "default", "deferrable", "desc", "distinct", "do", "else", "end", "except",
	"false", "fetch", "for", "foreign", "from", "grant", "group", "having", "in", "initially", "intersect", "into",
	"lateral", "leading", "limit", "localtime", "localtimestamp", "not", "null", "offset", "on", "only", "or",
	"order", "placing", "primary", "references", "returning", "select", "session_user", "some", "symmetric",
	"table", "then", "to", "trailing", "true", "union", "unique", "user", "using", "variadic", "when", "where",
	"window", "with",
};

bool sql_is_reserved_keyword(const char *w)
{
	size_t lo = 0, hi = UTIL_ARRAY_LEN(reserved);
	while (lo < hi) {
		size_t mid = (lo + hi) / 2;
		int c = strcmp(w, reserved[mid]);
		if (!c)
			return true;
		if (c < 0)
			hi = mid;
		else
			lo = mid + 1;
	}
	return false;
}

ty_datum sql_make_text_array(const ty_datum *vals, int n)
{
	return n ? ty_array_from_list(TY_TEXT, n, vals) : ty_array_empty(TY_TEXT);
}

ty_datum sql_make_name_array(const ty_datum *vals, int n)
{
	return n ? ty_array_from_list(TY_NAME, n, vals) : ty_array_empty(TY_NAME);
}
