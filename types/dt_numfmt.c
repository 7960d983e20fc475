/*
 * dt_numfmt.c — PostgreSQL's number formatting templates (formatting.c's
 * NUM part): to_char for int4, int8, float4, float8 and numeric, and
 * to_number, with 9 0 . , D G S PR MI PL SG EEEE FM TH RN V B L, in the C
 * locale (decimal point '.', group separator ',', currency ' ').
 */
#include "dt_int.h"
#include "numeric.h"

#include <ctype.h>
#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum {
	NUM_COMMA,
	NUM_DEC,
	NUM_0,
	NUM_9,
	NUM_B,
	NUM_C,
	NUM_D,
	NUM_E,
	NUM_FM,
	NUM_G,
	NUM_L,
	NUM_MI,
	NUM_PL,
	NUM_PR,
	NUM_RN,
	NUM_SG,
	NUM_SP,
	NUM_S,
	NUM_TH,
	NUM_V,
	NUM_rn,
	NUM_th
};

static const struct {
	const char *name;
	int id;
} num_keywords[] = {
    {",", NUM_COMMA}, {".", NUM_DEC},  {"0", NUM_0},   {"9", NUM_9},   {"B", NUM_B},   {"C", NUM_C},
    {"D", NUM_D},     {"EEEE", NUM_E}, {"FM", NUM_FM}, {"G", NUM_G},   {"L", NUM_L},   {"MI", NUM_MI},
    {"PL", NUM_PL},   {"PR", NUM_PR},  {"RN", NUM_RN}, {"SG", NUM_SG}, {"SP", NUM_SP}, {"S", NUM_S},
    {"TH", NUM_TH},   {"V", NUM_V},    {"b", NUM_B},   {"c", NUM_C},   {"d", NUM_D},   {"eeee", NUM_E},
    {"fm", NUM_FM},   {"g", NUM_G},    {"l", NUM_L},   {"mi", NUM_MI}, {"pl", NUM_PL}, {"pr", NUM_PR},
    {"rn", NUM_rn},   {"sg", NUM_SG},  {"sp", NUM_SP}, {"s", NUM_S},   {"th", NUM_th}, {"v", NUM_V},
};

#define F_DECIMAL    0x01
#define F_LDECIMAL   0x02
#define F_ZERO       0x04
#define F_BLANK      0x08
#define F_FILLMODE   0x10
#define F_LSIGN      0x20
#define F_BRACKET    0x40
#define F_MINUS      0x80
#define F_PLUS       0x100
#define F_ROMAN      0x200
#define F_MULTI      0x400
#define F_PLUS_POST  0x800
#define F_MINUS_POST 0x1000
#define F_EEEE       0x2000

enum { LSIGN_NONE, LSIGN_PRE, LSIGN_POST };

typedef struct numdesc {
	int pre, post, lsign, flag, pre_lsign_num, multi, zero_start, zero_end;
} numdesc;

typedef struct nnode {
	int type; /* 0 end, 1 action, 2 char, 3 space */
	int id;
	char ch[8];
} nnode;

UTIL_NORETURN static void syntax(const char *msg)
{
	ty_error(UTIL_E_SYNTAX_ERROR, "%s", msg);
}

