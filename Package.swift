// swift-tools-version: 6.1
import PackageDescription

/// `make fuzz` sets DOCPKG_FUZZ=1: only then are the libFuzzer targets of Tests/Fuzz part of the package. Their entry
/// point is `LLVMFuzzerTestOneInput` (libFuzzer's `main` calls it), so they link only under `--sanitize fuzzer`, and
/// the normal build and tests neither build nor see them.
let fuzzing = Context.environment["DOCPKG_FUZZ"] == "1"

/// `make sync-test`, `make serve-test` and `make fs-test` set DOCPKG_NETWORK_TESTS=1: only then are DocumentSyncTests and
/// PackageServerTests, the test targets of the networking helper `docpkg-sync` and its libraries, part of the package.
/// The other test targets need none of it, so `make test` builds the tests without the HTTP and TLS stack (most of a
/// first debug build: issue 25).
let networkTests = Context.environment["DOCPKG_NETWORK_TESTS"] == "1"

let package = Package(
  name: "DocumentPackage",
  platforms: [.macOS(.v13)],
  products: [
    .library(name: "DocumentPackage", targets: ["DocumentPackage"]),
    .library(name: "DocumentArchive", targets: ["DocumentArchive"]),
    .library(name: "DocumentSync", targets: ["DocumentSync"]),
    .executable(name: "docpkg", targets: ["docpkg"]),
    // `docpkg push|pull|clone|remote`: run by `docpkg`, found beside it (installed together).
    .executable(name: "docpkg-sync", targets: ["docpkg-sync"]),
  ],
  dependencies: [
    .package(url: "https://github.com/apple/swift-argument-parser", from: "1.8.2"),
    .package(url: "https://github.com/apple/swift-system", from: "1.8.1"),
    .package(url: "https://github.com/swift-server/async-http-client", from: "1.37.0"),
    .package(url: "https://github.com/apple/swift-nio", from: "2.101.2"),
    .package(url: "https://github.com/apple/swift-nio-ssl", from: "2.27.0"),
    // End-to-end encryption of a remote (DocumentSync only): ChaCha20-Poly1305 and HMAC (CryptoKit on Apple
    // platforms), scrypt (_CryptoExtras).
    .package(url: "https://github.com/apple/swift-crypto", "3.12.3"..<"5.0.0"),
    // `make docs`: DocC's generate-documentation plugin (used by no target).
    .package(url: "https://github.com/swiftlang/swift-docc-plugin", from: "1.5.0"),
  ],
  targets: [
    // C declarations that `import Glibc` hides (renameat2, FICLONE, flock, ...).
    .target(name: "CSystemShims"),

    // zlib's crc32 computed by libdeflate, interposed for libarchive's CRC checks (see crc32.c).
    // Linked only into the `docpkg` executable: a library must not replace an app's global symbols.
    .target(name: "CFastCRC", linkerSettings: [.linkedLibrary("deflate")]),

    // libarchive's headers (libarchive-dev), zlib and libdeflate. libarchive itself is opened on first use
    // (LibArchiveLoader.c), not linked. Only DocumentArchive imports it.
    .target(name: "CArchive", linkerSettings: [.linkedLibrary("z"), .linkedLibrary("deflate")]),

    // The system's libcrypto (libssl-dev), for SHA-256 on Linux; Apple platforms use CryptoKit.
    .systemLibrary(
      name: "CLibCrypto", pkgConfig: "libcrypto", providers: [.apt(["libssl-dev"]), .brew(["openssl@3"])]),

    // The package model, save, versions, undo and diff. Does not link libarchive.
    .target(
      name: "DocumentPackage",
      dependencies: [
        "CSystemShims",
        .target(name: "CLibCrypto", condition: .when(platforms: [.linux])),
        .product(name: "SystemPackage", package: "swift-system"),
      ]
    ),

    // Packing packages into archives, unpacking them, and reading archives in place.
    .target(
      name: "DocumentArchive",
      dependencies: [
        "DocumentPackage", "CArchive",
        .product(name: "SystemPackage", package: "swift-system"),
      ]
    ),

    // Push, pull and clone through an S3-compatible object store: SigV4 signing, an S3 client, the remote layout.
    // Its own target, so that apps which do not sync link no HTTP stack.
    .target(
      name: "DocumentSync",
      dependencies: [
        "DocumentPackage",
        .product(name: "AsyncHTTPClient", package: "async-http-client"),
        .product(name: "NIOCore", package: "swift-nio"),
        .product(name: "NIOHTTP1", package: "swift-nio"),
        .product(name: "NIOConcurrencyHelpers", package: "swift-nio"),
        .product(name: "NIOPosix", package: "swift-nio"),
        .product(name: "NIOSSL", package: "swift-nio-ssl"),
        .product(name: "SystemPackage", package: "swift-system"),
        .product(name: "Crypto", package: "swift-crypto"),
        .product(name: "_CryptoExtras", package: "swift-crypto"),
      ]
    ),

    // What both executables of the CLI share: output, progress bar, usage errors, the main loop,
    // and the sync commands' arguments and help (declared once: docpkg shows their help, docpkg-sync runs them).
    .target(
      name: "DocPkgCommandLine",
      dependencies: [
        "DocumentPackage",
        .product(name: "ArgumentParser", package: "swift-argument-parser"),
      ]
    ),

    // The command-line tool: a thin layer over the libraries. It links no HTTP stack (nor Foundation):
    // its sync commands hand the command line to `docpkg-sync`.
    .executableTarget(
      name: "docpkg",
      dependencies: [
        "CFastCRC",
        "DocumentPackage",
        "DocumentArchive",
        "DocPkgCommandLine",
        .product(name: "ArgumentParser", package: "swift-argument-parser"),
      ]
    ),

    // `docpkg serve`: the package inspector and version browser on a loopback HTTP server, written on
    // SwiftNIO's HTTP/1 codec (already linked by the sync helper: no framework, see PackageServer.swift).
    .target(
      name: "PackageServer",
      dependencies: [
        "DocumentPackage",
        "DocumentArchive",
        .product(name: "NIOCore", package: "swift-nio"),
        .product(name: "NIOPosix", package: "swift-nio"),
        .product(name: "NIOHTTP1", package: "swift-nio"),
        .product(name: "NIOConcurrencyHelpers", package: "swift-nio"),
        .product(name: "SystemPackage", package: "swift-system"),
      ]
    ),

    // `docpkg remote|push|pull|clone|serve`, on DocumentSync (async-http-client, SwiftNIO) and PackageServer.
    .executableTarget(
      name: "docpkg-sync",
      dependencies: [
        "DocumentPackage",
        "DocumentSync",
        "PackageServer",
        "DocPkgCommandLine",
        .product(name: "ArgumentParser", package: "swift-argument-parser"),
        .product(name: "SystemPackage", package: "swift-system"),
      ]
    ),

    // Examples that link the library, each run by ExamplesTests.
    .executableTarget(
      name: "NotesDocument",
      dependencies: ["DocumentPackage", .product(name: "SystemPackage", package: "swift-system")],
      path: "Examples/NotesDocument"
    ),

    .executableTarget(
      name: "ShareAsZip",
      dependencies: ["DocumentPackage", "DocumentArchive", .product(name: "SystemPackage", package: "swift-system")],
      path: "Examples/ShareAsZip"
    ),

    .executableTarget(
      name: "ResolveConflict",
      dependencies: ["DocumentPackage", .product(name: "SystemPackage", package: "swift-system")],
      path: "Examples/ResolveConflict"
    ),

    .executableTarget(
      name: "LiveDocument",
      dependencies: ["DocumentPackage", .product(name: "SystemPackage", package: "swift-system")],
      path: "Examples/LiveDocument"
    ),

    // Benchmarks/rows/undo.py: peak RSS of 1,000 undoable edits to a package with a 100 MB file.
    .executableTarget(
      name: "undo-memory",
      dependencies: ["DocumentPackage", .product(name: "SystemPackage", package: "swift-system")],
      path: "Benchmarks/Tools/UndoMemory"
    ),

    // Benchmarks/rows/coordination.py and CoordinatedReadingTests: a writer and readers of one package.
    .executableTarget(
      name: "read-write-stress",
      dependencies: ["DocumentPackage", .product(name: "SystemPackage", package: "swift-system")],
      path: "Benchmarks/Tools/ReadWriteStress"
    ),

    // Benchmarks/rows/flat.py: a Document's open-edit-save of one file.
    .executableTarget(
      name: "document-edit",
      dependencies: ["DocumentPackage", .product(name: "SystemPackage", package: "swift-system")],
      path: "Benchmarks/Tools/DocumentEdit"
    ),

    // Temp folders, fixtures and a runner for the built `docpkg`, shared by the test targets.
    .target(
      name: "TestSupport",
      dependencies: ["DocumentPackage"],
      path: "Tests/TestSupport"
    ),
    .testTarget(
      name: "DocumentPackageTests",
      dependencies: ["DocumentPackage", "TestSupport"]
    ),
    .testTarget(
      name: "DocumentArchiveTests",
      dependencies: ["DocumentArchive", "DocumentPackage", "CArchive", "CFastCRC", "TestSupport"]
    ),
    .testTarget(
      name: "docpkgTests",
      dependencies: [
        "DocumentPackage", "DocumentArchive", "TestSupport", .target(name: "docpkg"), .target(name: "read-write-stress"),
        .target(name: "document-edit"),
      ]
    ),
    .testTarget(
      name: "ExamplesTests",
      dependencies: [
        "TestSupport", .target(name: "NotesDocument"), .target(name: "ShareAsZip"), .target(name: "ResolveConflict"),
        .target(name: "LiveDocument"),
      ]
    ),
  ]
)

