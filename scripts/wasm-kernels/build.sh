#!/usr/bin/env bash
# Reproduces kernels-{wasm64,wasm32}-{simd128,relaxed}.wasm from kernels.c with Debian's LLVM 22 and checks them
# against kernels.sha256 (or, with --write, writes that file). Needs: apt-get install clang-22 lld-22.
# The files are committed, so a build needs no C compiler; test/unit/tooling/wasm-kernels.test.ts checks their sha256.
set -euo pipefail
cd "$(dirname "$0")"
PINNED='Debian clang version 22.1.8'
CLANG=${CLANG:-clang-22}
LD=${WASM_LD:-wasm-ld-22}
if ! "$CLANG" --version | grep -qF "$PINNED"; then
  echo "build.sh: needs $PINNED (apt-get install clang-22 lld-22); found: $("$CLANG" --version 2>&1 | head -1)" >&2
  exit 1
fi
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
for memory in wasm64 wasm32; do
  for variant in simd128 relaxed; do
    flags=(-msimd128)
    [ "$variant" = relaxed ] && flags+=(-mrelaxed-simd)
    ldflags=()
    [ "$memory" = wasm64 ] && ldflags+=(-mwasm64)
    name="kernels-$memory-$variant"
    "$CLANG" --target="$memory-unknown-unknown" -O3 "${flags[@]}" -nostdlib -ffreestanding -fno-builtin -Wall -Wextra -Werror \
      -c kernels.c -o "$out/$name.o"
    # Its own memory (exported, for the kernel tests); the splice takes the function bodies only.
    "$LD" "${ldflags[@]}" --no-entry --initial-memory=1048576 -o "$out/$name.wasm" "$out/$name.o"
  done
done
(cd "$out" && sha256sum kernels-*.wasm) > "$out/kernels.sha256"
if [ "${1:-}" = --write ]; then
  cp "$out"/kernels-*.wasm "$out/kernels.sha256" .
  echo "build.sh: wrote $(ls kernels-*.wasm | tr '\n' ' ')and kernels.sha256"
elif diff -u kernels.sha256 "$out/kernels.sha256"; then
  cmp -s <(cat kernels-*.wasm) <(cat "$out"/kernels-*.wasm) && echo "build.sh: the committed kernels are what kernels.c gives"
else
  echo "build.sh: kernels.c gives other files than the committed ones: run scripts/wasm-kernels/build.sh --write" >&2
  exit 1
fi
