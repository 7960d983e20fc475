#!/usr/bin/python3
"""gen_json_calls.py — expectations for json/jsonb operators and functions.
Writes types/test/json_call_cases.h. Run with a reference server up
(/work/shared/tools/pgref start):
    /usr/bin/python3 types/test/gen/gen_json_calls.py
"""
import os
import sys

sys.path.insert(0, os.path.dirname(__file__))
from pgexp import run_call, call_row, run_agg, agg_row, header  # noqa: E402

J, JB, T, I4, TA, B = "json", "jsonb", "text", "int4", "_text", "bool"


def c(fn, types, args, sql=None, retset=False):
    return {"fn": fn, "types": types, "args": args, "sql": sql, "retset": retset}


def op(fn, sym, t1, t2, a, b):
    return c(fn, [t1, t2], [a, b], sql="{0} %s {1}" % sym)


DOCS = ['{"a":1,"b":[1,2,{"c":"x"}],"d":null,"e":"s\\u00e9","f":true}', '[1,"a",[2,3],{"k":"v"},null]', '"str"',
        '1.50', 'null', 'true', '{}', '[]', '{"a":1,"a":2}', '{"a": [1,  2] ,"b" : { "x" : 1 } }', ' 7 ']
KEYS = ["a", "b", "d", "e", "f", "zz", "", "k"]
IDX = ["0", "1", "2", "-1", "-5", "9"]
CALLS = []
for t in (J, JB):
    pre = "json" if t == J else "jsonb"
    for d in DOCS:
        for k in KEYS:
            CALLS.append(op(pre + "_object_field", "->", t, T, d, k))
            CALLS.append(op(pre + "_object_field_text", "->>", t, T, d, k))
        for i in IDX:
            CALLS.append(op(pre + "_array_element", "->", t, I4, d, i))
            CALLS.append(op(pre + "_array_element_text", "->>", t, I4, d, i))
        for p in ["{}", "{a}", "{b,2,c}", "{b,-1,c}", "{b,1}", "{b,x}", "{b, 1}", "{b,\"1 \"}", "{b,+1}",
                  "{a,NULL}", "{d}", "{2,1}", "{3,k}", "{e}", "{zz,a}", "{b,2147483648}"]:
            CALLS.append(op(pre + "_extract_path", "#>", t, TA, d, p))
            CALLS.append(op(pre + "_extract_path_text", "#>>", t, TA, d, p))
        CALLS.append(c(pre + "_typeof", [t], [d]))
        CALLS.append(c(pre + "_array_length", [t], [d]))
    CALLS.append(c(pre + "_extract_path", [t, T, T], ['{"a":{"b":[5,6]}}', "a", "b"],
                   sql=pre + "_extract_path({0}, {1}, {2})"))
    CALLS.append(op(pre + "_object_field", "->", t, T, '{"a":"\\u0000"}', "b"))
    CALLS.append(op(pre + "_object_field_text", "->>", t, T, '{"a":"x\\ny\\"z"}', "a"))
CALLS.append(c("json_typeof", [J], ['  {"a": [}']))
for d in ['{"a":1,"b":2}', '["a","b","c"]', '"a"', '[1]', '{}', '[["a"]]', '{"a":null}']:
    for k in ["a", "b", "1", "x"]:
        CALLS.append(op("jsonb_exists", "?", JB, T, d, k))
    for ks in ["{a,x}", "{x,y}", "{}", "{NULL}", "{a,b}", "{NULL,a}"]:
        CALLS.append(op("jsonb_exists_any", "?|", JB, TA, d, ks))
        CALLS.append(op("jsonb_exists_all", "?&", JB, TA, d, ks))
CONT = ['{"a":1,"b":[1,2,{"c":3}]}', '{"a":1}', '{"b":[2]}', '{"b":[{"c":3}]}', '{"b":[{}]}', '{"b":{}}', '{}', '[]',
        '[1,2,[3,4]]', '[[3]]', '[1,[4]]', '1', '[1]', '"a"', '["a"]', '{"a":1.0}', '[{"a":1}]', '[[]]',
        '{"a":[1,2]}', '{"a":[2,1,2]}', 'null', '[null]', '[1,1]']
for a in CONT:
    for b in CONT:
        CALLS.append(op("jsonb_contains", "@>", JB, JB, a, b))
for a, b in [('{"a":1}', '{"a":1,"b":2}'), ('[1]', '[1,2]'), ('1', '[1]')]:
    CALLS.append(op("jsonb_contained", "<@", JB, JB, a, b))
