import Testing

@testable import DocumentPackage

/// What a save carried into folders its model never listed tells its entries from another program's.
@Suite("Carried entries")
struct CarriedEntriesTests {
  /// A save that carried `G` (a.txt, H) and `G/H` (a.txt), as TreeBuilder records them.
  private var carried: CarriedEntries {
    var carried = CarriedEntries()
    carried.recordDirectory("G")
    carried.record("a.txt", inode: 1, in: "G")
    carried.record("H", inode: 2, in: "G")
    carried.recordDirectory("G/H")
    carried.record("a.txt", inode: 3, in: "G/H")
    return carried
  }

  @Test func whatTheSavePutThereIsTheSaves() {
    #expect(carried.isSaved("G/a.txt", inode: 1) == true)
    #expect(carried.isSaved("G/H", inode: 2) == true)
    #expect(carried.isSaved("G/H/a.txt", inode: 3) == true)
    #expect(carried.count == 5)
  }

  @Test func nothingWhereTheSavePutNothingIsTheSaves() {
    // The folder's old entries, gone with the save (a folder renamed over another one).
    #expect(carried.isSaved("G/b.txt", inode: nil) == true)
    #expect(carried.isSaved("G/F/a.txt", inode: nil) == true)
  }

  @Test func anythingElseInACarriedFolderIsAnotherPrograms() {
    #expect(carried.isSaved("G/a.txt", inode: 9) == false)  // replaced
    #expect(carried.isSaved("G/a.txt", inode: nil) == false)  // removed
    #expect(carried.isSaved("G/b.txt", inode: 5) == false)  // added
    #expect(carried.isSaved("G/New/c.txt", inode: 6) == false)  // in a folder added
  }

  @Test func outsideTheCarriedFoldersItCannotSay() {
    #expect(carried.isSaved("a.txt", inode: 1) == nil)
    #expect(carried.isSaved("F/a.txt", inode: nil) == nil)
  }

  @Test func aLaterSavesRecordOfAFolderReplacesTheEarliers() {
    var later = CarriedEntries()
    later.recordDirectory("G/H")
    later.record("b.txt", inode: 7, in: "G/H")
    let merged = carried.merging(later)
    #expect(merged.isSaved("G/H/b.txt", inode: 7) == true)
    #expect(merged.isSaved("G/H/a.txt", inode: 3) == false)
    #expect(merged.count == 5)
  }
}
