#!/usr/bin/env bash
# run.sh — the node-postgres suite: installs npm pg and pg-cursor (versions pinned
# in package.json / package-lock.json) into a directory of the build tree the
# suite owns ($STRATA_BUILD/drivers-node, default build/asan/drivers-node), then
# runs test.js against a fresh strata server (tests/lib/strata_fixture.py run).
# Needs node and npm (scripts/deps.sh installs nodejs and npm); npm needs the
# registry once, later runs reuse the installed modules.
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../../.." && pwd)
build=${STRATA_BUILD:-$root/build/asan}
mods=$build/drivers-node
if ! command -v node >/dev/null || ! command -v npm >/dev/null; then
	echo "# nodepg: node/npm missing (scripts/deps.sh test installs them)"
	echo "0 passed, 1 failed"
	exit 1
fi
mkdir -p "$mods"
if ! cmp -s "$here/package-lock.json" "$mods/package-lock.json" || [[ ! -d $mods/node_modules/pg-cursor ]]; then
	cp "$here/package.json" "$here/package-lock.json" "$mods/"
	if ! (cd "$mods" && npm ci --no-audit --no-fund --loglevel=error >npm.log 2>&1); then
		echo "# nodepg: npm ci failed (log: $mods/npm.log)"
		tail -5 "$mods/npm.log" | sed 's/^/#   /'
		echo "0 passed, 1 failed"
		exit 1
	fi
fi
cp "$here/test.js" "$mods/test.js"
# test.js reads tests/drivers/xfail.list relative to itself: point it there.
sed -i "s|path.join(__dirname, '..', 'xfail.list')|'$here/../xfail.list'|" "$mods/test.js"
exec /usr/bin/python3 "$root/tests/lib/strata_fixture.py" run drivers-nodepg -- node "$mods/test.js" "$@"
