#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// The one-line text form, safe in a configuration file or a command line: `docpkg-ref1:`
/// followed by the `Codable` form's JSON (keys sorted) in unpadded base64url — no spaces, no
/// newlines, no quotes, no `=`. The `1` is the format version; a later format gets a new prefix.
extension PackageReference: CustomStringConvertible {
  /// The prefix of the text form for this library's format.
  public static let textPrefix = "docpkg-ref\(formatVersion):"

  /// The reference as one line of text (see the extension's documentation); ``init(text:)`` reads it.
  public var text: String {
    let encoder = JSONEncoder()
    encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
    let json = (try? encoder.encode(self)) ?? Data()
    let base64 = json.base64EncodedString().compactMap { c -> Character? in
      c == "+" ? "-" : c == "/" ? "_" : c == "=" ? nil : c
    }
    return Self.textPrefix + String(base64)
  }

  /// The text form (``text``).
  public var description: String { text }

  /// Reads a reference from its text form; spaces and newlines around it are ignored.
  /// - Throws: ``PackageError`` with code `invalidArgument` if `text` is not a reference this
  ///   library can read (not one, damaged, or a newer format).
  public init(text: String) throws {
    let trimmed = String(text.drop(while: \.isWhitespace).reversed().drop(while: \.isWhitespace).reversed())
    func invalid(_ why: String) -> PackageError {
      let shown = trimmed.count > 40 ? String(trimmed.prefix(40)) + "…" : trimmed
      return PackageError(.invalidArgument, "not a package reference:", path: shown, context: "(\(why))")
    }
    guard trimmed.hasPrefix("docpkg-ref") else { throw invalid("it should start with \(Self.textPrefix))") }
    guard trimmed.hasPrefix(Self.textPrefix) else {
      throw invalid("made by a newer version of docpkg: this one reads \(Self.textPrefix)")
    }
    var base64 = String(
      trimmed.dropFirst(Self.textPrefix.count).map { c -> Character in c == "-" ? "+" : c == "_" ? "/" : c })
    base64 += String(repeating: "=", count: (4 - base64.count % 4) % 4)
    guard let json = Data(base64Encoded: base64) else { throw invalid("damaged: not base64url") }
    do { self = try JSONDecoder().decode(PackageReference.self, from: json) } catch {
      throw invalid("damaged: its contents do not decode")
    }
  }
}
