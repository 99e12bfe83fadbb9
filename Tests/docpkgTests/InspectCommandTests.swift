import Foundation
import Testing
import TestSupport

@Suite("docpkg inspect and cat")
struct InspectCommandTests {
  @Test func inspectJSONListsEveryEntryWithTotals() throws {
    let temp = try TemporaryDirectory()
    let package = try Fixtures.copy("Notes.mydoc", into: temp)
    let result = try Shell.docpkg(["inspect", package, "--json"])
    #expect(result.status == 0, "\(result.standardError)")
    let json = try JSONSerialization.jsonObject(with: result.stdout) as! [String: Any]
    let entries = json["entries"] as! [[String: Any]]
    #expect(entries.map { $0["path"] as! String } == [
      "Images", "Images/tram.png", "Index.json", "QuickLook", "QuickLook/Thumbnail.png", "Text.txt",
    ])
    #expect(json["files"] as? Int == 4)
    #expect(json["directories"] as? Int == 2)
    #expect(json["symlinks"] as? Int == 0)
    let sizes = entries.filter { $0["kind"] as? String == "file" }.map { $0["size"] as! Int }.reduce(0, +)
    #expect(json["bytes"] as? Int == sizes)
  }
}
