import SystemPackage

extension PackageNode {
  /// The device and inode of the file on disk that holds this node exactly as the model has it,
  /// or `nil` when there is none (made or changed in memory, or backed by an archive).
  ///
  /// Two nodes with the same identity have the same contents without reading them: hard-linked
  /// versions of a package share inodes for every unchanged file. Builds no path (unlike
  /// ``diskLocation``), so it costs nothing per file.
  var diskIdentity: DiskIdentity? {
    guard isBackedByDisk, let device = origin?.status.device, let inode = origin?.status.inode else { return nil }
    return DiskIdentity(device: device, inode: inode)
  }

  /// Whether the node's contents and children are read from disk (not from memory or an archive),
  /// so that reading them touches nothing shared with other nodes but the file system.
  /// Reads fields in place rather than copying ``origin`` (this is asked per file).
  var isBackedByDisk: Bool {
    guard origin != nil, !edits.contains(.contents) else { return false }
    guard kind == .file else { return true }
    if case .onDisk = fileBody { return true }
    return false
  }
}

/// A file's identity on disk: the device it is on and its inode number there.
package struct DiskIdentity: Hashable {
  var device: UInt64
  var inode: UInt64
}

extension PackageNode {
  /// The bytes of the node's name as the file system holds them, when it was read from disk under a
  /// name that is not valid UTF-8 and has not been renamed since (``name`` then shows the invalid bytes
  /// as U+FFFD); `nil` otherwise, when ``name`` in UTF-8 is the name. A packer keeps the bytes.
  package var nonUTF8NameOnDisk: [UInt8]? {
    guard let component = origin?.name else { return nil }
    let bytes: [UInt8] = component.withPlatformString { name in
      var bytes: [UInt8] = []
      var index = 0
      while name[index] != 0 {
        bytes.append(UInt8(bitPattern: name[index]))
        index += 1
      }
      return bytes
    }
    guard String(validating: bytes, as: UTF8.self) == nil, String(decoding: bytes, as: UTF8.self) == name else {
      return nil
    }
    return bytes
  }
}

extension PackageNode {
  /// The name with each byte of a name on disk that is not valid UTF-8 as its raw-byte scalar
  /// (``RawByteNames``), as an archive's entry names are read: two names are equal exactly when their bytes are,
  /// and ``Swift/String/escapingName`` shows the bytes as `\xNN`. ``name`` where the name is valid UTF-8.
  package var byteExactName: String {
    // A repaired name holds U+FFFD, whose UTF-8 starts with 0xEF: most names are passed at this cheap test.
    guard name.utf8.contains(0xEF), let bytes = nonUTF8NameOnDisk else { return name }
    return RawByteNames.decode(bytes)
  }
}

extension PackageNode {
  /// The file's identity on disk when it has other names too (a hard link count above 1 when it was listed), so
  /// that a packer can tell which of its files are one file; `nil` for a file with one name, or not on disk.
  package var hardLinkedIdentity: DiskIdentity? {
    guard kind == .file, let count = origin?.status.linkCount, count > 1 else { return nil }
    return diskIdentity
  }
}
