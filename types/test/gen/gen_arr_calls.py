#!/usr/bin/python3
"""gen_arr_calls.py — expectations for array functions, operators, set-returning
functions and array_agg. Writes types/test/arr_call_cases.h. Run with a
reference server up (/work/shared/tools/pgref start):
    /usr/bin/python3 types/test/gen/gen_arr_calls.py
"""
import os
import sys

sys.path.insert(0, os.path.dirname(__file__))
from pgexp import run, run_expr, dq, cstr, run_call, call_row, run_agg, agg_row, header  # noqa: E402

I4A, TA, I4, T, I8, B = "_int4", "_text", "int4", "text", "int8", "bool"


def c(fn, types, args, sql=None, retset=False):
    return {"fn": fn, "types": types, "args": args, "sql": sql, "retset": retset}


def op(fn, sym, t1, t2, a, b):
    return c(fn, [t1, t2], [a, b], sql="{0} %s {1}" % sym)


CALLS = []
for fn, sym in [("array_eq", "="), ("array_ne", "<>"), ("array_lt", "<"), ("array_gt", ">"), ("array_le", "<="),
                ("array_ge", ">=")]:
    for a, b in [("{1,2}", "{1,2}"), ("{1,2}", "{1,3}"), ("{1}", "{1,2}"), ("[0:1]={1,2}", "{1,2}"),
                 ("{NULL}", "{1}"), ("{NULL}", "{NULL}"), ("{}", "{}"), ("{{1,2}}", "{1,2}")]:
        CALLS.append(op(fn, sym, I4A, I4A, a, b))
for a, b in [("{1,2}", "{2,1}"), ("{1,2}", "{1,3}"), ("{}", "{5}")]:
    CALLS.append(c("btarraycmp", [I4A, I4A], [a, b]))
    CALLS.append(c("array_larger", [I4A, I4A], [a, b]))
    CALLS.append(c("array_smaller", [I4A, I4A], [a, b]))
for fn, sym in [("arraycontains", "@>"), ("arraycontained", "<@"), ("arrayoverlap", "&&")]:
    for a, b in [("{1,2,3}", "{2,3}"), ("{1,2,3}", "{4}"), ("{1,2}", "{}"), ("{}", "{1}"), ("{}", "{}"),
                 ("{1,NULL}", "{NULL}"), ("{1,NULL}", "{1}"), ("{{1,2},{3,4}}", "{4,1}"), ("{1,1,1}", "{1}"),
                 ("{NULL}", "{NULL}"), ("{2}", "{1,2,NULL}")]:
        CALLS.append(op(fn, sym, I4A, I4A, a, b))
    CALLS.append(op(fn, sym, TA, TA, "{a,b}", "{b}"))
for a in ["{1,2,3}", "{{1,2},{3,4}}", "[0:2]={1,2,3}", "{}", "[-5:-3][2:3]={{1,2},{3,4},{5,6}}"]:
    for d in ["1", "2", "0", "3", None]:
        for fn in ["array_length", "array_lower", "array_upper"]:
            CALLS.append(c(fn, [I4A, I4], [a, d]))
    for fn in ["array_ndims", "array_dims", "cardinality"]:
        CALLS.append(c(fn, [I4A], [a]))
for a, e in [("{1,2}", "3"), ("{}", "3"), (None, "3"), ("{1}", None), (None, None), ("[3:4]={1,2}", "0"),
             ("{{1}}", "0"), ("[2147483646:2147483647]={1,2}", "3")]:
    CALLS.append(c("array_append", [I4A, I4], [a, e]))
    CALLS.append(op("array_append", "||", I4A, I4, a, e))
for e, a in [("3", "{1,2}"), ("3", "{}"), ("3", None), (None, "{1}"), ("0", "[3:4]={1,2}"), ("0", "{{1}}"),
             ("0", "[-2147483648:-2147483647]={1,2}")]:
    CALLS.append(c("array_prepend", [I4, I4A], [e, a]))
    CALLS.append(op("array_prepend", "||", I4, I4A, e, a))