static void prepare(numdesc *num, int id)
{
	if ((num->flag & F_EEEE) && id != NUM_E)
		syntax("\"EEEE\" must be the last pattern used");
	switch (id) {
	case NUM_9:
		if (num->flag & F_BRACKET)
			syntax("\"9\" must be ahead of \"PR\"");
		if (num->flag & F_MULTI) {
			++num->multi;
			break;
		}
		if (num->flag & F_DECIMAL)
			++num->post;
		else
			++num->pre;
		break;
	case NUM_0:
		if (num->flag & F_BRACKET)
			syntax("\"0\" must be ahead of \"PR\"");
		if (!(num->flag & F_ZERO) && !(num->flag & F_DECIMAL)) {
			num->flag |= F_ZERO;
			num->zero_start = num->pre + 1;
		}
		if (!(num->flag & F_DECIMAL))
			++num->pre;
		else
			++num->post;
		num->zero_end = num->pre;
		break;
	case NUM_B:
		if (num->pre == 0 && num->post == 0 && !(num->flag & F_ZERO))
			num->flag |= F_BLANK;
		break;
	case NUM_D:
		num->flag |= F_LDECIMAL;
		/* fall through */
	case NUM_DEC:
		if (num->flag & F_DECIMAL)
			syntax("multiple decimal points");
		if (num->flag & F_MULTI)
			syntax("cannot use \"V\" and decimal point together");
		num->flag |= F_DECIMAL;
		break;
	case NUM_FM:
		num->flag |= F_FILLMODE;
		break;
	case NUM_S:
		if (num->flag & F_LSIGN)
			syntax("cannot use \"S\" twice");
		if (num->flag & (F_PLUS | F_MINUS | F_BRACKET))
			syntax("cannot use \"S\" and \"PL\"/\"MI\"/\"SG\"/\"PR\" together");
		if (!(num->flag & F_DECIMAL)) {
			num->lsign = LSIGN_PRE;
			num->pre_lsign_num = num->pre;
			num->flag |= F_LSIGN;
		} else if (num->lsign == LSIGN_NONE) {
			num->lsign = LSIGN_POST;
			num->flag |= F_LSIGN;
		}
		break;
	case NUM_MI:
		if (num->flag & F_LSIGN)
			syntax("cannot use \"S\" and \"MI\" together");
		num->flag |= F_MINUS;
		if (num->flag & F_DECIMAL)
			num->flag |= F_MINUS_POST;
		break;
	case NUM_PL:
		if (num->flag & F_LSIGN)
			syntax("cannot use \"S\" and \"PL\" together");
		num->flag |= F_PLUS;
		if (num->flag & F_DECIMAL)
			num->flag |= F_PLUS_POST;
		break;
	case NUM_SG:
		if (num->flag & F_LSIGN)
			syntax("cannot use \"S\" and \"SG\" together");
		num->flag |= F_MINUS | F_PLUS;
		break;
	case NUM_PR:
		if (num->flag & (F_LSIGN | F_PLUS | F_MINUS))
			syntax("cannot use \"PR\" and \"S\"/\"PL\"/\"MI\"/\"SG\" together");
		num->flag |= F_BRACKET;
		break;
	case NUM_rn:
	case NUM_RN:
		num->flag |= F_ROMAN;
		break;
	case NUM_V:
		if (num->flag & F_DECIMAL)
			syntax("cannot use \"V\" and decimal point together");
		num->flag |= F_MULTI;
		break;
	case NUM_E:
		if (num->flag & F_EEEE)
			syntax("cannot use \"EEEE\" twice");
		if (num->flag &
		    (F_BLANK | F_FILLMODE | F_LSIGN | F_BRACKET | F_MINUS | F_PLUS | F_ROMAN | F_MULTI)) {
			util_err *e =
			    ty_errstart(UTIL_E_SYNTAX_ERROR, "\"EEEE\" is incompatible with other formats");
			util_err_detail(
			    e, "\"EEEE\" may only be used together with digit and decimal point patterns.");
			ty_errthrow();
		}
		num->flag |= F_EEEE;
		break;
	default:
		break;
	}
}

static nnode *parse_num_format(const char *str, numdesc *num)
{
	memset(num, 0, sizeof *num);
	nnode *nodes = ty_alloc0((strlen(str) + 1) * sizeof *nodes);
	nnode *n = nodes;
	while (*str) {
		int best = -1;
		size_t bestlen = 0;
		for (size_t i = 0; i < UTIL_ARRAY_LEN(num_keywords); i++) {
			size_t l = strlen(num_keywords[i].name);
			if (l > bestlen && strncmp(str, num_keywords[i].name, l) == 0) {
				best = num_keywords[i].id;
				bestlen = l;
			}
		}
		if (best >= 0) {
			n->type = 1;
			n->id = best;
			prepare(num, best);
			str += bestlen;
			n++;
		} else if (*str == '"') {
			str++;
			while (*str) {
				if (*str == '"') {
					str++;
					break;
				}
				if (*str == '\\' && str[1])
					str++;
				n->type = 2;
				n->ch[0] = *str++;
				n++;
			}
		} else {
			if (*str == '\\' && str[1] == '"')
				str++;
			n->type = isspace((unsigned char)*str) ? 3 : 2;
			n->ch[0] = *str++;
			n++;
		}
	}
	n->type = 0;
	return nodes;
}

/* ---------------------------------------------------------------- to_char */

typedef struct numproc {
	numdesc *num;
	const char *number, *number_p;
	util_buf *out;
	int sign; /* '+' or '-' */
	bool sign_wrote, num_in;
	int num_count, num_curr, out_pre_spaces;
	const char *last_relevant;
} numproc;

#define IS_PREDEC_SPACE(np)                                                                                  \
	(!((np)->num->flag & F_ZERO) && (np)->number == (np)->number_p && *(np)->number == '0' &&            \
	 (np)->num->post != 0)

