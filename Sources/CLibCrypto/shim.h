#ifndef DOCPKG_CLIBCRYPTO_SHIM_H
#define DOCPKG_CLIBCRYPTO_SHIM_H

// The system's libcrypto (OpenSSL 3 on Debian: libssl-dev), for SHA-256 and HMAC-SHA256 on Linux. The hash
// runs over every byte a version keeps: libcrypto's uses the processor's SHA extensions, and an app that
// links DocumentPackage compiles no copy of BoringSSL for it. Only DocumentPackage/Internals/SHA256.swift
// imports it; on Apple platforms CryptoKit serves instead.
#include <openssl/evp.h>
#include <openssl/hmac.h>

#endif
