/*
 * num_fltshort.c — shortest round-trip decimal digits of a double or
 * float, the digit selection PostgreSQL 12+ gets from Ryu: the fewest
 * significant digits that read back as the same binary value, and among
 * those the one nearest the exact value.
 *
 * This is the test oracle for num_ryu.c (the production path).
 *
 * Method (a correct search, not Ryu itself): for a precision P, the
 * correctly rounded P-digit decimal (printf %.*e, exact in glibc) is the
 * nearest P-digit candidate; it round-trips (strtod/strtof, exact) iff some
 * P-digit decimal does, except at powers of two where the rounding interval
 * is narrower below than above, so there the neighbours are tried too. The
 * property is monotone in P, so P is found by binary search.
 *
 * PostgreSQL builds Ryu without STRICTLY_SHORTEST, so the interval is open:
 * a decimal lying exactly halfway between two floats is not accepted even
 * though it reads back (ties-to-even) as the even one. is_tie() detects
 * that exactly with integer arithmetic.
 */
#include "num_priv.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct cand {
	uint64_t m; /* digits as an integer */
	int e;      /* value = m * 10^e */
} cand;

static bool trip(cand c, double v, bool isfloat)
{
	char buf[48];
	snprintf(buf, sizeof buf, "%llue%d", (unsigned long long)c.m, c.e);
	if (isfloat)
		return strtof(buf, NULL) == (float)v;
	return strtod(buf, NULL) == v;
}

/* True when m * 10^e is exactly halfway between v and a neighbour. */
static bool is_tie(cand c, double v, bool isfloat)
{
	int bits = isfloat ? 24 : 53, min_e2 = isfloat ? -149 : -1074;
	int e;
	double f = frexp(v, &e);
	uint64_t mant = (uint64_t)ldexp(f, bits);
	int e2 = e - bits;
	if (e2 < min_e2) { /* subnormal: fixed spacing */
		mant >>= (min_e2 - e2);
		e2 = min_e2;
	}
	/* the candidate as odd * 2^ex2, if it is a dyadic rational at all */
	unsigned __int128 odd = c.m;
	int ex2;
	if (c.m == 0)
		return false;
	if (c.e >= 0) {
		if (c.e > 27)
			return false;
		for (int i = 0; i < c.e; i++)
			odd *= 5;
		ex2 = c.e;
	} else {
		if (-c.e > 27)
			return false;
		uint64_t p5 = 1;
		for (int i = 0; i < -c.e; i++)
			p5 *= 5;
		if (c.m % p5)
			return false;
		odd = c.m / p5;
		ex2 = c.e;
	}
	while (!(odd & 1)) {
		odd >>= 1;
		ex2++;
	}
	unsigned __int128 m2 = mant;
	if (odd == 2 * m2 + 1 && ex2 == e2 - 1)
		return true;
	if (mant == (UINT64_C(1) << (bits - 1)) && e2 > min_e2) /* narrower gap below */
		return odd == 4 * m2 - 1 && ex2 == e2 - 2;
	return odd == 2 * m2 - 1 && ex2 == e2 - 1;
}

static bool accept(cand c, double v, bool isfloat)
{
	return trip(c, v, isfloat) && !is_tie(c, v, isfloat);
}

/* Nearest P-digit decimal to v (positive, finite). */
static cand nearest(double v, int p)
{
	char buf[48];
	snprintf(buf, sizeof buf, "%.*e", p - 1, v);
	cand c = {0, 0};
	const char *q = buf;
	for (; *q && *q != 'e'; q++)
		if (*q >= '0' && *q <= '9')
			c.m = c.m * 10 + (uint64_t)(*q - '0');
	c.e = atoi(q + 1) - (p - 1);
	return c;
}

static bool pow2(double v, bool isfloat)
{
	int e;
	double f = frexp(v, &e);
	(void)e;
	if (f != 0.5)
		return false;
	/* Subnormals have equal gaps on both sides. */
	return isfloat ? fabs(v) >= 1.17549435e-38 : fabs(v) >= 2.2250738585072014e-308;
}

static bool try_prec(double v, int p, bool isfloat, cand *out)
{
	cand c = nearest(v, p);
	if (accept(c, v, isfloat)) {
		*out = c;
		return true;
	}
	if (pow2(v, isfloat)) {
		cand up = {c.m + 1, c.e}, dn = {c.m - 1, c.e};
		if (accept(up, v, isfloat)) {
			*out = up;
			return true;
		}
		if (c.m > 1 && accept(dn, v, isfloat)) {
			*out = dn;
			return true;
		}
	}
	return false;
}

static int shortest(double v, bool isfloat, char *d, int *exp10)
{
	int lo = 1, hi = isfloat ? 9 : 17;
	cand best = nearest(v, hi);
	while (lo < hi) {
		int mid = (lo + hi) / 2;
		cand c;
		if (try_prec(v, mid, isfloat, &c)) {
			best = c;
			hi = mid;
		} else {
			lo = mid + 1;
		}
	}
	if (lo == (isfloat ? 9 : 17))
		try_prec(v, lo, isfloat, &best);
	while (best.m % 10 == 0) {
		best.m /= 10;
		best.e++;
	}
	int n = snprintf(d, 24, "%llu", (unsigned long long)best.m);
	*exp10 = best.e + n - 1;
	return n;
}

int num_shortest_search_double(double v, char *d, int *exp10)
{
	return shortest(v, false, d, exp10);
}
int num_shortest_search_float(float v, char *d, int *exp10)
{
	return shortest(v, true, d, exp10);
}
