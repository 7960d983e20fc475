#!/usr/bin/python3
"""strata_fixture.py — the server fixture for Python test suites (and a CLI for
any other language): start `strata` on a free loopback port with a temporary
data directory, wait until it accepts connections, stop it (SIGTERM, then
SIGKILL after a timeout) and keep its log when something went wrong.

Same rules and environment as tests/lib/fixture.sh:
  STRATA_TEST_PORT / STRATA_TEST_HOST   use an already running server instead
  STRATA_BIN, STRATA_BUILD               which binary (default build/asan, then release)
  STRATA_LOGS                            where kept logs go (default build/test-logs)

In Python:
    sys.path.insert(0, "tests/lib"); from strata_fixture import StrataServer
    with StrataServer("psycopg2") as srv:
        conn = psycopg2.connect(srv.dsn)
        ...
    # leaving the block stops the server; srv.clean tells whether it exited
    # cleanly. Call srv.mark_failed() to keep the log although it did.

Extra environment for the server process (test hooks, another binary):
    StrataServer("ops-verify", env={"STRATA_TEST_FAULTS": "1"})
it applies to every start of that server, restarts too; STRATA_BIN in it
picks the binary.

Crash tests: srv.kill() SIGKILLs the server (nothing is checked, the data
directory stays); srv.start() then starts it again on the same data directory
and, if it is still free, the same port (the log goes on in the same file).

From the shell (any suite): run a command against a fresh server, with
PGHOST/PGPORT/PGUSER/PGDATABASE and STRATA_DSN set for it:
    /usr/bin/python3 tests/lib/strata_fixture.py run NAME -- node tests/drivers/pg_test.js
The exit status is the command's, or 1 if the server did not exit cleanly.
"""
import os
import re
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
SANITIZER_RE = re.compile(r"ERROR: (AddressSanitizer|LeakSanitizer)|[0-9]+:[0-9]+: runtime error: "
                          r"|SUMMARY: (Address|Undefined|Leak)Sanitizer")


def strata_bin(env=None):
    """The server binary the fixture uses (STRATA_BIN of env, else of the
    process), or None."""
    cands = [(env or {}).get("STRATA_BIN") or os.environ.get("STRATA_BIN")]
    if os.environ.get("STRATA_BUILD"):
        cands.append(os.path.join(os.environ["STRATA_BUILD"], "server", "strata"))
    cands += [os.path.join(ROOT, "build", "asan", "server", "strata"),
              os.path.join(ROOT, "build", "release", "server", "strata")]
    for c in cands:
        if c and os.access(c, os.X_OK):
            return c
    return None


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def accepts(host, port):
    try:
        with socket.create_connection((host, port), timeout=1):
            return True
    except OSError:
        return False


class FixtureError(RuntimeError):
    pass


class NoServerInTree(FixtureError):
    """The source tree has no server/ yet: a suite should report itself skipped."""


