/*
 * util.h — the shared helpers every Strata module builds on: errors with
 * SQLSTATEs, arenas, growable buffers, logging, assertions, checksums,
 * hashing and clocks. Depends on nothing but libc.
 *
 * Conventions used across the code base (see docs/development.md):
 *  - functions return 0 on success and -1 on failure, filling a util_err
 *    the caller owns; cleanup happens at one `fail:` label;
 *  - memory lives in arenas by lifetime (session > transaction > statement >
 *    batch); an arena is reset or destroyed wholesale, never freed piecewise.
 */
#ifndef STRATA_UTIL_H
#define STRATA_UTIL_H

#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <time.h>

#define STRATA_VERSION "0.1.0"
/* The PostgreSQL version Strata reports to clients (server_version). */
#define STRATA_PG_VERSION "15.18"
#define STRATA_PG_VERSION_NUM 150018

#define UTIL_UNUSED(x) ((void)(x))
#define UTIL_ARRAY_LEN(a) (sizeof(a) / sizeof((a)[0]))
#define UTIL_MIN(a, b) ((a) < (b) ? (a) : (b))
#define UTIL_MAX(a, b) ((a) > (b) ? (a) : (b))
#define UTIL_LIKELY(x) __builtin_expect(!!(x), 1)
#define UTIL_UNLIKELY(x) __builtin_expect(!!(x), 0)
#define UTIL_PRINTF(f, a) __attribute__((format(printf, f, a)))
#define UTIL_NORETURN __attribute__((noreturn))

/* ---------------------------------------------------------------- errors */

/* SQLSTATE codes: UTIL_E_<NAME>, one table (errcodes.def, generated from
 * PostgreSQL's errcodes.txt by tools/gen_errcodes.py). */
typedef enum util_errcode {
#define UTIL_ERRCODE(name, code, cond, kind) UTIL_E_##name,
#include "errcodes.def"
#undef UTIL_ERRCODE
	UTIL_E__COUNT
} util_errcode;

/* The five-character SQLSTATE of a code, e.g. "42P01". */
const char *util_errcode_sqlstate(util_errcode code);
/* PostgreSQL's condition name, e.g. "undefined_table". */
const char *util_errcode_name(util_errcode code);
/* Looks up a code by SQLSTATE or condition name; -1 if unknown. */
int util_errcode_lookup(const char *sqlstate_or_name);

typedef enum util_severity {
	UTIL_SEV_ERROR = 0, /* default for a zeroed struct */
	UTIL_SEV_FATAL,
	UTIL_SEV_PANIC,
	UTIL_SEV_WARNING,
	UTIL_SEV_NOTICE,
	UTIL_SEV_DEBUG,
	UTIL_SEV_INFO,
	UTIL_SEV_LOG
} util_severity;

#define UTIL_ERR_MSG_MAX 1024
#define UTIL_ERR_NAME_MAX 64

/*
 * An error (or notice) as PostgreSQL reports it: ErrorResponse fields S, V,
 * C, M, D, H, P, plus the schema/table/column/constraint/datatype fields.
 * Fixed-size so that reporting an error never allocates. Empty string means
 * "field absent"; position 0 means no position (1-based, in characters).
 */
typedef struct util_err {
	util_errcode code;
	util_severity severity;
	int position;          /* P: cursor position in the query, 1-based */
	int internal_position; /* p */
	char message[UTIL_ERR_MSG_MAX];
	char detail[UTIL_ERR_MSG_MAX];
	char hint[UTIL_ERR_MSG_MAX];
	char context[UTIL_ERR_MSG_MAX];
	char schema[UTIL_ERR_NAME_MAX];
	char table[UTIL_ERR_NAME_MAX];
	char column[UTIL_ERR_NAME_MAX];
	char datatype[UTIL_ERR_NAME_MAX];
	char constraint[UTIL_ERR_NAME_MAX];
} util_err;

void util_err_clear(util_err *e);
bool util_err_isset(const util_err *e);
/* Sets code and message (printf style), clears the other fields; returns -1
 * so callers can write `return util_err_set(e, ...)`. e may be NULL. */
