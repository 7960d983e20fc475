/* json_register.c — registers the json area: json and jsonb. */
#include "json_int.h"

void ty_register_json(void)
{
	json_register_types();
	json_register_access();
	json_register_modify();
	json_register_build();
	json_register_srfs();
	json_register_aggs();
}
