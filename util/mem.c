/* mem.c — process-level allocation wrappers, the bump arena, and a small
 * per-thread cache of destroyed arenas for the ones made and dropped per
 * statement (transaction, batches, scans). */
#include "util.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#if defined(__SANITIZE_ADDRESS__)
#define ARENA_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define ARENA_ASAN 1
#endif
#endif
#ifdef ARENA_ASAN
#include <sanitizer/asan_interface.h>
#define POISON(p, n)   ASAN_POISON_MEMORY_REGION((p), (n))
#define UNPOISON(p, n) ASAN_UNPOISON_MEMORY_REGION((p), (n))
#else
#define POISON(p, n)   ((void)(p), (void)(n))
#define UNPOISON(p, n) ((void)(p), (void)(n))
#endif

static UTIL_NORETURN void oom(size_t n)
{
	fprintf(stderr, "strata: out of memory allocating %zu bytes\n", n);
	abort();
}

void *util_xmalloc(size_t n)
{
	void *p = malloc(n ? n : 1);
	if (!p)
		oom(n);
	return p;
}

void *util_xcalloc(size_t n, size_t sz)
{
	void *p = calloc(n ? n : 1, sz ? sz : 1);
	if (!p)
		oom(n * sz);
	return p;
}

void *util_xrealloc(void *p, size_t n)
{
	void *q = realloc(p, n ? n : 1);
	if (!q)
		oom(n);
	return q;
}

char *util_xstrdup(const char *s)
{
	size_t n = strlen(s) + 1;
	return memcpy(util_xmalloc(n), s, n);
}

/* A block header; data follows, 16-byte aligned. */
typedef struct arena_block {
	struct arena_block *next;
	size_t size; /* usable bytes after the header */
	size_t _pad;
	size_t _pad2;
} arena_block;

struct util_arena {
	arena_block *head;  /* current block (newest) */
	arena_block *first; /* kept across resets */
	char *ptr, *end;    /* free space in head */
	size_t block_size;
	size_t budget;          /* 0 = unlimited */
	size_t total;           /* bytes of all blocks */
	size_t used;            /* bytes handed out */
	util_mem_account *acct; /* NULL = not charged */
	size_t charged;         /* bytes charged to acct */
	bool refused;           /* the last failure was the budget's or the account's */
};

static void uncharge(util_arena *a, size_t n)
{
	if (!a->acct)
		return;
	n = UTIL_MIN(n, a->charged);
	a->charged -= n;
	a->acct->used -= UTIL_MIN(n, a->acct->used);
}

void util_arena_set_account(util_arena *a, util_mem_account *acct)
{
	uncharge(a, a->charged);
	a->acct = acct;
	if (acct) {
		a->charged = a->total;
		acct->used += a->total;
		acct->peak = UTIL_MAX(acct->peak, acct->used);
	}
}

bool util_arena_refused(const util_arena *a)
{
	return a && a->refused;
}

/*
 * The arena cache. A point read through the extended protocol made and
 * dropped about eight arenas (transaction 64 KiB, two 32 KiB batches, scan
 * and get state): a calloc, a malloc and two frees each, and freeing the
 * 64 KiB block made glibc consolidate its fast bins every statement. A
 * destroyed arena whose only block is the usual size goes to its thread's
 * cache instead (at most CACHE_MAX arenas, CACHE_BYTES of blocks) and the
 * next util_arena_new of that block size takes it back. Under ASan the
 * cached block is poisoned, so a use after destroy is still caught.
 */
#define CACHE_MAX       8
#define CACHE_BYTES     (256 * 1024)
#define CACHE_BLOCK_MAX (64 * 1024)

typedef struct arena_cache {
	int n;
	size_t bytes;
	util_arena *a[CACHE_MAX];
} arena_cache;

static util_tls_slot cache_slot;
static _Thread_local arena_cache *tcache;
static _Thread_local bool tcache_gone; /* the thread is exiting: cache nothing */

static void free_chain(arena_block *b, arena_block *stop)
{
	while (b && b != stop) {
		arena_block *n = b->next;
		free(b);
		b = n;
	}
}

static void cache_free(void *p)
{
	arena_cache *c = p;
	tcache = NULL;
	tcache_gone = true;
	for (int i = 0; i < c->n; i++) {
		UNPOISON(c->a[i]->first + 1, c->a[i]->first->size);
		free(c->a[i]->first);
		free(c->a[i]);
	}
	free(c);
}

static arena_cache *cache_get(void)
{
	if (tcache || tcache_gone)
		return tcache;
	arena_cache *c = calloc(1, sizeof *c);
	if (!c)
		return NULL;
	if (!util_tls_set(&cache_slot, c, cache_free)) {
		free(c);
		tcache_gone = true; /* no destructor would free it: do without */
		return NULL;
	}
	tcache = c;
	return c;
}

/* Keeps a (already uncharged, one block of block_size) for reuse; false if
 * the cache is full. */
static bool cache_put(util_arena *a)
{
	arena_cache *c = cache_get();
	if (!c || c->n == CACHE_MAX || c->bytes + a->block_size > CACHE_BYTES)
		return false;
	POISON(a->first + 1, a->first->size);
	c->a[c->n++] = a;
	c->bytes += a->block_size;
	return true;
}

