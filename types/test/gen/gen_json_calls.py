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

out = os.path.join(os.path.dirname(__file__), "..", "json_call_cases.h")
with open(out, "w") as f:
    f.write(header("json_call_cases.h"))
    f.write('#include "exp_case.h"\n\nstatic const exp_call json_call_cases[] = {\n')
    for cs in CALLS:
        f.write(call_row(cs, run_call(cs)) + "\n")
    f.write("};\n")
print(len(CALLS), "cases")
