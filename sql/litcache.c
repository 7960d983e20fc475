/*
 * litcache.c — the simple-query literal cache. pgbench -S and many
 * applications send the same statement again and again with a different
 * integer in it (`... WHERE aid = 48213`); the exact-text cache of stmt.c
 * never matches, and parsing (libpg_query plus its protobuf round trip)
 * and planning cost more than the lookup itself. Here a small lexer turns
 * the text into a shape (each integer constant replaced by a mark of its
 * lexical class) and the shape finds a plan made with those constants as
 * parameters of fixed type.
 *
 * Only constants compared with (or combined by an operator with) a plain
 * column in WHERE or UPDATE ... SET are parameterised: there a constant
 * and a parameter of the constant's own type (int4 for an integer that
 * fits, int8 for a bigger one, as PostgreSQL's lexer and make_const type
 * them; a folded leading minus included) resolve to the same operator and
 * the same value, and no constant folding happens that could raise an
 * error earlier. Every other number in the text must equal the cached
 * statement's text. A statement the parameterised form cannot analyze or
 * plan is not cached and runs as it always did, so errors stay the
 * normal path's. Texts with backslashes, dollar quotes, non-integer
 * numbers, '$' or anything the lexer is unsure of are not cached.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "sql_int.h"

#define LIT_CACHE_MAX         64
#define SQL_LITCACHE_TEXT_MAX 4096
#define LIT_MARK              1 /* byte introducing a constant's class in a shape */

typedef struct lit_tok {
	int off, len;
	char cls; /* 'i': fits int4 (ICONST), 'l': fits int8 (FCONST made int8) */
} lit_tok;

struct sql_litq {
	const char *text;
	char *key; /* shape, then guc_gen (statement arena) */
	size_t klen;
	int n;
	lit_tok *t;
};

/* What the cached statement does with each constant of the shape. */
typedef struct lit_spec {
	int param; /* $n - 1, or -1: must equal text */
	bool neg;  /* the parser folded a '-' before it into the constant */
	char *text;
} lit_spec;

typedef struct lit_entry {
	sql_prepared *p;
	int ntok;
	lit_spec *spec;
} lit_entry;

/* ---------------------------------------------------------------- lexer */

static bool ident_start(unsigned char c)
{
	return (c | 0x20) >= 'a' && (c | 0x20) <= 'z' ? true : c == '_' || c >= 0x80;
}
static bool ident_cont(unsigned char c)
{
	return ident_start(c) || (c >= '0' && c <= '9') || c == '$';
}
static bool digit(unsigned char c)
{
	return c >= '0' && c <= '9';
}

/* Value of a run of digits; false if it does not fit int8. */
static bool digits_value(const char *p, int len, int64_t *v)
{
	uint64_t x = 0;
	for (int i = 0; i < len; i++) {
		x = x * 10 + (uint64_t)(p[i] - '0');
		if (x > (uint64_t)INT64_MAX)
			return false;
	}
	*v = (int64_t)x;
	return true;
}

