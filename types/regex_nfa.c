/*
 * regex_nfa.c — Thompson NFAs for the regex engine: compiling AST
 * fragments into programs (forward, or reversed to run right-to-left) and
 * simulating them with sparse state sets, which bounds every simulation by
 * O(characters * instructions) whatever the pattern (no exponential
 * backtracking). Constraints (^ $ \A \Z word boundaries) are position
 * tests; lookahead/lookbehind constraints run their own program, memoized
 * per position.
 */
#include "regex_int.h"

#define MAX_INSTS  500000
#define STEP_CHECK 65536

/* ---------------------------------------------------------------- compiling */

typedef struct cbuf {
	ty_regex *re;
	re_inst *code;
	int n, cap;
	bool reversed;
	int noconstraints; /* inside a back-reference's stand-in NFA */
} cbuf;

static int emit(cbuf *b, int op, int x, int y, int arg)
{
	if (b->n == b->cap) {
		int cap = b->cap ? b->cap * 2 : 64;
		if (cap > MAX_INSTS + 16)
			ty_re_error("regular expression is too complex");
		re_inst *c = util_arena_alloc(b->re->arena, (size_t)cap * sizeof *c);
		if (!c)
			ty_error(UTIL_E_OUT_OF_MEMORY, "out of memory");
		if (b->n)
			memcpy(c, b->code, (size_t)b->n * sizeof *c);
		b->code = c;
		b->cap = cap;
	}
	if (b->n >= MAX_INSTS)
		ty_re_error("regular expression is too complex");
	re_inst *i = &b->code[b->n];
	i->op = (uint8_t)op;
	i->x = x;
	i->y = y;
	i->arg = arg;
	return b->n++;
}

static void comp(cbuf *b, const re_ast *a)
{
	switch (a->kind) {
	case A_EMPTY:
		break;
	case A_SET:
		emit(b, I_SET, b->n + 1, 0, a->arg);
		break;
	case A_ASSERT:
		if (!b->noconstraints)
			emit(b, I_ASSERT, b->n + 1, 0, a->arg);
		break;
	case A_LOOK:
		if (!b->noconstraints)
			emit(b, I_LOOK, b->n + 1, 0, a->arg);
		break;
	case A_BACKREF:
		/* Stand-in: the referenced group's NFA without its constraints
		 * (a superset; the dissection checks the real text). */
		b->noconstraints++;
		comp(b, b->re->groups[a->arg]);
		b->noconstraints--;
		break;
	case A_GROUP:
		comp(b, a->a);
		break;
	case A_CAT:
		comp(b, b->reversed ? a->b : a->a);
		comp(b, b->reversed ? a->a : a->b);
		break;
	case A_ALT: {
		int split = emit(b, I_SPLIT, 0, 0, 0);
		b->code[split].x = b->n;
		comp(b, a->a);
		int jmp = emit(b, I_JMP, 0, 0, 0);
		b->code[split].y = b->n;
		comp(b, a->b);
		b->code[jmp].x = b->n;
		break;
	}
	case A_REP: {
		for (int i = 0; i < a->min; i++)
			comp(b, a->a);
		if (a->max == RE_INF) {
			int split = emit(b, I_SPLIT, 0, 0, 0);
			b->code[split].x = b->n;
			comp(b, a->a);
			emit(b, I_JMP, split, 0, 0);
			b->code[split].y = b->n;
		} else {
			int nopt = a->max - a->min, *splits = NULL;
			if (nopt > 0) {
				splits = util_arena_alloc(b->re->arena, (size_t)nopt * sizeof *splits);
				if (!splits)
					ty_error(UTIL_E_OUT_OF_MEMORY, "out of memory");
			}
			for (int i = 0; i < nopt; i++) {
				splits[i] = emit(b, I_SPLIT, 0, 0, 0);
				b->code[splits[i]].x = b->n;
				comp(b, a->a);
			}
			for (int i = 0; i < nopt; i++)
				b->code[splits[i]].y = b->n;
		}
		break;
	}
	default:
		break;
	}
}

