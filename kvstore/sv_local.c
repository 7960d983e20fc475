/*
 * sv_local.c — a per-thread cache of tables' current superversions and of
 * their files' readers, for the point read (RocksDB's thread-local
 * SuperVersion). table_sv() takes the table's mutex and a reference on the
 * superversion, sfile_reader() the file's mutex and a reference on its
 * reader: lines every reading thread writes, so two sessions reading one
 * table on two cores move them between the cores at every read. A thread's
 * slot keeps those references instead; a read takes the slot's entry with
 * an exchange on the thread's own line and checks its superversion is still
 * the table's (its seq against the table's sv_seq, a line only installs
 * write).
 *
 * Installs and table frees scrape every thread's slots (svl_scrape), so a
 * cached entry never pins a memstore or file a newer superversion dropped
 * for longer than the install takes. A slot being read holds SVL_IN_USE;
 * the scrape swaps it for NULL and the reader, failing to put its entry
 * back, frees the entry itself. A cached reader stays open when the
 * open-file LRU closes the file's shared one: at most SVL_FILES per slot.
 */
#include <stdint.h>
#include <stdlib.h>

#include "kv_int.h"
#include "sst.h"

#define SVL_SLOTS 8
#define SVL_FILES 4

typedef struct svl_entry {
	kv_sv *sv; /* one reference */
	int nrd;
	kv_sfile *f[SVL_FILES];
	sst_reader *rd[SVL_FILES]; /* one reference each */
} svl_entry;

static char in_use_mark;
#define SVL_IN_USE ((svl_entry *)&in_use_mark)

typedef struct svl_thread {
	_Atomic(svl_entry *) slot[SVL_SLOTS]; /* NULL, SVL_IN_USE or an entry */
	struct svl_thread *prev, *next;       /* every thread's, under svl_mu */
} svl_thread;

static pthread_mutex_t svl_mu = PTHREAD_MUTEX_INITIALIZER;
static svl_thread *svl_all;
static util_tls_slot svl_key;
static _Atomic uint64_t svl_seq; /* the last superversion's seq, all tables */

uint64_t svl_next_seq(void)
{
	return atomic_fetch_add(&svl_seq, 1) + 1;
}

static void entry_free(svl_entry *e)
{
	if (!e || e == SVL_IN_USE)
		return;
	for (int i = 0; i < e->nrd; i++)
		sst_unref(e->rd[i]);
	sv_unref(e->sv);
	free(e);
}

static void thread_gone(void *p)
{
	svl_thread *th = p;
	pthread_mutex_lock(&svl_mu);
	if (th->prev)
		th->prev->next = th->next;
	else
		svl_all = th->next;
	if (th->next)
		th->next->prev = th->prev;
	pthread_mutex_unlock(&svl_mu);
	for (int i = 0; i < SVL_SLOTS; i++)
		entry_free(atomic_exchange(&th->slot[i], NULL));
	free(th);
}

/* The calling thread's slots, registered on first use; NULL when no memory
 * (the caller takes plain references then). */
static svl_thread *thread_slots(void)
{
	svl_thread *th = util_tls_get(&svl_key);
	if (th)
		return th;
	th = calloc(1, sizeof(*th));
	if (!th)
		return NULL;
	if (!util_tls_set(&svl_key, th, thread_gone)) {
		free(th);
		return NULL;
	}
	pthread_mutex_lock(&svl_mu);
	th->next = svl_all;
	if (svl_all)
		svl_all->prev = th;
	svl_all = th;
	pthread_mutex_unlock(&svl_mu);
	return th;
}

kv_sv *svl_get(kv_table *t, svl_ref *ref)
{
	ref->slot = NULL;
	ref->e = NULL;
	svl_thread *th = thread_slots();
	_Atomic(svl_entry *) *slot = th ? &th->slot[((uintptr_t)t >> 6) % SVL_SLOTS] : NULL;
	svl_entry *e = slot ? atomic_exchange(slot, SVL_IN_USE) : SVL_IN_USE;
	if (e == SVL_IN_USE) /* no slots, or a nested read of this one */
		return ref->sv = table_sv(t);
	/* seq is unique over all tables: a match is this table's current one. */
	if (e && e->sv->seq != atomic_load(&t->sv_seq)) {
		entry_free(e);
		e = NULL;
	}
	if (!e && (e = calloc(1, sizeof(*e))))
		e->sv = table_sv(t);
	if (!e) {
		atomic_store(slot, NULL);
		return ref->sv = table_sv(t);
	}
	ref->slot = (void *)slot;
	ref->e = e;
	return ref->sv = e->sv;
}

kv_status svl_reader(svl_ref *ref, kv_sfile *f, sst_reader **out, bool *unref)
{
	svl_entry *e = ref->e;
	*unref = false;
	for (int i = 0; e && i < e->nrd; i++)
		if (e->f[i] == f) {
			*out = e->rd[i];
			return KV_OK;
		}
	kv_status st = sfile_reader(f, out);
	if (st)
		return st;
	if (e && e->nrd < SVL_FILES) {
		e->f[e->nrd] = f;
		e->rd[e->nrd++] = *out;
	} else {
		*unref = true;
	}
	return KV_OK;
}

void svl_put(svl_ref *ref)
{
	_Atomic(svl_entry *) *slot = ref->slot;
	svl_entry *expect = SVL_IN_USE;
	if (!slot)
		sv_unref(ref->sv);
	else if (!atomic_compare_exchange_strong(slot, &expect, ref->e))
		entry_free(ref->e); /* scraped while in use */
}

void svl_scrape(void)
{
	pthread_mutex_lock(&svl_mu);
	for (svl_thread *th = svl_all; th; th = th->next)
		for (int i = 0; i < SVL_SLOTS; i++)
			if (atomic_load(&th->slot[i]))
				entry_free(atomic_exchange(&th->slot[i], NULL));
	pthread_mutex_unlock(&svl_mu);
}
