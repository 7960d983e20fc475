/*
 * dt_fmt.c — PostgreSQL's date/time formatting templates (formatting.c's
 * DCH part): to_char for timestamp, timestamptz and interval, and the
 * parsing direction to_timestamp(text, text) / to_date(text, text), with
 * FM/TM/TH/FX modifiers, quoted literals, ISO-week and Gregorian field
 * conventions, and PostgreSQL's error messages.
 */
#include "dt_int.h"

#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum kw_id {
	K_ADL,
	K_AML,
	K_AD,
	K_AM,
	K_BCL,
	K_PML,
	K_BC,
	K_PM,
	K_CC,
	K_DAY,
	K_DDD,
	K_DD,
	K_DY,
	K_D,
	K_FF,
	K_FX,
	K_HH24,
	K_HH12,
	K_HH,
	K_IDDD,
	K_ID,
	K_IW,
	K_IYYY,
	K_IYY,
	K_IY,
	K_I,
	K_J,
	K_MI,
	K_MM,
	K_MONTH,
	K_MON,
	K_MS,
	K_OF,
	K_Q,
	K_RM,
	K_SSSSS,
	K_SSSS,
	K_SS,
	K_TZH,
	K_TZM,
	K_TZ,
	K_US,
	K_WW,
	K_W,
	K_Y_YYY,
	K_YYYY,
	K_YYY,
	K_YY,
	K_Y
};
enum { UP, LO, CAP };
enum { M_NONE, M_GREG, M_ISO };

typedef struct kw {
	const char *name;
	int id;
	int caps;
	bool is_digit;
	int mode;
	int ff; /* FF1..FF6 */
} kw;

/* Longer names first where one is a prefix of another. */
static const kw keywords[] = {
    {"A.D.", K_ADL, UP, false, M_NONE, 0},    {"A.M.", K_AML, UP, false, M_NONE, 0},
    {"AD", K_AD, UP, false, M_NONE, 0},       {"AM", K_AM, UP, false, M_NONE, 0},
    {"B.C.", K_BCL, UP, false, M_NONE, 0},    {"BC", K_BC, UP, false, M_NONE, 0},
    {"CC", K_CC, UP, true, M_NONE, 0},        {"DAY", K_DAY, UP, false, M_NONE, 0},
    {"DDD", K_DDD, UP, true, M_GREG, 0},      {"DD", K_DD, UP, true, M_GREG, 0},
    {"DY", K_DY, UP, false, M_NONE, 0},       {"Day", K_DAY, CAP, false, M_NONE, 0},
    {"Dy", K_DY, CAP, false, M_NONE, 0},      {"D", K_D, UP, true, M_GREG, 0},
    {"FF1", K_FF, UP, true, M_NONE, 1},       {"FF2", K_FF, UP, true, M_NONE, 2},
    {"FF3", K_FF, UP, true, M_NONE, 3},       {"FF4", K_FF, UP, true, M_NONE, 4},
    {"FF5", K_FF, UP, true, M_NONE, 5},       {"FF6", K_FF, UP, true, M_NONE, 6},
    {"FX", K_FX, UP, false, M_NONE, 0},       {"HH24", K_HH24, UP, true, M_NONE, 0},
    {"HH12", K_HH12, UP, true, M_NONE, 0},    {"HH", K_HH, UP, true, M_NONE, 0},
    {"IDDD", K_IDDD, UP, true, M_ISO, 0},     {"ID", K_ID, UP, true, M_ISO, 0},
    {"IW", K_IW, UP, true, M_ISO, 0},         {"IYYY", K_IYYY, UP, true, M_ISO, 0},
    {"IYY", K_IYY, UP, true, M_ISO, 0},       {"IY", K_IY, UP, true, M_ISO, 0},
    {"I", K_I, UP, true, M_ISO, 0},           {"J", K_J, UP, true, M_NONE, 0},
    {"MI", K_MI, UP, true, M_NONE, 0},        {"MM", K_MM, UP, true, M_GREG, 0},
    {"MONTH", K_MONTH, UP, false, M_GREG, 0}, {"MON", K_MON, UP, false, M_GREG, 0},
    {"MS", K_MS, UP, true, M_NONE, 0},        {"Month", K_MONTH, CAP, false, M_GREG, 0},
    {"Mon", K_MON, CAP, false, M_GREG, 0},    {"OF", K_OF, UP, false, M_NONE, 0},
    {"P.M.", K_PML, UP, false, M_NONE, 0},    {"PM", K_PM, UP, false, M_NONE, 0},
    {"Q", K_Q, UP, true, M_NONE, 0},          {"RM", K_RM, UP, false, M_GREG, 0},
    {"SSSSS", K_SSSSS, UP, true, M_NONE, 0},  {"SSSS", K_SSSS, UP, true, M_NONE, 0},
    {"SS", K_SS, UP, true, M_NONE, 0},        {"TZH", K_TZH, UP, false, M_NONE, 0},
    {"TZM", K_TZM, UP, true, M_NONE, 0},      {"TZ", K_TZ, UP, false, M_NONE, 0},
    {"US", K_US, UP, true, M_NONE, 0},        {"WW", K_WW, UP, true, M_GREG, 0},
    {"W", K_W, UP, true, M_GREG, 0},          {"Y,YYY", K_Y_YYY, UP, true, M_GREG, 0},
    {"YYYY", K_YYYY, UP, true, M_GREG, 0},    {"YYY", K_YYY, UP, true, M_GREG, 0},
    {"YY", K_YY, UP, true, M_GREG, 0},        {"Y", K_Y, UP, true, M_GREG, 0},
    {"a.d.", K_ADL, LO, false, M_NONE, 0},    {"a.m.", K_AML, LO, false, M_NONE, 0},
    {"ad", K_AD, LO, false, M_NONE, 0},       {"am", K_AM, LO, false, M_NONE, 0},
    {"b.c.", K_BCL, LO, false, M_NONE, 0},    {"bc", K_BC, LO, false, M_NONE, 0},
    {"cc", K_CC, LO, true, M_NONE, 0},        {"day", K_DAY, LO, false, M_NONE, 0},
    {"ddd", K_DDD, LO, true, M_GREG, 0},      {"dd", K_DD, LO, true, M_GREG, 0},
    {"dy", K_DY, LO, false, M_NONE, 0},       {"d", K_D, LO, true, M_GREG, 0},
    {"ff1", K_FF, LO, true, M_NONE, 1},       {"ff2", K_FF, LO, true, M_NONE, 2},
    {"ff3", K_FF, LO, true, M_NONE, 3},       {"ff4", K_FF, LO, true, M_NONE, 4},
    {"ff5", K_FF, LO, true, M_NONE, 5},       {"ff6", K_FF, LO, true, M_NONE, 6},
    {"fx", K_FX, LO, false, M_NONE, 0},       {"hh24", K_HH24, LO, true, M_NONE, 0},
    {"hh12", K_HH12, LO, true, M_NONE, 0},    {"hh", K_HH, LO, true, M_NONE, 0},
    {"iddd", K_IDDD, LO, true, M_ISO, 0},     {"id", K_ID, LO, true, M_ISO, 0},
    {"iw", K_IW, LO, true, M_ISO, 0},         {"iyyy", K_IYYY, LO, true, M_ISO, 0},
    {"iyy", K_IYY, LO, true, M_ISO, 0},       {"iy", K_IY, LO, true, M_ISO, 0},
    {"i", K_I, LO, true, M_ISO, 0},           {"j", K_J, LO, true, M_NONE, 0},
    {"mi", K_MI, LO, true, M_NONE, 0},        {"mm", K_MM, LO, true, M_GREG, 0},
    {"month", K_MONTH, LO, false, M_GREG, 0}, {"mon", K_MON, LO, false, M_GREG, 0},
    {"ms", K_MS, LO, true, M_NONE, 0},        {"of", K_OF, LO, false, M_NONE, 0},
    {"p.m.", K_PML, LO, false, M_NONE, 0},    {"pm", K_PM, LO, false, M_NONE, 0},
    {"q", K_Q, LO, true, M_NONE, 0},          {"rm", K_RM, LO, false, M_GREG, 0},
    {"sssss", K_SSSSS, LO, true, M_NONE, 0},  {"ssss", K_SSSS, LO, true, M_NONE, 0},
    {"ss", K_SS, LO, true, M_NONE, 0},        {"tzh", K_TZH, LO, false, M_NONE, 0},
    {"tzm", K_TZM, LO, true, M_NONE, 0},      {"tz", K_TZ, LO, false, M_NONE, 0},
    {"us", K_US, LO, true, M_NONE, 0},        {"ww", K_WW, LO, true, M_GREG, 0},
    {"w", K_W, LO, true, M_GREG, 0},          {"y,yyy", K_Y_YYY, LO, true, M_GREG, 0},
    {"yyyy", K_YYYY, LO, true, M_GREG, 0},    {"yyy", K_YYY, LO, true, M_GREG, 0},
    {"yy", K_YY, LO, true, M_GREG, 0},        {"y", K_Y, LO, true, M_GREG, 0},
};

