#!/usr/bin/env bash
# Fails when C's system library is imported, or Foundation's file I/O (FileManager, FileHandle) is used, outside
# the one system layer.
#
# Every system call and file operation of the libraries and the CLI goes through
# Sources/DocumentPackage/Internals/ (`Syscalls`, `AtomicFile`, `LocalFiles`, `TemporaryName`, ...), so that the
# Darwin side compiles by design and errors are made one way (`PackageError`, naming the path). C targets
# (Sources/C*) are the layer's own C. Examples, tests and benchmarks are clients (outside Sources/) and may call
# libc and FileManager as any app does.
set -euo pipefail
cd "$(dirname "$0")/.."

layer='Sources/DocumentPackage/Internals/'
pattern='^[[:space:]]*(@_exported[[:space:]]+)?import[[:space:]]+(Glibc|Darwin|Musl|CSystemShims|CLibCrypto|CryptoKit)\b|canImport\((Glibc|Darwin|Musl)\)|\b(Glibc|Darwin|Musl)\.[a-z_]'

# Fails with `message` if a Swift source outside the layer matches `regex`.
refuse_outside_layer() {
  local regex="$1" message="$2" violations
  violations=$(grep -rnE "$regex" Sources --include='*.swift' | grep -v "^$layer" || true)
  if [[ -n "$violations" ]]; then
    echo "check-layering: $message:" >&2
    echo "$violations" >&2
    exit 1
  fi
}

refuse_outside_layer "$pattern" "libc imported outside $layer (call it through Syscalls instead)"
refuse_outside_layer '\b(FileManager|FileHandle)\b' "Foundation file I/O outside $layer (use Syscalls or LocalFiles instead)"
echo "check-layering: ok (libc and file I/O only in $layer)"
