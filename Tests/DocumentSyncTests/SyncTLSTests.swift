import Foundation
import TestSupport
import Testing

/// Sync over HTTPS to a store whose certificate comes from a private authority (the gateway's TLS endpoint and the
/// failure cases `Scripts/objectstore.sh` serves): trusted with `--ca-bundle` or `AWS_CA_BUNDLE`, refused without,
/// and every refusal one readable line within seconds, never retried.
@Suite(.enabled(if: ObjectStore.isConfigured, ObjectStore.skipReason))
struct SyncTLSTests {
  static var https: String { ObjectStore.environment["DOCPKG_S3_HTTPS_ENDPOINT"] ?? "" }
  static var bundle: String { ObjectStore.environment["DOCPKG_S3_CA_BUNDLE"] ?? "" }

  /// A package with one file, in a fresh temp folder, and a fresh bucket's URL.
  func setUp(_ name: String) async throws -> (dir: TemporaryDirectory, package: String, url: String) {
    let client = try await ObjectStore.freshBucket()
    let dir = try TemporaryDirectory(name)
    try dir.write("Trip.mydoc/Notes/day1.txt", "day one\n")
    return (dir, dir.appending("Trip.mydoc"), "s3://\(client.bucket)/notes/trip")
  }

  /// Runs docpkg without AWS_CA_BUNDLE (unless `environment` sets it) and times it.
  func docpkg(_ arguments: [String], environment: [String: String] = [:]) throws -> (Shell.Output, Duration) {
    var output: Shell.Output?
    let elapsed = try ContinuousClock().measure {
      output = try Shell.run(
        "/usr/bin/env",
        ["-u", "AWS_CA_BUNDLE"] + environment.map { "\($0)=\($1)" }.sorted() + [Shell.docpkgPath] + arguments,
        check: false)
    }
    return (output!, elapsed)
  }

  @Test func pushPullCloneWithCABundleOption() async throws {
    let (dir, package, url) = try await setUp("sync-tls-option")
    var (result, _) = try docpkg([
      "remote", "add", package, "origin", url, "--endpoint", Self.https, "--ca-bundle", Self.bundle,
    ])
    #expect(result.status == 0, "\(result.standardError)")
    (result, _) = try docpkg(["push", package])
    #expect(result.standardOutput.hasPrefix("pushed 1 blobs"), "\(result.standardError)")
    let copy = dir.appending("Copy.mydoc")
    (result, _) = try docpkg(["clone", url, copy, "--endpoint", Self.https, "--ca-bundle", Self.bundle])
    #expect(result.status == 0, "\(result.standardError)")
    #expect(try String(contentsOfFile: copy + "/Notes/day1.txt", encoding: .utf8) == "day one\n")
    (result, _) = try docpkg(["pull", copy])
    #expect(result.standardOutput == "up to date\n", "\(result.standardError)")
  }

  @Test func pushPullCloneWithAWSCABundle() async throws {
    let (dir, package, url) = try await setUp("sync-tls-env")
    let environment = ["AWS_CA_BUNDLE": Self.bundle]
    var (result, _) = try docpkg(
      ["remote", "add", package, "origin", url, "--endpoint", Self.https], environment: environment)
    #expect(result.status == 0, "\(result.standardError)")
    (result, _) = try docpkg(["push", package], environment: environment)
    #expect(result.standardOutput.hasPrefix("pushed 1 blobs"), "\(result.standardError)")
    let copy = dir.appending("Copy.mydoc")
    (result, _) = try docpkg(["clone", url, copy, "--endpoint", Self.https], environment: environment)
    #expect(result.status == 0, "\(result.standardError)")
    (result, _) = try docpkg(["pull", copy], environment: environment)
    #expect(result.standardOutput == "up to date\n", "\(result.standardError)")
  }

  /// Each refusal: non-zero exit, one line naming the endpoint and the reason, under 5 s.
  @Test(arguments: [
    ("DOCPKG_S3_HTTPS_ENDPOINT", "signed by an authority not trusted here", true),
    ("DOCPKG_S3_WRONG_HOST_ENDPOINT", "for another host name", false),
    ("DOCPKG_S3_EXPIRED_ENDPOINT", "or has expired", false),
  ])
  func refusedCertificate(variable: String, reason: String, withoutBundle: Bool) async throws {
    let endpoint = try #require(ObjectStore.environment[variable])
    let (dir, _, url) = try await setUp("sync-tls-refused")
    let bundle = withoutBundle ? [] : ["--ca-bundle", Self.bundle]
    let (result, elapsed) = try docpkg(["clone", url, dir.appending("Copy.mydoc"), "--endpoint", endpoint] + bundle)
    #expect(result.status != 0)
    let lines = result.standardError.split(separator: "\n")
    #expect(lines.count == 1, "\(result.standardError)")
    #expect(result.standardError.contains(endpoint), "\(result.standardError)")
    #expect(result.standardError.contains(reason), "\(result.standardError)")
    #expect(!result.standardError.contains("BoringSSL"), "\(result.standardError)")
    #expect(withoutBundle == result.standardError.contains("--ca-bundle"))
    #expect(elapsed < .seconds(5), "took \(elapsed)")
  }

  @Test func unreadableBundleIsAnError() async throws {
    let (_, package, url) = try await setUp("sync-tls-nobundle")
    let (result, _) = try docpkg([
      "remote", "add", package, "origin", url, "--endpoint", Self.https, "--ca-bundle", "/nonexistent/ca.pem",
    ])
    #expect(result.status != 0)
    #expect(result.standardError.contains("cannot read the CA bundle '/nonexistent/ca.pem'"))
  }
}
