#!/usr/bin/env bash
# Runs a build command and fails when the compiler warned about a file of this repository (our code must build
# without warnings; the dependencies' warnings are theirs). Only files compiled in this run are seen: CI builds
# from nothing, so there every file is.
set -euo pipefail
cd "$(dirname "$0")/.."
root="$PWD"
log=$(mktemp)
trap 'rm -f "$log"' EXIT
"$@" 2>&1 | tee "$log"
warnings=$(grep -E "^$root/(Sources|Tests|Examples|Benchmarks|Plugins)/[^:]+:[0-9]+:[0-9]+: warning:" "$log" | sort -u || true)
if [[ -n "$warnings" ]]; then
  echo "without-warnings: the compiler warned about our code:" >&2
  echo "$warnings" >&2
  exit 1
fi
