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


def float_math_cases():
    L = []
    A = L.append
    vals = ["0", "-0", "0.5", "-0.5", "1", "-1", "2", "-2.5", "2.5", "3.5", "10", "100", "1e300", "-1e300", "1e-310",
            "NaN", "Infinity", "-Infinity", "0.7", "30", "45", "60", "90", "180", "270", "360", "-90", "1e20", "710",
            "-750", "0.1"]
    for f in ["round", "ceil", "floor", "trunc", "sign", "sqrt", "cbrt", "exp", "ln", "log", "log10", "acos", "asin",
              "atan", "cos", "sin", "tan", "cot", "acosd", "asind", "atand", "cosd", "sind", "tand", "cotd", "sinh",
              "cosh", "tanh", "asinh", "acosh", "atanh", "degrees", "radians", "abs", "dsqrt", "dcbrt", "dexp", "dlog1",
              "dlog10", "dround", "dtrunc"]:
        for v in vals:
            A(["call", f, "float8", v])
    for a in ["0", "-0", "1", "-1", "2", "-2", "0.5", "10", "-8", "NaN", "Infinity", "-Infinity", "1e300", "1e-300"]:
        for b in ["0", "1", "-1", "2", "0.5", "-0.5", "3", "NaN", "Infinity", "-Infinity", "1000", "-1000", "1e20"]:
            A(["call", "power", "float8", a, "float8", b])
    for a, b in [("1", "1"), ("1", "-1"), ("-1", "-1"), ("0", "0"), ("0", "-1"), ("NaN", "1"), ("1", "Infinity"),
                 ("Infinity", "Infinity"), ("-1", "0"), ("1e300", "1e-300")]:
        A(["call", "atan2", "float8", a, "float8", b])
        A(["call", "atan2d", "float8", a, "float8", b])
    for args in [("5.35", "0.024", "10.06", "5"), ("-1", "0", "10", "5"), ("10", "0", "10", "5"), ("5", "10", "0", "3"),
                 ("0", "10", "0", "3"), ("10", "10", "0", "3"), ("-1", "10", "0", "3"), ("5", "0", "10", "0"),
                 ("NaN", "0", "10", "3"), ("5", "0", "Infinity", "3"), ("Infinity", "0", "10", "3"),
                 ("5", "1", "1", "3"), ("10", "0", "10", "2147483647"), ("1e308", "-1e308", "1.5e308", "10"),
                 ("9.99999999999", "0", "10", "5"), ("-Infinity", "10", "0", "3")]:
        A(["call", "width_bucket", "float8", args[0], "float8", args[1], "float8", args[2], "int4", args[3]])
    A(["call", "pi"])
    for s in ["0.5", "-1", "1", "0", "1.5", "NaN", "-0.25"]:
        A(["call", "setseed", "float8", s])
        A(["call", "random"])
        A(["call", "random"])
    return L


def numeric_math_cases():
    import random
    rnd = random.Random(42)
    L = []
    A = L.append
    vals = ["0", "1", "2", "0.5", "10", "100", "1e-10", "1e10", "123.456", "0.999", "1.001", "1.0000001",
            "0.9999999", "2.718281828459045", "1e100", "1e-100", "-1", "-0.5", "NaN", "Infinity", "-Infinity",
            "0.00", "4.0000", "1e-1000", "12345678901234567890.12345", "0.1", "0.01", "7", "1e300", "1e-300"]
    for f in ["sqrt", "exp", "ln", "log", "log10"]:
        for v in vals:
            A(["call", f, "numeric", v])
    for v in ["-5000", "-6000", "5000", "6000", "-1000", "1000", "-0.001", "0.0001", "50.5", "-50.5", "300", "-300"]:
        A(["call", "exp", "numeric", v])
    for _ in range(60):
        v = "%.*f" % (rnd.randint(0, 30), rnd.uniform(0, 10 ** rnd.randint(-5, 30)))
        A(["call", "sqrt", "numeric", v])
        A(["call", "ln", "numeric", v])
        A(["call", "log10", "numeric", v])
        A(["call", "exp", "numeric", "%.*f" % (rnd.randint(0, 20), rnd.uniform(-200, 200))])
    bases = ["0", "1", "-1", "2", "-2", "0.5", "10", "1.5", "-1.5", "3.7", "0.001", "1e20", "NaN", "Infinity",
             "-Infinity", "9.99", "1.000001", "2.00"]
    exps = ["0", "1", "-1", "2", "-2", "3", "-3", "0.5", "-0.5", "10", "100", "-100", "1.5", "2.5", "NaN",
            "Infinity", "-Infinity", "1000", "0.0", "3.000", "1e5", "2147483648", "-2147483649", "0.333"]
    for b in bases:
        for e in exps:
            A(["call", "power", "numeric", b, "numeric", e])
    for _ in range(60):
        b = "%.*f" % (rnd.randint(0, 10), rnd.uniform(0, 100))
        e = "%.*f" % (rnd.randint(0, 6), rnd.uniform(-20, 20))
        A(["call", "power", "numeric", b, "numeric", e])
        A(["call", "power", "numeric", b, "numeric", str(rnd.randint(-40, 40))])
    for b, x in [("2", "8"), ("10", "1000"), ("2", "1024.0"), ("1", "10"), ("0", "10"), ("10", "0"), ("-2", "8"),
                 ("2", "-8"), ("Infinity", "Infinity"), ("Infinity", "10"), ("10", "Infinity"), ("NaN", "2"),
                 ("0.5", "0.25"), ("3", "100"), ("1.5", "2.25"), ("-Infinity", "2")]:
        A(["call", "log", "numeric", b, "numeric", x])
    for args in [("5.35", "0.024", "10.06", "5"), ("-1", "0", "10", "5"), ("10", "0", "10", "5"),
                 ("5", "10", "0", "3"), ("0", "10", "0", "3"), ("10", "10", "0", "3"), ("5", "0", "10", "0"),
                 ("NaN", "0", "10", "3"), ("5", "0", "Infinity", "3"), ("Infinity", "0", "10", "3"),
                 ("-Infinity", "0", "10", "3"), ("5", "1", "1", "3"), ("10", "0", "10", "2147483647"),
                 ("9.99999999999999999999", "0", "10", "5"), ("0.5", "0", "1.000", "7")]:
        A(["call", "width_bucket", "numeric", args[0], "numeric", args[1], "numeric", args[2], "int4", args[3]])
    return L


