#!/usr/bin/python3
"""num_cases.py — builds types/test/num_cases.inc, the expected results of
the numeric area's table-driven test (num_cases_test.c), by running every
case through a real PostgreSQL 15 (pgref).

Cases come from num_cases.txt (hand-written, one per line, '|'-separated)
plus seeded random ones generated below:
    in|TYPE|TEXT                  text input then output ('TEXT'::TYPE)
    call|FUNC|TYPE|VAL|TYPE|VAL   FUNC('VAL'::TYPE, ...) by pg_proc name
    cast|SRC|VAL|DST              'VAL'::SRC::DST (DST may carry a typmod)
    agg|AGG|TYPE|V1;V2;...        AGG over the values (NULL for a null input)
    agg2|AGG|TYPE|Y1,X1;Y2,X2;... a two-argument aggregate over (Y, X) pairs
    send|TYPE|VAL                 hex of the binary send format (and recv must read it back)
    srf|FUNC|TYPE|VAL|...         the rows of a set-returning function, ';'-joined
    set|extra_float_digits|N      session setting for the following cases
For each case the expected output text, or the SQLSTATE, message and
detail of the error, is recorded.

Run: python3 types/test/gen/num_cases.py [port]
"""
import os
import random
import struct
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from num_cases_base import (agg_cases, base_cases, float_math_cases, numeric_cases,  # noqa: E402
                            numeric_math_cases, reg_cases, send_cases, srf_cases, in_range_cases, regr_cases)

HERE = os.path.dirname(os.path.abspath(__file__))
OUT = os.path.join(HERE, "..", "num_cases.inc")
PORT = sys.argv[1] if len(sys.argv) > 1 else "55432"

EV = r"""
create function pg_temp.ev(q text) returns text language plpgsql as $f$
declare t text; v text; st text; msg text; det text;
begin
  execute q into t, v;
  if t = 'boolean' then v := case v when 'true' then 't' when 'false' then 'f' end; end if;
  return encode(convert_to('ok' || chr(31) || coalesce(v, '<NULL>'), 'UTF8'), 'hex');
exception when others then
  get stacked diagnostics st = returned_sqlstate, msg = message_text, det = pg_exception_detail;
  return encode(convert_to('err' || chr(31) || st || chr(31) || msg || chr(31) || coalesce(det, ''), 'UTF8'),
                'hex');
end $f$;
"""


def lit(v):
    return "'" + v.replace("'", "''") + "'"


def sql_of(case):
    kind = case[0]
    if kind == "in":
        expr = "%s::%s" % (lit(case[2]), case[1])
    elif kind == "call":
        args = ", ".join("%s::%s" % (lit(case[i + 1]), case[i]) for i in range(2, len(case), 2))
        expr = "%s(%s)" % (case[1], args)
    elif kind == "cast":
        expr = "%s::%s::%s" % (lit(case[2]), case[1], case[3])
    elif kind == "send":
        fn = {"bool": "boolsend", "int2": "int2send", "int4": "int4send", "int8": "int8send",
              "float4": "float4send", "float8": "float8send", "numeric": "numeric_send", "oid": "oidsend",
              "xid": "xidsend", "cid": "cidsend"}[case[1]]
        expr = "encode(%s(%s::%s), 'hex')" % (fn, lit(case[2]), case[1])
    elif kind == "srf":
        args = ", ".join("%s::%s" % (lit(case[i + 1]), case[i]) for i in range(2, len(case), 2))
        return ("select pg_typeof(x)::text, x::text from (select string_agg(v::text, ';') as x from %s(%s) v) s"
                % (case[1], args))
    elif kind == "agg2":
        pairs = [v.split(",") for v in case[3].split(";")] if case[3] else []
        rows = ", ".join("(%s)" % ", ".join("NULL" if x == "NULL" else lit(x) for x in p) for p in pairs)
        where = "" if pairs else " where false"
        rows = rows or "(NULL, NULL)"
        return ("select pg_typeof(x)::text, x::text from (select %s(y::%s, z::%s) as x from (values %s) t(y, z)%s) s"
                % (case[1], case[2], case[2], rows, where))
    elif kind == "agg":
        vals = case[3].split(";") if case[3] else []
        rows = ", ".join("(%s)" % ("NULL" if v == "NULL" else lit(v)) for v in vals) or "(NULL)"
        where = "" if vals else " where false"
        return ("select pg_typeof(x)::text, x::text from (select %s(v::%s) as x from (values %s) t(v)%s) s"
                % (case[1], case[2], rows, where))
    else:
        raise ValueError(case)
    return "select pg_typeof(x)::text, x::text from (select %s as x) s" % expr


