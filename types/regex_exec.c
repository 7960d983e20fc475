/*
 * regex_exec.c — matching with PostgreSQL's (Spencer's) semantics:
 *
 * 1. The overall match is the leftmost one; among matches starting there,
 *    the longest, or the shortest when the RE as a whole is non-greedy
 *    (its first quantifier with a preference is non-greedy). Found with one
 *    Thompson-NFA pass whose threads carry their start position.
 * 2. The match is dissected into capture groups along the subre tree built
 *    by the parser: a concatenation splits where its left part is longest
 *    (shortest if that part prefers shorter) such that the right part still
 *    matches; an alternation takes the first branch matching the whole
 *    span; an iteration takes each repetition longest (or shortest) first,
 *    keeping the captures of the last repetition. Split points come from
 *    one forward and one reversed NFA pass per node, so dissection costs
 *    O(text * program) per tree node.
 * 3. Back-references make matching non-regular: their NFA stands in with a
 *    superset, and candidate (start, end) pairs are verified by dissection
 *    with backtracking (as PostgreSQL does, which can take exponential
 *    time). Only then do simulation steps count against a budget: past it
 *    the match fails with "invalid regular expression: regular expression
 *    is too complex" instead of running for hours. Every simulation checks
 *    for query cancellation / statement_timeout.
 */
#include "regex_int.h"

/* Simulation steps allowed per text when back-references force
 * backtracking (a few seconds of CPU). Without back-references the work is
 * polynomial by construction and only query cancellation limits it. */
uint64_t ty_re_backref_budget = 500000000ULL;

/* ---------------------------------------------------------------- preparation */

static void prep(ty_regex *re, re_sub *t)
{
	switch (t->op) {
	case '.': {
		re_sub *l = t->child, *r = l->sibling;
		if (!l->fwd)
			l->fwd = ty_re_compile_prog(re, l->ast, false);
		if (!r->rev)
			r->rev = ty_re_compile_prog(re, r->ast, true);
		prep(re, l);
		prep(re, r);
		break;
	}
	case '|':
		for (re_sub *c = t->child; c; c = c->sibling) {
			if (!c->fwd)
				c->fwd = ty_re_compile_prog(re, c->ast, false);
			prep(re, c);
		}
		break;
	case '*':
		if (!t->child->fwd)
			t->child->fwd = ty_re_compile_prog(re, t->child->ast, false);
		prep(re, t->child);
		break;
	case '(':
		prep(re, t->child);
		break;
	default:
		break;
	}
}

void ty_re_prepare(ty_regex *re)
{
	prep(re, re->tree);
}

/* ---------------------------------------------------------------- work buffers */

/* A zeroed buffer of at least n bytes, released by tmp_pop() in LIFO
 * order; buffers are kept and reused by later calls at the same depth. */
static void *tmp_push(re_exec *x, size_t n)
{
	if (x->ntmp == x->tmpcap) {
		int cap = x->tmpcap ? x->tmpcap * 2 : 16;
		struct re_tmp *t = ty_alloc0((size_t)cap * sizeof *t);
		if (x->ntmp)
			memcpy(t, x->tmp, (size_t)x->ntmp * sizeof *t);
		x->tmp = t;
		x->tmpcap = cap;
	}
	struct re_tmp *t = &x->tmp[x->ntmp++];
	if (t->cap < n) {
		t->cap = n < 64 ? 64 : n;
		t->p = ty_alloc(t->cap);
	}
	memset(t->p, 0, n);
	return t->p;
}

static void tmp_pop(re_exec *x, int k)
{
	x->ntmp -= k;
}

/* ---------------------------------------------------------------- dissection */

static bool dissect(re_exec *x, re_sub *t, int b, int e);

static void zap(re_exec *x, re_sub *t)
{
	if (t->capno > 0)
		x->caps[2 * t->capno] = x->caps[2 * t->capno + 1] = -1;
	for (re_sub *c = t->child; c; c = c->sibling)
		zap(x, c);
}

static bool condissect(re_exec *x, re_sub *t, int b, int e)
{
	re_sub *l = t->child, *r = l->sibling;
	size_t len = (size_t)(e - b) + 1;
	uint8_t *lend = tmp_push(x, len), *rstart = tmp_push(x, len);
	ty_re_reach(x, l->fwd, b, e, lend, b);
	ty_re_reach(x, r->rev, e, b, rstart, b);
	bool shorter = (l->flags & SR_SHORTER) != 0, ok = false;
	for (int k = shorter ? b : e; shorter ? k <= e : k >= b; k += shorter ? 1 : -1) {
		if (!lend[k - b] || !rstart[k - b])
			continue;
		if (dissect(x, l, b, k) && dissect(x, r, k, e)) {
			ok = true;
			break;
		}
		zap(x, l);
		zap(x, r);
	}
	tmp_pop(x, 2);
	return ok;
}

