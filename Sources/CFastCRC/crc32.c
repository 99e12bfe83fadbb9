// zlib's `crc32`, computed by libdeflate.
//
// libarchive checks every zip entry's CRC-32 by calling zlib's `crc32` on each block it hands
// out. zlib 1.2.13's table-driven CRC is several times slower than libdeflate's (PCLMUL on x86-64,
// PMULL on arm64): profiles of `docpkg diff PACKAGE PACKAGE.zip` spent about a quarter of their
// time in zlib's crc32.
//
// Defining `crc32` in the executable interposes it: the dynamic linker looks in the executable
// first, so libarchive's calls resolve to this definition. It is the same function (same
// polynomial and conditioning; a NULL buffer gives 0, as in zlib), so every check libarchive
// makes -- bad CRC, local header and central directory disagreeing -- stays exactly as it was;
// only the speed changes. Other users of zlib's crc32 in the process get the values zlib gives.
//
// Only the `docpkg` executable links this target (see Package.swift). The DocumentArchive library
// does not: an app that links it keeps zlib's own crc32, since a library must not replace global
// symbols of the program that uses it. ExamplesTests checks both bindings.

#include <libdeflate.h>
#include <stddef.h>

#include "CFastCRC.h"

unsigned long docpkg_crc32(unsigned long crc, const void *buffer, size_t length) {
  if (buffer == NULL) return 0UL;
  return libdeflate_crc32((unsigned int)crc, buffer, length);
}

unsigned long crc32(unsigned long crc, const unsigned char *buf, unsigned int len) {
  return docpkg_crc32(crc, buf, len);
}

unsigned long crc32_z(unsigned long crc, const unsigned char *buf, size_t len) {
  return docpkg_crc32(crc, buf, len);
}
