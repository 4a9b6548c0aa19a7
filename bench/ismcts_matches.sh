#!/bin/bash
# The Experte-against-ISMCTS matches of docs/arena.md, kept run by run in bench/results/ismcts/
# so that they can grow over several sessions: a chunk already there is skipped.
#
#   bash bench/ismcts_matches.sh BUDGET GAME GAMES CHUNK SEAT...
#   bash bench/ismcts_matches.sh 0.25 runfast 240 12 experte ismcts ismcts
#
# One process, one game at a time (start one per core for both directions); then
# `python bench/arena_table.py` prints the table. GAMES and CHUNK: multiples of the seats.
# FROM=N starts at game N, so that a second process can take the upper half of one direction;
# a chunk another process is playing (its .tmp file) is skipped too — delete the .tmp files
# that a killed run left behind.
set -euo pipefail
budget=$1; game=$2; games=$3; chunk=$4; shift 4
here=$(cd "$(dirname "$0")/.." && pwd)
out=$here/bench/results/ismcts
python=${PYTHON:-$here/.venv/bin/python}
mkdir -p "$out"
tag=$(echo "$@" | tr ' ' '-')
for ((first = ${FROM:-0}; first < games; first += chunk)); do
  file=$out/$game-$tag-$budget-s1-$(printf %04d "$first").json
  [ -f "$file" ] || [ -f "$file.tmp" ] && continue
  "$python" "$here/bench/arena.py" --game "$game" --seats "$@" --games "$chunk" \
    --first "$first" --seed 1 --budget "$budget" --json "$file.tmp" > /dev/null
  mv "$file.tmp" "$file"
  echo "$(date +%T) $(basename "$file")"
done
