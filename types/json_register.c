/* json_register.c — registers the json area: json and jsonb. */
#include "types_int.h"

void ty_register_json(void) {}
