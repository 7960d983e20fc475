/*
 * json_parse.c — the JSON lexer and parser with PostgreSQL 15's grammar
 * (RFC 8259 plus its quirks), its error DETAILs ("Token "x" is invalid.",
 * "Expected ":", but found "1".", ...) and its CONTEXT line ("JSON data,
 * line 1: {"a" 1..."). The parser is iterative (an explicit stack), so deep
 * nesting fails with 54001 like PostgreSQL's stack check rather than
 * overflowing the thread's stack. It builds the jv tree used by json and
 * jsonb, or only validates (json_in).
 */
#include "json_int.h"

#include <stdarg.h>
#include <stdio.h>

enum tok {
	T_INVALID = 0,
	T_STRING,
	T_NUMBER,
	T_OBJ_START,
	T_OBJ_END,
	T_ARR_START,
	T_ARR_END,
	T_COMMA,
	T_COLON,
	T_TRUE,
	T_FALSE,
	T_NULL,
	T_END
};

enum jerr {
	E_INVALID_TOKEN,
	E_ESCAPING_INVALID,
	E_ESCAPING_REQUIRED,
	E_EXPECTED_ARRAY_NEXT,
	E_EXPECTED_COLON,
	E_EXPECTED_END,
	E_EXPECTED_JSON,
	E_EXPECTED_MORE,
	E_EXPECTED_OBJECT_FIRST,
	E_EXPECTED_OBJECT_NEXT,
	E_EXPECTED_STRING,
	E_UNICODE_ESCAPE_FORMAT,
	E_UNICODE_HIGH_SURROGATE,
	E_UNICODE_LOW_SURROGATE,
	E_UNICODE_CODE_POINT_ZERO
};

typedef struct lexer {
	const char *in, *end;
	const char *tok_start; /* NULL once the end is reached */
	const char *tok_end;   /* the token's terminator; lexing resumes here */
	int type;              /* current token (stale after a lexing error, as PostgreSQL) */
	int line;
	const char *line_start;
	bool escapes;   /* decode strings (with the surrogate and \u0000 checks) */
	char *str;      /* decoded string of the current T_STRING token */
	size_t strlen_; /* its length */
	bool jsonb;     /* canonicalise numbers */
} lexer;

static bool is_alnum(unsigned char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' ||
	       c >= 0x80;
}

/* Byte length of the UTF-8 character at p (1 for stray bytes), bounded. */
static size_t mblen_at(const char *p, const char *end)
{
	unsigned char c = (unsigned char)*p;
	size_t n = c < 0x80 ? 1 : c < 0xe0 ? 2 : c < 0xf0 ? 3 : 4;
	if ((size_t)(end - p) < n)
		n = (size_t)(end - p);
	return n ? n : 1;
}

/* The CONTEXT line of PostgreSQL's report_json_context(). */
static void add_context(util_err *e, const lexer *lx)
{
	const char *ls = lx->line_start, *cs = ls, *ce = lx->tok_end;
	while (ce - cs >= 50)
		cs += ((unsigned char)*cs & 0x80) ? mblen_at(cs, lx->end) : 1;
	if (cs - ls <= 3)
		cs = ls;
	const char *prefix = cs > ls ? "..." : "";
	const char *suffix = (lx->type != T_END && ce < lx->end && *ce != '\n' && *ce != '\r') ? "..." : "";
	util_err_context(e, "JSON data, line %d: %s%.*s%s", lx->line, prefix, (int)(ce - cs), cs, suffix);
}

