# case_names.sh — the names of the .sql cases of a file-driven test suite
# (regress, psql). Source it, then:
#
#   case_names DIR LABEL [NAME|PATH ...]
#
# prints one case name per line (no directory, no .sql/.out): every DIR/*.sql
# when no name is given, else each argument after checking DIR/NAME.sql exists
# (returns 1 with "LABEL: no such case: ..." on stderr when one does not).
case_names() {
	local dir=$1 label=$2 a n
	shift 2
	if (($# == 0)); then
		for a in "$dir"/*.sql; do
			[[ -e $a ]] || continue
			n=${a##*/}
			echo "${n%.sql}"
		done
		return 0
	fi
	for a in "$@"; do
		n=${a##*/}
		n=${n%.sql}
		n=${n%.out}
		if [[ ! -f $dir/$n.sql ]]; then
			echo "$label: no such case: $dir/$n.sql" >&2
			return 1
		fi
		echo "$n"
	done
}