static util_arena *cache_take(size_t block_size)
{
	arena_cache *c = tcache;
	if (!c)
		return NULL;
	for (int i = c->n - 1; i >= 0; i--) {
		util_arena *a = c->a[i];
		if (a->block_size != block_size)
			continue;
		c->a[i] = c->a[--c->n];
		c->bytes -= block_size;
		arena_block *b = a->first;
		UNPOISON(b + 1, b->size);
		b->next = NULL;
		a->head = b;
		a->ptr = (char *)(b + 1);
		a->end = a->ptr + b->size;
		a->total = b->size;
		a->used = 0;
		a->budget = 0;
		a->acct = NULL;
		a->charged = 0;
		a->refused = false;
		return a;
	}
	return NULL;
}

util_arena *util_arena_new(size_t block_size, size_t budget)
{
	block_size = block_size ? block_size : 8192;
	/* A budget below one block must refuse the first allocation as before. */
	util_arena *a = !budget || budget >= block_size ? cache_take(block_size) : NULL;
	if (!a) {
		a = util_xcalloc(1, sizeof *a);
		a->block_size = block_size;
	}
	a->budget = budget;
	return a;
}

void util_arena_destroy(util_arena *a)
{
	if (!a)
		return;
	uncharge(a, a->charged);
	if (a->first && a->first->size == a->block_size && a->block_size <= CACHE_BLOCK_MAX) {
		/* Keep the first block only; the rest goes back to malloc. */
		free_chain(a->head, a->first);
		a->first->next = NULL;
		a->head = a->first;
		if (cache_put(a))
			return;
	}
	free_chain(a->head, NULL);
	free(a);
}

void util_arena_reset(util_arena *a)
{
	if (!a->first)
		return;
	/* Blocks are linked newest first; the first block is the tail. */
	free_chain(a->head, a->first);
	uncharge(a, a->total - a->first->size);
	a->first->next = NULL;
	a->head = a->first;
	a->ptr = (char *)(a->first + 1);
	a->end = a->ptr + a->first->size;
	a->total = a->first->size;
	a->used = 0;
}

void *util_arena_alloc(util_arena *a, size_t n)
{
	n = (n + 15) & ~(size_t)15;
	if (n == 0)
		n = 16;
	if ((size_t)(a->end - a->ptr) < n) {
		size_t sz = n > a->block_size / 4 ? n : a->block_size;
		/* Grow blocks geometrically for long-lived arenas, capped. */
		if (a->total > sz * 8 && sz < (1u << 20))
			sz = UTIL_MIN(a->total / 8, (size_t)1 << 20) > sz
				 ? UTIL_MIN(a->total / 8, (size_t)1 << 20)
				 : sz;
		if ((a->budget && a->total + sz > a->budget) ||
		    (a->acct && a->acct->limit && a->acct->used + sz > a->acct->limit)) {
			a->refused = true;
			return NULL;
		}
		arena_block *b = malloc(sizeof *b + sz);
		if (!b) {
			a->refused = false;
			return NULL;
		}
		if (a->acct) {
			a->charged += sz;
			a->acct->used += sz;
			a->acct->peak = UTIL_MAX(a->acct->peak, a->acct->used);
		}
		b->size = sz;
		b->next = a->head;
		a->head = b;
		if (!a->first)
			a->first = b;
		a->total += sz;
		a->ptr = (char *)(b + 1);
		a->end = a->ptr + sz;
	}
	void *p = a->ptr;
	a->ptr += n;
	a->used += n;
	return p;
}

void *util_arena_zalloc(util_arena *a, size_t n)
{
	void *p = util_arena_alloc(a, n);
	if (p)
		memset(p, 0, n);
	return p;
}

void *util_arena_memdup(util_arena *a, const void *p, size_t n)
{
	void *q = util_arena_alloc(a, n);
	if (q && n)
		memcpy(q, p, n);
	return q;
}

void *util_arena_memdup_nz(util_arena *a, const void *p, size_t n)
{
	if (n)
		return util_arena_memdup(a, p, n);
	char *q = util_arena_alloc(a, 1);
	if (q)
		*q = 0;
	return q;
}

char *util_arena_strndup(util_arena *a, const char *s, size_t n)
{
	char *q = util_arena_alloc(a, n + 1);
	if (q) {
		memcpy(q, s, n);
		q[n] = '\0';
	}
	return q;
}

char *util_arena_strdup(util_arena *a, const char *s)
{
	return util_arena_strndup(a, s, strlen(s));
}

char *util_arena_sprintf(util_arena *a, const char *fmt, ...)
{
	va_list ap, ap2;
	va_start(ap, fmt);
	va_copy(ap2, ap);
	int n = vsnprintf(NULL, 0, fmt, ap);
	va_end(ap);
	char *q = n >= 0 ? util_arena_alloc(a, (size_t)n + 1) : NULL;
	if (q)
		vsnprintf(q, (size_t)n + 1, fmt, ap2);
	va_end(ap2);
	return q;
}

size_t util_arena_used(const util_arena *a)
{
	return a->total;
}

util_arena_pos util_arena_mark(const util_arena *a)
{
	return (util_arena_pos){a->head, a->ptr, a->total, a->used};
}

void util_arena_rewind(util_arena *a, const util_arena_pos *m)
{
	arena_block *head = m->head;
	/* Blocks are linked newest first: those before the mark's go. */
	free_chain(a->head, head);
	uncharge(a, a->total - m->total);
	a->head = head;
	if (!head)
		a->first = NULL;
	a->ptr = m->ptr;
	a->end = head ? (char *)(head + 1) + head->size : NULL;
	a->total = m->total;
	a->used = m->used;
}
void util_arena_set_budget(util_arena *a, size_t budget)
{
	a->budget = budget;
}