#define S_FM 0x01
#define S_TM 0x02
#define S_TH 0x04
#define S_th 0x08
#define S_SP 0x10

enum { N_END, N_ACTION, N_CHAR, N_SEP, N_SPACE };

typedef struct fnode {
	int type;
	const kw *key;
	int suffix;
	char ch[8];
} fnode;

/* ---------------------------------------------------------------- template parsing */

static const kw *find_keyword(const char *s)
{
	const kw *best = NULL;
	size_t bestlen = 0;
	for (size_t i = 0; i < UTIL_ARRAY_LEN(keywords); i++) {
		size_t n = strlen(keywords[i].name);
		if (n > bestlen && strncmp(s, keywords[i].name, n) == 0) {
			best = &keywords[i];
			bestlen = n;
		}
	}
	return best;
}

static bool is_separator_char(const char *s)
{
	/* ASCII printable, not alphanumeric and not a space (PostgreSQL's is_separator_char). */
	return *s > 0x20 && *s < 0x7F && !isalnum((unsigned char)*s) && *s != ' ';
}

static int utf8_len(const char *s)
{
	unsigned char c = (unsigned char)*s;
	int n = c < 0x80 ? 1 : (c & 0xE0) == 0xC0 ? 2 : (c & 0xF0) == 0xE0 ? 3 : (c & 0xF8) == 0xF0 ? 4 : 1;
	for (int i = 1; i < n; i++)
		if (!s[i])
			return i;
	return n;
}

static fnode *parse_format(const char *str)
{
	size_t cap = strlen(str) + 1;
	fnode *nodes = ty_alloc0(cap * sizeof *nodes);
	fnode *n = nodes;
	while (*str) {
		int suffix = 0;
		if ((str[0] == 'F' && str[1] == 'M') || (str[0] == 'f' && str[1] == 'm')) {
			suffix |= S_FM;
			str += 2;
		} else if ((str[0] == 'T' && str[1] == 'M') || (str[0] == 't' && str[1] == 'm')) {
			suffix |= S_TM;
			str += 2;
		}
		const kw *k = *str ? find_keyword(str) : NULL;
		if (k) {
			n->type = N_ACTION;
			n->key = k;
			n->suffix = suffix;
			str += strlen(k->name);
			if (str[0] == 'T' && str[1] == 'H') {
				n->suffix |= S_TH;
				str += 2;
			} else if (str[0] == 't' && str[1] == 'h') {
				n->suffix |= S_th;
				str += 2;
			} else if (str[0] == 'S' && str[1] == 'P') {
				n->suffix |= S_SP;
				str += 2;
			}
			n++;
		} else if (*str) {
			if (*str == '"') {
				str++;
				while (*str) {
					if (*str == '"') {
						str++;
						break;
					}
					if (*str == '\\' && str[1])
						str++;
					int l = utf8_len(str);
					n->type = N_CHAR;
					memcpy(n->ch, str, (size_t)l);
					n->ch[l] = '\0';
					n++;
					str += l;
				}
			} else {
				if (*str == '\\' && str[1] == '"')
					str++;
				int l = utf8_len(str);
				n->type = is_separator_char(str)         ? N_SEP
					  : isspace((unsigned char)*str) ? N_SPACE
									 : N_CHAR;
				memcpy(n->ch, str, (size_t)l);
				n->ch[l] = '\0';
				n++;
				str += l;
			}
		}
	}
	n->type = N_END;
	return nodes;
}

