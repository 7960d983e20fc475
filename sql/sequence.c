/*
 * sequence.c — sequences: CREATE/ALTER SEQUENCE options, nextval/currval/
 * setval/lastval. Values are handed out from memory and logged ahead to the
 * store in steps of 32 (like PostgreSQL's SEQ_LOG_VALS), so nextval does not
 * cost a log write each time; after a crash the sequence skips at most the
 * values logged ahead. Like PostgreSQL, nextval is not transactional.
 * On a store several servers share (etcd backend) the log-ahead write is a
 * compare-and-set on the stored value: a server that finds another's value
 * there continues after it, so two servers never hand out the same value.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sql_int.h"

#define SEQ_LOG_VALS 32

typedef struct seqstate {
	pthread_mutex_t mu;
	bool loaded;
	int64_t last;
	bool called;
	int64_t logged; /* persisted value: the sequence never hands out beyond it without logging */
} seqstate;

static pthread_mutex_t seqs_mu = PTHREAD_MUTEX_INITIALIZER;
static util_map seqs; /* (engine, oid) -> seqstate* */

static seqstate *state_of(sql_engine *e, cat_oid oid)
{
	uint64_t key[2] = {(uint64_t)(uintptr_t)e, oid};
	pthread_mutex_lock(&seqs_mu);
	seqstate *st = util_map_get(&seqs, key, sizeof key);
	if (!st) {
		st = util_xcalloc(1, sizeof *st);
		pthread_mutex_init(&st->mu, NULL);
		util_map_put(&seqs, key, sizeof key, st);
	}
	pthread_mutex_unlock(&seqs_mu);
	return st;
}

static void seq_row(cat_oid oid, uint8_t row[4]) { util_put_be32(row, oid); }

static void persist(sql_engine *e, cat_oid oid, int64_t value, bool called)
{
	uint8_t row[4], v[9];
	seq_row(oid, row);
	util_put_be64(v, (uint64_t)value);
	v[8] = called;
	kv_batch *b = kv_batch_new();
	kv_batch_put(b, e->seq_tbl, row, 4, SQL_FAMILY, "v", 1, KV_TS_LATEST, v, 9);
	kv_status st = kv_commit(e->kv, b, NULL, NULL);
	kv_batch_free(b);
	if (st != KV_OK)
		sql_kv_error(st, "updating a sequence");
}

/* Shared store: logs `value` ahead only if the stored value is still the
 * one this server logged last; else adopts the stored value (another server
 * handed out values up to it) and returns false so the caller recomputes. */
static bool persist_shared(sql_engine *e, cat_oid oid, seqstate *st, int64_t value)
{
	uint8_t row[4], mine[9], v[9];
	seq_row(oid, row);
	util_arena *a = util_arena_new(1024, 0);
	kv_read_opts ro;
	memset(&ro, 0, sizeof ro);
	ro.read_ts = kv_read_point(e->kv);
	kv_row r;
	kv_status ks = kv_get(e->seq_tbl, row, 4, &ro, a, &r);
	bool present = ks == KV_OK && r.n && r.cells[0].value.len == 9;
	int64_t stored = present ? (int64_t)util_get_be64(r.cells[0].value.data) : 0;
	bool stored_called = present && r.cells[0].value.data[8];
	util_arena_destroy(a);
	if (ks != KV_OK && ks != KV_NOT_FOUND)
		sql_kv_error(ks, "reading a sequence");
	if (present && (stored != st->logged || (stored_called && !st->called))) {
		st->last = stored;
		st->called = stored_called;
		st->logged = stored;
		return false;
	}
	util_put_be64(mine, (uint64_t)st->logged);
	mine[8] = st->called;
	util_put_be64(v, (uint64_t)value);
	v[8] = 1;
	kv_batch *b = kv_batch_new();
	if (present)
		kv_batch_require(b, e->seq_tbl, row, 4, SQL_FAMILY, "v", 1, KV_CMP_EQ, mine, 9);
	else
		kv_batch_require(b, e->seq_tbl, row, 4, SQL_FAMILY, "v", 1, KV_CMP_ABSENT, NULL, 0);
	kv_batch_put(b, e->seq_tbl, row, 4, SQL_FAMILY, "v", 1, KV_TS_LATEST, v, 9);
	kv_status cs = kv_commit(e->kv, b, NULL, NULL);
	kv_batch_free(b);
	if (cs == KV_CHECK_FAILED)
		return false; /* re-read and retry */
	if (cs != KV_OK)
		sql_kv_error(cs, "updating a sequence");
	return true;
}