if networkTests {
  package.targets += [
    .testTarget(
      name: "DocumentSyncTests",
      dependencies: [
        "DocumentSync", "DocumentPackage", "TestSupport", .target(name: "docpkg"), .target(name: "docpkg-sync"),
        .product(name: "Crypto", package: "swift-crypto"),
      ],
      exclude: ["Fixtures"]
    ),
    .testTarget(
      name: "PackageServerTests",
      dependencies: [
        "PackageServer", "DocumentPackage", "DocumentArchive", "TestSupport", .target(name: "docpkg"),
        .target(name: "docpkg-sync"), .product(name: "SystemPackage", package: "swift-system"),
      ]
    ),
  ]
}

// libFuzzer targets (`make fuzz`, `make fuzz-smoke`; Tests/Fuzz/README.md): one executable per reader of outside
// bytes, each an `@_cdecl("LLVMFuzzerTestOneInput")` over the library's own reading paths. `@testable import`
// reaches the internal readers (debug builds are built with testing enabled).
if fuzzing {
  package.targets += [
    .target(
      name: "FuzzSupport", dependencies: ["DocumentPackage"], path: "Tests/Fuzz/FuzzSupport"),
    .executableTarget(
      name: "fuzz-zip", dependencies: ["FuzzSupport", "DocumentArchive", "DocumentPackage"],
      path: "Tests/Fuzz/ZipFuzz"),
    .executableTarget(
      name: "fuzz-tar", dependencies: ["FuzzSupport", "DocumentArchive", "DocumentPackage"],
      path: "Tests/Fuzz/TarFuzz"),
    .executableTarget(
      name: "fuzz-unpack", dependencies: ["FuzzSupport", "DocumentArchive", "DocumentPackage"],
      path: "Tests/Fuzz/UnpackFuzz"),
    .executableTarget(
      name: "fuzz-records", dependencies: ["FuzzSupport", "DocumentPackage"], path: "Tests/Fuzz/RecordsFuzz"),
    .executableTarget(
      name: "fuzz-sync", dependencies: ["FuzzSupport", "DocumentSync"], path: "Tests/Fuzz/SyncFuzz"),
    .executableTarget(
      name: "fuzz-serve",
      dependencies: [
        "FuzzSupport", "PackageServer", .product(name: "NIOCore", package: "swift-nio"),
        .product(name: "NIOEmbedded", package: "swift-nio"), .product(name: "NIOHTTP1", package: "swift-nio"),
      ],
      path: "Tests/Fuzz/ServeFuzz"),
  ]
}
