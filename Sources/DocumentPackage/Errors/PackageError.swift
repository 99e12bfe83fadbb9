import SystemPackage

/// An error from reading or changing a package: what failed, on which path, and why.
///
/// Every error names the path it is about, so that a message shown to a person can be acted on:
///
///     no such entry 'Data/img001.raw' in '/home/ann/Notes.mydoc'
///     cannot read '/home/ann/Notes.mydoc/Index.json': Permission denied
///
/// Match on ``code`` to handle a kind of failure; new codes may be added in later versions,
/// so a `switch` over codes should keep a `default` case.
public struct PackageError: Error, Sendable, Hashable, CustomStringConvertible {
  /// The kind of failure.
  public var code: Code
  /// What failed, in words: "cannot read", "no such entry", "not a directory".
  public var message: String
  /// The path the error is about: a path inside the package (`Data/a.txt`) or on disk.
  public var path: String
  /// More about where `path` is, such as the package it is inside; may be empty.
  public var context: String
  /// The system error behind this one, if any.
  public var errno: Errno?

  /// Creates an error.
  public init(_ code: Code, _ message: String, path: String, context: String = "", errno: Errno? = nil) {
    self.code = code
    self.message = message
    self.path = path
    self.context = context
    self.errno = errno
  }

  /// One line: the message, the quoted path (control characters escaped), the context and the system's reason.
  public var description: String {
    var line = "\(message) '\(path.escapingName)'"
    if !context.isEmpty { line += " \(context.escapingControlCharacters)" }
    if let errno { line += ": \(errno.description)" }
    return line
  }
}

extension PackageError {
  /// A kind of ``PackageError``. A struct rather than an enum, so that codes can be added without breaking `switch`es.
  public struct Code: Hashable, Sendable, CustomStringConvertible {
    private enum Value: String, Hashable, Sendable {
      case noSuchEntry, notADirectory, notARegularFile, notASymbolicLink, invalidName, nameTaken
      case changedOnDisk, io, invalidArgument, unsupported, conflict, locked, corrupt, limitExceeded
      case cancelled, onRemote
    }
    private let value: Value
    private init(_ value: Value) { self.value = value }

    /// There is no entry at the path.
    public static var noSuchEntry: Code { Code(.noSuchEntry) }
    /// The entry exists but is not a directory, where one was needed.
    public static var notADirectory: Code { Code(.notADirectory) }
    /// The entry exists but is not a regular file, where one was needed.
    public static var notARegularFile: Code { Code(.notARegularFile) }
    /// The entry exists but is not a symbolic link, where one was needed.
    public static var notASymbolicLink: Code { Code(.notASymbolicLink) }
    /// A name is empty, `.` or `..`, or contains `/` or NUL; or the file system it is written to cannot
    /// hold it (`:` on FAT and exFAT), or does not tell it apart from a sibling's (`a.txt` and `A.txt`).
    public static var invalidName: Code { Code(.invalidName) }
    /// A directory already has a child of that name.
    public static var nameTaken: Code { Code(.nameTaken) }
    /// The file behind a node vanished or changed kind after the node was loaded.
    public static var changedOnDisk: Code { Code(.changedOnDisk) }
    /// A system call failed; ``PackageError/errno`` says why.
    public static var io: Code { Code(.io) }
    /// An argument is out of range or does not fit the node.
    public static var invalidArgument: Code { Code(.invalidArgument) }
    /// The operation is not possible on this platform or file system.
    public static var unsupported: Code { Code(.unsupported) }
    /// The package changed on disk since it was loaded, and saving would overwrite that change.
    public static var conflict: Code { Code(.conflict) }
    /// Another process holds the package's lock.
    public static var locked: Code { Code(.locked) }
    /// The data on disk or in an archive is damaged or not what it claims to be.
    public static var corrupt: Code { Code(.corrupt) }
    /// A configured limit (size, count, ratio) was exceeded.
    public static var limitExceeded: Code { Code(.limitExceeded) }
    /// The operation was cancelled (an interrupted `pack`, `unpack` or comparison); it left nothing behind.
    public static var cancelled: Code { Code(.cancelled) }
    /// A version's file is kept on a remote, not in the version store, and was not fetched yet (see
    /// ``PackageVersion/remote``).
    public static var onRemote: Code { Code(.onRemote) }

    public var description: String { value.rawValue }
  }
}

extension String {
  /// The string with C0/C1 control characters and DEL written as escapes (`\n`, `\t`, `\u{1B}`),
  /// so that no raw escape sequence from a file name reaches a terminal; and the scalars U+F780–U+F7FF,
  /// which stand for the bytes 0x80–0xFF of a name that is not UTF-8 (see ``RawByteNames``), as `\xNN`.
  /// For text that may hold names already written with ``escapingName``: its backslashes are kept.
  package var escapingControlCharacters: String { escaping(backslashes: false) }

  /// The name as the CLI shows names: as ``escapingControlCharacters`` writes it, with a backslash of the name
  /// itself as `\\`, so that no two names are shown alike (`a\\xFE` is the name `a\xFE`, `a\xFE` the name
  /// whose last byte is 0xFE). ``RawByteNames/unescapingName(_:)`` reads it back.
  package var escapingName: String { escaping(backslashes: true) }

  private func escaping(backslashes: Bool) -> String {
    guard
      unicodeScalars.contains(where: {
        $0.isControlCharacter || RawByteNames.isRawByte($0) || (backslashes && $0 == "\\")
      })
    else {
      return self
    }
    var result = ""
    result.reserveCapacity(utf8.count + 8)
    for scalar in unicodeScalars {
      switch scalar {
      case "\n": result += "\\n"
      case "\t": result += "\\t"
      case "\r": result += "\\r"
      case "\\" where backslashes: result += "\\\\"
      case _ where scalar.isControlCharacter:
        result += "\\u{" + String(scalar.value, radix: 16, uppercase: true) + "}"
      case _ where RawByteNames.isRawByte(scalar):
        result += "\\x" + String(scalar.value - RawByteNames.base, radix: 16, uppercase: true)
      default: result.unicodeScalars.append(scalar)
      }
    }
    return result
  }
}

extension Unicode.Scalar {
  /// C0 controls, DEL and C1 controls: the characters a terminal may act on.
  var isControlCharacter: Bool { value < 0x20 || (0x7F...0x9F).contains(value) }
}
