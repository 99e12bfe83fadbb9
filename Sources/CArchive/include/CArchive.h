#ifndef DOCPKG_CARCHIVE_SHIM_H
#define DOCPKG_CARCHIVE_SHIM_H

// libarchive's types and constants. Its functions are not linked: `docpkg_libarchive_load` opens the
// library on first use, so a program that never touches a tar (or an unusual zip) does not load it, nor
// what it links (libxml2, ICU, nettle, lzma, zstd, bzip2, acl). Each `docpkg_archive_*` function below
// calls the libarchive function of the same name.
#include <archive.h>
#include <archive_entry.h>
#include "LibArchiveFunctions.h"
// zlib, which libarchive itself links: the zip writer deflates and checksums with it directly.
#include <zlib.h>
// libdeflate: whole-buffer deflate, about twice zlib's speed on the small files most packages hold.
#include <libdeflate.h>

// libarchive spells file types as macros built from casts (`((__LA_MODE_T)0100000)`),
// which Swift does not import. Re-export them as constants Swift can see.
static const unsigned int docpkg_AE_IFMT = AE_IFMT;
static const unsigned int docpkg_AE_IFREG = AE_IFREG;
static const unsigned int docpkg_AE_IFDIR = AE_IFDIR;
static const unsigned int docpkg_AE_IFLNK = AE_IFLNK;
static const unsigned int docpkg_AE_IFIFO = AE_IFIFO;
static const unsigned int docpkg_AE_IFCHR = AE_IFCHR;
static const unsigned int docpkg_AE_IFBLK = AE_IFBLK;
static const unsigned int docpkg_AE_IFSOCK = AE_IFSOCK;

// deflateInit2 is a macro over deflateInit2_ (which wants ZLIB_VERSION and the struct size).
// Raw deflate (no zlib header), as zip stores it.
static inline int docpkg_deflate_init_raw(z_streamp stream, int level) {
  return deflateInit2(stream, level, Z_DEFLATED, -MAX_WBITS, 8, Z_DEFAULT_STRATEGY);
}

// inflateInit2 likewise: raw inflate, for reading one zip entry's deflated data without libarchive.
static inline int docpkg_inflate_init_raw(z_streamp stream) {
  return inflateInit2(stream, -MAX_WBITS);
}

// And gzip inflate: zlib reads the gzip header and checks the trailer's CRC-32 and length, which libarchive's
// gzip filter skips.
static inline int docpkg_inflate_init_gzip(z_streamp stream) {
  return inflateInit2(stream, MAX_WBITS + 16);
}

// Opens libarchive once per process and finds the functions listed in LibArchiveFunctions.h. Returns NULL
// when they are ready, or else a message saying why not (the library is missing, or lacks a function).
// Thread-safe. Call it, and check its result, before any docpkg_archive_* function.
const char *docpkg_libarchive_load(void);

#define DOCPKG_DECLARE_FUNCTION(type, name, parameters, arguments) type docpkg_##name parameters;
#define DOCPKG_DECLARE_PROCEDURE(name, parameters, arguments) void docpkg_##name parameters;
DOCPKG_LIBARCHIVE_FUNCTIONS(DOCPKG_DECLARE_FUNCTION, DOCPKG_DECLARE_PROCEDURE)
#undef DOCPKG_DECLARE_FUNCTION
#undef DOCPKG_DECLARE_PROCEDURE

#endif