re_prog *ty_re_compile_prog(ty_regex *re, re_ast *ast, bool reversed)
{
	cbuf b = {re, NULL, 0, 0, reversed, 0};
	comp(&b, ast);
	emit(&b, I_MATCH, 0, 0, 0);
	re_prog *p = util_arena_zalloc(re->arena, sizeof *p);
	if (!p)
		ty_error(UTIL_E_OUT_OF_MEMORY, "out of memory");
	p->code = b.code;
	p->n = b.n;
	p->reversed = reversed;
	/* register for per-execution scratch */
	if ((re->nprogs & (re->nprogs - 1)) == 0) {
		int cap = re->nprogs ? re->nprogs * 2 : 8;
		re_prog **v = util_arena_alloc(re->arena, (size_t)cap * sizeof *v);
		if (!v)
			ty_error(UTIL_E_OUT_OF_MEMORY, "out of memory");
		if (re->nprogs)
			memcpy(v, re->progs, (size_t)re->nprogs * sizeof *v);
		re->progs = v;
	}
	p->id = re->nprogs;
	re->progs[re->nprogs++] = p;
	return p;
}

/* Which characters can begin a match, and whether matches can only start
 * at the beginning: the epsilon closure of the start state, constraints
 * passed through (a superset) except ^/\A for anchoring. */
static void first_closure(ty_regex *re, const re_prog *p, bool stop_at_anchor, bool *seen_set,
			  bool *seen_match)
{
	bool *visited = util_arena_zalloc(re->arena, (size_t)p->n);
	int *stack = util_arena_alloc(re->arena, (2 * (size_t)p->n + 2) * sizeof *stack);
	if (!visited || !stack)
		ty_error(UTIL_E_OUT_OF_MEMORY, "out of memory");
	int sp = 0;
	stack[sp++] = 0;
	while (sp > 0) {
		int pc = stack[--sp];
		if (visited[pc])
			continue;
		visited[pc] = true;
		const re_inst *in = &p->code[pc];
		switch (in->op) {
		case I_SPLIT:
			stack[sp++] = in->y;
			stack[sp++] = in->x;
			break;
		case I_JMP:
			stack[sp++] = in->x;
			break;
		case I_ASSERT:
			if (stop_at_anchor &&
			    (in->arg == AS_BOS || (in->arg == AS_BOL && !(re->cflags & RE_NLANCH))))
				break;
			stack[sp++] = in->x;
			break;
		case I_LOOK:
			stack[sp++] = in->x;
			break;
		case I_MATCH:
			*seen_match = true;
			break;
		default: { /* I_SET */
			*seen_set = true;
			if (stop_at_anchor)
				break;
			const re_set *set = &re->sets[in->arg];
			if (set->negated || set->nranges)
				re->first_nonascii = true;
			for (int w = 0; w < 4; w++)
				re->first[w] |= set->negated ? ~set->ascii[w] : set->ascii[w];
			break;
		}
		}
	}
}

void ty_re_analyze(ty_regex *re)
{
	bool set = false, match = false;
	first_closure(re, re->search, true, &set, &match);
	re->anchored = !set && !match;
	set = match = false;
	first_closure(re, re->search, false, &set, &match);
	re->first_any = match;
}

static bool can_start(const ty_regex *re, uint32_t c)
{
	return c < 128 ? (re->first[c >> 5] >> (c & 31)) & 1 : re->first_nonascii;
}

/* ---------------------------------------------------------------- state sets */

/* Two sets (current/next) with a start tag per state, and a DFS stack. */
struct re_scratch {
	int *dense[2], *sparse[2], *tag[2];
	int cnt[2];
	int *stack;
};

static re_scratch *scratch(re_exec *x, const re_prog *p)
{
	re_scratch *s = x->scratch[p->id];
	if (s)
		return s;
	size_t n = (size_t)p->n;
	s = ty_alloc0(sizeof *s);
	for (int k = 0; k < 2; k++) {
		s->dense[k] = ty_alloc(n * sizeof(int));
		s->sparse[k] = ty_alloc(n * sizeof(int));
		s->tag[k] = ty_alloc(n * sizeof(int));
	}
	s->stack = ty_alloc((2 * n + 2) * sizeof(int));
	x->scratch[p->id] = s;
	return s;
}

static inline bool member(const re_scratch *s, int k, int pc)
{
	int i = s->sparse[k][pc];
	return i >= 0 && i < s->cnt[k] && s->dense[k][i] == pc;
}

void ty_re_count_steps(re_exec *x, uint64_t n)
{
	uint64_t before = x->steps;
	x->steps += n;
	if ((before / STEP_CHECK) != (x->steps / STEP_CHECK)) {
		ty_check_interrupts();
		if (x->steps > x->budget)
			ty_re_error("regular expression is too complex");
	}
}

/* ---------------------------------------------------------------- constraints */

static bool word_at(const re_exec *x, int i)
{
	return i >= 0 && i < x->n && ty_re_is_word(x->text[i]);
}