static void numpart_to_char(numproc *np, int id)
{
	numdesc *num = np->num;
	if (num->flag & F_ROMAN)
		return;
	np->num_in = false;
	if (!np->sign_wrote &&
	    (np->num_curr >= np->out_pre_spaces ||
	     ((num->flag & F_ZERO) && num->zero_start == np->num_curr)) &&
	    (!IS_PREDEC_SPACE(np) || (np->last_relevant && *np->last_relevant == '.'))) {
		if (num->flag & F_LSIGN) {
			if (num->lsign == LSIGN_PRE) {
				util_buf_putc(np->out, np->sign == '-' ? '-' : '+');
				np->sign_wrote = true;
			}
		} else if (num->flag & F_BRACKET) {
			util_buf_putc(np->out, np->sign == '+' ? ' ' : '<');
			np->sign_wrote = true;
		} else if (np->sign == '+') {
			if (!(num->flag & F_FILLMODE))
				util_buf_putc(np->out, ' ');
			np->sign_wrote = true;
		} else if (np->sign == '-') {
			util_buf_putc(np->out, '-');
			np->sign_wrote = true;
		}
	}
	if (np->num_curr < np->out_pre_spaces && (num->zero_start > np->num_curr || !(num->flag & F_ZERO))) {
		if (!(num->flag & F_FILLMODE))
			util_buf_putc(np->out, ' ');
	} else if ((num->flag & F_ZERO) && np->num_curr < np->out_pre_spaces &&
		   num->zero_start <= np->num_curr) {
		util_buf_putc(np->out, '0');
		np->num_in = true;
	} else {
		if (*np->number_p == '.') {
			if (!np->last_relevant || *np->last_relevant != '.')
				util_buf_putc(np->out, '.');
			else if ((num->flag & F_FILLMODE) && np->last_relevant && *np->last_relevant == '.')
				util_buf_putc(np->out, '.');
		} else {
			if (np->last_relevant && np->number_p > np->last_relevant && id != NUM_0) {
			} else if (IS_PREDEC_SPACE(np)) {
				if (!(num->flag & F_FILLMODE))
					util_buf_putc(np->out, ' ');
				else if (np->last_relevant && *np->last_relevant == '.')
					util_buf_putc(np->out, '0');
			} else {
				util_buf_putc(np->out, *np->number_p);
				np->num_in = true;
			}
		}
		if (*np->number_p)
			++np->number_p;
	}
	int end = np->num_count + (np->out_pre_spaces ? 1 : 0) + ((num->flag & F_DECIMAL) ? 1 : 0);
	if (np->last_relevant && np->last_relevant == np->number_p)
		end = np->num_curr;
	if (np->num_curr + 1 == end) {
		if (np->sign_wrote && (num->flag & F_BRACKET))
			util_buf_putc(np->out, np->sign == '+' ? ' ' : '>');
		else if ((num->flag & F_LSIGN) && num->lsign == LSIGN_POST)
			util_buf_putc(np->out, np->sign == '-' ? '-' : '+');
	}
	++np->num_curr;
}

static const char *get_th(const char *num, bool upper)
{
	size_t len = strlen(num);
	char last = len ? num[len - 1] : 0;
	if (!isdigit((unsigned char)last))
		ty_error(UTIL_E_INVALID_TEXT_REPRESENTATION, "\"%s\" is not a number", num);
	if (len > 1 && num[len - 2] == '1')
		last = 0;
	switch (last) {
	case '1':
		return upper ? "ST" : "st";
	case '2':
		return upper ? "ND" : "nd";
	case '3':
		return upper ? "RD" : "rd";
	default:
		return upper ? "TH" : "th";
	}
}