def agg_cases():
    import random
    rnd = random.Random(7)
    L = []
    A = L.append
    sets = {
        "int2": ["1;2;3;4", "", "NULL", "5;NULL;7", "32767;32767;32767", "-32768;1", "7", "-5;5;0;3"],
        "int4": ["1;2;3;4", "", "NULL;NULL", "5;NULL;7", "2147483647;2147483647", "-3;-3;-3", "7", "10;20"],
        "int8": ["1;2;3;4", "", "NULL", "9223372036854775807;9223372036854775807", "-9223372036854775808;-1",
                 "7", "3037000499;3037000500;-3037000499"],
        "float4": ["1.5;2.5", "", "NULL", "3e38;3e38", "NaN;1", "Infinity;1", "Infinity;-Infinity", "0.1;0.2;0.3",
                   "7"],
        "float8": ["1.5;2.5", "", "NULL", "1e308;1e308", "NaN;1", "Infinity;1", "Infinity;-Infinity",
                   "0.1;0.2;0.3", "7", "1e-300;1e-300;1e-300", "Infinity"],
        "numeric": ["1.5;2.25", "", "NULL", "NaN;1", "Infinity;1", "Infinity;-Infinity", "-Infinity;5",
                    "0.1;0.2;0.3", "7", "1.000;2", "99999999999999999999.99;0.01", "1e-20;1", "-1.5;1.5",
                    "123456789012345678901234567890;1", "Infinity", "NaN"],
    }
    for t in ["int2", "int4", "int8", "float4", "float8", "numeric"]:
        vals = list(sets[t])
        for _ in range(6):
            n = rnd.randint(1, 12)
            if t in ("int2", "int4", "int8"):
                lim = {"int2": 30000, "int4": 2000000000, "int8": 9 * 10 ** 18}[t] // max(n, 1)
                vals.append(";".join(str(rnd.randint(-lim, lim)) for _ in range(n)))
            elif t == "numeric":
                vals.append(";".join("%.*f" % (rnd.randint(0, 6), rnd.uniform(-1e6, 1e6)) for _ in range(n)))
            else:
                vals.append(";".join(repr(rnd.uniform(-1e6, 1e6)) for _ in range(n)))
        for v in vals:
            for a in ["sum", "avg", "variance", "var_samp", "var_pop", "stddev", "stddev_samp", "stddev_pop"]:
                A(["agg", a, t, v])
            if t in ("int2", "int4", "int8"):
                for a in ["bit_and", "bit_or", "bit_xor"]:
                    A(["agg", a, t, v])
    for v in ["t;t", "t;f", "f;f", "", "NULL", "t;NULL", "f;NULL;t"]:
        for a in ["bool_and", "bool_or", "every"]:
            A(["agg", a, "bool", v])
    return L


def send_cases():
    L = []
    vals = {
        "bool": ["t", "f"],
        "int2": ["0", "-1", "32767", "-32768", "258"],
        "int4": ["0", "-1", "2147483647", "-2147483648", "16909060"],
        "int8": ["0", "-1", "9223372036854775807", "-9223372036854775808", "72623859790382856"],
        "float4": ["0", "-0", "1.5", "-3.25e-20", "NaN", "Infinity", "-Infinity", "1e-45"],
        "float8": ["0", "-0", "1.5", "-3.25e-200", "NaN", "Infinity", "-Infinity", "5e-324", "0.1"],
        "numeric": ["0", "0.00", "1", "-1", "1.5", "12345.678", "-0.000123", "1e100", "NaN", "Infinity",
                    "-Infinity", "123456789012345678901234567890.1234567890", "10000", "0.0001", "9999.9999",
                    "1e-100", "100.000"],
        "oid": ["0", "4294967295", "12345"],
        "xid": ["0", "4294967295"],
        "cid": ["7"],
    }
    for t, vs in vals.items():
        for v in vs:
            L.append(["send", t, v])
    return L


