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

# ---------------------------------------------------------------- uuid

for v in ["a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11", "A0EEBC99-9C0B-4EF8-BB6D-6BB9BD380A11",
          "{a0eebc99-9c0b4ef8-bb6d6bb9bd380a11}", "a0eebc999c0b4ef8bb6d6bb9bd380a11",
          "a0ee-bc99-9c0b-4ef8-bb6d-6bb9-bd38-0a11", "{a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11",
          "a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a1", "a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a111", "a0eebc99--9c0b",
          "-a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11", "a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11-", "g0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11",
          "", "{}", "a0e-ebc99-9c0b-4ef8-bb6d-6bb9bd380a11", "00000000-0000-0000-0000-000000000000"]:
    IN("uuid", v)
u1, u2 = "a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11", "a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a1f"
for a, b in [(u1, u2), (u2, u1), (u1, u1), ("ffffffff-0000-0000-0000-000000000000", u1)]:
    for op in ["=", "<>", "<", "<=", ">", ">="]:
        O(op, ("uuid", a), ("uuid", b))
    F("uuid_cmp", ("uuid", a), ("uuid", b))
for target in ["text", "varchar(10)", "bpchar"]:
    CAST(target, "uuid", u1)
CAST("uuid", "text", u1)
CAST("uuid", "text", "nope")

# ---------------------------------------------------------------- string functions

words = ["", "hello World", "ÉCOLE école", "it's a 3rd-TEST_case", "  spaced  ", "日本語テキスト", "aBc\u00e9X",
         "don't STOP", "x1y2z3", "ß", "\u00c0\u00e0"]
for w in words:
    for f in ["lower", "upper", "initcap", "length", "char_length", "character_length", "octet_length",
              "bit_length", "reverse", "ascii", "md5", "btrim", "ltrim", "rtrim", "quote_ident", "quote_literal",
              "quote_nullable"]:
        F(f, t(w), collate=f in ("lower", "upper", "initcap"))
for w in ["", "ab", "ab   ", "日本  ", "   "]:
    for f in ["length", "char_length", "octet_length"]:
        F(f, ("bpchar", w))
F("quote_nullable", t(None))
for w in ["a\\b", "o'neil", "it's \\ ok", "", "x"]:
    F("quote_literal", t(w))
for w in ["select", "Select", "foo", "foo bar", "_x9", "9x", 'we"ird', "", "user", "name", "abs", "between",
          "é", "current_user", "varchar", "text", "a$b"]:
    F("quote_ident", t(w))

S = "héllo wörld"
for s in [-3, -1, 0, 1, 2, 5, 11, 12, 20]:
    F("substring", t(S), i4(s))
    F("substr", t(S), i4(s))
    for n in [-1, 0, 1, 3, 100, 2147483647]:
        F("substring", t(S), i4(s), i4(n))
        F("substr", t(S), i4(s), i4(n))
for needle in ["", "l", "lo", "wö", "ö", "xyz", S, S + "!"]:
    F("position", t(S), t(needle))
    F("strpos", t(S), t(needle))
    F("starts_with", t(S), t(needle))
    O("^@", t(S), t(needle))
for rep in ["", "XY", "日本"]:
    for sp in [-1, 0, 1, 2, 5, 11, 12, 15]:
        F("overlay", t(S), t(rep), i4(sp))
        for sl in [-2, 0, 1, 3, 20]:
            F("overlay", t(S), t(rep), i4(sp), i4(sl))
F("overlay", t(S), t("x"), i4(2147483647), i4(1))
for s, chars in [("xxhixx", "x"), ("xyhixy", "yx"), ("  hi  ", " "), ("日本hi本日", "日本"), ("aaa", "a"),
                 ("hello", ""), ("", "x"), ("éaé", "é"), ("abc", "cba")]:
    for f in ["btrim", "ltrim", "rtrim"]:
        F(f, t(s), t(chars))
for s, a, b in [("abcabc", "b", "XX"), ("abcabc", "", "X"), ("aaa", "aa", "b"), ("héllo", "é", "e"),
                ("abc", "abc", ""), ("", "a", "b"), ("abababa", "aba", "-"), ("x", "y", "z")]:
    F("replace", t(s), t(a), t(b))
for s, a, b in [("12345", "143", "ax"), ("héllo", "éo", "eO"), ("abc", "", "x"), ("abc", "abc", ""),
                ("aaa", "aa", "xy"), ("日本語", "本", "x"), ("abc", "a", "日")]:
    F("translate", t(s), t(a), t(b))