static void num_to_char(const nnode *nodes, numdesc *num, const char *number, int out_pre_spaces, int sign,
			util_buf *out)
{
	numproc np = {0};
	np.num = num;
	np.number = number;
	np.out = out;
	if (num->zero_start)
		--num->zero_start;
	if (num->flag & F_EEEE) {
		util_buf_puts(out, number);
		return;
	}
	if (num->flag & F_ROMAN) {
		num->lsign = num->pre_lsign_num = num->post = num->pre = 0;
		out_pre_spaces = sign = 0;
		num->flag = (num->flag & F_FILLMODE) | F_ROMAN;
	}
	np.sign = sign;
	if (num->flag & (F_PLUS | F_MINUS)) {
		np.sign_wrote = !((num->flag & F_PLUS) && !(num->flag & F_MINUS));
	} else {
		if (np.sign != '-' && (num->flag & F_FILLMODE))
			num->flag &= ~F_BRACKET;
		np.sign_wrote = np.sign == '+' && (num->flag & F_FILLMODE) && !(num->flag & F_LSIGN);
		if (num->lsign == LSIGN_PRE && num->pre == num->pre_lsign_num)
			num->lsign = LSIGN_POST;
	}
	np.num_count = num->post + num->pre - 1;
	np.out_pre_spaces = out_pre_spaces;
	if ((num->flag & F_FILLMODE) && (num->flag & F_DECIMAL)) {
		const char *p = strchr(number, '.');
		if (p) {
			np.last_relevant = p;
			while (*(++p))
				if (*p != '0')
					np.last_relevant = p;
		}
		/* Keep digits that '0' patterns ask for. */
		if (np.last_relevant && num->zero_end > np.out_pre_spaces) {
			int pos = (int)strlen(number) - 1;
			if (pos > num->zero_end - np.out_pre_spaces)
				pos = num->zero_end - np.out_pre_spaces;
			if (np.last_relevant < number + pos)
				np.last_relevant = number + pos;
		}
	}
	if (!np.sign_wrote && np.out_pre_spaces == 0)
		++np.num_count;
	np.number_p = number;
	for (const nnode *n = nodes; n->type != 0; n++) {
		if (n->type != 1) {
			util_buf_puts(out, n->ch);
			continue;
		}
		switch (n->id) {
		case NUM_9:
		case NUM_0:
		case NUM_DEC:
		case NUM_D:
			numpart_to_char(&np, n->id);
			break;
		case NUM_COMMA:
		case NUM_G:
			if (!np.num_in) {
				if (!(num->flag & F_FILLMODE))
					util_buf_putc(out, ' ');
			} else {
				util_buf_putc(out, ',');
			}
			break;
		case NUM_L:
			util_buf_putc(out, ' ');
			break;
		case NUM_RN:
		case NUM_rn: {
			char buf[32];
			snprintf(buf, sizeof buf, "%s", np.number_p);
			if (n->id == NUM_rn)
				for (char *c = buf; *c; c++)
					*c = (char)tolower((unsigned char)*c);
			util_buf_printf(out, (num->flag & F_FILLMODE) ? "%s" : "%15s", buf);
			break;
		}
		case NUM_th:
		case NUM_TH:
			if ((num->flag & F_ROMAN) || *np.number == '#' || np.sign == '-' ||
			    (num->flag & F_DECIMAL))
				break;
			util_buf_puts(out, get_th(np.number, n->id == NUM_TH));
			break;
		case NUM_MI:
			if (np.sign == '-')
				util_buf_putc(out, '-');
			else if (!(num->flag & F_FILLMODE))
				util_buf_putc(out, ' ');
			break;
		case NUM_PL:
			if (np.sign == '+')
				util_buf_putc(out, '+');
			else if (!(num->flag & F_FILLMODE))
				util_buf_putc(out, ' ');
			break;
		case NUM_SG:
			util_buf_putc(out, (char)np.sign);
			break;
		default:
			break;
		}
	}
}

static char *int_to_roman(int number)
{
	static const char *const rm1[] = {"I", "II", "III", "IV", "V", "VI", "VII", "VIII", "IX"};
	static const char *const rm10[] = {"X", "XX", "XXX", "XL", "L", "LX", "LXX", "LXXX", "XC"};
	static const char *const rm100[] = {"C", "CC", "CCC", "CD", "D", "DC", "DCC", "DCCC", "CM"};
	char *result = ty_alloc0(16);
	if (number > 3999 || number < 1) {
		memset(result, '#', 15);
		return result;
	}
	char numstr[16];
	int len = snprintf(numstr, sizeof numstr, "%d", number);
	for (const char *p = numstr; *p; p++, --len) {
		int num = *p - ('0' + 1);
		if (num < 0)
			continue;
		if (len > 3) {
			while (num-- != -1)
				strcat(result, "M");
		} else if (len == 3) {
			strcat(result, rm100[num]);
		} else if (len == 2) {
			strcat(result, rm10[num]);
		} else {
			strcat(result, rm1[num]);
		}
	}
	return result;
}

static char *hashes(int pre, int post)
{
	char *s = ty_alloc((size_t)pre + (size_t)post + 2);
	memset(s, '#', (size_t)pre + (size_t)post + 1);
	s[pre] = '.';
	s[pre + post + 1] = '\0';
	return s;
}

/* EEEE placeholder for NaN/Infinity: " #.##e+##" shaped. */
static char *eeee_hashes(const numdesc *num)
{
	size_t n = (size_t)num->pre + (size_t)num->post + 6;
	char *s = ty_alloc(n + 1);
	memset(s, '#', n);
	s[n] = '\0';
	s[0] = ' ';
	s[num->pre + 1] = '.';
	return s;
}