for fn, sym in [("jsonb_eq", "="), ("jsonb_ne", "<>"), ("jsonb_lt", "<"), ("jsonb_gt", ">"), ("jsonb_le", "<="),
                ("jsonb_ge", ">=")]:
    for a, b in [('{"a":1}', '{"a":1.00}'), ("[1,2]", "[1,3]"), ('"b"', '"ab"'), ("1", "[1]")]:
        CALLS.append(op(fn, sym, JB, JB, a, b))
for a, b in [("[1,2]", "[2,1]"), ('{"a":1}', '{"a":1.0}'), ("1", "2")]:
    CALLS.append(c("jsonb_cmp", [JB, JB], [a, b]))
CAT = ['{"a":1}', '{"b":2,"a":3}', '[1]', '[2,[3]]', '1', '"s"', '{}', '[]', 'null']
for a in CAT:
    for b in CAT:
        CALLS.append(op("jsonb_concat", "||", JB, JB, a, b))
for d in ['{"a":1,"b":2}', '["a","b","a",1]', '"a"', '{}', '[]', '1', '[["a"]]']:
    for k in ["a", "x"]:
        CALLS.append(op("jsonb_delete", "-", JB, T, d, k))
    for i in ["0", "1", "-1", "-9", "9"]:
        CALLS.append(op("jsonb_delete", "-", JB, I4, d, i))
    for ks in ["{a,b}", "{}", "{NULL,a}", "{x}"]:
        CALLS.append(op("jsonb_delete", "-", JB, TA, d, ks))
PDOC = ['{"a":{"b":[1,2,3]},"c":4}', '[1,[2,3],{"x":1}]', '{}', '[]', '1', '{"a":1}']
PATHS = ["{}", "{a}", "{a,b}", "{a,b,0}", "{a,b,-1}", "{a,b,9}", "{a,b,-9}", "{a,b,x}", "{a,NULL}", "{NULL}",
         "{c,d}", "{z}", "{z,y}", "{1,0}", "{1,5}", "{2,x}", "{0}", "{-1}", "{5}", "{x}", "{0,a}"]
for d in PDOC:
    for p in PATHS:
        CALLS.append(op("jsonb_delete_path", "#-", JB, TA, d, p))
        CALLS.append(c("jsonb_set", [JB, TA, JB], [d, p, '{"new":true}']))
        CALLS.append(c("jsonb_set", [JB, TA, JB, B], [d, p, '9', "f"]))
        CALLS.append(c("jsonb_insert", [JB, TA, JB], [d, p, '"ins"']))
        CALLS.append(c("jsonb_insert", [JB, TA, JB, B], [d, p, '"ins"', "t"]))
for args in [['{"a":1}', "{a}", None], ['{"a":1}', "{a}", None, "t", "delete_key"],
             ['{"a":1}', "{a}", None, "t", "raise_exception"], ['{"a":1}', "{a}", None, "t", "return_target"],
             ['{"a":1}', "{a}", None, "t", "bogus"], ['{"a":1}', "{a}", None, "t", None],
             ['{"a":1}', "{a}", "2", "t", None], ['{"a":1}', "{b}", "2", "f", "use_json_null"],
             [None, "{a}", "2", "t", "delete_key"], ['{"a":1}', None, "2"], ['{"a":1}', "{b}", None, None],
             ['1', "{a}", None, "t", "delete_key"], ['{"a":1}', "{b}", None, "t", "use_json_null"]]:
    types = [JB, TA, JB, B, T][:len(args)]
    CALLS.append(c("jsonb_set_lax", types, args))
for d in ['{"a":1,"b":null,"c":[null,{"d":null,"e":2}]}', '[null]', 'null', '{"a":{"b":null}}']:
    CALLS.append(c("jsonb_strip_nulls", [JB], [d]))
    CALLS.append(c("json_strip_nulls", [J], [d]))
CALLS.append(c("json_strip_nulls", [J], [' { "a" : "\\u00e9" , "b" : null, "c":1.50e1 } ']))
for d in ['{"a":[],"b":{},"c":[1,{"x":[2]}],"d":"s"}', '[]', '5', '[[]]', '{}', '"x\\ty"']:
    CALLS.append(c("jsonb_pretty", [JB], [d]))
