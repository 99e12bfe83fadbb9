import DocumentPackage

/// What the page shows of one entry: a range of a file's text (pretty-printed JSON or XML when small enough to
/// read whole), a range of its bytes in hex, or that it is an image to load from `/api/raw`; a link's target; a
/// directory's kind. A large file is read a range at a time, never whole.
package struct FilePreview: Sendable, Codable, Equatable {
  /// How the page shows a file.
  package enum Form: String, Sendable, Codable {
    /// UTF-8 text with line numbers.
    case text
    /// JSON, re-indented when read whole.
    case json
    /// XML, re-indented when read whole.
    case xml
    /// PNG, JPEG, GIF or WebP, shown with an `<img>`.
    case image
    /// SVG: shown only as an `<img>` (scripts in it never run), or as text.
    case svg
    /// Anything else: hex.
    case binary
    /// A directory or a symbolic link: nothing to read.
    case none
  }

  /// The entry.
  package var entry: EntrySummary
  /// How to show it.
  package var form: Form
  /// The image's media type, for `image` and `svg`.
  package var mediaType: String?
  /// The first byte of this range.
  package var offset: Int64
  /// The bytes of the file this range covers.
  package var length: Int64
  /// The text of the range (`text`, `json`, `xml`, `svg`): whole lines, unless one line is longer than a range.
  package var text: String?
  /// Whether `text` was re-indented (JSON or XML read whole).
  package var pretty: Bool
  /// Whether the re-indented text was cut at ``prettyOutputLimit`` (the page says so).
  package var truncated: Bool
  /// The range's bytes as hex digits (`binary`).
  package var hex: String?
  /// Where the next range starts; `nil` at the end of the file.
  package var next: Int64?

  /// The most bytes of text one range holds.
  static let textRange = 256 << 10
  /// The most bytes one hex range holds.
  static let hexRange = 64 << 10
  /// JSON and XML up to this size are read whole and re-indented; larger ones are shown as text, by ranges.
  static let prettyLimit: Int64 = 2 << 20
  /// The most bytes of re-indented text a preview holds: at most twice as many in the JSON response (every byte
  /// the printers write grows at most twofold there), so the response stays within 8 MiB.
  static let prettyOutputLimit = (4 << 20) - (4 << 10)

  /// The preview of the entry at `path` from `offset` (0 for the start), at most `length` bytes (a default per
  /// form when `nil`).
  /// - Throws: ``/DocumentPackage/PackageError`` when the entry is missing or cannot be read.
  package init(of root: PackageNode, at path: String, offset: Int64, length: Int?) throws {
    try self.init(try Source(of: root, at: path, offset: offset, length: length))
  }

  /// What a preview reads of its tree: the entry, its form and the bytes to show. Reading needs the tree (on the
  /// browser's queue, see ``PackageBrowser``) and is quick; making the preview from it (re-indenting, hex) does
  /// not, and runs elsewhere.
  package struct Source: Sendable {
    var entry: EntrySummary
    var form: Form
    var mediaType: String?
    var offset: Int64
    /// The file's size (0 for what is not a file).
    var size: Int64
    /// The bytes read: the whole file when ``isWholeFile`` (JSON or XML to re-indent), else the range.
    var bytes: [UInt8] = []
    var isWholeFile = false
    /// The most bytes of text one range shows, when the whole file cannot be re-indented.
    var rangeLength = 0

    /// Reads what the preview of the entry at `path` from `offset` shows, at most `length` bytes.
    /// - Throws: ``/DocumentPackage/PackageError`` when the entry is missing or cannot be read.
    package init(of root: PackageNode, at path: String, offset: Int64, length: Int?) throws {
      let node = try root.node(at: path)
      entry = EntrySummary(node, path: path)
      self.offset = offset
      size = node.kind == .file ? node.size : 0
      guard node.kind == .file else {
        form = .none
        return
      }
      (form, mediaType) = FilePreview.form(of: try node.bytes(at: 0, count: 4096), name: node.name)
      switch form {
      case .image, .none: return
      case .binary:
        bytes = try node.bytes(at: offset, count: min(length ?? 4096, FilePreview.hexRange))
      case .text, .json, .xml, .svg:
        rangeLength = min(length ?? FilePreview.textRange, FilePreview.textRange)
        isWholeFile = offset == 0 && (form == .json || form == .xml) && node.size <= FilePreview.prettyLimit
        bytes = try node.bytes(at: offset, count: isWholeFile ? Int(node.size) : rangeLength)
      }
    }
  }

  /// The preview of what `source` read: re-indented when it is a whole JSON or XML file, else its range as text
  /// or hex.
  /// - Parameter isCancelled: Asked while re-indenting (``PrettyPrinter``): once it returns `true`, the preview stops.
  /// - Throws: `CancellationError` when `isCancelled` stopped it.
  /// - Complexity: O(*n*) for the *n* bytes read.
  package init(_ source: Source, isCancelled: () -> Bool = { false }) throws {
    entry = source.entry
    form = source.form
    mediaType = source.mediaType
    offset = source.offset
    length = 0
    pretty = false
    truncated = false
    switch form {
    case .image, .none: return
    case .binary:
      hex = source.bytes.hexDigits
      length = Int64(source.bytes.count)
    case .text, .json, .xml, .svg:
      let indented = source.isWholeFile ? Self.reindent(source.bytes, form, isCancelled: isCancelled) : nil
      if isCancelled() { throw CancellationError() }
      if let indented {
        text = indented.text
        pretty = true
        truncated = indented.truncated
        length = source.size
        return
      }
      let bytes = source.isWholeFile ? Array(source.bytes.prefix(source.rangeLength)) : source.bytes
      let whole = offset + Int64(bytes.count) >= source.size
      let cut = whole ? bytes.count : Self.lineBoundary(in: bytes)
      text = String(decoding: bytes[..<cut], as: UTF8.self)
      length = Int64(cut)
    }
    if offset + length < source.size { next = offset + length }
  }

  /// The form of a file whose first bytes are `head`: images by their signature, SVG by its name or first tag,
  /// text when the bytes are UTF-8 without NUL (JSON and XML by name or first character).
  static func form(of head: [UInt8], name: String) -> (Form, String?) {
    func starts(_ prefix: [UInt8], at offset: Int = 0) -> Bool {
      head.count >= offset + prefix.count && Array(head[offset..<offset + prefix.count]) == prefix
    }
    if starts([0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]) { return (.image, "image/png") }
    if starts([0xFF, 0xD8, 0xFF]) { return (.image, "image/jpeg") }
    if starts(Array("GIF87a".utf8)) || starts(Array("GIF89a".utf8)) { return (.image, "image/gif") }
    if starts(Array("RIFF".utf8)), starts(Array("WEBP".utf8), at: 8) { return (.image, "image/webp") }
    guard !head.contains(0), head.isUTF8Prefix else { return (.binary, nil) }
    let lowered = name.lowercased()
    let text = String(decoding: head, as: UTF8.self)
    if lowered.hasSuffix(".svg") || text.contains("<svg") { return (.svg, "image/svg+xml") }
    let first = text.first { !$0.isWhitespace }
    if lowered.hasSuffix(".json") || (first == "{" || first == "[") && !lowered.hasSuffix(".txt") {
      return (.json, nil)
    }
    if [".xml", ".plist", ".xhtml", ".rdf", ".opf", ".xsd", ".xsl"].contains(where: lowered.hasSuffix)
      || text.hasPrefix("<?xml")
    {
      return (.xml, nil)
    }
    return (.text, nil)
  }

  /// The length of `bytes` up to and including its last line feed; if it has none (one line longer than a
  /// range), up to its last whole UTF-8 character.
  static func lineBoundary(in bytes: [UInt8]) -> Int {
    if let newline = bytes.lastIndex(of: 0x0A) { return newline + 1 }
    return bytes.count - lineBoundaryTail(bytes)
  }

  /// `bytes` re-indented as JSON or XML, at most ``prettyOutputLimit`` bytes; `nil` when they do not look like one
  /// (shown as they are then).
  static func reindent(_ bytes: [UInt8], _ form: Form, isCancelled: () -> Bool) -> PrettyPrinter.Output? {
    switch form {
    case .json: return PrettyPrinter.json(bytes, limit: prettyOutputLimit, isCancelled: isCancelled)
    case .xml, .svg: return PrettyPrinter.xml(bytes, limit: prettyOutputLimit, isCancelled: isCancelled)
    default: return nil
    }
  }
}

