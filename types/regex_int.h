/*
 * regex_int.h — private to the regular-expression engine (regex_*.c):
 * PostgreSQL's ARE flavour (Henry Spencer's engine) reimplemented.
 *
 * Design (docs/key-encoding-strings.md has none of this; see the comment
 * at the top of regex_exec.c for the full story):
 *  - regex_parse.c turns the pattern into an AST (for NFAs) and, following
 *    Spencer's parser, a tree of "subre" nodes that says how a match is
 *    dissected into capture groups (plain / concatenation / alternation /
 *    iteration / capture / back-reference nodes, with LONGER/SHORTER
 *    preferences).
 *  - regex_nfa.c compiles any AST fragment into a Thompson NFA program
 *    (forward or reversed) and simulates it with state sets: time is
 *    O(text * program) per simulation, no backtracking.
 *  - regex_exec.c finds the leftmost match (longest or shortest by the
 *    RE's preference) and dissects it with the subre tree; only patterns
 *    with back-references need backtracking, and that runs under a step
 *    budget.
 * Everything works on code points: the text is decoded once per call.
 */
#ifndef STRATA_REGEX_INT_H
#define STRATA_REGEX_INT_H

#include "str_int.h"

/* ---------------------------------------------------------------- flags */

#define RE_ICASE    0x01 /* i */
#define RE_NLSTOP   0x02 /* . and [^...] do not match newline (n, p) */
#define RE_NLANCH   0x04 /* ^ and $ match at newlines (n, w) */
#define RE_EXPANDED 0x08 /* x: whitespace and # comments ignored */
#define RE_QUOTE    0x10 /* q: the pattern is a literal string */

/* subre preference flags, as Spencer's */
#define SR_LONGER  0x01
#define SR_SHORTER 0x02
#define SR_MIXED   0x04
#define SR_CAP     0x08
#define SR_BACKR   0x10

#define RE_INF    (-1) /* unbounded repetition */
#define RE_DUPMAX 255

/* ---------------------------------------------------------------- character sets */

typedef struct re_set {
	uint32_t ascii[4];     /* bitmap of code points 0..127 */
	uint32_t (*ranges)[2]; /* non-ASCII ranges, inclusive */
	int nranges, cap;
	bool negated;
} re_set;

bool ty_re_set_has(const re_set *s, uint32_t c);

/* ---------------------------------------------------------------- AST */

enum re_akind {
	A_EMPTY,
	A_SET,     /* arg = set index */
	A_ASSERT,  /* arg = assertion kind */
	A_LOOK,    /* arg = lookaround index */
	A_BACKREF, /* arg = group number */
	A_CAT,     /* a b */
	A_ALT,     /* a | b */
	A_REP,     /* a{min,max} */
	A_GROUP    /* (a), arg = capture number or 0 */
};

enum re_assert {
	AS_BOL,  /* ^ */
	AS_EOL,  /* $ */
	AS_BOS,  /* \A */
	AS_EOS,  /* \Z */
	AS_WBEG, /* \m [[:<:]] */
	AS_WEND, /* \M [[:>:]] */
	AS_WB,   /* \y */
	AS_NWB   /* \Y */
};

typedef struct re_ast re_ast;
struct re_ast {
	uint8_t kind;
	int16_t min, max; /* A_REP */
	int arg;
	re_ast *a, *b;
};

typedef struct re_look {
	re_ast *ast;
	bool behind, negated;
	struct re_prog *prog; /* forward; lookahead constraints also get rev */
	struct re_prog *rev;
} re_look;

/* ---------------------------------------------------------------- NFA programs */

enum re_op { I_SET, I_SPLIT, I_JMP, I_ASSERT, I_LOOK, I_MATCH };

typedef struct re_inst {
	uint8_t op;
	int32_t x, y; /* next; SPLIT: second branch */
	int32_t arg;  /* set / assertion / look index */
} re_inst;

typedef struct re_prog {
	re_inst *code;
	int n;  /* instructions; the last is I_MATCH */
	int id; /* index in ty_regex.progs (per-execution scratch) */
	bool reversed;
} re_prog;

/* ---------------------------------------------------------------- subre tree */

typedef struct re_sub re_sub;
struct re_sub {
	char op;       /* '=' plain, '.' concat, '|' alt, '*' iteration, '(' capture, 'b' backref */
	uint8_t flags; /* SR_* */
	int capno;     /* > 0: this node's match is capture group capno */
	int backno;    /* 'b': the group referred to */
	int min, max;  /* '*' and 'b' */
	re_sub *child; /* first child ('.', '|', '*', '(') */
	re_sub *sibling;
	re_ast *ast;        /* the fragment this node matches */
	re_prog *fwd, *rev; /* compiled lazily */
};

