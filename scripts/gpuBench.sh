#!/bin/bash
# The GPU measurements of docs/speed.md from a bundle (scripts/bundle.sh) on a Linux machine with an
# NVIDIA GPU and PyTorch, each step under its own time limit, logs in $OUT (default /tmp/gspo-bench).
# Usage: bash scripts/gpuBench.sh BUNDLE.tar.xz [budget_s] [steps]   (steps: a comma list of webgpu,grad,lesson,wasm1,wasm2; default all)
set -u
bundle=$(realpath "${1:?usage: bash scripts/gpuBench.sh BUNDLE.tar.xz [budget_s] [steps]}"); budget=${2:-540}; only=${3:-webgpu,grad,lesson,wasm1,wasm2}; t0=$(date +%s)
OUT=${OUT:-/tmp/gspo-bench}; mkdir -p "$OUT"
dir=$(mktemp -d); tar -xJf "$bundle" -C "$dir" || exit 9; cd "$dir/gspo"
icd=/usr/local/nvidia/share/vulkan/icd.d/nvidia_icd.json # where NVIDIA's container runtime puts it
[ -f $icd ] && export VK_ICD_FILENAMES=$icd VK_DRIVER_FILES=$icd
py=$(command -v python3)
gspo="bin/node node_modules/tsx/dist/cli.mjs src/cli/main.ts" # a command, not a function: timeout runs it
step() { # name limit_s command...: skipped once the budget is spent
  local name=$1 limit=$2; shift 2
  case ",$only," in *",$name,"*) ;; *) return ;; esac
  local left=$(( budget - ($(date +%s) - t0) ))
  if [ $left -lt 20 ]; then echo "skipped $name (budget spent)" | tee -a "$OUT/steps.txt"; return; fi
  [ "$limit" -gt $left ] && limit=$left
  local s=$(date +%s)
  timeout -s KILL "$limit" "$@" > "$OUT/$name.log" 2>&1; local rc=$?
  echo "$name rc=$rc $(( $(date +%s) - s )) s" | tee -a "$OUT/steps.txt"
}
{ nvidia-smi -L; nproc; uptime; $py -c 'import torch; print("torch", torch.__version__, "cuda", torch.cuda.is_available())'; } > "$OUT/env.log" 2>&1
step webgpu 220 $gspo bench --compare --backend webgpu --python "$py"
step grad 120 env GSPO="$gspo" bash scripts/gradCheck.sh webgpu "$py"
step lesson 60 $gspo train --preset relay-silence --backend webgpu --out "$dir/lesson"
step wasm1 200 env GSPO_THREADS=1 $gspo bench --compare --backend cpu --threads 1 --python "$py"
step wasm2 200 env GSPO_THREADS=2 $gspo bench --compare --backend cpu --threads 2 --python "$py"
cat "$OUT/steps.txt"
