/* arr_register.c — registers the arrays area: arrays of every base type and array functions. */
#include "arr_int.h"

void ty_register_arrays(void)
{
	arr_register_types();
	arr_register_funcs();
	arr_register_manip();
	arr_register_text();
	arr_register_srfs();
	arr_register_aggs();
}
