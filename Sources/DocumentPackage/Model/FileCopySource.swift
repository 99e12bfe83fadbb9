/// A file's contents that a save copies from a descriptor (a reflink or `copy_file_range` where it
/// can, memory bounded whatever the size) rather than through memory: a file outside the package
/// (``DiskFileSource``), a blob of a version being restored (checked before it is copied, and never
/// hard-linked: a write in place to the restored file would change the version).
protocol FileCopySource: FileContentSource {
  /// Opens the bytes to copy, at offset 0, checked first where the source checks its bytes; the caller closes it.
  /// - Throws: ``PackageError`` naming the file.
  func openForCopying() throws -> CInt
  /// What is copied, for messages: "copy version blob", "copy /tmp/render.mov".
  var copyDescription: String { get }
}
