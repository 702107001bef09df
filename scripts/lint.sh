#!/usr/bin/env bash
# Formatting and lint, as CI checks them (scripts/test.sh runs this after the tests):
#   scripts/lint.sh            clang-format (every C++ file) and clang-tidy (every library source)
#   scripts/lint.sh --format   clang-format only; --fix rewrites the files instead of failing
#   scripts/lint.sh --tidy     clang-tidy only (needs build/compile_commands.json: scripts/build.sh)
# clang-tidy reads .clang-tidy; it checks the unity batches the build compiles, so each heavy header
# is parsed once per eight sources, and reports what it finds in the project's own files. A batch
# that passed is not checked again until its preprocessed text changes (~/.cache/tunefarm-tidy).
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$root"
format=1 tidy=1 fix=0
for arg in "$@"; do
  case "$arg" in
    --format) tidy=0 ;;
    --tidy) format=0 ;;
    --fix) fix=1 ;;
    *) echo "lint: unknown option '$arg' (lint.sh [--format [--fix] | --tidy])" >&2; exit 2 ;;
  esac
done
status=0

if (( format )); then
  mapfile -t sources < <(git ls-files '*.cc' '*.h')
  if (( fix )); then
    clang-format -i "${sources[@]}"
  else
    mapfile -t unformatted < <(for f in "${sources[@]}"; do
      clang-format --output-replacements-xml "$f" | grep -q '<replacement ' && echo "$f"; done)
    if (( ${#unformatted[@]} )); then
      echo "lint: ${#unformatted[@]} file(s) not as .clang-format has them (scripts/lint.sh --format --fix):" >&2
      printf '  %s\n' "${unformatted[@]}" >&2
      status=1
    else
      echo "lint: clang-format: ${#sources[@]} files formatted"
    fi
  fi
fi

if (( tidy )); then
  # Batches that passed are remembered by their preprocessed text (scripts/tidy.py): only what a
  # change reaches is checked again.
  /usr/bin/python3 "$root/scripts/tidy.py" --root "$root" --jobs "$(nproc)" || status=1
fi
exit "$status"
