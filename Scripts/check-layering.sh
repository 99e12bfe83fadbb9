#!/usr/bin/env bash
# Fails when C's system library is imported outside the one system layer.
#
# Every system call of the libraries and the CLI goes through Sources/DocumentPackage/Internals/
# (`Syscalls`, `AtomicFile`, `TemporaryName`, ...), so that the Darwin side compiles by design and
# errors are made one way. C targets (Sources/C*) are the layer's own C. Examples, tests and
# benchmarks are clients and may call libc as any app does.
set -euo pipefail
cd "$(dirname "$0")/.."

layer='Sources/DocumentPackage/Internals/'
pattern='^[[:space:]]*(@_exported[[:space:]]+)?import[[:space:]]+(Glibc|Darwin|Musl|CSystemShims|CLibCrypto|CryptoKit)\b|canImport\((Glibc|Darwin|Musl)\)|\b(Glibc|Darwin|Musl)\.[a-z_]'

violations=$(grep -rnE "$pattern" Sources --include='*.swift' | grep -v "^$layer" || true)
if [[ -n "$violations" ]]; then
  echo "check-layering: libc imported outside $layer (call it through Syscalls instead):" >&2
  echo "$violations" >&2
  exit 1
fi
echo "check-layering: ok (libc only in $layer)"
