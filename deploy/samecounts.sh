#!/usr/bin/env bash
# samecounts.sh: the fixed-seed campaigns whose counts and signatures a
# refactoring must leave unchanged (issue 43): SQLite, MariaDB at READ
# COMMITTED and PostgreSQL at SERIALIZABLE, each --cases N with one seed,
# plus `txlab bugs test`. It writes one line per campaign total and one per
# signature to $OUT/counts.txt; diff two such files, before and after.
#
#   TXLAB=./txlab-before OUT=/tmp/before deploy/samecounts.sh
#   TXLAB=./txlab-after  OUT=/tmp/after  deploy/samecounts.sh
#   diff /tmp/before/counts.txt /tmp/after/counts.txt
set -euo pipefail
TXLAB=${TXLAB:-txlab}
OUT=${OUT:-/tmp/samecounts}
CASES=${CASES:-200}
SEED=${SEED:-4343}
rm -rf "$OUT"; mkdir -p "$OUT"
: >"$OUT/counts.txt"
run() {
  local name=$1; shift
  local rc=0
  "$TXLAB" fuzz "$@" --cases "$CASES" --seed "$SEED" --duration 0 --reduce=false --out "$OUT/$name" --json >"$OUT/$name.json" 2>"$OUT/$name.err" || rc=$?
  if [ "$rc" -gt 1 ]; then echo "samecounts: $name exited $rc: $(tail -1 "$OUT/$name.err")" >&2; exit 2; fi
  python3 - "$OUT/$name.json" "$name" >>"$OUT/counts.txt" <<'PY'
import json, sys
d, name = json.load(open(sys.argv[1])), sys.argv[2]
for k in ("cases", "transactions", "statements", "blocked", "skipped", "hangs", "invalid_statements"):
    print(name, k, d.get(k))
for k, v in sorted((d.get("errors_by_class") or {}).items()):
    print(name, "errors", k, v)
for o, v in sorted((d.get("by_oracle") or {}).items()):
    print(name, o, json.dumps(v, sort_keys=True))
import collections
for sig, n in sorted(collections.Counter(f["signature"] for f in d.get("findings") or []).items()):
    print(name, n, sig)
PY
}
run sqlite
run mariadb --db mariadb --isolation rc
run postgres --db postgres --isolation ser
for db in sqlite mariadb postgres; do
  "$TXLAB" bugs test --db "$db" >"$OUT/bugs-test-$db.txt" 2>&1 || true
  # Progress lines carry timings; the table is what must stay.
  grep -vE "opened in|runs in|^txlab bugs test: [a-z]*: ([0-9]+/[0-9]+ |opening)" "$OUT/bugs-test-$db.txt" | sed "s/^/bugs-test $db /" >>"$OUT/counts.txt"
done
echo "samecounts: $OUT/counts.txt"
