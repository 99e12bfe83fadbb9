#ifndef DOCPKG_CFASTCRC_H
#define DOCPKG_CFASTCRC_H

#include <stddef.h>

// This target defines zlib's `crc32` and `crc32_z` with libdeflate (see crc32.c), so that
// libarchive's zip reader checks CRCs at libdeflate's speed. Only the docpkg executable links it.

/// libdeflate's CRC-32 under a name of our own: the same function as zlib's `crc32`.
unsigned long docpkg_crc32(unsigned long crc, const void *buffer, size_t length);

#endif
