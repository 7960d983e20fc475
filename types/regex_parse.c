/*
 * regex_parse.c — parser for PostgreSQL's advanced regular expressions
 * (AREs): directors (***: ***=), embedded options, literals and escapes,
 * bracket expressions with ranges, classes, equivalence and collating
 * elements, constraints (^ $ \A \Z \m \M \y \Y, lookahead and lookbehind),
 * groups, back-references and quantifiers (greedy and non-greedy).
 *
 * It produces the AST the NFAs are compiled from and, mirroring Spencer's
 * parseqatom(), the subre tree that decides how matches are dissected into
 * capture groups. Errors carry PostgreSQL's regerror() texts.
 *
 * The C collation is the only one: classes and case folding are ASCII.
 */
#include "regex_int.h"

#define UP(f)                                                                                                \
	(((f) & (SR_MIXED | SR_CAP | SR_BACKR)) | ((((f)&SR_LONGER) && ((f)&SR_SHORTER)) ? SR_MIXED : 0))
#define MESSY(f)        ((f) & (SR_MIXED | SR_CAP | SR_BACKR))
#define PREF(f)         ((f) & (SR_LONGER | SR_SHORTER))
#define PREF2(f1, f2)   (PREF(f1) ? PREF(f1) : PREF(f2))
#define COMBINE(f1, f2) (UP((f1) | (f2)) | PREF2(f1, f2))

void ty_re_error(const char *msg)
{
	ty_error(UTIL_E_INVALID_REGULAR_EXPRESSION, "invalid regular expression: %s", msg);
}

#define E_PAREN   "parentheses () not balanced"
#define E_BRACK   "brackets [] not balanced"
#define E_BRACE   "braces {} not balanced"
#define E_ESCAPE  "invalid escape \\ sequence"
#define E_SUBREG  "invalid backreference number"
#define E_BADBR   "invalid repetition count(s)"
#define E_RANGE   "invalid character range"
#define E_CTYPE   "invalid character class"
#define E_COLLATE "invalid collating element"
#define E_BADRPT  "quantifier operand invalid"
#define E_BADOPT  "invalid embedded option"
#define E_TOOBIG  "regular expression is too complex"

/* ---------------------------------------------------------------- sets */

static void set_add_range(util_arena *a, re_set *s, uint32_t lo, uint32_t hi)
{
	for (; lo <= hi && lo < 128; lo++)
		s->ascii[lo >> 5] |= 1u << (lo & 31);
	if (lo > hi)
		return;
	if (s->nranges == s->cap) {
		int cap = s->cap ? s->cap * 2 : 4;
		uint32_t(*r)[2] = util_arena_alloc(a, (size_t)cap * sizeof *r);
		if (!r)
			ty_error(UTIL_E_OUT_OF_MEMORY, "out of memory");
		if (s->nranges)
			memcpy(r, s->ranges, (size_t)s->nranges * sizeof *r);
		s->ranges = r;
		s->cap = cap;
	}
	s->ranges[s->nranges][0] = lo;
	s->ranges[s->nranges][1] = hi;
	s->nranges++;
}

bool ty_re_set_has(const re_set *s, uint32_t c)
{
	bool in = false;
	if (c < 128) {
		in = (s->ascii[c >> 5] >> (c & 31)) & 1;
	} else {
		for (int i = 0; i < s->nranges && !in; i++)
			in = c >= s->ranges[i][0] && c <= s->ranges[i][1];
	}
	return in != s->negated;
}

bool ty_re_is_word(uint32_t c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_';
}

/* ---------------------------------------------------------------- parser state */

enum { P_PLAIN, P_GROUP, P_CAP, P_BACKREF };

typedef struct piece {
	re_ast *atom;
	int m, n, qprefer;
	int kind, capno;
	re_sub *inner;
} piece;

typedef struct parser {
	ty_regex *re;
	util_arena *a;
	const uint32_t *p;
	int n, i;
	int cflags;
	int nsubexp;
	int groups_cap;
	bool *closed;
	int look_depth;
	int ninst_est; /* rough program size, for the complexity limit */
} parser;

typedef struct parsed {
	re_ast *ast;
	re_sub *sub;
} parsed;

static void *palloc0(parser *ps, size_t n)
{
	void *p = util_arena_zalloc(ps->a, n);
	if (!p)
		ty_error(UTIL_E_OUT_OF_MEMORY, "out of memory");
	return p;
}

static re_ast *mk(parser *ps, int kind, re_ast *a, re_ast *b)
{
	re_ast *n = palloc0(ps, sizeof *n);
	n->kind = (uint8_t)kind;
	n->a = a;
	n->b = b;
	return n;
}

static re_ast *mk_cat(parser *ps, re_ast *a, re_ast *b)
{
	if (!a || a->kind == A_EMPTY)
		return b ? b : mk(ps, A_EMPTY, NULL, NULL);
	if (!b || b->kind == A_EMPTY)
		return a;
	return mk(ps, A_CAT, a, b);
}

static re_ast *mk_rep(parser *ps, re_ast *a, int m, int n)
{
	if (m == 1 && n == 1)
		return a;
	if (m == 0 && n == 0)
		return mk(ps, A_EMPTY, NULL, NULL);
	re_ast *r = mk(ps, A_REP, a, NULL);
	r->min = (int16_t)m;
	r->max = (int16_t)n;
	return r;
}

static int new_set(parser *ps)
{
	ty_regex *re = ps->re;
	if ((re->nsets & (re->nsets - 1)) == 0) {
		int cap = re->nsets ? re->nsets * 2 : 8;
		re_set *s = palloc0(ps, (size_t)cap * sizeof *s);
		if (re->nsets)
			memcpy(s, re->sets, (size_t)re->nsets * sizeof *s);
		re->sets = s;
	}
	memset(&re->sets[re->nsets], 0, sizeof(re_set));
	return re->nsets++;
}

