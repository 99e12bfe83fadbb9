#!/usr/bin/env bash
# The main job on the shipped example: look inside a document package and read one file of it.
set -euo pipefail
docpkg=$1
work=$2
rm -rf "$work" && mkdir -p "$work"
cp -R Fixtures/Notes.mydoc "$work/"
doc="$work/Notes.mydoc"

echo "\$ docpkg inspect Notes.mydoc"
"$docpkg" inspect "$doc"
echo
echo "\$ docpkg cat Notes.mydoc Index.json"
"$docpkg" cat "$doc" Index.json