for a, b in [("{1,2}", "{3}"), ("{}", "{3}"), ("{1}", "{}"), (None, "{3}"), ("{1}", None), (None, None),
             ("{1}", "{{1}}"), ("{{1,2}}", "{1}"), ("{{1}}", "{{{1}}}"), ("[3:4]={1,2}", "[7:7]={3}"),
             ("{1}", "{{{1}}}"), ("{{1,2}}", "{{3,4},{5,6}}"), ("{{1,2}}", "{{3}}"), ("{{1,2}}", "{3,4}"),
             ("{3,4}", "{{1,2}}"), ("[0:1][2:3]={{1,2},{3,4}}", "{{5,6}}"), ("{}", "{}")]:
    CALLS.append(c("array_cat", [I4A, I4A], [a, b]))
    CALLS.append(op("array_cat", "||", I4A, I4A, a, b))
CALLS.append(op("array_cat", "||", TA, TA, "{a}", "{b,c}"))
CALLS.append(op("array_append", "||", TA, T, "{a}", "b c"))
for a, e in [("{1,2,1}", "1"), ("{1,2,1}", "5"), ("[0:2]={1,NULL,1}", None), ("{}", "1"), (None, "1"),
             ("{{1}}", "1"), ("{1,NULL}", "1")]:
    CALLS.append(c("array_position", [I4A, I4], [a, e]))
    CALLS.append(c("array_positions", [I4A, I4], [a, e]))
for a, e, s in [("{1,2,1}", "1", "2"), ("{1,2,1}", "1", "4"), ("{1,2,1}", "1", None), ("{1,2,1}", "1", "-5"),
                ("[5:7]={1,2,1}", "1", "6")]:
    CALLS.append(c("array_position", [I4A, I4, I4], [a, e, s]))
CALLS.append(c("array_position", [TA, T], ["{a,b,c}", "c"]))
for a, e in [("{1,2,1,3}", "1"), ("[0:3]={1,2,1,3}", "1"), ("[0:1]={1,1}", "1"), ("{1,NULL,2}", None),
             ("{1,2}", "5"), ("{}", "1"), (None, "1"), ("{{1}}", "1"), ("{{2}}", "1")]:
    CALLS.append(c("array_remove", [I4A, I4], [a, e]))
for a, e, r in [("{1,2,1}", "1", "9"), ("[0:2]={1,2,1}", "1", None), ("{{1,2},{1,3}}", "1", "0"),
                ("{NULL,1}", None, "7"), ("{}", "1", "2"), (None, "1", "2")]:
    CALLS.append(c("array_replace", [I4A, I4, I4], [a, e, r]))
for a, d in [("{1,NULL,3}", ","), ("{}", ","), ("{{1,2},{3,4}}", "-"), (None, ","), ("{1}", None), ("{1,2}", "")]:
    CALLS.append(c("array_to_string", [I4A, T], [a, d]))
    CALLS.append(c("array_to_string", [I4A, T, T], [a, d, "*"]))
    CALLS.append(c("array_to_string", [I4A, T, T], [a, d, None]))
CALLS.append(c("array_to_string", [TA, T], ["{\"a b\",\"\",NULL,\"c,d\"}", ", "]))
for s, d in [("a,b,,c", ","), ("abc", None), ("", ","), ("a,b,,c", ""), ("a,b", None), (None, ","),
             ("日本,語", ","), ("日本語", None), ("a--b--", "--"), ("--", "--"), ("aXbXc", "X")]:
    CALLS.append(c("string_to_array", [T, T], [s, d]))
    CALLS.append(c("string_to_array", [T, T, T], [s, d, ""]))
    CALLS.append(c("string_to_array", [T, T, T], [s, d, "b"]))
    CALLS.append(c("string_to_table", [T, T], [s, d], retset=True))
    CALLS.append(c("string_to_table", [T, T, T], [s, d, "b"], retset=True))
for v, d in [("7", "{2,2}"), ("7", "{3}"), (None, "{2}"), ("7", "{}"), ("7", "{0}"), ("7", "{-1}"), ("7", "{{1}}"),
             ("7", "{NULL}"), ("7", None), ("7", "{1,1,1,1,1,1,1}")]:
    CALLS.append(c("array_fill", [I4, I4A], [v, d]))
for v, d, l in [("7", "{2,2}", "{0,5}"), ("7", "{2}", "{1,2}"), ("7", "{2}", None), ("7", "{2}", "{2147483647}"),
                ("7", "{2}", "{{1}}"), ("7", "{2}", "{NULL}"), ("x", "{2}", "{-3}")]:
    CALLS.append(c("array_fill", [T if v == "x" else I4, I4A, I4A], [v, d, l]))
