#!/usr/bin/env bash
# Installs what building and testing need on Debian/Ubuntu, once: libarchive's, libdeflate's and libcrypto's headers, and the
# peer tools the interop, crash and differential tests run (bsdtar, zip/unzip, 7z, go, strace, git, patch, python3).
# With --interop, also the real clients `make interop` runs: LibreOffice Writer (no GUI), pdftotext,
# pandoc, epubcheck and a JDK (for jar, and for epubcheck itself).
set -euo pipefail

need=()
if [ "${1:-}" = "--interop" ]; then
  command -v soffice >/dev/null || need+=(libreoffice-writer-nogui)
  command -v pdftotext >/dev/null || need+=(poppler-utils)
  command -v pandoc >/dev/null || need+=(pandoc)
  [ -f /usr/bin/epubcheck ] || need+=(epubcheck)
  command -v jar >/dev/null || need+=(default-jdk-headless)
fi
# With --docs, the headless browser `make docs-test` opens the built documentation in.
if [ "${1:-}" = "--docs" ]; then
  command -v chromium >/dev/null || need+=(chromium)
fi
pkg-config --exists libarchive 2>/dev/null || need+=(libarchive-dev pkg-config)
[ -f /usr/include/libdeflate.h ] || need+=(libdeflate-dev)
pkg-config --exists libcrypto 2>/dev/null || need+=(libssl-dev)  # SHA-256 (DocumentPackage's CLibCrypto)
command -v bsdtar >/dev/null || need+=(libarchive-tools)
command -v zip >/dev/null || need+=(zip)
command -v unzip >/dev/null || need+=(unzip)
command -v strace >/dev/null || need+=(strace)
command -v git >/dev/null || need+=(git)
command -v patch >/dev/null || need+=(patch)  # docpkg diff -p output is applied with GNU patch in the tests
command -v python3 >/dev/null || need+=(python3)
command -v xz >/dev/null || need+=(xz-utils)
command -v zstd >/dev/null || need+=(zstd)
command -v file >/dev/null || need+=(file)  # the ODF/EPUB test asks file(1) what our zips are
command -v 7z >/dev/null || need+=(p7zip-full)  # ArchiveDifferentialTests: zips 7-Zip writes
command -v go >/dev/null || need+=(golang-go)  # ArchiveDifferentialTests: self-extractors Go's archive/zip writes
# ArchiveDifferentialTests' corpus: Go's archive/tar and archive/zip test data (golang-src, which golang-go pulls in)
# and the archives of Python's test suite (CorpusSource.swift finds them).
compgen -G "/usr/lib/go*/src/archive/tar/testdata" >/dev/null || need+=(golang-src)
# Debian's own Python (not whichever python3 comes first on PATH): the package must exist in its archive.
python_version="$(/usr/bin/python3 -c 'import sys; print("%d.%d" % sys.version_info[:2])' 2>/dev/null || echo 3.11)"
compgen -G "/usr/lib/python3.*/test/testtar.tar" >/dev/null || need+=("libpython$python_version-testsuite")
command -v man >/dev/null || need+=(man-db)  # the install test reads the installed page with man -l
[ -x /usr/bin/time ] || need+=(time)  # GNU time: the benchmarks' peak RSS (Benchmarks/bench.py)
command -v mkfs.xfs >/dev/null || [ -x /usr/sbin/mkfs.xfs ] || need+=(xfsprogs)  # VersionSafetyTests loop-mount an xfs image (reflinks)

if [ ${#need[@]} -eq 0 ]; then exit 0; fi
echo "setup: installing ${need[*]}" >&2
sudo=""
if [ "$(id -u)" -ne 0 ]; then sudo="sudo"; fi
export DEBIAN_FRONTEND=noninteractive
$sudo apt-get update -qq
$sudo apt-get install -y -qq --no-install-recommends "${need[@]}" >/dev/null
