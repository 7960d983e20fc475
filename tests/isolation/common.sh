# common.sh — what tests/isolation/run.sh and gen_expected.sh share: finding
# the isolation_tester binary, spec names, and the one command that turns a
# spec into a transcript, so expected output (made on PostgreSQL 15) and actual
# output (made on strata) come from identical invocations. Sourced, not run.
#
# ISO_DIR (the folder holding specs/, expected/, pending/) may be set by the caller.
# ISOLATION_WAIT_MS (default 500): a step still running after this long is
# reported "<waiting ...>". ISOLATION_SPEC_TIMEOUT (default 180 s) bounds one spec.

ISO_DIR=${ISO_DIR:-$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)}
ISO_ROOT=$(cd "$ISO_DIR/../.." && pwd)

# iso_tester: prints the isolation_tester binary to use.
iso_tester() {
	local b
	for b in "${ISOLATION_TESTER:-}" "${STRATA_BUILD:+$STRATA_BUILD/tests/isolation/isolation_tester}" \
		"$ISO_ROOT/build/asan/tests/isolation/isolation_tester" \
		"$ISO_ROOT/build/release/tests/isolation/isolation_tester"; do
		if [[ -n $b && -x $b ]]; then
			echo "$b"
			return 0
		fi
	done
	echo "isolation: no isolation_tester binary (build first: cmake --build build/asan --target isolation_tester)" >&2
	return 1
}

# iso_spec_path NAME: prints specs/NAME.spec or pending/NAME.spec.
iso_spec_path() {
	local d
	for d in specs pending; do
		if [[ -f $ISO_DIR/$d/$1.spec ]]; then
			echo "$ISO_DIR/$d/$1.spec"
			return 0
		fi
	done
	echo "isolation: no such spec: $1" >&2
	return 1
}

# iso_expected NAME: PostgreSQL's transcript of spec NAME (beside a pending
# spec in pending/, else in expected/).
iso_expected() {
	if [[ -f $ISO_DIR/pending/$1.spec ]]; then
		echo "$ISO_DIR/pending/$1.out"
	else
		echo "$ISO_DIR/expected/$1.out"
	fi
}

# iso_compare_to NAME: what run.sh diffs against: expected/NAME_strata.out (a
# deliberate difference, docs/compatibility.md) when it exists, else iso_expected.
iso_compare_to() {
	if [[ -f $ISO_DIR/expected/${1}_strata.out ]]; then
		echo "$ISO_DIR/expected/${1}_strata.out"
	else
		iso_expected "$1"
	fi
}

# iso_names DIR [NAME|PATH ...]: spec names (no directory, no .spec); all of
# DIR/*.spec when no argument is given.
iso_names() {
	local dir=$1 a n
	shift
	if (($# == 0)); then
		for a in "$ISO_DIR/$dir"/*.spec; do
			[[ -e $a ]] || continue
			n=${a##*/}
			echo "${n%.spec}"
		done
		return 0
	fi
	for a in "$@"; do
		n=${a##*/}
		n=${n%.spec}
		n=${n%.out}
		iso_spec_path "$n" >/dev/null || return 1
		echo "$n"
	done
}

# iso_run TESTER HOST PORT SPEC OUTFILE [WAIT_MS]: runs one spec; returns the
# tester's exit status (124 on timeout).
iso_run() {
	local tester=$1 host=$2 port=$3 spec=$4 out=$5 wait=${6:-${ISOLATION_WAIT_MS:-500}}
	env -u PGOPTIONS -u PGTZ -u PGDATESTYLE -u PGSERVICE -u PGCLIENTENCODING -u PGDATABASE -u PGUSER \
		LC_ALL=C PGCLIENTENCODING=UTF8 \
		timeout --kill-after=5 "${ISOLATION_SPEC_TIMEOUT:-180}" \
		"$tester" -h "$host" -p "$port" -U postgres -d postgres -w "$wait" "$spec" >"$out" 2>&1
}