static UTIL_NORETURN void fail(lexer *lx, enum jerr err)
{
	if (err == E_EXPECTED_ARRAY_NEXT || err == E_EXPECTED_COLON || err == E_EXPECTED_END ||
	    err == E_EXPECTED_JSON || err == E_EXPECTED_OBJECT_FIRST || err == E_EXPECTED_OBJECT_NEXT ||
	    err == E_EXPECTED_STRING) {
		/* report_parse_error: at the end of input it is always "ended unexpectedly". */
		if (lx->tok_start == NULL || lx->type == T_END)
			err = E_EXPECTED_MORE;
	}
	util_err *e;
	if (err == E_UNICODE_CODE_POINT_ZERO)
		e = ty_errstart(UTIL_E_UNTRANSLATABLE_CHARACTER, "unsupported Unicode escape sequence");
	else
		e = ty_errstart(UTIL_E_INVALID_TEXT_REPRESENTATION, "invalid input syntax for type json");
	int tl = lx->tok_start ? (int)(lx->tok_end - lx->tok_start) : 0;
	const char *ts = lx->tok_start ? lx->tok_start : "";
	switch (err) {
	case E_INVALID_TOKEN:
		util_err_detail(e, "Token \"%.*s\" is invalid.", tl, ts);
		break;
	case E_ESCAPING_INVALID:
		util_err_detail(e, "Escape sequence \"\\%.*s\" is invalid.", tl, ts);
		break;
	case E_ESCAPING_REQUIRED:
		util_err_detail(e, "Character with value 0x%02x must be escaped.",
				(unsigned char)*lx->tok_end);
		break;
	case E_EXPECTED_ARRAY_NEXT:
		util_err_detail(e, "Expected \",\" or \"]\", but found \"%.*s\".", tl, ts);
		break;
	case E_EXPECTED_COLON:
		util_err_detail(e, "Expected \":\", but found \"%.*s\".", tl, ts);
		break;
	case E_EXPECTED_END:
		util_err_detail(e, "Expected end of input, but found \"%.*s\".", tl, ts);
		break;
	case E_EXPECTED_JSON:
		util_err_detail(e, "Expected JSON value, but found \"%.*s\".", tl, ts);
		break;
	case E_EXPECTED_MORE:
		util_err_detail(e, "The input string ended unexpectedly.");
		break;
	case E_EXPECTED_OBJECT_FIRST:
		util_err_detail(e, "Expected string or \"}\", but found \"%.*s\".", tl, ts);
		break;
	case E_EXPECTED_OBJECT_NEXT:
		util_err_detail(e, "Expected \",\" or \"}\", but found \"%.*s\".", tl, ts);
		break;
	case E_EXPECTED_STRING:
		util_err_detail(e, "Expected string, but found \"%.*s\".", tl, ts);
		break;
	case E_UNICODE_ESCAPE_FORMAT:
		util_err_detail(e, "\"\\u\" must be followed by four hexadecimal digits.");
		break;
	case E_UNICODE_HIGH_SURROGATE:
		util_err_detail(e, "Unicode high surrogate must not follow a high surrogate.");
		break;
	case E_UNICODE_LOW_SURROGATE:
		util_err_detail(e, "Unicode low surrogate must follow a high surrogate.");
		break;
	case E_UNICODE_CODE_POINT_ZERO:
		util_err_detail(e, "\\u0000 cannot be converted to text.");
		break;
	}
	add_context(e, lx);
	ty_errthrow();
}

static size_t utf8_put(char *o, unsigned cp)
{
	if (cp < 0x80) {
		o[0] = (char)cp;
		return 1;
	}
	if (cp < 0x800) {
		o[0] = (char)(0xc0 | (cp >> 6));
		o[1] = (char)(0x80 | (cp & 0x3f));
		return 2;
	}
	if (cp < 0x10000) {
		o[0] = (char)(0xe0 | (cp >> 12));
		o[1] = (char)(0x80 | ((cp >> 6) & 0x3f));
		o[2] = (char)(0x80 | (cp & 0x3f));
		return 3;
	}
	o[0] = (char)(0xf0 | (cp >> 18));
	o[1] = (char)(0x80 | ((cp >> 12) & 0x3f));
	o[2] = (char)(0x80 | ((cp >> 6) & 0x3f));
	o[3] = (char)(0x80 | (cp & 0x3f));
	return 4;
}

static int hexval(char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}