/* PostgreSQL's snprintf spells the float specials this way. */
static char *fmt_double(const char *fmt, int prec, double v)
{
	if (isnan(v))
		return ty_strdup("NaN");
	if (isinf(v))
		return ty_strdup(v < 0 ? "-Infinity" : "Infinity");
	char buf[512];
	snprintf(buf, sizeof buf, fmt, prec, v);
	return ty_strdup(buf);
}

/* numeric_out_sci: the significand rounded to scale digits, then e±NN. */
static char *numeric_sci(ty_datum n, int scale)
{
	util_buf b = UTIL_BUF_INIT;
	ty_numeric_format(n, &b);
	char *txt = ty_strdup(b.data ? b.data : "");
	util_buf_free(&b);
	if (ty_numeric_is_nan(n) || ty_numeric_is_inf(n))
		return txt;
	bool neg = txt[0] == '-';
	const char *p = txt + (neg ? 1 : 0);
	/* All digits without the point, and the exponent of the first nonzero one. */
	char digits[1100];
	int nd = 0, intlen = 0, first = -1;
	bool seen_point = false;
	for (const char *c = p; *c; c++) {
		if (*c == '.') {
			seen_point = true;
			continue;
		}
		if (!seen_point)
			intlen++;
		if (first < 0 && *c != '0')
			first = nd;
		if (nd < (int)sizeof digits - 1)
			digits[nd++] = *c;
	}
	int exponent = first < 0 ? 0 : intlen - first - 1;
	/* Significand digits: from `first`, keep 1 + scale, round half up. */
	int keep = 1 + scale;
	char *sig = ty_alloc((size_t)keep + 2);
	int start = first < 0 ? nd : first;
	for (int i = 0; i < keep; i++)
		sig[i] = start + i < nd ? digits[start + i] : '0';
	bool carry = start + keep < nd && digits[start + keep] >= '5';
	for (int i = keep - 1; i >= 0 && carry; i--) {
		if (sig[i] == '9') {
			sig[i] = '0';
		} else {
			sig[i]++;
			carry = false;
		}
	}
	util_buf o = UTIL_BUF_INIT;
	if (neg)
		util_buf_putc(&o, '-');
	if (carry)
		util_buf_puts(&o, "10"); /* 9.99 rounds to 10.00, as PostgreSQL prints it */
	else
		util_buf_putc(&o, sig[0]);
	if (scale > 0) {
		util_buf_putc(&o, '.');
		util_buf_append(&o, carry ? sig + 1 : sig + 1, (size_t)scale);
	}
	util_buf_printf(&o, "e%+03d", exponent);
	char *r = ty_strdup(o.data);
	util_buf_free(&o);
	return r;
}

static ty_datum finish(const nnode *nodes, numdesc *num, const char *numstr, int out_pre_spaces, int sign)
{
	util_buf b = UTIL_BUF_INIT;
	TY_TRY(c)
	{
		num_to_char(nodes, num, numstr, out_pre_spaces, sign, &b);
	}
	TY_CATCH(c)
	{
		TY_END(c);
		util_buf_free(&b);
		ty_errthrow();
	}
	TY_END(c);
	ty_datum r = ty_textn(b.data ? b.data : "", b.len);
	util_buf_free(&b);
	return r;
}

/* Digits of an integer with a point and post zeros, or '#'s if it overflows. */
static void integer_body(char *orgnum, numdesc *num, char **numstr, int *out_pre_spaces, int *sign)
{
	if (*orgnum == '-') {
		*sign = '-';
		orgnum++;
	} else {
		*sign = '+';
	}
	int pre_len = (int)strlen(orgnum);
	if (num->post) {
		char *s = ty_alloc((size_t)pre_len + (size_t)num->post + 2);
		memcpy(s, orgnum, (size_t)pre_len);
		s[pre_len] = '.';
		memset(s + pre_len + 1, '0', (size_t)num->post);
		s[pre_len + num->post + 1] = '\0';
		*numstr = s;
	} else {
		*numstr = orgnum;
	}
	if (pre_len < num->pre)
		*out_pre_spaces = num->pre - pre_len;
	else if (pre_len > num->pre)
		*numstr = hashes(num->pre, num->post);
}

static void decimal_body(char *orgnum, numdesc *num, char **numstr, int *out_pre_spaces, int *sign)
{
	if (*orgnum == '-') {
		*sign = '-';
		*numstr = orgnum + 1;
	} else {
		*sign = '+';
		*numstr = orgnum;
	}
	const char *p = strchr(*numstr, '.');
	int pre_len = p ? (int)(p - *numstr) : (int)strlen(*numstr);
	if (pre_len < num->pre)
		*out_pre_spaces = num->pre - pre_len;
	else if (pre_len > num->pre)
		*numstr = hashes(num->pre, num->post);
}

