#!/usr/bin/env bash
# scaling.sh measures, on the machine it runs on, what issue 31 asks of a
# many-core machine, in one go (about 4 minutes on 16 cores):
#   1. a campaign on embedded SQLite with --workers W in one process and
#      with --procs W processes, W = 1, 2, 4, … up to the cores, alternating;
#   2. the MT check of 10M-transaction histories at GOMAXPROCS 1 and all cores;
#   3. the LWT check against Porcupine at GOMAXPROCS 1 and all cores.
# Run it from the repository root. It builds what it runs when Go is on the
# PATH, else takes bin/txlab and bin/mt.test (go build -o bin/txlab
# ./cmd/txlab; go test -c -o bin/mt.test ./oracle/mt). Results go to stdout
# and, when $OUT is set, to $OUT/scaling.txt.
#
#   CASES=2000 SEED=7 ROUNDS=2 deploy/scaling.sh
set -euo pipefail

cases=${CASES:-2000}
seed=${SEED:-7}
rounds=${ROUNDS:-2}
cores=$(nproc)
bin=${BIN:-bin}
log=/dev/null
if [[ -n "${OUT:-}" ]]; then
	mkdir -p "$OUT"
	log=$OUT/scaling.txt
fi
say() { echo "$*" | tee -a "$log"; }

if command -v go >/dev/null; then
	mkdir -p "$bin"
	go build -o "$bin/txlab" ./cmd/txlab
	go test -c -o "$bin/mt.test" ./oracle/mt
fi
[[ -x $bin/txlab && -x $bin/mt.test ]] || { echo "scaling.sh: no $bin/txlab and $bin/mt.test, and no go to build them" >&2; exit 2; }
txlab=$(realpath "$bin/txlab")
mt=$(realpath "$bin/mt.test")
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

say "# $(date -u +%FT%TZ) $(uname -srm), $cores cores, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | xargs)"
say "# txlab $($txlab version 2>/dev/null | head -1)"

# 1. Campaigns: cases/s and CPU seconds, each shape once per round.
ws=()
for ((w = 1; w <= cores; w *= 2)); do ws+=("$w"); done
((ws[${#ws[@]} - 1] == cores)) || ws+=("$cores")
say ""
say "## fuzz --cases $cases --seed $seed --duration 0 --reduce=false (default oracles, embedded SQLite)"
say "round	shape	wall_s	cpu_s	cases	cases_per_s"
for ((r = 1; r <= rounds; r++)); do
	for w in "${ws[@]}"; do
		for shape in workers procs; do
			[[ $shape == procs && $w == 1 ]] && continue
			out=$work/$shape-$w-$r
			# bash's own time: the wall and the children's CPU, no /usr/bin/time needed.
			TIMEFORMAT='%R %U %S'
			{ time "$txlab" fuzz --cases "$cases" --seed "$seed" --duration 0 --reduce=false --json \
				--out "$out" "--$shape" "$w" >"$out.json" 2>"$out.err" || [[ $? == 1 ]]; } 2>"$work/time"
			read -r wall user sys <"$work/time"
			n=$(grep -m1 '"cases"' "$out.json" | tr -dc 0-9)
			say "$(awk -v r="$r" -v s="--$shape $w" -v wall="$wall" -v cpu="$user + $sys" -v u="$user" -v y="$sys" -v n="$n" \
				'BEGIN { printf "%d\t%s\t%.2f\t%.2f\t%d\t%.1f", r, s, wall, u + y, n, n / wall }')"
		done
	done
done

# 2. and 3. The checkers, at one core and at every core, side by side in one run.
say ""
# GOMAXPROCS from the environment, not -test.cpu: a benchmark written with
# b.Loop runs whole in its first call, which -test.cpu does not govern
# (golang/go#49980): -test.cpu 1,N gave N cores to both runs here.
say "## MT check, 10M transactions (BenchmarkCheckScale), GOMAXPROCS 1 and $cores"
for p in 1 "$cores"; do
	(cd oracle/mt && GOMAXPROCS=$p "$mt" -test.run '^$' -test.bench 'CheckScale/.*/10000000' -test.benchtime 2x \
		-test.benchmem) 2>&1 | grep -E '^Benchmark' | sed "s/^/GOMAXPROCS=$p /" | tee -a "$log"
done
say ""
say "## LWT check against Porcupine (BenchmarkVsPorcupine), GOMAXPROCS 1 and $cores"
for p in 1 "$cores"; do
	(cd oracle/mt && GOMAXPROCS=$p "$mt" -test.run '^$' -test.bench 'VsPorcupine' -test.benchtime 20x -test.count 2) 2>&1 |
		grep -E '^Benchmark' | sed "s/^/GOMAXPROCS=$p /" | tee -a "$log"
done
