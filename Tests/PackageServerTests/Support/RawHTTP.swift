import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// A plain HTTP/1.1 client on a TCP socket to 127.0.0.1, with nothing between the test and the bytes it
/// sends: the request line, `Host` and the target (dots, `%2e`, backslashes) go out exactly as written, which
/// URLSession and AsyncHTTPClient would normalize. Blocking: call it through `offThePool`, from one task at a time.
final class RawConnection: @unchecked Sendable {
  private let fd: Int32
  private(set) var received: [UInt8] = []

  /// Connects to 127.0.0.1:`port`; reads wait at most `timeout` seconds (a debug build listing 3,000 entries on a
  /// loaded 2-core machine took over 10 s). A `receiveBuffer` in bytes makes the kernel take little for a client
  /// that reads nothing.
  init(port: Int, timeout: Double = 60, receiveBuffer: Int32? = nil) throws {
    fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
    guard fd >= 0 else { throw POSIXError(.EIO) }
    if var size = receiveBuffer {
      setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &size, socklen_t(MemoryLayout<Int32>.size))
    }
    var limit = timeval(tv_sec: Int(timeout), tv_usec: Int((timeout - Double(Int(timeout))) * 1_000_000))
    setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &limit, socklen_t(MemoryLayout<timeval>.size))
    var address = sockaddr_in()
    address.sin_family = sa_family_t(AF_INET)
    address.sin_port = in_port_t(UInt16(port).bigEndian)
    address.sin_addr.s_addr = inet_addr("127.0.0.1")
    let connected = withUnsafePointer(to: &address) {
      $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
        connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
      }
    }
    guard connected == 0 else {
      close(fd)
      throw POSIXError(POSIXErrorCode(rawValue: errno) ?? .EIO)
    }
  }

  deinit { close(fd) }

  func send(_ text: String) {
    let bytes = Array(text.utf8)
    var sent = 0
    while sent < bytes.count {
      let n = bytes[sent...].withUnsafeBytes { Glibc.send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
      if n <= 0 { return }
      sent += n
    }
  }

  /// Reads until `done` holds for what was received, the peer closes, or a read times out; returns whether
  /// `done` held.
  @discardableResult
  func read(until done: ([UInt8]) -> Bool = { _ in false }) -> Bool {
    var buffer = [UInt8](repeating: 0, count: 65536)
    while !done(received) {
      let n = recv(fd, &buffer, buffer.count, 0)
      if n <= 0 { return done(received) }
      received += buffer[..<n]
    }
    return true
  }

  /// Reads the head, then counts the bytes that follow without keeping them, until the peer closes or a read
  /// times out: the head (an empty body) and how many bytes of body arrived.
  func readCountingBody() -> (head: RawReply, bodyBytes: Int) {
    let separator = Array("\r\n\r\n".utf8)
    read { received in
      received.count >= 4 && received.indices.dropLast(3).contains { received[$0...].starts(with: separator) }
    }
    let headEnd =
      (received.indices.dropLast(3).first { received[$0...].starts(with: separator) } ?? received.count - 4) + 4
    var count = received.count - headEnd
    received = Array(received[..<headEnd])
    var buffer = [UInt8](repeating: 0, count: 65536)
    while true {
      let n = recv(fd, &buffer, buffer.count, 0)
      if n <= 0 { break }
      count += n
    }
    return (RawReply(received), count)
  }

  /// Whether the server has closed the connection (a read would end now, with nothing more).
  var isClosedByPeer: Bool {
    var byte: UInt8 = 0
    return recv(fd, &byte, 1, Int32(MSG_DONTWAIT | MSG_PEEK)) == 0
  }

  /// Whether what was received contains `text`.
  func hasReceived(_ text: String) -> Bool { String(decoding: received, as: UTF8.self).contains(text) }
}

/// A response as received: status, headers, and the body (de-chunked).
struct RawReply: CustomStringConvertible {
  var status: Int
  var headers: [(name: String, value: String)]
  var body: [UInt8]

  var text: String { String(decoding: body, as: UTF8.self) }
  func header(_ name: String) -> String? { headers.first { $0.name.lowercased() == name.lowercased() }?.value }
  var json: [String: Any] { (try? JSONSerialization.jsonObject(with: Data(body))) as? [String: Any] ?? [:] }
  var description: String { "\(status) \(text.prefix(300))" }

  init(_ bytes: [UInt8]) {
    let separator = Array("\r\n\r\n".utf8)
    let end =
      (0...max(0, bytes.count - 4)).first { Array(bytes[$0..<min(bytes.count, $0 + 4)]) == separator } ?? bytes.count
    let lines = String(decoding: bytes[..<end], as: UTF8.self).components(separatedBy: "\r\n")
    status = lines.first.flatMap { Int($0.split(separator: " ").dropFirst().first ?? "") } ?? 0
    headers = lines.dropFirst().compactMap { line in
      guard let colon = line.firstIndex(of: ":") else { return nil }
      return (String(line[..<colon]), line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces))
    }
    let raw = Array(bytes[min(bytes.count, end + 4)...])
    body = raw
    if headers.contains(where: { $0.name.lowercased() == "transfer-encoding" && $0.value == "chunked" }) {
      body = Self.dechunked(raw)
    }
  }

  private static func dechunked(_ raw: [UInt8]) -> [UInt8] {
    var out: [UInt8] = []
    var index = 0
    while index < raw.count {
      guard let lineEnd = (index..<raw.count - 1).first(where: { raw[$0] == 13 && raw[$0 + 1] == 10 }),
        let size = Int(String(decoding: raw[index..<lineEnd], as: UTF8.self), radix: 16)
      else { break }
      if size == 0 { break }
      let start = lineEnd + 2
      out += raw[start..<min(raw.count, start + size)]
      index = start + size + 2
    }
    return out
  }
}

enum RawHTTP {
  /// Raises this process's limit of open descriptors to at least `count` (within the hard limit), for tests that
  /// open hundreds of connections: a shell's soft limit is often 1,024, and each connection takes two here.
  static func allowDescriptors(_ count: Int) {
    var limit = rlimit()
    guard getrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit) == 0, limit.rlim_cur < rlim_t(count) else { return }
    limit.rlim_cur = min(limit.rlim_max, rlim_t(count))
    setrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit)
  }

  /// Sends `request` as it is (CRLF line ends added) and reads the whole response (the server closes).
  static func send(_ lines: [String], port: Int) throws -> RawReply {
    let connection = try RawConnection(port: port)
    connection.send(lines.joined(separator: "\r\n") + "\r\n\r\n")
    connection.read()
    return RawReply(connection.received)
  }

  /// `GET target` with `Host: 127.0.0.1:PORT` (or `host`), closing after the response.
  static func get(_ target: String, port: Int, host: String? = nil, extra: [String] = []) throws -> RawReply {
    try send(
      ["GET \(target) HTTP/1.1", "Host: \(host ?? "127.0.0.1:\(port)")", "Connection: close"] + extra, port: port)
  }

  /// `POST target` with an empty body and `extra` headers.
  static func post(_ target: String, port: Int, extra: [String] = []) throws -> RawReply {
    try send(
      ["POST \(target) HTTP/1.1", "Host: 127.0.0.1:\(port)", "Connection: close", "Content-Length: 0"] + extra,
      port: port)
  }
}
