/*
 * num_ryu.c — shortest decimal digits of a double or float with the Ryu
 * method (Ulf Adams, "Ryu: fast float-to-string conversion", PLDI 2018),
 * the digit selection of PostgreSQL 12+: the fewest digits strictly inside
 * the value's rounding interval (PostgreSQL does not build Ryu with
 * STRICTLY_SHORTEST, so both interval ends are excluded), nearest to the
 * exact value. Floats go through the same routine with their own mantissa
 * and exponent: the 125-bit power-of-five tables (num_ryu_tables.inc) are
 * exact enough for both. num_fltshort.c holds an independent
 * search-based version used as the test oracle.
 */
#include "num_priv.h"

#include <string.h>

#include "num_ryu_tables.inc"

typedef unsigned __int128 u128;

static uint32_t pow5bits(int32_t e)
{
	return (uint32_t)(((uint32_t)e * 1217359) >> 19) + 1;
}
static uint32_t log10pow2(int32_t e)
{
	return ((uint32_t)e * 78913) >> 18;
}
static uint32_t log10pow5(int32_t e)
{
	return ((uint32_t)e * 732923) >> 20;
}

static uint32_t pow5factor(uint64_t v)
{
	uint32_t n = 0;
	while (v % 5 == 0) {
		v /= 5;
		n++;
	}
	return n;
}

static bool multiple_of_pow5(uint64_t v, uint32_t p)
{
	return pow5factor(v) >= p;
}
static bool multiple_of_pow2(uint64_t v, uint32_t p)
{
	return (v & ((UINT64_C(1) << p) - 1)) == 0;
}

/* (m * mul) >> j for a 128-bit multiplier, j >= 64. */
static uint64_t mul_shift(uint64_t m, const uint64_t *mul, int32_t j)
{
	u128 b0 = (u128)m * mul[0];
	u128 b2 = (u128)m * mul[1];
	return (uint64_t)(((b0 >> 64) + b2) >> (j - 64));
}

/* Shortest digits of m2 * 2^e2 (e2 already lowered by 2 for the bound
 * arithmetic); mm_shift says whether the gap below is the full one. */
static void shortest(uint64_t m2, int32_t e2, bool mm_shift, uint64_t *out_m, int32_t *out_e)
{
	const uint64_t mv = 4 * m2;
	uint64_t vr, vp, vm;
	int32_t e10;
	bool vm_tz = false, vr_tz = false;
	if (e2 >= 0) {
		uint32_t q = log10pow2(e2) - (e2 > 3);
		int32_t k = RYU_POW5_INV_BITCOUNT + (int32_t)pow5bits((int32_t)q) - 1;
		int32_t i = -e2 + (int32_t)q + k;
		e10 = (int32_t)q;
		vr = mul_shift(4 * m2, RYU_POW5_INV[q], i);
		vp = mul_shift(4 * m2 + 2, RYU_POW5_INV[q], i);
		vm = mul_shift(4 * m2 - 1 - mm_shift, RYU_POW5_INV[q], i);
		if (q <= 21) {
			/* at most one of mp, mv, mm is a multiple of 5 */
			if (mv % 5 == 0)
				vr_tz = multiple_of_pow5(mv, q);
			else
				vp -= multiple_of_pow5(mv + 2, q); /* exclusive upper bound */
		}
	} else {
		uint32_t q = log10pow5(-e2) - (-e2 > 1);
		int32_t i = -e2 - (int32_t)q;
		int32_t k = (int32_t)pow5bits(i) - RYU_POW5_BITCOUNT;
		int32_t j = (int32_t)q - k;
		e10 = (int32_t)q + e2;
		vr = mul_shift(4 * m2, RYU_POW5[i], j);
		vp = mul_shift(4 * m2 + 2, RYU_POW5[i], j);
		vm = mul_shift(4 * m2 - 1 - mm_shift, RYU_POW5[i], j);
		if (q <= 1) {
			vr_tz = true;
			--vp; /* mp = mv + 2 has a trailing zero bit: exclude it */
		} else if (q < 63) {
			vr_tz = multiple_of_pow2(mv, q - 1);
		}
	}
	/* remove digits while the interval still contains a shorter number */
	uint32_t removed = 0;
	uint8_t last = 0;
	uint64_t output;
	if (vm_tz || vr_tz) {
		for (;;) {
			uint64_t vpd = vp / 10, vmd = vm / 10;
			if (vpd <= vmd)
				break;
			uint64_t vrd = vr / 10;
			vr_tz &= last == 0;
			last = (uint8_t)(vr - 10 * vrd);
			vr = vrd;
			vp = vpd;
			vm = vmd;
			++removed;
		}
		if (vr_tz && last == 5 && vr % 2 == 0)
			last = 4; /* exactly ...50..0: round to even */
		output = vr + (vr == vm || last >= 5);
	} else {
		bool round_up = false;
		for (;;) {
			uint64_t vpd = vp / 10, vmd = vm / 10;
			if (vpd <= vmd)
				break;
			uint64_t vrd = vr / 10;
			round_up = vr - 10 * vrd >= 5;
			vr = vrd;
			vp = vpd;
			vm = vmd;
			++removed;
		}
		output = vr + (vr == vm || round_up);
	}
	*out_m = output;
	*out_e = e10 + (int32_t)removed;
}

/* Digits of m (no trailing zeros) into d; returns the count and sets *x
 * to the decimal exponent of the first digit. */
static int to_digits(uint64_t m, int32_t e, char *d, int *x)
{
	while (m && m % 10 == 0) {
		m /= 10;
		e++;
	}
	char tmp[24];
	int n = 0;
	do {
		tmp[n++] = (char)('0' + m % 10);
		m /= 10;
	} while (m);
	for (int i = 0; i < n; i++)
		d[i] = tmp[n - 1 - i];
	*x = e + n - 1;
	return n;
}

int num_shortest_double(double v, char *d, int *exp10)
{
	uint64_t bits;
	memcpy(&bits, &v, 8);
	uint64_t mant = bits & ((UINT64_C(1) << 52) - 1);
	uint32_t ex = (uint32_t)((bits >> 52) & 0x7ff);
	uint64_t m2;
	int32_t e2;
	if (ex == 0) {
		e2 = 1 - 1023 - 52 - 2;
		m2 = mant;
	} else {
		e2 = (int32_t)ex - 1023 - 52 - 2;
		m2 = (UINT64_C(1) << 52) | mant;
	}
	uint64_t m;
	int32_t e;
	shortest(m2, e2, mant != 0 || ex <= 1, &m, &e);
	return to_digits(m, e, d, exp10);
}

int num_shortest_float(float v, char *d, int *exp10)
{
	uint32_t bits;
	memcpy(&bits, &v, 4);
	uint32_t mant = bits & ((1u << 23) - 1);
	uint32_t ex = (bits >> 23) & 0xff;
	uint64_t m2;
	int32_t e2;
	if (ex == 0) {
		e2 = 1 - 127 - 23 - 2;
		m2 = mant;
	} else {
		e2 = (int32_t)ex - 127 - 23 - 2;
		m2 = (UINT64_C(1) << 23) | mant;
	}
	uint64_t m;
	int32_t e;
	shortest(m2, e2, mant != 0 || ex <= 1, &m, &e);
	return to_digits(m, e, d, exp10);
}
