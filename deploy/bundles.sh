#!/usr/bin/env bash
# bundles.sh checks that finding bundles replay where they were found
# (issue 42): for each target it makes bundles (a short campaign, or a
# corpus case run with --out), then for every bundle runs
#   txlab run BUNDLE            (no other flag; --db alone for an own build)
#   txlab reduce --runs 1 BUNDLE
#   txlab import of its upstream.spec / upstream.test, run with the
#     bundle's flags
# and prints one line per bundle and check: the signature wanted, and
# whether each check gave it.
#
#   TXLAB=./txlab OUT=/tmp/bundles deploy/bundles.sh
set -uo pipefail
TXLAB=${TXLAB:-txlab}
OUT=${OUT:-/tmp/bundles}
PGBIN=${PGBIN:-$(ls -d /usr/lib/postgresql/*/bin | tail -1)}
root=$(cd "$(dirname "$0")/.." && pwd)
rm -rf "$OUT"; mkdir -p "$OUT"

sigs() { # the signatures of a txlab run --json on stdin
  python3 -c '
import json, sys
for l in sys.stdin:
    try: d = json.loads(l)
    except ValueError: continue
    for f in d.get("findings") or []: print(f["signature"])'
}

check() { # name bundle [--db X]
  local name=$1 b=$2; shift 2
  local want; want=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["signature"])' "$b/report.json")
  local runok=no redok=no expok=no
  # txlab exits 1 when it reports a bug: under pipefail that is not a
  # failure of the check, so the exit status is left out of the pipe.
  { "$TXLAB" run "$@" --json "$b" 2>"$b.run.err" || true; } | sigs | grep -qxF "$want" && runok=yes
  cp -r "$b" "$b.red"
  "$TXLAB" reduce --runs 1 "$@" "$b.red" >"$b.red.out" 2>&1 && grep -qF "keeping $want" "$b.red.out" && redok=yes
  # The exported vendor test, imported back and run with the bundle's
  # header flags (level, oracle, target).
  local from="" file=""
  if [ -f "$b/upstream.spec" ]; then from=pg-isolation file=$b/upstream.spec; fi
  case $(python3 -c 'import json,sys; print(json.load(open(sys.argv[1])).get("replay",""))' "$b/report.json") in
  *mariadb*|*tidb*|*mysql*) from=mysql-test file=$b/upstream.test ;;
  esac
  if [ -n "$file" ] && [ -f "$file" ]; then
    mkdir -p "$b.imp"
    if "$TXLAB" import --from "$from" --out "$b.imp" "$file" >/dev/null 2>"$b.imp.err"; then
      # The bundle's replay header gives the flags: run the imported case
      # with the same header by putting it in the bundle's place.
      for c in "$b.imp"/*.txn; do
        cp -r "$b" "$b.exp"
        grep '^-- replay' "$b/case.txn" >"$b.exp/case.txn"; cat "$c" >>"$b.exp/case.txn"
        { "$TXLAB" run "$@" --json "$b.exp" 2>>"$b.imp.err" || true; } | sigs | grep -qxF "$want" && expok=yes
        rm -rf "$b.exp"
      done
    fi
  else
    expok=n/a
  fi
  printf '%s\t%s\trun=%s\treduce=%s\texported=%s\t%s\n' "$name" "$(basename "$b")" "$runok" "$redok" "$expok" "$want" | tee -a "$OUT/results.tsv"
}

make_bundles() { # name args...
  local name=$1; shift
  "$TXLAB" "$@" --out "$OUT/$name" >"$OUT/$name.log" 2>&1
  for b in "$OUT/$name"/0*/; do [ -f "$b/report.json" ] && check "$name" "${b%/}" ${DB:+--db "$DB"}; done
}

cd "$root"
DB= make_bundles sqlite fuzz --duration 30s --seed 1 --reduce=false
DB= make_bundles mariadb fuzz --db mariadb --isolation rc --duration 60s --seed 1 --reduce=false
DB= make_bundles postgres run --db postgres --oracle isorel --model serializable bugs/doc-pg-rr-write-skew.txn
DB= make_bundles postgres18 run --db postgres@18 --oracle isorel --model serializable bugs/doc-pg-rr-write-skew.txn
DB= make_bundles tidb run --db tidb --oracle troc bugs/tidb-45677-found-rr-subquery.txn
DB=postgres@$PGBIN make_bundles ownbuild run --db "postgres@$PGBIN" --oracle isorel --model serializable bugs/doc-pg-rr-write-skew.txn
echo "bundles: $OUT/results.tsv"