static bool fmt_empty(ty_datum fmt)
{
	return fmt.len == 0;
}

static ty_datum int_to_char(int64_t value, ty_datum fmt, bool is_int8)
{
	if (fmt_empty(fmt))
		return ty_text("");
	numdesc num;
	nnode *nodes = parse_num_format(ty_cstring(fmt), &num);
	char *numstr;
	int out_pre_spaces = 0, sign = 0;
	if (num.flag & F_ROMAN) {
		numstr = int_to_roman(value > INT32_MAX || value < INT32_MIN ? -1 : (int)value);
	} else if (num.flag & F_EEEE) {
		if (is_int8) {
			char *o = numeric_sci(ty_numeric_from_int64(value), num.post);
			numstr = *o != '-' ? util_arena_sprintf(ty_get_arena(), " %s", o) : o;
		} else {
			numstr = fmt_double("%+.*e", num.post, (double)value);
			if (*numstr == '+')
				*numstr = ' ';
		}
	} else {
		char buf[64];
		if (num.flag & F_MULTI) {
			double mult = pow(10.0, num.multi);
			if (is_int8) {
				double prod = (double)value * mult;
				if (!(prod >= (double)INT64_MIN && prod < -(double)INT64_MIN) ||
				    __builtin_mul_overflow(value, (int64_t)mult, &value))
					ty_error(UTIL_E_NUMERIC_VALUE_OUT_OF_RANGE, "bigint out of range");
			} else {
				/* int4_to_char multiplies without an overflow check: it wraps. */
				value = (int32_t)((uint32_t)(int32_t)value * (uint32_t)(int32_t)mult);
			}
			num.pre += num.multi;
		}
		snprintf(buf, sizeof buf, "%lld", (long long)value);
		integer_body(ty_strdup(buf), &num, &numstr, &out_pre_spaces, &sign);
	}
	return finish(nodes, &num, numstr, out_pre_spaces, sign);
}

static DT_FN(int4_to_char)
{
	return int_to_char((int32_t)DT_I(0), DT_A(1), false);
}
static DT_FN(int8_to_char)
{
	return int_to_char(DT_I(0), DT_A(1), true);
}

static ty_datum float_to_char(double value, ty_datum fmt, int dig)
{
	if (fmt_empty(fmt))
		return ty_text("");
	numdesc num;
	nnode *nodes = parse_num_format(ty_cstring(fmt), &num);
	char *numstr;
	int out_pre_spaces = 0, sign = 0;
	if (num.flag & F_ROMAN) {
		double r = rint(value);
		numstr = int_to_roman(r >= INT32_MIN && r <= INT32_MAX ? (int)r : INT32_MIN);
	} else if (num.flag & F_EEEE) {
		if (isnan(value) || isinf(value)) {
			numstr = eeee_hashes(&num);
		} else {
			numstr = fmt_double("%+.*e", num.post, value);
			if (*numstr == '+')
				*numstr = ' ';
		}
	} else {
		double val = value;
		if (num.flag & F_MULTI) {
			val = value * pow(10.0, num.multi);
			num.pre += num.multi;
		}
		char *orgnum = fmt_double("%.*f", 0, fabs(val));
		int pre_len = (int)strlen(orgnum);
		if (pre_len >= dig)
			num.post = 0;
		else if (pre_len + num.post > dig)
			num.post = dig - pre_len;
		orgnum = fmt_double("%.*f", num.post, val);
		decimal_body(orgnum, &num, &numstr, &out_pre_spaces, &sign);
	}
	return finish(nodes, &num, numstr, out_pre_spaces, sign);
}

static DT_FN(float4_to_char)
{
	return float_to_char((float)DT_F(0), DT_A(1), FLT_DIG);
}
static DT_FN(float8_to_char)
{
	return float_to_char(DT_F(0), DT_A(1), DBL_DIG);
}

/* 10^e as numeric_power(10, e) computes it: 16 decimal places. */
static ty_datum power10(int e)
{
	char buf[1200];
	if (e >= 0) {
		int n = snprintf(buf, sizeof buf, "1");
		for (int i = 0; i < e && n < 1100; i++)
			buf[n++] = '0';
		snprintf(buf + n, sizeof buf - (size_t)n, ".0000000000000000");
	} else {
		int n = snprintf(buf, sizeof buf, "0.");
		for (int i = 1; i <= 16; i++)
			buf[n++] = i == -e ? '1' : '0';
		buf[n] = '\0';
	}
	return ty_numeric_parse(buf, strlen(buf), -1);
}

