/* misc.c — small helpers shared across sql/: building text/name arrays. */
#include <string.h>

#include "array.h"
#include "sql_int.h"

ty_datum sql_make_text_array(const ty_datum *vals, int n)
{
	return n ? ty_array_from_list(TY_TEXT, n, vals) : ty_array_empty(TY_TEXT);
}

ty_datum sql_make_name_array(const ty_datum *vals, int n)
{
	return n ? ty_array_from_list(TY_NAME, n, vals) : ty_array_empty(TY_NAME);
}