static bool altdissect(re_exec *x, re_sub *t, int b, int e)
{
	for (re_sub *c = t->child; c; c = c->sibling) {
		if (ty_re_longest(x, c->fwd, b, e) != e)
			continue;
		if (dissect(x, c, b, e))
			return true;
		zap(x, c);
	}
	return false;
}

/* Verifies sub-matches nverified+1..k; returns the first failing index,
 * or k + 1. */
static int verify(re_exec *x, re_sub *child, const int *endpts, int from, int k)
{
	int i;
	for (i = from; i <= k; i++) {
		zap(x, child);
		if (!dissect(x, child, endpts[i - 1], endpts[i]))
			break;
	}
	return i;
}

/* Greedy iteration: each repetition as long as possible, zero-length
 * repetitions only when needed to reach the minimum. */
static bool iterdissect(re_exec *x, re_sub *t, int b, int e)
{
	re_sub *child = t->child;
	int min = t->min <= 0 ? 1 : t->min;
	int64_t maxm = e - b;
	if (t->max != RE_INF && maxm > t->max)
		maxm = t->max;
	if (maxm < min)
		maxm = min;
	int *endpts = tmp_push(x, ((size_t)maxm + 1) * sizeof *endpts);
	bool ok = false;
	endpts[0] = b;
	int nverified = 0, k = 1, limit = e;
	while (k > 0) {
		int ep = ty_re_longest(x, child->fwd, endpts[k - 1], limit);
		if (ep < 0) {
			k--;
			goto backtrack;
		}
		endpts[k] = ep;
		if (nverified >= k)
			nverified = k - 1;
		if (ep != e) {
			if (k >= maxm) {
				k--;
				goto backtrack;
			}
			if (ep == endpts[k - 1] && (k >= min || min - k < e - ep))
				goto backtrack;
			k++;
			limit = e;
			continue;
		}
		if (k < min)
			goto backtrack;
		int i = verify(x, child, endpts, nverified + 1, k);
		if (i > k) {
			ok = true;
			break;
		}
		nverified = i - 1;
		k = i;
	backtrack:
		while (k > 0) {
			int prev = endpts[k - 1];
			if (endpts[k] > prev) {
				limit = endpts[k] - 1;
				if (limit > prev || (k < min && min - k >= e - prev))
					break;
			}
			k--;
		}
	}
	tmp_pop(x, 1);
	/* zero repetitions match an empty span */
	return ok || (t->min == 0 && b == e);
}

/* Non-greedy iteration: each repetition as short as possible. */
static bool reviterdissect(re_exec *x, re_sub *t, int b, int e)
{
	re_sub *child = t->child;
	int min = t->min;
	if (min <= 0) {
		if (b == e)
			return true;
		min = 1;
	}
	int64_t maxm = e - b;
	if (t->max != RE_INF && maxm > t->max)
		maxm = t->max;
	if (maxm < min)
		maxm = min;
	int *endpts = tmp_push(x, ((size_t)maxm + 1) * sizeof *endpts);
	bool ok = false;
	endpts[0] = b;
	int nverified = 0, k = 1, limit = b;
	while (k > 0) {
		if (limit == endpts[k - 1] && limit != e && (k >= min || min - k < e - limit))
			limit++;
		if (k >= maxm)
			limit = e;
		int ep = ty_re_shortest(x, child->fwd, endpts[k - 1], limit, e);
		if (ep < 0) {
			k--;
			goto backtrack;
		}
		endpts[k] = ep;
		if (nverified >= k)
			nverified = k - 1;
		if (ep != e) {
			if (k >= maxm) {
				k--;
				goto backtrack;
			}
			k++;
			limit = endpts[k - 1];
			continue;
		}
		if (k < min)
			goto backtrack;
		int i = verify(x, child, endpts, nverified + 1, k);
		if (i > k) {
			ok = true;
			break;
		}
		nverified = i - 1;
		k = i;
	backtrack:
		while (k > 0) {
			if (endpts[k] < e) {
				limit = endpts[k] + 1;
				break;
			}
			k--;
		}
	}
	tmp_pop(x, 1);
	return ok;
}

static uint32_t fold(const re_exec *x, uint32_t c)
{
	return ((x->re->cflags & RE_ICASE) && c >= 'A' && c <= 'Z') ? c + 32 : c;
}

static bool backref_dissect(re_exec *x, re_sub *t, int b, int e)
{
	int so = x->caps[2 * t->backno], eo = x->caps[2 * t->backno + 1];
	if (so < 0)
		return false;
	int brlen = eo - so;
	if (brlen == 0)
		return b == e;
	if (b == e)
		return t->min == 0;
	int tlen = e - b;
	if (tlen % brlen != 0)
		return false;
	int reps = tlen / brlen;
	if (reps < t->min || (t->max != RE_INF && reps > t->max))
		return false;
	ty_re_count_steps(x, (uint64_t)tlen);
	for (int r = 0; r < reps; r++)
		for (int i = 0; i < brlen; i++)
			if (fold(x, x->text[so + i]) != fold(x, x->text[b + r * brlen + i]))
				return false;
	return true;
}

