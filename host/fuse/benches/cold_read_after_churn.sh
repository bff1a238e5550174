#!/usr/bin/env bash
# A cold read of 64 MiB through `computer mount` in a workspace file after churn (three 64 MiB
# files written, a tree of 1,100 directories made and removed, two of the files removed), then
# the same read after `computer compact`. Needs root (FUSE, dropping the page cache).
#   cargo build -p computer-cli && COMPUTER=$CARGO_TARGET_DIR/debug/computer \
#     bash host/fuse/benches/cold_read_after_churn.sh
set -euo pipefail
computer=${COMPUTER:-computer}
dir=$(mktemp -d /var/tmp/computer-churn.XXXXXX)
ws=$dir/w.db mnt=$dir/mnt
mkdir -p "$mnt"
head -c 64M /dev/urandom >"$dir/reference"
"$computer" --workspace "$ws" fs ls / >/dev/null
"$computer" --workspace "$ws" mount "$mnt" >/dev/null 2>&1 &
trap '"$computer" umount "$mnt" >/dev/null 2>&1 || true; rm -rf "$dir"' EXIT
for _ in $(seq 50); do mountpoint -q "$mnt" && break; sleep 0.1; done
cd "$mnt"
for i in 1 2 3; do head -c 64M /dev/urandom >"junk$i"; done
for a in $(seq 10); do for b in $(seq 10); do mkdir -p "t/$a/$b/"{1..10}; done; done
rm -rf t junk1 junk3
cp "$dir/reference" big
cd /
cold_read() {
  sync
  echo 3 >/proc/sys/vm/drop_caches
  local start end
  start=$(date +%s%N)
  cat "$mnt/big" >/dev/null
  end=$(date +%s%N)
  echo "$1: cold read of 64 MiB $(((end - start) / 1000000)) ms, file $(du -m "$ws" | cut -f1) MiB"
}
cold_read "after churn"
"$computer" --workspace "$ws" compact
cold_read "after compact"
cmp "$dir/reference" "$mnt/big"
