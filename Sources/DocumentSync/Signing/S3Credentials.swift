import DocumentPackage
import SystemPackage

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// The keys that sign requests to an object store. Read from the environment or `~/.aws/credentials`, never
/// stored by DocumentSync, and never part of a description (so never printed).
public struct S3Credentials: Sendable, CustomStringConvertible, CustomDebugStringConvertible, CustomReflectable {
  /// The access key id (`AWS_ACCESS_KEY_ID`).
  public var accessKeyID: String
  /// The secret key (`AWS_SECRET_ACCESS_KEY`).
  public var secretAccessKey: String
  /// A temporary session token (`AWS_SESSION_TOKEN`), if any.
  public var sessionToken: String?

  /// Credentials from their parts.
  public init(accessKeyID: String, secretAccessKey: String, sessionToken: String? = nil) {
    self.accessKeyID = accessKeyID
    self.secretAccessKey = secretAccessKey
    self.sessionToken = sessionToken
  }

  /// Names the access key only.
  public var description: String { "S3Credentials(accessKeyID: \(accessKeyID))" }

  /// Names the access key only.
  public var debugDescription: String { description }

  /// Shows the access key only (so `dump` does not print the secret).
  public var customMirror: Mirror { Mirror(self, children: ["accessKeyID": accessKeyID]) }

  /// The credentials of the environment: `AWS_ACCESS_KEY_ID` and `AWS_SECRET_ACCESS_KEY` (and
  /// `AWS_SESSION_TOKEN`), else the profile `AWS_PROFILE` (default `default`) of `~/.aws/credentials`
  /// (or `AWS_SHARED_CREDENTIALS_FILE`).
  /// - Throws: ``SyncError`` with code `credentials` naming where it looked.
  public static func fromEnvironment(_ environment: [String: String]) throws -> S3Credentials {
    if let id = environment["AWS_ACCESS_KEY_ID"], !id.isEmpty,
      let secret = environment["AWS_SECRET_ACCESS_KEY"], !secret.isEmpty
    {
      return S3Credentials(accessKeyID: id, secretAccessKey: secret, sessionToken: environment["AWS_SESSION_TOKEN"])
    }
    let profile = environment["AWS_PROFILE"] ?? "default"
    let file =
      environment["AWS_SHARED_CREDENTIALS_FILE"]
      ?? (environment["HOME"].map { $0 + "/.aws/credentials" } ?? "~/.aws/credentials")
    guard let data = (try? LocalFiles.read(FilePath(file))) ?? nil else {
      throw SyncError(
        .credentials, "no credentials: set AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY, or write them in", key: file)
    }
    let values = parseProfile(String(decoding: data, as: UTF8.self), profile: profile)
    guard let id = values["aws_access_key_id"], let secret = values["aws_secret_access_key"] else {
      throw SyncError(
        .credentials, "no aws_access_key_id and aws_secret_access_key in profile '\(profile)' of", key: file)
    }
    return S3Credentials(accessKeyID: id, secretAccessKey: secret, sessionToken: values["aws_session_token"])
  }

  /// The region of the environment: `AWS_REGION`, `AWS_DEFAULT_REGION`, else the `region` of the profile
  /// `AWS_PROFILE` (default `default`) in `~/.aws/config` (or `AWS_CONFIG_FILE`), as the AWS CLI reads it, else
  /// `us-east-1`.
  public static func region(_ environment: [String: String]) -> String {
    if let region = environment["AWS_REGION"] ?? environment["AWS_DEFAULT_REGION"], !region.isEmpty { return region }
    let file =
      environment["AWS_CONFIG_FILE"] ?? (environment["HOME"].map { $0 + "/.aws/config" } ?? "~/.aws/config")
    guard let data = (try? LocalFiles.read(FilePath(file))) ?? nil else { return "us-east-1" }
    return configRegion(String(decoding: data, as: UTF8.self), profile: environment["AWS_PROFILE"] ?? "default")
      ?? "us-east-1"
  }

  /// The `region` of `profile` in the text of an AWS config file, where the profile `default` is the section
  /// `[default]` and any other the section `[profile NAME]`.
  static func configRegion(_ text: String, profile: String) -> String? {
    let section = profile == "default" ? "default" : "profile \(profile)"
    guard let region = parseProfile(text, profile: section)["region"], !region.isEmpty else { return nil }
    return region
  }

  /// The `key = value` pairs of `[profile]` in an INI text.
  static func parseProfile(_ text: String, profile: String) -> [String: String] {
    var values: [String: String] = [:]
    var inProfile = false
    for rawLine in text.split(whereSeparator: \.isNewline) {
      let line = rawLine.split(separator: "#", maxSplits: 1, omittingEmptySubsequences: false)[0]
      let trimmed = line.split(separator: " ").joined(separator: " ")
      if trimmed.hasPrefix("[") {
        inProfile = trimmed == "[\(profile)]"
      } else if inProfile, let equals = trimmed.firstIndex(of: "=") {
        let key = trimmed[..<equals].split(separator: " ").joined()
        let value = trimmed[trimmed.index(after: equals)...].split(separator: " ").joined(separator: " ")
        values[key] = value
      }
    }
    return values
  }
}
