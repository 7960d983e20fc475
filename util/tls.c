/* tls.c — per-thread cached objects freed at thread exit, all on one
 * pthread key (util.h says why there must be only one, reserved early). */
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>

#include "util.h"

#define MAX_SLOTS 16

typedef struct tls_vals {
	void *v[MAX_SLOTS];
	void (*dtor[MAX_SLOTS])(void *);
} tls_vals;

static pthread_key_t exit_key;
static bool exit_key_ok;
static pthread_once_t key_once = PTHREAD_ONCE_INIT;
static atomic_int nslots;
/* Fast access to this thread's values; the key only runs the destructors. */
static _Thread_local tls_vals *mine;

static void thread_exit(void *p)
{
	tls_vals *t = p;
	mine = NULL;
	for (int i = 0; i < MAX_SLOTS; i++)
		if (t->v[i]) {
			void *v = t->v[i];
			t->v[i] = NULL;
			t->dtor[i](v);
		}
	free(t);
}

static void reserve_key(void)
{
	exit_key_ok = pthread_key_create(&exit_key, thread_exit) == 0;
}

void util_tls_init(void)
{
	pthread_once(&key_once, reserve_key);
}

/* The slot's index, numbering it on first use; -1 past MAX_SLOTS. */
static int slot_index(util_tls_slot *s)
{
	int id = atomic_load(&s->id);
	if (!id) {
		int fresh = atomic_fetch_add(&nslots, 1) + 1;
		int expected = 0;
		/* A racing first use may number it too: one index is wasted. */
		id = atomic_compare_exchange_strong(&s->id, &expected, fresh) ? fresh : expected;
	}
	return id <= MAX_SLOTS ? id - 1 : -1;
}

void *util_tls_get(util_tls_slot *s)
{
	int id = atomic_load_explicit(&s->id, memory_order_relaxed);
	if (!id || id > MAX_SLOTS || !mine)
		return NULL;
	return mine->v[id - 1];
}

bool util_tls_set(util_tls_slot *s, void *p, void (*dtor)(void *))
{
	util_tls_init();
	int i = slot_index(s);
	if (!exit_key_ok || i < 0)
		return false;
	if (!mine) {
		tls_vals *t = calloc(1, sizeof(*t));
		if (!t)
			return false;
		if (pthread_setspecific(exit_key, t) != 0) {
			free(t);
			return false;
		}
		mine = t;
	}
	mine->v[i] = p;
	mine->dtor[i] = dtor;
	return true;
}
