#!/usr/bin/env bash
# run.sh — the pgjdbc suite: compiles JdbcTest.java with javac (Java 17) against the
# Debian driver (/usr/share/java/postgresql.jar, libpostgresql-jdbc-java) into the
# build tree ($STRATA_BUILD/drivers-jdbc) and runs it against a fresh strata server
# (tests/lib/strata_fixture.py run, which sets PGHOST/PGPORT).
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../../.." && pwd)
build=${STRATA_BUILD:-$root/build/asan}
out=$build/drivers-jdbc
jar=${PGJDBC_JAR:-/usr/share/java/postgresql.jar}
if ! command -v javac >/dev/null || [[ ! -f $jar ]]; then
	echo "# jdbc: javac or $jar missing (scripts/deps.sh test installs default-jdk-headless and libpostgresql-jdbc-java)"
	echo "0 passed, 1 failed"
	exit 1
fi
mkdir -p "$out"
if [[ ! -f $out/JdbcTest.class || $here/JdbcTest.java -nt $out/JdbcTest.class ]]; then
	javac -d "$out" -cp "$jar" "$here/JdbcTest.java" || { echo "# jdbc: javac failed"; echo "0 passed, 1 failed"; exit 1; }
fi
exec /usr/bin/python3 "$root/tests/lib/strata_fixture.py" run drivers-jdbc -- \
	java -Dxfail.list="$here/../xfail.list" -cp "$out:$jar" JdbcTest "$@"