int util_err_set(util_err *e, util_errcode code, const char *fmt, ...) UTIL_PRINTF(3, 4);
int util_err_vset(util_err *e, util_errcode code, const char *fmt, va_list ap);
void util_err_detail(util_err *e, const char *fmt, ...) UTIL_PRINTF(2, 3);
void util_err_hint(util_err *e, const char *fmt, ...) UTIL_PRINTF(2, 3);
void util_err_context(util_err *e, const char *fmt, ...) UTIL_PRINTF(2, 3);
/* Copies a bounded string into one of the fixed name fields. */
void util_err_field(char *dst, const char *src);
/* "ERROR", "NOTICE", ... as PostgreSQL spells severities. */
const char *util_severity_name(util_severity s);

/* ---------------------------------------------------------------- assertions */

UTIL_NORETURN void util_assert_fail(const char *file, int line, const char *expr,
				    const char *fmt, ...) UTIL_PRINTF(4, 5);

/* UTIL_ASSERT(cond, "context %d", x): an invariant; aborts with context in
 * every build (the cost is a branch). Never use it on client input. */
#define UTIL_ASSERT(cond, ...)                                                       \
	do {                                                                         \
		if (UTIL_UNLIKELY(!(cond)))                                          \
			util_assert_fail(__FILE__, __LINE__, #cond, __VA_ARGS__);    \
	} while (0)

/* Debug-only assertion for hot paths. */
#ifdef NDEBUG
#define UTIL_DASSERT(cond, ...) ((void)0)
#else
#define UTIL_DASSERT(cond, ...) UTIL_ASSERT(cond, __VA_ARGS__)
#endif

/* SQLite-style defensive checks: in debug builds they assert; in release
 * builds they evaluate to the condition so the caller can recover. */
#ifdef NDEBUG
#define UTIL_ALWAYS(x) (x)
#define UTIL_NEVER(x) (x)
#else
#define UTIL_ALWAYS(x) ((x) ? 1 : (util_assert_fail(__FILE__, __LINE__, #x, "ALWAYS"), 0))
#define UTIL_NEVER(x) ((x) ? (util_assert_fail(__FILE__, __LINE__, #x, "NEVER"), 1) : 0)
#endif

/* ---------------------------------------------------------------- memory */

/* Allocation that cannot fail: aborts the process on OOM. Only for small,
 * bounded, startup-time or bookkeeping allocations; data-sized allocations go
 * through arenas with a budget so that OOM becomes SQLSTATE 53200. */
void *util_xmalloc(size_t n);
void *util_xcalloc(size_t n, size_t sz);
void *util_xrealloc(void *p, size_t n);
char *util_xstrdup(const char *s);

/*
 * util_arena: a bump allocator for one lifetime (session, transaction,
 * statement, batch). Allocations are 16-byte aligned, never freed one by
 * one; util_arena_reset() keeps the first block and frees the rest.
 * A budget (bytes, 0 = unlimited) makes allocation fail with NULL once
 * exceeded; callers turn that into 53200. Not thread-safe.
 */
typedef struct util_arena util_arena;

util_arena *util_arena_new(size_t block_size, size_t budget); /* caller frees with _destroy */
void util_arena_destroy(util_arena *a);
void util_arena_reset(util_arena *a);
void *util_arena_alloc(util_arena *a, size_t n); /* NULL over budget or OOM */
void *util_arena_zalloc(util_arena *a, size_t n);
void *util_arena_memdup(util_arena *a, const void *p, size_t n);
/* As util_arena_memdup, but never NULL for n = 0 (one zero byte; p is not
 * read, it may point just past its buffer). */
void *util_arena_memdup_nz(util_arena *a, const void *p, size_t n);
char *util_arena_strdup(util_arena *a, const char *s);
char *util_arena_strndup(util_arena *a, const char *s, size_t n);
char *util_arena_sprintf(util_arena *a, const char *fmt, ...) UTIL_PRINTF(2, 3);
size_t util_arena_used(const util_arena *a);
void util_arena_set_budget(util_arena *a, size_t budget);
/* A position in an arena: util_arena_rewind(a, m) frees everything
 * allocated since util_arena_mark(a) returned m (blocks made since go back
 * to malloc), for work repeated in a loop. Nothing allocated after the mark
 * may be used after the rewind; no reset between the two. */
typedef struct util_arena_pos {
	void *head;
	char *ptr;
	size_t total, used;
} util_arena_pos;
util_arena_pos util_arena_mark(const util_arena *a);
void util_arena_rewind(util_arena *a, const util_arena_pos *m);

/* util_mem_account: the bytes of arena blocks charged to one consumer (the
 * sorts and hash tables of one statement), with a limit (0 = none) past
 * which those arenas refuse to grow. Not thread-safe: the arenas charged to
 * an account are used by one thread. */
typedef struct util_mem_account {
	size_t used, limit, peak;
} util_mem_account;
/* Charges a's blocks (those it has and those it gets) to acct, NULL to stop.
 * acct must outlive a or be detached first. */
void util_arena_set_account(util_arena *a, util_mem_account *acct);
/* True if a's last failed allocation was refused by its budget or its
 * account's limit rather than by malloc. */
bool util_arena_refused(const util_arena *a);

/* ---------------------------------------------------------------- buffers */

/* util_buf: a growable byte buffer (heap). Always NUL-terminated after data
 * so it can be used as a C string. The caller frees with util_buf_free(). */
typedef struct util_buf {
	char *data;
	size_t len;
	size_t cap;
} util_buf;

#define UTIL_BUF_INIT {NULL, 0, 0}
void util_buf_init(util_buf *b);
void util_buf_free(util_buf *b);
/* Grows b to hold extra more bytes and the NUL (util_buf_reserve's slow path). */
void util_buf_grow(util_buf *b, size_t extra);
/* Inline: the writers' per-cell and per-field paths call these millions of
 * times, nearly always with room to spare. */
static inline void util_buf_reserve(util_buf *b, size_t extra)
{
	if (b->len + extra + 1 > b->cap)
		util_buf_grow(b, extra);
}
static inline void util_buf_append(util_buf *b, const void *p, size_t n)
{
	util_buf_reserve(b, n);
	if (n)
		memcpy(b->data + b->len, p, n);
	b->len += n;
	b->data[b->len] = '\0';
}
static inline void util_buf_putc(util_buf *b, char c)
{
	util_buf_reserve(b, 1);
	b->data[b->len++] = c;
	b->data[b->len] = '\0';
}
void util_buf_puts(util_buf *b, const char *s);
void util_buf_printf(util_buf *b, const char *fmt, ...) UTIL_PRINTF(2, 3);
void util_buf_vprintf(util_buf *b, const char *fmt, va_list ap);
void util_buf_put_varint(util_buf *b, uint64_t v);
/* Takes the data out; caller frees with free(); the buffer becomes empty. */
char *util_buf_steal(util_buf *b, size_t *len);

/* Byte-string order: memcmp over the common length, then the shorter
 * first (-1, 0 or 1 on a length difference; memcmp's sign otherwise). Either
 * pointer may be NULL when its length is 0. */
static inline int util_bytes_cmp(const void *a, size_t al, const void *b, size_t bl)
{
	size_t n = al < bl ? al : bl;
	int c = n ? __builtin_memcmp(a, b, n) : 0;
	return c ? c : (al > bl) - (al < bl);
}

/* Big-endian and varint coding on raw memory. */
static inline void util_put_be16(uint8_t *p, uint16_t v) { p[0] = (uint8_t)(v >> 8); p[1] = (uint8_t)v; }
static inline void util_put_be32(uint8_t *p, uint32_t v)
{
	p[0] = (uint8_t)(v >> 24); p[1] = (uint8_t)(v >> 16); p[2] = (uint8_t)(v >> 8); p[3] = (uint8_t)v;
}
static inline void util_put_be64(uint8_t *p, uint64_t v)
{
	util_put_be32(p, (uint32_t)(v >> 32));
	util_put_be32(p + 4, (uint32_t)v);
}
static inline uint16_t util_get_be16(const uint8_t *p) { return (uint16_t)((p[0] << 8) | p[1]); }
static inline uint32_t util_get_be32(const uint8_t *p)
{
	return ((uint32_t)p[0] << 24) | ((uint32_t)p[1] << 16) | ((uint32_t)p[2] << 8) | p[3];
}
static inline uint64_t util_get_be64(const uint8_t *p)
{
	return ((uint64_t)util_get_be32(p) << 32) | util_get_be32(p + 4);
}
/* Inline like util_buf_append: the row packer and the key and value encoders
 * put several of these per row (a call each was ~4% of pgbench -i's CPU). */
static inline void util_buf_reset(util_buf *b)
{
	b->len = 0;
	if (b->data)
		b->data[0] = '\0';
}
static inline void util_buf_put_u8(util_buf *b, uint8_t v)
{
	util_buf_putc(b, (char)v);
}
static inline void util_buf_put_be16(util_buf *b, uint16_t v)
{
	util_buf_reserve(b, 2);
	util_put_be16((uint8_t *)b->data + b->len, v);
	b->len += 2;
	b->data[b->len] = '\0';
}
static inline void util_buf_put_be32(util_buf *b, uint32_t v)
{
	util_buf_reserve(b, 4);
	util_put_be32((uint8_t *)b->data + b->len, v);
	b->len += 4;
	b->data[b->len] = '\0';
}
static inline void util_buf_put_be64(util_buf *b, uint64_t v)
{
	util_buf_reserve(b, 8);
	util_put_be64((uint8_t *)b->data + b->len, v);
	b->len += 8;
	b->data[b->len] = '\0';
}
/* Writes a LEB128 varint, returns bytes written (<= 10). */
size_t util_varint_put(uint8_t *p, uint64_t v);
/* Reads a varint from [p, end); returns bytes read or 0 if malformed/short. */
size_t util_varint_get(const uint8_t *p, const uint8_t *end, uint64_t *v);

/* ---------------------------------------------------------------- logging */

typedef enum util_log_level {
	UTIL_LOG_DEBUG = 0,
	UTIL_LOG_INFO,
	UTIL_LOG_WARNING,
	UTIL_LOG_ERROR,
	UTIL_LOG_FATAL
} util_log_level;

/* Sets the minimum level written to the log (stderr by default). */
void util_log_set_level(util_log_level lvl);
util_log_level util_log_get_level(void);
/* Parses "debug", "info", "warning", "error", "fatal"; -1 if unknown. */
int util_log_parse_level(const char *s);
/* Redirects the log to a file (appended); NULL restores stderr. */
int util_log_set_file(const char *path);
void util_log(util_log_level lvl, const char *fmt, ...) UTIL_PRINTF(2, 3);
#define util_debug(...)                                                              \
	do {                                                                         \
		if (UTIL_UNLIKELY(util_log_get_level() <= UTIL_LOG_DEBUG))            \
			util_log(UTIL_LOG_DEBUG, __VA_ARGS__);                       \
	} while (0)
#define util_info(...) util_log(UTIL_LOG_INFO, __VA_ARGS__)
#define util_warn(...) util_log(UTIL_LOG_WARNING, __VA_ARGS__)

/* ---------------------------------------------------------------- checksums, hashing */

/* CRC32C (Castagnoli), hardware-accelerated when the CPU has SSE4.2. */
uint32_t util_crc32c(uint32_t crc, const void *data, size_t n);
/* LevelDB-style masking so that CRCs of data containing CRCs stay strong. */
static inline uint32_t util_crc_mask(uint32_t crc) { return ((crc >> 15) | (crc << 17)) + 0xa282ead8u; }
static inline uint32_t util_crc_unmask(uint32_t m)
{
	uint32_t r = m - 0xa282ead8u;
	return (r >> 17) | (r << 15);
}

/* A fast 64-bit hash of bytes (not cryptographic); stable across runs and
 * platforms, so it may be stored on disk (bloom filters, salt buckets). */
uint64_t util_hash64(const void *data, size_t n, uint64_t seed);
static inline uint64_t util_hash_mix(uint64_t h)
{
	h ^= h >> 33;
	h *= 0xff51afd7ed558ccdULL;
	h ^= h >> 33;
	h *= 0xc4ceb9fe1a85ec53ULL;
	h ^= h >> 33;
	return h;
}

/* ---------------------------------------------------------------- time */

/* Wall clock, microseconds since the Unix epoch. */
int64_t util_now_us(void);
/* Monotonic clock, microseconds from an arbitrary origin. */
int64_t util_mono_us(void);
/* Sleeps; a blocking wait in the sense of util_wait_begin(). */
void util_sleep_us(int64_t us);
/* The wall-clock time us microseconds from now: a pthread_cond_timedwait
 * deadline (waits that wake now and then to check for a cancel). */
struct timespec util_deadline_us(int64_t us);

/* ---------------------------------------------------------------- blocking waits */

/* A thread about to block on something other than the CPU (a commit's log
 * fsync, a lock, a sleep, a slow client) calls util_wait_begin(), and
 * util_wait_end() once awake; pairs may nest. The hook, installed once by a
 * thread pool (wire/pool.c) before its threads start and never removed, lets
 * the pool run another thread on the core meanwhile; without one both calls
 * do nothing. The hook must not block or throw. */
typedef void (*util_wait_fn)(bool begin);
void util_wait_set_hook(util_wait_fn fn);
void util_wait_begin(void);
void util_wait_end(void);

/* ---------------------------------------------------------------- hash map */

/*
 * util_map: a hash map from byte-string keys to pointers. The map keeps its
 * own copy of each key; values are borrowed (the caller owns them).
 * Iteration order is unspecified. Not thread-safe.
 */
typedef struct util_map_entry {
	uint64_t hash;
	void *key; /* NULL = empty slot */
	size_t klen;
	void *value;
} util_map_entry;

typedef struct util_map {
	util_map_entry *slots;
	size_t cap, n, tombstones;
	bool borrowed; /* keys are the caller's (kept alive, unchanged), not copied */
} util_map;

#define UTIL_MAP_INIT {NULL, 0, 0, 0, false}
/* A map that stores the key pointers it is given instead of copies: for
 * keys that live in an arena at least as long as the map (hot paths). */
#define UTIL_MAP_INIT_BORROWED {NULL, 0, 0, 0, true}
void util_map_free(util_map *m); /* frees keys and slots, not values */
/* Inserts or replaces; returns the previous value or NULL. */
void *util_map_put(util_map *m, const void *key, size_t klen, void *value);
void *util_map_get(const util_map *m, const void *key, size_t klen);
/* Removes; returns the removed value or NULL. */
void *util_map_del(util_map *m, const void *key, size_t klen);
/* Iterates: start with *pos = 0; returns false at the end. */
bool util_map_next(const util_map *m, size_t *pos, const void **key, size_t *klen, void **value);
static inline size_t util_map_count(const util_map *m) { return m->n; }
/* Convenience for C-string and integer keys. */
void *util_map_puts(util_map *m, const char *key, void *value);
void *util_map_gets(const util_map *m, const char *key);
void *util_map_put_u64(util_map *m, uint64_t key, void *value);
void *util_map_get_u64(const util_map *m, uint64_t key);
void *util_map_del_u64(util_map *m, uint64_t key);

/* ---------------------------------------------------------------- per-thread objects */

/* A per-thread cached object that is freed when its thread exits (util/tls.c):
 * a zstd context, the commit path's scratch arrays, an HTTP handle. Every
 * slot shares ONE pthread key, reserved by util_tls_init(): keys are a
 * scarce per-process resource (PTHREAD_KEYS_MAX, 1024) and libpg_query
 * takes one in every thread that parses and never gives it back, so a key
 * created lazily after ~1,000 connections would not exist. A slot is a
 * zero-initialised static: `static util_tls_slot s;`. */
typedef struct util_tls_slot {
	_Atomic int id; /* 0: not yet numbered */
} util_tls_slot;
/* Reserves the key; the server calls it before starting any thread (later
 * calls do nothing). Other programs get it on first use. */
void util_tls_init(void);
/* The calling thread's object in slot s, or NULL. */
void *util_tls_get(util_tls_slot *s);
/* Makes p the calling thread's object in slot s; dtor(p) runs when the
 * thread exits. Returns false if it cannot be kept (no key, out of memory,
 * too many slots): the caller keeps ownership of p and frees it after use. */
bool util_tls_set(util_tls_slot *s, void *p, void (*dtor)(void *));

/* ---------------------------------------------------------------- misc */

/* Random bytes from the OS (getrandom); -1 on failure. */
int util_random_bytes(void *buf, size_t n);
/* Case-insensitive ASCII compare (PostgreSQL's pg_strcasecmp). */
int util_strcasecmp(const char *a, const char *b);
/* Creates a directory and its parents (mode 0700); 0 if it exists. */
int util_mkdir_p(const char *path, util_err *err);
/* fsyncs a directory so that creates and renames inside it are durable. */
int util_fsync_dir(const char *path);
/* The integer in environment variable name (a tuning or test knob), or
 * dflt when it is unset, empty or not a number. */
int64_t util_env_int(const char *name, int64_t dflt);

#endif /* STRATA_UTIL_H */
