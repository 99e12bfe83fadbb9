// `range(of:)`, which swift-crypto 3 brought in through its Foundation import (FoundationEssentials has none).
import Foundation

/// The little XML reading that S3's answers need: the text of `<Tag>…</Tag>` elements, with the five predefined
/// entities and numeric character references decoded. (S3's XML has no attributes, CDATA or namespaces that matter
/// here; a full parser would pull in libxml2.)
enum XMLText {
  /// The inner texts of every `<tag>…</tag>` in `text`, in order (not decoded: use for blocks).
  static func blocks(_ tag: String, in text: Substring) -> [Substring] {
    var results: [Substring] = []
    var rest = text
    let open = "<\(tag)>"
    let close = "</\(tag)>"
    while let start = rest.range(of: open) {
      guard let end = rest[start.upperBound...].range(of: close) else { break }
      results.append(rest[start.upperBound..<end.lowerBound])
      rest = rest[end.upperBound...]
    }
    return results
  }

  /// The decoded text of the first `<tag>…</tag>` in `text`.
  static func value(_ tag: String, in text: Substring) -> String? {
    blocks(tag, in: text).first.map { decode($0) }
  }

  /// `text` with `&amp;`, `&lt;`, `&gt;`, `&quot;`, `&apos;` and `&#N;`/`&#xN;` decoded.
  static func decode(_ text: Substring) -> String {
    guard text.contains("&") else { return String(text) }
    var out = ""
    var rest = text
    while let amp = rest.firstIndex(of: "&") {
      out += rest[..<amp]
      guard let semicolon = rest[amp...].firstIndex(of: ";") else { break }
      let entity = rest[rest.index(after: amp)..<semicolon]
      switch entity {
      case "amp": out += "&"
      case "lt": out += "<"
      case "gt": out += ">"
      case "quot": out += "\""
      case "apos": out += "'"
      default:
        let number: UInt32? =
          entity.hasPrefix("#x")
          ? UInt32(entity.dropFirst(2), radix: 16)
          : entity.hasPrefix("#") ? UInt32(entity.dropFirst()) : nil
        if let number, let scalar = Unicode.Scalar(number) {
          out.unicodeScalars.append(scalar)
        } else {
          out += rest[amp...semicolon]
        }
      }
      rest = rest[rest.index(after: semicolon)...]
    }
    return out + rest
  }

  /// `text` with `&`, `<`, `>` escaped, for a request body.
  static func escape(_ text: String) -> String {
    text.replacing("&", with: "&amp;").replacing("<", with: "&lt;").replacing(">", with: "&gt;")
  }
}