for s, d in [("abc~@~def~@~ghi", "~@~"), ("a,b,,c", ","), ("", ","), ("abc", ""), ("abc", "x"),
             (",a,", ","), ("日,本,語", ",")]:
    for n in [-5, -4, -3, -2, -1, 0, 1, 2, 3, 4, 5]:
        F("split_part", t(s), t(d), i4(n))
for n in [-20, -3, -1, 0, 1, 3, 20]:
    F("left", t(S), i4(n))
    F("right", t(S), i4(n))
for s in ["hi", "héllo", "", "toolongstring"]:
    for n in [-1, 0, 2, 5, 8]:
        F("lpad", t(s), i4(n))
        F("rpad", t(s), i4(n))
        for fill in ["xy", "", "日本", "é"]:
            F("lpad", t(s), i4(n), t(fill))
            F("rpad", t(s), i4(n), t(fill))
F("lpad", t("x"), i4(268435455), t("y"))
F("rpad", t("x"), i4(300000000))
for s in ["ab", "", "日"]:
    for n in [-1, 0, 1, 3]:
        F("repeat", t(s), i4(n))
F("repeat", t("abc"), i4(1000000000))
for c in [65, 0, -1, 233, 26085, 128512, 55296, 57343, 1114111, 1114112, 127]:
    F("chr", i4(c))
for v in [0, 1, 255, -1, 2147483647, -2147483648]:
    F("to_hex", i4(v))
for v in ["0", "255", "-1", "9223372036854775807", "-9223372036854775808"]:
    F("to_hex", ("int8", v))
for s, d in [("a,b,c", ","), ("a,,c", ","), ("", ","), ("abc", ""), ("abc", None), ("日本", None), ("a--b", "--")]:
    F("string_to_table", t(s), t(d), srf=True)
    F("string_to_table", t(s), t(d), t("b"), srf=True)
F("string_to_table", t(None), t(","), srf=True)

# concat / concat_ws / format (VARIADIC "any")
F("concat", t("a"), t(None), t("b"))
F("concat", t(None))
F("concat", ("bpchar", "x  "), t("|"))
F("concat", t("a"), ("int4", "42"), ("bool", "true"), ("bytea", "\\x01"), ("uuid", u1))
F("concat_ws", t(","), t("a"), t(None), t("b"), ("int4", "7"))
F("concat_ws", t(None), t("a"))
F("concat_ws", t(""), t("a"), t("b"))
F("concat_ws", t(","), t(None))
for fmt, args in [
        ("Hello %s", [t("World")]), ("%s %s", [t("a"), t("b")]), ("%%", []), ("%", []), ("abc%", []),
        ("%2$s %1$s", [t("a"), t("b")]), ("%1$s %s", [t("a"), t("b")]), ("%s", []), ("%3$s", [t("a")]),
        ("%0$s", [t("a")]), ("%I", [t("Foo bar")]), ("%I", [t("foo")]), ("%I", [t(None)]), ("%L", [t(None)]),
        ("%L", [t("O'Reilly")]), ("%L", [t("back\\slash")]), ("%s|", [t(None)]), ("|%10s|", [t("hi")]),
        ("|%-10s|", [t("hi")]), ("|%-10L|", [t("hi")]), ("|%*s|", [i4(6), t("x")]), ("|%*s|", [i4(-6), t("x")]),
        ("|%*2$s|", [t("x"), i4(5)]), ("|%1$*2$s|", [t("x"), i4(4)]), ("|%3s|", [t("日本語テ")]),
        ("|%5s|", [t("日本")]), ("%x", [t("a")]), ("%1$", [t("a")]), ("%*", [i4(1)]), ("%*1s", [i4(1)]),
        ("%-", []), ("%s %s", [t("a")]), ("%1$s%2$s%1$s", [t("a"), t("b")]), ("%--5s|", [t("a")]),
        ("%99999999999s", [t("a")]), ("%s", [("int4", "5")]), ("%L", [("int4", "5")]), ("%I", [("int4", "5")]),
        ("%é", [t("a")]), ("%*s", [t(None), t("x")]), ("x", [t("unused")]), ("%s", [("bpchar", "ab  ")]),
        ("%*s", [t("4"), t("x")]), ("%*s", [t("z"), t("x")])]:
    F("format", t(fmt), *args)
F("format", t(None), t("a"))

# ---------------------------------------------------------------- regular expressions

