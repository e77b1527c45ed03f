#!/usr/bin/env bash
# Parity of the CLI (`gspo logprobs`, `gspo grad`) against the Python oracle, on both backends.
#   scripts/check_all.sh [WORKDIR]      (env: BACKENDS="cpu webgpu", SAMPLES=24, METHOD=auto|torch|fd)
# Makes a random checkpoint (numpy writer; also a torch-written one when torch +
# safetensors are importable), the batch files of make_batches.py, runs the CLI on
# each and the oracle's check on each output. Prints PASS/FAIL per case; exit 1 if any FAIL.
set -u
cd "$(dirname "$0")/.."
W=${1:-$(mktemp -d -t gspo_check.XXXXXX)}
mkdir -p "$W"
BACKENDS=${BACKENDS:-"cpu webgpu"}
SAMPLES=${SAMPLES:-24}
METHOD=${METHOD:-auto}
PY=${PYTHON:-python3}
pass=0; fail=0; skip=0
result() { # status name detail
  printf '%-4s %s%s\n' "$1" "$2" "${3:+  ($3)}"
  case $1 in PASS) pass=$((pass+1));; FAIL) fail=$((fail+1));; *) skip=$((skip+1));; esac
}

CK="$W/ckpt.safetensors"
$PY scripts/make_checkpoint.py --out "$CK" --seed 1 --n-layer 2 --n-head 4 --n-embd 32 \
  --block-size 24 --vocab-size 20 --std 0.3 || { echo "FAIL make_checkpoint"; exit 1; }
CKPTS="$CK"
if $PY -c 'import torch, safetensors' 2>/dev/null; then
  $PY scripts/make_checkpoint.py --torch --out "$W/ckpt_torch.safetensors" --seed 2 --n-layer 1 --n-head 2 \
    --n-embd 16 --block-size 12 --vocab-size 9 --std 0.5 && CKPTS="$CKPTS $W/ckpt_torch.safetensors"
fi
$PY scripts/make_batches.py --checkpoint "$CK" --out-dir "$W/batches" --seed 1 || { echo "FAIL make_batches"; exit 1; }

TOKENS_LIST=("3,1,4,1,5,9,2,6,5,3,5,8,9,7,9,3,2,3,8,4,6,2,6,4" "0,7" "5,5")
for b in $BACKENDS; do
  mkdir -p "$W/$b"
  for ck in $CKPTS; do
    cn=$(basename "$ck" .safetensors)
    for i in "${!TOKENS_LIST[@]}"; do
      toks=${TOKENS_LIST[$i]}
      if [ "$cn" != ckpt ]; then toks=$(echo "$toks" | tr ',' '\n' | awk '{printf "%s%d", (NR>1?",":""), $1 % 9}' | cut -d, -f1-12); fi
      out="$W/$b/logprobs_${cn}_$i.json"
      npm run -s gspo -- logprobs --checkpoint "$ck" --tokens "$toks" --backend "$b" >"$out" 2>"$out.err"
      rc=$?
      if [ $rc -ne 0 ]; then result FAIL "$b logprobs $cn #$i" "CLI exit $rc: $(tail -n1 "$out.err")"; continue; fi
      if msg=$($PY scripts/oracle.py check-logprobs --checkpoint "$ck" --tokens "$toks" --cli-json "$out" 2>&1); then
        result PASS "$b logprobs $cn #$i" "$msg"
      else
        result FAIL "$b logprobs $cn #$i" "$msg"
      fi
    done
  done
  for batch in "$W"/batches/batch_*.json; do
    case_name=$(basename "$batch" .json); case_name=${case_name#batch_}
    out="$W/$b/grad_$case_name.json"; g="$W/$b/grad_$case_name.safetensors"; log="$W/$b/check_$case_name.txt"
    npm run -s gspo -- grad --checkpoint "$CK" --batch "$batch" --out "$g" --backend "$b" >"$out" 2>"$out.err"
    rc=$?
    if [ $rc -ne 0 ]; then
      if [ "$case_name" = edge_all_masked ] && [ $rc -eq 2 ]; then
        result SKIP "$b grad $case_name" "optional case rejected by the CLI: $(tail -n1 "$out.err")"
      else
        result FAIL "$b grad $case_name" "CLI exit $rc: $(tail -n1 "$out.err")"
      fi
      continue
    fi
    if $PY scripts/oracle.py check-grad --checkpoint "$CK" --batch "$batch" --cli-json "$out" --cli-grad "$g" \
        --method "$METHOD" --samples "$SAMPLES" >"$log" 2>&1; then
      result PASS "$b grad $case_name" "$(grep -E '^(ok|BAD) +loss' "$log" | head -n1)"
    else
      result FAIL "$b grad $case_name" "$(tail -n1 "$log"); details in $log"
    fi
  done
done
echo "passed $pass, failed $fail, skipped $skip (work dir $W)"
[ $fail -eq 0 ]