static void load(sql_engine *e, cat_oid oid, const cat_sequence_info *info, seqstate *st)
{
	if (st->loaded)
		return;
	uint8_t row[4];
	seq_row(oid, row);
	util_arena *a = util_arena_new(1024, 0);
	kv_read_opts ro;
	memset(&ro, 0, sizeof ro);
	kv_row r;
	kv_status s = kv_get(e->seq_tbl, row, 4, &ro, a, &r);
	if (s == KV_OK && r.n && r.cells[0].value.len == 9) {
		st->last = (int64_t)util_get_be64(r.cells[0].value.data);
		st->called = r.cells[0].value.data[8] != 0;
	} else {
		st->last = info->start;
		st->called = false;
	}
	util_arena_destroy(a);
	if (s != KV_OK && s != KV_NOT_FOUND)
		sql_kv_error(s, "reading a sequence");
	st->logged = st->last;
	st->loaded = true;
}

static const cat_obj *seq_obj(sql_session *s, cat_oid oid)
{
	cat_snap *cs = s->cat;
	const cat_obj *o = cs ? cat_get(cs, oid) : NULL;
	if (!o || o->kind != CAT_REL)
		ty_error(UTIL_E_UNDEFINED_TABLE, "could not open relation with OID %u", oid);
	if (o->rel.relkind != CAT_RELKIND_SEQUENCE)
		ty_error(UTIL_E_WRONG_OBJECT_TYPE, "\"%s\" is not a sequence", o->rel.name);
	return o;
}

static void remember(sql_session *s, cat_oid oid, int64_t v)
{
	int64_t *p = util_map_get_u64(&s->seq_currval, oid);
	if (!p) {
		p = util_xmalloc(sizeof *p);
		util_map_put_u64(&s->seq_currval, oid, p);
	}
	*p = v;
	s->lastval = v;
	s->has_lastval = true;
	s->lastval_seq = oid;
}

int64_t sql_nextval(sql_session *s, cat_oid oid)
{
	const cat_obj *o = seq_obj(s, oid);
	sql_priv_check_rel_any(s, s->cat, o, CAT_PRIV_USAGE | CAT_PRIV_UPDATE);
	const cat_sequence_info *info = o->rel.seq;
	seqstate *st = state_of(s->e, oid);
	pthread_mutex_lock(&st->mu);
	load(s->e, oid, info, st);
	bool shared = s->e->opts.store_uri != NULL;
again:;
	int64_t next = 0;
	bool err_max = false, err_min = false;
	if (!st->called) {
		next = st->last;
	} else if (info->increment > 0) {
		if (st->last > info->max - info->increment) {
			if (info->cycle)
				next = info->min;
			else
				err_max = true;
		}
		if (!err_max && !(st->last > info->max - info->increment))
			next = st->last + info->increment;
	} else {
		if (st->last < info->min - info->increment) {
			if (info->cycle)
				next = info->max;
			else
				err_min = true;
		}
		if (!err_min && !(st->last < info->min - info->increment))
			next = st->last + info->increment;
	}
	if (err_max || err_min) {
		pthread_mutex_unlock(&st->mu);
		ty_error(UTIL_E_SEQUENCE_GENERATOR_LIMIT_EXCEEDED, "nextval: reached %s value of sequence \"%s\" (%lld)",
			 err_max ? "maximum" : "minimum", o->rel.name, (long long)(err_max ? info->max : info->min));
	}
	/* Log ahead when the handed-out value passes what the store knows. */
	bool need_log = !st->called || (info->increment > 0 ? next > st->logged : next < st->logged);
	if (need_log) {
		int64_t ahead = next;
		for (int i = 0; i < SEQ_LOG_VALS; i++) {
			if (info->increment > 0 ? ahead > info->max - info->increment : ahead < info->min - info->increment)
				break;
			ahead += info->increment;
		}
		bool logged = true;
		TY_TRY(tc)
		{
			if (shared)
				logged = persist_shared(s->e, oid, st, ahead);
			else
				persist(s->e, oid, ahead, true);
		}
		TY_CATCH(tc)
		{
			TY_END(tc);
			pthread_mutex_unlock(&st->mu);
			ty_errthrow();
		}
		TY_END(tc);
		if (!logged)
			goto again; /* another server moved the sequence: continue after it */
		st->logged = ahead;
	}
	st->last = next;
	st->called = true;
	pthread_mutex_unlock(&st->mu);
	remember(s, oid, next);
	return next;
}