# Match semantics: captures shown through regexp_replace with \1..\3.
sem = [
    ("abcd", "(a|ab)(c|bcd)(d*)"), ("aaa", "(a*)*"), ("b", "(a*)*"), ("aaa", "(a*)+"), ("ab", "(a|b)*"),
    ("XY1234Z", "Y*?([0-9]{1,3})"), ("XY1234Z", "Y*([0-9]{1,3})"), ("aaa", "(a*?)(a*)"), ("abcabc", "a.*?c"),
    ("abcabc", "a.*?c.*"), ("a@b@c", "(.*)@(.*)"), ("xabcx", "(a|ab)(bc|c)?"), ("aaa", "(a+)(a+)"),
    ("aaaa", "(a+?)(a+)"), ("aaaa", "(a{1,2}?)(a*)"), ("abab", "(ab)*?"), ("abab", "(ab)*?$"),
    ("foobar", "foo(bar)?"), ("foo", "foo(bar)?"), ("aa", "(a)|b"), ("b", "(a)|b"), ("abc", "(?:(a)|b)*c"),
    ("abba", "(a)(b)\\2\\1"), ("ABab", "(?i)(ab)\\1"), ("aaaa", "(a*)\\1"), ("abcabc", "(.+)\\1"),
    ("xyz", "(x)(y)?(q)?"), ("hello world", "(\\w+) (\\w+)"), ("2024-01-15", "(\\d+)-(\\d+)-(\\d+)"),
    ("aaa", "a|aa|aaa"), ("abc", "((a)(b))c"), ("abcabc", "(abc){2}"), ("ab", "((a)|b)+"),
    ("xaaay", "a{2}"), ("aaaa", "(a{2})*"), ("aaaaa", "(a{2})*"), ("foo.bar", "\\."), ("a+b", "a\\+b"),
    ("tab\there", "\\t"), ("Hello", "[[:upper:]][[:lower:]]+"), ("x1_y", "\\W"), ("a b", "\\s"),
    ("abc", "^abc$"), ("abc", "^b"), ("ab\ncd", "^cd"), ("ab\ncd", "b$"), ("word boundary", "\\mbou"),
    ("word boundary", "\\yboundary\\y"), ("wordboundary", "\\yboundary"), ("abc", "\\Yb\\Y"),
    ("price: $42", "\\$(\\d+)"), ("aXbXc", "X"), ("", "^$"), ("", "a*"), ("abc", ""), ("abc", "()"),
    ("abc", "x*"), ("foobar", "(?=bar)"), ("foobar", "foo(?=bar)"), ("foobaz", "foo(?!bar)"),
    ("xfoo", "(?<=x)foo"), ("yfoo", "(?<!x)foo"), ("ab12cd", "[a-c]+"), ("ab12cd", "[^a-c]+"),
    ("a]b", "[]]"), ("a-b", "[a\\-z]+"), ("a-b", "[-a]+"), ("café", "caf."), ("日本語", "本."),
    ("日本語", "[日本]+"), ("aBc", "(?i)abc"), ("ABC", "[a-c]+"), ("x{2}", "x{2"), ("a{,2}", "a{,2}"),
    ("ab", "a(?#comment)b"), ("a b", "(?x) a \\  b"), ("ab", "(?x) a # c\n b"), ("a.b", "***=a.b"),
    ("axb", "***=a.b"), ("a.b", "***:a.b"), ("aaa", "a{2,}"), ("aaa", "a{0}"), ("abcabcabc", "(abc)+?"),
    ("mississippi", "(ss)(i)"), ("mississippi", "s+i"), ("AbAb", "(?i)(ab)+"), ("ab\ncd", "(?n).+"),
    ("ab\ncd", "(?s).+"), ("ab\ncd", "(?p)^cd"), ("ab\ncd", "(?w)^cd"), ("ab\ncd", "(?w).+"),
    ("12ab", "\\d+(?=ab)"), ("foo123", "[[:alpha:]]+([[:digit:]]+)"), ("a\\b", "\\\\"), ("a|b", "\\|"),
    ("aaa", "(a)(?:a)(a)"), ("abcd", "(a(b(c)))d"), ("zzz", "(z)\\1*"), ("xyxyxy", "(xy)\\1+"),
    ("abab", "(a|b)\\1"), ("aa", "(a|b)\\1"), ("x", "\\x78"), ("A", "\\u0041"), ("\u00e9", "\\u00e9"),
    ("ab", "a\\B"), ("aAbB", "[[:lower:]]+"), ("aAbB", "(?i)[[:lower:]]+"), ("Ab", "(?i)[A-B]+"),
]
for s, p in sem:
    F("regexp_replace", t(s), t(p), t("[\\1|\\2|\\3]"), collate=True)
    O("~", t(s), t(p), collate=True)
    F("substring", t(s), t(p), collate=True)
