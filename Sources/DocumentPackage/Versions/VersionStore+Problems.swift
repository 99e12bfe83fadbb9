import SystemPackage

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// A version the store cannot give back as a ``PackageVersion``: its record is damaged or cannot
/// be read, or a save left it pending and it is not settled (see
/// ``VersionStore/settlePendingVersions()``). ``VersionStore/versionProblems()`` lists them, and
/// `docpkg check` and `docpkg versions list` show them. Nothing the store holds for such a version
/// is removed by settling, pruning or recovery: its record and the files it names stay where they
/// are for whoever repairs them.
public struct VersionProblem: Sendable, Equatable, CustomStringConvertible {
  /// What kind of problem it is.
  public enum State: String, Sendable {
    /// The record (`versions/ID` or `pending/ID`) is not a whole record, or cannot be read.
    case damaged
    /// A pending version that is not settled yet (its copy failed or has not run).
    case pending
  }

  /// The version's id.
  public let id: Int
  /// Damaged or pending.
  public let state: State
  /// When the version was kept, if its record can say (a pending version's capture time).
  public let date: Date?
  /// The record on disk: `versions/ID` or `pending/ID` in the store.
  public let recordPath: FilePath
  /// What is wrong, in words: why the record is damaged, or why the version is not settled.
  public let reason: String

  /// One line naming the record and the reason.
  public var description: String {
    let what =
      state == .pending
      ? "pending version"
      : recordPath.removingLastComponent().lastComponent?.string == "pending"
        ? "damaged pending version record" : "damaged version record"
    return "\(what) '\(recordPath.string.escapingControlCharacters)': \(reason)"
  }
}

extension VersionStore {
  /// The reason of a ``VersionProblem`` from ``readRecord(_:)`` when there is no record at all.
  static let noRecord = "there is no record"

  /// The versions the store cannot give back (damaged or unreadable records, pending versions
  /// not settled), oldest first; settles first. Empty when every version is listed by
  /// ``versions()``.
  /// - Throws: ``PackageError`` with code `io` if the store cannot be listed.
  /// - Complexity: O(*v*) small file reads for *v* versions.
  public func versionProblems() throws -> [VersionProblem] {
    settleIfPending()
    return try listing().problems
  }

  /// Every record: the readable versions, and the problems of the others (pending ones included).
  func listing() throws -> (records: [VersionRecord], problems: [VersionProblem]) {
    let recorded = lastRecordedID  // before the listing (see `missingRecords`)
    guard exists, try Syscalls.entryExists(versionsPath) else {
      let pending = pendingIDs
      let problems = pending.compactMap { pendingProblem($0) }
      return ([], problems + (exists ? missingRecords([], listed: Set(pending), recorded: recorded) : []))
    }
    let names: [String]
    do { names = try StoreFiles.names(in: versionsPath) } catch {
      throw PackageError.io(error, "cannot list versions in", path: versionsPath.string)
    }
    var records: [VersionRecord] = []
    var problems: [VersionProblem] = []
    let ids = Set(names.compactMap { Int($0) })
    for id in ids.sorted() {
      switch readRecord(id) {
      case .record(let record): records.append(record)
      case .problem(let problem) where problem.reason == Self.noRecord: break  // removed meanwhile
      case .problem(let problem): problems.append(problem)
      }
    }
    let pending = pendingIDs
    for id in pending where !ids.contains(id) {
      if let problem = pendingProblem(id) { problems.append(problem) }
    }
    problems += missingRecords(records, listed: ids.union(pending), recorded: recorded)
    return (records, problems.sorted { $0.id < $1.id })
  }

  /// What reading `versions/ID` gave: the record, or why there is none.
  enum RecordRead {
    case record(VersionRecord)
    case problem(VersionProblem)
  }

  /// Reads and parses `versions/ID`.
  func readRecord(_ id: Int) -> RecordRead {
    let file = versionsPath.appending(String(id))
    func problem(_ reason: String) -> RecordRead {
      .problem(VersionProblem(id: id, state: .damaged, date: nil, recordPath: file, reason: reason))
    }
    let data: Data
    do { data = try StoreFiles.read(file) } catch let error as PackageError {
      return problem(
        error.code == .noSuchEntry ? Self.noRecord : "cannot be read: \(error.errno?.description ?? "\(error)")")
    } catch {
      return problem("cannot be read: \(error)")
    }
    guard let record = VersionRecord(id: id, data: data) else {
      return problem(
        RecordDamage.reason(data, header: "docpkg-version 1", required: ["date", "origin", "resolved", "size", "root"]))
    }
    return .record(record)
  }

  /// The problem of pending version `id`: its record is damaged, or it is not settled (why); nil
  /// if it has no pending record (settled meanwhile).
  func pendingProblem(_ id: Int) -> VersionProblem? {
    let file = pendingPath.appending(String(id))
    func damaged(_ reason: String) -> VersionProblem {
      VersionProblem(id: id, state: .damaged, date: nil, recordPath: file, reason: reason)
    }
    let data: Data
    do { data = try StoreFiles.read(file) } catch let error as PackageError {
      if error.code == .noSuchEntry { return nil }
      return damaged("cannot be read: \(error.errno?.description ?? "\(error)")")
    } catch {
      return damaged("cannot be read: \(error)")
    }
    guard let pending = PendingVersion(id: id, data: data) else {
      var reason: String
      if data.starts(with: Data((PendingVersion.uncheckedHeader + "\n").utf8)) {
        reason = "an earlier release wrote it ('\(PendingVersion.uncheckedHeader)'), and its lines carry no check"
      } else if data.starts(with: Data("docpkg-save-intent ".utf8)), case .damaged(let why) = SaveIntent.read(data) {
        // Recovery keeps a capture marker it cannot believe as the record (see DeferredKeeping).
        reason = "it is the capture marker of a save killed after its swap, not believed: \(why)"
      } else {
        // Lines not believed (damaged, edited, removed) first, then what whole lines lack.
        let previous = data.starts(with: Data((PendingVersion.previousHeader + "\n").utf8))
        reason =
          (data.isEmpty ? nil : PendingVersion.damage(data))
          ?? RecordDamage.reason(
            data, header: previous ? PendingVersion.previousHeader : PendingVersion.header,
            required: ["start", "root", "changed", "replaced"])
      }
      let old = pendingPath.appending("\(id).old")
      if (try? Syscalls.entryExists(old)) == true {
        reason += "; the files it replaced are kept in '\(old.string.escapingControlCharacters)'"
      }
      return damaged(reason)
    }
    let reason: String
    if let failure = settleFailure, failure.id == id {
      reason = "cannot be settled: \(failure.reason)"
    } else if let failure = settleFailure, failure.id < id {
      reason = "not settled: version \(failure.id) before it cannot be settled"
    } else {
      reason = "not settled yet"
    }
    return VersionProblem(id: id, state: .pending, date: pending.start.date, recordPath: file, reason: reason)
  }
}