static bool assert_holds(const re_exec *x, int kind, int pos)
{
	bool nl = (x->re->cflags & RE_NLANCH) != 0;
	switch (kind) {
	case AS_BOL:
		return pos == 0 || (nl && x->text[pos - 1] == '\n');
	case AS_EOL:
		return pos == x->n || (nl && x->text[pos] == '\n');
	case AS_BOS:
		return pos == 0;
	case AS_EOS:
		return pos == x->n;
	case AS_WBEG:
		return !word_at(x, pos - 1) && word_at(x, pos);
	case AS_WEND:
		return word_at(x, pos - 1) && !word_at(x, pos);
	case AS_WB:
		return word_at(x, pos - 1) != word_at(x, pos);
	default:
		return word_at(x, pos - 1) == word_at(x, pos);
	}
}

static void all_ends(re_exec *x, re_prog *p, uint8_t *memo);

static bool look_holds(re_exec *x, int idx, int pos)
{
	const re_look *l = &x->re->looks[idx];
	uint8_t *memo = x->look_memo[idx];
	if (!memo) {
		/* One unanchored pass answers every position: forward for
		 * lookbehind (where can a match end?), reversed for lookahead
		 * (where can one start?). */
		memo = ty_alloc0((size_t)x->n + 1);
		x->look_memo[idx] = memo;
		all_ends(x, l->behind ? l->prog : l->rev, memo);
	}
	return (memo[pos] == 1) != l->negated;
}

/* ---------------------------------------------------------------- simulation core */

/* Adds pc and its epsilon closure at pos to set k with tag t. */
static void closure(re_exec *x, const re_prog *p, re_scratch *s, int k, int pc0, int pos, int t)
{
	int sp = 0;
	uint64_t steps = 0;
	s->stack[sp++] = pc0;
	while (sp > 0) {
		int pc = s->stack[--sp];
		if (member(s, k, pc))
			continue;
		int i = s->cnt[k]++;
		s->dense[k][i] = pc;
		s->sparse[k][pc] = i;
		s->tag[k][i] = t;
		steps++;
		const re_inst *in = &p->code[pc];
		switch (in->op) {
		case I_SPLIT:
			s->stack[sp++] = in->y;
			s->stack[sp++] = in->x;
			break;
		case I_JMP:
			s->stack[sp++] = in->x;
			break;
		case I_ASSERT:
			if (assert_holds(x, in->arg, pos))
				s->stack[sp++] = in->x;
			break;
		case I_LOOK:
			if (look_holds(x, in->arg, pos))
				s->stack[sp++] = in->x;
			break;
		default:
			break;
		}
	}
	ty_re_count_steps(x, steps);
}

/* Moves every thread of set `cur` over the character at pos (text[pos]
 * forward, text[pos-1] reversed) into the other set at the new position.
 * Returns false if no thread survives. */
static bool step(re_exec *x, const re_prog *p, re_scratch *s, int cur, int pos)
{
	int nxt = 1 - cur;
	s->cnt[nxt] = 0;
	uint32_t c = p->reversed ? x->text[pos - 1] : x->text[pos];
	int npos = p->reversed ? pos - 1 : pos + 1;
	for (int i = 0; i < s->cnt[cur]; i++) {
		const re_inst *in = &p->code[s->dense[cur][i]];
		if (in->op == I_SET && ty_re_set_has(&x->re->sets[in->arg], c))
			closure(x, p, s, nxt, in->x, npos, s->tag[cur][i]);
	}
	ty_re_count_steps(x, (uint64_t)s->cnt[cur]);
	return s->cnt[nxt] > 0;
}

static int match_tag(const re_prog *p, const re_scratch *s, int k)
{
	int pc = p->n - 1;
	return member(s, k, pc) ? s->tag[k][s->sparse[k][pc]] : -1;
}

/* Anchored run from begin towards limit; calls on_match for every
 * position where the program accepts; on_match returns false to stop. */
typedef bool (*match_cb)(void *arg, int pos);

static void run_anchored(re_exec *x, re_prog *p, int begin, int limit, match_cb cb, void *arg)
{
	re_scratch *s = scratch(x, p);
	int cur = 0;
	s->cnt[0] = s->cnt[1] = 0;
	closure(x, p, s, cur, 0, begin, 0);
	int pos = begin;
	for (;;) {
		if (match_tag(p, s, cur) >= 0 && !cb(arg, pos))
			return;
		if (pos == limit)
			return;
		if (!step(x, p, s, cur, pos))
			return;
		cur = 1 - cur;
		pos = p->reversed ? pos - 1 : pos + 1;
	}
}

