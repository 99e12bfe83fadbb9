/// An error from talking to an object store or syncing with it: what failed, on which key (or file), and why —
/// with the server's own code and message when it sent one.
///
///     PUT 'docs/trip/head' failed: 412 PreconditionFailed (the remote's head moved: pull, then push again)
///     GET 'docs/trip/blobs/ab…' failed: 403 SignatureDoesNotMatch: The request signature we calculated does not match
///
/// Match on ``code``; new codes may be added later, so keep a `default` case in a `switch`.
public struct SyncError: Error, Sendable, Hashable, CustomStringConvertible {
  /// The kind of failure.
  public var code: Code
  /// What failed, in words.
  public var message: String
  /// The object key (or local path) the error is about.
  public var key: String
  /// The HTTP status, if a server answered.
  public var status: Int?
  /// The server's error code (`NoSuchKey`, `PreconditionFailed`, ...), if it sent one.
  public var serverCode: String?
  /// The server's error message, if it sent one.
  public var serverMessage: String?

  /// Creates an error.
  public init(
    _ code: Code, _ message: String, key: String, status: Int? = nil, serverCode: String? = nil,
    serverMessage: String? = nil
  ) {
    self.code = code
    self.message = message
    self.key = key
    self.status = status
    self.serverCode = serverCode
    self.serverMessage = serverMessage
  }

  /// One line: the message, the quoted key, and the server's status, code and message.
  public var description: String {
    var line = "\(message) '\(key)'"
    var server: [String] = []
    if let status { server.append(String(status)) }
    if let serverCode, !serverCode.isEmpty { server.append(serverCode) }
    if !server.isEmpty { line += ": " + server.joined(separator: " ") }
    if let serverMessage, !serverMessage.isEmpty { line += ": \(serverMessage)" }
    return line
  }
}

extension SyncError {
  /// A kind of ``SyncError``: a struct over a private enum, so that codes can be added without breaking `switch`es.
  public struct Code: Hashable, Sendable, CustomStringConvertible {
    private enum Value: String, Hashable, Sendable {
      case noSuchKey, noSuchBucket, preconditionFailed, server, transport, unreachable, tls, credentials, corrupt,
        invalidArgument, remote, cancelled, passphrase, timeout, rolledBack
    }
    private let value: Value
    private init(_ value: Value) { self.value = value }

    /// The object does not exist (404).
    public static var noSuchKey: Code { Code(.noSuchKey) }
    /// The bucket does not exist (404 `NoSuchBucket`): deleted, or a wrong name in the remote's URL.
    public static var noSuchBucket: Code { Code(.noSuchBucket) }
    /// A conditional request's condition failed (412): another writer changed the object.
    public static var preconditionFailed: Code { Code(.preconditionFailed) }
    /// The server refused or failed the request (any other non-2xx status).
    public static var server: Code { Code(.server) }
    /// The connection closed, reset or timed out during a request (retried a few times first, see
    /// <doc:RemoteLayout>).
    public static var transport: Code { Code(.transport) }
    /// The server cannot be reached: the connection was refused or the host name does not resolve. Never retried:
    /// the command fails within seconds.
    public static var unreachable: Code { Code(.unreachable) }
    /// The server's certificate was refused (unknown authority, another host name, expired) or the TLS handshake
    /// failed: never retried.
    public static var tls: Code { Code(.tls) }
    /// No credentials were found.
    public static var credentials: Code { Code(.credentials) }
    /// Downloaded data is not what its key or record says.
    public static var corrupt: Code { Code(.corrupt) }
    /// An argument (a URL, a remote name) is malformed.
    public static var invalidArgument: Code { Code(.invalidArgument) }
    /// A remote is missing, already exists, or its head is not what this package can use.
    public static var remote: Code { Code(.remote) }
    /// The server did not answer in time: a request's first byte, a pause in its answer, or an operation's
    /// deadline (``SyncTimeouts``); the message names the endpoint and the timeout.
    public static var timeout: Code { Code(.timeout) }
    /// The remote's head is older than the one this device took last (put back on the server): refused, nothing
    /// changed; `pull(acceptingRollback: true)` takes it anyway.
    public static var rolledBack: Code { Code(.rolledBack) }
    /// The operation was cancelled.
    public static var cancelled: Code { Code(.cancelled) }
    /// An encrypted remote's passphrase is missing or wrong (its key-parameters object does not open with it).
    public static var passphrase: Code { Code(.passphrase) }

    /// The code's name.
    public var description: String { value.rawValue }
  }
}