/* ---------------------------------------------------------------- compiled regex */

struct ty_regex {
	util_arena *arena;
	int cflags;
	re_ast *ast;
	re_sub *tree;
	int ncap;
	re_ast **groups; /* [1..ncap]: the group's contents, for back-references */
	re_set *sets;
	int nsets;
	re_look *looks;
	int nlooks;
	bool has_backref;
	re_prog *search; /* the whole RE, forward */
	re_prog **progs; /* every program, by id; all compiled up front so a
			  * compiled regex is read-only while it runs */
	int nprogs;
	/* search acceleration (regex_nfa.c): a match can only start at 0
	 * (anchored) or at a character in first[] / any non-ASCII one when
	 * first_nonascii; first_any disables skipping (empty match possible) */
	bool anchored, first_any, first_nonascii;
	uint32_t first[4];
	struct re_dfa *dfa; /* lazily built by regex_dfa.c (NULL until used) */
	/* fixed prefix for index pushdown */
	uint32_t *prefix;
	int nprefix;
	bool exact;
};

/* Compile helpers (regex_nfa.c). */
re_prog *ty_re_compile_prog(ty_regex *re, re_ast *ast, bool reversed);
/* Fills anchored / first* from the search program. */
void ty_re_analyze(ty_regex *re);
/* Compiles the programs the dissection of re->tree needs (regex_exec.c). */
void ty_re_prepare(ty_regex *re);

/* Error: throws 2201B "invalid regular expression: <msg>". */
UTIL_NORETURN void ty_re_error(const char *msg);

/* ---------------------------------------------------------------- execution */

typedef struct re_scratch re_scratch;

typedef struct re_exec {
	const ty_regex *re;
	const uint32_t *text;
	int n;
	const uint32_t *off;  /* byte offset of each character, off[n] = bytes */
	int *caps;            /* 2 * (ncap + 1), character positions, -1 unset */
	uint8_t **look_memo;  /* per look: per position 0 unknown, 1 true, 2 false */
	re_scratch **scratch; /* per program id, made on first use */
	uint64_t steps, budget;
	/* stack of reusable work buffers for the (recursive) dissection, so
	 * backtracking does not allocate on every try */
	struct re_tmp {
		void *p;
		size_t cap;
	} * tmp;
	int ntmp, tmpcap;
} re_exec;

/* Simulation primitives (regex_nfa.c). REQUIRES: begin <= limit <= n. */
/* Longest e in [begin, limit] with prog matching text[begin, e) (forward
 * program) or, for reversed programs, the smallest b in [limit, begin]
 * with prog matching text[b, begin); -1 if none. */
int ty_re_longest(re_exec *x, re_prog *p, int begin, int limit);
/* Shortest e in [min_end, limit] (forward only); -1 if none. */
int ty_re_shortest(re_exec *x, re_prog *p, int begin, int min_end, int limit);
/* Marks in out[i - lo] every i reachable: forward, ends e in [begin, limit];
 * reversed, starts b in [limit, begin]. */
void ty_re_reach(re_exec *x, re_prog *p, int begin, int limit, uint8_t *out, int lo);
/* Leftmost match of the search program from start: sets *s, *e. */
bool ty_re_search(re_exec *x, re_prog *p, int start, bool shortest, int *s, int *e);
void ty_re_count_steps(re_exec *x, uint64_t n);

bool ty_re_is_word(uint32_t c);

/* Does s contain a match of the search program? 1 / 0, or -1 when the
 * lazy DFA cannot answer (unsupported constraints, cache full). Builds DFA
 * states in re's arena: a compiled regex is for one thread at a time. With
 * back-references the DFA runs their stand-in, so only 0 is definitive. */
int ty_re_dfa_match(ty_regex *re, const char *s, size_t len);

/* Step budget for back-reference backtracking per text (tests lower it). */
extern uint64_t ty_re_backref_budget;

/* Execution over one text (regex_exec.c): decodes s into the current
 * arena; valid until the arena is reset. */
re_exec *ty_re_exec_new(const ty_regex *re, const char *s, size_t len);
/* Finds the next match starting the search at character start; fills
 * x->caps. */
bool ty_re_find(re_exec *x, int start);

#endif /* STRATA_REGEX_INT_H */