extension Array where Element == UInt8 {
  /// Two lowercase hex digits a byte.
  var hexDigits: String {
    let digits = Array("0123456789abcdef".utf8)
    var result: [UInt8] = []
    result.reserveCapacity(count * 2)
    for byte in self {
      result.append(digits[Int(byte >> 4)])
      result.append(digits[Int(byte & 0x0F)])
    }
    return String(decoding: result, as: UTF8.self)
  }

  /// Whether these bytes are valid UTF-8, allowing a character cut short at the end (a prefix of a file).
  var isUTF8Prefix: Bool {
    let end = count - FilePreview.lineBoundaryTail(self)
    return String(validating: self[..<end], as: UTF8.self) != nil
  }
}

extension FilePreview {
  /// How many bytes at the end of `bytes` belong to a character cut short (0 when the last one is whole).
  static func lineBoundaryTail(_ bytes: [UInt8]) -> Int {
    var index = bytes.count
    var continuation = 0
    while index > 0, continuation < 3, bytes[index - 1] & 0xC0 == 0x80 {
      index -= 1
      continuation += 1
    }
    guard index > 0 else { return 0 }
    let lead = bytes[index - 1]
    let needed = lead >= 0xF0 ? 3 : lead >= 0xE0 ? 2 : lead >= 0xC0 ? 1 : 0
    return needed > continuation ? continuation + 1 : 0
  }
}
