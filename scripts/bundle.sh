#!/bin/bash
# A self-contained copy of the CLI for a machine without Node or a registry (a lent GPU box):
# the node binary, src/, shaders/, public/, the Python oracles and the few packages the CLI loads
# (tsx, esbuild, Dawn's linux-x64 build of `webgpu`, comlink, zustand, fflate, QuickJS), packed with xz.
# Usage: bash scripts/bundle.sh OUT.tar.xz   (then on the other machine: bash scripts/gpuBench.sh OUT.tar.xz)
set -euo pipefail
out=$(realpath -m "${1:?usage: bash scripts/bundle.sh OUT.tar.xz}")
root=$(cd "$(dirname "$0")/.." && pwd)
stage=$(mktemp -d); trap 'rm -rf "$stage"' EXIT
g=$stage/gspo; nm=$root/node_modules
mkdir -p "$g/bin" "$g/scripts" "$g/node_modules/@esbuild" "$g/node_modules/webgpu/dist"
cp -r "$root"/{src,shaders,public,package.json,tsconfig.json} "$g/"
cp "$root"/scripts/*.py "$root"/scripts/gradCheck.sh "$root"/scripts/gpuProfile.ts "$g/scripts/"
cp -r "$nm"/{tsx,esbuild,comlink,zustand,fflate,quickjs-emscripten-core} "$g/node_modules/"
cp -r "$nm/@jitl" "$g/node_modules/" # the user-task sandbox (QuickJS), which the env registry loads
cp -r "$nm/@esbuild/linux-x64" "$g/node_modules/@esbuild/"
cp "$nm"/webgpu/{index.js,package.json,types.d.ts} "$g/node_modules/webgpu/"
cp -r "$nm/webgpu/dist/linux-x64" "$g/node_modules/webgpu/dist/"
cp "$(command -v node)" "$g/bin/node"
tar -cJf "$out" -C "$stage" gspo
echo "wrote $out ($(du -h "$out" | cut -f1))"
