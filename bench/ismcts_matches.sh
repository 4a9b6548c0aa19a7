#!/bin/bash
# The Experte-against-ISMCTS matches of docs/arena.md, kept run by run in bench/results/ismcts/
# so that they can grow over several sessions: a chunk already there is skipped.
#
#   bash bench/ismcts_matches.sh BUDGET GAME GAMES CHUNK SEAT...
#   bash bench/ismcts_matches.sh 0.25 runfast 240 12 experte ismcts ismcts
#   bash bench/ismcts_matches.sh plan          # every match issue 20 asks for, in order
#
# GAMES is the most a match plays: it stops earlier once its kept runs give the first seat's
# share of games won an interval of at most ±7 points (`bench/arena_table.py --enough`, after at
# least 60 games); ENOUGH=0 plays all GAMES.
#
# One process plays one game at a time; start one per core (`plan` twice on two cores: the
# processes share the chunks). A process claims a chunk by creating its .tmp file, so two never
# play the same one; delete the .tmp files that a killed run left behind. FROM=N starts at game N.
# Then `python bench/arena_table.py --write docs/arena.md` puts the table into the docs.
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
out=$here/bench/results/ismcts
python=${PYTHON:-python3}  # the interpreter of the venv the project is installed in
mkdir -p "$out"

match() {  # BUDGET GAME GAMES CHUNK SEAT...
  local budget=$1 game=$2 games=$3 chunk=$4
  shift 4
  local tag first file
  tag=$(echo "$@" | tr ' ' '-')
  for ((first = ${FROM:-0}; first < games; first += chunk)); do
    file=$out/$game-$tag-$budget-s1-$(printf %04d "$first").json
    [ -f "$file" ] && continue
    if [ "${ENOUGH:-1}" != 0 ] && "$python" "$here/bench/arena_table.py" --enough "$game" \
        "$budget" "$@" --dir "$out" > /dev/null; then
      break
    fi
    (set -o noclobber; : > "$file.tmp") 2> /dev/null || continue  # another process has it
    if [ -f "$file" ]; then  # another process finished it between the test above and the claim
      rm -f "$file.tmp"
      continue
    fi
    "$python" "$here/bench/arena.py" --game "$game" --seats "$@" --games "$chunk" \
      --first "$first" --seed 1 --budget "$budget" --json "$file.tmp" > /dev/null
    mv "$file.tmp" "$file"
    echo "$(date +%T) $(basename "$file")"
  done
}

if [ "${1:-}" = plan ]; then
  # Issue 20: both directions of every game at 0.25 s and 1 s, each until ±7 points; the
  # quicker games first (a climbing game at 1 s takes about 7 minutes).
  for budget in 0.25 1.0; do
    match "$budget" runfast 240 12 experte ismcts ismcts
    match "$budget" runfast 240 12 ismcts experte experte
    match "$budget" schwimmen 240 12 experte ismcts ismcts
    match "$budget" schwimmen 240 12 ismcts experte experte
    match "$budget" scat 240 6 experte ismcts ismcts
    match "$budget" scat 240 6 ismcts experte experte
    match "$budget" climbing 200 4 ismcts experte experte experte
    match "$budget" climbing 200 4 experte ismcts ismcts ismcts
  done
else
  match "$@"
fi