/* Lexes a string token starting at the opening quote lx->tok_start. */
static void lex_string(lexer *lx)
{
	const char *s = lx->tok_start;
	size_t o = 0;
	int hi = -1;
	for (;;) {
		s++;
		if (s >= lx->end) {
			lx->tok_end = s;
			fail(lx, E_INVALID_TOKEN);
		}
		if (*s == '"')
			break;
		if ((unsigned char)*s < 32) {
			lx->tok_end = s; /* the character is not shown */
			fail(lx, E_ESCAPING_REQUIRED);
		}
		if (*s == '\\') {
			s++;
			if (s >= lx->end) {
				lx->tok_end = s;
				fail(lx, E_INVALID_TOKEN);
			}
			if (*s == 'u') {
				int ch = 0;
				for (int i = 1; i <= 4; i++) {
					s++;
					if (s >= lx->end) {
						lx->tok_end = s;
						fail(lx, E_INVALID_TOKEN);
					}
					int h = hexval(*s);
					if (h < 0) {
						lx->tok_end = s + mblen_at(s, lx->end);
						fail(lx, E_UNICODE_ESCAPE_FORMAT);
					}
					ch = ch * 16 + h;
				}
				if (!lx->escapes)
					continue;
				lx->tok_end = s + 1;
				if (ch >= 0xd800 && ch <= 0xdbff) {
					if (hi != -1)
						fail(lx, E_UNICODE_HIGH_SURROGATE);
					hi = ch;
					continue;
				} else if (ch >= 0xdc00 && ch <= 0xdfff) {
					if (hi == -1)
						fail(lx, E_UNICODE_LOW_SURROGATE);
					ch = 0x10000 + ((hi - 0xd800) << 10) + (ch - 0xdc00);
					hi = -1;
				}
				if (hi != -1)
					fail(lx, E_UNICODE_LOW_SURROGATE);
				if (ch == 0)
					fail(lx, E_UNICODE_CODE_POINT_ZERO);
				o += utf8_put(lx->str + o, (unsigned)ch);
			} else if (lx->escapes) {
				lx->tok_end = s + 1;
				if (hi != -1)
					fail(lx, E_UNICODE_LOW_SURROGATE);
				char c;
				switch (*s) {
				case '"':
				case '\\':
				case '/':
					c = *s;
					break;
				case 'b':
					c = '\b';
					break;
				case 'f':
					c = '\f';
					break;
				case 'n':
					c = '\n';
					break;
				case 'r':
					c = '\r';
					break;
				case 't':
					c = '\t';
					break;
				default:
					lx->tok_start = s;
					lx->tok_end = s + mblen_at(s, lx->end);
					fail(lx, E_ESCAPING_INVALID);
				}
				lx->str[o++] = c;
			} else if (!strchr("\"\\/bfnrt", *s)) {
				lx->tok_start = s;
				lx->tok_end = s + mblen_at(s, lx->end);
				fail(lx, E_ESCAPING_INVALID);
			}
		} else if (lx->escapes) {
			if (hi != -1) {
				lx->tok_end = s + 1;
				fail(lx, E_UNICODE_LOW_SURROGATE);
			}
			lx->str[o++] = *s;
		}
	}
	if (lx->escapes && hi != -1) {
		lx->tok_end = s + 1;
		fail(lx, E_UNICODE_LOW_SURROGATE);
	}
	lx->strlen_ = o;
	lx->tok_end = s + 1;
	lx->type = T_STRING;
}

/* Lexes a number whose digits start at s (after an optional '-'). */
static void lex_number(lexer *lx, const char *s)
{
	const char *e = lx->end;
	bool err = false;
	if (s < e && *s == '0') {
		s++;
	} else if (s < e && *s >= '1' && *s <= '9') {
		do
			s++;
		while (s < e && *s >= '0' && *s <= '9');
	} else {
		err = true;
	}
	if (s < e && *s == '.') {
		s++;
		if (s == e || *s < '0' || *s > '9') {
			err = true;
		} else {
			do
				s++;
			while (s < e && *s >= '0' && *s <= '9');
		}
	}
	if (s < e && (*s == 'e' || *s == 'E')) {
		s++;
		if (s < e && (*s == '+' || *s == '-'))
			s++;
		if (s == e || *s < '0' || *s > '9') {
			err = true;
		} else {
			do
				s++;
			while (s < e && *s >= '0' && *s <= '9');
		}
	}
	for (; s < e && is_alnum((unsigned char)*s); s++)
		err = true;
	lx->tok_end = s;
	if (err)
		fail(lx, E_INVALID_TOKEN);
	lx->type = T_NUMBER;
}