static DT_FN(numeric_to_char)
{
	ty_datum value = DT_A(0), fmt = DT_A(1);
	if (fmt_empty(fmt))
		return ty_text("");
	numdesc num;
	nnode *nodes = parse_num_format(ty_cstring(fmt), &num);
	char *numstr;
	int out_pre_spaces = 0, sign = 0;
	if (num.flag & F_ROMAN) {
		ty_datum x = ty_numeric_round(value, 0);
		/* numeric_int4 with its errors. */
		if (ty_numeric_is_nan(x))
			ty_error(UTIL_E_FEATURE_NOT_SUPPORTED, "cannot convert NaN to integer");
		if (ty_numeric_is_inf(x))
			ty_error(UTIL_E_FEATURE_NOT_SUPPORTED, "cannot convert infinity to integer");
		double d = ty_numeric_to_double(x);
		if (!(d >= INT32_MIN && d <= INT32_MAX))
			ty_error(UTIL_E_NUMERIC_VALUE_OUT_OF_RANGE, "integer out of range");
		int iv = (int)d;
		numstr = int_to_roman(iv);
	} else if (num.flag & F_EEEE) {
		char *orgnum = numeric_sci(value, num.post);
		if (strcmp(orgnum, "NaN") == 0 || strcmp(orgnum, "Infinity") == 0 ||
		    strcmp(orgnum, "-Infinity") == 0)
			numstr = eeee_hashes(&num);
		else if (*orgnum != '-')
			numstr = util_arena_sprintf(ty_get_arena(), " %s", orgnum);
		else
			numstr = orgnum;
	} else {
		ty_datum val = value;
		if (num.flag & F_MULTI) {
			val = ty_numeric_mul(value, power10(num.multi));
			num.pre += num.multi;
		}
		ty_datum x = ty_numeric_round(val, num.post);
		util_buf b = UTIL_BUF_INIT;
		ty_numeric_format(x, &b);
		char *orgnum = ty_strdup(b.data ? b.data : "");
		util_buf_free(&b);
		decimal_body(orgnum, &num, &numstr, &out_pre_spaces, &sign);
	}
	return finish(nodes, &num, numstr, out_pre_spaces, sign);
}

/* ---------------------------------------------------------------- to_number */

typedef struct numin {
	numdesc *num;
	const char *in;
	const char *p;
	size_t len;
	char *number, *number_p;
	int read_pre, read_post;
	bool read_dec;
} numin;

#define OVERLOAD(ni)  ((ni)->p >= (ni)->in + (ni)->len)
#define AMOUNT(ni, s) ((ni)->p <= (ni)->in + ((ni)->len - (s)))

static void eat_non_data(numin *ni, int n)
{
	while (n-- > 0) {
		if (OVERLOAD(ni))
			break;
		if (strchr("0123456789.,+-", *ni->p))
			break;
		ni->p++;
	}
}

static void numpart_from_char(numin *ni, int id)
{
	numdesc *num = ni->num;
	bool isread = false;
	if (OVERLOAD(ni))
		return;
	if (*ni->p == ' ')
		ni->p++;
	if (OVERLOAD(ni))
		return;
	if (*ni->number == ' ' && (id == NUM_0 || id == NUM_9) && ni->read_pre + ni->read_post == 0) {
		if ((num->flag & F_LSIGN) && num->lsign == LSIGN_PRE) {
			if (AMOUNT(ni, 1) && *ni->p == '-') {
				ni->p++;
				*ni->number = '-';
			} else if (AMOUNT(ni, 1) && *ni->p == '+') {
				ni->p++;
				*ni->number = '+';
			}
		} else {
			if (*ni->p == '-' || ((num->flag & F_BRACKET) && *ni->p == '<')) {
				*ni->number = '-';
				ni->p++;
			} else if (*ni->p == '+') {
				*ni->number = '+';
				ni->p++;
			}
		}
	}
	if (OVERLOAD(ni))
		return;
	if (isdigit((unsigned char)*ni->p)) {
		if (ni->read_dec && ni->read_post == num->post)
			return;
		*ni->number_p++ = *ni->p;
		if (ni->read_dec)
			ni->read_post++;
		else
			ni->read_pre++;
		isread = true;
	} else if ((num->flag & F_DECIMAL) && !ni->read_dec) {
		if (AMOUNT(ni, 1) && *ni->p == '.') {
			*ni->number_p++ = '.';
			ni->read_dec = true;
			isread = true;
		}
	}
	if (OVERLOAD(ni))
		return;
	/* A sign after the last digit (9.9S, FM9.999MI). */
	if (*ni->number == ' ' && ni->read_pre + ni->read_post > 0) {
		if ((num->flag & F_LSIGN) && isread && ni->p + 1 < ni->in + ni->len &&
		    !isdigit((unsigned char)ni->p[1])) {
			const char *tmp = ni->p++;
			if (AMOUNT(ni, 1) && *ni->p == '-')
				*ni->number = '-';
			else if (AMOUNT(ni, 1) && *ni->p == '+')
				*ni->number = '+';
			if (*ni->number == ' ')
				ni->p = tmp;
		} else if (!isread && !(num->flag & F_LSIGN) && (num->flag & (F_PLUS | F_MINUS))) {
			if (*ni->p == '-' || *ni->p == '+')
				*ni->number = *ni->p;
		}
	}
}

