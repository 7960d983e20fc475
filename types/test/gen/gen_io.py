#!/usr/bin/python3
"""gen_io.py — text I/O and comparison expectations for arrays and json/jsonb.

Writes types/test/arr_io_cases.h and types/test/json_io_cases.h. Run with a
reference server up (/work/shared/tools/pgref start):
    /usr/bin/python3 types/test/gen/gen_io.py
"""
import os
import sys

sys.path.insert(0, os.path.dirname(__file__))
from pgexp import run, run_expr, dq, cstr, header  # noqa: E402

OUT = os.path.join(os.path.dirname(__file__), "..")

ARR_IO = [("_int4", s) for s in [
    "{1,2,NULL}", "1,2", "{1,2", "{1,,2}", "{,1}", "{1,2},", "{{1,2},{3}}", "{{1,2},3}", "{1,{2}}", "{}",
    "{ }", "{{}}", "[1:2]={1,2}", "[1:3]={1,2}", "[2:1]={}", "[1:2]{1,2}", "[1:2", "[a]={1}", "[]={1}",
    "  { 1 , 2 }  ", "{1 2}", "{\"1\" 2}", "{\"1\"x}", "{1\"2\"}", "{{1},{2}}x", "{{{{{{{1}}}}}}}",
    "{{{{{{1}}}}}}", "{null,NULL,\"NULL\"}", "{null,NULL}", "[0:1][1:2]={{1,2},{3,4}}", "[1:2]={{1,2},{3,4}}",
    "{1}}", "{{1}", "{\"}", "{\\}", "{a\\", "[-2:-1]={1,2}", "[+1:+2]={1,2}", "[1:2147483648]={1}",
    "{{1,2},{}}", "{{},{}}", "{{1},{{2}}}", "{{{1}},{2}}", "[1:2]={1,2", "[1:2]={}", "[1:2] = {1,2}",
    "[1:2]= x", "[1:2]=", "[1:2][3:4][1:1][1:1][1:1][1:1][1:1]={1}", "{{1},{2},3}", "{1,2}}", "}", "{",
    "{\"a\"b}", "{ \"1\" }", "{1, NULL , 2}", "{{1,2},{3,4},{5,6}}", "{{{1}},{{2}}}", "[1]={1}",
    "[1:1][1:1]={1}", "[2]={1,2}", "[-2147483648:2147483647]={1}", "[1:2147483647]={1}",
    "[2147483647:2147483647]={1}", "[5:4]={1}", "[0]={1}", "{1,a}", "{1,99999999999}", "{\\1,2}",
    "{1\\2}", "{ 1 ,\t2\n}", "{{1,2}\n,{3,4}}", "[0:0]={7}", "[1:1]={7}", "[3]={1,2,3}", "{{1,NULL},{NULL,4}}",
    "{-1,+2, 3 }", "{{ {1} }}", "[1:1]={{1}}", "[1:2][1:1]={{1},{2}}", "{\"\"}", "{{\"1\",\"2\"},{3,4}}",
    "{1}  x", "[1:2]={1,2} x", "[1:2] x", "[1:x]={1}", "[1:]={1}", "[:1]={1}", "[1-2]={1}", "{nul}",
    "{NULLx}", "{\"NULL\"}", "{1,\"2\",\" 3 \"}", "", " ", "{{1}},{{2}}", "{1,2,3,4,5,6,7,8,9,10}",
]] + [("_text", s) for s in [
    "{a,b,c}", "{\"a b\",\"c,d\",\"e{f\",\"g}h\",\"i\\\"j\",\"k\\\\l\"}", "{\"\",NULL,\"NULL\",null,\"null\"}",
    "{ a b , c }", "{\" a \"}", "{a\\ b}", "{\\ a}", "{abc\\\"def}", "{\"\\a\\b\"}", "{é,日本}", "{a\tb}",
    "{\"a\tb\"}", "{\"a\nb\"}", "{{a,b},{c,d}}", "[0:1]={x,y}", "{\"{}\",\"[]\"}", "{'a'}", "{a=b}",
    "{\"\\\\\"}", "{N,NU,NULLL}", "{\"Null\",NuLl}", "{a\"b\"c}", "{\"a\"\"b\"}", "{\"ab}", "{\"a\",\"b\"",
    "{ \"a\" , \"b\" }", "{\" \"}", "{x,y}}", "{[1:2]}", "{\"a\\\"}",
]] + [("_bool", s) for s in ["{t,f,NULL}", "{true,false}", "{yes}", "{{t},{f}}"]] + \
    [("_int8", s) for s in ["{9223372036854775807,-9223372036854775808}", "{9223372036854775808}"]] + \
    [("_numeric", s) for s in ["{1.50,NaN,-0.0,1e3,Infinity}", "{abc}", "{{1.1,2.2},{3.3,NULL}}"]] + \
    [("_float8", s) for s in ["{1.5,NaN,Infinity,-0,1e300,0.1}", "{1e400}"]] + \
    [("_float4", s) for s in ["{1.5,3.4028235e38,1e-45}"]] + \
    [("_int2", s) for s in ["{1,-32768}", "{32768}"]] + \
    [("_date", s) for s in ["{2024-01-31,infinity,epoch}", "{2024-02-30}"]] + \
    [("_timestamp", s) for s in ["{\"2024-01-31 10:00:00\",-infinity}"]] + \
    [("_timestamptz", s) for s in ["{\"2024-01-31 10:00:00+02\"}"]] + \
    [("_interval", s) for s in ["{\"1 day 2 hours\",\"-1 mons\"}"]] + \
    [("_time", s) for s in ["{10:00,23:59:59.999999}"]] + \
    [("_uuid", s) for s in ["{a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11,NULL}", "{xyz}"]] + \
    [("_bytea", s) for s in ["{\"\\\\x0102\",\"abc\"}"]] + \
    [("_varchar", s) for s in ["{abc,\"d e\"}"]] + \
    [("_bpchar", s) for s in ["{\"a  \",b}"]] + \
    [("_name", s) for s in ["{pg_class,\"x y\"}"]] + \
    [("_char", s) for s in ["{a,b}"]] + \
    [("_oid", s) for s in ["{1,4294967295}"]] + \
    [("_json", s) for s in ["{\"{\\\"a\\\": 1}\",\"[1, 2]\"}", "{\"{x}\"}"]] + \
    [("_jsonb", s) for s in ["{\"{\\\"b\\\":1, \\\"a\\\": [1,2]}\",null,\"3\"}"]]

