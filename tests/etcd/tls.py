#!/usr/bin/python3
"""tls.py — Strata on an etcd member that speaks TLS only, requires client
certificates and has authentication enabled (tests/etcd/run.sh;
docs/scale-out.md, "TLS and authentication").

usage: tls.py STRATA_BIN WORKDIR

Generates a CA, a server certificate for 127.0.0.1 and a client
certificate with openssl, starts one etcd member (--cert-file, --key-file,
--trusted-ca-file, --client-cert-auth, auth tokens living 2 s), enables
authentication (user root) through the gateway, then:
1. a Strata server with etcds://...?cacert=&cert=&key=&user=root&password_file=
   starts; statements run (CREATE, INSERT, SELECT), also after the auth
   token expired (the client authenticates again);
2. a server given another CA is refused at start with a clear error
   (certificate verification), at once rather than after the retry timeout;
3. a wrong password is refused ("authentication failed");
4. no user at all is refused with a hint that the cluster needs one;
5. no client certificate is refused at once with a hint at one;
6. an unknown URI option is refused.
Prints a one-line summary or what went wrong; exit status 0/1.
"""
import atexit
import base64
import json
import os
import socket
import ssl
import subprocess
import sys
import time
import urllib.request

import psycopg2

from twoserver import free_port

strata, work = sys.argv[1], sys.argv[2]
os.makedirs(work, exist_ok=True)
procs = []


@atexit.register
def stop_all():
    for p in procs:
        if p.poll() is None:
            p.kill()
            p.wait()


def sh(*args):
    subprocess.run(args, check=True, cwd=work, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)


def make_ca(name):
    sh("openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "2", "-subj", "/CN=" + name,
       "-keyout", name + ".key", "-out", name + ".crt")


def make_cert(name, ca, ext, subj):
    with open(os.path.join(work, name + ".ext"), "w") as f:
        f.write(ext)
    sh("openssl", "req", "-newkey", "rsa:2048", "-nodes", "-subj", subj, "-keyout", name + ".key",
       "-out", name + ".csr")
    sh("openssl", "x509", "-req", "-in", name + ".csr", "-CA", ca + ".crt", "-CAkey", ca + ".key",
       "-CAcreateserial", "-days", "2", "-extfile", name + ".ext", "-out", name + ".crt")


def path(name):
    return os.path.join(work, name)


def fail(msg):
    print(msg)
    sys.exit(1)


make_ca("ca")
make_ca("otherca")
# The member's gateway connects to its own client port with the server
# certificate (clientAuth too); etcd 3.4's gateway refuses client
# certificates with a CommonName under authentication (docs/scale-out.md).
make_cert("server", "ca", "subjectAltName=IP:127.0.0.1\nextendedKeyUsage=serverAuth,clientAuth\n", "/CN=server")
make_cert("client", "ca", "extendedKeyUsage=clientAuth\n", "/O=strata")
with open(path("pw"), "w") as f:
    f.write("s3cret\n")
with open(path("pw_bad"), "w") as f:
    f.write("wrong\n")

cport, pport = free_port(), free_port()
etcd = subprocess.Popen(
    ["etcd", "--name", "t1", "--data-dir", path("etcd"),
     "--listen-client-urls", "https://127.0.0.1:%d" % cport,
     "--advertise-client-urls", "https://127.0.0.1:%d" % cport,
     "--listen-peer-urls", "http://127.0.0.1:%d" % pport,
     "--initial-advertise-peer-urls", "http://127.0.0.1:%d" % pport,
     "--initial-cluster", "t1=http://127.0.0.1:%d" % pport,
     "--cert-file", path("server.crt"), "--key-file", path("server.key"),
     "--trusted-ca-file", path("ca.crt"), "--client-cert-auth",
     "--auth-token-ttl", "2", "--max-txn-ops", "10000", "--max-request-bytes", "33554432",
     "--log-level", "error", "--logger", "zap"],
    stdout=open(path("etcd.log"), "w"), stderr=subprocess.STDOUT)
procs.append(etcd)

ctx = ssl.create_default_context(cafile=path("ca.crt"))
ctx.load_cert_chain(path("client.crt"), path("client.key"))


def gw(api, body, token=None):
    req = urllib.request.Request("https://127.0.0.1:%d%s" % (cport, api), data=json.dumps(body).encode())
    if token:
        req.add_header("Authorization", token)
    return json.loads(urllib.request.urlopen(req, context=ctx, timeout=5).read())


