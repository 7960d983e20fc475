"""str_cases.py — the cases str_gen.py runs through PostgreSQL 15.

Each case: kind 'f' (function call), 'o' (operator), 'c' (explicit cast to
the type named in `name`), 'i' (input of a literal of type `name`); args are
(type, literal) pairs, literal None = NULL. Options: collate=True (COLLATE
"C" on the first collatable argument), srf=True (set-returning: rows joined
with newlines), settings={'bytea_output': 'escape'}.
"""

CASES = []


def F(name, *args, **kw):
    CASES.append(dict(kind="f", name=name, args=list(args), **kw))


def O(op, *args, **kw):
    CASES.append(dict(kind="o", name=op, args=list(args), **kw))


def CAST(target, typ, val):
    CASES.append(dict(kind="c", name=target, args=[(typ, val)]))


def IN(typ, val, **kw):
    CASES.append(dict(kind="i", name=typ, args=[(typ, val)], **kw))


def t(v):
    return ("text", v)


def i4(v):
    return ("int4", str(v))


# ---------------------------------------------------------------- character types: I/O, typmods, casts

for v in ["", "abc", "  pad  ", "héllo wörld", "日本語", "\U0001F600x", "tab\there"]:
    IN("text", v)
    IN("varchar", v)
    IN("bpchar", v)
    IN("name", v)
    IN("char", v)
IN("name", "x" * 70)
IN("name", "é" * 40)
IN("name", "a" + "é" * 40)
IN("char", "\\101")
IN("char", "\\377")
IN("char", "\\1")
IN("char", "\\400")
IN("char", "é")

for target in ["varchar(3)", "character varying(5)", "char(3)", "character(5)", "bpchar", "varchar", "name",
               '"char"', "text"]:
    for v in ["ab", "abc", "abcdef", "ab   ", "abc   ", "a  b ", "é日本語x", "日本語   "]:
        CAST(target, "text", v)
for target in ["text", "varchar(2)", "char(5)", "name", '"char"']:
    for v in ["ab", "ab   ", "  ", ""]:
        CAST(target, "bpchar", v)
        CAST(target, "varchar", v)
        CAST(target, "name", v)
for v in ["a", "\\101", "\\377", ""]:
    for target in ["text", "bpchar", "varchar", "int4", "char(3)"]:
        if v or target != "char(3)":  # PostgreSQL pads a NUL byte there
            CAST(target, "char", v)
for v in ["65", "-1", "127", "-128", "128", "-129", "0"]:
    CAST('"char"', "int4", v)

# Assignment (implicit) length coercion: the length functions with isExplicit = false.
for v in ["ab", "abc", "abcd", "abc  ", "ab d", "日本語x", "日本語  ", "é"]:
    F("varchar", ("varchar", v), i4(3 + 4), ("bool", "false"))
    F("varchar", ("varchar", v), i4(3 + 4), ("bool", "true"))
    F("varchar", ("varchar", v), i4(-1), ("bool", "false"))
    F("bpchar", ("bpchar", v), i4(3 + 4), ("bool", "false"))
    F("bpchar", ("bpchar", v), i4(3 + 4), ("bool", "true"))
    F("bpchar", ("bpchar", v), i4(1 + 4), ("bool", "false"))

# ---------------------------------------------------------------- comparisons

pairs = [("abc", "abd"), ("abc", "abc"), ("abc", "ab"), ("", "a"), ("a ", "a"), ("a", "a  "), ("Z", "a"),
         ("é", "z"), ("日", "é"), ("a\u00e9", "a\u00e9b"), ("", "")]
for a, b in pairs:
    for op in ["=", "<>", "<", "<=", ">", ">="]:
        O(op, t(a), t(b), collate=True)
        O(op, ("bpchar", a), ("bpchar", b), collate=True)
        O(op, ("name", a), ("name", b), collate=True)
        O(op, ("name", a), t(b), collate=True)
        O(op, t(a), ("name", b), collate=True)
        O(op, ("bytea", a), ("bytea", b))
    for op in ["~<~", "~<=~", "~>=~", "~>~"]:
        O(op, t(a), t(b))
        O(op, ("bpchar", a), ("bpchar", b))
    for f in ["bttextcmp", "text_larger", "text_smaller"]:
        F(f, t(a), t(b), collate=True)
    for f in ["bpcharcmp", "bpchar_larger", "bpchar_smaller"]:
        F(f, ("bpchar", a), ("bpchar", b), collate=True)
    F("btnamecmp", ("name", a), ("name", b), collate=True)
    F("byteacmp", ("bytea", a), ("bytea", b))
for a, b in [("a", "b"), ("\\377", "a"), ("\\200", "\\177"), ("x", "x")]:
    for op in ["=", "<>", "<", "<=", ">", ">="]:
        O(op, ("char", a), ("char", b))
    F("btcharcmp", ("char", a), ("char", b))

# ---------------------------------------------------------------- concatenation

O("||", t("abc"), t("def"))
O("||", t(""), t("x"))
O("||", t("ab"), ("int4", "12"))
O("||", ("int4", "-7"), t("ab"))
O("||", t("ab"), ("bpchar", "x  "))
O("||", ("bpchar", "x  "), t("ab"))
O("||", t("ab"), ("bool", "true"))
O("||", ("bytea", "\\x0102"), ("bytea", "\\xff"))
O("||", ("bytea", ""), ("bytea", "abc"))

# ---------------------------------------------------------------- LIKE