ARR_CMP = [("_int4", a, b) for a, b in [
    ("{1,2}", "{1,2}"), ("{1,2}", "{1,3}"), ("{1,2}", "{1,2,3}"), ("{1,2,3}", "{1,3}"), ("{}", "{1}"),
    ("{}", "{}"), ("{NULL}", "{1}"), ("{NULL}", "{NULL}"), ("{1,NULL}", "{1,2}"), ("[0:1]={1,2}", "{1,2}"),
    ("{{1,2},{3,4}}", "{1,2,3,4}"), ("{{1,2},{3,4}}", "{{1,2,3,4}}"), ("{{1},{2}}", "{{1,2}}"),
    ("[2:3]={1,2}", "[1:2]={1,2}"), ("{2}", "{1,5}"), ("{-1}", "{}"),
]] + [("_text", a, b) for a, b in [
    ("{a}", "{b}"), ("{a}", "{a,b}"), ("{ab}", "{b}"), ("{\"\"}", "{a}"), ("{b,a}", "{a,b}"),
]]

JSON_IO = [(t, s) for t in ("json", "jsonb") for s in [
    "{\"a\":1}", "{\"a\" 1}", "[1,2", "[1 2]", "truex", "@", "\"abc", "\"a\\qb\"", "\"a\\u12x4\"",
    "\"\\u0000\"", "\"\\ud800\"", "\"\\udc00x\"", "\"\\ud800\\ud800\"", "\"\\ud800x\"", "\"\\ud83d\\ude00\"",
    "\"\\ud800\\n\"", "\"a\\u00e9\"", "{\"a\":1,}", "{,}", "[,]", "-", "-abc", "01", "1.", "1.e5", "1e", ".5",
    "{\"a\":1}}", "{\"a\":1} x",
    "abcdefghijklmnopqrstuvwxyz0123456789abcdefghijklmnopqrstuvwxyz0123456789 ",
    "[1,2,3,4,5,6,7,8,9,10,11,12,13,14,15,16,17,18,19,20,21,22,23,24,25,26,27,28,29,30,x",
    "[1,\n2,\nx]", "{1:2}", "{\"a\":1 \"b\":2}", "\"a\tb\"", "\n", "  ", "", "[1,2]\n", "\"x\\u1234\\ud83d\\ude00\"",
    "{\"b\":1,\"a\":2,\"aa\":3,\"a\":4}", "{\"a\": 1.0e2, \"b\": 1.50, \"c\": -0, \"d\": 1e-3, \"e\": 0.000, \"f\": -0.0}",
    "1e131072", "1e-16384", "0.1e-16383", "0e-16384", "0e100000000",
    "1e2147483647", "-1.5E+3", "1E-2", "123.456e-2", "0.0000", "-0.000e5", "1e0", "10e-1",
    "[  true ,false,null , \"x\\\"y\\\\\" ]", "{\"a\":{\"c\":[]  , \"b\" : {}}}",
    "\"\\/\\b\\f\\n\\r\\t\\u001f\\u007f\"", "\"é\"", "\"\\u00e9\\u65e5\"", "nul", "nulls", "True", "[tru]",
    "{\"a\":}", "{\"a\"}", "{\"a\":1,\"b\"}", "[1,]", "[1,,2]", "[[[]]]", "{\"\":\"\"}", "\"\\\"\"",
    "{\"a\":[1,{\"b\":null}]}", "  {  }  ", "[]", "{}", "\"\\uD834\\uDD1E\"", "\"\\u12\"", "\"\\", "\"\\u",
    "[\"\\u00\"]", "{\"x\":\"y\",\"x\":\"z\",\"x\":1}", "{\"aa\":1,\"b\":2,\"c\":{\"bb\":1,\"a\":2}}",
    "1 2", "[1] [2]", "\"a\" : 1", "-01", "-0.0e-0", "1.5e+", "2e-", "0x10", "Infinity", "NaN", "-Infinity",
    "\"\\x41\"", "'a'", "{'a':1}", "[1,\n  2,\n  ?]", "{\"a\":\n\"b\"\n,\n\"c\" 1}",
    "[\"abcdefghijklmnopqrstuvwxyzabcdefghijklmnopqrstuvwxyz\", x]",
    "[\"日本語日本語日本語日本語日本語日本語日本語日本語日本語日本語日本語日本語\", x]",
    "\"\\u0041\\u00\"", "[1,2]]", "{\"a\":1}{", "[1]x", "[1]\t", "\"a\x01\"", "\"\\ud800\\u0041\"",
    "\"\\udbff\\udfff\"", "{\"\\u0000\":1}",
]]

