/*
 * sort_tmpl.h — a typed in-place introsort with the comparison inlined,
 * for the hot sorts of fixed-size entries (a bulk load's staged
 * mutations, an index build's runs) where qsort's indirect calls and
 * memcpy swaps cost most of the time.
 *
 * Include it once per sort, after defining:
 *   UTIL_SORT_NAME         the function to define: static void NAME(T *e, size_t n, C ctx)
 *   UTIL_SORT_TYPE         the element type T (swapped by assignment)
 *   UTIL_SORT_CTX          the context type C passed through to the comparison
 *   UTIL_SORT_CMP(a, b, c) an expression: <0, 0 or >0 as *a sorts before,
 *                          with or after *b (a, b are const T *)
 * It undefines them again, so the next sort can be declared below.
 *
 * Quicksort with a median-of-three pivot, recursing on the smaller side
 * (stack depth stays logarithmic) and insertion sort below 24 entries;
 * after 2*log2(n) levels of bad pivots a range falls back to heapsort, so
 * the worst case is O(n log n). Not stable: make the comparison a total
 * order (e.g. ties broken by position) when the order of equals matters.
 */
#if !defined(UTIL_SORT_NAME) || !defined(UTIL_SORT_TYPE) || !defined(UTIL_SORT_CTX) || !defined(UTIL_SORT_CMP)
#error "define UTIL_SORT_NAME, UTIL_SORT_TYPE, UTIL_SORT_CTX and UTIL_SORT_CMP before including sort_tmpl.h"
#endif

#include <stddef.h>

#define UTIL_SORT_CAT2_(a, b) a##b
#define UTIL_SORT_CAT_(a, b)  UTIL_SORT_CAT2_(a, b)
#define UTIL_SORT_FN_(suffix) UTIL_SORT_CAT_(UTIL_SORT_NAME, suffix)

/* Moves e[i] down the max-heap of n entries rooted at 0. */
static inline void UTIL_SORT_FN_(_sift_)(UTIL_SORT_TYPE *e, size_t i, size_t n, UTIL_SORT_CTX ctx)
{
	UTIL_SORT_TYPE x = e[i];
	for (;;) {
		size_t c = 2 * i + 1;
		if (c >= n)
			break;
		if (c + 1 < n && UTIL_SORT_CMP(&e[c], &e[c + 1], ctx) < 0)
			c++;
		if (UTIL_SORT_CMP(&x, &e[c], ctx) >= 0)
			break;
		e[i] = e[c];
		i = c;
	}
	e[i] = x;
}

static inline void UTIL_SORT_FN_(_heap_)(UTIL_SORT_TYPE *e, size_t n, UTIL_SORT_CTX ctx)
{
	for (size_t i = n / 2; i-- > 0;)
		UTIL_SORT_FN_(_sift_)(e, i, n, ctx);
	while (n > 1) {
		n--;
		UTIL_SORT_TYPE t = e[0];
		e[0] = e[n];
		e[n] = t;
		UTIL_SORT_FN_(_sift_)(e, 0, n, ctx);
	}
}

__attribute__((unused)) static void UTIL_SORT_FN_(_intro_)(UTIL_SORT_TYPE *e, size_t n, UTIL_SORT_CTX ctx,
							   int depth)
{
	while (n > 24) {
		if (depth-- == 0) {
			UTIL_SORT_FN_(_heap_)(e, n, ctx);
			return;
		}
		size_t m = n / 2;
		UTIL_SORT_TYPE t;
		/* Median of three: e[0] <= e[m] <= e[n-1], then the pivot to the front. */
		if (UTIL_SORT_CMP(&e[m], &e[0], ctx) < 0) {
			t = e[m];
			e[m] = e[0];
			e[0] = t;
		}
		if (UTIL_SORT_CMP(&e[n - 1], &e[0], ctx) < 0) {
			t = e[n - 1];
			e[n - 1] = e[0];
			e[0] = t;
		}
		if (UTIL_SORT_CMP(&e[n - 1], &e[m], ctx) < 0) {
			t = e[n - 1];
			e[n - 1] = e[m];
			e[m] = t;
		}
		UTIL_SORT_TYPE piv = e[m];
		e[m] = e[0];
		e[0] = piv;
		/* Hoare partition; the scans stop at entries equal to the pivot,
		 * so runs of equal keys split evenly. e[n-1] >= pivot bounds the
		 * first scan, the pivot at e[0] the second. */
		size_t i = 1, j = n - 1;
		for (;;) {
			while (UTIL_SORT_CMP(&e[i], &piv, ctx) < 0)
				i++;
			while (UTIL_SORT_CMP(&piv, &e[j], ctx) < 0)
				j--;
			if (i >= j)
				break;
			t = e[i];
			e[i] = e[j];
			e[j] = t;
			i++;
			j--;
		}
		/* e[1..j] <= pivot <= e[j+1..n-1]; the pivot itself goes to j. */
		t = e[0];
		e[0] = e[j];
		e[j] = t;
		size_t left = j, right = n - j - 1;
		if (left < right) {
			UTIL_SORT_FN_(_intro_)(e, left, ctx, depth);
			e += j + 1;
			n = right;
		} else {
			UTIL_SORT_FN_(_intro_)(e + j + 1, right, ctx, depth);
			n = left;
		}
	}
	for (size_t i = 1; i < n; i++) {
		UTIL_SORT_TYPE x = e[i];
		size_t k = i;
		for (; k > 0 && UTIL_SORT_CMP(&x, &e[k - 1], ctx) < 0; k--)
			e[k] = e[k - 1];
		e[k] = x;
	}
}

static inline void UTIL_SORT_NAME(UTIL_SORT_TYPE *e, size_t n, UTIL_SORT_CTX ctx)
{
	int depth = 0;
	for (size_t k = n; k > 1; k >>= 1)
		depth += 2;
	UTIL_SORT_FN_(_intro_)(e, n, ctx, depth);
}

#undef UTIL_SORT_FN_
#undef UTIL_SORT_CAT_
#undef UTIL_SORT_CAT2_
#undef UTIL_SORT_NAME
#undef UTIL_SORT_TYPE
#undef UTIL_SORT_CTX
#undef UTIL_SORT_CMP
