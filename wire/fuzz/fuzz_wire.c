/* fuzz_wire.c — libFuzzer target for everything in wire/ that reads client bytes: the frontend
 * message decoders, startup packets, the SCRAM exchange, hba files and UTF-8 validation.
 * The first input byte picks the parser; see docs/wire.md for how to build and run it. */
#include <netinet/in.h>
#include <stdlib.h>
#include <string.h>

#include "crypto.h"
#include "pgw_int.h"

static void fuzz_message(const uint8_t *d, size_t n)
{
	if (n < 1)
		return;
	static pgw_fe_scratch s;
	util_err err;
	char type = (char)d[0];
	d++;
	n--;
	const char *a;
	char kind;
	int32_t rows;
	pgw_parse_msg pm;
	pgw_bind_msg bm;
	if (type == 'F') { /* FunctionCall: arguments must lie inside the body too */
		pgw_fcall_msg fm;
		if (pgw_decode_fcall(d, n, &s, &fm, &err) == 0)
			for (int i = 0; i < fm.p.nparams; i++)
				if (fm.p.values[i] &&
				    (fm.p.values[i] < d || fm.p.values[i] + fm.p.lengths[i] > d + n))
					abort();
		return;
	}
	switch (type % 6) {
	case 0:
		pgw_decode_query(d, n, &a, &err);
		break;
	case 1:
		if (pgw_decode_parse(d, n, &s, &pm, &err) == 0)
			for (int i = 0; i < pm.nparams; i++)
				(void)pm.types[i];
		break;
	case 2:
		if (pgw_decode_bind(d, n, &s, &bm, &err) == 0) {
			/* every decoded parameter must lie inside the body */
			for (int i = 0; i < bm.p.nparams; i++)
				if (bm.p.values[i] &&
				    (bm.p.values[i] < d || bm.p.values[i] + bm.p.lengths[i] > d + n))
					abort();
		}
		break;
	case 3:
		pgw_decode_target(d, n, &kind, &a, &err);
		break;
	case 4:
		pgw_decode_execute(d, n, &a, &rows, &err);
		break;
	default:
		pgw_decode_copy_fail(d, n, &a, &err);
		break;
	}
}

static void fuzz_startup(const uint8_t *d, size_t n)
{
	pgw_startup sp;
	util_err err;
	if (pgw_startup_parse(d, n, &sp, &err) == 0 && sp.kind == PGW_SP_STARTUP) {
		if (strlen(sp.user) >= PGW_NAMEDATALEN || strlen(sp.database) >= PGW_NAMEDATALEN)
			abort();
		for (int i = 0; i < sp.nparams; i++)
			(void)strlen(sp.names[i]), (void)strlen(sp.values[i]);
	}
	pgw_startup_free(&sp);
}

/* Two client messages separated by a 0xff byte, against a fixed secret
 * (and channel binding when the last byte is odd). */
static void fuzz_scram(const uint8_t *d, size_t n)
{
	static char secret[UTIL_SCRAM_SECRET_MAX];
	if (!secret[0]) {
		static const uint8_t salt[16] = {1, 2, 3};
		util_scram_secret_salt("pencil", 4096, salt, sizeof salt, secret);
	}
	const uint8_t *sep = memchr(d, 0xff, n);
	size_t n1 = sep ? (size_t)(sep - d) : n;
	uint8_t cb[32] = {7};
	bool use_cb = n && (d[n - 1] & 1);
	pgw_scram s;
	util_err err;
	util_buf out = UTIL_BUF_INIT;
	pgw_scram_init(&s, "user", secret, use_cb ? cb : NULL, sizeof cb, "servernonce", &err);
	const char *mech = n1 && (d[0] & 1) ? "SCRAM-SHA-256-PLUS" : "SCRAM-SHA-256";
	if (pgw_scram_step(&s, mech, d, n1, &out, &err) == PGW_SASL_CONTINUE && sep) {
		util_buf_reset(&out);
		pgw_scram_step(&s, NULL, sep + 1, n - n1 - 1, &out, &err);
	}
	util_buf_free(&out);
	pgw_scram_free(&s);
}

static void fuzz_hba(const uint8_t *d, size_t n)
{
	char *text = malloc(n + 1);
	memcpy(text, d, n);
	text[n] = '\0';
	pgw_hba *h;
	util_err err;
	if (pgw_hba_parse(text, "fuzz", &h, &err) == 0) {
		struct sockaddr_in a = {.sin_family = AF_INET};
		memcpy(&a.sin_addr, "\x7f\0\0\1", 4);
		pgw_hba_client c = {.addr = (struct sockaddr *)&a, .user = "u", .database = "d"};
		int line;
		pgw_hba_match(h, &c, &line);
		pgw_hba_free(h);
	}
	free(text);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (size < 1)
		return 0;
	const uint8_t *d = data + 1;
	size_t n = size - 1;
	switch (data[0] % 5) {
	case 0:
		fuzz_message(d, n);
		break;
	case 1:
		fuzz_startup(d, n);
		break;
	case 2:
		fuzz_scram(d, n);
		break;
	case 3:
		fuzz_hba(d, n);
		break;
	default: {
		util_err err;
		size_t ok = pgw_utf8_valid_prefix(d, n);
		if (ok > n || (ok == n) != (pgw_utf8_check(d, n, &err) == 0))
			abort();
		break;
	}
	}
	return 0;
}
