/*
 * regex_dfa.c — a lazily built DFA that answers "does this text contain a
 * match?" for the common patterns, several times faster than simulating
 * the NFA: each DFA state is a set of NFA instructions, built on first use
 * and cached with its transitions on ASCII characters. It serves the ~
 * operators (WHERE col ~ '...') and rejects non-matching texts early for
 * the other functions.
 *
 * Only programs whose constraints can be decided without looking at
 * neighbouring characters qualify: no lookaround, no word boundaries, and
 * ^ $ only in their whole-string meaning (no newline-sensitive anchoring).
 * $ and \Z inside a state are kept unexpanded and resolved once at the end
 * of the text. The cache lives with the compiled regex (the plan's cache
 * arena, which is used by one execution at a time) and is bounded; past
 * the bound the DFA is abandoned and the NFA answers.
 */
#include "regex_int.h"

#include <stdlib.h>

#define DFA_MAX_STATES 4096
#define DFA_MAX_BYTES  (4u << 20)

typedef struct dstate {
	int *pcs; /* sorted instructions: I_SET, I_MATCH and unexpanded $ / \Z */
	int npcs;
	uint64_t hash;
	bool match;    /* I_MATCH is in the set */
	int8_t end;    /* -1 unknown; 1 if the set matches at the end of the text */
	int next[128]; /* ASCII transitions: -1 not built yet */
} dstate;

struct re_dfa {
	dstate **states;
	int n, cap;
	int *table; /* open addressing: state index + 1 */
	int tcap;
	size_t bytes;
	int start;
	int *restart; /* closure of the start instruction in mid-text context */
	int nrestart;
	/* scratch */
	int *stack, *buf, *from;
	uint32_t *mark;
	uint32_t gen;
	bool failed;
};

static void *dalloc(ty_regex *re, size_t n)
{
	re->dfa->bytes += n;
	void *p = util_arena_alloc(re->arena, n);
	if (!p)
		ty_error(UTIL_E_OUT_OF_MEMORY, "out of memory");
	return p;
}

/* Qualification: see the file comment. */
static bool dfa_applicable(const ty_regex *re)
{
	if (re->nlooks > 0)
		return false;
	const re_prog *p = re->search;
	for (int i = 0; i < p->n; i++) {
		const re_inst *in = &p->code[i];
		if (in->op == I_LOOK)
			return false;
		if (in->op == I_ASSERT) {
			if (in->arg != AS_BOL && in->arg != AS_EOL && in->arg != AS_BOS && in->arg != AS_EOS)
				return false;
			if (re->cflags & RE_NLANCH)
				return false;
		}
	}
	return true;
}

/* Closure of `from` instructions into d->buf (deduplicated by mark);
 * at_start: position 0; at_end: end of text (only for end resolution). */
static int closure(ty_regex *re, const int *from, int nfrom, bool at_start, bool at_end, int k)
{
	struct re_dfa *d = re->dfa;
	const re_prog *p = re->search;
	int sp = 0;
	for (int i = 0; i < nfrom; i++)
		d->stack[sp++] = from[i];
	while (sp > 0) {
		int pc = d->stack[--sp];
		if (d->mark[pc] == d->gen)
			continue;
		d->mark[pc] = d->gen;
		const re_inst *in = &p->code[pc];
		switch (in->op) {
		case I_SPLIT:
			d->stack[sp++] = in->y;
			d->stack[sp++] = in->x;
			break;
		case I_JMP:
			d->stack[sp++] = in->x;
			break;
		case I_ASSERT:
			if (in->arg == AS_BOL || in->arg == AS_BOS) {
				if (at_start)
					d->stack[sp++] = in->x;
			} else if (at_end) {
				d->stack[sp++] = in->x;
			} else {
				d->buf[k++] = pc; /* decided at the end of the text */
			}
			break;
		default: /* I_SET, I_MATCH */
			d->buf[k++] = pc;
			break;
		}
	}
	return k;
}

static int cmp_int(const void *a, const void *b)
{
	int x = *(const int *)a, y = *(const int *)b;
	return (x > y) - (x < y);
}

static void rehash(ty_regex *re)
{
	struct re_dfa *d = re->dfa;
	int cap = d->tcap ? d->tcap * 2 : 256;
	int *t = dalloc(re, (size_t)cap * sizeof *t);
	memset(t, 0, (size_t)cap * sizeof *t);
	for (int i = 0; i < d->n; i++) {
		int h = (int)(d->states[i]->hash & (uint64_t)(cap - 1));
		while (t[h])
			h = (h + 1) & (cap - 1);
		t[h] = i + 1;
	}
	d->table = t;
	d->tcap = cap;
}

/* The state for the instruction set d->buf[0..k): found or added; -1
 * when the cache is full (the DFA gives up). */
