#!/usr/bin/env bash
# Vendors the WASI 0.2 WIT packages into wit/deps/, one file each, from the wasmtime-wasi crate
# this workspace depends on (so host bindings and guests agree with the linker's version).
# CI runs it and fails if wit/deps/ changes.
set -euo pipefail
cd "$(dirname "$0")/.."
version=$(cargo metadata --format-version 1 --locked 2>/dev/null \
  | python3 -c 'import json,sys; print(next(p["version"] for p in json.load(sys.stdin)["packages"] if p["name"]=="wasmtime-wasi"))')
src=$(cargo metadata --format-version 1 --locked 2>/dev/null \
  | python3 -c 'import json,sys,os; print(os.path.dirname(next(p["manifest_path"] for p in json.load(sys.stdin)["packages"] if p["name"]=="wasmtime-wasi")))')
mkdir -p wit/deps
for pkg in cli clocks filesystem io random sockets; do
  cp "$src/src/p2/wit/deps/$pkg.wit" "wit/deps/$pkg.wit"
done
echo "wit/deps: WASI from wasmtime-wasi $version"