sql_litq *sql_litcache_scan(sql_session *s, const char *query)
{
	if (s->txn_state == SQL_TXN_FAILED || (s->txn && s->txn->ddl))
		return NULL;
	size_t qlen = strlen(query);
	/* Backslashes: E'' strings and standard_conforming_strings change
	 * where a string ends. */
	if (qlen > SQL_LITCACHE_TEXT_MAX || memchr(query, '\\', qlen) || memchr(query, LIT_MARK, qlen))
		return NULL;
	sql_litq *q = util_arena_zalloc(s->stmt_arena, sizeof *q);
	int cap = 8;
	q->t = util_arena_alloc(s->stmt_arena, sizeof *q->t * (size_t)cap);
	q->text = query;
	util_buf kb = UTIL_BUF_INIT, *k = &kb;
	const char *p = query, *end = query + qlen;
	while (p < end) {
		unsigned char c = (unsigned char)*p;
		if (c == '-' && p + 1 < end && p[1] == '-') { /* comment to end of line */
			const char *e = memchr(p, '\n', (size_t)(end - p));
			e = e ? e + 1 : end;
			util_buf_append(k, p, (size_t)(e - p));
			p = e;
		} else if (c == '/' && p + 1 < end && p[1] == '*') { /* nested comment */
			int depth = 0;
			const char *e = p;
			do {
				if (e + 1 < end && e[0] == '/' && e[1] == '*')
					depth++, e += 2;
				else if (e + 1 < end && e[0] == '*' && e[1] == '/')
					depth--, e += 2;
				else if (e < end)
					e++;
				else
					goto fail;
			} while (depth > 0);
			util_buf_append(k, p, (size_t)(e - p));
			p = e;
		} else if (c == '\'' || c == '"') { /* string or quoted identifier, doubled quotes inside */
			const char *e = p + 1;
			for (;;) {
				if (e >= end)
					goto fail;
				if (*e == (char)c) {
					if (e + 1 < end && e[1] == (char)c) {
						e += 2;
						continue;
					}
					e++;
					break;
				}
				e++;
			}
			util_buf_append(k, p, (size_t)(e - p));
			p = e;
		} else if (c == '$') {
			goto fail; /* $n (no parameters in a simple query: the error is the parser's) or
				      dollar quoting */
		} else if (ident_start(c)) {
			const char *e = p + 1;
			while (e < end && ident_cont((unsigned char)*e))
				e++;
			util_buf_append(k, p, (size_t)(e - p));
			p = e;
		} else if (digit(c) || (c == '.' && p + 1 < end && digit((unsigned char)p[1]))) {
			if (c == '.')
				goto fail;
			const char *e = p;
			while (e < end && digit((unsigned char)*e))
				e++;
			/* Decimals, exponents and "123abc" are left to the parser. */
			if (e < end && (*e == '.' || ident_cont((unsigned char)*e)))
				goto fail;
			int64_t v;
			if (e - p > 19 || !digits_value(p, (int)(e - p), &v))
				goto fail;
			if (q->n == cap) {
				lit_tok *nt = util_arena_alloc(s->stmt_arena, sizeof *nt * (size_t)cap * 2);
				memcpy(nt, q->t, sizeof *nt * (size_t)cap);
				q->t = nt;
				cap *= 2;
			}
			lit_tok *t = &q->t[q->n++];
			t->off = (int)(p - query);
			t->len = (int)(e - p);
			t->cls = v <= INT32_MAX ? 'i' : 'l';
			util_buf_putc(k, LIT_MARK);
			util_buf_putc(k, t->cls);
			p = e;
		} else {
			util_buf_putc(k, (char)c);
			p++;
		}
	}
	if (q->n == 0)
		goto fail;
	util_buf_put_be64(k, s->guc_gen);
	q->klen = k->len;
	q->key = util_arena_memdup(s->stmt_arena, k->data, k->len);
	util_buf_free(k);
	return q;
fail:
	util_buf_free(k);
	return NULL;
}

const char *sql_litcache_key(const sql_litq *q, size_t *len, int *nconst)
{
	*len = q->klen;
	*nconst = q->n;
	return q->key;
}

/* ---------------------------------------------------------------- entries */

static void entry_free(lit_entry *e)
{
	sql_prepared_release(e->p); /* the spec lives in its arena */
}

void sql_litcache_free(sql_session *s)
{
	size_t pos = 0;
	void *v;
	while (util_map_next(&s->lit_cache, &pos, NULL, NULL, &v))
		entry_free(v);
	util_map_free(&s->lit_cache);
}

/* The statement to run: a shallow copy of the cached one with this text
 * and these constants; the copy's plan reference is released by the run. */
static void fill_out(sql_session *s, lit_entry *e, sql_litq *q, ty_datum *params, sql_prepared *out,
		     sql_prepared **hold)
{
	*out = *e->p;
	out->text = (char *)q->text;
	out->full_text = q->text;
	out->stmt_location = 0;
	out->cp->refs++;
	out->lit_params = params;
	out->nlit_params = e->p->nparams;
	e->p->refs++;
	*hold = e->p;
	(void)s;
}

bool sql_litcache_get(sql_session *s, sql_litq *q, sql_prepared *out, sql_prepared **hold)
{
	lit_entry *e = util_map_get(&s->lit_cache, q->key, q->klen);
	if (!e)
		return false;
	/* Only while the catalog it was planned against is current (as stmt.c's
	 * unnamed-statement cache). */
	cat_snap *cur = cat_current(s->e->cat);
	bool current = e->p->cp && cur == e->p->cp->cat;
	cat_snap_release(cur);
	if (!current || e->ntok != q->n) {
		util_map_del(&s->lit_cache, q->key, q->klen);
		entry_free(e);
		return false;
	}
	ty_datum *params =
	    util_arena_alloc(s->stmt_arena, sizeof *params * (size_t)(e->p->nparams ? e->p->nparams : 1));
	for (int i = 0; i < q->n; i++) {
		const lit_tok *t = &q->t[i];
		const lit_spec *sp = &e->spec[i];
		if (sp->param < 0) {
			if ((int)strlen(sp->text) != t->len ||
			    memcmp(sp->text, q->text + t->off, (size_t)t->len) != 0)
				return false; /* another statement of the same shape: parse it */
			continue;
		}
		int64_t v = 0;
		digits_value(q->text + t->off, t->len, &v); /* fits: the scan checked */
		params[sp->param] = ty_int(sp->neg ? -v : v);
	}
	fill_out(s, e, q, params, out, hold);
	return true;
}

