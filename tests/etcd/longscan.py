"""longscan.py — full forward scans on the etcd backend read every row once
(docs/scale-out.md, "Long scans": each page's range ends a span of key
space sized from the key count etcd reported for the previous range, the
next page starts where a range ended). Tables of several sizes and key
distributions — dense, sparse, clustered with gaps growing exponentially,
one huge gap, random 64-bit keys, text keys of varying length, bytea keys
with 0x00 and 0xff bytes, a composite key scanned by its first column (a
row-prefix range) — some rows updated several times (versions), some
deleted, one table filled by a transaction beyond --max-txn-ops (intents of
a large transaction); each is scanned whole (every key in order, no gap, no
repeat), with a filter, with row limits, from the middle, and backwards,
against the rows this script wrote.
With LOG (the server's log at --log-level debug) the pages of the largest
table's full scan are checked too: guessed ends were used, and the keys
etcd walked over all pages (the sum of the ranges' counts) stay within a
few times the keys read — linear, where pages to the scan's end walk
about N²/2048.
With LOG, repeated short scans (LIMIT 10, each its own scan) of the
largest table are checked to walk far fewer etcd keys than the table
holds each: their first page is sized from the density earlier scans of
the table left in the server (kvstore/etcd_density.c). Then the hints are
made stale — the table's first rows deleted, rows inserted before its
first key, a dense cluster inserted into the sparse table — and every
scan shape still reads every row once.
usage: longscan.py PORT [SCALE [LOG]]   (SCALE: rows of the largest table,
default 8000) prints a one-line summary."""
import random
import re
import sys

from twoserver import connect


