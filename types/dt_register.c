/* dt_register.c — registers the datetime area: date, time, timetz, timestamp, timestamptz, interval, time
 * zones and date/time functions. */
#include "dt_int.h"

void ty_register_datetime(void)
{
	dt_register_date();
	dt_register_timestamp();
	dt_register_interval();
	dt_register_time();
	dt_register_funcs();
	dt_register_fields();
	dt_register_format();
	dt_register_numfmt();
	dt_register_tznames();
	dt_register_sends();
}
