#!/usr/bin/python3
"""run_docs.py — runs the code examples of the user documentation, so that what
the docs show is what Strata does. For each document (default: those in
DOCS below), against one fresh server:

  ```sql   run with psql (ON_ERROR_STOP: any error fails the block)
  ```sh    run with bash -e, `strata` and `psql` on PATH, PGHOST/PGPORT/PGUSER set
  ```ini   a configuration file: `strata --config FILE --help` must accept it
  other    (text, console, ...) shown only

Paths /var/backups/strata and /var/lib/strata in any block stand for scratch
directories. The configuration reference is checked too: every setting
`strata --help` lists must appear in the document's table with its default,
and docs/settings.md must be what tests/docs/gen_settings.py generates.
Ends with "N passed, N failed" (one per block, plus the settings check).
"""
import os
import re
import shutil
import subprocess
import sys
import tempfile

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
sys.path.insert(0, os.path.join(ROOT, "tests", "lib"))
from strata_fixture import StrataServer, strata_bin  # noqa: E402

DOCS = ["docs/operations.md", "docs/transactions.md"]
SETTINGS_DOC = "docs/operations.md"
FENCE = re.compile(r"^```(\w*)\s*$")


def blocks(path):
    """(line, language, text) of every fenced block."""
    out, lang, start, buf = [], None, 0, []
    with open(path) as f:
        for n, line in enumerate(f, 1):
            m = FENCE.match(line.rstrip("\n"))
            if m and lang is None:
                lang, start, buf = m.group(1) or "text", n, []
            elif line.rstrip("\n") == "```" and lang is not None:
                out.append((start, lang, "".join(buf)))
                lang = None
            elif lang is not None:
                buf.append(line)
    return out


def check_settings(binary):
    """Every server setting of --help is in the configuration table with its default."""
    helptext = subprocess.run([binary, "--help"], capture_output=True, text=True).stdout
    with open(os.path.join(ROOT, SETTINGS_DOC)) as f:
        rows = [line for line in f if line.startswith("| `")]
    problems = []
    for m in re.finditer(r"^  --([a-z-]+)\s+.*\(default: ([^)]*)\)\s*$", helptext, re.M):
        name, default = m.group(1).replace("-", "_"), m.group(2)
        row = next((r for r in rows if f"`{name}`" in r), None)
        if row is None:
            problems.append(f"setting {name} is not in the table of {SETTINGS_DOC}")
        elif default != "none" and f"`{default}`" not in row:
            problems.append(f"setting {name}: default {default} not shown in {SETTINGS_DOC}")
    return problems


def main():
    binary = strata_bin()
    if not binary:
        print("# docs: no strata binary (build first)")
        print("0 passed, 1 failed")
        return 1
    passed = failed = 0
    logs = os.path.join(os.environ.get("STRATA_LOGS", os.path.join(ROOT, "build", "test-logs")), "docs")
    problems = check_settings(binary)
    if problems:
        failed += 1
        for p in problems:
            print(f"FAIL {p}")
            print(f"# docs: {p}")
    else:
        passed += 1
        print("ok   every server setting is documented with its default")
    p = subprocess.run(["/usr/bin/python3", os.path.join(ROOT, "tests", "docs", "gen_settings.py"), "--check"],
                       capture_output=True, text=True, timeout=300)
    if p.returncode == 0:
        passed += 1
        print("ok   docs/settings.md lists every setting with its default")
    else:
        failed += 1
        msg = (p.stdout + p.stderr).strip().splitlines()
        print(f"FAIL docs/settings.md: {msg[-1] if msg else p.returncode}")
        print(f"# docs: {msg[-1] if msg else 'gen_settings.py --check failed'}")
    for doc in sys.argv[1:] or DOCS:
        scratch = tempfile.mkdtemp(prefix="strata-docs.", dir=os.environ.get("STRATA_TMP", "/tmp"))
        subst = {"/var/backups/strata": os.path.join(scratch, "backups"),
                 "/var/lib/strata": os.path.join(scratch, "lib")}
        for d in subst.values():
            os.makedirs(d)
        srv = StrataServer("docs")
        srv.start()
        env = srv.env()
        env["PATH"] = os.path.dirname(binary) + os.pathsep + env.get("PATH", "")
        env["PGCONNECT_TIMEOUT"] = "30"
        ok_doc = True
        for line, lang, text in blocks(os.path.join(ROOT, doc)):
            if lang not in ("sql", "sh", "ini"):
                continue
            for k, v in subst.items():
                text = text.replace(k, v)
            path = os.path.join(scratch, f"block-{line}.{lang}")
            with open(path, "w") as f:
                f.write(text)
            if lang == "sql":
                cmd = ["psql", "-X", "-q", "-v", "ON_ERROR_STOP=1", "-f", path]
            elif lang == "sh":
                cmd = ["bash", "-euo", "pipefail", path]
            else:
                cmd = [binary, "--config", path, "--help"]
            p = subprocess.run(cmd, env=env, capture_output=True, text=True, timeout=300)
            if p.returncode == 0:
                passed += 1
                continue
            failed += 1
            ok_doc = False
            os.makedirs(logs, exist_ok=True)
            out = os.path.join(logs, f"{os.path.basename(doc)}-{line}.out")
            with open(out, "w") as f:
                f.write(f"$ {' '.join(cmd)}\n{text}\n--- output\n{p.stdout}{p.stderr}")
            first = (p.stderr or p.stdout).strip().splitlines()
            print(f"FAIL {doc}:{line} ({lang}): {first[-1] if first else 'exit ' + str(p.returncode)}")
            print(f"# docs: {doc}:{line} ({lang}) failed, log {out}")
        if not ok_doc:
            srv.mark_failed()
        if not srv.stop():
            failed += 1
            print(f"# docs: the server did not stop cleanly (log {srv.kept_log})")
        else:
            print(f"ok   {doc}" if ok_doc else f"FAIL {doc}")
        if ok_doc:
            shutil.rmtree(scratch, ignore_errors=True)
    print(f"{passed} passed, {failed} failed")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