static bool cb_last(void *arg, int pos)
{
	*(int *)arg = pos;
	return true;
}

static bool cb_first(void *arg, int pos)
{
	*(int *)arg = pos;
	return false;
}

int ty_re_longest(re_exec *x, re_prog *p, int begin, int limit)
{
	int last = -1;
	run_anchored(x, p, begin, limit, cb_last, &last);
	return last;
}

typedef struct first_from {
	int min, found;
} first_from;

static bool cb_first_from(void *arg, int pos)
{
	first_from *f = arg;
	if (pos < f->min)
		return true;
	f->found = pos;
	return false;
}

int ty_re_shortest(re_exec *x, re_prog *p, int begin, int min_end, int limit)
{
	if (min_end <= begin) {
		int first = -1;
		run_anchored(x, p, begin, limit, cb_first, &first);
		return first;
	}
	first_from f = {min_end, -1};
	run_anchored(x, p, begin, limit, cb_first_from, &f);
	return f.found;
}

typedef struct reach_arg {
	uint8_t *out;
	int lo;
} reach_arg;

static bool cb_mark(void *arg, int pos)
{
	reach_arg *r = arg;
	r->out[pos - r->lo] = 1;
	return true;
}

void ty_re_reach(re_exec *x, re_prog *p, int begin, int limit, uint8_t *out, int lo)
{
	reach_arg r = {out, lo};
	run_anchored(x, p, begin, limit, cb_mark, &r);
}

/* Unanchored run over the whole text, left to right for a forward
 * program (memo[i] = 1 where some match ends at i) or right to left for a
 * reversed one (memo[i] = 1 where some match starts at i); 2 elsewhere. */
static void all_ends(re_exec *x, re_prog *p, uint8_t *memo)
{
	re_scratch *s = scratch(x, p);
	int cur = 0;
	s->cnt[0] = s->cnt[1] = 0;
	for (int k = 0; k <= x->n; k++) {
		int pos = p->reversed ? x->n - k : k;
		closure(x, p, s, cur, 0, pos, 0);
		memo[pos] = match_tag(p, s, cur) >= 0 ? 1 : 2;
		if (k == x->n)
			break;
		step(x, p, s, cur, pos);
		cur = 1 - cur;
	}
}

/* Leftmost match: threads carry their start position; at equal states
 * the earlier start wins (sets are kept in ascending tag order). Once a
 * match is known, later starts are dropped, and the run continues while
 * threads that could still give an earlier start, or (longest mode) a
 * longer match for the same start, are alive. */
bool ty_re_search(re_exec *x, re_prog *p, int start, bool shortest, int *ms, int *me)
{
	re_scratch *s = scratch(x, p);
	int cur = 0, best_s = -1, best_e = -1;
	s->cnt[0] = s->cnt[1] = 0;
	const ty_regex *re = x->re;
	bool whole = p == re->search; /* acceleration applies to the whole RE */
	for (int pos = start;; pos++) {
		if (best_s < 0 && s->cnt[cur] == 0 && whole) {
			/* no thread alive: jump to where a match can start */
			if (re->anchored && pos > 0)
				break;
			if (!re->first_any) {
				while (pos < x->n && !can_start(re, x->text[pos]))
					pos++;
				if (pos >= x->n)
					break;
			}
		}
		if (best_s < 0)
			closure(x, p, s, cur, 0, pos, pos);
		int t = match_tag(p, s, cur);
		if (t >= 0 && (best_s < 0 || t < best_s || (t == best_s && !shortest))) {
			/* an earlier start, or a longer match for the same start */
			best_s = t;
			best_e = pos;
		}
		if (best_s >= 0) {
			/* keep only threads that can still improve the answer */
			int k = 0;
			for (int i = 0; i < s->cnt[cur]; i++) {
				int tg = s->tag[cur][i];
				if (tg < best_s || (tg == best_s && !shortest)) {
					s->dense[cur][k] = s->dense[cur][i];
					s->tag[cur][k] = tg;
					s->sparse[cur][s->dense[cur][k]] = k;
					k++;
				}
			}
			s->cnt[cur] = k;
			if (k == 0)
				break;
		}
		if (pos == x->n)
			break;
		if (!step(x, p, s, cur, pos) && best_s >= 0)
			break;
		cur = 1 - cur;
	}
	if (best_s < 0)
		return false;
	*ms = best_s;
	*me = best_e;
	return true;
}