like_cases = [
    ("abc", "abc"), ("abc", "a%"), ("abc", "%c"), ("abc", "%b%"), ("abc", "_b_"), ("abc", "__"), ("abc", "___"),
    ("abc", "a_c%"), ("abc", "%"), ("", "%"), ("", "_"), ("", ""), ("abc", ""), ("a%c", "a\\%c"),
    ("abc", "a\\%c"), ("a_c", "a\\_c"), ("abc", "a\\_c"), ("a\\c", "a\\\\c"), ("ab", "ab\\"), ("abc", "ab\\"),
    ("b", "a\\"), ("abcabc", "%abc"), ("abcabd", "%abc%"), ("aaa", "%a%a%a%"), ("aa", "%a%a%a%"),
    ("日本語", "日_語"), ("日本語", "___"), ("日本語", "__"), ("日本語", "%語"), ("é", "_"), ("xé", "%é"),
    ("ABC", "abc"), ("ABC", "a%"), ("aBc", "A_C"), ("Ab", "%B"), ("ÉA", "éa"), ("mississippi", "%iss%ipp%"),
    ("mississippi", "m%s%s%s%"), ("mississippi", "%s_s%"), ("abc", "%%%"), ("abc", "%_%_%_%_%"),
    ("abc", "\\a\\b\\c"), ("abc", "a%\\"), ("abcd", "%\\d"), ("xyz", "%\\"), ("abc", "%_\\"),
]
for s, p in like_cases:
    for op in ["~~", "!~~", "~~*", "!~~*"]:
        O(op, t(s), t(p), collate=True)
    O("~~", ("bpchar", s), t(p))
    O("~~", ("name", s), t(p))
    O("~~*", ("name", s), t(p), collate=True)
for s, p in [("abc", "abc"), ("a\\001b", "a_b"), ("\\377\\376", "__"), ("\\377\\376", "_"), ("日", "___"),
             ("abc", "%c"), ("abc", "a\\\\%")]:
    O("~~", ("bytea", s), ("bytea", p))
    O("!~~", ("bytea", s), ("bytea", p))
O("~~", ("bpchar", "ab   "), t("ab"))
O("~~", ("bpchar", "ab   "), t("ab%"))
for p, e in [("a%b", "#"), ("a#%b", "#"), ("a\\b#_c", "#"), ("a##b", "#"), ("a#\\b", "#"), ("abc", ""),
             ("a\\b%", ""), ("a%", "\\"), ("a%", "ab"), ("a%", "é"), ("aéé%", "é"), ("x", "日本")]:
    F("like_escape", t(p), t(e))
    F("like_escape", ("bytea", p), ("bytea", e))

# ---------------------------------------------------------------- bytea

for v in ["", "abc", "\\x", "\\x00ff10", "\\xDEADbeef", "\\x 01 02", "\\x0 1", "\\x012", "\\xzz", "\\xé1",
          "\\x01\n02\t03 ", "a\\\\b", "\\001\\377", "\\400", "ab\\", "\\x\\x", "é", "\\X01", "tab\there"]:
    IN("bytea", v)
    IN("bytea", v, settings={"bytea_output": "escape"})
IN("bytea", "\\x00015c7f1f207e80ff", settings={"bytea_output": "escape"})

bv = [("bytea", "\\x"), ("bytea", "\\x01020304"), ("bytea", "\\xff00ff")]
for b in bv:
    F("length", b)
    F("octet_length", b)
    F("bit_length", b)
    F("md5", b)
    F("sha224", b)
    F("sha256", b)
    F("sha384", b)
    F("sha512", b)
    for fmt in ["hex", "base64", "escape", "HEX", "bogus"]:
        F("encode", b, t(fmt))
    for n in [-1, 0, 1, 2, 3, 4]:
        F("get_byte", b, i4(n))
        F("set_byte", b, i4(n), i4(65))
    for n in [-1, 0, 7, 8, 23, 24, 31, 32]:
        F("get_bit", b, ("int8", str(n)))
        F("set_bit", b, ("int8", str(n)), i4(1))
        F("set_bit", b, ("int8", str(n)), i4(0))
    F("set_bit", b, ("int8", "0"), i4(2))
    for s in [-2, 0, 1, 2, 3, 5]:
        F("substring", b, i4(s))
        F("substr", b, i4(s))
        for n in [-1, 0, 1, 2, 3, 2147483647]:
            F("substring", b, i4(s), i4(n))
    for pat in ["\\x", "\\x02", "\\x0304", "\\xff", "\\x05", "\\x0102030405"]:
        F("position", b, ("bytea", pat))
        F("btrim", b, ("bytea", pat))
        F("ltrim", b, ("bytea", pat))
        F("rtrim", b, ("bytea", pat))
        for sp in [-1, 0, 1, 2, 5]:
            F("overlay", b, ("bytea", pat), i4(sp))
            for sl in [-1, 0, 1, 3]:
                F("overlay", b, ("bytea", pat), i4(sp), i4(sl))
long = "\\x" + "".join("%02x" % (i % 256) for i in range(200))
for n in [56, 57, 58, 114, 200]:
    F("encode", ("bytea", "\\x" + long[2:2 + 2 * n]), t("base64"))
F("encode", ("bytea", "\\x5c00"), t("escape"))
for v in ["", "YQ==", "YWI=", "YWJj", "YW Jj\n", "YQ", "YQ=", "Y===", "=", "YQ==YQ==", "YWJ$", "YQé=", "YQ=x",
          "YWJjZA=="]:
    F("decode", t(v), t("base64"))
for v in ["", "0a0B", "0 a", " 0a ", "0a0", "zz", "éa"]:
    F("decode", t(v), t("hex"))
for v in ["abc", "a\\\\b", "\\001\\377", "ab\\", "\\400", "\\09"]:
    F("decode", t(v), t("escape"))
F("decode", t("00"), t("nope"))
