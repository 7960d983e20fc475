/*
 * stack.c — PostgreSQL's "stack depth limit exceeded" (54001) instead of a
 * crash for statements nested too deeply: a check of the C stack left to
 * the running thread, called by the recursive parts of the pipeline, and a
 * nesting bound on libpg_query's protobuf parse tree before protobuf-c
 * unpacks it recursively (libpg_query's own parser is iterative, so a long
 * "1+1+...+1" chain parses fine and then nests as deep as it is long).
 */
#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>

#include "sql_int.h"

/* Stack kept free below the limit: error reporting, sanitizer frames and
 * leaf calls (libraries we cannot check) run in it. */
#define STACK_MARGIN (1u << 20)

static __thread uintptr_t stack_limit; /* lowest address recursion may reach; 0 = unknown yet */

static uintptr_t find_limit(void)
{
	pthread_attr_t a;
	void *lo = NULL;
	size_t size = 0;
	if (pthread_getattr_np(pthread_self(), &a) != 0)
		return 1; /* unknown: never fail */
	pthread_attr_getstack(&a, &lo, &size);
	pthread_attr_destroy(&a);
	if (!lo || size <= 2 * STACK_MARGIN)
		return 1;
	return (uintptr_t)lo + STACK_MARGIN;
}

void sql_check_stack_depth(void)
{
	char here;
	if (UTIL_UNLIKELY(!stack_limit))
		stack_limit = find_limit();
	if (UTIL_UNLIKELY((uintptr_t)&here < stack_limit)) {
		util_err *e = ty_errstart(UTIL_E_STATEMENT_TOO_COMPLEX, "stack depth limit exceeded");
		util_err_hint(
		    e, "The statement is nested too deeply; simplify it (Strata's limit is the size of "
		       "its session threads' stacks).");
		ty_errthrow();
	}
}

size_t sql_stack_left(void)
{
	char here;
	if (UTIL_UNLIKELY(!stack_limit))
		stack_limit = find_limit();
	if (stack_limit == 1)
		return SIZE_MAX / 2;
	return (uintptr_t)&here > stack_limit ? (size_t)((uintptr_t)&here - stack_limit) : 0;
}

/* ---------------------------------------------------------------- protobuf nesting */

static bool get_varint(const uint8_t *p, size_t end, size_t *pos, uint64_t *out)
{
	uint64_t v = 0;
	for (int shift = 0; shift < 64; shift += 7) {
		if (*pos >= end)
			return false;
		uint8_t b = p[(*pos)++];
		v |= (uint64_t)(b & 0x7f) << shift;
		if (!(b & 0x80)) {
			*out = v;
			return true;
		}
	}
	return false;
}

typedef struct pb_frame {
	size_t end;    /* end of this message's bytes */
	size_t resume; /* where the parent goes on if this turns out not to be a message */
} pb_frame;

/*
 * The nesting depth of a protobuf message, without its schema: every
 * length-delimited field is tried as a submessage and, if its bytes do not
 * parse as one (a string), skipped as opaque. Iterative; gives up (returns
 * true) past max_depth or after a work budget that only crafted input can
 * exhaust.
 */
bool sql_protobuf_too_deep(const uint8_t *p, size_t n, int max_depth)
{
	pb_frame *st = util_xmalloc(sizeof *st * ((size_t)max_depth + 2));
	int depth = 0;
	st[0].end = n;
	st[0].resume = n;
	size_t pos = 0;
	uint64_t budget = (uint64_t)n * 64 + 100000;
	bool deep = false;
	while (budget--) {
		size_t end = st[depth].end;
		if (pos == end) {
			if (depth == 0)
				break;
			pos = st[depth].resume; /* a complete submessage */
			depth--;
			continue;
		}
		uint64_t tag, v;
		bool ok = get_varint(p, end, &pos, &tag) && (tag >> 3) != 0;
		if (ok) {
			switch (tag & 7) {
			case 0:
				ok = get_varint(p, end, &pos, &v);
				break;
			case 1:
				ok = end - pos >= 8, pos += ok ? 8 : 0;
				break;
			case 5:
				ok = end - pos >= 4, pos += ok ? 4 : 0;
				break;
			case 2:
				ok = get_varint(p, end, &pos, &v) && v <= end - pos;
				if (ok && v >= 2) {
					if (depth + 1 > max_depth) {
						deep = true;
						goto done;
					}
					depth++;
					st[depth].end = pos + (size_t)v;
					st[depth].resume = pos + (size_t)v;
				} else if (ok) {
					pos += (size_t)v;
				}
				break;
			default:
				ok = false;
				break;
			}
		}
		if (!ok) {
			if (depth == 0)
				break;          /* malformed at the top: unpack will say so */
			pos = st[depth].resume; /* not a message after all: opaque bytes */
			depth--;
		}
	}
	if (budget == (uint64_t)-1)
		deep = true;
done:
	free(st);
	return deep;
}
