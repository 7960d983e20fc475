/*
 * catalog_funcs_reg.c — text I/O of the function and operator oid types
 * (regproc, regprocedure, regoper, regoperator) with PostgreSQL's rules:
 * regproc takes a function name that must be unique ("more than one
 * function named ..."), regprocedure a signature "name(type, ...)"; output
 * prints a bare name when it is unambiguous, else schema-qualifies it, and
 * signatures with format_type() spellings. builtins.c's resolver calls
 * these for the reg* casts.
 */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sysview.h"

/* Lower-cases an unquoted identifier, unquotes a quoted one, drops a
 * "pg_catalog." qualifier (every built-in lives there). */
static char *normalize_name(const char *s, size_t n)
{
	while (n && isspace((unsigned char)*s))
		s++, n--;
	while (n && isspace((unsigned char)s[n - 1]))
		n--;
	if (n > 11 && !strncasecmp(s, "pg_catalog.", 11))
		s += 11, n -= 11;
	char *out = ty_alloc(n + 1);
	size_t k = 0;
	if (n >= 2 && s[0] == '"' && s[n - 1] == '"') {
		for (size_t i = 1; i + 1 < n; i++) {
			if (s[i] == '"' && i + 2 < n && s[i + 1] == '"')
				i++;
			out[k++] = s[i];
		}
	} else {
		for (size_t i = 0; i < n; i++)
			out[k++] = (char)tolower((unsigned char)s[i]);
	}
	out[k] = '\0';
	return out;
}

static int count_named(const char *name, ty_oid *only)
{
	int n = 0, cur = 0;
	const ty_func *f;
	while ((f = ty_func_lookup(name, &cur)))
		if (!(f->kind == 'a' && ty_agg_by_oid(ty_func_oid(f)))) {
			n++;
			*only = ty_func_oid(f);
		}
	cur = 0;
	const ty_agg *a;
	while ((a = ty_agg_lookup(name, &cur))) {
		n++;
		*only = a->oid;
	}
	return n;
}

/* Argument types of "name(type, type)" (the part inside the parentheses). */
static int parse_types(const char *s, size_t n, ty_oid *out, int max)
{
	int k = 0;
	size_t i = 0;
	while (i < n) {
		int depth = 0;
		size_t start = i;
		while (i < n && (depth || s[i] != ',')) {
			if (s[i] == '(')
				depth++;
			else if (s[i] == ')')
				depth--;
			i++;
		}
		const char *t = s + start;
		size_t tn = i - start;
		while (tn && isspace((unsigned char)*t))
			t++, tn--;
		if (tn) {
			if (k == max)
				ty_error(UTIL_E_TOO_MANY_ARGUMENTS, "too many arguments");
			out[k++] = (ty_oid)ty_input(TY_REGTYPE, t, tn, -1).i;
		}
		i++;
	}
	return k;
}

ty_oid sql_regproc_in(const char *s, size_t n, bool signature)
{
	const char *paren = memchr(s, '(', n);
	if (!signature || !paren) {
		if (signature)
			ty_error(UTIL_E_INVALID_TEXT_REPRESENTATION, "expected a left parenthesis");
		char *name = normalize_name(s, n);
		ty_oid only = 0;
		int c = count_named(name, &only);
		if (c == 0)
			ty_error(UTIL_E_UNDEFINED_FUNCTION, "function \"%.*s\" does not exist", (int)n, s);
		if (c > 1)
			ty_error(UTIL_E_AMBIGUOUS_FUNCTION, "more than one function named \"%.*s\"", (int)n,
				 s);
		return only;
	}
	const char *close = memchr(paren, ')', n - (size_t)(paren - s));
	if (!close)
		ty_error(UTIL_E_INVALID_TEXT_REPRESENTATION, "expected a right parenthesis");
	char *name = normalize_name(s, (size_t)(paren - s));
	ty_oid args[TY_FUNC_MAX_ARGS + 1];
	int na = parse_types(paren + 1, (size_t)(close - paren - 1), args, TY_FUNC_MAX_ARGS);
	int cur = 0;
	const ty_func *f;
	while ((f = ty_func_lookup(name, &cur))) {
		if (f->nargs != na)
			continue;
		bool same = true;
		for (int i = 0; i < na && same; i++)
			same = f->args[i] == args[i];
		if (same)
			return ty_func_oid(f);
	}
	cur = 0;
	const ty_agg *a;
	while ((a = ty_agg_lookup(name, &cur))) {
		if (a->nargs != na)
			continue;
		bool same = true;
		for (int i = 0; i < na && same; i++)
			same = a->args[i] == args[i];
		if (same)
			return a->oid;
	}
	ty_error(UTIL_E_UNDEFINED_FUNCTION, "function \"%.*s\" does not exist", (int)n, s);
}