for a, n in [("{1,2,3}", "1"), ("{1,2,3}", "3"), ("{1,2,3}", "4"), ("{1,2,3}", "-1"), ("{}", "0"), ("{}", "1"),
             ("{{1,2},{3,4}}", "1"), ("[5:7]={1,2,3}", "1"), ("[2:3][4:5]={{1,2},{3,4}}", "1"), ("{1}", None)]:
    CALLS.append(c("trim_array", [I4A, I4], [a, n]))
for a in ["{1,2,3}", "{}", "{{1,NULL},{3,4}}", "[0:1]={5,6}", None]:
    CALLS.append(c("unnest", [I4A], [a], retset=True))
CALLS.append(c("unnest", [TA], ["{a,\"b c\",NULL}"], retset=True))
for a, d in [("{1,2,3}", "1"), ("[3:5]={1,2,3}", "1"), ("{{1,2},{3,4},{5,6}}", "2"), ("{}", "1"), ("{1}", "2"),
             ("{1}", "0")]:
    CALLS.append(c("generate_subscripts", [I4A, I4], [a, d], retset=True))
    CALLS.append(c("generate_subscripts", [I4A, I4, B], [a, d, "t"], retset=True))
for a, b in [("1", "5"), ("5", "1"), ("3", "3"), ("2147483645", "2147483647"), ("-2147483648", "-2147483646")]:
    CALLS.append(c("generate_series", [I4, I4], [a, b], retset=True))
    CALLS.append(c("generate_series", [I8, I8], [a, b], retset=True))
for a, b, s in [("1", "10", "3"), ("10", "1", "-4"), ("1", "10", "0"), ("1", "10", "-1"), ("2147483600", "2147483647", "20"),
                ("-2147483600", "-2147483648", "-20"), ("9223372036854775800", "9223372036854775807", "5")]:
    if int(a) < 2**31 and int(b) < 2**31:
        CALLS.append(c("generate_series", [I4, I4, I4], [a, b, s], retset=True))
    CALLS.append(c("generate_series", [I8, I8, I8], [a, b, s], retset=True))

N = "numeric"
for a, b, st in [("1", "3", None), ("1", "3", "0.5"), ("1.0", "2", "0.25"), ("3", "1", "-1.5"), ("1", "3", "0"),
                 ("NaN", "3", "1"), ("1", "NaN", "1"), ("1", "3", "NaN"), ("1", "Infinity", "1"),
                 ("-Infinity", "1", "1"), ("1", "3", "Infinity"), ("0.1", "0.35", "0.1"), ("5", "1", "1")]:
    if st is None:
        CALLS.append(c("generate_series", [N, N], [a, b], retset=True))
    else:
        CALLS.append(c("generate_series", [N, N, N], [a, b, st], retset=True))
CALLS.append(c("unnest", ["_numeric"], ["{1.50,NULL,NaN}"], retset=True))
CALLS.append(c("array_position", ["_numeric", N], ["{1.50,2}", "1.5"]))
CALLS.append(op("arraycontains", "@>", "_numeric", "_numeric", "{1.50,2}", "{2.000}"))
CALLS.append(op("array_eq", "=", "_numeric", "_numeric", "{1.50}", "{1.5}"))
CALLS.append(op("array_eq", "=", "_float8", "_float8", "{NaN}", "{NaN}"))
CALLS.append(op("array_lt", "<", "_float8", "_float8", "{1}", "{NaN}"))
CALLS.append(c("array_to_string", ["_float8", T], ["{1.5,0.1,NaN}", ";"]))
CALLS.append(c("array_to_string", ["_date", T], ["{2024-01-31,infinity}", ";"]))

AGGS = [
    {"agg": "array_agg", "type": I4, "values": ["1", "2", None, "4"]},
    {"agg": "array_agg", "type": I4, "values": []},
    {"agg": "array_agg", "type": I4, "values": [None]},
    {"agg": "array_agg", "type": T, "values": ["a", "b c", ""]},
    {"agg": "array_agg", "type": I4A, "values": ["{1,2}", "{3,4}"]},
    {"agg": "array_agg", "type": I4A, "values": ["{1,2}", "{3}"]},
    {"agg": "array_agg", "type": I4A, "values": ["{1,2}", None]},
    {"agg": "array_agg", "type": I4A, "values": ["{1,2}", "{}"]},
    {"agg": "array_agg", "type": I4A, "values": ["[0:1]={1,2}", "[0:1]={3,NULL}"]},
    {"agg": "array_agg", "type": I4A, "values": ["{{1}}", "{{2}}", "{{3}}"]},
    {"agg": "array_agg", "type": I4A, "values": ["{{{{{{1}}}}}}"]},
    {"agg": "array_agg", "type": I4A, "values": ["{1}", "[2:2]={2}"]},
    {"agg": "array_agg", "type": I4A, "values": []},
]