for t, fn in [(B, "bool"), ("numeric", "numeric"), ("int2", "int2"), (I4, "int4"), ("int8", "int8"),
              ("float4", "float4"), ("float8", "float8")]:
    for d in ['1.5', '2.5', '-2.5', '1e10', '40000', 'true', 'null', '"1"', '[1]', '{}', '0.1', '1e-50', '123456789012']:
        CALLS.append(c(fn, [JB], [d], sql="{0}::%s" % t))
for d in ['{"b":1, "a":2}', '[1, 2.50]', '"\\u00e9"']:
    CALLS.append(c("jsonb", [J], [d], sql="{0}::jsonb"))
    CALLS.append(c("json", [JB], [d], sql="{0}::json"))

# ---- to_json and friends
VALS = [("int4", "5"), ("int4", None), ("int8", "-9223372036854775808"), ("int2", "7"), ("float8", "1.5"),
        ("float8", "NaN"), ("float8", "Infinity"), ("float8", "1e100"), ("float8", "-0"), ("float4", "1.5"),
        ("numeric", "12.0"), ("numeric", "NaN"), ("numeric", "-Infinity"), ("numeric", "1.50e3"), (B, "t"),
        (B, "f"), (T, "x\"y\\z\n\u00e9"), (T, ""), ("varchar", "a b"), ("oid", "5"), ("bytea", "\\x01ff"),
        ("date", "2024-01-31"), ("date", "infinity"), ("date", "0001-01-01 BC"),
        ("timestamp", "2024-01-01 10:00:00.5"), ("timestamp", "-infinity"), ("timestamp", "0001-01-01 10:00 BC"),
        ("timestamptz", "2024-01-01 10:00:00+05:30"), ("timestamptz", "2024-06-01 10:00:00.123456-03"),
        ("timestamptz", "0044-03-15 12:00 BC"), ("interval", "1 day 02:00"), ("uuid", "a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11"),
        (J, '{"b": 1, "a" : [1,2]}'), (JB, '{"b": 1, "a" : [1,2]}'), (J, '"s"'), (JB, "1.50"),
        ("_int4", "{{1,2},{3,NULL}}"), ("_int4", "{}"), ("_text", "{\"a b\",NULL}"), ("_int4", "[0:1]={1,2}"),
        ("_float8", "{NaN,1.5}"), ("_date", "{2024-01-01}"), ("_jsonb", "{\"{\\\"a\\\":1}\",null}"),
        ("_json", "{\"[1, 2]\"}"), ("_bool", "{t,NULL}"),
        ("record(int4,text,bool)", ["1", "a", None]), ("record(int4,_int4,jsonb)", ["1", "{1,2}", '{"x":1}']),
        ("record(text,date)", ["x", "2024-02-29"])]
for t, v in VALS:
    CALLS.append(c("to_json", [t], [v]))
    CALLS.append(c("to_jsonb", [t], [v]))
for t, v in [("_int4", "{1,2}"), ("_int4", "{{1,2},{3,4}}"), ("_int4", "{}"), ("_text", "{{\"a b\"}}"),
             ("_int4", "{NULL}")]:
    CALLS.append(c("array_to_json", [t], [v]))
    CALLS.append(c("array_to_json", [t, B], [v, "t"]))
    CALLS.append(c("array_to_json", [t, B], [v, "f"]))
for t, v in [("record(int4,text)", ["1", "x"]), ("record(int4,text,_int4)", ["1", None, "{{1},{2}}"]),
             ("record(jsonb,json)", ['{"b":2,"a":1}', '{"b":2,"a":1}'])]:
    CALLS.append(c("row_to_json", [t], [v]))
    CALLS.append(c("row_to_json", [t, B], [v, "t"]))
for fn in ["json_build_object", "jsonb_build_object"]:
    for types, args in [([T, I4, T, T, T, I4, T, B], ["a", "1", "b", "x", "c", None, "d", "t"]),
                        ([I4, I4], ["1", "2"]), ([T], ["a"]), ([T, I4], [None, "1"]), (["_int4", I4], ["{1}", "1"]),
                        ([J, I4], ['{"a":1}', "1"]), (["float8", I4, B, I4, "date", I4], ["1.5", "2", "t", "3", "2024-01-01", "4"]),
                        ([], []), ([T, I4, T, I4], ["b", "1", "a", "2"]), ([T, I4, T, I4], ["b", "1", "b", "2"]),
                        ([T, "_int4", T, J, T, JB], ["e", "{1,2}", "f", '{"z":1}', "g", '{"z": 1}']),
                        (["record(int4)", I4], [["1"], "1"]), ([T, "record(int4,text)"], ["r", ["1", "a"]]),
                        ([T, "numeric", T, "float8"], ["n", "NaN", "f", "Infinity"]), ([JB, I4], ["1", "2"]),
                        (["timestamptz", I4], ["2024-01-01 00:00+00", "1"])]:
        CALLS.append(c(fn, types, args))