for s, p in [("abc", "B"), ("ÉA", "éa"), ("ABC", "a.c"), ("x", "X")]:
    O("~*", t(s), t(p), collate=True)
    O("!~*", t(s), t(p), collate=True)
    O("!~", t(s), t(p), collate=True)
    O("~", ("name", s), t(p), collate=True)
    O("~*", ("bpchar", s), t(p), collate=True)

bad = ["(", ")", "a)", "[a", "[z-a]", "[[:foo:]]", "\\", "a\\", "\\q", "*a", "a**", "a{2", "a{256}", "a{3,2}",
       "(?z)", "a(?i)b", "^*", "$+", "\\1", "(a)\\2", "(a\\1)", "(?=a\\1)", "[a-\\d]", "[[.foo.]]", "a|*",
       "\\8", "***x", "(?:a", "a+?*", "(?", "(?<a)", "[[:alpha:]-z]", "a{1,2,3}", "a{1x}", "\\u12",
       "\\x", "\\cA", "((((((((((((((((((((a))))))))))))))))))))\\20", "a{2}{3}", "(a)(b)\\12", "[\\w-z]",
       "[a", "a[]", "(a{255}){255}{255}", "x\\", "\\U00110000", "(?i", "a\\Z+"]
for p in bad:
    O("~", t("aA.b"), t(p), collate=True)
for s, p in [("aA.b", "[\\D]"), ("aA.b", "[.space.]"), ("a b", "[[.space.]]"), ("aA.b", "[[=a=]]"),
             ("aA.b", "[^]a]"), ("x", "\\0"), ("A", "\\101"), ("a^b", "a\\^b"), ("a{b", "a\\{b"),
             ("a}b", "a}b"), ("a{b", "a{b"), ("word", "[[:<:]]w"), ("word", "d[[:>:]]")]:
    F("regexp_replace", t(s), t(p), t("<\\&>"), collate=True)

# regexp_replace forms
for s, p, r, fl in [("foobarbaz", "b..", "X", ""), ("foobarbaz", "b..", "X", "g"), ("fooBARbaz", "b..", "X", "gi"),
                    ("abc", "(b)", "\\1\\1", ""), ("abc", "b", "\\&\\&", ""), ("abc", "b", "\\\\", ""),
                    ("abc", "b", "\\x", ""), ("abc", "b", "end\\", ""), ("abc", "b", "\\9", ""),
                    ("aaa", "", "-", "g"), ("aaa", "x*", "-", "g"), ("abc", "b", "X", "z"),
                    ("abc", "b", "X", "1"), ("hello world", "(\\w+) (\\w+)", "\\2 \\1", ""),
                    ("a\nb\nc", "^", ">", "gn"), ("a.b.c", ".", "-", "gq"), ("AbAb", "ab", "x", "gc")]:
    F("regexp_replace", t(s), t(p), t(r), t(fl), collate=True)
F("regexp_replace", t("abcabc"), t("b"), t("X"))
for st in [-1, 0, 1, 3, 7, 100]:
    F("regexp_replace", t("abcabcabc"), t("b"), t("X"), i4(st))
    for n in [-1, 0, 1, 2, 5]:
        F("regexp_replace", t("abcabcabc"), t("b"), t("X"), i4(st), i4(n))
        F("regexp_replace", t("aBcabcABC"), t("b"), t("X"), i4(st), i4(n), t("i"))
F("regexp_replace", t("abcabc"), t("b"), t("X"), i4(1), i4(0), t("g"))

# count / instr / like / substr
for s, p in [("abcabcabc", "b"), ("abcabcabc", "(b)(c)"), ("aaa", "a*"), ("", "x*"), ("ABab", "a"),
             ("日本日本", "本")]:
    F("regexp_count", t(s), t(p))
    for st in [-1, 0, 1, 2, 5, 20]:
        F("regexp_count", t(s), t(p), i4(st))
    F("regexp_count", t(s), t(p), i4(1), t("i"))
    F("regexp_count", t(s), t(p), i4(1), t("g"))
    F("regexp_instr", t(s), t(p))
    F("regexp_instr", t(s), t(p), i4(2))
    for n in [0, 1, 2, 3, 5]:
        F("regexp_instr", t(s), t(p), i4(1), i4(n))
        for endo in [0, 1, 2]:
            F("regexp_instr", t(s), t(p), i4(1), i4(n), i4(endo))
    F("regexp_instr", t(s), t(p), i4(1), i4(1), i4(0), t("i"))
    F("regexp_instr", t(s), t(p), i4(1), i4(1), i4(0), t("g"))
    for sub in [-1, 0, 1, 2, 3]:
        F("regexp_instr", t(s), t(p), i4(1), i4(1), i4(0), t(""), i4(sub))
        F("regexp_instr", t(s), t(p), i4(1), i4(2), i4(1), t("i"), i4(sub))
        F("regexp_substr", t(s), t(p), i4(1), i4(1), t(""), i4(sub))
        F("regexp_substr", t(s), t(p), i4(2), i4(2), t("i"), i4(sub))
    F("regexp_like", t(s), t(p))
    F("regexp_like", t(s), t(p), t("i"))
    F("regexp_like", t(s), t(p), t("g"))
    F("regexp_substr", t(s), t(p))
    for st in [0, 1, 4]:
        F("regexp_substr", t(s), t(p), i4(st))
        F("regexp_substr", t(s), t(p), i4(st), i4(2))
        F("regexp_substr", t(s), t(p), i4(st), i4(0))
    F("regexp_substr", t(s), t(p), i4(1), i4(1), t("g"))