# ---- subscripting: (array, kind, [(lo, hi)...], value)
SUBS = []
A1, A2, A0 = "[0:3]={1,2,3,4}", "[2:3][0:2]={{1,2,3},{4,5,6}}", "{}"
for a in [A1, A2, "{1,NULL,3}", A0, None]:
    for subs in [[0], [2], [3], [9], [-1], [2, 1], [3, 0], [3, 2], [1, 1], [2, 5]]:
        SUBS.append((a, "g", [(s, None) for s in subs], None))
    for subs in [[(1, 2)], [(None, 1)], [(2, None)], [(None, None)], [(5, 9)], [(3, 1)], [(2, 3), (1, 2)],
                 [(3, 3), (None, 0)], [(-5, 99)], [(1, 1), (1, 1), (1, 1)]]:
        SUBS.append((a, "s", subs, None))
    for subs, v in [([1], "9"), ([5], "9"), ([-2], "7"), ([4], None), ([2, 1], "8"), ([3, 5], "8"),
                    ([2, 0], None), ([1, 1, 1], "5"), ([0], "0")]:
        SUBS.append((a, "a", [(s, None) for s in subs], v))


def sub_sql(a, kind, subs, v):
    lit = "NULL::int4[]" if a is None else "%s::int4[]" % dq(a)
    if kind == "g":
        return run_expr("(%s)%s" % (lit, "".join("[%d]" % lo for lo, _ in subs)))
    if kind == "s":
        def b(x):
            return "" if x is None else str(x)
        return run_expr("(%s)%s" % (lit, "".join("[%s:%s]" % (b(lo), b(hi)) for lo, hi in subs)))
    r = run("create temp table t(a int4[]); insert into t values (%s); update t set a%s = %s; "
            "select case when a is null then null else encode(convert_to(format('%%s', a), 'UTF8'), 'hex') "
            "end from t" % (lit, "".join("[%d]" % lo for lo, _ in subs), "NULL" if v is None else v))
    if not r["err"]:
        last = r["out"].split("\n")[-1] if r["out"] else ""
        r["isnull"] = last == "\x01NULL\x01"
        r["out"] = None if r["isnull"] else bytes.fromhex(last).decode()
    return r


def sub_row(a, kind, subs, v, r):
    n = len(subs)
    lo = ", ".join(str(x if x is not None else 0) for x, _ in subs) or "0"
    hi = ", ".join(str(y if y is not None else 0) for _, y in subs) or "0"
    hlo = ", ".join("true" if x is not None else "false" for x, _ in subs) or "false"
    hhi = ", ".join("true" if y is not None else "false" for _, y in subs) or "false"
    head = "\t{%s, '%s', %d, {%s}, {%s}, {%s}, {%s}, %s, " % (cstr(a), kind, n, lo, hi, hlo, hhi, cstr(v))
    if r["err"]:
        return head + "false, NULL, %s, %s}," % (cstr(r["err"]["sqlstate"]), cstr(r["err"]["message"]))
    return head + "%s, %s, NULL, NULL}," % ("true" if r["isnull"] else "false", cstr(r["out"]))


out = os.path.join(os.path.dirname(__file__), "..", "arr_call_cases.h")
with open(out, "w") as f:
    f.write(header("arr_call_cases.h"))
    f.write('#include "exp_case.h"\n\nstatic const exp_call arr_call_cases[] = {\n')
    for cs in CALLS:
        f.write(call_row(cs, run_call(cs)) + "\n")
    f.write("};\n\nstatic const exp_agg arr_agg_cases[] = {\n")
    for a in AGGS:
        f.write(agg_row(a, run_agg(a)) + "\n")
    f.write("};\n\nstatic const exp_sub arr_sub_cases[] = {\n")
    for a, kind, subs, v in SUBS:
        f.write(sub_row(a, kind, subs, v, sub_sql(a, kind, subs, v)) + "\n")
    f.write("};\n")