/* ---------------------------------------------------------------- to_char */

typedef struct tmtc {
	dt_tm tm;
	int64_t hour; /* intervals can have many hours */
	int32_t fsec;
	const char *tzn;
} tmtc;

static void th_suffix(util_buf *out, size_t start, int suffix)
{
	if (!(suffix & (S_TH | S_th)))
		return;
	size_t len = out->len - start;
	const char *num = out->data + start;
	if (len == 0 || !isdigit((unsigned char)num[len - 1]))
		ty_error(UTIL_E_INVALID_TEXT_REPRESENTATION, "\"%.*s\" is not a number", (int)len, num);
	char last = num[len - 1];
	if (len > 1 && num[len - 2] == '1')
		last = 0;
	bool up = suffix & S_TH;
	const char *s = last == '1'   ? (up ? "ST" : "st")
			: last == '2' ? (up ? "ND" : "nd")
			: last == '3' ? (up ? "RD" : "rd")
				      : (up ? "TH" : "th");
	util_buf_puts(out, s);
}

static void cased(util_buf *out, const char *word, int caps, int width)
{
	char buf[32];
	size_t n = strlen(word);
	for (size_t i = 0; i < n && i < sizeof buf - 1; i++) {
		char c = word[i];
		if (caps == UP)
			c = (char)toupper((unsigned char)c);
		else if (caps == LO)
			c = (char)tolower((unsigned char)c);
		buf[i] = c;
	}
	buf[n < sizeof buf - 1 ? n : sizeof buf - 1] = '\0';
	util_buf_printf(out, "%-*s", width, buf);
}

UTIL_NORETURN static void invalid_for_interval(void)
{
	util_err *e =
	    ty_errstart(UTIL_E_INVALID_DATETIME_FORMAT, "invalid format specification for an interval value");
	util_err_hint(e, "Intervals are not tied to specific calendar dates.");
	ty_errthrow();
}

static int adjust_year(int y, bool is_interval)
{
	return is_interval ? y : (y <= 0 ? -(y - 1) : y);
}

static const char *const rm_upper[] = {"XII", "XI", "X",  "IX",  "VIII", "VII",
				       "VI",  "V",  "IV", "III", "II",   "I"};
static const char *const rm_lower[] = {"xii", "xi", "x",  "ix",  "viii", "vii",
				       "vi",  "v",  "iv", "iii", "ii",   "i"};