def reg_cases():
    L = []
    for t in ["regclass", "regtype", "regproc", "regprocedure", "regoper", "regoperator", "regnamespace", "regrole",
              "regcollation", "regconfig", "regdictionary"]:
        for v in ["-", "0", "99999", "4294967295", "nosuch_object_x"]:
            if v == "-" and t in ("regoper", "regoperator"):
                continue  # an operator name: the resolver's business
            L.append(["in", t, v])
        L.append(["cast", "int4", "99999", t])
        L.append(["cast", t, "99999", "int8"])
        L.append(["cast", t, "99999", "oid"])
    return L


def srf_cases():
    L = []
    for t in ["int4", "int8", "numeric"]:
        for a, b in [("1", "5"), ("5", "1"), ("3", "3"), ("-2", "2")]:
            L.append(["srf", "generate_series", t, a, t, b])
        for a, b, c in [("1", "10", "3"), ("10", "1", "-3"), ("1", "10", "-1"), ("1", "3", "0"), ("0", "0", "5")]:
            L.append(["srf", "generate_series", t, a, t, b, t, c])
    L.append(["srf", "generate_series", "int4", "2147483645", "int4", "2147483647"])
    L.append(["srf", "generate_series", "int4", "2147483640", "int4", "2147483647", "int4", "5"])
    L.append(["srf", "generate_series", "int4", "-2147483640", "int4", "-2147483648", "int4", "-5"])
    L.append(["srf", "generate_series", "int8", "9223372036854775805", "int8", "9223372036854775807"])
    for a, b, c in [("1.5", "3.0", "0.25"), ("0", "1", "0.3"), ("1", "NaN", "1"), ("NaN", "1", "1"),
                    ("1", "2", "NaN"), ("1", "Infinity", "1"), ("-Infinity", "1", "1"), ("1", "2", "Infinity"),
                    ("1", "2", "0.000"), ("3", "1.00", "-0.5")]:
        L.append(["srf", "generate_series", "numeric", a, "numeric", b, "numeric", c])
    return L


def in_range_cases():
    L = []
    pairs = [("int2", "int2"), ("int2", "int4"), ("int2", "int8"), ("int4", "int2"), ("int4", "int4"),
             ("int4", "int8"), ("int8", "int8"), ("float8", "float8"), ("float4", "float8"), ("numeric", "numeric")]
    for vt, ot in pairs:
        vals = [("5", "3", "2"), ("6", "3", "2"), ("1", "3", "2"), ("0", "3", "2"), ("3", "3", "0"),
                ("5", "3", "-1"), ("32767", "32767", "1"), ("-32768", "-32768", "1"),
                ("32767", "32760", "32767")]
        if vt in ("int4", "int8"):
            vals += [("2147483647", "2147483647", "2147483647"), ("-2147483648", "-2147483648", "2147483647")]
        if vt in ("float8", "float4", "numeric"):
            vals += [("NaN", "1", "1"), ("1", "NaN", "1"), ("NaN", "NaN", "1"), ("1", "1", "NaN"),
                     ("Infinity", "1", "1"), ("1", "Infinity", "1"), ("-Infinity", "1", "1"),
                     ("1", "-Infinity", "1"), ("1", "1", "Infinity"), ("1", "Infinity", "Infinity"),
                     ("1", "-Infinity", "Infinity"), ("Infinity", "Infinity", "Infinity"),
                     ("-Infinity", "-Infinity", "1"), ("1", "1", "-Infinity"), ("1.5", "1.25", "0.25")]
        for v, b, o in vals:
            for sub in ("t", "f"):
                for less in ("t", "f"):
                    L.append(["call", "in_range", vt, v, vt, b, ot, o, "bool", sub, "bool", less])
    return L


def regr_cases():
    import random
    rnd = random.Random(11)
    L = []
    sets = ["1,2;2,4;3,7", "", "NULL,1;2,NULL", "1,1", "1,1;1,2", "1,1;2,1", "5,5;5,5", "1,2;NaN,3",
            "Infinity,1;2,3", "1e308,1e308;-1e308,1e308", "1,Infinity;2,3", "3,1;2,2;1,3;0,4"]
    for _ in range(6):
        n = rnd.randint(1, 10)
        sets.append(";".join("%r,%r" % (rnd.uniform(-100, 100), rnd.uniform(-100, 100)) for _ in range(n)))
    for v in sets:
        for a in ["corr", "covar_pop", "covar_samp", "regr_avgx", "regr_avgy", "regr_count", "regr_intercept",
                  "regr_r2", "regr_slope", "regr_sxx", "regr_sxy", "regr_syy"]:
            L.append(["agg2", a, "float8", v])
    for v in ["0", "1", "255", "-1", "2147483647", "-2147483648"]:
        L.append(["call", "to_hex", "int4", v])
        L.append(["call", "to_hex", "int8", v])
    L.append(["call", "to_hex", "int8", "-9223372036854775808"])
    return L
