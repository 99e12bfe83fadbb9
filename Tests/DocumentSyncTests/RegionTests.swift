import DocumentSync
import Foundation
import Testing

/// The region requests are signed for: the variables first, else the profile's `region` in the AWS config file
/// (`[default]`, or `[profile NAME]` for `AWS_PROFILE=NAME`), as the AWS CLI reads it. No server needed.
@Suite struct RegionTests {
  static let config = """
    # a comment
    [default]
    region = eu-west-3

    [profile work]
    output = json
    region=ca-central-1 # inline comment

    [work]
    region = wrong-section
    """

  /// Writes the config into a fresh temp folder and returns the environment pointing at it.
  func environment(_ extra: [String: String] = [:]) throws -> [String: String] {
    let folder = FileManager.default.temporaryDirectory.appendingPathComponent("region-" + UUID().uuidString)
    try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
    let file = folder.appendingPathComponent("config")
    try Data(Self.config.utf8).write(to: file)
    return extra.merging(["AWS_CONFIG_FILE": file.path, "HOME": folder.path]) { a, _ in a }
  }

  @Test func defaultProfileRegionFromConfig() throws {
    #expect(S3Credentials.region(try environment()) == "eu-west-3")
  }

  @Test func namedProfileIsTheProfileSection() throws {
    #expect(S3Credentials.region(try environment(["AWS_PROFILE": "work"])) == "ca-central-1")
  }

  @Test func variablesComeFirst() throws {
    #expect(S3Credentials.region(try environment(["AWS_REGION": "ap-south-1"])) == "ap-south-1")
    #expect(S3Credentials.region(try environment(["AWS_DEFAULT_REGION": "sa-east-1"])) == "sa-east-1")
  }

  @Test func noConfigMeansUSEast1() {
    #expect(S3Credentials.region(["AWS_CONFIG_FILE": "/nonexistent/docpkg/config"]) == "us-east-1")
    #expect(S3Credentials.region(["AWS_CONFIG_FILE": "/nonexistent", "AWS_PROFILE": "none"]) == "us-east-1")
  }
}