static void dch_to_char(const fnode *node, const tmtc *in, bool is_interval, util_buf *out)
{
	const dt_tm *tm = &in->tm;
	for (const fnode *n = node; n->type != N_END; n++) {
		if (n->type != N_ACTION) {
			util_buf_puts(out, n->ch);
			continue;
		}
		bool fm = n->suffix & S_FM;
		size_t start = out->len;
		int caps = n->key->caps;
		switch (n->key->id) {
		case K_FX:
			break;
		case K_AML:
		case K_PML:
			util_buf_puts(out, in->hour % 24 >= 12 ? (caps == UP ? "P.M." : "p.m.")
							       : (caps == UP ? "A.M." : "a.m."));
			break;
		case K_AM:
		case K_PM:
			util_buf_puts(out, in->hour % 24 >= 12 ? (caps == UP ? "PM" : "pm")
							       : (caps == UP ? "AM" : "am"));
			break;
		case K_HH:
		case K_HH12:
			util_buf_printf(out, "%0*lld", fm ? 0 : (in->hour >= 0 ? 2 : 3),
					(long long)(in->hour % 12 == 0 ? 12 : in->hour % 12));
			th_suffix(out, start, n->suffix);
			break;
		case K_HH24:
			util_buf_printf(out, "%0*lld", fm ? 0 : (in->hour >= 0 ? 2 : 3), (long long)in->hour);
			th_suffix(out, start, n->suffix);
			break;
		case K_MI:
			util_buf_printf(out, "%0*d", fm ? 0 : (tm->min >= 0 ? 2 : 3), tm->min);
			th_suffix(out, start, n->suffix);
			break;
		case K_SS:
			util_buf_printf(out, "%0*d", fm ? 0 : (tm->sec >= 0 ? 2 : 3), tm->sec);
			th_suffix(out, start, n->suffix);
			break;
		case K_FF: {
			static const int div[7] = {0, 100000, 10000, 1000, 100, 10, 1};
			int f = n->key->ff;
			util_buf_printf(out, "%0*d", f, (int)(in->fsec / div[f]));
			th_suffix(out, start, n->suffix);
			break;
		}
		case K_MS:
			util_buf_printf(out, "%03d", (int)(in->fsec / 1000));
			th_suffix(out, start, n->suffix);
			break;
		case K_US:
			util_buf_printf(out, "%06d", (int)in->fsec);
			th_suffix(out, start, n->suffix);
			break;
		case K_SSSS:
		case K_SSSSS:
			util_buf_printf(out, "%lld", (long long)(in->hour * 3600 + tm->min * 60 + tm->sec));
			th_suffix(out, start, n->suffix);
			break;
		case K_TZ:
			if (is_interval)
				invalid_for_interval();
			if (in->tzn)
				cased(out, in->tzn, caps, 0);
			break;
		case K_TZH:
			if (is_interval)
				invalid_for_interval();
			util_buf_printf(out, "%c%02d", tm->gmtoff >= 0 ? '+' : '-',
					abs((int)tm->gmtoff) / 3600);
			break;
		case K_TZM:
			if (is_interval)
				invalid_for_interval();
			util_buf_printf(out, "%02d", (abs((int)tm->gmtoff) % 3600) / 60);
			break;
		case K_OF:
			if (is_interval)
				invalid_for_interval();
			util_buf_printf(out, "%c%0*d", tm->gmtoff >= 0 ? '+' : '-', fm ? 0 : 2,
					abs((int)tm->gmtoff) / 3600);
			if (abs((int)tm->gmtoff) % 3600 != 0)
				util_buf_printf(out, ":%02d", (abs((int)tm->gmtoff) % 3600) / 60);
			break;
		case K_ADL:
		case K_BCL:
			if (is_interval)
				invalid_for_interval();
			util_buf_puts(out, tm->year <= 0 ? (caps == UP ? "B.C." : "b.c.")
							 : (caps == UP ? "A.D." : "a.d."));
			break;
		case K_AD:
		case K_BC:
			if (is_interval)
				invalid_for_interval();
			util_buf_puts(out, tm->year <= 0 ? (caps == UP ? "BC" : "bc")
							 : (caps == UP ? "AD" : "ad"));
			break;
		case K_MONTH:
			if (is_interval)
				invalid_for_interval();
			if (!tm->mon)
				break;
			cased(out, dt_months_full[tm->mon - 1], caps, (fm || (n->suffix & S_TM)) ? 0 : 9);
			break;
		case K_MON:
			if (is_interval)
				invalid_for_interval();
			if (!tm->mon)
				break;
			cased(out, dt_months[tm->mon - 1], caps, 0);
			break;
		case K_MM:
			util_buf_printf(out, "%0*d", fm ? 0 : (tm->mon >= 0 ? 2 : 3), tm->mon);
			th_suffix(out, start, n->suffix);
			break;
		case K_DAY:
			if (is_interval)
				invalid_for_interval();
			cased(out, dt_days_full[tm->wday], caps, (fm || (n->suffix & S_TM)) ? 0 : 9);
			break;
		case K_DY:
			if (is_interval)
				invalid_for_interval();
			cased(out, dt_days[tm->wday], caps, 0);
			break;
		case K_DDD:
			util_buf_printf(out, "%0*d", fm ? 0 : 3, tm->yday);
			th_suffix(out, start, n->suffix);
			break;
		case K_IDDD:
			util_buf_printf(out, "%0*d", fm ? 0 : 3,
					dt_date2isoyearday(tm->year, tm->mon, tm->mday));
			th_suffix(out, start, n->suffix);
			break;
		case K_DD:
			util_buf_printf(out, "%0*d", fm ? 0 : 2, tm->mday);
			th_suffix(out, start, n->suffix);
			break;
		case K_D:
			if (is_interval)
				invalid_for_interval();
			util_buf_printf(out, "%d", tm->wday + 1);
			th_suffix(out, start, n->suffix);
			break;
		case K_ID:
			if (is_interval)
				invalid_for_interval();
			util_buf_printf(out, "%d", tm->wday == 0 ? 7 : tm->wday);
			th_suffix(out, start, n->suffix);
			break;
		case K_WW:
			util_buf_printf(out, "%0*d", fm ? 0 : 2, (tm->yday - 1) / 7 + 1);
			th_suffix(out, start, n->suffix);
			break;
		case K_IW:
			util_buf_printf(out, "%0*d", fm ? 0 : 2,
					dt_date2isoweek(tm->year, tm->mon, tm->mday));
			th_suffix(out, start, n->suffix);
			break;
		case K_Q:
			if (!tm->mon)
				break;
			util_buf_printf(out, "%d", (tm->mon - 1) / 3 + 1);
			th_suffix(out, start, n->suffix);
			break;
		case K_CC: {
			int i;
			if (is_interval)
				i = tm->year / 100;
			else if (tm->year > 0)
				i = (tm->year - 1) / 100 + 1;
			else
				i = tm->year / 100 - 1;
			if (i <= 99 && i >= -99)
				util_buf_printf(out, "%0*d", fm ? 0 : (i >= 0 ? 2 : 3), i);
			else
				util_buf_printf(out, "%d", i);
			th_suffix(out, start, n->suffix);
			break;
		}
		case K_Y_YYY: {
			int y = adjust_year(tm->year, is_interval);
			int i = y / 1000;
			util_buf_printf(out, "%d,%03d", i, y - i * 1000);
			th_suffix(out, start, n->suffix);
			break;
		}
		case K_YYYY:
		case K_IYYY: {
			int y = adjust_year(
			    n->key->id == K_YYYY ? tm->year : dt_date2isoyear(tm->year, tm->mon, tm->mday),
			    is_interval);
			util_buf_printf(out, "%0*d",
					fm ? 0 : (adjust_year(tm->year, is_interval) >= 0 ? 4 : 5), y);
			th_suffix(out, start, n->suffix);
			break;
		}
		case K_YYY:
		case K_IYY:
		case K_YY:
		case K_IY:
		case K_Y:
		case K_I: {
			int id = n->key->id;
			bool iso = id == K_IYY || id == K_IY || id == K_I;
			int y = adjust_year(iso ? dt_date2isoyear(tm->year, tm->mon, tm->mday) : tm->year,
					    is_interval);
			int w = (id == K_YYY || id == K_IYY) ? 3 : (id == K_YY || id == K_IY) ? 2 : 1;
			int mod = w == 3 ? 1000 : w == 2 ? 100 : 10;
			if (w == 1)
				util_buf_printf(out, "%1d", y % mod);
			else
				util_buf_printf(
				    out, "%0*d",
				    fm ? 0 : (adjust_year(tm->year, is_interval) >= 0 ? w : w + 1), y % mod);
			th_suffix(out, start, n->suffix);
			break;
		}
		case K_RM: {
			if (!tm->mon && !tm->year)
				break;
			int mon;
			if (tm->mon == 0)
				mon = tm->year >= 0 ? 0 : 11;
			else if (tm->mon < 0)
				mon = -1 * (tm->mon + 1);
			else
				mon = 12 - tm->mon;
			util_buf_printf(out, "%-*s", fm ? 0 : 4, caps == UP ? rm_upper[mon] : rm_lower[mon]);
			break;
		}
		case K_W:
			util_buf_printf(out, "%d", (tm->mday - 1) / 7 + 1);
			th_suffix(out, start, n->suffix);
			break;
		case K_J:
			util_buf_printf(out, "%d", dt_date2j(tm->year, tm->mon, tm->mday));
			th_suffix(out, start, n->suffix);
			break;
		}
	}
}