static void lex(lexer *lx)
{
	const char *s = lx->tok_end;
	while (s < lx->end && (*s == ' ' || *s == '\t' || *s == '\n' || *s == '\r')) {
		if (*s++ == '\n') {
			lx->line++;
			lx->line_start = s;
		}
	}
	lx->tok_start = s;
	if (s >= lx->end) {
		lx->tok_start = NULL;
		lx->tok_end = s;
		lx->type = T_END;
		return;
	}
	switch (*s) {
	case '{':
		lx->tok_end = s + 1;
		lx->type = T_OBJ_START;
		return;
	case '}':
		lx->tok_end = s + 1;
		lx->type = T_OBJ_END;
		return;
	case '[':
		lx->tok_end = s + 1;
		lx->type = T_ARR_START;
		return;
	case ']':
		lx->tok_end = s + 1;
		lx->type = T_ARR_END;
		return;
	case ',':
		lx->tok_end = s + 1;
		lx->type = T_COMMA;
		return;
	case ':':
		lx->tok_end = s + 1;
		lx->type = T_COLON;
		return;
	case '"':
		lex_string(lx);
		return;
	case '-':
		lex_number(lx, s + 1);
		return;
	default:
		break;
	}
	if (*s >= '0' && *s <= '9') {
		lex_number(lx, s);
		return;
	}
	const char *p = s;
	while (p < lx->end && is_alnum((unsigned char)*p))
		p++;
	if (p == s) {
		lx->tok_end = s + 1;
		fail(lx, E_INVALID_TOKEN);
	}
	lx->tok_end = p;
	size_t n = (size_t)(p - s);
	if (n == 4 && memcmp(s, "true", 4) == 0)
		lx->type = T_TRUE;
	else if (n == 4 && memcmp(s, "null", 4) == 0)
		lx->type = T_NULL;
	else if (n == 5 && memcmp(s, "false", 5) == 0)
		lx->type = T_FALSE;
	else
		fail(lx, E_INVALID_TOKEN);
}

UTIL_NORETURN void json_depth_error(void)
{
	util_err *e = ty_errstart(UTIL_E_STATEMENT_TOO_COMPLEX, "stack depth limit exceeded");
	util_err_hint(e, "Increase the configuration parameter \"max_stack_depth\" (currently 2048kB), after "
			 "ensuring the platform's stack depth limit is adequate.");
	ty_errthrow();
}

/* ---------------------------------------------------------------- tree building */

/* A container being filled: its node and a growable list of children. */
typedef struct frame {
	jv *node;
	jv *kids;
	uint32_t n, cap;
	const char *start; /* source text of '{' / '[' */
} frame;

typedef struct builder {
	bool on;
	frame *st;
	int depth, cap;
	jv *root;
} builder;

static void push_kid(frame *f, const jv *v)
{
	if (f->n == f->cap) {
		uint32_t nc = f->cap ? f->cap * 2 : 8;
		jv *k = ty_alloc(sizeof *k * nc);
		if (f->n)
			memcpy(k, f->kids, sizeof *k * f->n);
		f->kids = k;
		f->cap = nc;
	}
	f->kids[f->n++] = *v;
}

/* Places a finished value into its parent (or as the root). */
static void emit(builder *b, const jv *v)
{
	if (!b->on)
		return;
	if (b->depth == 0) {
		b->root = ty_alloc(sizeof *b->root);
		*b->root = *v;
	} else {
		push_kid(&b->st[b->depth - 1], v);
	}
}

static void open_container(builder *b, uint8_t type, const char *start)
{
	if (b->depth >= JSON_MAX_DEPTH)
		json_depth_error();
	if (b->depth == b->cap) {
		int nc = b->cap ? b->cap * 2 : 16;
		frame *s = ty_alloc(sizeof *s * (size_t)nc);
		if (b->depth)
			memcpy(s, b->st, sizeof *s * (size_t)b->depth);
		b->st = s;
		b->cap = nc;
	}
	frame *f = &b->st[b->depth++];
	memset(f, 0, sizeof *f);
	f->start = start;
	f->node = NULL;
	(void)type;
}

static void close_container(builder *b, uint8_t type, const char *end)
{
	frame f = b->st[--b->depth];
	if (!b->on)
		return;
	jv v;
	memset(&v, 0, sizeof v);
	v.type = type;
	v.kids = f.kids;
	v.n = type == JV_OBJECT ? f.n / 2 : f.n;
	v.span = f.start;
	v.spanlen = (uint32_t)(end - f.start);
	emit(b, &v);
}

static void scalar(builder *b, lexer *lx)
{
	if (!b->on)
		return;
	jv v;
	memset(&v, 0, sizeof v);
	v.span = lx->tok_start;
	v.spanlen = (uint32_t)(lx->tok_end - lx->tok_start);
	switch (lx->type) {
	case T_STRING:
		v.type = JV_STRING;
		v.s = ty_strndup(lx->str, lx->strlen_);
		v.len = (uint32_t)lx->strlen_;
		break;
	case T_NUMBER:
		v.type = JV_NUMBER;
		if (lx->jsonb) {
			v.s = json_number_canon(lx->tok_start, (size_t)(lx->tok_end - lx->tok_start), &v.len);
		} else {
			v.s = lx->tok_start;
			v.len = v.spanlen;
		}
		break;
	case T_TRUE:
	case T_FALSE:
		v.type = JV_BOOL;
		v.b = lx->type == T_TRUE;
		break;
	default:
		v.type = JV_NULL;
		break;
	}
	emit(b, &v);
}