# splitting
for s, p, fl in [("the quick  brown fox", "\\s+", ""), ("abc", "", ""), ("a,b,,c", ",", ""), ("abc", "x*", ""),
                 (",a,", ",", ""), ("", ",", ""), ("aXbxc", "x", "i"), ("abc", "b", "g"), ("日本語", "", "")]:
    F("regexp_split_to_table", t(s), t(p), t(fl), srf=True)
F("regexp_split_to_table", t("a1b2c"), t("\\d"), srf=True)

# SIMILAR TO
for p in ["abc", "a%", "%b_", "a|b", "(a|b)*c", "[a-c]%", "a.b", "a^b$", "a\\%b", "a#\"b#\"c", "#\"a#\"",
          "a#\"b", "a#\"b#\"c#\"d", "%[]]%", "%[\\]%", "100\\%", "a{2}", "é%", "x(y)z"]:
    F("similar_to_escape", t(p))
    F("similar_to_escape", t(p), t("#"))
    F("similar_to_escape", t(p), t(""))
F("similar_to_escape", t("a"), t("ab"))
F("similar_to_escape", t("aéb"), t("é"))
F("similar_escape", t("a%"), t(None))
F("similar_escape", t(None), t("#"))
for s, p, e in [("abcdef", "a#\"%#\"f", "#"), ("abcdef", "%#\"c_#\"%", "#"), ("foobar", "#\"o_b#\"%", "#"),
                ("foobar", "%#\"o_b#\"%", "#"), ("abc", "x#\"%#\"", "#"), ("abc", "a%", "#")]:
    F("substring", t(s), t(p), t(e))

# array-returning regexp functions (text[] output from the arrays area)
for s, p in sem[:60]:
    F("regexp_match", t(s), t(p), collate=True)
for s, p, fl in [("foobarbequebaz", "(bar)(beque)", ""), ("foobarbequebaz", "ba.", "g"), ("abc", "(x)?b", ""),
                 ("AbAb", "(a)(b)", "gi"), ("abc", "b", "g"), ("a1b2", "[0-9]", "z"), ("abc", "", "g"),
                 ("aaa", "a*?", "g"), ("xyz", "(q)|(y)", "g")]:
    F("regexp_match", t(s), t(p), t(fl), collate=True)
    F("regexp_matches", t(s), t(p), t(fl), srf=True, collate=True)
    F("regexp_split_to_array", t(s), t(p), t(fl), collate=True)
F("regexp_matches", t("abcabc"), t("(a)(b)?"), srf=True)
F("regexp_split_to_array", t("hello world"), t("\\s+"))
F("regexp_split_to_array", t(""), t("x"))

# encoding conversions
for b, enc in [("\\xc3a9", "UTF8"), ("\\xe9", "LATIN1"), ("\\xe9", "latin-1"), ("\\xe9", "utf8"), ("\\xe9", "bogus"),
               ("\\xe9", "SQL_ASCII"), ("\\x00", "LATIN1"), ("\\x00", "SQL_ASCII"), ("\\x61", "ISO_8859_1"),
               ("\\x61", "Unicode"), ("\\xff", "UTF8"), ("\\x", "LATIN1")]:
    F("convert_from", ("bytea", b), ("name", enc))
    F("length", ("bytea", b), ("name", enc))
    F("convert", ("bytea", b), ("name", enc), ("name", "UTF8"))
    F("convert", ("bytea", b), ("name", "UTF8"), ("name", enc))
for s, enc in [("é€", "LATIN1"), ("é", "latin1"), ("é", "SQL_ASCII"), ("abc", "UTF8"), ("x", "nope"), ("", "LATIN1")]:
    F("convert_to", t(s), ("name", enc))
