#!/bin/sh
# Re-runs the experiments of this folder and stores each one's output beside it:
# out_<name>.txt on torch 2.13, out_<name>_<major.minor>.txt on any other torch (2.14:
# out_<name>_2.14.txt), so a run on one version never overwrites the other's record.
# Outputs name no path of this machine (_portable_output.py). An experiment that fails
# keeps its committed output; what it printed goes to out_<name>[_2.14].tmp (ignored by
# git), and the script exits 1 naming it.
#
# Usage: sh evidence/dynamo/run_all.sh [python] [exp_name.py ...]
#   python    an interpreter with torch, as a path (relative to where you run this) or a
#             command name; default: python
#   exp_*.py  only these experiments; default: every exp_*.py here
PY=${1:-python}
[ $# -gt 0 ] && shift
# A path is made absolute before the cd below; a bare name is looked up on PATH.
case $PY in
  /*) ;;
  */*) PY="$(pwd)/$PY" ;;
esac
cd "$(dirname "$0")" || exit 2
if ! SUFFIX=$("$PY" -c 'import torch; v = torch.__version__.split("+")[0].split("."); print("" if v[:2] == ["2", "13"] else "_" + ".".join(v[:2]))' 2>/dev/null); then
  echo "run_all.sh: '$PY' cannot import torch; name an interpreter that has it, e.g. sh evidence/dynamo/run_all.sh .venv/bin/python" >&2
  exit 2
fi
[ $# -gt 0 ] || set -- exp_*.py
failed=""
for f in "$@"; do
  if [ ! -f "$f" ]; then
    echo "run_all.sh: no experiment $f in evidence/dynamo; name one of: $(echo exp_*.py)" >&2
    exit 2
  fi
  name=$(basename "$f" .py)
  out="out_${name#exp_}$SUFFIX"
  echo "== $f -> $out.txt"
  "$PY" "$f" > "$out.tmp" 2>&1
  status=$?
  if [ $status -eq 0 ]; then
    "$PY" _portable_output.py "$out.tmp" "$out.txt" && rm -f "$out.tmp" || exit 2
  else
    "$PY" _portable_output.py "$out.tmp" "$out.tmp" || exit 2
    echo "   FAILED (exit $status); its output is in evidence/dynamo/$out.tmp"
    failed="$failed $f"
  fi
done
if [ -n "$failed" ]; then
  echo "run_all.sh: failed:$failed (their committed outputs are unchanged)" >&2
  exit 1
fi
