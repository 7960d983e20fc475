/*
 * readpoint.c — kv_read_point_wait(): moves the read point of an idle store
 * up to a recent moment, so that reads "as of" it (time travel, backups of
 * a past timestamp) see every commit at or before it and nothing else.
 */
#include "ekv.h"
#include "kv_int.h"

#include <inttypes.h>

kv_status kv_read_point_wait(kv_store *s, kv_ts ts)
{
	if (s->etcd)
		return ekv_read_point_wait(s, ts);
	if (kv_read_point(s) >= ts)
		return KV_OK;
	if ((int64_t)ts > util_now_us())
		return kv_fail(KV_INVALID, "timestamp %" PRIu64 " is in the future", ts);
	/* A reserved timestamp is >= the wall clock, hence >= ts; finishing it
	 * lets the read point pass it once every earlier commit is complete.
	 * (Should the wall clock have stepped back, wait for the reservation.) */
	kv_ts r;
	kv_status st = kv_ts_reserve(s, &r);
	if (st)
		return st;
	kv_ts_finish(s, r);
	clock_wait_visible(s, r < ts ? r : ts);
	return KV_OK;
}
