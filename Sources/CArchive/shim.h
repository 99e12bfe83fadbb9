#ifndef DOCPKG_CARCHIVE_SHIM_H
#define DOCPKG_CARCHIVE_SHIM_H

#include <archive.h>
#include <archive_entry.h>

// libarchive spells file types as macros built from casts (`((__LA_MODE_T)0100000)`),
// which Swift does not import. Re-export them as constants Swift can see.
static const unsigned int docpkg_AE_IFMT = AE_IFMT;
static const unsigned int docpkg_AE_IFREG = AE_IFREG;
static const unsigned int docpkg_AE_IFDIR = AE_IFDIR;
static const unsigned int docpkg_AE_IFLNK = AE_IFLNK;

#endif