static re_ast *set_atom(parser *ps, int set)
{
	re_ast *n = mk(ps, A_SET, NULL, NULL);
	n->arg = set;
	return n;
}

/* A set with one character (both cases under ICASE). */
static void add_char(parser *ps, re_set *s, uint32_t c)
{
	set_add_range(ps->a, s, c, c);
	if (ps->cflags & RE_ICASE) {
		if (c >= 'a' && c <= 'z')
			set_add_range(ps->a, s, c - 32, c - 32);
		else if (c >= 'A' && c <= 'Z')
			set_add_range(ps->a, s, c + 32, c + 32);
	}
}

static re_ast *char_atom(parser *ps, uint32_t c)
{
	int k = new_set(ps);
	add_char(ps, &ps->re->sets[k], c);
	return set_atom(ps, k);
}

/* ---------------------------------------------------------------- classes */

enum {
	CC_ALNUM,
	CC_ALPHA,
	CC_ASCII,
	CC_BLANK,
	CC_CNTRL,
	CC_DIGIT,
	CC_GRAPH,
	CC_LOWER,
	CC_PRINT,
	CC_PUNCT,
	CC_SPACE,
	CC_UPPER,
	CC_XDIGIT,
	CC_WORD
};

static const char *const class_names[] = {"alnum", "alpha", "ascii", "blank", "cntrl", "digit",  "graph",
					  "lower", "print", "punct", "space", "upper", "xdigit", "word"};

static bool class_has(int cls, uint32_t c)
{
	switch (cls) {
	case CC_ALNUM:
		return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z');
	case CC_ALPHA:
		return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z');
	case CC_ASCII:
		return c < 128;
	case CC_BLANK:
		return c == ' ' || c == '\t';
	case CC_CNTRL:
		return c < 32 || c == 127;
	case CC_DIGIT:
		return c >= '0' && c <= '9';
	case CC_GRAPH:
		return c > 32 && c < 127;
	case CC_LOWER:
		return c >= 'a' && c <= 'z';
	case CC_PRINT:
		return c >= 32 && c < 127;
	case CC_PUNCT:
		return c > 32 && c < 127 && !class_has(CC_ALNUM, c);
	case CC_SPACE:
		return c == ' ' || (c >= '\t' && c <= '\r');
	case CC_UPPER:
		return c >= 'A' && c <= 'Z';
	case CC_XDIGIT:
		return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F');
	default:
		return ty_re_is_word(c);
	}
}

static void add_class(parser *ps, re_set *s, int cls)
{
	/* Case-insensitive matching makes upper and lower both mean alpha. */
	if ((ps->cflags & RE_ICASE) && (cls == CC_UPPER || cls == CC_LOWER))
		cls = CC_ALPHA;
	for (uint32_t c = 0; c < 128; c++)
		if (class_has(cls, c))
			s->ascii[c >> 5] |= 1u << (c & 31);
}

/* \d \s \w and their complements as an atom. */
static re_ast *class_atom(parser *ps, int cls, bool negated)
{
	int k = new_set(ps);
	re_set *s = &ps->re->sets[k];
	add_class(ps, s, cls);
	if (negated) {
		if (ps->cflags & RE_NLSTOP)
			s->ascii['\n' >> 5] |= 1u << ('\n' & 31);
		s->negated = true;
	}
	return set_atom(ps, k);
}

/* ---------------------------------------------------------------- lexing helpers */

static bool at_end(parser *ps)
{
	return ps->i >= ps->n;
}
static uint32_t peek(parser *ps, int k)
{
	return ps->i + k < ps->n ? ps->p[ps->i + k] : 0;
}
static bool see(parser *ps, uint32_t c)
{
	return ps->i < ps->n && ps->p[ps->i] == c;
}

/* In expanded mode, skips white space and # comments. */
static void skip_expanded(parser *ps)
{
	if (!(ps->cflags & RE_EXPANDED))
		return;
	while (ps->i < ps->n) {
		uint32_t c = ps->p[ps->i];
		if (c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v') {
			ps->i++;
		} else if (c == '#') {
			while (ps->i < ps->n && ps->p[ps->i] != '\n')
				ps->i++;
		} else {
			break;
		}
	}
}

/* (?#...) comments, allowed anywhere in an ARE. */
static void skip_comments(parser *ps)
{
	for (;;) {
		skip_expanded(ps);
		if (peek(ps, 0) == '(' && peek(ps, 1) == '?' && peek(ps, 2) == '#' && ps->i + 2 < ps->n) {
			int j = ps->i + 3;
			while (j < ps->n && ps->p[j] != ')')
				j++;
			if (j >= ps->n)
				ty_re_error(E_PAREN);
			ps->i = j + 1;
			continue;
		}
		return;
	}
}

static int digit_val(uint32_t c, int base)
{
	int d = -1;
	if (c >= '0' && c <= '9')
		d = (int)(c - '0');
	else if (c >= 'a' && c <= 'f')
		d = (int)(c - 'a' + 10);
	else if (c >= 'A' && c <= 'F')
		d = (int)(c - 'A' + 10);
	return d >= 0 && d < base ? d : -1;
}

/* Reads minlen..maxlen digits of base; errors if fewer than minlen. */
static uint32_t lex_digits(parser *ps, int base, int minlen, int maxlen)
{
	uint64_t v = 0;
	int k = 0;
	while (k < maxlen && ps->i < ps->n) {
		int d = digit_val(ps->p[ps->i], base);
		if (d < 0)
			break;
		v = v * (uint64_t)base + (uint64_t)d;
		if (v > 0xffffffffu)
			v = 0xffffffffu;
		ps->i++;
		k++;
	}
	if (k < minlen)
		ty_re_error(E_ESCAPE);
	return (uint32_t)v;
}

