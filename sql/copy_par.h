/*
 * copy_par.h — the parse pipeline of COPY FROM in text and csv format
 * (copy_par.c). Private to sql/.
 *
 * The connection thread cuts the input into chunks of whole lines and
 * submits them in input order; worker threads parse submitted chunks
 * (split, type input) into datums in the chunk's own arena; the
 * connection thread takes the parsed chunks back in input order and does
 * what must stay ordered (defaults, constraints, the sorted collection,
 * the batch). A fixed number of chunks is in flight, and past twice
 * their usual text (long lines: a chunk is at least one line) only two:
 * the memory stays bounded whatever the input's size and line length.
 *
 * Errors: a chunk's parse stops at its first bad line and keeps the error
 * (nparsed lines before it are good); the consumer reaches it in line
 * order, so the first error in input order is the one reported.
 *
 * Threads start only when a second chunk is submitted (a small COPY
 * parses its one chunk on the connection thread), and the consumer parses
 * a chunk itself when no worker has taken it yet, so the connection
 * thread never idles while parsing is the bottleneck (it also parses
 * later chunks while a worker holds the oldest).
 */
#ifndef SQL_COPY_PAR_H
#define SQL_COPY_PAR_H

#include "sql_int.h"

/* Input text per chunk: the producer ends a chunk at about this many bytes
 * (a longer line makes a longer chunk). */
#define SQL_COPY_CHUNK_BYTES (128u << 10)
/* One chunk of input lines and, once parsed, their rows. */
typedef struct sql_copy_chunk {
	util_buf text;  /* the lines' bytes back to back, without newlines */
	uint32_t *ends; /* ends[i]: end of line i in text; it starts at ends[i-1] (0 for i = 0) */
	int nlines, cap;
	int64_t first_line; /* input line number of line 0 */
	/* Set by the parse function (in arena, which is the current ty arena
	 * while it runs): */
	ty_datum *rows;    /* per line, the parse function's row */
	util_arena *arena; /* reset when the slot is reused */
	int nparsed;       /* lines parsed without error */
	/* The parse function's own bytes per line, if it makes any (COPY's
	 * direct path: each row's packed cells): line i's are
	 * cells.data[cell_ends[i-1] .. cell_ends[i]) (from 0 for i = 0);
	 * cell_ends is in arena. Emptied with the slot. */
	util_buf cells;
	uint32_t *cell_ends;
	bool failed;       /* line nparsed failed with err */
	bool fail_early;   /* the parse function's mark: it failed before its row began */
	util_err err;
	bool done; /* guarded by the pipeline's mutex */
} sql_copy_chunk;

/* Parses every line of c (or up to the first bad one, setting nparsed as it
 * goes, then throwing). Runs on a worker or on the connection thread with
 * the session's ty settings, and must only read state that stays
 * unchanged during the COPY. */
typedef void (*sql_copy_parse_fn)(void *arg, sql_copy_chunk *c);

typedef struct sql_copy_par sql_copy_par;

/* Caller frees with sql_copy_par_free(). nworkers threads at most (0: the
 * connection thread parses everything); arg and tys must outlive it. */
sql_copy_par *sql_copy_par_new(int nworkers, sql_copy_parse_fn parse, void *arg, const ty_settings *tys);
/* Stops the workers (each ends after the chunk it parses) and joins them. */
void sql_copy_par_free(sql_copy_par *p);

/* The next free chunk to fill, emptied, or NULL when every slot is in
 * flight (or the text in flight is over its bound, see above). Valid until
 * sql_copy_par_submit() or the next call. */
sql_copy_chunk *sql_copy_par_slot(sql_copy_par *p);
/* Ends the line the caller appended to c->text (its bytes up to
 * text.len), numbered line in the input. */
void sql_copy_chunk_add(sql_copy_chunk *c, int64_t line);
/* Submits the chunk sql_copy_par_slot() returned (with at least one line). */
void sql_copy_par_submit(sql_copy_par *p);

/* The oldest submitted chunk, parsed (waiting for it, checking interrupts,
 * or parsing it here), or NULL if none is in flight. Valid until
 * sql_copy_par_release(). */
sql_copy_chunk *sql_copy_par_next(sql_copy_par *p);
void sql_copy_par_release(sql_copy_par *p);

/* Number of worker threads started so far (tests, EXPLAIN-like reports). */
int sql_copy_par_started(const sql_copy_par *p);

#endif