/* ---------------------------------------------------------------- building */

typedef struct lit_cand {
	pnode *node;
	PgQuery__AConst *ac;
	int tok;
	bool neg;
} lit_cand;

typedef struct lit_walk {
	lit_cand c[32];
	int n;
	bool overflow;
} lit_walk;

static bool int_const(pnode *n)
{
	if (!n || n->node_case != PG_QUERY__NODE__NODE_A_CONST || n->a_const->isnull)
		return false;
	return n->a_const->val_case == PG_QUERY__A__CONST__VAL_IVAL ||
	       n->a_const->val_case == PG_QUERY__A__CONST__VAL_FVAL;
}

static bool is_column(pnode *n)
{
	return n && n->node_case == PG_QUERY__NODE__NODE_COLUMN_REF;
}

static void add_cand(lit_walk *w, pnode *n)
{
	if (w->n == (int)(sizeof w->c / sizeof w->c[0])) {
		w->overflow = true;
		return;
	}
	w->c[w->n++] = (lit_cand){n, n->a_const, -1, false};
}

/* Constants that are an operand of an operator whose other operand is a
 * column, under AND/OR/NOT and operators. */
static void walk(lit_walk *w, pnode *n)
{
	if (!n)
		return;
	if (n->node_case == PG_QUERY__NODE__NODE_BOOL_EXPR) {
		for (size_t i = 0; i < n->bool_expr->n_args; i++)
			walk(w, n->bool_expr->args[i]);
	} else if (n->node_case == PG_QUERY__NODE__NODE_A_EXPR &&
		   n->a_expr->kind == PG_QUERY__A__EXPR__KIND__AEXPR_OP) {
		pnode *l = n->a_expr->lexpr, *r = n->a_expr->rexpr;
		if (is_column(l) && int_const(r))
			add_cand(w, r);
		else if (is_column(r) && int_const(l))
			add_cand(w, l);
		else {
			walk(w, l);
			walk(w, r);
		}
	}
}

/* Finds the token a constant came from (at its location, or after a '-'
 * the parser folded into it) and checks the value agrees. */
static bool match_token(sql_litq *q, lit_cand *c)
{
	int loc = c->ac->location;
	const char *txt = q->text;
	for (int i = 0; i < q->n; i++) {
		const lit_tok *t = &q->t[i];
		bool neg;
		if (t->off == loc)
			neg = false;
		else if (t->off > loc && txt[loc] == '-') {
			neg = true;
			for (int j = loc + 1; j < t->off; j++)
				if (txt[j] != ' ' && txt[j] != '\t' && txt[j] != '\n' && txt[j] != '\r')
					neg = false;
			if (!neg)
				continue;
		} else
			continue;
		int64_t v;
		if (!digits_value(txt + t->off, t->len, &v))
			return false;
		if (neg)
			v = -v;
		if (c->ac->val_case == PG_QUERY__A__CONST__VAL_IVAL) {
			if (t->cls != 'i' || c->ac->ival->ival != v)
				return false;
		} else {
			const char *f = c->ac->fval->fval;
			errno = 0;
			char *e;
			long long fv = strtoll(f, &e, 10);
			if (t->cls != 'l' || errno || *e || fv != v)
				return false;
		}
		c->tok = i;
		c->neg = neg;
		return true;
	}
	return false;
}