int64_t sql_currval(sql_session *s, cat_oid oid)
{
	const cat_obj *o = seq_obj(s, oid);
	sql_priv_check_rel_any(s, s->cat, o, CAT_PRIV_USAGE | CAT_PRIV_SELECT);
	int64_t *p = util_map_get_u64(&s->seq_currval, oid);
	if (!p)
		ty_error(UTIL_E_OBJECT_NOT_IN_PREREQUISITE_STATE, "currval of sequence \"%s\" is not yet defined in this session",
			 o->rel.name);
	return *p;
}

int64_t sql_lastval(sql_session *s)
{
	if (!s->has_lastval)
		ty_error(UTIL_E_OBJECT_NOT_IN_PREREQUISITE_STATE, "lastval is not yet defined in this session");
	return s->lastval;
}

int64_t sql_setval(sql_session *s, cat_oid oid, int64_t v, bool called)
{
	const cat_obj *o = seq_obj(s, oid);
	sql_priv_check_rel_any(s, s->cat, o, CAT_PRIV_UPDATE);
	const cat_sequence_info *info = o->rel.seq;
	if (v < info->min || v > info->max)
		ty_error(UTIL_E_NUMERIC_VALUE_OUT_OF_RANGE, "setval: value %lld is out of bounds for sequence \"%s\" (%lld..%lld)",
			 (long long)v, o->rel.name, (long long)info->min, (long long)info->max);
	seqstate *st = state_of(s->e, oid);
	pthread_mutex_lock(&st->mu);
	st->loaded = true;
	TY_TRY(tc)
	{
		persist(s->e, oid, v, called);
	}
	TY_CATCH(tc)
	{
		TY_END(tc);
		pthread_mutex_unlock(&st->mu);
		ty_errthrow();
	}
	TY_END(tc);
	st->last = v;
	st->called = called;
	st->logged = v;
	pthread_mutex_unlock(&st->mu);
	if (called)
		remember(s, oid, v);
	return v;
}

/* The state SELECT * FROM seq shows: last_value, log_cnt, is_called. */
void sql_seq_peek(sql_session *s, cat_oid oid, int64_t *last, int64_t *log_cnt, bool *called)
{
	const cat_obj *o = seq_obj(s, oid);
	seqstate *st = state_of(s->e, oid);
	pthread_mutex_lock(&st->mu);
	load(s->e, oid, o->rel.seq, st);
	*last = st->last;
	*called = st->called;
	int64_t inc = o->rel.seq->increment ? o->rel.seq->increment : 1;
	int64_t lc = st->called ? (st->logged - st->last) / inc : 0;
	*log_cnt = lc < 0 ? 0 : lc;
	pthread_mutex_unlock(&st->mu);
}

void sql_seq_init_value(sql_session *s, cat_oid seq, const cat_sequence_info *info)
{
	seqstate *st = state_of(s->e, seq);
	pthread_mutex_lock(&st->mu);
	st->last = info->start;
	st->called = false;
	st->logged = info->start;
	st->loaded = true;
	pthread_mutex_unlock(&st->mu);
	persist(s->e, seq, info->start, false);
}

void sql_seq_forget(sql_session *s, cat_oid seq)
{
	seqstate *st = state_of(s->e, seq);
	pthread_mutex_lock(&st->mu);
	st->loaded = false;
	pthread_mutex_unlock(&st->mu);
}

/* ---------------------------------------------------------------- options */

int64_t sql_def_int(pnode *arg, bool *ok);

static void type_range(ty_oid t, int64_t *min, int64_t *max)
{
	if (t == TY_INT2) {
		*min = -32768;
		*max = 32767;
	} else if (t == TY_INT4) {
		*min = INT32_MIN;
		*max = INT32_MAX;
	} else {
		*min = INT64_MIN;
		*max = INT64_MAX;
	}
}