for fn in ["json_build_array", "jsonb_build_array"]:
    for types, args in [([I4, T, I4, "_int4", J], ["1", "x", None, "{1,2}", '{"a":1}']), ([], []),
                        (["numeric", JB, "record(int4,text)"], ["1.50", '{"b":1,"a":2}', ["1", "x"]]),
                        (["timestamp", "float8"], ["2024-01-01 10:00", "NaN"])]:
        CALLS.append(c(fn, types, args))
for fn in ["json_object", "jsonb_object"]:
    for a in ["{a,1,b,2}", "{{a,1},{b,NULL}}", "{a,1,b}", "{{a,1,2}}", "{{{a}}}", "{NULL,1}", "{}", "{b,1,a,2,b,3}"]:
        CALLS.append(c(fn, [TA], [a]))
    for a, b in [("{a,b}", "{1,2}"), ("{a,b}", "{1}"), ("{a,NULL}", "{1,2}"), ("{a,b}", "{1,NULL}"), ("{}", "{}"),
                 ("{{a}}", "{{1}}")]:
        CALLS.append(c(fn, [TA, TA], [a, b]))
# ---- set-returning
for fn, t in [("json_each", J), ("json_each_text", J), ("jsonb_each", JB), ("jsonb_each_text", JB)]:
    for d in ['{"a":"x","b":null,"c":[1, 2],"d":{"e":1},"a":5}', "{}", "[1]", "1", '{"k":"\u00e9\n"}']:
        cs = c(fn, [t], [d], retset=True)
        cs["cols"] = 2
        CALLS.append(cs)
for fn, t in [("json_object_keys", J), ("jsonb_object_keys", JB)]:
    for d in ['{"b":1,"a":2,"b":3}', "{}", "[1]", "1", "null"]:
        CALLS.append(c(fn, [t], [d], retset=True))
for fn, t in [("json_array_elements", J), ("json_array_elements_text", J), ("jsonb_array_elements", JB),
              ("jsonb_array_elements_text", JB)]:
    for d in ['[1, "a\"b", null, [2,  3], {"x" : 1}, true, 1.50]', "[]", "{}", "1", '"s"']:
        CALLS.append(c(fn, [t], [d], retset=True))

AGGS = []
for agg in ["json_agg", "jsonb_agg"]:
    for t, vals in [(I4, ["1", None, "3"]), (I4, []), (T, ["a", "b\"c"]), (J, ['{"a": 1}', "[1,2]"]),
                    (JB, ['{"b":1,"a":2}', "null"]), ("_int4", ["{1,2}", "{3}", None]),
                    ("record(int4,text)", [["1", "a"], ["2", "b"]]), ("numeric", ["1.50", "NaN"]),
                    ("date", ["2024-01-01"]), (B, ["t", None])]:
        AGGS.append({"agg": agg, "type": t, "values": vals})
for agg in ["json_object_agg", "jsonb_object_agg"]:
    for t, vals, t2, vals2 in [(T, ["a", "b"], I4, ["1", None]), (T, [None], I4, ["1"]), (I4, ["1", "2"], T, ["x", "y"]),
                               ("_int4", ["{1}"], T, ["x"]), (T, ["b", "a", "b"], I4, ["1", "2", "3"]), (T, [], I4, []),
                               (T, ["k"], JB, ['{"z":[1,2]}']), (B, ["t"], "_int4", ["{1,2}"])]:
        AGGS.append({"agg": agg, "type": t, "values": vals, "type2": t2, "values2": vals2})

out = os.path.join(os.path.dirname(__file__), "..", "json_call_cases.h")
with open(out, "w") as f:
    f.write(header("json_call_cases.h"))
    f.write('#include "exp_case.h"\n\nstatic const exp_call json_call_cases[] = {\n')
    for cs in CALLS:
        f.write(call_row(cs, run_call(cs)) + "\n")
    f.write("};\n\nstatic const exp_agg json_agg_cases[] = {\n")
    for a in AGGS:
        f.write(agg_row(a, run_agg(a)) + "\n")
    f.write("};\n")
print(len(CALLS), "cases")