static ty_datum to_char_result(const char *fmt, tmtc *t, bool is_interval)
{
	fnode *nodes = parse_format(fmt);
	util_buf b = UTIL_BUF_INIT;
	TY_TRY(c)
	{
		dch_to_char(nodes, t, is_interval, &b);
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

static ty_datum ts_to_char(ty_fcinfo *fc, bool with_tz)
{
	int64_t ts = DT_I(0);
	if (DT_A(1).len == 0 || DT_NOT_FINITE(ts))
		return ty_null();
	tmtc t = {0};
	int tz;
	if (dt_ts2tm(ts, with_tz ? &tz : NULL, &t.tm, &t.fsec, with_tz ? &t.tzn : NULL, NULL) != 0)
		dt_err_ts_range();
	if (!with_tz)
		t.tm.gmtoff = 0;
	int thisdate = dt_date2j(t.tm.year, t.tm.mon, t.tm.mday);
	t.tm.wday = (thisdate + 1) % 7;
	t.tm.yday = thisdate - dt_date2j(t.tm.year, 1, 1) + 1;
	t.hour = t.tm.hour;
	return to_char_result(ty_cstring(DT_A(1)), &t, false);
}

static DT_FN(timestamp_to_char)
{
	return ts_to_char(fc, false);
}
static DT_FN(timestamptz_to_char)
{
	return ts_to_char(fc, true);
}

static DT_FN(interval_to_char)
{
	if (DT_A(1).len == 0)
		return ty_null();
	ty_interval iv = dt_interval_get(DT_A(0));
	dt_itm itm;
	dt_interval2itm(&iv, &itm);
	tmtc t = {0};
	t.fsec = itm.usec;
	t.tm.sec = itm.sec;
	t.tm.min = itm.min;
	t.tm.hour = (int)itm.hour;
	t.hour = itm.hour;
	t.tm.mday = itm.mday;
	t.tm.mon = itm.mon;
	t.tm.year = itm.year;
	t.tm.yday = (t.tm.year * 12 + t.tm.mon) * 30 + t.tm.mday;
	return to_char_result(ty_cstring(DT_A(1)), &t, true);
}

/* ---------------------------------------------------------------- to_timestamp / to_date */

typedef struct tmfc {
	int mode, hh, pm, mi, ss, ssss, d, dd, ddd, mm, ms, year, bc, ww, w, cc, j, us, yysz, clock, tzsign,
	    tzh, tzm, ff;
} tmfc;

enum { CLOCK_24 = 0, CLOCK_12 = 1 };

static void set_mode(tmfc *t, int mode)
{
	if (mode == M_NONE)
		return;
	if (t->mode == M_NONE) {
		t->mode = mode;
	} else if (t->mode != mode) {
		util_err *e =
		    ty_errstart(UTIL_E_INVALID_DATETIME_FORMAT, "invalid combination of date conventions");
		util_err_hint(e,
			      "Do not mix Gregorian and ISO week date conventions in a formatting template.");
		ty_errthrow();
	}
}

static void set_int(int *dest, int value, const fnode *n)
{
	if (*dest != 0 && *dest != value) {
		util_err *e =
		    ty_errstart(UTIL_E_INVALID_DATETIME_FORMAT,
				"conflicting values for \"%s\" field in formatting string", n->key->name);
		util_err_detail(e, "This value contradicts a previous setting for the same field type.");
		ty_errthrow();
	}
	*dest = value;
}

static bool is_next_separator(const fnode *n)
{
	if (n->type == N_END)
		return false;
	if (n->type == N_ACTION && (n->suffix & (S_TH | S_th)))
		return true;
	n++;
	if (n->type == N_END)
		return true;
	if (n->type == N_ACTION)
		return !n->key->is_digit;
	if (n->ch[1] == '\0' && isdigit((unsigned char)n->ch[0]))
		return false;
	return true;
}

/* Reads an integer field of len characters (or as many digits as there
 * are, in FM mode or before a separator). Returns characters consumed. */
static int parse_int_len(int *dest, const char **src, int len, const fnode *n)
{
	const char *init = *src;
	long result;
	char copy[64];
	while (**src && isspace((unsigned char)**src))
		(*src)++;
	snprintf(copy, sizeof copy, "%.*s", len, *src);
	int used = (int)strlen(copy);
	if ((n->suffix & S_FM) || is_next_separator(n)) {
		char *end;
		errno = 0;
		result = strtol(init, &end, 10);
		*src = end;
	} else {
		if (used < len) {
			util_err *e =
			    ty_errstart(UTIL_E_INVALID_DATETIME_FORMAT,
					"source string too short for \"%s\" formatting field", n->key->name);
			util_err_detail(e, "Field requires %d characters, but only %d remain.", len, used);
			util_err_hint(
			    e, "If your source string is not fixed-width, try using the \"FM\" modifier.");
			ty_errthrow();
		}
		char *last;
		errno = 0;
		result = strtol(copy, &last, 10);
		used = (int)(last - copy);
		if (used > 0 && used < len) {
			util_err *e = ty_errstart(UTIL_E_INVALID_DATETIME_FORMAT,
						  "invalid value \"%s\" for \"%s\"", copy, n->key->name);
			util_err_detail(e, "Field requires %d characters, but only %d could be parsed.", len,
					used);
			util_err_hint(
			    e, "If your source string is not fixed-width, try using the \"FM\" modifier.");
			ty_errthrow();
		}
		*src += used;
	}
	if (*src == init) {
		util_err *e = ty_errstart(UTIL_E_INVALID_DATETIME_FORMAT, "invalid value \"%s\" for \"%s\"",
					  copy, n->key->name);
		util_err_detail(e, "Value must be an integer.");
		ty_errthrow();
	}
	if (errno == ERANGE || result < INT32_MIN || result > INT32_MAX) {
		util_err *e = ty_errstart(UTIL_E_DATETIME_FIELD_OVERFLOW,
					  "value for \"%s\" in source string is out of range", n->key->name);
		util_err_detail(e, "Value must be in the range %d to %d.", INT32_MIN, INT32_MAX);
		ty_errthrow();
	}
	if (dest)
		set_int(dest, (int)result, n);
	return (int)(*src - init);
}

static int parse_int(int *dest, const char **src, const fnode *n)
{
	return parse_int_len(dest, src, (int)strlen(n->key->name), n);
}

static bool prefix_ci(const char *name, const char *entry, size_t len)
{
	for (size_t i = 0; i < len; i++)
		if (!name[i] || tolower((unsigned char)name[i]) != tolower((unsigned char)entry[i]))
			return false;
	return true;
}

/* First entry of array that is a case-insensitive prefix of name. */
static int seq_search(const char *name, const char *const *array, int count, int *len)
{
	*len = 0;
	if (!*name)
		return -1;
	for (int a = 0; a < count; a++) {
		size_t l = strlen(array[a]);
		if (prefix_ci(name, array[a], l)) {
			*len = (int)l;
			return a;
		}
	}
	return -1;
}

static int seq_value(const char **src, const char *const *array, int count, const fnode *n)
{
	int len;
	int v = seq_search(*src, array, count, &len);
	if (len <= 0) {
		char *copy = ty_strdup(*src);
		for (char *c = copy; *c; c++)
			if (*c == ' ' || *c == '\t' || *c == '\n' || *c == '\r' || *c == '\f') {
				*c = '\0';
				break;
			}
		util_err *e = ty_errstart(UTIL_E_INVALID_DATETIME_FORMAT, "invalid value \"%s\" for \"%s\"",
					  copy, n->key->name);
		util_err_detail(e, "The given value did not match any of the allowed values for this field.");
		ty_errthrow();
	}
	*src += len;
	return v;
}

static void skip_th(const char **s, int suffix)
{
	if (suffix & (S_TH | S_th)) {
		if (**s)
			*s += utf8_len(*s);
		if (**s)
			*s += utf8_len(*s);
	}
}

static int adjust_partial_year(int year)
{
	if (year < 70)
		return year + 2000;
	if (year < 100)
		return year + 1900;
	if (year < 520)
		return year + 2000;
	if (year < 1000)
		return year + 1000;
	return year;
}

static const char *const ampm[] = {"am", "pm", "AM", "PM"};
static const char *const ampm_long[] = {"a.m.", "p.m.", "A.M.", "P.M."};
static const char *const adbc[] = {"ad", "bc", "AD", "BC"};
static const char *const adbc_long[] = {"a.d.", "b.c.", "A.D.", "B.C."};

static void dch_from_char(const fnode *node, const char *in, tmfc *out)
{
	const char *s = in;
	bool fx = false;
	int extra_skip = 0;
	for (const fnode *n = node; n->type != N_END && *s; n++) {
		if (!fx && (n->type != N_ACTION || n->key->id != K_FX) &&
		    (n->type == N_ACTION || n == node)) {
			while (*s && isspace((unsigned char)*s)) {
				s++;
				extra_skip++;
			}
		}
		if (n->type == N_SPACE || n->type == N_SEP) {
			if (!fx) {
				/* One template space/separator matches one (or no) input space/separator. */
				extra_skip--;
				if (isspace((unsigned char)*s) || is_separator_char(s)) {
					s++;
					extra_skip++;
				}
			} else {
				s += utf8_len(s);
			}
			continue;
		} else if (n->type != N_ACTION) {
			if (!fx) {
				if (extra_skip > 0)
					extra_skip--;
				else
					s += utf8_len(s);
			} else {
				s += utf8_len(s);
			}
			continue;
		}
		set_mode(out, n->key->mode);
		int value, len;
		switch (n->key->id) {
		case K_FX:
			fx = true;
			break;
		case K_AML:
		case K_PML:
			value = seq_value(&s, ampm_long, 4, n);
			set_int(&out->pm, value % 2, n);
			out->clock = CLOCK_12;
			break;
		case K_AM:
		case K_PM:
			value = seq_value(&s, ampm, 4, n);
			set_int(&out->pm, value % 2, n);
			out->clock = CLOCK_12;
			break;
		case K_HH:
		case K_HH12:
			parse_int_len(&out->hh, &s, 2, n);
			out->clock = CLOCK_12;
			skip_th(&s, n->suffix);
			break;
		case K_HH24:
			parse_int_len(&out->hh, &s, 2, n);
			skip_th(&s, n->suffix);
			break;
		case K_MI:
			parse_int(&out->mi, &s, n);
			skip_th(&s, n->suffix);
			break;
		case K_SS:
			parse_int(&out->ss, &s, n);
			skip_th(&s, n->suffix);
			break;
		case K_MS:
			len = parse_int_len(&out->ms, &s, 3, n);
			/* 25 is 0.25 and 250 is 0.25 too; 025 is 0.025 */
			out->ms = dt_wmul(out->ms, len == 1 ? 100 : len == 2 ? 10 : 1);
			skip_th(&s, n->suffix);
			break;
		case K_FF:
		case K_US: {
			if (n->key->id == K_FF)
				out->ff = n->key->ff;
			len = parse_int_len(&out->us, &s, n->key->id == K_US ? 6 : out->ff, n);
			static const int mul[7] = {1, 100000, 10000, 1000, 100, 10, 1};
			out->us = dt_wmul(out->us, mul[len > 6 ? 6 : len]);
			skip_th(&s, n->suffix);
			break;
		}
		case K_SSSS:
		case K_SSSSS:
			parse_int(&out->ssss, &s, n);
			skip_th(&s, n->suffix);
			break;
		case K_TZ:
		case K_OF:
			ty_error(UTIL_E_FEATURE_NOT_SUPPORTED,
				 "formatting field \"%s\" is only supported in to_char", n->key->name);
		case K_TZH:
			/* The sign may have been skipped as a separator. */
			if (*s == '+' || *s == '-' || *s == ' ') {
				out->tzsign = *s == '-' ? -1 : 1;
				s++;
			} else {
				out->tzsign = (extra_skip > 0 && s > in && s[-1] == '-') ? -1 : 1;
			}
			parse_int_len(&out->tzh, &s, 2, n);
			break;
		case K_TZM:
			if (!out->tzsign)
				out->tzsign = 1;
			parse_int_len(&out->tzm, &s, 2, n);
			break;
		case K_ADL:
		case K_BCL:
			value = seq_value(&s, adbc_long, 4, n);
			set_int(&out->bc, value % 2, n);
			break;
		case K_AD:
		case K_BC:
			value = seq_value(&s, adbc, 4, n);
			set_int(&out->bc, value % 2, n);
			break;
		case K_MONTH:
			value = seq_value(&s, dt_months_full, 12, n);
			set_int(&out->mm, value + 1, n);
			break;
		case K_MON:
			value = seq_value(&s, dt_months, 12, n);
			set_int(&out->mm, value + 1, n);
			break;
		case K_MM:
			parse_int(&out->mm, &s, n);
			skip_th(&s, n->suffix);
			break;
		case K_DAY:
			value = seq_value(&s, dt_days_full, 7, n);
			set_int(&out->d, value, n);
			out->d++;
			break;
		case K_DY:
			value = seq_value(&s, dt_days, 7, n);
			set_int(&out->d, value, n);
			out->d++;
			break;
		case K_DDD:
			parse_int(&out->ddd, &s, n);
			skip_th(&s, n->suffix);
			break;
		case K_IDDD:
			parse_int_len(&out->ddd, &s, 3, n);
			skip_th(&s, n->suffix);
			break;
		case K_DD:
			parse_int(&out->dd, &s, n);
			skip_th(&s, n->suffix);
			break;
		case K_D:
			parse_int(&out->d, &s, n);
			skip_th(&s, n->suffix);
			break;
		case K_ID:
			parse_int_len(&out->d, &s, 1, n);
			/* ISO Monday = 1 ... Sunday = 7; stored Gregorian (Sunday = 1). */
			if (++out->d > 7)
				out->d = 1;
			skip_th(&s, n->suffix);
			break;
		case K_WW:
		case K_IW:
			parse_int(&out->ww, &s, n);
			skip_th(&s, n->suffix);
			break;
		case K_Q:
			/* Parsed but ignored: which date of the quarter would it be? */
			parse_int(NULL, &s, n);
			skip_th(&s, n->suffix);
			break;
		case K_CC:
			parse_int(&out->cc, &s, n);
			skip_th(&s, n->suffix);
			break;
		case K_Y_YYY: {
			int millennia, years, nch;
			if (sscanf(s, "%d,%03d%n", &millennia, &years, &nch) < 2)
				ty_error(UTIL_E_INVALID_DATETIME_FORMAT,
					 "invalid input string for \"Y,YYY\"");
			years = dt_wadd(years, dt_wmul(millennia, 1000));
			set_int(&out->year, years, n);
			out->yysz = 4;
			s += nch;
			skip_th(&s, n->suffix);
			break;
		}
		case K_YYYY:
		case K_IYYY:
			parse_int(&out->year, &s, n);
			out->yysz = 4;
			skip_th(&s, n->suffix);
			break;
		case K_YYY:
		case K_IYY:
		case K_YY:
		case K_IY:
		case K_Y:
		case K_I: {
			len = parse_int(&out->year, &s, n);
			if (len < 4)
				out->year = adjust_partial_year(out->year);
			int id = n->key->id;
			out->yysz = (id == K_YYY || id == K_IYY) ? 3 : (id == K_YY || id == K_IY) ? 2 : 1;
			skip_th(&s, n->suffix);
			break;
		}
		case K_RM:
			value = seq_value(&s, rm_lower, 12, n);
			set_int(&out->mm, 12 - value, n);
			break;
		case K_W:
			parse_int(&out->w, &s, n);
			skip_th(&s, n->suffix);
			break;
		case K_J:
			parse_int(&out->j, &s, n);
			skip_th(&s, n->suffix);
			break;
		}
		if (!fx) {
			extra_skip = 0;
			while (*s && isspace((unsigned char)*s)) {
				s++;
				extra_skip++;
			}
		}
	}
}

/* Assembles the parsed fields into broken-down time (do_to_timestamp). */
static void do_to_timestamp(const char *date_str, const char *fmt, dt_tm *tm, int32_t *fsec, int *fprec,
			    bool *has_tz, int *tz)
{
	tmfc t;
	memset(&t, 0, sizeof t);
	memset(tm, 0, sizeof *tm);
	tm->mday = tm->mon = 1;
	*fsec = 0;
	int fmask = 0;
	if (*fmt)
		dch_from_char(parse_format(fmt), date_str, &t);
	if (t.ssss) {
		int x = t.ssss;
		tm->hour = x / 3600;
		x %= 3600;
		tm->min = x / 60;
		tm->sec = x % 60;
	}
	if (t.ss)
		tm->sec = t.ss;
	if (t.mi)
		tm->min = t.mi;
	if (t.hh)
		tm->hour = t.hh;
	if (t.clock == CLOCK_12) {
		if (tm->hour < 1 || tm->hour > 12) {
			util_err *e = ty_errstart(UTIL_E_INVALID_DATETIME_FORMAT,
						  "hour \"%d\" is invalid for the 12-hour clock", tm->hour);
			util_err_hint(e, "Use the 24-hour clock, or give an hour between 1 and 12.");
			ty_errthrow();
		}
		if (t.pm && tm->hour < 12)
			tm->hour += 12;
		else if (!t.pm && tm->hour == 12)
			tm->hour = 0;
	}
	if (t.year) {
		/* CC with a 1-2 digit year places it in that century; longer years win over CC. */
		if (t.cc && t.yysz <= 2) {
			if (t.bc)
				t.cc = -t.cc;
			tm->year = t.year % 100;
			if (tm->year) {
				if (t.cc >= 0)
					tm->year = dt_wadd(tm->year, dt_wmul(t.cc - 1, 100));
				else
					tm->year = dt_wadd(dt_wmul(dt_wadd(t.cc, 1), 100), 1 - tm->year);
			} else {
				tm->year = dt_wadd(dt_wmul(t.cc, 100), t.cc >= 0 ? 0 : 1);
			}
		} else {
			tm->year = t.year;
			if (t.bc)
				tm->year = -tm->year;
			if (tm->year < 0)
				tm->year++;
		}
		fmask |= DTK_M(DT_YEAR);
	} else if (t.cc) {
		if (t.bc)
			t.cc = -t.cc;
		tm->year = t.cc >= 0 ? dt_wadd(dt_wmul(t.cc - 1, 100), 1) : dt_wadd(dt_wmul(t.cc, 100), 1);
		fmask |= DTK_M(DT_YEAR);
	}
	if (t.j) {
		dt_j2date(t.j, &tm->year, &tm->mon, &tm->mday);
		fmask |= DTK_DATE_M;
	}
	if (t.ww) {
		if (t.mode == M_ISO) {
			if (t.d)
				dt_isoweekdate2date(t.ww, t.d, &tm->year, &tm->mon, &tm->mday);
			else
				dt_isoweek2date(t.ww, &tm->year, &tm->mon, &tm->mday);
			fmask |= DTK_DATE_M;
		} else {
			t.ddd = dt_wadd(dt_wmul(dt_wadd(t.ww, -1), 7), 1);
		}
	}
	if (t.w)
		t.dd = dt_wadd(dt_wmul(dt_wadd(t.w, -1), 7), 1);
	if (t.dd) {
		tm->mday = t.dd;
		fmask |= DTK_M(DT_DAY);
	}
	if (t.mm) {
		tm->mon = t.mm;
		fmask |= DTK_M(DT_MONTH);
	}
	if (t.ddd && (tm->mon <= 1 || tm->mday <= 1)) {
		if (!tm->year && !t.bc)
			ty_error(UTIL_E_INVALID_DATETIME_FORMAT,
				 "cannot calculate day of year without year information");
		if (t.mode == M_ISO) {
			int j0 = dt_isoweek2j(tm->year, 1) - 1;
			dt_j2date(j0 + t.ddd, &tm->year, &tm->mon, &tm->mday);
			fmask |= DTK_DATE_M;
		} else {
			static const int ysum[2][13] = {
			    {0, 31, 59, 90, 120, 151, 181, 212, 243, 273, 304, 334, 365},
			    {0, 31, 60, 91, 121, 152, 182, 213, 244, 274, 305, 335, 366}};
			const int *y = ysum[dt_isleap(tm->year)];
			int i;
			for (i = 1; i <= 12; i++)
				if (t.ddd <= y[i])
					break;
			if (tm->mon <= 1)
				tm->mon = i;
			if (tm->mday <= 1)
				tm->mday = t.ddd - y[i - 1];
			fmask |= DTK_M(DT_MONTH) | DTK_M(DT_DAY);
		}
	}
	if (t.ms)
		*fsec = dt_wadd(*fsec, dt_wmul(t.ms, 1000));
	if (t.us)
		*fsec = dt_wadd(*fsec, t.us);
	if (fprec)
		*fprec = t.ff;
	if (fmask != 0 && dt_validate_date(fmask, true, false, false, tm) != 0)
		dt_parse_error(DTERR_FIELD_OVERFLOW, date_str, "timestamp");
	if (tm->hour < 0 || tm->hour >= 24 || tm->min < 0 || tm->min >= 60 || tm->sec < 0 || tm->sec >= 60 ||
	    *fsec < 0 || *fsec >= DT_USECS_PER_SEC)
		dt_parse_error(DTERR_FIELD_OVERFLOW, date_str, "timestamp");
	*has_tz = false;
	if (t.tzsign) {
		if (t.tzh < 0 || t.tzh > DT_MAX_TZDISP_HOUR || t.tzm < 0 || t.tzm >= 60)
			dt_parse_error(DTERR_TZDISP_OVERFLOW, date_str, "timestamp");
		*has_tz = true;
		*tz = -(t.tzsign * (t.tzh * 3600 + t.tzm * 60));
	}
}

static DT_FN(to_timestamp)
{
	char *str = ty_cstring(DT_A(0)), *fmt = ty_cstring(DT_A(1));
	dt_tm tm;
	int32_t fsec;
	int fprec, tz;
	bool has_tz;
	do_to_timestamp(str, fmt, &tm, &fsec, &fprec, &has_tz, &tz);
	if (!has_tz)
		tz = dt_determine_tz_offset(&tm, dt_session_tz());
	int64_t r;
	if (dt_tm2ts(&tm, fsec, &tz, &r) != 0)
		dt_err_ts_range();
	if (fprec)
		r = dt_adjust_timestamp(r, fprec);
	return ty_int(r);
}

static DT_FN(to_date)
{
	char *str = ty_cstring(DT_A(0)), *fmt = ty_cstring(DT_A(1));
	dt_tm tm;
	int32_t fsec;
	int tz;
	bool has_tz;
	do_to_timestamp(str, fmt, &tm, &fsec, NULL, &has_tz, &tz);
	if (!DT_VALID_JULIAN(tm.year, tm.mon, tm.mday))
		ty_error(UTIL_E_DATETIME_FIELD_OVERFLOW, "date out of range: \"%s\"", str);
	int64_t d = (int64_t)dt_date2j(tm.year, tm.mon, tm.mday) - DT_POSTGRES_EPOCH_JDATE;
	if (!DT_VALID_DATE(d))
		ty_error(UTIL_E_DATETIME_FIELD_OVERFLOW, "date out of range: \"%s\"", str);
	return ty_int(d);
}

/* ---------------------------------------------------------------- registration */

static const ty_func fmt_funcs[] = {
    DTF("to_char", 2049, timestamp_to_char, 's', TY_TEXT, 2, TY_TIMESTAMP, TY_TEXT),
    DTF("to_char", 1770, timestamptz_to_char, 's', TY_TEXT, 2, TY_TIMESTAMPTZ, TY_TEXT),
    DTF("to_char", 1768, interval_to_char, 's', TY_TEXT, 2, TY_INTERVAL, TY_TEXT),
    DTF("to_timestamp", 1778, to_timestamp, 's', TY_TIMESTAMPTZ, 2, TY_TEXT, TY_TEXT),
    DTF("to_date", 1780, to_date, 's', TY_DATE, 2, TY_TEXT, TY_TEXT),
};

void dt_register_format(void)
{
	ty_func_register(fmt_funcs, (int)UTIL_ARRAY_LEN(fmt_funcs));
}