static int intern(ty_regex *re, int k)
{
	struct re_dfa *d = re->dfa;
	qsort(d->buf, (size_t)k, sizeof(int), cmp_int);
	uint64_t h = util_hash64(d->buf, (size_t)k * sizeof(int), 0xdfa);
	int slot = (int)(h & (uint64_t)(d->tcap - 1));
	while (d->table[slot]) {
		dstate *s = d->states[d->table[slot] - 1];
		if (s->hash == h && s->npcs == k && memcmp(s->pcs, d->buf, (size_t)k * sizeof(int)) == 0)
			return d->table[slot] - 1;
		slot = (slot + 1) & (d->tcap - 1);
	}
	if (d->n >= DFA_MAX_STATES || d->bytes > DFA_MAX_BYTES) {
		d->failed = true;
		return -1;
	}
	dstate *s = dalloc(re, sizeof *s);
	s->pcs = dalloc(re, (size_t)(k ? k : 1) * sizeof(int));
	memcpy(s->pcs, d->buf, (size_t)k * sizeof(int));
	s->npcs = k;
	s->hash = h;
	s->end = -1;
	s->match = false;
	for (int i = 0; i < k; i++)
		s->match |= re->search->code[s->pcs[i]].op == I_MATCH;
	for (int i = 0; i < 128; i++)
		s->next[i] = -1;
	if (d->n == d->cap) {
		int cap = d->cap ? d->cap * 2 : 64;
		dstate **v = dalloc(re, (size_t)cap * sizeof *v);
		if (d->n)
			memcpy(v, d->states, (size_t)d->n * sizeof *v);
		d->states = v;
		d->cap = cap;
	}
	d->states[d->n++] = s;
	if (d->n * 2 > d->tcap)
		rehash(re);
	else
		d->table[slot] = d->n;
	return d->n - 1;
}

static void dfa_init(ty_regex *re)
{
	re->dfa = util_arena_zalloc(re->arena, sizeof *re->dfa);
	if (!re->dfa)
		ty_error(UTIL_E_OUT_OF_MEMORY, "out of memory");
	struct re_dfa *d = re->dfa;
	if (!dfa_applicable(re)) {
		d->failed = true;
		return;
	}
	size_t n = (size_t)re->search->n;
	d->stack = dalloc(re, (3 * n + 3) * sizeof(int));
	d->buf = dalloc(re, (n + 1) * sizeof(int));
	d->from = dalloc(re, (n + 1) * sizeof(int));
	d->mark = dalloc(re, n * sizeof(uint32_t));
	memset(d->mark, 0, n * sizeof(uint32_t));
	rehash(re);
	int zero = 0;
	d->gen++;
	int k = closure(re, &zero, 1, true, false, 0);
	d->start = intern(re, k);
	d->gen++;
	k = closure(re, &zero, 1, false, false, 0);
	d->restart = dalloc(re, (size_t)(k ? k : 1) * sizeof(int));
	memcpy(d->restart, d->buf, (size_t)k * sizeof(int));
	d->nrestart = k;
}

/* The transition of state si on character c (not cached for non-ASCII). */
static int transition(ty_regex *re, int si, uint32_t c)
{
	struct re_dfa *d = re->dfa;
	dstate *s = d->states[si];
	if (c < 128 && s->next[c] >= 0)
		return s->next[c];
	/* the successors of matching SET instructions, then (unanchored
	 * search) a new start, all closed in mid-text context */
	int nfrom = 0;
	for (int i = 0; i < s->npcs; i++) {
		const re_inst *in = &re->search->code[s->pcs[i]];
		if (in->op == I_SET && ty_re_set_has(&re->sets[in->arg], c))
			d->from[nfrom++] = in->x;
	}
	d->gen++;
	int k = closure(re, d->from, nfrom, false, false, 0);
	if (!re->anchored)
		k = closure(re, d->restart, d->nrestart, false, false, k);
	int ni = intern(re, k);
	if (ni >= 0 && c < 128)
		d->states[si]->next[c] = ni;
	return ni;
}

/* Does the state accept at the end of the text ($ and \Z now hold)? */
static bool end_match(ty_regex *re, int si)
{
	dstate *s = re->dfa->states[si];
	if (s->end < 0) {
		struct re_dfa *d = re->dfa;
		int nfrom = 0;
		for (int i = 0; i < s->npcs; i++)
			if (re->search->code[s->pcs[i]].op == I_ASSERT)
				d->from[nfrom++] = s->pcs[i];
		d->gen++;
		int k = closure(re, d->from, nfrom, false, true, 0);
		bool m = s->match;
		for (int i = 0; i < k && !m; i++)
			m = re->search->code[d->buf[i]].op == I_MATCH;
		s->end = m;
	}
	return s->end == 1;
}

int ty_re_dfa_match(ty_regex *re, const char *str, size_t len)
{
	if (!re->dfa)
		dfa_init(re);
	struct re_dfa *d = re->dfa;
	if (d->failed || len == 0)
		return -1;
	const uint8_t *s = (const uint8_t *)str;
	int si = d->start;
	if (si < 0)
		return -1;
	for (size_t i = 0; i < len;) {
		if (d->states[si]->match)
			return 1;
		uint32_t c = s[i];
		if (c < 128) {
			i++;
		} else {
			int l;
			c = ty_str_decode(str + i, len - i, &l);
			i += (size_t)l;
		}
		si = transition(re, si, c);
		if (si < 0)
			return -1;
		if (re->anchored && d->states[si]->npcs == 0)
			return 0;
		if ((i & 0xffff) == 0)
			ty_check_interrupts();
	}
	return d->states[si]->match || end_match(re, si);
}
