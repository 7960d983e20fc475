"""num_cases_base.py — systematic cases for num_cases.py: every type's input
edge cases, each operator family over its boundary values, casts, float
output settings and numeric functions (see num_cases.py for the format)."""

LIM = {"int2": (-32768, 32767), "int4": (-2147483648, 2147483647),
       "int8": (-9223372036854775808, 9223372036854775807)}


def base_cases():
    L = []
    A = L.append
    # bool
    for s in ["t", "true", "TRUE", " tRuE ", "tr", "yes", "y", "on", "1", "f", "false", "no", "n", "off", "of", "0", "o",
              "x", "", "  ", "1.5", "truex", "onn", "-1", "2", "yes please", "\ttrue\n"]:
        A(["in", "bool", s])
    for f, a, b in [("booleq", "t", "f"), ("boolne", "t", "f"), ("boollt", "f", "t"), ("boolge", "f", "t"),
                    ("btboolcmp", "t", "f"), ("booland_statefunc", "t", "f"), ("boolor_statefunc", "t", "f")]:
        A(["call", f, "bool", a, "bool", b])
    A(["call", "text", "bool", "t"])
    A(["call", "text", "bool", "f"])
    for c in [("bool", "t", "int4"), ("int4", "-5", "bool"), ("int4", "0", "bool"), ("bool", "yes", "text"),
              ("text", " on ", "bool"), ("text", "nope", "bool")]:
        A(["cast", c[0], c[1], c[2]])
    # integer input
    for t in ["int2", "int4", "int8"]:
        for s in ["0", "-0", "+0", " 12 ", "\t-7\n", "12a", "1 2", "", "  ", "+", "-", "--1", "+-1", "0x10", "1e3",
                  "1.0", "007", "32767", "32768", "-32768", "-32769", "2147483647", "2147483648", "-2147483648",
                  "-2147483649", "9223372036854775807", "9223372036854775808", "-9223372036854775808",
                  "-9223372036854775809", "99999999999999999999999", " 99999999999999999999 x"]:
            A(["in", t, s])
    # integer arithmetic, every pg_operator pair
    pairs = [("int2", "int2", "int2"), ("int4", "int4", "int4"), ("int8", "int8", "int8"), ("int24", "int2", "int4"),
             ("int42", "int4", "int2"), ("int28", "int2", "int8"), ("int82", "int8", "int2"), ("int48", "int4", "int8"),
             ("int84", "int8", "int4")]
    for p, l, r in pairs:
        lo, hi = LIM[l]
        rlo, rhi = LIM[r]
        vals = [(hi, 1), (lo, -1), (lo, 1), (7, -2), (-7, 2), (0, 0), (hi, rhi), (lo, rlo), (100, 7), (-100, 7)]
        for op in ["pl", "mi", "mul", "div"]:
            for a, b in vals:
                A(["call", p + op, l, str(a), r, str(b)])
        for op in ["eq", "ne", "lt", "le", "gt", "ge"]:
            A(["call", p + op, l, "5", r, "7"])
            A(["call", p + op, l, "7", r, "7"])
        cmpf = "bt%scmp" % p if p not in ("int2", "int4", "int8") else "bt%scmp" % p
        A(["call", cmpf, l, "5", r, "7"])
    for t in ["int2", "int4", "int8"]:
        lo, hi = LIM[t]
        for a, b in [(7, 3), (-7, 3), (7, -3), (lo, -1), (5, 0), (0, 5)]:
            A(["call", t + "mod", t, str(a), t, str(b)])
        for a in [lo, hi, -5, 0]:
            for op in ["um", "abs", "not", "up"]:
                A(["call", t + op, t, str(a)])
        for a, b in [(12, 10), (-12, 10)]:
            for op in ["and", "or", "xor", "larger", "smaller"]:
                A(["call", t + op, t, str(a), t, str(b)])
        for a, b in [(1, 3), (1, 15), (1, 31), (1, 33), (1, 63), (1, 65), (-8, 1), (-1, 40), (1, -1), (5, 0)]:
            A(["call", t + "shl", t, str(a), "int4", str(b)])
            A(["call", t + "shr", t, str(a), "int4", str(b)])
    for t in ["int4", "int8"]:
        lo, hi = LIM[t]
        for a, b in [(12, 18), (-12, 18), (0, 0), (0, -7), (lo, 0), (lo, lo), (lo, -1), (lo, 6), (hi, 2), (lo, 1)]:
            A(["call", "gcd", t, str(a), t, str(b)])
            A(["call", "lcm", t, str(a), t, str(b)])
    A(["call", "int8inc", "int8", "9223372036854775807"])
    A(["call", "int8dec", "int8", "-9223372036854775808"])
    A(["call", "int4inc", "int4", "5"])
    # integer casts
    for src, v, dst in [("int4", "32767", "int2"), ("int4", "32768", "int2"), ("int8", "-32769", "int2"),
                        ("int8", "2147483648", "int4"), ("int8", "-2147483648", "int4"), ("int2", "-5", "int8"),
                        ("int2", "-5", "int4"), ("int4", "7", "int8"), ("int8", "9007199254740993", "float8"),
                        ("int8", "16777217", "float4"), ("int4", "123456789", "float4"), ("int2", "-3", "float8"),
                        ("int4", "-1", "oid"), ("int8", "4294967295", "oid"), ("int8", "4294967296", "oid"),
                        ("int8", "-1", "oid"), ("oid", "4294967295", "int8"), ("oid", "4294967295", "int4"),
                        ("int4", "-2147483648", "numeric"), ("int8", "-9223372036854775808", "numeric"),
                        ("int2", "12", "numeric")]:
        A(["cast", src, v, dst])
    for t in ["int2", "int4", "int8"]:
        for v in ["2.5", "3.5", "-2.5", "-0.5", "0.49999999999999994", "1e10", "-1e19", "9.2233720368547758e18",
                  "-9.2233720368547758e18", "32767.5", "-32768.5", "NaN", "Infinity", "-Infinity", "2147483647.5",
                  "-2147483648.5", "-2147483648.4"]:
            A(["cast", "float8", v, t])
            A(["cast", "float4", v, t])
            A(["cast", "numeric", v, t])
    # oid family
    for s in ["0", "4294967295", "4294967296", "-1", "-2147483648", "-2147483649", "-4294967295", " 12 ", "+5", "",
              "  ", "abc", "12 x", "0x10", "1e3"]:
        A(["in", "oid", s])
    for s in ["4294967295", "-1", "abc", "0x10", "99999999999", "12"]:
        A(["in", "xid", s])
        A(["in", "cid", s])
    for c in [("oideq", "oid", "4294967295", "oid", "-1"), ("oidlt", "oid", "1", "oid", "4294967295"),
              ("btoidcmp", "oid", "4294967295", "oid", "1"), ("oidlarger", "oid", "4294967295", "oid", "1"),
              ("oidsmaller", "oid", "4294967295", "oid", "1"), ("xideq", "xid", "5", "xid", "5"),
              ("xideqint4", "xid", "5", "int4", "5"), ("xidneq", "xid", "5", "xid", "6"),
              ("cideq", "cid", "5", "cid", "5")]:
        A(["call"] + list(c))
    # float input and output
    fl = ["0", "-0", "1", "-1.5", " 1.5 ", "1e10", "1.5e-07", "NaN", "nan", "NAN", "Infinity", "-Infinity",
          "+Infinity", "inf", "-inf", "+inf", "infinity", "-INF", "  inf  ", "infinityx", "nan(12)", "nanx", "0x10",
          "0x1p-3", "1e400", "-1e400", "1e-400", "1e40", "1e-40", "1e-46", "1e-50", "3.4028235e38", "3.4028236e38",
          "1.17549435e-38", "1.4e-45", "1e", "1e+", "e5", "1.5.5", "", "  ", ".5", "5.", "-.5e-3", "1_000", "1,5",
          "abc", "1e308", "1.7976931348623157e308", "1.7976931348623159e308", "2.2250738585072014e-308", "4.9e-324",
          "2.4e-324", "123456789012345678", "0.1", "0.3", "100", "1e15", "1e16", "123456789012345", "1234567",
          "123456", "0.0001", "0.00001", " 1e400 "]
    for t in ["float4", "float8"]:
        for s in fl:
            A(["in", t, s])
    for efd, vals in [("0", ["0.1", "1e100", "123456789.123", "-0", "1.5e-07", "3.14159265358979", "NaN",
                             "-Infinity", "1e15", "1e16", "0.0001", "0.00001"]),
                      ("3", ["0.1", "1e100", "123456789.123", "3.14159265358979"]),
                      ("-15", ["0.1", "123456789.123", "3.14159265358979"]),
                      ("-4", ["0.1", "123456789.123", "3.14159265358979"])]:
        A(["set", "extra_float_digits", efd])
        for t in ["float4", "float8"]:
            for s in vals:
                A(["in", t, s])
    A(["set", "extra_float_digits", "1"])
    # float arithmetic
    for p, l, r in [("float8", "float8", "float8"), ("float4", "float4", "float4"), ("float48", "float4", "float8"),
                    ("float84", "float8", "float4")]:
        for a, b in [("1.5", "2.25"), ("1e308", "1e308"), ("-1e308", "1e308"), ("3e38", "3e38"), ("1e-300", "1e-300"),
                     ("1e-40", "1e-10"), ("Infinity", "-Infinity"), ("Infinity", "Infinity"), ("NaN", "0"), ("5", "0"),
                     ("0", "0"), ("-0", "5"), ("Infinity", "0"), ("1", "Infinity"), ("1e300", "1e-300"),
                     ("1e-300", "1e300"), ("0.1", "0.2"), ("NaN", "NaN"), ("-5", "NaN"), ("1e-30", "1e-30")]:
            for op in ["pl", "mi", "mul", "div"]:
                A(["call", p + op, l, a, r, b])
        for a, b in [("NaN", "NaN"), ("NaN", "1"), ("1", "NaN"), ("-0", "0"), ("Infinity", "NaN"), ("1", "2")]:
            for op in ["eq", "ne", "lt", "le", "gt", "ge"]:
                A(["call", p + op, l, a, r, b])
        A(["call", "bt%scmp" % p, l, "NaN", r, "1"])
    for t in ["float4", "float8"]:
        for a in ["-1.5", "NaN", "-Infinity", "-0"]:
            A(["call", t + "um", t, a])
            A(["call", t + "abs", t, a])
        A(["call", t + "larger", t, "NaN", t, "1"])
        A(["call", t + "smaller", t, "NaN", t, "1"])
    for v in ["1e300", "-1e300", "1e-300", "3.4028235e38", "0.1", "NaN", "-Infinity", "1e-45", "1.5"]:
        A(["cast", "float8", v, "float4"])
    A(["cast", "float4", "0.1", "float8"])
    return L