static void collect(lit_walk *w, pnode *raw)
{
	switch (raw->node_case) {
	case PG_QUERY__NODE__NODE_SELECT_STMT: {
		PgQuery__SelectStmt *st = raw->select_stmt;
		if (st->op == PG_QUERY__SET_OPERATION__SETOP_NONE && !st->into_clause)
			walk(w, st->where_clause);
		break;
	}
	case PG_QUERY__NODE__NODE_UPDATE_STMT: {
		PgQuery__UpdateStmt *st = raw->update_stmt;
		walk(w, st->where_clause);
		for (size_t i = 0; i < st->n_target_list; i++) {
			pnode *t = st->target_list[i];
			if (t->node_case == PG_QUERY__NODE__NODE_RES_TARGET)
				walk(w, t->res_target->val);
		}
		break;
	}
	case PG_QUERY__NODE__NODE_DELETE_STMT:
		walk(w, raw->delete_stmt->where_clause);
		break;
	default:
		break;
	}
}

bool sql_litcache_put(sql_session *s, sql_litq *q, PgQuery__ParseResult *pr, sql_prepared *out,
		      sql_prepared **hold)
{
	if (pr->n_stmts != 1 || (s->txn && s->txn->ddl) || s->txn_state == SQL_TXN_FAILED)
		goto no;
	pnode *raw = pr->stmts[0]->stmt;
	if (!raw || sql_stmt_is_utility(raw))
		goto no;
	lit_walk w;
	w.n = 0;
	w.overflow = false;
	collect(&w, raw);
	if (w.n == 0 || w.overflow)
		goto no;
	uint32_t types[32];
	for (int i = 0; i < w.n; i++) {
		if (!match_token(q, &w.c[i]))
			goto no;
		for (int j = 0; j < i; j++)
			if (w.c[j].tok == w.c[i].tok)
				goto no;
		types[i] = q->t[w.c[i].tok].cls == 'i' ? TY_INT4 : TY_INT8;
	}
	/* Constants become $1..$n; put back if the statement does not plan. */
	PgQuery__ParamRef *refs[32];
	for (int i = 0; i < w.n; i++) {
		refs[i] = malloc(sizeof *refs[i]); /* freed with the tree (protobuf-c's allocator) */
		if (!refs[i]) {
			for (int j = 0; j < i; j++) {
				w.c[j].node->node_case = PG_QUERY__NODE__NODE_A_CONST;
				w.c[j].node->a_const = w.c[j].ac;
				free(refs[j]);
			}
			goto no;
		}
		*refs[i] = (PgQuery__ParamRef)PG_QUERY__PARAM_REF__INIT;
		refs[i]->number = i + 1;
		refs[i]->location = w.c[i].ac->location;
		w.c[i].node->node_case = PG_QUERY__NODE__NODE_PARAM_REF;
		w.c[i].node->param_ref = refs[i];
	}
	util_err err;
	memset(&err, 0, sizeof err);
	sql_prepared *p = sql_prepare_tree(s, "", q->text, pr, w.n, types, &err);
	if (p && !p->cp) { /* planning failed (deferred): not ours to report */
		p->parse = NULL;
		sql_prepared_release(p);
		p = NULL;
	}
	if (!p) {
		for (int i = 0; i < w.n; i++) {
			w.c[i].node->node_case = PG_QUERY__NODE__NODE_A_CONST;
			w.c[i].node->a_const = w.c[i].ac;
			free(refs[i]);
		}
		goto no;
	}
	for (int i = 0; i < w.n; i++)
		pg_query__a__const__free_unpacked(w.c[i].ac, NULL);
	lit_entry *e = util_arena_zalloc(p->arena, sizeof *e);
	e->p = p;
	e->ntok = q->n;
	e->spec = util_arena_zalloc(p->arena, sizeof *e->spec * (size_t)q->n);
	for (int i = 0; i < q->n; i++) {
		e->spec[i].param = -1;
		e->spec[i].text = util_arena_memdup(p->arena, q->text + q->t[i].off, (size_t)q->t[i].len + 1);
		e->spec[i].text[q->t[i].len] = 0;
	}
	ty_datum *params = util_arena_alloc(s->stmt_arena, sizeof *params * (size_t)w.n);
	for (int i = 0; i < w.n; i++) {
		lit_spec *sp = &e->spec[w.c[i].tok];
		sp->param = i;
		sp->neg = w.c[i].neg;
		int64_t v = 0;
		digits_value(sp->text, (int)strlen(sp->text), &v);
		params[i] = ty_int(sp->neg ? -v : v);
	}
	if (util_map_count(&s->lit_cache) >= LIT_CACHE_MAX)
		sql_litcache_free(s);
	lit_entry *old = util_map_put(&s->lit_cache, q->key, q->klen, e);
	if (old)
		entry_free(old);
	fill_out(s, e, q, params, out, hold);
	return true;
no:
	return false;
}
