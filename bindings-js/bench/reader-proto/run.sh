#!/usr/bin/env bash
# Builds the prototype (opt-level 3, or $OPT: z/s/2) with the repo's pinned wasm-bindgen and
# wasm-opt, then runs bench.mjs. Usage: bench/reader-proto/run.sh [--build-only]
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../../.." && pwd)
opt=${OPT:-3}
export CARGO_TARGET_DIR="$root/target/reader-proto"
features="--enable-bulk-memory --enable-nontrapping-float-to-int --enable-sign-ext --enable-mutable-globals --enable-reference-types --enable-multivalue"
(cd "$here" && CARGO_PROFILE_RELEASE_OPT_LEVEL=$opt cargo build --offline --release --target wasm32-unknown-unknown)
out="$here/pkg-$opt"
rm -rf "$out"
"$root/.tools/bin/wasm-bindgen" --target nodejs --no-typescript --out-dir "$out" \
  "$CARGO_TARGET_DIR/wasm32-unknown-unknown/release/reader_proto.wasm"
"$root/bindings-js/node_modules/.bin/wasm-opt" $features "-O$opt" "$out/reader_proto_bg.wasm" -o "$out/reader_proto_bg.wasm"
echo '{"type":"commonjs"}' > "$out/package.json"
ls -l "$out/reader_proto_bg.wasm"
[ "${1:-}" = --build-only ] || node "$here/bench.mjs" "$out"
