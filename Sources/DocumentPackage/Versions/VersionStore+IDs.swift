import SystemPackage

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

extension VersionStore {
  /// `last-id`: the highest version id the store has given, so that an id is never given twice, not
  /// even after the version that had it was removed (people and scripts write ids down).
  var lastIDPath: FilePath { path.appending("last-id") }

  /// The highest id given so far: the largest of `last-id` (absent in stores written before it
  /// existed) and the records present, pending ones included (names only: no record is read).
  func lastGivenID() throws -> Int {
    let recorded = (try? StoreFiles.read(lastIDPath)).flatMap {
      String(decoding: $0, as: UTF8.self).split(whereSeparator: \.isWhitespace).first.flatMap { Int($0) }
    }
    let names = (try? StoreFiles.names(in: versionsPath).compactMap { Int($0) }) ?? []
    return max(recorded ?? 0, names.max() ?? 0, pendingIDs.max() ?? 0)
  }

  /// Gives the next id: records it in `last-id` (written atomically, like the records) before the
  /// version's record is written, so a kill in between skips an id rather than reusing one. Under the lock.
  func takeNextID() throws -> Int {
    let next = try lastGivenID() + 1
    try StoreFiles.writeAtomically(Data("\(next)\n".utf8), to: lastIDPath, temporary: temporaryPath)
    return next
  }
}