JSON_CMP = [("jsonb", a, b) for a, b in [
    ("1", "[]"), ("1", "[1]"), ("1", "[0]"), ("1", "[2]"), ('"a"', "[1]"), ("null", "[]"), ("{}", "[]"),
    ("[1,2]", "{}"), ('{"a":1}', '{"b":1}'), ('{"aa":1}', '{"b":1}'), ('[1,"a"]', "[1,2]"),
    ("[[1]]", "[1]"), ("[{}]", "[[]]"), ("true", "false"), ("1.0", "1"), ('"a"', '"ab"'), ('"b"', '"ab"'),
    ("null", '""'), ("[null]", "[1]"), ("1", "{}"), ("-1", "1"), ("-2", "-1.5"), ("0.001", "0.0010"),
    ("100", "99.999"), ("1e10", "9999999999"), ('{"a":1,"b":2}', '{"a":1,"b":3}'),
    ('{"a":1,"b":2}', '{"a":1,"c":0}'), ('{"b":1}', '{"a":1,"c":0}'), ("[1,[2]]", "[1,[2,3]]"),
    ('[1,{"a":1}]', "[1,[1]]"), ('"é"', '"z"'), ("true", "1"), ("false", '"x"'), ("0", "-0.0"),
    ('{"a":[1,2]}', '{"a":[1,2]}'), ("[true]", "[false]"), ("[]", "[[]]"),
]]


