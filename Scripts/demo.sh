#!/usr/bin/env bash
# The main job on the shipped example: look inside a document package, flatten it to a zip and
# bring it back, then edit it and see exactly what changed.
set -euo pipefail
docpkg=$(cd "$(dirname "$1")" && pwd)/$(basename "$1")
work=$2
rm -rf "$work" && mkdir -p "$work/received"
cp -R Fixtures/Notes.mydoc "$work/"
cd "$work"

run() { echo; echo "\$ docpkg $*"; "$docpkg" "$@"; }

run inspect Notes.mydoc
run cat Notes.mydoc Index.json
run pack Notes.mydoc -o Notes.zip
run inspect Notes.zip --depth 1
run unpack Notes.zip -o received
run diff Notes.mydoc received/Notes.mydoc && echo "(identical: exit 0)"
echo; echo "\$ echo 'Day 3. Sintra, in the fog.' | docpkg put received/Notes.mydoc Pages/day3.txt"
echo "Day 3. Sintra, in the fog." | "$docpkg" put received/Notes.mydoc Pages/day3.txt
run rm received/Notes.mydoc QuickLook/Thumbnail.png
status=0
run diff --stat Notes.zip received/Notes.mydoc || status=$?
echo "(different: exit $status)"
[ "$status" -eq 1 ]
run check received/Notes.mydoc
