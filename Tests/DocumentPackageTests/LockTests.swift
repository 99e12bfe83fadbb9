import Dispatch
import Foundation
import SystemPackage
import TestSupport
import Testing

@testable import DocumentPackage

private func names(_ path: String) throws -> [String] {
  try FileManager.default.contentsOfDirectory(atPath: path).sorted()
}

/// Whether `/proc/locks` shows a process waiting for a lock on the file with `inode`.
private func someoneWaits(onInode inode: UInt64) -> Bool {
  guard let locks = try? String(contentsOfFile: "/proc/locks", encoding: .utf8) else { return false }
  return locks.split(separator: "\n").contains { $0.contains("->") && $0.contains(":\(inode) ") }
}

@Suite("Package lock")
struct LockTests {
  @Test func onlyWritersLockAndNothingIsLeftBehind() async throws {
    let temp = try TemporaryDirectory()
    let package = try makePackage(in: temp)
    let reader = try PackageFile(at: FilePath(package))
    _ = try reader.root.node(at: "Text.txt").contents()
    #expect(try names(temp.path) == ["Doc.pkg"])  // opening to read creates nothing

    let writer = try PackageFile(at: FilePath(package), options: .holdLock)
    #expect(try names(temp.path) == [".Doc.pkg.docpkg-lock", "Doc.pkg"])  // held while writing
    writer.versionPolicy = .none
    try writer.root.setFile(at: "Text.txt", contents: Data("saved\n".utf8))
    try writer.save()
    writer.close()
    #expect(try names(temp.path) == ["Doc.pkg"])

    let document = try await Document(contentsOf: FilePath(package))
    await document.setVersionPolicy(.none)
    #expect(try names(temp.path) == ["Doc.pkg"])
    try await document.edit { try $0.setFile(at: "Text.txt", contents: Data("again\n".utf8)) }
    try await document.save()
    try await document.close()
    #expect(try names(temp.path) == ["Doc.pkg"])
  }

  @Test func aFileOrAFolderInsideAPackageIsNotTakenForAPackage() throws {
    let temp = try TemporaryDirectory()
    let package = try makePackage(in: temp)
    let document = try PackageFile(at: FilePath(package))
    try document.root.setFile(at: "Text.txt", contents: Data("saved\n".utf8))
    try document.save()  // keeps a version: `.Doc.pkg.docpkg-versions` marks Doc.pkg as a package
    let before = try names(package)
    #expect { try PackageFile(at: FilePath(package + "/Text.txt"), options: .holdLock) } throws: {
      ($0 as? PackageError)?.code == .notADirectory
    }
    #expect { try PackageFile(at: FilePath(package + "/Pages"), options: .holdLock) } throws: {
      ($0 as? PackageError)?.code == .invalidArgument
        && "\($0)".contains("a package cannot lie inside another package: '\(package)' holds")
    }
    #expect { try PackageFile.create(at: FilePath(package + "/Pages/Inner.pkg")) } throws: {
      ($0 as? PackageError)?.code == .invalidArgument
    }
    #expect(try names(package) == before)
    #expect(try names(package + "/Pages") == ["link", "p1", "p2"])
  }

  /// A writer waiting for the lock while its holder removes the lock file must lock the new file,
  /// not keep the removed one (else a third writer could lock a new file at the same time).
  @Test(.enabled(if: FileManager.default.fileExists(atPath: "/proc/locks")))
  func aWaitingWriterRelocksWhenTheHolderRemovesTheFile() throws {
    let temp = try TemporaryDirectory()
    let package = try makePackage(in: temp)
    let holder = try PackageLock(forPackageAt: FilePath(package))
    let inode = (try FileManager.default.attributesOfItem(atPath: holder.path.string)[.systemFileNumber] as! NSNumber)
      .uint64Value
    let acquired = DispatchSemaphore(value: 0)
    let done = DispatchSemaphore(value: 0)
    DispatchQueue.global().async {
      let waiter = try? PackageLock(forPackageAt: FilePath(package))
      acquired.signal()
      done.wait()
      withExtendedLifetime(waiter) {}
    }
    var waited = 0
    while !someoneWaits(onInode: inode), waited < 10_000 {  // until the waiter blocks in flock
      usleep(1000)
      waited += 1
    }
    #expect(someoneWaits(onInode: inode))
    holder.unlock()  // removes the lock file while the waiter waits on it
    #expect(acquired.wait(timeout: .now() + .seconds(10)) == .success)
    #expect(FileManager.default.fileExists(atPath: holder.path.string))  // the waiter locked a new file
    #expect { try PackageLock(forPackageAt: FilePath(package), wait: false) } throws: {
      ($0 as? PackageError)?.code == .locked
    }
    done.signal()
  }
}