static bool is_scalar_tok(int t)
{
	return t == T_STRING || t == T_NUMBER || t == T_TRUE || t == T_FALSE || t == T_NULL;
}

/*
 * The grammar of PostgreSQL's recursive-descent parser, with the same
 * points at which the next token is lexed (so lexing errors surface at the
 * same place) and the same error for each unexpected token.
 */
static jv *parse(const char *s, size_t len, bool escapes, bool jsonb, bool build)
{
	lexer lx;
	memset(&lx, 0, sizeof lx);
	lx.in = s;
	lx.end = s + len;
	lx.tok_end = s;
	lx.line = 1;
	lx.line_start = s;
	lx.escapes = escapes;
	lx.jsonb = jsonb;
	if (escapes)
		lx.str = ty_alloc(len + 1);
	builder b;
	memset(&b, 0, sizeof b);
	b.on = build;
	/* Container kinds on the stack: 'o' or 'a'. */
	char *kinds = NULL;
	int kcap = 0, depth = 0;
	enum { VALUE, FIELD, AFTER } st = VALUE;
	lex(&lx);
	for (;;) {
		switch (st) {
		case VALUE:
			if (lx.type == T_OBJ_START || lx.type == T_ARR_START) {
				bool obj = lx.type == T_OBJ_START;
				if (depth == kcap) {
					int nc = kcap ? kcap * 2 : 32;
					char *k = ty_alloc((size_t)nc);
					if (depth)
						memcpy(k, kinds, (size_t)depth);
					kinds = k;
					kcap = nc;
				}
				if (depth >= JSON_MAX_DEPTH)
					json_depth_error();
				kinds[depth++] = obj ? 'o' : 'a';
				open_container(&b, obj ? JV_OBJECT : JV_ARRAY, lx.tok_start);
				lex(&lx);
				if (obj) {
					if (lx.type == T_STRING) {
						st = FIELD;
					} else if (lx.type == T_OBJ_END) {
						depth--;
						close_container(&b, JV_OBJECT, lx.tok_end);
						lex(&lx);
						st = AFTER;
					} else {
						fail(&lx, E_EXPECTED_OBJECT_FIRST);
					}
				} else if (lx.type == T_ARR_END) {
					depth--;
					close_container(&b, JV_ARRAY, lx.tok_end);
					lex(&lx);
					st = AFTER;
				}
				break;
			}
			if (!is_scalar_tok(lx.type))
				fail(&lx, E_EXPECTED_JSON);
			scalar(&b, &lx);
			lex(&lx);
			st = AFTER;
			break;
		case FIELD:
			if (lx.type != T_STRING)
				fail(&lx, E_EXPECTED_STRING);
			scalar(&b, &lx); /* the key */
			lex(&lx);
			if (lx.type != T_COLON)
				fail(&lx, E_EXPECTED_COLON);
			lex(&lx);
			st = VALUE;
			break;
		case AFTER:
			if (depth == 0) {
				if (lx.type != T_END)
					fail(&lx, E_EXPECTED_END);
				return b.root;
			}
			if (kinds[depth - 1] == 'a') {
				if (lx.type == T_COMMA) {
					lex(&lx);
					st = VALUE;
				} else if (lx.type == T_ARR_END) {
					depth--;
					close_container(&b, JV_ARRAY, lx.tok_end);
					lex(&lx);
				} else {
					fail(&lx, E_EXPECTED_ARRAY_NEXT);
				}
			} else {
				if (lx.type == T_COMMA) {
					lex(&lx);
					st = FIELD;
				} else if (lx.type == T_OBJ_END) {
					depth--;
					close_container(&b, JV_OBJECT, lx.tok_end);
					lex(&lx);
				} else {
					fail(&lx, E_EXPECTED_OBJECT_NEXT);
				}
			}
			break;
		}
	}
}

void json_validate(const char *s, size_t len)
{
	(void)parse(s, len, false, false, false);
}

jv *json_parse_tree(const char *s, size_t len, bool jsonb)
{
	jv *v = parse(s, len, true, jsonb, true);
	if (jsonb)
		jv_normalize(v, true);
	return v;
}
