/* str_register.c — registers the strings area: text, varchar, bpchar, name, "char", bytea, uuid, string functions, LIKE and regular expressions. */
#include "types_int.h"

void ty_register_strings(void) {}