static bool dissect(re_exec *x, re_sub *t, int b, int e)
{
	bool ok;
	ty_re_count_steps(x, 1);
	switch (t->op) {
	case '=':
		ok = true;
		break;
	case 'b':
		ok = backref_dissect(x, t, b, e);
		break;
	case '(':
		ok = dissect(x, t->child, b, e);
		break;
	case '.':
		ok = condissect(x, t, b, e);
		break;
	case '|':
		ok = altdissect(x, t, b, e);
		break;
	default: /* '*' */
		ok = (t->child->flags & SR_SHORTER) ? reviterdissect(x, t, b, e) : iterdissect(x, t, b, e);
		break;
	}
	if (ok && t->capno > 0) {
		x->caps[2 * t->capno] = b;
		x->caps[2 * t->capno + 1] = e;
	}
	return ok;
}

/* ---------------------------------------------------------------- searching */

re_exec *ty_re_exec_new(const ty_regex *re, const char *s, size_t len)
{
	re_exec *x = ty_alloc0(sizeof *x);
	x->re = re;
	uint32_t *text = ty_alloc((len + 1) * sizeof *text);
	uint32_t *off = ty_alloc((len + 1) * sizeof *off);
	int n = 0;
	for (size_t i = 0; i < len;) {
		int l;
		off[n] = (uint32_t)i;
		text[n++] = ty_str_decode(s + i, len - i, &l);
		i += (size_t)l;
	}
	off[n] = (uint32_t)len;
	x->text = text;
	x->off = off;
	x->n = n;
	x->caps = ty_alloc((size_t)(2 * (re->ncap + 1)) * sizeof *x->caps);
	x->look_memo = ty_alloc0((size_t)(re->nlooks + 1) * sizeof *x->look_memo);
	x->scratch = ty_alloc0((size_t)re->nprogs * sizeof *x->scratch);
	x->budget = re->has_backref ? ty_re_backref_budget : UINT64_MAX;
	return x;
}

bool ty_re_find(re_exec *x, int start)
{
	const ty_regex *re = x->re;
	bool shortest = (re->tree->flags & SR_SHORTER) != 0;
	for (int i = 0; i < 2 * (re->ncap + 1); i++)
		x->caps[i] = -1;
	if (start > x->n)
		return false;
	int s, e;
	if (!re->has_backref) {
		if (!ty_re_search(x, re->search, start, shortest, &s, &e))
			return false;
		dissect(x, re->tree, s, e);
		x->caps[0] = s;
		x->caps[1] = e;
		return true;
	}
	/* With back-references: candidate starts from the approximate NFA,
	 * ends in preference order, each verified by dissection. */
	uint8_t *ends = tmp_push(x, (size_t)x->n + 1);
	int from = start;
	while (from <= x->n && ty_re_search(x, re->search, from, shortest, &s, &e)) {
		memset(ends, 0, (size_t)(x->n - s) + 1);
		ty_re_reach(x, re->search, s, x->n, ends, s);
		for (int k = shortest ? s : x->n; shortest ? k <= x->n : k >= s; k += shortest ? 1 : -1) {
			if (!ends[k - s])
				continue;
			zap(x, re->tree);
			if (dissect(x, re->tree, s, k)) {
				tmp_pop(x, 1);
				x->caps[0] = s;
				x->caps[1] = k;
				return true;
			}
		}
		from = s + 1;
	}
	tmp_pop(x, 1);
	for (int i = 0; i < 2 * (re->ncap + 1); i++)
		x->caps[i] = -1;
	return false;
}

/* ---------------------------------------------------------------- public API */

int ty_regex_ncaptures(const ty_regex *re)
{
	return re->ncap;
}

bool ty_regex_match(const ty_regex *re, const char *s, size_t len)
{
	/* The lazy DFA is a cache inside the compiled regex, not a change to
	 * what it means. */
	int r = ty_re_dfa_match((ty_regex *)re, s, len);
	if (r == 0 || (r == 1 && !re->has_backref))
		return r == 1;
	re_exec *x = ty_re_exec_new(re, s, len);
	int ms, me;
	if (!re->has_backref)
		return ty_re_search(x, re->search, 0, true, &ms, &me);
	return ty_re_find(x, 0);
}

bool ty_regex_prefix(const ty_regex *re, util_buf *out)
{
	for (int i = 0; i < re->nprefix; i++) {
		char buf[4];
		int l = ty_str_encode(re->prefix[i], buf);
		util_buf_append(out, buf, (size_t)l);
	}
	return re->exact;
}
