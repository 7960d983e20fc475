/*
 * num_sum.c — ty_numeric_sum, the exact numeric accumulator behind sum(),
 * avg() and the variance family (PostgreSQL's NumericSumAccum): digits in
 * unnormalised int64 slots so that adding a value is one integer addition
 * per base-10000 digit, counts of NaN/Infinity inputs, and a count per
 * display scale so that the sum keeps the right dscale when values are
 * removed from a moving window frame.
 */
#include "num_priv.h"

#include <string.h>

static int64_t *slots(ty_numeric_sum *s)
{
	return s->cap ? s->heap : s->inl;
}
static const int64_t *cslots(const ty_numeric_sum *s)
{
	return s->cap ? s->heap : s->inl;
}
static int slot_cap(const ty_numeric_sum *s)
{
	return s->cap ? s->cap : TY_NUMERIC_SUM_INLINE;
}

static int32_t *scales(ty_numeric_sum *s)
{
	return s->scale_cap ? s->scales : s->inl_scales;
}
static int scale_cap(const ty_numeric_sum *s)
{
	return s->scale_cap ? s->scale_cap : 8;
}

static void count_scale(ty_numeric_sum *s, int dscale, int delta)
{
	if (dscale >= scale_cap(s)) {
		int ncap = scale_cap(s);
		while (ncap <= dscale)
			ncap *= 2;
		int32_t *n = ty_alloc0((size_t)ncap * sizeof(int32_t));
		memcpy(n, scales(s), (size_t)scale_cap(s) * sizeof(int32_t));
		s->scales = n;
		s->scale_cap = ncap;
	}
	scales(s)[dscale] += delta;
}

static int max_scale(const ty_numeric_sum *s)
{
	const int32_t *sc = s->scale_cap ? s->scales : s->inl_scales;
	for (int i = scale_cap(s) - 1; i > 0; i--)
		if (sc[i] > 0)
			return i;
	return 0;
}

/* Makes the slots cover weights [lo, hi], keeping the value. */
static void cover(ty_numeric_sum *s, int hi, int lo)
{
	if (s->ndigits == 0) {
		s->weight = hi;
		s->ndigits = 0;
	}
	int cur_hi = s->weight, cur_lo = s->weight - s->ndigits + 1;
	if (s->ndigits == 0)
		cur_lo = hi + 1; /* empty */
	int new_hi = UTIL_MAX(cur_hi, hi), new_lo = s->ndigits ? UTIL_MIN(cur_lo, lo) : lo;
	int need = new_hi - new_lo + 1;
	if (new_hi == cur_hi && new_lo == cur_lo)
		return;
	int64_t *src = slots(s);
	int64_t *dst = src;
	if (need > slot_cap(s)) {
		int ncap = slot_cap(s);
		while (ncap < need)
			ncap *= 2;
		dst = ty_alloc0((size_t)ncap * sizeof(int64_t));
		if (s->ndigits)
			memcpy(dst + (new_hi - cur_hi), src, (size_t)s->ndigits * sizeof(int64_t));
		s->heap = dst;
		s->cap = ncap;
	} else if (s->ndigits) {
		memmove(dst + (new_hi - cur_hi), src, (size_t)s->ndigits * sizeof(int64_t));
		for (int i = 0; i < new_hi - cur_hi; i++)
			dst[i] = 0;
	}
	/* zero the new low slots */
	int old_end = s->ndigits ? (new_hi - cur_hi) + s->ndigits : 0;
	if (!s->ndigits)
		for (int i = 0; i < need; i++)
			dst[i] = 0;
	else
		for (int i = old_end; i < need; i++)
			dst[i] = 0;
	s->weight = new_hi;
	s->ndigits = need;
}

/* Carries every slot into 0..9999 except the first, which keeps the sign. */
static void normalise(ty_numeric_sum *s)
{
	int64_t *a = slots(s);
	int64_t carry = 0;
	for (int i = s->ndigits - 1; i > 0; i--) {
		int64_t v = a[i] + carry;
		carry = v / NBASE;
		v -= carry * NBASE;
		if (v < 0) {
			v += NBASE;
			carry--;
		}
		a[i] = v;
	}
	a[0] += carry;
	s->adds = 0;
}