def io_table(name, cases):
    rows = []
    for typ, s in cases:
        r = run_expr("%s::%s" % (dq(s), typ))
        if r["err"]:
            e = r["err"]
            rows.append("\t{%s, %s, NULL, %s, %s, %s, %s}," % (
                cstr(typ), cstr(s), cstr(e["sqlstate"]), cstr(e["message"]), cstr(e["detail"] or None),
                cstr(e["context"] or None)))
        else:
            rows.append("\t{%s, %s, %s, NULL, NULL, NULL, NULL}," % (cstr(typ), cstr(s), cstr(r["out"])))
    return "static const exp_io %s[] = {\n%s\n};\n" % (name, "\n".join(rows))


def cmp_table(name, cases):
    rows = []
    for typ, a, b in cases:
        r = run("select ((%s::%s > %s::%s)::int - (%s::%s < %s::%s)::int)::text" % (
            dq(a), typ, dq(b), typ, dq(a), typ, dq(b), typ))
        if r["err"]:
            raise SystemExit("comparison failed: %r %r %r: %r" % (typ, a, b, r["err"]))
        rows.append("\t{%s, %s, %s, %s}," % (cstr(typ), cstr(a), cstr(b), r["out"]))
    return "static const exp_cmp %s[] = {\n%s\n};\n" % (name, "\n".join(rows))


BIN = [(t, s) for t, s in [
    ("_int4", "{1,2,NULL}"), ("_int4", "{}"), ("_int4", "[0:1][-1:0]={{1,2},{3,4}}"), ("_text", "{a,\"b c\",\"\"}"),
    ("_int8", "{-1,9223372036854775807}"), ("_bool", "{t,f}"), ("_float8", "{1.5,NaN,-Infinity}"),
    ("_numeric", "{1.50,-0.001,NaN}"), ("_date", "{2024-01-31}"), ("_timestamptz", "{\"2024-01-31 10:00+00\"}"),
    ("_uuid", "{a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11}"), ("_bytea", "{\"\\\\x00ff\"}"), ("_varchar", "{x}"),
    ("_jsonb", "{\"{\\\"a\\\": 1}\"}"), ("_json", "{\"[1, 2]\"}"), ("_int2", "{{1},{2}}"),
    ("jsonb", '{"b": [1, 2.50], "a": null, "c": "\\u00e9"}'), ("jsonb", "1"), ("jsonb", "[]"),
    ("json", '{"b": [1,  2.50], "a" : null}')]]


def bin_table(name, cases):
    rows = []
    for typ, s in cases:
        send = {"jsonb": "jsonb_send", "json": "json_send"}.get(typ, "array_send")
        r = run("select encode(%s(%s::%s), 'hex')" % (send, dq(s), typ))
        if r["err"]:
            raise SystemExit("send failed: %r %r: %r" % (typ, s, r["err"]))
        rows.append("\t{%s, %s, %s}," % (cstr(typ), cstr(s), cstr(r["out"])))
    return "static const exp_bin %s[] = {\n%s\n};\n" % (name, "\n".join(rows))


def write(fname, body):
    with open(os.path.join(OUT, fname), "w") as f:
        f.write(header(fname))
        f.write('#include "exp_case.h"\n\n')
        f.write(body)


write("arr_io_cases.h", io_table("arr_io_cases", ARR_IO) + "\n" + cmp_table("arr_cmp_cases", ARR_CMP) + "\n" +
      bin_table("bin_cases", BIN))
write("json_io_cases.h", io_table("json_io_cases", JSON_IO) + "\n" + cmp_table("json_cmp_cases", JSON_CMP))
