/*
 * num_random.c — random() and setseed() with PostgreSQL 15's generator
 * (xoroshiro128** seeded through splitmix64, 52-bit doubles), so that a
 * session that calls setseed(x) sees the same sequence as PostgreSQL. The
 * state is per thread (one session runs on one thread at a time); an
 * unseeded thread seeds itself from the kernel's random source.
 */
#include "num_priv.h"

#include <math.h>
#include <stdio.h>
#include <sys/random.h>
#include <time.h>

typedef struct prng {
	uint64_t s0, s1;
} prng;

static _Thread_local prng state;
static _Thread_local bool seeded;

static uint64_t rotl(uint64_t x, int bits)
{
	return (x << bits) | (x >> (64 - bits));
}

static uint64_t next(prng *p)
{
	uint64_t s0 = p->s0, sx = p->s1 ^ s0, val = rotl(s0 * 5, 7) * 9;
	p->s0 = rotl(s0, 24) ^ sx ^ (sx << 16);
	p->s1 = rotl(sx, 37);
	return val;
}

static uint64_t splitmix64(uint64_t *s)
{
	uint64_t v = (*s += UINT64_C(0x9E3779B97f4A7C15));
	v = (v ^ (v >> 30)) * UINT64_C(0xBF58476D1CE4E5B9);
	v = (v ^ (v >> 27)) * UINT64_C(0x94D049BB133111EB);
	return v ^ (v >> 31);
}

static void seed(prng *p, uint64_t s)
{
	p->s0 = splitmix64(&s);
	p->s1 = splitmix64(&s);
	if (p->s0 == 0 && p->s1 == 0) /* all-zero state would stay zero */
		p->s0 = UINT64_C(0x5851F42D4C957F2D);
}

NUMFN(drandom)
{
	if (!seeded) {
		uint64_t s;
		if (getrandom(&s, sizeof s, 0) != (ssize_t)sizeof s)
			s = (uint64_t)time(NULL) ^ (uint64_t)(uintptr_t)&state;
		seed(&state, s);
		seeded = true;
	}
	return ty_float(ldexp((double)(next(&state) >> 12), -52));
}

NUMFN(setseed)
{
	double s = ARG_F(0);
	if (s < -1 || s > 1 || isnan(s)) {
		char buf[32];
		snprintf(buf, sizeof buf, "%g", s);
		ty_error(UTIL_E_INVALID_PARAMETER_VALUE,
			 "setseed parameter %s is out of allowed range [-1,1]",
			 isnan(s)   ? "NaN"
			 : isinf(s) ? (s < 0 ? "-Inf" : "Inf")
				    : buf);
	}
	int64_t iseed = (int64_t)((double)((UINT64_C(1) << 52) - 1) * s);
	seed(&state, (uint64_t)iseed);
	seeded = true;
	return ty_int(0);
}