class StrataServer:
    """One server for a test; see the module docstring."""

    def __init__(self, name="test", args=(), start_timeout=None, stop_timeout=None, env=None):
        self.name = name
        self.args = list(args)
        self.extra_env = dict(env or {})  # the server process's, beside os.environ
        self.start_timeout = float(start_timeout or os.environ.get("FIX_START_TIMEOUT", 60))
        self.stop_timeout = float(stop_timeout or os.environ.get("FIX_STOP_TIMEOUT", 15))
        self.host = os.environ.get("STRATA_TEST_HOST", "127.0.0.1")
        self.port = None
        self.user = "postgres"
        self.dbname = "postgres"
        self.external = bool(os.environ.get("STRATA_TEST_PORT"))
        self.proc = None
        self.dir = None
        self.log_path = None
        self.kept_log = None
        self.clean = None
        self._failed = False

    @property
    def dsn(self):
        return f"host={self.host} port={self.port} user={self.user} dbname={self.dbname}"

    def env(self):
        """Environment for a client process (libpq variables)."""
        e = dict(os.environ)
        e.update(PGHOST=self.host, PGPORT=str(self.port), PGUSER=self.user,
                 PGDATABASE=self.dbname, STRATA_DSN=self.dsn)
        return e

    def start(self):
        if self.external:
            self.port = int(os.environ["STRATA_TEST_PORT"])
            if not accepts(self.host, self.port):
                raise FixtureError(f"no server accepts connections on {self.host}:{self.port}")
            return self
        self.host = "127.0.0.1"
        binary = strata_bin(self.extra_env)
        if not binary and not os.path.exists(os.path.join(ROOT, "server")):
            raise NoServerInTree("this tree has no server/ yet; nothing to start")
        if not binary:
            raise FixtureError("no strata binary (set STRATA_BIN or build first: make asan)")
        if self.proc is not None:
            raise FixtureError("the server is already running")
        restart = self.dir is not None  # after kill(): same data directory, same port if free
        if not restart:
            self.dir = tempfile.mkdtemp(prefix=f"strata-{self.name}.",
                                        dir=os.environ.get("STRATA_TMP", "/tmp"))
        self.log_path = os.path.join(self.dir, "server.log")
        env = dict(os.environ, **self.extra_env)
        env.setdefault("ASAN_OPTIONS", "detect_leaks=1:abort_on_error=0")
        env.setdefault("UBSAN_OPTIONS", "print_stacktrace=1:halt_on_error=1")
        for attempt in range(5):
            if not (restart and attempt == 0 and self.port):
                self.port = free_port()
            with open(self.log_path, "ab" if restart else "wb") as log:
                self.proc = subprocess.Popen(
                    [binary, "--listen", "127.0.0.1", "--port", str(self.port),
                     "--data-dir", os.path.join(self.dir, "data")] + self.args,
                    stdout=log, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL, env=env)
            deadline = time.monotonic() + self.start_timeout
            while time.monotonic() < deadline:
                if self.proc.poll() is not None:
                    break
                if accepts("127.0.0.1", self.port):
                    return self
                time.sleep(0.05)
            if self.proc.poll() is None:
                self.mark_failed()
                self.stop()
                raise FixtureError(f"{binary} did not accept connections on port {self.port} "
                                   f"within {self.start_timeout:.0f} s (log: {self.kept_log})")
            with open(self.log_path, errors="replace") as f:
                text = f.read()
            if "in use" not in text.lower():
                break
        self.proc = None
        self._keep_log()
        shutil.rmtree(self.dir, ignore_errors=True)
        raise FixtureError(f"{binary} exited during startup (log: {self.kept_log})")

    def kill(self, sig=signal.SIGKILL):
        """Kills the server abruptly (SIGKILL unless SIG says otherwise) and
        waits for it to die. The data directory stays: start() brings the
        server back on it. Not possible with an external server."""
        if self.external:
            raise FixtureError("cannot kill an external server (STRATA_TEST_PORT)")
        if self.proc is None:
            raise FixtureError("the server is not running")
        self.proc.send_signal(sig)
        self.proc.wait()
        self.proc = None

    def mark_failed(self):
        """The test failed: keep the server log when stopping."""
        self._failed = True

    def _keep_log(self):
        if not self.log_path or not os.path.exists(self.log_path):
            return
        dest = os.path.join(os.environ.get("STRATA_LOGS", os.path.join(ROOT, "build", "test-logs")),
                            "servers")
        os.makedirs(dest, exist_ok=True)
        self.kept_log = os.path.join(dest, f"{self.name}-{self.port}.log")
        shutil.copyfile(self.log_path, self.kept_log)
        print(f"fixture: server log kept: {self.kept_log}", file=sys.stderr)

    def stop(self):
        """Stops the server; returns True if it exited cleanly."""
        if self.external:
            self.clean = True
            return True
        clean = True
        if self.proc is not None:
            self.proc.send_signal(signal.SIGTERM)
            try:
                status = self.proc.wait(timeout=self.stop_timeout)
                if status != 0:
                    print(f"fixture: server exited with status {status}", file=sys.stderr)
                    clean = False
            except subprocess.TimeoutExpired:
                print(f"fixture: server ignored SIGTERM for {self.stop_timeout:.0f} s; killing it",
                      file=sys.stderr)
                self.proc.kill()
                self.proc.wait()
                clean = False
            self.proc = None
        if self.log_path and os.path.exists(self.log_path):
            with open(self.log_path, errors="replace") as f:
                text = f.read()
            if SANITIZER_RE.search(text):
                print("fixture: sanitizer report in the server log", file=sys.stderr)
                clean = False
        if not clean or self._failed or os.environ.get("FIX_KEEP") == "always":
            self._keep_log()
        if self.dir:
            shutil.rmtree(self.dir, ignore_errors=True)
            self.dir = None
        self.clean = clean
        return clean

    def __enter__(self):
        return self.start()

    def __exit__(self, exc_type, exc, tb):
        if exc_type is not None:
            self.mark_failed()
        self.stop()
        return False


def main(argv):
    if len(argv) < 4 or argv[1] != "run" or "--" not in argv:
        print("usage: strata_fixture.py run NAME -- COMMAND [ARGS...]", file=sys.stderr)
        return 2
    name = argv[2]
    cmd = argv[argv.index("--") + 1:]
    if not cmd:
        print("strata_fixture.py: no command", file=sys.stderr)
        return 2
    srv = StrataServer(name)
    try:
        srv.start()
    except NoServerInTree as e:
        print(f"fixture: {e}; skipped", file=sys.stderr)
        print("0 passed, 0 failed, 1 skipped")
        return 0
    except FixtureError as e:
        print(f"fixture: {e}", file=sys.stderr)
        return 1
    try:
        rc = subprocess.call(cmd, env=srv.env())
    except OSError as e:
        print(f"fixture: {e}", file=sys.stderr)
        rc = 127
    if rc != 0:
        srv.mark_failed()
    clean = srv.stop()
    return rc if rc != 0 else (0 if clean else 1)


if __name__ == "__main__":
    sys.exit(main(sys.argv))