for _ in range(150):
    try:
        gw("/v3/kv/range", {"key": base64.b64encode(b"x").decode()})
        break
    except Exception:  # noqa: BLE001 - not up yet
        time.sleep(0.2)
else:
    fail("etcd with TLS did not start (%s)" % path("etcd.log"))
gw("/v3/auth/role/add", {"name": "root"})
gw("/v3/auth/user/add", {"name": "root", "password": "s3cret"})
gw("/v3/auth/user/grant", {"user": "root", "role": "root"})
gw("/v3/auth/enable", {})

base = "etcds://127.0.0.1:%d/tls?cacert=%s&cert=%s&key=%s" % (cport, path("ca.crt"), path("client.crt"),
                                                               path("client.key"))


def start(name, uri, expect_up, **envx):
    port = free_port()
    os.makedirs(path(name), exist_ok=True)
    log = open(path(name + ".log"), "w")
    env = dict(os.environ, STRATA_ETCD_TIMEOUT_MS="2000", **envx)
    p = subprocess.Popen([strata, "--port", str(port), "--data-dir", path(name), "--store", uri],
                         stdout=log, stderr=subprocess.STDOUT, env=env)
    t0 = time.time()
    while time.time() - t0 < 60:
        if p.poll() is not None:
            break
        try:
            socket.create_connection(("127.0.0.1", port), 0.2).close()
            break
        except OSError:
            time.sleep(0.1)
    if expect_up:
        procs.append(p)
        if p.poll() is not None:
            fail("server %s did not start: %s" % (name, open(path(name + ".log")).read()[-800:]))
        return port, time.time() - t0
    if p.poll() is None:
        try:
            p.wait(30)
        except subprocess.TimeoutExpired:
            p.kill()
            p.wait()
            fail("server %s with a bad configuration did not exit" % name)
    return open(path(name + ".log")).read(), time.time() - t0


# No compaction thread: its requests every 2 s would keep the token alive.
port, _ = start("good", base + "&user=root&password_file=" + path("pw"), True, STRATA_ETCD_COMPACT_S="0")
c = psycopg2.connect(host="127.0.0.1", port=port, user="postgres", dbname="postgres")
c.autocommit = True
cur = c.cursor()
cur.execute("CREATE TABLE tl (id int PRIMARY KEY, v text)")
cur.execute("INSERT INTO tl SELECT g, 'v' || g FROM generate_series(1, 50) g")
time.sleep(4)  # the token (2 s) expires: the next request authenticates again
cur.execute("UPDATE tl SET v = 'w' WHERE id <= 10")
cur.execute("SELECT count(*), count(*) FILTER (WHERE v = 'w') FROM tl")
got = cur.fetchone()
if got != (50, 10):
    fail("rows over TLS: got %r, want (50, 10)" % (got,))
c.close()

out, secs = start("badca", "etcds://127.0.0.1:%d/tls?cacert=%s&cert=%s&key=%s&user=root&password_file=%s" % (
    cport, path("otherca.crt"), path("client.crt"), path("client.key"), path("pw")), False)
if "certificate" not in out.lower() or secs > 15:
    fail("wrong CA: want a certificate error at once, got after %.1f s: %s" % (secs, out[-600:]))

out, _ = start("badpw", base + "&user=root&password_file=" + path("pw_bad"), False)
if "authentication failed" not in out:
    fail("wrong password: want 'authentication failed', got: %s" % out[-600:])

out, _ = start("nouser", base, False)
if "requires authentication" not in out:
    fail("no user: want a hint that the cluster requires authentication, got: %s" % out[-600:])

out, nsecs = start("nocert", "etcds://127.0.0.1:%d/tls?cacert=%s&user=root&password_file=%s" % (
    cport, path("ca.crt"), path("pw")), False)
if "requires a client certificate" not in out or nsecs > 15:
    fail("no client certificate: want a hint at one at once, got after %.1f s: %s" % (nsecs, out[-600:]))

out, _ = start("badopt", base + "&user=root&passwd=x", False)
if "unknown etcd store URI option" not in out:
    fail("unknown option: want an error naming it, got: %s" % out[-600:])

for p in procs:
    p.terminate()
for p in procs:
    p.wait()
print("TLS with client certificates and etcd authentication: statements run (token renewed), "
      "a wrong CA (%.1f s), a wrong password, a missing user or client certificate and an unknown option are refused with clear errors" % secs)
