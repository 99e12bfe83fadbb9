import Foundation
import Testing

@testable import DocumentPackage

/// A comparison can be stopped from outside (`docpkg serve` stops one whose client has gone, issue 38).
@Suite("PackageDifference stops when its caller cancels it")
struct DifferenceCancellationTests {
  /// A text of `lines` lines, every 50th line marked with `mark`.
  static func text(lines: Int, mark: String) -> String {
    (0..<lines).map { "line \($0)\($0 % 50 == 0 ? mark : "")\n" }.joined()
  }

  @Test("a comparison stopped by its caller throws 'cancelled' naming the file it was comparing")
  func comparisonStops() throws {
    let old = try PackageNode(directoryWithChildren: [
      "big.txt": PackageNode(regularFileWithContents: Data(Self.text(lines: 20_000, mark: " (old)").utf8))
    ])
    let new = try PackageNode(directoryWithChildren: [
      "big.txt": PackageNode(regularFileWithContents: Data(Self.text(lines: 20_000, mark: " (new)").utf8))
    ])
    var options = PackageDifference.Options()
    options.includesTextPatches = true
    let asked = Counter()
    // The walk and the reading ask once each: the third question is asked while the patch is made.
    options.isCancelled = { asked.next() >= 3 }
    #expect {
      _ = try new.difference(from: old, options: options)
    } throws: { error in
      let error = error as? PackageError
      return error?.code == .cancelled && error?.path == "big.txt"
    }
    #expect(asked.value == 3)
    options.isCancelled = { false }
    let whole = try new.difference(from: old, options: options)
    #expect(whole.changes.count == 1 && (whole.changes.first?.patch?.insertions ?? 0) > 0)
  }
}

/// A count of calls, for a closure that is not `Sendable`-checked.
private final class Counter: @unchecked Sendable {
  private(set) var value = 0
  func next() -> Int {
    value += 1
    return value
  }
}
