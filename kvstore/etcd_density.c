/*
 * etcd_density.c — what forward scans of one kv table learnt about its keys,
 * kept in the table's handle for the next scan's first page (etcd_src.c,
 * docs/scale-out.md "Long scans"): a span of key space holding
 * EKV_DENSITY_KEYS keys and the table's first key as last seen. Without them
 * a new scan's first page reads to the scan's end, which etcd 3.4 walks whole
 * whatever the limit, so every short scan (LIMIT 10) of a large table paid
 * the rest of the table. The density at the table's start is kept apart
 * (a scan from the start reads there first, wherever the last scan's
 * pages ended). Hints only: a scan reads every key of its range
 * whatever they say; a stale one costs a few round trips (a gap) or one
 * overshooting range. One small allocation per open table handle, under its
 * mu (a lock per page read, next to an HTTP round trip).
 */
#include <stdlib.h>
#include <string.h>

#include "ekv.h"

struct ekv_density {
	bool has_span, has_start;
	ekv_span span;  /* holds EKV_DENSITY_KEYS keys: the last page noted */
	ekv_span start; /* ... from the table's start */
	size_t flen;    /* 0: first key unknown */
	uint8_t first[EKV_DENSITY_KEY_MAX];
};

/* REQUIRES: t->mu held. */
static struct ekv_density *density_of(kv_table *t)
{
	if (!t->edens)
		t->edens = util_xcalloc(1, sizeof *t->edens);
	return t->edens;
}

bool ekv_density_get(kv_table *t, int64_t keys, bool at_start, ekv_span *span, util_buf *first)
{
	util_buf_reset(first);
	pthread_mutex_lock(&t->mu);
	const struct ekv_density *d = t->edens;
	bool known = d && (d->has_span || d->has_start);
	if (known)
		*span = (at_start && d->has_start) || !d->has_span ? d->start : d->span;
	if (d && d->flen)
		util_buf_append(first, d->first, d->flen);
	pthread_mutex_unlock(&t->mu);
	if (known)
		*span = ekv_span_scale(*span, (double)keys / EKV_DENSITY_KEYS);
	return known;
}

void ekv_density_note(kv_table *t, ekv_span span, int64_t keys, bool at_start)
{
	if (keys <= 0 || span.all)
		return;
	ekv_span s = ekv_span_scale(span, (double)EKV_DENSITY_KEYS / (double)keys);
	pthread_mutex_lock(&t->mu);
	struct ekv_density *d = density_of(t);
	d->span = s;
	d->has_span = true;
	if (at_start) {
		d->start = s;
		d->has_start = true;
	}
	pthread_mutex_unlock(&t->mu);
}

void ekv_density_note_first(kv_table *t, const uint8_t *k, size_t n)
{
	pthread_mutex_lock(&t->mu);
	struct ekv_density *d = density_of(t);
	d->flen = n <= EKV_DENSITY_KEY_MAX ? n : 0;
	if (d->flen)
		memcpy(d->first, k, n);
	pthread_mutex_unlock(&t->mu);
}