/* Escape result kinds. */
enum { ESC_CHAR, ESC_CLASS, ESC_ASSERT, ESC_BACKREF };

typedef struct esc {
	int kind;
	uint32_t c; /* char; class index; assertion; group */
	bool negated;
} esc;

/* Lexes the escape after a backslash (ps->i is past the backslash). */
static esc lex_escape(parser *ps, bool in_bracket)
{
	esc e = {ESC_CHAR, 0, false};
	if (at_end(ps))
		ty_re_error(E_ESCAPE);
	uint32_t c = ps->p[ps->i++];
	if (!(c < 128 && ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9')))) {
		e.c = c; /* escaped non-alphanumeric: itself */
		return e;
	}
	switch (c) {
	case 'a':
		e.c = 7;
		return e;
	case 'b':
		e.c = 8;
		return e;
	case 'B':
		e.c = '\\';
		return e;
	case 'c':
		if (at_end(ps))
			ty_re_error(E_ESCAPE);
		e.c = ps->p[ps->i++] & 037;
		return e;
	case 'e':
		e.c = 033;
		return e;
	case 'f':
		e.c = '\f';
		return e;
	case 'n':
		e.c = '\n';
		return e;
	case 'r':
		e.c = '\r';
		return e;
	case 't':
		e.c = '\t';
		return e;
	case 'v':
		e.c = '\v';
		return e;
	case 'u':
		e.c = lex_digits(ps, 16, 4, 4);
		break;
	case 'U':
		e.c = lex_digits(ps, 16, 8, 8);
		break;
	case 'x':
		e.c = lex_digits(ps, 16, 1, 255);
		break;
	case 'd':
	case 'D':
		e.kind = ESC_CLASS;
		e.c = CC_DIGIT;
		e.negated = c == 'D';
		return e;
	case 's':
	case 'S':
		e.kind = ESC_CLASS;
		e.c = CC_SPACE;
		e.negated = c == 'S';
		return e;
	case 'w':
	case 'W':
		e.kind = ESC_CLASS;
		e.c = CC_WORD;
		e.negated = c == 'W';
		return e;
	case 'A':
	case 'Z':
	case 'm':
	case 'M':
	case 'y':
	case 'Y':
		if (in_bracket)
			ty_re_error(E_ESCAPE);
		e.kind = ESC_ASSERT;
		e.c = c == 'A'   ? AS_BOS
		      : c == 'Z' ? AS_EOS
		      : c == 'm' ? AS_WBEG
		      : c == 'M' ? AS_WEND
		      : c == 'y' ? AS_WB
				 : AS_NWB;
		return e;
	case '0':
		ps->i--;
		e.c = lex_digits(ps, 8, 1, 3);
		if (e.c > 0xff) {
			ps->i--;
			e.c >>= 3;
		}
		return e;
	default:
		if (c >= '1' && c <= '9') {
			int save = ps->i;
			ps->i--;
			uint32_t v = lex_digits(ps, 10, 1, RE_DUPMAX);
			if (!in_bracket && (ps->i == save || (v > 0 && (int)v <= ps->nsubexp))) {
				e.kind = ESC_BACKREF;
				e.c = v;
				return e;
			}
			/* not a back-reference: an octal number */
			ps->i = save - 1;
			e.c = lex_digits(ps, 8, 1, 3);
			if (e.c > 0xff) {
				ps->i--;
				e.c >>= 3;
			}
			return e;
		}
		ty_re_error(E_ESCAPE);
	}
	if (e.c > 0x7ffffffe)
		ty_re_error(E_ESCAPE);
	return e;
}

/* ---------------------------------------------------------------- brackets */

/* Collating-element names PostgreSQL accepts ([.space.]); single
 * characters name themselves. */
static const struct {
	const char *name;
	uint32_t c;
} coll_names[] = {
    {"NUL", 0},
    {"tab", '\t'},
    {"newline", '\n'},
    {"carriage-return", '\r'},
    {"space", ' '},
    {"exclamation-mark", '!'},
    {"quotation-mark", '"'},
    {"number-sign", '#'},
    {"dollar-sign", '$'},
    {"percent-sign", '%'},
    {"ampersand", '&'},
    {"apostrophe", '\''},
    {"left-parenthesis", '('},
    {"right-parenthesis", ')'},
    {"asterisk", '*'},
    {"plus-sign", '+'},
    {"comma", ','},
    {"hyphen", '-'},
    {"hyphen-minus", '-'},
    {"period", '.'},
    {"full-stop", '.'},
    {"slash", '/'},
    {"solidus", '/'},
    {"zero", '0'},
    {"one", '1'},
    {"two", '2'},
    {"three", '3'},
    {"four", '4'},
    {"five", '5'},
    {"six", '6'},
    {"seven", '7'},
    {"eight", '8'},
    {"nine", '9'},
    {"colon", ':'},
    {"semicolon", ';'},
    {"less-than-sign", '<'},
    {"equals-sign", '='},
    {"greater-than-sign", '>'},
    {"question-mark", '?'},
    {"commercial-at", '@'},
    {"left-square-bracket", '['},
    {"backslash", '\\'},
    {"reverse-solidus", '\\'},
    {"right-square-bracket", ']'},
    {"circumflex", '^'},
    {"circumflex-accent", '^'},
    {"underscore", '_'},
    {"low-line", '_'},
    {"grave-accent", '`'},
    {"left-brace", '{'},
    {"left-curly-bracket", '{'},
    {"vertical-line", '|'},
    {"right-brace", '}'},
    {"right-curly-bracket", '}'},
    {"tilde", '~'},
    {"DEL", 127},
};

/* Reads "[.x.]" / "[=x=]" contents up to the closing delimiter; ps->i is
 * after the opening "[." or "[=". */
static uint32_t lex_collating(parser *ps, uint32_t delim)
{
	int start = ps->i;
	while (ps->i + 1 < ps->n && !(ps->p[ps->i] == delim && ps->p[ps->i + 1] == ']'))
		ps->i++;
	if (ps->i + 1 >= ps->n)
		ty_re_error(E_BRACK);
	int len = ps->i - start;
	ps->i += 2;
	if (len == 1)
		return ps->p[start];
	if (len == 0)
		ty_re_error(E_COLLATE);
	for (size_t k = 0; k < UTIL_ARRAY_LEN(coll_names); k++) {
		const char *nm = coll_names[k].name;
		if ((int)strlen(nm) != len)
			continue;
		int j = 0;
		while (j < len && (uint32_t)(uint8_t)nm[j] == ps->p[start + j])
			j++;
		if (j == len)
			return coll_names[k].c;
	}
	ty_re_error(E_COLLATE);
}

/* A bracket expression; ps->i is after '['. */
static re_ast *bracket(parser *ps)
{
	/* [[:<:]] and [[:>:]] are word-boundary constraints */
	if (ps->i + 5 < ps->n + 1 && peek(ps, 0) == '[' && peek(ps, 1) == ':' &&
	    (peek(ps, 2) == '<' || peek(ps, 2) == '>') && peek(ps, 3) == ':' && peek(ps, 4) == ']' &&
	    peek(ps, 5) == ']') {
		re_ast *n = mk(ps, A_ASSERT, NULL, NULL);
		n->arg = peek(ps, 2) == '<' ? AS_WBEG : AS_WEND;
		ps->i += 6;
		return n;
	}
	int k = new_set(ps);
	bool negated = false;
	if (see(ps, '^')) {
		negated = true;
		ps->i++;
	}
	bool first = true;
	for (;;) {
		if (at_end(ps))
			ty_re_error(E_BRACK);
		uint32_t c = ps->p[ps->i];
		if (c == ']' && !first) {
			ps->i++;
			break;
		}
		first = false;
		uint32_t lo;
		bool is_char = true;
		if (c == '[' && (peek(ps, 1) == ':' || peek(ps, 1) == '.' || peek(ps, 1) == '=')) {
			uint32_t kind = peek(ps, 1);
			ps->i += 2;
			if (kind == ':') {
				int start = ps->i;
				while (ps->i + 1 < ps->n && !(ps->p[ps->i] == ':' && ps->p[ps->i + 1] == ']'))
					ps->i++;
				if (ps->i + 1 >= ps->n)
					ty_re_error(E_BRACK);
				int len = ps->i - start, cls = -1;
				for (int q = 0; q < (int)UTIL_ARRAY_LEN(class_names) && cls < 0; q++) {
					const char *nm = class_names[q];
					if ((int)strlen(nm) != len)
						continue;
					int j = 0;
					while (j < len && (uint32_t)(uint8_t)nm[j] == ps->p[start + j])
						j++;
					if (j == len)
						cls = q;
				}
				if (cls < 0)
					ty_re_error(E_CTYPE);
				ps->i += 2;
				/* a class cannot start a range */
				if (see(ps, '-') && peek(ps, 1) != ']' && ps->i + 1 < ps->n)
					ty_re_error(E_RANGE);
				add_class(ps, &ps->re->sets[k], cls);
				is_char = false;
				lo = 0;
			} else {
				lo = lex_collating(ps, kind);
			}
		} else if (c == '\\') {
			ps->i++;
			esc e = lex_escape(ps, true);
			if (e.kind == ESC_CLASS) {
				if (see(ps, '-') && peek(ps, 1) != ']' && ps->i + 1 < ps->n)
					ty_re_error(E_RANGE);
				re_set tmp = {{0}, NULL, 0, 0, false};
				add_class(ps, &tmp, (int)e.c);
				re_set *s = &ps->re->sets[k];
				for (int w = 0; w < 4; w++)
					s->ascii[w] |= e.negated ? ~tmp.ascii[w] : tmp.ascii[w];
				if (e.negated)
					set_add_range(ps->a, s, 128, 0x10ffff);
				is_char = false;
				lo = 0;
			} else {
				lo = e.c;
			}
		} else {
			lo = c;
			ps->i++;
		}
		if (!is_char)
			continue;
		uint32_t hi = lo;
		if (see(ps, '-') && peek(ps, 1) != ']' && ps->i + 1 < ps->n) {
			ps->i++;
			uint32_t d = ps->p[ps->i];
			if (d == '[' && peek(ps, 1) == '.') {
				ps->i += 2;
				hi = lex_collating(ps, '.');
			} else if (d == '[' && (peek(ps, 1) == ':' || peek(ps, 1) == '=')) {
				ty_re_error(E_RANGE);
			} else if (d == '\\') {
				ps->i++;
				esc e = lex_escape(ps, true);
				if (e.kind != ESC_CHAR)
					ty_re_error(E_RANGE);
				hi = e.c;
			} else {
				hi = d;
				ps->i++;
			}
			if (hi < lo)
				ty_re_error(E_RANGE);
		}
		re_set *s = &ps->re->sets[k];
		set_add_range(ps->a, s, lo, hi);
		if (ps->cflags & RE_ICASE)
			for (uint32_t ch = lo; ch <= hi && ch < 128; ch++) {
				if (ch >= 'a' && ch <= 'z')
					add_char(ps, s, ch - 32);
				else if (ch >= 'A' && ch <= 'Z')
					add_char(ps, s, ch + 32);
			}
	}
	re_set *s = &ps->re->sets[k];
	if (negated) {
		if (ps->cflags & RE_NLSTOP)
			s->ascii['\n' >> 5] |= 1u << ('\n' & 31);
		s->negated = true;
	}
	return set_atom(ps, k);
}

/* ---------------------------------------------------------------- subre construction */

static re_sub *mk_sub(parser *ps, char op, int flags, re_ast *ast)
{
	re_sub *s = palloc0(ps, sizeof *s);
	s->op = op;
	s->flags = (uint8_t)flags;
	s->ast = ast;
	return s;
}

static re_sub *mk_concat(parser *ps, re_sub *l, re_sub *r, int flags)
{
	re_sub *s = mk_sub(ps, '.', flags, mk_cat(ps, l->ast, r->ast));
	s->child = l;
	l->sibling = r;
	return s;
}

static re_ast *piece_ast(parser *ps, const piece *q)
{
	return mk_rep(ps, q->atom, q->m, q->n);
}

static re_ast *run_ast(parser *ps, const piece *pc, int k)
{
	re_ast *a = NULL;
	for (int i = 0; i < k; i++)
		a = mk_cat(ps, a, piece_ast(ps, &pc[i]));
	return a ? a : mk(ps, A_EMPTY, NULL, NULL);
}

static int atom_flags(const piece *q)
{
	switch (q->kind) {
	case P_CAP:
		return q->inner->flags | SR_CAP;
	case P_GROUP:
		return q->inner->flags;
	case P_BACKREF:
		return SR_BACKR;
	default:
		return 0;
	}
}

/* The subre of one messy quantified atom (Spencer's "hard part"). */
static re_sub *quantify(parser *ps, const piece *q)
{
	re_sub *atom;
	int af = atom_flags(q);
	switch (q->kind) {
	case P_CAP:
		if (q->inner->capno == 0) {
			atom = q->inner;
		} else {
			/* ((x)): a no-op capturing wrapper */
			atom = mk_sub(ps, '(', q->inner->flags, q->inner->ast);
			atom->child = q->inner;
		}
		atom->flags = (uint8_t)(atom->flags | SR_CAP);
		atom->capno = q->capno;
		break;
	case P_GROUP:
		atom = q->inner;
		break;
	case P_BACKREF:
		atom = mk_sub(ps, 'b', SR_BACKR | COMBINE(q->qprefer, 0), piece_ast(ps, q));
		atom->backno = q->capno;
		atom->min = q->m;
		atom->max = q->n;
		return atom;
	default:
		atom = mk_sub(ps, '=', 0, q->atom);
		break;
	}
	int m = q->m, n = q->n;
	int f = COMBINE(q->qprefer, af);
	if (m == 1 && n == 1 &&
	    (q->qprefer == 0 || (af & (SR_LONGER | SR_SHORTER | SR_MIXED)) == 0 ||
	     q->qprefer == (af & (SR_LONGER | SR_SHORTER | SR_MIXED))))
		return atom;
	if (!(af & (SR_CAP | SR_BACKR)))
		return mk_sub(ps, '=', f, piece_ast(ps, q));
	if (m > 0 && !(af & SR_BACKR)) {
		/* x{m,n} -> x{m-1,n-1}x with the capture in the last x only */
		re_sub *pre =
		    mk_sub(ps, '=', PREF(f), mk_rep(ps, q->atom, m - 1, n == RE_INF ? RE_INF : n - 1));
		return mk_concat(ps, pre, atom, f);
	}
	re_sub *it = mk_sub(ps, '*', f, piece_ast(ps, q));
	it->min = m;
	it->max = n;
	it->child = atom;
	return it;
}

/* Spencer's parsebranch()/parseqatom() structure for pieces pc[0..k). */
static re_sub *build_branch(parser *ps, const piece *pc, int k)
{
	int runflags = 0, j;
	for (j = 0; j < k; j++) {
		const piece *q = &pc[j];
		int f = runflags | q->qprefer | atom_flags(q);
		if (q->kind != P_CAP && q->kind != P_BACKREF && !MESSY(UP(f))) {
			runflags = f;
			continue;
		}
		break;
	}
	if (j == k)
		return mk_sub(ps, '=', runflags, run_ast(ps, pc, k));
	const piece *q = &pc[j];
	re_sub *atom = quantify(ps, q), *t = atom;
	if (j + 1 < k) {
		re_sub *rest = build_branch(ps, pc + j + 1, k - j - 1);
		int tf = COMBINE(q->qprefer, atom_flags(q));
		tf |= COMBINE(tf, rest->flags);
		if (j > 0 && atom->op == '=' && rest->op == '=' && atom->capno == 0 && rest->capno == 0 &&
		    !MESSY(UP(atom->flags | rest->flags)))
			t = mk_sub(ps, '=', COMBINE(atom->flags, rest->flags),
				   mk_cat(ps, atom->ast, rest->ast));
		else
			t = mk_concat(ps, atom, rest, tf);
	}
	if (j == 0)
		return t;
	re_sub *prefix = mk_sub(ps, '=', runflags, run_ast(ps, pc, j));
	int topf = runflags;
	topf |= COMBINE(topf, t->flags);
	return mk_concat(ps, prefix, t, topf);
}

/* ---------------------------------------------------------------- recursive descent */

static parsed parse_alt(parser *ps, bool in_group);

static bool is_constraint(const re_ast *a)
{
	return a->kind == A_ASSERT || a->kind == A_LOOK;
}

static void track_size(parser *ps, int add)
{
	ps->ninst_est += add;
	if (ps->ninst_est > 200000)
		ty_re_error(E_TOOBIG);
}

/* Parses one atom into q (no quantifier). Returns false at the end of the
 * branch ('|', ')' or end). */
static bool parse_atom(parser *ps, piece *q, bool in_group)
{
	skip_comments(ps);
	if (at_end(ps))
		return false;
	uint32_t c = ps->p[ps->i];
	memset(q, 0, sizeof *q);
	q->m = q->n = 1;
	q->kind = P_PLAIN;
	if (ps->cflags & RE_QUOTE) {
		ps->i++;
		q->atom = char_atom(ps, c);
		return true;
	}
	switch (c) {
	case '|':
		return false;
	case ')':
		if (!in_group)
			ty_re_error(E_PAREN);
		return false;
	case '*':
	case '+':
	case '?':
		ty_re_error(E_BADRPT);
	case '{':
		/* a bound needs an operand; '{' not starting a bound is literal */
		if (digit_val(peek(ps, 1), 10) >= 0)
			ty_re_error(E_BADRPT);
		ps->i++;
		q->atom = char_atom(ps, c);
		return true;
	case '^':
	case '$':
		ps->i++;
		q->atom = mk(ps, A_ASSERT, NULL, NULL);
		q->atom->arg = c == '^' ? AS_BOL : AS_EOL;
		return true;
	case '.': {
		ps->i++;
		int k = new_set(ps);
		re_set *s = &ps->re->sets[k];
		s->negated = true;
		if (ps->cflags & RE_NLSTOP)
			s->ascii['\n' >> 5] |= 1u << ('\n' & 31);
		q->atom = set_atom(ps, k);
		return true;
	}
	case '[':
		ps->i++;
		q->atom = bracket(ps);
		return true;
	case '\\': {
		ps->i++;
		esc e = lex_escape(ps, false);
		if (e.kind == ESC_CHAR) {
			q->atom = char_atom(ps, e.c);
		} else if (e.kind == ESC_CLASS) {
			q->atom = class_atom(ps, (int)e.c, e.negated);
		} else if (e.kind == ESC_ASSERT) {
			q->atom = mk(ps, A_ASSERT, NULL, NULL);
			q->atom->arg = (int)e.c;
		} else {
			if (ps->look_depth > 0 || (int)e.c > ps->nsubexp || e.c == 0 || !ps->closed[e.c])
				ty_re_error(E_SUBREG);
			q->kind = P_BACKREF;
			q->capno = (int)e.c;
			q->atom = mk(ps, A_BACKREF, NULL, NULL);
			q->atom->arg = (int)e.c;
			ps->re->has_backref = true;
		}
		return true;
	}
	case '(': {
		ps->i++;
		int look = -1; /* 0 ahead, 1 ahead neg, 2 behind, 3 behind neg */
		bool capturing = true;
		if (see(ps, '?')) {
			uint32_t d = peek(ps, 1);
			if (d == ':') {
				capturing = false;
				ps->i += 2;
			} else if (d == '=' || d == '!') {
				look = d == '!';
				ps->i += 2;
			} else if (d == '<' && (peek(ps, 2) == '=' || peek(ps, 2) == '!')) {
				look = 2 + (peek(ps, 2) == '!');
				ps->i += 3;
			} else {
				ty_re_error(E_BADRPT);
			}
		}
		if (look >= 0) {
			ps->look_depth++;
			parsed in = parse_alt(ps, true);
			ps->look_depth--;
			if (!see(ps, ')'))
				ty_re_error(E_PAREN);
			ps->i++;
			ty_regex *re = ps->re;
			if ((re->nlooks & (re->nlooks - 1)) == 0) {
				int cap = re->nlooks ? re->nlooks * 2 : 4;
				re_look *l = palloc0(ps, (size_t)cap * sizeof *l);
				if (re->nlooks)
					memcpy(l, re->looks, (size_t)re->nlooks * sizeof *l);
				re->looks = l;
			}
			re_look *l = &re->looks[re->nlooks];
			l->ast = in.ast;
			l->behind = look >= 2;
			l->negated = look & 1;
			q->atom = mk(ps, A_LOOK, NULL, NULL);
			q->atom->arg = re->nlooks++;
			return true;
		}
		int capno = 0;
		if (capturing && ps->look_depth == 0) {
			capno = ++ps->nsubexp;
			if (capno >= ps->groups_cap) {
				int cap = ps->groups_cap * 2;
				bool *cl = palloc0(ps, (size_t)cap * sizeof *cl);
				memcpy(cl, ps->closed, (size_t)ps->groups_cap * sizeof *cl);
				ps->closed = cl;
				re_ast **g = palloc0(ps, (size_t)cap * sizeof *g);
				memcpy(g, ps->re->groups, (size_t)ps->groups_cap * sizeof *g);
				ps->re->groups = g;
				ps->groups_cap = cap;
			}
		}
		parsed in = parse_alt(ps, true);
		if (!see(ps, ')'))
			ty_re_error(E_PAREN);
		ps->i++;
		q->kind = capno ? P_CAP : P_GROUP;
		q->capno = capno;
		q->inner = in.sub;
		q->atom = mk(ps, A_GROUP, in.ast, NULL);
		q->atom->arg = capno;
		if (capno) {
			ps->closed[capno] = true;
			ps->re->groups[capno] = in.ast;
		}
		return true;
	}
	default:
		ps->i++;
		q->atom = char_atom(ps, c);
		return true;
	}
}

/* An optional quantifier after an atom. */
static void parse_quantifier(parser *ps, piece *q)
{
	skip_comments(ps);
	if (at_end(ps) || (ps->cflags & RE_QUOTE))
		return;
	uint32_t c = ps->p[ps->i];
	int m, n;
	bool bound = false, comma = false;
	if (c == '*') {
		m = 0, n = RE_INF;
	} else if (c == '+') {
		m = 1, n = RE_INF;
	} else if (c == '?') {
		m = 0, n = 1;
	} else if (c == '{' && digit_val(peek(ps, 1), 10) >= 0) {
		bound = true;
		ps->i++;
		m = (int)lex_digits(ps, 10, 1, 4);
		if (m > RE_DUPMAX || digit_val(peek(ps, 0), 10) >= 0)
			ty_re_error(E_BADBR);
		n = m;
		if (see(ps, ',')) {
			comma = true;
			ps->i++;
			if (digit_val(peek(ps, 0), 10) >= 0) {
				n = (int)lex_digits(ps, 10, 1, 4);
				if (n > RE_DUPMAX || digit_val(peek(ps, 0), 10) >= 0)
					ty_re_error(E_BADBR);
			} else {
				n = RE_INF;
			}
			if (n != RE_INF && m > n)
				ty_re_error(E_BADBR);
		}
		if (at_end(ps))
			ty_re_error(E_BRACE);
		if (!see(ps, '}'))
			ty_re_error(E_BADBR);
	} else {
		return;
	}
	ps->i++;
	bool greedy = true;
	if (see(ps, '?')) {
		greedy = false;
		ps->i++;
	}
	if (is_constraint(q->atom))
		ty_re_error(E_BADRPT);
	q->m = m;
	q->n = n;
	/* {m} passes the operand's preference through; {m,n} and the other
	 * quantifiers impose their own, even {m,m} */
	q->qprefer = (bound && !comma) ? 0 : greedy ? SR_LONGER : SR_SHORTER;
	/* a second quantifier is an error (a** / a+?*) */
	skip_comments(ps);
	if (!at_end(ps)) {
		uint32_t d = ps->p[ps->i];
		if (d == '*' || d == '+' || d == '?' || (d == '{' && digit_val(peek(ps, 1), 10) >= 0))
			ty_re_error(E_BADRPT);
	}
	int reps = n == RE_INF ? m + 1 : n;
	track_size(ps, reps * 2);
}

static parsed parse_branch(parser *ps, bool in_group)
{
	int cap = 8, k = 0;
	piece *pc = palloc0(ps, (size_t)cap * sizeof *pc);
	for (;;) {
		piece q;
		if (!parse_atom(ps, &q, in_group))
			break;
		parse_quantifier(ps, &q);
		track_size(ps, 2);
		if (q.m == 0 && q.n == 0) {
			/* {0} cancels the atom; a group inside can never be referenced */
			if (q.kind == P_CAP)
				ps->closed[q.capno] = false;
			continue;
		}
		if (k == cap) {
			piece *n = palloc0(ps, (size_t)cap * 2 * sizeof *n);
			memcpy(n, pc, (size_t)cap * sizeof *pc);
			pc = n;
			cap *= 2;
		}
		pc[k++] = q;
	}
	parsed r;
	r.sub = build_branch(ps, pc, k);
	r.ast = r.sub->ast;
	return r;
}

static parsed parse_alt(parser *ps, bool in_group)
{
	parsed first = parse_branch(ps, in_group);
	skip_comments(ps);
	if (!see(ps, '|'))
		return first;
	int flags = SR_LONGER;
	flags |= COMBINE(flags, first.sub->flags);
	re_sub *head = first.sub, *tail = first.sub;
	re_ast *ast = first.ast;
	re_ast **alts_tail = NULL;
	(void)alts_tail;
	/* AST as a right-nested chain a | (b | c): collect then fold */
	int na = 1, capa = 8;
	re_ast **alts = palloc0(ps, (size_t)capa * sizeof *alts);
	alts[0] = ast;
	while (see(ps, '|')) {
		ps->i++;
		parsed b = parse_branch(ps, in_group);
		skip_comments(ps);
		flags |= COMBINE(flags, b.sub->flags);
		tail->sibling = b.sub;
		tail = b.sub;
		if (na == capa) {
			re_ast **n = palloc0(ps, (size_t)capa * 2 * sizeof *n);
			memcpy(n, alts, (size_t)capa * sizeof *alts);
			alts = n;
			capa *= 2;
		}
		alts[na++] = b.ast;
	}
	re_ast *fold = alts[na - 1];
	for (int i = na - 2; i >= 0; i--)
		fold = mk(ps, A_ALT, alts[i], fold);
	parsed r;
	r.ast = fold;
	if (!MESSY(flags)) {
		r.sub = mk_sub(ps, '=', flags, fold);
	} else {
		r.sub = mk_sub(ps, '|', flags, fold);
		r.sub->child = head;
	}
	return r;
}

/* ---------------------------------------------------------------- options */

int ty_regex_parse_flags(const char *s, size_t n, bool *glob)
{
	int cflags = 0;
	if (glob)
		*glob = false;
	for (size_t i = 0; i < n; i++) {
		switch (s[i]) {
		case 'g':
			if (glob) {
				*glob = true;
				break;
			}
			goto bad;
		case 'b':
		case 'e':
			cflags &= ~RE_QUOTE;
			break;
		case 'c':
			cflags &= ~RE_ICASE;
			break;
		case 'i':
			cflags |= RE_ICASE;
			break;
		case 'm':
		case 'n':
			cflags |= RE_NLSTOP | RE_NLANCH;
			break;
		case 'p':
			cflags |= RE_NLSTOP;
			cflags &= ~RE_NLANCH;
			break;
		case 'q':
			cflags |= RE_QUOTE;
			break;
		case 's':
			cflags &= ~(RE_NLSTOP | RE_NLANCH);
			break;
		case 't':
			cflags &= ~RE_EXPANDED;
			break;
		case 'w':
			cflags &= ~RE_NLSTOP;
			cflags |= RE_NLANCH;
			break;
		case 'x':
			cflags |= RE_EXPANDED;
			break;
		default:
		bad : {
			int l = UTIL_MIN(ty_str_mblen((uint8_t)s[i]), (int)(n - i));
			ty_error(UTIL_E_INVALID_PARAMETER_VALUE,
				 "invalid regular expression option: \"%.*s\"", l, s + i);
		}
		}
	}
	return cflags;
}

/* Embedded options "(?letters)" at the start of an ARE. */
static void embedded_options(parser *ps)
{
	if (!(peek(ps, 0) == '(' && peek(ps, 1) == '?') || ps->i + 1 >= ps->n)
		return;
	uint32_t c = peek(ps, 2);
	if (!(c >= 'a' && c <= 'z'))
		return;
	ps->i += 2;
	while (!at_end(ps) && ps->p[ps->i] != ')') {
		char letter = (char)ps->p[ps->i];
		if (ps->p[ps->i] > 127 || letter == 'g' || !strchr("bceimnpqstwx", letter))
			ty_re_error(E_BADOPT);
		switch (letter) {
		case 'c':
			ps->cflags &= ~RE_ICASE;
			break;
		case 'i':
			ps->cflags |= RE_ICASE;
			break;
		case 'm':
		case 'n':
			ps->cflags |= RE_NLSTOP | RE_NLANCH;
			break;
		case 'p':
			ps->cflags |= RE_NLSTOP;
			ps->cflags &= ~RE_NLANCH;
			break;
		case 'q':
			ps->cflags |= RE_QUOTE;
			break;
		case 's':
			ps->cflags &= ~(RE_NLSTOP | RE_NLANCH);
			break;
		case 't':
			ps->cflags &= ~RE_EXPANDED;
			break;
		case 'w':
			ps->cflags &= ~RE_NLSTOP;
			ps->cflags |= RE_NLANCH;
			break;
		case 'x':
			ps->cflags |= RE_EXPANDED;
			break;
		default:
			break;
		}
		ps->i++;
	}
	if (at_end(ps))
		ty_re_error(E_BADOPT);
	ps->i++;
}

/* The literal prefix a match must start with, for index pushdown:
 * ^ followed by case-sensitive single characters. */
static void find_prefix(ty_regex *re, parser *ps)
{
	if (re->cflags & (RE_ICASE | RE_NLANCH) || re->nlooks)
		return;
	/* flatten the top-level concatenation */
	re_ast *stack[64];
	int ns = 0, nitems = 0;
	re_ast *items[256];
	stack[ns++] = re->ast;
	while (ns > 0 && nitems < 256) {
		re_ast *a = stack[--ns];
		if (a->kind == A_CAT && ns < 62) {
			stack[ns++] = a->b;
			stack[ns++] = a->a;
		} else {
			items[nitems++] = a;
		}
	}
	if (nitems == 0 || items[0]->kind != A_ASSERT || (items[0]->arg != AS_BOL && items[0]->arg != AS_BOS))
		return;
	re->prefix = palloc0(ps, (size_t)nitems * sizeof *re->prefix);
	int i = 1;
	for (; i < nitems; i++) {
		re_ast *a = items[i];
		if (a->kind != A_SET)
			break;
		const re_set *s = &re->sets[a->arg];
		if (s->negated || s->nranges > 1)
			break;
		uint32_t only = 0;
		int count = 0;
		for (uint32_t c = 0; c < 128 && count < 2; c++)
			if ((s->ascii[c >> 5] >> (c & 31)) & 1) {
				only = c;
				count++;
			}
		if (s->nranges == 1) {
			if (count || s->ranges[0][0] != s->ranges[0][1])
				break;
			only = s->ranges[0][0];
			count = 1;
		}
		if (count != 1)
			break;
		re->prefix[re->nprefix++] = only;
	}
	re->exact = i == nitems - 1 && items[i]->kind == A_ASSERT &&
		    (items[i]->arg == AS_EOL || items[i]->arg == AS_EOS);
}

ty_regex *ty_regex_compile(const char *pat, size_t len, int cflags, util_arena *a)
{
	ty_regex *re = util_arena_zalloc(a, sizeof *re);
	if (!re)
		ty_error(UTIL_E_OUT_OF_MEMORY, "out of memory");
	re->arena = a;
	parser ps;
	memset(&ps, 0, sizeof ps);
	ps.re = re;
	ps.a = a;
	ps.cflags = cflags;
	/* decode the pattern (valid UTF-8: it is text) */
	uint32_t *cp = palloc0(&ps, (len + 1) * sizeof *cp);
	int n = 0;
	for (size_t i = 0; i < len;) {
		int l;
		cp[n++] = ty_str_decode(pat + i, len - i, &l);
		i += (size_t)l;
	}
	ps.p = cp;
	ps.n = n;
	ps.groups_cap = 16;
	ps.closed = palloc0(&ps, 16 * sizeof *ps.closed);
	re->groups = palloc0(&ps, 16 * sizeof *re->groups);
	if (!(ps.cflags & RE_QUOTE)) {
		if (n >= 4 && cp[0] == '*' && cp[1] == '*' && cp[2] == '*' && cp[3] == '=') {
			ps.cflags |= RE_QUOTE;
			ps.i = 4;
		} else if (n >= 4 && cp[0] == '*' && cp[1] == '*' && cp[2] == '*' && cp[3] == ':') {
			ps.i = 4;
		}
		if (!(ps.cflags & RE_QUOTE))
			embedded_options(&ps);
	}
	parsed r = parse_alt(&ps, false);
	if (!at_end(&ps))
		ty_re_error(E_PAREN);
	re->cflags = ps.cflags;
	re->ast = r.ast;
	re->tree = r.sub;
	re->ncap = ps.nsubexp;
	for (int i = 0; i < re->nlooks; i++) {
		re->looks[i].prog = ty_re_compile_prog(re, re->looks[i].ast, false);
		if (!re->looks[i].behind)
			re->looks[i].rev = ty_re_compile_prog(re, re->looks[i].ast, true);
	}
	re->search = ty_re_compile_prog(re, re->ast, false);
	ty_re_analyze(re);
	ty_re_prepare(re);
	find_prefix(re, &ps);
	return re;
}
