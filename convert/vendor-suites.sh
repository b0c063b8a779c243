#!/usr/bin/env bash
# vendor-suites.sh judges the DBMSs' own concurrency tests with txlab: it
# imports them (txlab import --from pg-isolation|mysql-test), runs every
# case that converts on each target with the default oracles (txlab run
# --json), and prints the counts BENCHMARKS.md reports: files, files and
# cases imported, cases that ran, findings per verdict, and each bug
# finding with its case, so that every one is triaged. It is not part of
# go test: it needs the vendors' test files (not in this repository) and
# runs for many minutes.
#
#   convert/vendor-suites.sh pg-isolation postgres/src/test/isolation/specs postgres postgres@18
#   convert/vendor-suites.sh mysql-test server/mysql-test/suite/innodb/t mariadb
#
# For mysql-test, only the files that open a connection (connect) are
# taken: the concurrency tests. WORK (default a new temporary directory)
# keeps the imported cases, the JSON lines and the bundles.
set -euo pipefail

if [ $# -lt 3 ]; then
	sed -n '2,17p' "$0" | sed 's/^# \{0,1\}//' >&2
	exit 2
fi
from=$1 dir=$2
shift 2
work=${WORK:-$(mktemp -d)}
root=$(cd "$(dirname "$0")/.." && pwd)
txlab=$work/txlab
(cd "$root" && go build -o "$txlab" ./cmd/txlab)

case $from in
pg-isolation) files=$(ls "$dir"/*.spec) ;;
mysql-test) files=$(grep -lE '^\s*(--)?connect\b' "$dir"/*.test) ;;
*)
	echo "unknown format $from (pg-isolation or mysql-test)" >&2
	exit 2
	;;
esac
nfiles=$(echo "$files" | wc -l)
mkdir -p "$work/cases"
# shellcheck disable=SC2086 # one argument per file
"$txlab" import --from "$from" --out "$work/cases" $files >"$work/import.log" 2>&1 || true
ncases=$(grep -c '^wrote' "$work/import.log" || true)
nrefused=$(sed -n 's/^txlab: \([0-9]*\) of .* not converted$/\1/p' "$work/import.log")
echo "# $from: $dir ($(date -u +%Y-%m-%d))"
echo "files: $nfiles; imported: $((nfiles - ${nrefused:-0})) files, $ncases cases (the rest refused: $work/import.log)"
echo "refusals by reason:"
grep '^txlab: .*:[0-9]*: \|^txlab: [^ ]*: ' "$work/import.log" | grep -v 'not converted$' |
	sed -E 's/^txlab: [^ ]*: //; s/^[^ ]*:[0-9]+: //; s/line [0-9]+/line N/g; s/(connection|session) [^ ]+/\1 X/g' |
	cut -c1-80 | sort | uniq -c | sort -rn | sed 's/^/  /'

for db in "$@"; do
	out=$work/$(echo "$db" | tr '@/' '__')
	mkdir -p "$out"
	(cd "$work/cases" && "$txlab" run --db "$db" --json --out "$out/bundles" ./*.txn >"$out/run.jsonl" 2>"$out/run.err") || true
	echo
	echo "## $db"
	jq -rs --arg db "$db" '
		def ran: (has("error") | not) and (.hang != true);
		"cases: \(length); ran: \(map(select(ran)) | length); did not run: \(map(select(has("error"))) | length); hangs: \(map(select(.hang == true)) | length)",
		"cases with a finding, by worst verdict: " + (map(select(ran) | [.findings[]?.verdict] | if index("bug") then "bug" elif index("known") then "known" elif index("allowed") then "allowed" elif length > 0 then .[0] else "none" end) | group_by(.) | map("\(.[0]) \(length)") | join(", ")),
		"findings by verdict: " + ([.[] | .findings[]?.verdict] | group_by(.) | map("\(.[0]) \(length)") | join(", ")),
		"bug findings (case: oracle kind [rule] summary):",
		(.[] | select(ran) | .case as $c | .findings[]? | select(.verdict == "bug") | "  \($c): \(.oracle) \(.kind) [\(.rule)] \(.summary)")
	' "$out/run.jsonl"
	echo "did not run, by reason:"
	grep '^txlab: ' "$out/run.err" | grep -v 'with verdict bug\|did not finish' |
		sed -E 's/^txlab: [^ ]*: //; s/[0-9]{3,}/N/g' | cut -c1-90 | sort | uniq -c | sort -rn | sed 's/^/  /' | sed -n 1,15p || true
done
