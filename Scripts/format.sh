#!/usr/bin/env bash
# Formats the Swift sources with the toolchain's swift-format and the committed .swift-format.
# `Scripts/format.sh --lint` only reports what it would change.
set -euo pipefail
cd "$(dirname "$0")/.."
if [ "${1:-}" = "--lint" ]; then
  swift format lint --recursive Sources Tests Examples
else
  swift format --in-place --recursive Sources Tests Examples
fi