static DT_FN(numeric_to_number)
{
	ty_datum value = DT_A(0), fmt = DT_A(1);
	if (fmt_empty(fmt))
		return ty_null();
	numdesc num;
	nnode *nodes = parse_num_format(ty_cstring(fmt), &num);
	if (num.zero_start)
		--num.zero_start;
	if (num.flag & F_EEEE)
		ty_error(UTIL_E_FEATURE_NOT_SUPPORTED, "\"EEEE\" not supported for input");
	if (num.flag & F_ROMAN)
		ty_error(UTIL_E_FEATURE_NOT_SUPPORTED, "\"RN\" not supported for input");
	numin ni = {0};
	ni.num = &num;
	ni.in = value.p ? value.p : "";
	ni.p = ni.in;
	ni.len = value.len;
	ni.number = ty_alloc0((size_t)fmt.len * 32 + value.len + 8);
	ni.number[0] = ' ';
	ni.number_p = ni.number + 1;
	for (const nnode *n = nodes; n->type != 0; n++) {
		if (OVERLOAD(&ni))
			break;
		if (n->type != 1) {
			ni.p++;
			continue;
		}
		switch (n->id) {
		case NUM_9:
		case NUM_0:
		case NUM_DEC:
		case NUM_D:
			numpart_from_char(&ni, n->id);
			break;
		case NUM_COMMA:
		case NUM_G:
			if (num.flag & F_FILLMODE)
				continue;
			if (*ni.p != ',')
				continue;
			break;
		case NUM_L:
			eat_non_data(&ni, 1);
			continue;
		case NUM_th:
		case NUM_TH:
			if (num.flag & F_DECIMAL)
				continue;
			eat_non_data(&ni, 2);
			continue;
		case NUM_MI:
			if (*ni.p == '-') {
				*ni.number = '-';
				break;
			}
			eat_non_data(&ni, 1);
			continue;
		case NUM_PL:
			if (*ni.p == '+') {
				*ni.number = '+';
				break;
			}
			eat_non_data(&ni, 1);
			continue;
		case NUM_SG:
			if (*ni.p == '-' || *ni.p == '+') {
				*ni.number = *ni.p;
				break;
			}
			eat_non_data(&ni, 1);
			continue;
		default:
			continue;
		}
		ni.p++;
	}
	if (ni.number_p[-1] == '.')
		ni.number_p[-1] = '\0';
	else
		*ni.number_p = '\0';
	int scale = ni.read_post;
	int precision = num.pre + num.multi + scale;
	int32_t typmod = ((precision << 16) | scale) + TY_VARHDRSZ;
	ty_datum r = ty_numeric_parse(ni.number, strlen(ni.number), typmod);
	if (num.flag & F_MULTI)
		r = ty_numeric_mul(r, power10(-num.multi));
	return r;
}

/* ---------------------------------------------------------------- registration */

static const ty_func numfmt_funcs[] = {
    DTF("to_char", 1773, int4_to_char, 's', TY_TEXT, 2, TY_INT4, TY_TEXT),
    DTF("to_char", 1774, int8_to_char, 's', TY_TEXT, 2, TY_INT8, TY_TEXT),
    DTF("to_char", 1775, float4_to_char, 's', TY_TEXT, 2, TY_FLOAT4, TY_TEXT),
    DTF("to_char", 1776, float8_to_char, 's', TY_TEXT, 2, TY_FLOAT8, TY_TEXT),
    DTF("to_char", 1772, numeric_to_char, 's', TY_TEXT, 2, TY_NUMERIC, TY_TEXT),
    DTF("to_number", 1777, numeric_to_number, 's', TY_NUMERIC, 2, TY_TEXT, TY_TEXT),
};

void dt_register_numfmt(void)
{
	ty_func_register(numfmt_funcs, (int)UTIL_ARRAY_LEN(numfmt_funcs));
}