def numeric_cases():
    L = []
    A = L.append
    for s in ["0", "-0", "-0.00", "0.000", "1", "-1", "1.0", "1.00", "  12.5  ", ".5", "5.", "-.5", "+.5", "1e5", "1E-5",
              "1.5e+3", "1e 5", "1e", "1e+", "e5", ".", "-", "+", "", "  ", "1.2.3", "1..2", "12a", "1 2", "0x10",
              "NaN", "nan", " NaN ", "Infinity", "-Infinity", "+Infinity", "inf", "-inf", "+inf", "infinity", "-INF",
              "Infinityx", "NaNa", "0.0000000000000000000001", "123456789012345678901234567890.123456789",
              "-99999999999999999999.99999999999999999999", "1e100", "1e-100", "1e1000", "1e-1000", "1e100000",
              "1e131071", "1e131072", "1e-16383", "1e-16384", "1e-20000", "9999.9999", "10000", "0.0001", "0.00010",
              "1e2147483647", "1e-2147483648", "00012.3400", "1_000", "1,5"]:
        A(["in", "numeric", s])
    for t, s in [("numeric(5,2)", "123.456"), ("numeric(5,2)", "999.995"), ("numeric(5,2)", "999.994"),
                 ("numeric(5,2)", "-999.995"), ("numeric(5,2)", "1234.5"), ("numeric(3,1)", "inf"),
                 ("numeric(3,1)", "NaN"), ("numeric(3,1)", "-Infinity"), ("numeric(12,2)", "12345678901.2"),
                 ("numeric(12,2)", "1234567890.125"), ("numeric(1,0)", "9.5"), ("numeric(1,0)", "-9.4"),
                 ("numeric(2,2)", "0.999"), ("numeric(2,2)", "0.994"), ("numeric(1,-1)", "0.5"),
                 ("numeric(3,-1)", "123"), ("numeric(3,-2)", "99950"), ("numeric(3,-2)", "99949"),
                 ("numeric(3,5)", "0.001234"), ("numeric(3,5)", "0.0123"), ("numeric(10,0)", "0.5"),
                 ("numeric(1000,500)", "1.5"), ("numeric(4,4)", "0"), ("numeric(4,4)", "-0.00001")]:
        A(["in", t, s])
    vals = ["0", "1", "-1", "0.5", "-2.5", "1.5", "123.456", "-0.001", "NaN", "Infinity", "-Infinity", "1e20",
            "0.000001", "99999999999999999999", "3"]
    for f in ["numeric_add", "numeric_sub", "numeric_mul", "numeric_div", "numeric_mod", "div", "numeric_cmp",
              "numeric_eq", "numeric_lt", "numeric_larger", "numeric_smaller", "gcd", "lcm"]:
        for a in vals:
            for b in ["0", "-2.5", "NaN", "Infinity", "-Infinity", "3", "0.001"]:
                A(["call", f, "numeric", a, "numeric", b])
    one = ["0", "1", "-1", "0.5", "-0.5", "1.5", "-1.5", "2.5", "-2.5", "123.456", "-0.001", "NaN", "Infinity",
           "-Infinity", "1e20", "0.000001", "9999.9999", "-9999.5", "0.00", "1.000", "-123.4500", "1e-20"]
    for f in ["abs", "sign", "round", "trunc", "ceil", "ceiling", "floor", "numeric_uminus", "numeric_uplus", "scale",
              "min_scale", "trim_scale", "numeric_inc"]:
        for a in one:
            A(["call", f, "numeric", a])
    for a in ["123.456", "-123.456", "9999.5", "-0.5", "0.5", "NaN", "-Infinity", "5.5555"]:
        for s in ["-5", "-3", "-2", "-1", "0", "1", "2", "3", "10", "-2147483648", "2147483647"]:
            A(["call", "round", "numeric", a, "int4", s])
            A(["call", "trunc", "numeric", a, "int4", s])
    for n in ["-1", "0", "1", "2", "5", "20", "21", "50", "100", "32177", "32178"]:
        A(["call", "factorial", "int8", n])
    for v in ["0.1", "1e300", "-1e-300", "123456789.123456789", "NaN", "Infinity", "-Infinity", "1.5e-7", "-0",
              "1e15", "0.30000000000000004"]:
        A(["cast", "float8", v, "numeric"])
        A(["cast", "float4", v, "numeric"])
    for v in ["0.1", "1e400", "1e-400", "123456789.123456789", "NaN", "-Infinity", "1e39", "1e-46", "-1.5"]:
        A(["cast", "numeric", v, "float8"])
        A(["cast", "numeric", v, "float4"])
    for v, t in [("123.456", "numeric(5,2)"), ("1234.5", "numeric(5,2)"), ("Infinity", "numeric(5,2)"),
                 ("NaN", "numeric(5,2)"), ("1.5", "numeric(1,0)"), ("-0.5", "numeric(2,1)")]:
        A(["cast", "numeric", v, t])
    for v, t in [("123.456", "numeric(5,2)"), ("99999.5", "numeric(5,0)"), ("1e10", "numeric(10,0)")]:
        A(["cast", "float8", v, t])
        A(["cast", "int8", v.split(".")[0] if "e" not in v else "10000000000", t])
    return L
