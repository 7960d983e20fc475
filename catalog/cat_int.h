/* cat_int.h — private to catalog/: snapshot structure and serialisation. */
#ifndef STRATA_CAT_INT_H
#define STRATA_CAT_INT_H

#include <pthread.h>
#include <stdatomic.h>

#include "cat.h"

/* An immutable version of the catalog. Objects are shared between
 * snapshots by reference count. */
struct cat_snap {
	int refs; /* atomic */
	uint64_t version;
	/* Shared store: a read point at which every object here was the stored
	 * one (the newest catalog commit that others must see was before it);
	 * raised by cat_refresh. A commit checks the objects it changes or
	 * depends on unchanged since then (cat_txn_write). */
	_Atomic kv_ts as_of;
	util_map by_oid;  /* oid -> cat_obj* (one object reference each) */
	util_map by_name; /* name key (see cat_name_key) -> cat_obj* (borrowed) */
};

struct cat {
	kv_store *kv;
	kv_table *tbl; /* sys.catalog */
	pthread_mutex_t mu; /* guards current, oid allocation */
	/* The DDL lock: held by a transaction from its first DDL to its end,
	 * across statements that may run on different threads (the wire pool),
	 * so a flag under a mutex rather than a mutex held. */
	pthread_mutex_t ddl_mu;
	pthread_cond_t ddl_cv;
	bool ddl_held;
	cat_snap *current;
	_Atomic(const cat_snap *) published; /* = current, for cat_is_current without mu */
	cat_oid next_oid, oid_limit; /* allocated range [next_oid, oid_limit) */
	/* Shared store (several servers, cat_open_shared): the catalog version
	 * cell's timestamp as last loaded (0: absent). */
	bool shared;
	pthread_mutex_t ver_mu; /* one refresh at a time */
	kv_ts ver_ts;           /* as loaded (0: absent) */
	/* This server published a change since the last load: the next
	 * cat_refresh reloads (another server's commit may have come between
	 * the change's base and its commit). */
	atomic_bool reload;
};

struct cat_txn {
	cat *c;
	cat_snap *base;  /* reference */
	cat_snap *snap;  /* private working copy (NULL until the first change) */
	util_map changed; /* oid -> (void*)1 for put, (void*)2 for delete */
	util_map rests_on; /* oid -> (void*)1: cat_txn_depend (a view's relations) */
	bool bumped;      /* shared store: cat_txn_write moved the version cell */
};

#define CAT_KV_TABLE "sys.catalog"
#define CAT_FAMILY "d"

cat_snap *cat_snap_new(uint64_t version);
cat_snap *cat_snap_clone(const cat_snap *s);
void cat_snap_add(cat_snap *s, cat_obj *o);     /* takes a reference */
void cat_snap_remove(cat_snap *s, cat_oid oid); /* drops its reference */
void cat_obj_release(cat_obj *o);
void cat_obj_addref(cat_obj *o);
/* The object's key in its snapshot's name index (kind, parent, name);
 * returns its length. */
size_t cat_obj_name_key(char *buf, size_t cap, const cat_obj *o);

/* Serialised form (docs/catalog-format.md). */
void cat_obj_encode(const cat_obj *o, util_buf *out);
cat_obj *cat_obj_decode(cat_oid oid, const uint8_t *p, size_t n); /* NULL if malformed */

#endif