/* The name and arguments of a function or aggregate oid. */
static bool proc_by_oid(ty_oid oid, const char **name, int *nargs, const ty_oid **args)
{
	const ty_func *f = ty_func_by_oid(oid);
	if (f) {
		*name = f->name;
		*nargs = f->nargs;
		*args = f->args;
		return true;
	}
	const ty_agg *a = ty_agg_by_oid(oid);
	if (a) {
		*name = a->name;
		*nargs = a->nargs;
		*args = a->args;
		return true;
	}
	return false;
}

bool sql_regproc_out(ty_oid oid, bool signature, util_buf *out)
{
	const char *name;
	int nargs;
	const ty_oid *args;
	if (!oid) {
		util_buf_puts(out, "-");
		return true;
	}
	if (!proc_by_oid(oid, &name, &nargs, &args))
		return false;
	ty_oid only;
	if (!signature && count_named(name, &only) > 1)
		util_buf_puts(out, "pg_catalog.");
	sql_quote_identifier(name, out);
	if (signature) {
		util_buf_putc(out, '(');
		for (int i = 0; i < nargs; i++) {
			if (i)
				util_buf_putc(out, ',');
			ty_format_type(args[i], -1, out);
		}
		util_buf_putc(out, ')');
	}
	return true;
}

/* ---- operators ---- */

ty_oid sql_regoper_in(const char *s, size_t n, bool signature)
{
	while (n && isspace((unsigned char)*s))
		s++, n--;
	if (n > 11 && !strncmp(s, "pg_catalog.", 11))
		s += 11, n -= 11;
	const char *paren = signature ? memchr(s, '(', n) : NULL;
	if (signature && !paren)
		ty_error(UTIL_E_INVALID_TEXT_REPRESENTATION, "expected a left parenthesis");
	size_t nl = paren ? (size_t)(paren - s) : n;
	while (nl && isspace((unsigned char)s[nl - 1]))
		nl--;
	char *name = ty_strndup(s, nl);
	ty_oid want[2] = {0, 0};
	if (signature) {
		const char *close = memchr(paren, ')', n - (size_t)(paren - s));
		if (!close)
			ty_error(UTIL_E_INVALID_TEXT_REPRESENTATION, "expected a right parenthesis");
		const char *body = paren + 1;
		size_t bl = (size_t)(close - body);
		const char *comma = memchr(body, ',', bl);
		if (!comma)
			ty_error(UTIL_E_SYNTAX_ERROR, "missing argument");
		char *l = normalize_name(body, (size_t)(comma - body));
		want[0] = strcmp(l, "none") ? (ty_oid)ty_input(TY_REGTYPE, l, strlen(l), -1).i : 0;
		want[1] = (ty_oid)ty_input(TY_REGTYPE, comma + 1, bl - (size_t)(comma + 1 - body), -1).i;
	}
	int cur = 0, count = 0;
	const ty_operator *op, *found = NULL;
	while ((op = ty_operator_lookup(name, &cur))) {
		if (signature && (op->left != want[0] || op->right != want[1]))
			continue;
		count++;
		found = op;
	}
	if (!count)
		ty_error(UTIL_E_UNDEFINED_FUNCTION, "operator does not exist: %.*s", (int)n, s);
	if (count > 1)
		ty_error(UTIL_E_AMBIGUOUS_FUNCTION, "more than one operator named %s", name);
	return found->oid;
}

static const ty_operator *oper_by_oid(ty_oid oid)
{
	for (int i = 0;; i++) {
		const ty_operator *op = ty_operator_nth(i);
		if (!op)
			return NULL;
		if (op->oid == oid)
			return op;
	}
}

bool sql_regoper_out(ty_oid oid, bool signature, util_buf *out)
{
	if (!oid) {
		util_buf_puts(out, "0");
		return true;
	}
	const ty_operator *op = oper_by_oid(oid);
	if (!op)
		return false;
	if (signature) {
		util_buf_puts(out, op->name);
		util_buf_putc(out, '(');
		if (op->left)
			ty_format_type(op->left, -1, out);
		else
			util_buf_puts(out, "NONE");
		util_buf_putc(out, ',');
		ty_format_type(op->right, -1, out);
		util_buf_putc(out, ')');
		return true;
	}
	int cur = 0, count = 0;
	while (ty_operator_lookup(op->name, &cur))
		count++;
	if (count > 1)
		util_buf_puts(out, "pg_catalog.");
	util_buf_puts(out, op->name);
	return true;
}
