#!/usr/bin/env bash
# Regenerates the tuning records shipped with tunefarm (tuner/seeds/, see tuner/seed_records.h) for
# the machine it runs on: xgb runs from nothing on workloads that no benchmark measures the search
# on (gemm-256, bert-qkv, odd-1000x77x333 of ../shared/workloads/dense.json), one thread, exported
# as JSON lines to tuner/seeds/dense.<cpu>.jsonl. Run it on an idle machine of the kind it is for.
#   usage: scripts/make-seed-records.sh [--trials N]
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
trials=160
while [ $# -gt 0 ]; do
  case "$1" in
    --trials) trials="$2"; shift 2 ;;
    *) echo "make-seed-records.sh: unknown option $1 (usage: scripts/make-seed-records.sh [--trials N])" >&2; exit 2 ;;
  esac
done
"$root/scripts/build.sh" tunefarm tunefarm-measure-worker
B="$root/build/cli/tunefarm"
db="$(mktemp -d /tmp/tunefarm-seeds.XXXXXX)/seeds.db"
for shape in 256,256,256 128,768,768 1000,77,333; do
  "$B" tune --op dense --shape "$shape" --trials "$trials" --tuner xgb --threads 1 --no-seed-records --db "$db"
done
"$B" export --db "$db" -o "$db.jsonl"
cpu="$(head -1 "$db.jsonl" | sed -n 's/.*-mcpu=\([^ "]*\).*/\1/p')"
out="$root/tuner/seeds/dense.${cpu:-unknown}.jsonl"
mv "$db.jsonl" "$out"
echo "wrote $out ($(wc -l < "$out") records); rebuild to ship them"
