/* mem.c — process-level allocation wrappers and the bump arena. */
#include "util.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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
	size_t budget; /* 0 = unlimited */
	size_t total;  /* bytes of all blocks */
	size_t used;   /* bytes handed out */
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

bool util_arena_refused(const util_arena *a) { return a && a->refused; }

util_arena *util_arena_new(size_t block_size, size_t budget)
{
	util_arena *a = util_xcalloc(1, sizeof *a);
	a->block_size = block_size ? block_size : 8192;
	a->budget = budget;
	return a;
}

static void free_chain(arena_block *b, arena_block *stop)
{
	while (b && b != stop) {
		arena_block *n = b->next;
		free(b);
		b = n;
	}
}

void util_arena_destroy(util_arena *a)
{
	if (!a)
		return;
	uncharge(a, a->charged);
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
			sz = UTIL_MIN(a->total / 8, (size_t)1 << 20) > sz ? UTIL_MIN(a->total / 8, (size_t)1 << 20) : sz;
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

char *util_arena_strdup(util_arena *a, const char *s) { return util_arena_strndup(a, s, strlen(s)); }

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

size_t util_arena_used(const util_arena *a) { return a->total; }
void util_arena_set_budget(util_arena *a, size_t budget) { a->budget = budget; }