void sql_seq_options(sql_session *s, cat_sequence_info *sq, PgQuery__Node **opts, size_t n, bool creating)
{
	bool has_start = false, has_min = false, has_max = false, has_inc = false, restart = false;
	bool min_none = false, max_none = false;
	int64_t start = 0, restart_v = 0;
	ty_oid type = sq->type ? sq->type : TY_INT8;
	for (size_t i = 0; i < n; i++) {
		PgQuery__DefElem *d = opts[i]->def_elem;
		bool ok;
		int64_t v = sql_def_int(d->arg, &ok);
		const char *name = d->defname;
		if (!strcmp(name, "as")) {
			sql_actx ax = {s, s->cat, NULL, &(sql_pstate){.text = ""}};
			int32_t tm;
			sql_typename(&ax, d->arg->type_name, &type, &tm);
			if (type != TY_INT2 && type != TY_INT4 && type != TY_INT8)
				ty_error(UTIL_E_INVALID_PARAMETER_VALUE, "sequence type must be smallint, integer, or bigint");
		} else if (!strcmp(name, "increment")) {
			if (v == 0)
				ty_error(UTIL_E_INVALID_PARAMETER_VALUE, "INCREMENT must not be zero");
			sq->increment = v;
			has_inc = true;
		} else if (!strcmp(name, "start")) {
			start = v;
			has_start = true;
		} else if (!strcmp(name, "minvalue")) {
			if (d->arg) {
				sq->min = v;
				has_min = true;
			} else
				min_none = true;
		} else if (!strcmp(name, "maxvalue")) {
			if (d->arg) {
				sq->max = v;
				has_max = true;
			} else
				max_none = true;
		} else if (!strcmp(name, "cache")) {
			if (v < 1)
				ty_error(UTIL_E_INVALID_PARAMETER_VALUE, "CACHE (%lld) must be greater than zero", (long long)v);
			sq->cache = v;
		} else if (!strcmp(name, "cycle")) {
			sq->cycle = d->arg ? (d->arg->node_case == PG_QUERY__NODE__NODE_BOOLEAN ? d->arg->boolean->boolval : v != 0) : true;
		} else if (!strcmp(name, "restart")) {
			restart = true;
			restart_v = ok ? v : 0;
			if (!ok)
				restart_v = INT64_MIN;
		} else if (!strcmp(name, "owned_by") || !strcmp(name, "sequence_name")) {
			/* OWNED BY is recorded by the caller when it is a column. */
		} else {
			ty_error(UTIL_E_SYNTAX_ERROR, "option \"%s\" not recognized", name);
		}
	}
	(void)has_inc;
	int64_t tmin, tmax;
	type_range(type, &tmin, &tmax);
	sq->type = type;
	if (creating || min_none || !has_min) {
		if (creating && !has_min)
			sq->min = sq->increment > 0 ? 1 : tmin;
		else if (min_none)
			sq->min = sq->increment > 0 ? 1 : tmin;
	}
	if (creating || max_none || !has_max) {
		if (creating && !has_max)
			sq->max = sq->increment > 0 ? tmax : -1;
		else if (max_none)
			sq->max = sq->increment > 0 ? tmax : -1;
	}
	if (sq->min < tmin || sq->max > tmax)
		ty_error(UTIL_E_INVALID_PARAMETER_VALUE, "%s value (%lld) is out of range for sequence data type %s",
			 sq->min < tmin ? "MINVALUE" : "MAXVALUE", (long long)(sq->min < tmin ? sq->min : sq->max),
			 type == TY_INT2 ? "smallint" : type == TY_INT4 ? "integer" : "bigint");
	if (sq->min >= sq->max)
		ty_error(UTIL_E_INVALID_PARAMETER_VALUE, "MINVALUE (%lld) must be less than MAXVALUE (%lld)", (long long)sq->min,
			 (long long)sq->max);
	if (has_start)
		sq->start = start;
	else if (creating)
		sq->start = sq->increment > 0 ? sq->min : sq->max;
	if (sq->start < sq->min)
		ty_error(UTIL_E_INVALID_PARAMETER_VALUE, "START value (%lld) cannot be less than MINVALUE (%lld)",
			 (long long)sq->start, (long long)sq->min);
	if (sq->start > sq->max)
		ty_error(UTIL_E_INVALID_PARAMETER_VALUE, "START value (%lld) cannot be greater than MAXVALUE (%lld)",
			 (long long)sq->start, (long long)sq->max);
	sq->restart_requested = restart;
	sq->restart_value = restart_v == INT64_MIN ? sq->start : restart_v;
}
