import Foundation

/// Every file below `folder` by relative path, with its text: to check what a package holds, or that nothing was
/// written there.
public func textFiles(below folder: String) throws -> [String: String] {
  var found: [String: String] = [:]
  for relative in try FileManager.default.subpathsOfDirectory(atPath: folder) {
    var isDirectory: ObjCBool = false
    if FileManager.default.fileExists(atPath: folder + "/" + relative, isDirectory: &isDirectory),
      !isDirectory.boolValue
    {
      found[relative] = try String(contentsOfFile: folder + "/" + relative, encoding: .utf8)
    }
  }
  return found
}