def key_sets(n, rnd):
    """name -> sorted list of distinct integer keys."""
    dense = list(range(1, n + 1))
    sparse = [i * 1000003 for i in range(n // 2)]
    gaps, k = [], 0
    for i in range(n // 2):
        k += 1 + (1 << (i // 400))  # density falls by half every 400 rows
        gaps.append(k)
    huge = list(range(n // 4)) + [10**15 + i for i in range(n // 4)]
    neg = set()
    while len(neg) < n // 4:
        neg.add(rnd.randrange(-2**62, 2**62))
    neg = sorted(neg)
    return {"dense": dense, "sparse": sparse, "gaps": gaps, "huge": huge, "neg": neg, "one": [7],
            "few": [1, 2, 1000, 10**12], "empty": []}


def check(conn, table, expect, label):
    """expect: {key: value}. Whole scan, a filter, row limits."""
    cur = conn.cursor()
    keys = sorted(expect)
    cur.execute("SELECT k, v FROM %s" % table)
    got = cur.fetchall()
    got_keys = [r[0] for r in got]
    if sorted(got_keys) != keys or len(set(got_keys)) != len(got_keys):
        missing = sorted(set(keys) - set(got_keys))[:5]
        extra = len(got_keys) - len(set(got_keys))
        raise SystemExit("%s: full scan read %d rows, want %d (missing %s, repeated %d)" %
                         (label, len(got_keys), len(keys), missing, extra))
    if any(expect[k] != v for k, v in got):
        raise SystemExit("%s: a row has a wrong value" % label)
    cur.execute("SELECT count(*), coalesce(sum(v), 0) FROM %s WHERE v %% 3 = 0" % table)
    want = [v for v in expect.values() if v % 3 == 0]
    if tuple(cur.fetchone()) != (len(want), sum(want)):
        raise SystemExit("%s: filtered count/sum differ" % label)
    for lim in (1, 17, 1500, len(keys) // 2 + 1):
        cur.execute("SELECT k FROM %s ORDER BY k LIMIT %d" % (table, lim))
        if [r[0] for r in cur.fetchall()] != keys[:lim]:
            raise SystemExit("%s: ORDER BY k LIMIT %d differs" % (label, lim))
    if keys:
        mid = keys[len(keys) // 3]
        cur.execute("SELECT count(*) FROM %s WHERE k >= %%s" % table, (mid,))
        if cur.fetchone()[0] != len(keys) - len(keys) // 3:
            raise SystemExit("%s: range scan from the middle differs" % label)
        hi = keys[len(keys) * 2 // 3]
        cur.execute("SELECT k FROM %s WHERE k >= %%s AND k < %%s ORDER BY k" % table, (mid, hi))
        if [r[0] for r in cur.fetchall()] != [k for k in keys if mid <= k < hi]:
            raise SystemExit("%s: bounded range scan differs" % label)
    for lim in (1, 40):  # reverse scans are untouched: still right
        cur.execute("SELECT k FROM %s ORDER BY k DESC LIMIT %d" % (table, lim))
        if [r[0] for r in cur.fetchall()] != keys[::-1][:lim]:
            raise SystemExit("%s: ORDER BY k DESC LIMIT %d differs" % (label, lim))


class PageLog:
    """The 'etcd scan page:' lines a server logs at --log-level debug."""
    pat = re.compile(r"etcd scan page: (to the end|guessed end), limit (\d+), (\d+) keys of (\d+) in range")

    def __init__(self, path):
        self.path = path
        self.off = 0
        self.skip()

    def skip(self):
        with open(self.path, "rb") as f:
            f.seek(0, 2)
            self.off = f.tell()

    def pages(self):
        with open(self.path, "rb") as f:
            f.seek(self.off)
            text = f.read().decode(errors="replace")
        self.skip()
        return [(m.group(1), int(m.group(3)), int(m.group(4))) for m in self.pat.finditer(text)]


def check_linear(conn, table, log, label):
    """The full scan of table walks etcd's index linearly; returns a note."""
    cur = conn.cursor()
    log.skip()
    cur.execute("SELECT count(*) FROM %s" % table)
    cur.fetchone()
    pages = log.pages()
    read = sum(p[1] for p in pages)
    walked = sum(p[2] for p in pages)
    guessed = sum(1 for p in pages if p[0] == "guessed end")
    if not pages or guessed < len(pages) // 2:
        raise SystemExit("%s: %d of %d pages had a guessed end" % (label, guessed, len(pages)))
    # The first page walks the whole table; the others about what they read.
    if walked > 4 * read + 20000:
        raise SystemExit("%s: etcd walked %d keys over %d pages to read %d" % (label, walked, len(pages), read))
    return "%s: %d keys in %d pages, %d walked" % (label, read, len(pages), walked)


def check_short(conn, table, expect, log, label, runs=20):
    """runs LIMIT 10 scans of table each walk a small part of it (the
    table's density is known to the server by now); returns a note."""
    cur = conn.cursor()
    log.skip()
    cur.execute("SELECT count(*) FROM %s" % table)
    cur.fetchone()
    keys = sum(p[1] for p in log.pages())  # the table's etcd keys
    log.skip()
    first = sorted(expect)[:10]
    for i in range(runs):
        if i % 2:
            cur.execute("SELECT k, v FROM %s LIMIT 10" % table)
            got = cur.fetchall()
            if len(got) != 10 or any(expect.get(k) != v for k, v in got):
                raise SystemExit("%s: LIMIT 10 read rows it should not (%s)" % (label, got))
        else:
            cur.execute("SELECT k FROM %s ORDER BY k LIMIT 10" % table)
            if [r[0] for r in cur.fetchall()] != first:
                raise SystemExit("%s: ORDER BY k LIMIT 10 differs" % label)
    pages = log.pages()
    walked = sum(p[2] for p in pages)
    # Before the density hints every one walked the whole table (runs x keys).
    if not pages or walked * 20 > runs * keys:
        raise SystemExit("%s: %d LIMIT 10 scans walked %d etcd keys, the table holds %d" %
                         (label, runs, walked, keys))
    return "%s: %d LIMIT 10 scans walked %d keys (table %d)" % (label, runs, walked, keys)


def stale_hints(conn, tables, log, notes):
    """Makes the server's hints stale; every scan shape still reads every
    row once. tables: name -> expect."""
    cur = conn.cursor()
    d = tables["ls_dense"]
    gone = sorted(d)[:len(d) // 8]  # the first rows: the first key hint is stale
    cur.execute("DELETE FROM ls_dense WHERE k = ANY(%s)", (gone,))
    for k in gone:
        del d[k]
    check(conn, "ls_dense", d, "ls_dense after its first rows were deleted")
    new = {-k: k % 1000 for k in range(1, 501)}  # rows before the first key
    cur.execute("INSERT INTO ls_dense SELECT -g, g % 1000 FROM generate_series(1, 500) g")
    d.update(new)
    check(conn, "ls_dense", d, "ls_dense after rows before its first key")
    sp = tables["ls_sparse"]
    dense = {k: k % 997 for k in range(1, 3001)}  # a dense cluster in a sparse table
    cur.execute("INSERT INTO ls_sparse SELECT g, g % 997 FROM generate_series(1, 3000) g")
    sp.update(dense)
    check(conn, "ls_sparse", sp, "ls_sparse after a dense cluster")
    if log:
        notes.append(check_short(conn, "ls_sparse", sp, log, "ls_sparse with its cluster"))


def main():
    port = int(sys.argv[1])
    n = int(sys.argv[2]) if len(sys.argv) > 2 else 8000
    log = PageLog(sys.argv[3]) if len(sys.argv) > 3 else None
    notes = []
    rnd = random.Random(15)
    conn = connect(port, True)
    cur = conn.cursor()
    done = []
    tables = {}
    for name, keys in key_sets(n, rnd).items():
        t = "ls_" + name
        cur.execute("DROP TABLE IF EXISTS %s" % t)
        cur.execute("CREATE TABLE %s (k bigint PRIMARY KEY, v bigint)" % t)
        expect = {k: rnd.randrange(1000) for k in keys}
        rows = list(expect.items())
        for i in range(0, len(rows), 2000):
            args = ",".join(cur.mogrify("(%s,%s)", r).decode() for r in rows[i:i + 2000])
            cur.execute("INSERT INTO %s VALUES %s" % (t, args))
        if keys:  # versions: rows updated three times; deletions
            sel = keys[::5]
            for rep in range(3):
                cur.execute("UPDATE %s SET v = v + 1 WHERE k = ANY(%%s)" % t, (sel,))
            for k in sel:
                expect[k] += 3
            gone = keys[3::7]
            cur.execute("DELETE FROM %s WHERE k = ANY(%%s)" % t, (gone,))
            for k in gone:
                del expect[k]
        check(conn, t, expect, t)
        tables[t] = expect
        if log and name in ("dense", "gaps", "neg"):
            notes.append(check_linear(conn, t, log, t))
        if log and name in ("dense", "gaps"):
            notes.append(check_short(conn, t, expect, log, t))
        done.append("%s %d" % (name, len(expect)))
    # Text keys of varying length, one transaction beyond --max-txn-ops (a
    # large transaction: intents until swept).
    cur.execute("DROP TABLE IF EXISTS ls_text")
    cur.execute("CREATE TABLE ls_text (k text PRIMARY KEY, v bigint)")
    tk = {}
    while len(tk) < n * 3 // 4:
        tk["".join(rnd.choice("ab\x7fz0") for _ in range(rnd.randrange(1, 12)))] = rnd.randrange(1000)
    big = connect(port, False)
    bc = big.cursor()
    items = list(tk.items())
    for i in range(0, len(items), 2000):
        args = ",".join(bc.mogrify("(%s,%s)", r).decode() for r in items[i:i + 2000])
        bc.execute("INSERT INTO ls_text VALUES %s" % args)
    big.commit()
    cur.execute("SELECT k FROM ls_text")
    got = [r[0] for r in cur.fetchall()]
    if sorted(got) != sorted(tk) or len(set(got)) != len(got):
        raise SystemExit("ls_text: full scan read %d rows, want %d" % (len(got), len(tk)))
    cur.execute("SELECT count(*), sum(v) FROM ls_text WHERE k > 'b'")
    want = [v for k, v in tk.items() if k.encode() > b"b"]
    if tuple(cur.fetchone()) != (len(want), sum(want)):
        raise SystemExit("ls_text: count/sum above 'b' differ")
    done.append("text %d (one large transaction)" % len(tk))
    # bytea keys with 0x00 and 0xff bytes (the key encoding escapes them).
    cur.execute("DROP TABLE IF EXISTS ls_bytes")
    cur.execute("CREATE TABLE ls_bytes (k bytea PRIMARY KEY, v bigint)")
    bk = {}
    while len(bk) < n // 2:
        bk[bytes(rnd.choice(b"\x00\x01\xfe\xff") for _ in range(rnd.randrange(1, 10)))] = rnd.randrange(1000)
    bi = list(bk.items())
    for i in range(0, len(bi), 2000):
        args = ",".join(cur.mogrify("(%s,%s)", r).decode() for r in bi[i:i + 2000])
        cur.execute("INSERT INTO ls_bytes VALUES %s" % args)
    cur.execute("SELECT k, v FROM ls_bytes")
    got = [(bytes(r[0]), r[1]) for r in cur.fetchall()]
    if got != sorted(bk.items()):
        raise SystemExit("ls_bytes: full scan read %d rows, want %d, or out of order" % (len(got), len(bk)))
    done.append("bytea %d" % len(bk))
    # A composite key scanned by its first column: row-prefix bounds.
    cur.execute("DROP TABLE IF EXISTS ls_pair")
    cur.execute("CREATE TABLE ls_pair (g int, k bigint, v bigint, PRIMARY KEY (g, k))")
    pk = {(g, k): rnd.randrange(1000) for g in range(5) for k in rnd.sample(range(10**9), n // 5)}
    pi = [(g, k, v) for (g, k), v in pk.items()]
    for i in range(0, len(pi), 2000):
        args = ",".join(cur.mogrify("(%s,%s,%s)", r).decode() for r in pi[i:i + 2000])
        cur.execute("INSERT INTO ls_pair VALUES %s" % args)
    for g in (0, 2, 4):
        cur.execute("SELECT k FROM ls_pair WHERE g = %s", (g,))
        want = sorted(k for (gg, k) in pk if gg == g)
        if [r[0] for r in cur.fetchall()] != want:
            raise SystemExit("ls_pair: the scan of g = %d differs" % g)
        cur.execute("SELECT count(*), sum(v) FROM ls_pair WHERE g = %s AND v %% 2 = 0", (g,))
        vs = [v for (gg, k), v in pk.items() if gg == g and v % 2 == 0]
        if tuple(cur.fetchone()) != (len(vs), sum(vs)):
            raise SystemExit("ls_pair: the filtered scan of g = %d differs" % g)
    done.append("pair %d" % len(pk))
    stale_hints(conn, tables, log, notes)
    done.append("stale hints")
    print("full, filtered, bounded, limited and reverse scans read every row once: " + ", ".join(done) +
          ("; " + "; ".join(notes) if notes else ""))


main()
