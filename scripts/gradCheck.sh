#!/bin/bash
# The CLI's loss and every gradient tensor against the float64 oracle (scripts/oracle.py, torch autograd where
# torch is there) on one engine, at two sizes: the oracle test's tiny model and the page's default width (2x4x64),
# whose shapes take a hardware GPU's layouts (tiled attention, split matmuls, one dispatch per (b, h)).
# Usage: bash scripts/gradCheck.sh BACKEND [PYTHON]   (run from the repository or bundle root; GSPO overrides the CLI)
# Exit 0: every case passes; 1: a mismatch (the failing case's output is printed).
set -u
backend=${1:?usage: bash scripts/gradCheck.sh BACKEND [PYTHON]}; py=${2:-python3}
gspo=${GSPO:-"npx tsx src/cli/main.ts"}
dir=$(mktemp -d); trap 'rm -rf "$dir"' EXIT
fails=0
for size in "tiny 2 2 16 12 11" "default 2 4 64 32 40"; do
  set -- $size; name=$1
  ck=$dir/$name.safetensors
  $py scripts/make_checkpoint.py --out "$ck" --seed 3 --n-layer $2 --n-head $3 --n-embd $4 --block-size $5 --vocab-size $6 --std 0.3 > /dev/null || exit 2
  $py scripts/make_batches.py --checkpoint "$ck" --out-dir "$dir/$name" --seed 4 > /dev/null 2>&1 || exit 2
  for c in gspo_group_narrow_kl gspo_batch_wide grpo_batch_wide_kl grpo_none_narrow edge_all_masked; do
    b=$dir/$name/batch_$c.json g=$dir/$name-$c.safetensors j=$dir/$name-$c.json
    if ! $gspo grad --checkpoint "$ck" --batch "$b" --out "$g" --backend "$backend" > "$j" 2> "$dir/err"; then
      echo "FAIL $name $c: gspo grad failed"; cat "$dir/err"; fails=$((fails + 1)); continue
    fi
    if out=$($py scripts/oracle.py check-grad --checkpoint "$ck" --batch "$b" --cli-json "$j" --cli-grad "$g" --samples 6 2>&1); then
      echo "ok   $name $c"
    else
      echo "FAIL $name $c"; echo "$out"; fails=$((fails + 1))
    fi
  done
done
echo "$fails failing"
[ $fails -eq 0 ]