/* Counts an addition; slots gain at most ~10^8 * digits per addition, so
 * normalising every 2^20 additions keeps them far from overflow. */
static void count_add(ty_numeric_sum *s)
{
	if (++s->adds >= (1 << 20))
		normalise(s);
}

static void add_digits(ty_numeric_sum *s, const ndig *d, int n, int weight, int sign)
{
	if (n == 0)
		return;
	/* one spare slot above for carries */
	cover(s, weight + 1, weight - n + 1);
	int64_t *a = slots(s);
	int off = s->weight - weight;
	if (sign == TY_NUMERIC_NEG)
		for (int i = 0; i < n; i++)
			a[off + i] -= d[i];
	else
		for (int i = 0; i < n; i++)
			a[off + i] += d[i];
	count_add(s);
}

/* The same straight from a datum's bytes (little-endian digits), so that
 * adding a row allocates nothing. */
static void add_raw(ty_numeric_sum *s, const uint8_t *d, int n, int weight, bool neg)
{
	if (n == 0)
		return;
	cover(s, weight + 1, weight - n + 1);
	int64_t *a = slots(s);
	int off = s->weight - weight;
	for (int i = 0; i < n; i++) {
		int64_t v = d[2 * i] | d[2 * i + 1] << 8;
		a[off + i] += neg ? -v : v;
	}
	count_add(s);
}

/* Adds (or removes) the exact square of the datum's value: every digit
 * product lands in its slot, no intermediate numeric is built. */
static void add_square_raw(ty_numeric_sum *s, const uint8_t *d, int n, int weight, bool neg)
{
	if (n == 0)
		return;
	/* x^2 has weight 2*weight (+1 for carries); lowest slot 2*(weight-n+1) */
	cover(s, 2 * weight + 2, 2 * (weight - n + 1));
	int64_t *a = slots(s);
	int top = s->weight - 2 * weight;
	for (int i = 0; i < n; i++) {
		int64_t x = d[2 * i] | d[2 * i + 1] << 8;
		if (!x)
			continue;
		for (int j = 0; j < n; j++) {
			int64_t p = x * (d[2 * j] | d[2 * j + 1] << 8);
			a[top + i + j] += neg ? -p : p;
		}
	}
	count_add(s);
}

static bool special(ty_numeric_sum *s, const nvar *v, int64_t delta)
{
	if (v->sign == TY_NUMERIC_NAN)
		s->nnan += delta;
	else if (v->sign == TY_NUMERIC_PINF)
		s->npinf += delta;
	else if (v->sign == TY_NUMERIC_NINF)
		s->nninf += delta;
	else
		return false;
	return true;
}

/* Header fields of a numeric datum. */
typedef struct rawnum {
	int sign, weight, dscale, n;
	const uint8_t *digits;
} rawnum;

static rawnum raw(ty_datum d)
{
	const uint8_t *p = d.p;
	rawnum r = {p[0] | p[1] << 8, (int16_t)(p[2] | p[3] << 8), p[4] | p[5] << 8,
		    (int)(d.len - TY_NUMERIC_HDRSZ) / 2, p + TY_NUMERIC_HDRSZ};
	return r;
}

static bool special_raw(ty_numeric_sum *s, int sign, int64_t delta)
{
	nvar v;
	v.sign = sign;
	return special(s, &v, delta);
}

/* One value in or out: counts, scale bookkeeping, then x (or x^2). */
static void put(ty_numeric_sum *s, ty_datum d, bool remove, bool square)
{
	rawnum r = raw(d);
	if (special_raw(s, r.sign, remove ? -1 : 1))
		return;
	s->n += remove ? -1 : 1;
	count_scale(s, square ? 2 * r.dscale : r.dscale, remove ? -1 : 1);
	if (remove && s->n == 0) {
		/* exact zero again: drop the slots */
		s->ndigits = 0;
		s->adds = 0;
		return;
	}
	bool neg = (r.sign == TY_NUMERIC_NEG) != remove;
	if (square)
		add_square_raw(s, r.digits, r.n, r.weight, remove);
	else
		add_raw(s, r.digits, r.n, r.weight, neg);
}

void ty_numeric_sum_add(ty_numeric_sum *s, ty_datum d)
{
	put(s, d, false, false);
}
void ty_numeric_sum_sub(ty_numeric_sum *s, ty_datum d)
{
	put(s, d, true, false);
}
void ty_numeric_sum_add_square(ty_numeric_sum *s, ty_datum d, bool remove)
{
	put(s, d, remove, true);
}

