/*
 * str_nchars_test.c — ty_str_nchars (the character count of valid UTF-8 that
 * char(n)/varchar(n) typmods and length() use) against a byte-at-a-time count
 * on random strings of 1- to 4-byte characters, at every length and offset
 * that the 8-byte steps and their tail can meet.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdlib.h>
#include <string.h>

#include "str_int.h"

/* Appends one random character of 1 to 4 bytes; returns its size. */
static size_t put_char(uint8_t *p, unsigned r)
{
	switch (r % 4) {
	case 0:
		p[0] = (uint8_t)(0x20 + r / 4 % 0x5f);
		return 1;
	case 1: /* U+00E9 */
		p[0] = 0xc3, p[1] = 0xa9;
		return 2;
	case 2: /* U+20AC */
		p[0] = 0xe2, p[1] = 0x82, p[2] = 0xac;
		return 3;
	default: /* U+1F600 */
		p[0] = 0xf0, p[1] = 0x9f, p[2] = 0x98, p[3] = 0x80;
		return 4;
	}
}

static void test_counts_match_bytewise(void **state)
{
	(void)state;
	srand(14);
	uint8_t buf[256];
	for (int iter = 0; iter < 20000; iter++) {
		size_t n = 0, chars = 0, want = 1 + (size_t)rand() % 60;
		while (chars < want && n + 4 <= sizeof buf) {
			n += put_char(buf + n, (unsigned)rand());
			chars++;
		}
		size_t off = (size_t)rand() % 8; /* unaligned starts */
		uint8_t shifted[264];
		memcpy(shifted + off, buf, n);
		assert_int_equal(ty_str_nchars((const char *)shifted + off, n), chars);
		/* Any prefix: cut characters count as their lead byte only. */
		size_t cut = (size_t)rand() % (n + 1), lead = 0;
		for (size_t i = 0; i < cut; i++)
			lead += (buf[i] & 0xc0) != 0x80;
		assert_int_equal(ty_str_nchars((const char *)shifted + off, cut), lead);
	}
}

static void test_ascii_and_empty(void **state)
{
	(void)state;
	assert_int_equal(ty_str_nchars("", 0), 0);
	const char *s = "0123456789abcdefghijklmnopqrstuvwxyz";
	for (size_t n = 0; n <= strlen(s); n++)
		assert_int_equal(ty_str_nchars(s, n), n);
	char spaces[84];
	memset(spaces, ' ', sizeof spaces);
	assert_int_equal(ty_str_nchars(spaces, sizeof spaces), 84);
	/* Bytes 0x80-0xbf only: all continuation bytes. */
	uint8_t cont[20];
	for (size_t i = 0; i < sizeof cont; i++)
		cont[i] = (uint8_t)(0x80 + i);
	assert_int_equal(ty_str_nchars((const char *)cont, sizeof cont), 0);
	/* Bytes 0xc0-0xff: every one a lead byte. */
	uint8_t lead[64];
	for (size_t i = 0; i < sizeof lead; i++)
		lead[i] = (uint8_t)(0xc0 + i);
	assert_int_equal(ty_str_nchars((const char *)lead, sizeof lead), 64);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_counts_match_bytewise),
	    cmocka_unit_test(test_ascii_and_empty),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
