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

# The library's layers, each using only those below it (a folder of Sources/DocumentPackage/ per layer):
# FileSystem (locks, durability, what a file system can do, names) under Save (the save sequence), under Versions
# (the version store, which a save tells through Save's `ReplacedStateKeeper` and never calls), under Package
# (`PackageFile`, which ties saving and versions together for apps and the layers above).
lib='Sources/DocumentPackage'
# The types a folder declares at the top level.
declared_types() {
  grep -hoE '^(public |package |internal |private |fileprivate |final |indirect )*(struct|class|enum|actor|protocol|typealias) [A-Z][A-Za-z0-9]*' \
    "$lib/$1"/*.swift | awk '{print $NF}' | sort -u
}
# Fails if a Swift source of `lower` names a type declared in any of the `upper` folders (comments aside).
refuse_upward() {
  local lower="$1" upper types violations
  shift
  for upper in "$@"; do
    types=$(declared_types "$upper" | paste -sd '|')
    violations=$(grep -nwE "$types" "$lib/$lower"/*.swift | grep -vE '^[^:]+:[0-9]+:[[:space:]]*//' || true)
    if [[ -n "$violations" ]]; then
      echo "check-layering: $lower/ uses $upper/ (a layer above it):" >&2
      echo "$violations" >&2
      exit 1
    fi
  done
}
refuse_upward FileSystem Save Versions Package Document
refuse_upward Save Versions Package Document
refuse_upward Versions Package Document
echo "check-layering: ok (FileSystem under Save under Versions under Package)"
