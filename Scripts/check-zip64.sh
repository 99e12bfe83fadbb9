#!/usr/bin/env bash
# Long check, outside the test suite: a package with a 4.5 GiB file (sparse, so cheap to make) packs to
# zip64 that unzip -t, Python's zipfile and docpkg itself read back byte for byte, stored (--level 0:
# sizes and the next entry's offset above 4 GiB) and deflated (compressed size small, size above 4 GiB).
# usage: Scripts/check-zip64.sh [DOCPKG]   (needs ~10 GB free in $TMPDIR)
set -euo pipefail
docpkg=${1:-.build/release/docpkg}
work=$(mktemp -d "${TMPDIR:-/tmp}/docpkg-zip64.XXXXXX")
trap 'rm -rf "$work"' EXIT
mkdir -p "$work/Huge.pkg"
truncate -s 4800000000 "$work/Huge.pkg/a-big.bin"
printf 'tail marker' | dd of="$work/Huge.pkg/a-big.bin" bs=1 seek=4799999000 conv=notrunc status=none
echo "after the big one" > "$work/Huge.pkg/b-small.txt"
for level in 0 1; do
  zip="$work/huge-$level.zip"
  "$docpkg" pack "$work/Huge.pkg" -o "$zip" --level "$level" --quiet
  unzip -tq "$zip"
  python3 - "$zip" <<'PY'
import sys, zipfile
with zipfile.ZipFile(sys.argv[1]) as z:
    big = z.getinfo("Huge.pkg/a-big.bin")
    assert big.file_size == 4800000000, big.file_size
    assert z.read("Huge.pkg/b-small.txt") == b"after the big one\n"
    with z.open(big) as f:
        f.seek(4799999000)
        assert f.read(11) == b"tail marker"
print("python zipfile: ok")
PY
  mkdir "$work/out-$level"
  "$docpkg" unpack "$zip" -o "$work/out-$level" --quiet --max-ratio 1000000 > /dev/null
  cmp "$work/Huge.pkg/a-big.bin" "$work/out-$level/Huge.pkg/a-big.bin"
  cmp "$work/Huge.pkg/b-small.txt" "$work/out-$level/Huge.pkg/b-small.txt"
  "$docpkg" cat "$zip" b-small.txt | grep -q "after the big one"
  rm -rf "$work/out-$level" "$zip"
  echo "zip64 level $level: ok"
done
