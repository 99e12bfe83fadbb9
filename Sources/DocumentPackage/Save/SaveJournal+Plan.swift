import SystemPackage

/// The plan's bytes: a header line, the step count, then each step: a kind byte, its numbers
/// (little-endian) and its path as a component count and each component's length and bytes; then the count of staged
/// files' digests and each (its number, size and SHA-256: ``StagedDigest``); then the SHA-256 of all before it. Names are bytes, as on disk: they need not be UTF-8 and may hold any byte but `/` and NUL.
///
/// The plan is read back only by recovery, after a kill; a plan that does not decode or whose digest does not match
/// (damage on the disk, or an edit) is reported, never applied, even in part: a byte changed in a name decoded well
/// and was applied (outsider attack 6 on issue 35, H3). An earlier release's plan (header `1`) has no digest.
extension SaveJournal {
  static let planHeader = Array("docpkg save journal 2\n".utf8)
  /// An earlier release's plan, without the digest.
  static let undigestedPlanHeader = Array("docpkg save journal 1\n".utf8)
  static let planDigestSize = 32

  private enum Kind: UInt8 {
    case removeFile = 1, removeDirectory, makeDirectory, place, setAttributes
  }

  /// The plan as bytes.
  func encodedPlan() -> [UInt8] {
    var bytes = Self.planHeader
    func append<T: FixedWidthInteger>(_ value: T) { withUnsafeBytes(of: value.littleEndian) { bytes += $0 } }
    append(UInt32(steps.count))
    for step in steps {
      switch step {
      case .removeFile: bytes.append(Kind.removeFile.rawValue)
      case .removeDirectory: bytes.append(Kind.removeDirectory.rawValue)
      case .makeDirectory: bytes.append(Kind.makeDirectory.rawValue)
      case .place(let number, _):
        bytes.append(Kind.place.rawValue)
        append(UInt64(number))
      case .setAttributes(_, let permissions, let time):
        bytes.append(Kind.setAttributes.rawValue)
        append(permissions)
        bytes.append(time == nil ? 0 : 1)
        append(time?.seconds ?? 0)
        append(time?.nanoseconds ?? 0)
      }
      append(UInt32(step.path.count))
      for component in step.path {
        let name = component.bytes.dropLast()  // the trailing NUL
        append(UInt32(name.count))
        bytes += name.map { UInt8(bitPattern: $0) }
      }
    }
    append(UInt32(staged.count))
    for (number, digest) in staged.sorted(by: { $0.key < $1.key }) {
      append(UInt64(number))
      append(digest.size)
      bytes += digest.sha256
    }
    return bytes + SHA256.hash(data: bytes)
  }

  /// Reads a plan written by ``encodedPlan()`` (or an earlier release's, without the digests).
  /// - Returns: The steps and the staged files' digests, or `nil` if the bytes are not a whole, well-formed plan
  ///   whose digest matches.
  static func decodePlan(_ written: [UInt8]) -> (steps: [Step], staged: [Int: StagedDigest])? {
    let bytes: ArraySlice<UInt8>
    let digested = written.starts(with: planHeader)
    if digested {
      guard written.count >= planHeader.count + planDigestSize else { return nil }
      let end = written.count - planDigestSize
      guard Array(SHA256.hash(data: written[..<end])) == Array(written[end...]) else { return nil }
      bytes = written[planHeader.count..<end]
    } else if written.starts(with: undigestedPlanHeader) {
      bytes = written[undigestedPlanHeader.count...]
    } else {
      return nil
    }
    var position = bytes.startIndex
    func take(_ count: Int) -> ArraySlice<UInt8>? {
      guard count >= 0, bytes.endIndex - position >= count else { return nil }
      defer { position += count }
      return bytes[position..<(position + count)]
    }
    func number<T: FixedWidthInteger>(_: T.Type) -> T? {
      guard let slice = take(MemoryLayout<T>.size) else { return nil }
      return slice.reversed().reduce(T.zero) { $0 << 8 | T(truncatingIfNeeded: $1) }
    }
    guard let count = number(UInt32.self) else { return nil }
    var steps: [Step] = []
    for _ in 0..<count {
      guard let kindByte = take(1)?.first, let kind = Kind(rawValue: kindByte) else { return nil }
      var placed = 0
      var attributes: (UInt32, FileTime?) = (0, nil)
      switch kind {
      case .place:
        guard let value = number(UInt64.self), value <= UInt64(Int.max) else { return nil }
        placed = Int(value)
      case .setAttributes:
        guard let permissions = number(UInt32.self), let hasTime = take(1)?.first,
          let seconds = number(Int64.self), let nanoseconds = number(Int32.self),
          nanoseconds >= 0, nanoseconds < 1_000_000_000
        else { return nil }
        attributes = (permissions, hasTime == 0 ? nil : FileTime(seconds: seconds, nanoseconds: nanoseconds))
      default: break
      }
      guard let componentCount = number(UInt32.self) else { return nil }
      var path: [RawName] = []
      for _ in 0..<componentCount {
        guard let length = number(UInt32.self), let name = take(Int(length)), isComponent(name) else { return nil }
        path.append(RawName(bytes: name))
      }
      switch kind {
      case .removeFile: steps.append(.removeFile(path))
      case .removeDirectory: steps.append(.removeDirectory(path))
      case .makeDirectory: steps.append(.makeDirectory(path))
      case .place: steps.append(.place(placed, path))
      case .setAttributes: steps.append(.setAttributes(path, permissions: attributes.0, time: attributes.1))
      }
      // Only a directory's own steps may name the root: nothing removes it or renames over it.
      if path.isEmpty, case .removeFile = steps.last! { return nil }
      if path.isEmpty, case .removeDirectory = steps.last! { return nil }
      if path.isEmpty, case .place = steps.last! { return nil }
    }
    var staged: [Int: StagedDigest] = [:]
    if digested {
      guard let count = number(UInt32.self) else { return nil }
      for _ in 0..<count {
        guard let stagedNumber = number(UInt64.self), stagedNumber <= UInt64(Int.max), let size = number(UInt64.self),
          let sha256 = take(32)
        else { return nil }
        staged[Int(stagedNumber)] = StagedDigest(size: size, sha256: Array(sha256))
      }
    }
    return position == bytes.endIndex ? (steps, staged) : nil
  }

  /// A name that stays inside its directory: not empty, `.` or `..`, and without `/` or NUL.
  private static func isComponent(_ name: ArraySlice<UInt8>) -> Bool {
    !name.isEmpty && !name.contains(UInt8(ascii: "/")) && !name.contains(0) && name != [0x2E] && name != [0x2E, 0x2E]
  }
}
