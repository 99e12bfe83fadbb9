#!/usr/bin/env bash
# Formats the Swift sources with the toolchain's swift-format and the committed .swift-format.
# `Scripts/format.sh --check` changes nothing and fails, listing the files, if formatting would change any
# (`make format-check`, run by CI). `Scripts/format.sh --lint` also reports the lint rules of .swift-format
# (documentation comments), strictly.
set -euo pipefail
cd "$(dirname "$0")/.."
dirs=(Sources Tests Examples)
case "${1:-}" in
--check)
  scratch=$(mktemp -d "${TMPDIR:-/tmp}/docpkg-format.XXXXXX")
  trap 'rm -rf "$scratch"' EXIT
  cp -R .swift-format "${dirs[@]}" "$scratch/"
  (cd "$scratch" && swift format --in-place --parallel --recursive "${dirs[@]}")
  status=0
  for dir in "${dirs[@]}"; do
    diff -r -u "$dir" "$scratch/$dir" > "$scratch/$dir.diff" || status=1
  done
  if [ "$status" -ne 0 ]; then
    sed -n '1,200p' "$scratch"/*.diff
    echo "format-check: not formatted (run Scripts/format.sh):" >&2
    grep -h '^diff -r -u ' "$scratch"/*.diff | awk '{ print "  " $4 }' >&2
    exit 1
  fi
  echo "format-check: every Swift file is formatted"
  ;;
--lint)
  swift format lint --strict --parallel --recursive "${dirs[@]}"
  ;;
*)
  swift format --in-place --parallel --recursive "${dirs[@]}"
  ;;
esac
