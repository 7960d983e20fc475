/*
 * json_io.c — the json and jsonb types: text input (validation for json,
 * parse + normalise + encode for jsonb), text output, binary send/recv
 * (json: the text; jsonb: version byte 1 + the text), and their pg_type
 * entries.
 */
#include "arr_int.h"
#include "json_int.h"

static ty_datum json_in(const char *s, size_t len, int32_t typmod)
{
	(void)typmod;
	json_validate(s, len);
	return ty_textn(s, len);
}

static void json_out(ty_datum v, util_buf *out)
{
	util_buf_append(out, v.p, v.len);
}

static ty_datum json_recv(const uint8_t *p, size_t len, int32_t typmod)
{
	return json_in((const char *)p, len, typmod);
}

static void json_send(ty_datum v, util_buf *out)
{
	util_buf_append(out, v.p, v.len);
}

static ty_datum jsonb_in(const char *s, size_t len, int32_t typmod)
{
	(void)typmod;
	return jv_to_jsonb(json_parse_tree(s, len, true));
}

static void jsonb_out(ty_datum v, util_buf *out)
{
	jsonb_out_buf(v, out);
}

static ty_datum jsonb_recv(const uint8_t *p, size_t len, int32_t typmod)
{
	if (len < 1)
		ty_error(UTIL_E_PROTOCOL_VIOLATION, "insufficient data left in message");
	if (p[0] != 1)
		ty_error(UTIL_E_INTERNAL_ERROR, "unsupported jsonb version number %d", p[0]);
	return jsonb_in((const char *)p + 1, len - 1, typmod);
}

static void jsonb_send(ty_datum v, util_buf *out)
{
	util_buf_put_u8(out, 1);
	jsonb_out_buf(v, out);
}

static const ty_type json_types[] = {
    {.oid = TY_JSON,
     .name = "json",
     .len = -1,
     .category = 'U',
     .typtype = 'b',
     .align = 'i',
     .array = TY_JSON_ARRAY,
     .in = json_in,
     .out = json_out,
     .recv = json_recv,
     .send = json_send,
     .input_name = "json_in",
     .output_name = "json_out"},
    {.oid = TY_JSONB,
     .name = "jsonb",
     .len = -1,
     .category = 'U',
     .typtype = 'b',
     .align = 'i',
     .array = TY_JSONB_ARRAY,
     .in = jsonb_in,
     .out = jsonb_out,
     .recv = jsonb_recv,
     .send = jsonb_send,
     .cmp = jsonb_cmp_datum,
     .hash = jsonb_hash_datum,
     .keyenc = jsonb_keyenc,
     .keydec = jsonb_keydec,
     .key_lossy = true,
     .input_name = "jsonb_in",
     .output_name = "jsonb_out"},
};

void json_register_types(void)
{
	for (size_t i = 0; i < UTIL_ARRAY_LEN(json_types); i++)
		ty_type_register(&json_types[i]);
	arr_register_array_of(TY_JSON);
	arr_register_array_of(TY_JSONB);
}