def random_cases():
    rnd = random.Random(15)
    cases = []
    # float output: shortest round-trip digits over the whole range
    for _ in range(1500):
        bits = rnd.getrandbits(64)
        d = struct.unpack("<d", struct.pack("<Q", bits))[0]
        if d != d or d in (float("inf"), float("-inf")):
            continue
        cases.append(["in", "float8", repr(d)])
    for _ in range(200):
        cases.append(["in", "float8", "%.*g" % (rnd.randint(1, 17), rnd.uniform(-1, 1) * 10 ** rnd.randint(-30, 30))])
    for _ in range(600):
        bits = rnd.getrandbits(32)
        f = struct.unpack("<f", struct.pack("<I", bits))[0]
        if f != f or f in (float("inf"), float("-inf")):
            continue
        cases.append(["in", "float4", repr(f)])
    # powers of two have an asymmetric rounding interval
    for e in range(-1074, 1024, 7):
        cases.append(["in", "float8", repr(2.0 ** e)])
    for e in range(-149, 128, 3):
        cases.append(["in", "float4", "%.9g" % (2.0 ** e)])

    def rnum():
        ip = str(rnd.randint(0, 10 ** rnd.randint(0, 25)))
        fp = "".join(rnd.choice("0123456789") for _ in range(rnd.randint(0, 20)))
        s = ("-" if rnd.random() < 0.3 else "") + ip + ("." + fp if fp else "")
        return s
    for fn in ["numeric_add", "numeric_sub", "numeric_mul", "numeric_div", "numeric_mod", "div"]:
        for _ in range(120):
            cases.append(["call", fn, "numeric", rnum(), "numeric", rnum()])
    for _ in range(100):
        cases.append(["call", "numeric_div", "numeric", rnum(), "numeric", "0." + "0" * rnd.randint(0, 30) + str(rnd.randint(1, 999))])
    for _ in range(100):
        cases.append(["call", "round", "numeric", rnum(), "int4", str(rnd.randint(-10, 25))])
        cases.append(["call", "trunc", "numeric", rnum(), "int4", str(rnd.randint(-10, 25))])
    for _ in range(80):
        p = rnd.randint(1, 30)
        s = rnd.randint(-5, p + 3)
        cases.append(["cast", "numeric", rnum(), "numeric(%d,%d)" % (p, s)])
    return cases


def main():
    cases = base_cases() + numeric_cases() + float_math_cases() + numeric_math_cases() + agg_cases() + send_cases() + reg_cases() + srf_cases() + in_range_cases() + regr_cases()
    with open(os.path.join(HERE, "num_cases.txt")) as f:
        for line in f:
            line = line.rstrip("\n")
            if not line or line.startswith("#"):
                continue
            cases.append(line.split("|"))
    cases += random_cases()
    script = [EV, "set extra_float_digits = 1;"]
    for c in cases:
        if c[0] == "set":
            script.append("set %s = %s;" % (c[1], c[2]))
            script.append("select encode(convert_to('ok' || chr(31) || 'set', 'UTF8'), 'hex');")
        else:
            script.append("select pg_temp.ev(%s);" % lit(sql_of(c)))
    res = subprocess.run(["psql", "-X", "-q", "-h", "127.0.0.1", "-p", PORT, "-U", "postgres", "-d", "postgres",
                          "-At", "-v", "ON_ERROR_STOP=1"], input="\n".join(script) + "\n", capture_output=True,
                         text=True, check=True).stdout
    rows = res.split("\n")
    rows = [bytes.fromhex(r).decode() for r in rows if r]
    assert len(rows) == len(cases), (len(rows), len(cases))

    def cs(s):
        out = '"'
        for ch in s:
            if ch in '"\\':
                out += "\\" + ch
            elif ord(ch) < 32 or ord(ch) == 127:
                out += '\\%03o' % ord(ch)
            else:
                out += ch
        return out + '"'
    out = ["/* num_cases.inc — GENERATED by types/test/gen/num_cases.py from PostgreSQL 15; do not edit. */"]
    for c, r in zip(cases, rows):
        f = r.split("\x1f")
        fields = ", ".join(cs(x) for x in c)
        if f[0] == "ok":
            out.append("{{%s}, %d, %s, NULL, NULL, NULL}," % (fields, len(c), cs(f[1])))
        else:
            out.append("{{%s}, %d, NULL, %s, %s, %s}," % (fields, len(c), cs(f[1]), cs(f[2]), cs(f[3])))
    with open(OUT, "w") as fo:
        fo.write("\n".join(out) + "\n")
    print("%d cases" % len(cases))


if __name__ == "__main__":
    main()
