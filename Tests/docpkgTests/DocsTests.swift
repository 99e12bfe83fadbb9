import Foundation
import TestSupport
import Testing

/// Issue 15: the DocC site `make docs` builds renders in a real browser. Runs only under
/// `make docs-test`, which builds the site first and sets `DOCPKG_DOCS` to its folder.
@Suite(
  "the built documentation",
  .enabled(if: ProcessInfo.processInfo.environment["DOCPKG_DOCS"] != nil && Shell.has("chromium")))
struct DocsTests {
  let site = ProcessInfo.processInfo.environment["DOCPKG_DOCS"] ?? ""

  @Test("headless Chromium renders the site's index and the PackageNode page with its abstract and links")
  func packageNodePageRenders() throws {
    let pages = ["documentation/", "documentation/documentpackage/packagenode/"]
    let output = try Shell.run("python3", [Fixtures.script("render-docs.py"), site] + pages).standardOutput
    let doms = output.components(separatedBy: "=== ").dropFirst()
    #expect(doms.count == 2)
    let index = doms.first ?? ""
    #expect(index.contains("DocumentPackage") && index.contains("DocumentArchive"), "\(index.prefix(2000))")
    let page = doms.last ?? ""
    // The title, the abstract from PackageNode's doc comment, and a topic from the curated list.
    #expect(page.contains("<h1") && page.contains("PackageNode"), "\(page.prefix(2000))")
    #expect(page.contains("A node of a document package: a regular file, a directory, or a symbolic link."))
    #expect(page.contains("href=\"/documentation/documentpackage/packagenode/parent\""))
    #expect(!page.contains("The page you’re looking for can’t be found"))
  }
}
