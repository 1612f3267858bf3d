#!/bin/sh
# Re-runs every experiment in this directory and stores its output next to it as out_<name>.txt.
# Usage: sh evidence/dynamo/run_all.sh [path-to-python]
PY=${1:-python}
cd "$(dirname "$0")" || exit 1
for f in exp_*.py; do
  name=$(basename "$f" .py)
  echo "== $f"
  "$PY" "$f" > "out_${name#exp_}.txt" 2>&1
  echo "   exit=$?"
done
