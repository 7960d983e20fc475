/* str_register.c — registers the strings area: text, varchar, bpchar, name, "char", bytea, uuid, string
 * functions, LIKE and regular expressions (each file registers its own tables). */
#include "str_int.h"

void ty_register_strings(void)
{
	ty_str_register_text();
	ty_str_register_bytea();
	ty_str_register_like();
	ty_str_register_uuid();
	ty_str_register_funcs();
	ty_str_register_format();
	ty_str_register_agg();
	ty_str_register_regexp();
	ty_str_register_convert();
}