void ty_numeric_sum_add_int128(ty_numeric_sum *s, __int128 v, bool remove)
{
	s->n += remove ? -1 : 1;
	count_scale(s, 0, remove ? -1 : 1);
	if (remove && s->n == 0) {
		s->ndigits = 0;
		s->adds = 0;
		return;
	}
	bool neg = (v < 0) != remove;
	unsigned __int128 u = v < 0 ? (unsigned __int128)0 - (unsigned __int128)v : (unsigned __int128)v;
	ndig tmp[12];
	int n = 0;
	while (u) {
		tmp[n++] = (ndig)(u % NBASE);
		u /= NBASE;
	}
	ndig d[12];
	for (int i = 0; i < n; i++)
		d[i] = tmp[n - 1 - i];
	add_digits(s, d, n, n - 1, neg ? TY_NUMERIC_NEG : TY_NUMERIC_POS);
}

void ty_numeric_sum_combine(ty_numeric_sum *a, const ty_numeric_sum *b)
{
	a->n += b->n;
	a->nnan += b->nnan;
	a->npinf += b->npinf;
	a->nninf += b->nninf;
	const int32_t *bs = b->scale_cap ? b->scales : b->inl_scales;
	for (int i = 0; i < scale_cap(b); i++)
		if (bs[i])
			count_scale(a, i, bs[i]);
	if (b->ndigits == 0)
		return;
	cover(a, b->weight, b->weight - b->ndigits + 1);
	int64_t *x = slots(a);
	const int64_t *y = cslots(b);
	int off = a->weight - b->weight;
	for (int i = 0; i < b->ndigits; i++)
		x[off + i] += y[i];
	normalise(a);
}

int64_t ty_numeric_sum_count(const ty_numeric_sum *s)
{
	return s->n + s->nnan + s->npinf + s->nninf;
}

ty_datum ty_numeric_sum_result(const ty_numeric_sum *s)
{
	nvar r;
	nv_init(&r);
	if (s->nnan > 0 || (s->npinf > 0 && s->nninf > 0)) {
		r.sign = TY_NUMERIC_NAN;
		return nv_to_datum(&r);
	}
	if (s->npinf > 0 || s->nninf > 0) {
		r.sign = s->npinf > 0 ? TY_NUMERIC_PINF : TY_NUMERIC_NINF;
		return nv_to_datum(&r);
	}
	r.dscale = max_scale(s);
	if (s->ndigits == 0)
		return nv_to_datum(&r);
	/* carry-propagate a copy; a negative total is negated and redone */
	int n = s->ndigits;
	int64_t *a = ty_alloc((size_t)n * sizeof(int64_t));
	memcpy(a, cslots(s), (size_t)n * sizeof(int64_t));
	int sign = TY_NUMERIC_POS;
	for (int pass = 0; pass < 2; pass++) {
		int64_t carry = 0;
		int64_t *t = ty_alloc((size_t)n * sizeof(int64_t));
		for (int i = n - 1; i >= 0; i--) {
			int64_t v = a[i] + carry;
			carry = v / NBASE;
			v -= carry * NBASE;
			if (v < 0) {
				v += NBASE;
				carry--;
			}
			t[i] = v;
		}
		if (carry < 0) {
			UTIL_ASSERT(pass == 0, "negated sum still negative");
			for (int i = 0; i < n; i++)
				a[i] = -a[i];
			sign = TY_NUMERIC_NEG;
			continue;
		}
		/* leading carry digits (the spare slot normally absorbs them) */
		ndig head[8];
		int nh = 0;
		while (carry) {
			head[nh++] = (ndig)(carry % NBASE);
			carry /= NBASE;
		}
		nv_alloc(&r, nh + n);
		for (int i = 0; i < nh; i++)
			r.digits[i] = head[nh - 1 - i];
		for (int i = 0; i < n; i++)
			r.digits[nh + i] = (ndig)t[i];
		r.weight = s->weight + nh;
		break;
	}
	r.sign = sign;
	r.dscale = max_scale(s);
	nv_strip(&r);
	return nv_to_datum(&r);
}
