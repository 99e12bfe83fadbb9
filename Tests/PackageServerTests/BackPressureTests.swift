import DocumentPackage
import Foundation
import PackageServer
import TestSupport
import Testing

/// Issue 38, second attack: a response is read from disk and queued only as fast as its client takes it, so a
/// client that asks much and reads nothing holds little, and clients that read are never cut short.
@Suite("docpkg serve sends no faster than its clients read", .serialized)
struct BackPressureTests {
  /// A package holding `name` with `bytes`.
  static func package(in temp: TemporaryDirectory, _ name: String, _ bytes: @escaping @Sendable () -> Data)
    async throws -> String
  {
    try await offThePool { () -> String in
      let package = try temp.makeDirectory("Big.mydoc")
      try bytes().write(to: URL(fileURLWithPath: "\(package)/\(name)"))
      return package
    }
  }

  @Test("one connection that sends 20,000 requests at once and reads nothing holds one answer, then is closed")
  func pipelinedRequests() async throws {
    let temp = try TemporaryDirectory()
    // 16 KiB of text: each answer is a little more.
    let package = try await Self.package(in: temp, "big.txt") {
      Data(String(repeating: String(repeating: "a", count: 63) + "\n", count: 256).utf8)
    }
    let served = try await Served(package: package) { $0.idleTimeout = .seconds(2) }
    let (port, server) = (served.port, served.server)
    let target = Served.target("/api/preview", ["path": "big.txt"])
    let before = ConnectionLimitsTests.residentBytes()
    let sending = Task {
      try await offThePool { () -> RawConnection in
        let client = try RawConnection(port: port, timeout: 60, receiveBuffer: 4096)
        // Returns once the kernels took the requests (or the server closed the connection).
        client.send(String(repeating: "GET \(target) HTTP/1.1\r\nHost: 127.0.0.1:\(port)\r\n\r\n", count: 20_000))
        return client
      }
    }
    var (peakHeld, peakResident) = (0, 0)
    #expect(await eventually { server.openConnections == 1 })
    let closed = await eventually(seconds: 300) {
      peakHeld = max(peakHeld, server.bufferedBytes)
      peakResident = max(peakResident, ConnectionLimitsTests.residentBytes())
      return server.openConnections == 0
    }
    // Kept open, reading nothing, until the server closed it.
    let client = try await sending.value
    withExtendedLifetime(client) {}
    print(
      "serve-test: 20,000 pipelined previews, not read: at most \(peakHeld >> 10) KiB held, RSS \(before >> 20) MiB "
        + "before, \(peakResident >> 20) MiB at most; \(server.bufferedBytes) bytes held after")
    #expect(closed, "the connection was not closed for reading nothing")
    #expect(peakHeld <= 1 << 20, "\(peakHeld >> 20) MiB held for one connection")
    #expect(peakResident - before <= 64 << 20, "RSS grew from \(before >> 20) to \(peakResident >> 20) MiB")
    #expect(server.bufferedBytes == 0)
    #expect(try await served.get("/api/info").status == 200)
    await served.stop()
  }

  @Test("40 clients reading a 32 MiB image beside 100 that read nothing all get every byte, in bounded memory")
  func rawImages() async throws {
    RawHTTP.allowDescriptors(4096)
    let temp = try TemporaryDirectory()
    let size = Int(32 << 20)
    let package = try await Self.package(in: temp, "huge.png") {
      var data = Data([0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A])
      data.append(Data(count: size - data.count))
      return data
    }
    // No client is closed for its timeouts here: only for the memory it holds.
    let served = try await Served(package: package) {
      $0.headerTimeout = .seconds(600)
      $0.idleTimeout = .seconds(600)
    }
    let (port, server) = (served.port, served.server)
    let target = Served.target("/api/raw", ["path": "huge.png"])
    let request = "GET \(target) HTTP/1.1\r\nHost: 127.0.0.1:\(port)\r\nConnection: close\r\n\r\n"
    // One whole answer first: what any answer needs once is in the baseline.
    let first = try await offThePool { () -> Int in
      let client = try RawConnection(port: port, timeout: 60)
      client.send(request)
      return client.readCountingBody().bodyBytes
    }
    #expect(first == size)
    let before = ConnectionLimitsTests.residentBytes()
    let stalled = try await offThePool { () -> [RawConnection] in
      try (0..<100).map { _ in
        let client = try RawConnection(port: port, timeout: 60, receiveBuffer: 4096)
        client.send(request)
        return client
      }
    }
    let peak = PeakValue()
    let monitor = Task {
      while !Task.isCancelled {
        peak.note(ConnectionLimitsTests.residentBytes())
        try? await Task.sleep(for: .milliseconds(20))
      }
    }
    let results = try await withThrowingTaskGroup(of: (Int, Int).self) { group in
      for _ in 0..<40 {
        group.addTask {
          try await offThePool { () -> (Int, Int) in
            let client = try RawConnection(port: port, timeout: 120)
            client.send(request)
            let (head, count) = client.readCountingBody()
            return (head.status, count)
          }
        }
      }
      return try await group.reduce(into: []) { $0.append($1) }
    }
    monitor.cancel()
    peak.note(ConnectionLimitsTests.residentBytes())
    let whole = results.filter { $0 == (200, size) }.count
    print(
      "serve-test: 40 readers of a 32 MiB image beside 100 stalled: \(whole) whole; RSS \(before >> 20) MiB "
        + "before, \(peak.value >> 20) MiB at most; \(server.bufferedBytes >> 10) KiB held by the stalled")
    #expect(whole == 40, "\(results.filter { $0 != (200, size) })")
    #expect(peak.value - before <= 128 << 20, "RSS grew from \(before >> 20) to \(peak.value >> 20) MiB")
    withExtendedLifetime(stalled) {}
    await served.stop()
  }

  @Test("downloads whose clients stop reading give their slots back after the idle timeout")
  func stalledDownloads() async throws {
    let temp = try TemporaryDirectory()
    // 16 MiB that do not compress: more than the kernel's buffers take for a client that reads nothing.
    let package = try await Self.package(in: temp, "noise.bin") {
      FileHandle(forReadingAtPath: "/dev/urandom")?.readData(ofLength: 16 << 20) ?? Data()
    }
    let served = try await Served(package: package) { $0.idleTimeout = .seconds(1) }
    let (port, server) = (served.port, served.server)
    let target = Served.target("/api/download", ["state": "current"])
    let request = "GET \(target) HTTP/1.1\r\nHost: 127.0.0.1:\(port)\r\n\r\n"
    // Four clients (every slot) start a download, read its head, and stop reading.
    let stalled = try await offThePool { () -> [RawConnection] in
      let clients = try (0..<4).map { _ in try RawConnection(port: port, timeout: 60, receiveBuffer: 4096) }
      for client in clients { client.send(request) }
      for client in clients { client.read { RawReply($0).status != 0 } }
      return clients
    }
    #expect(stalled.map { RawReply($0.received).status } == [200, 200, 200, 200])
    let start = ContinuousClock.now
    #expect(await eventually(seconds: 60) { server.runningDownloads == 0 }, "\(server.runningDownloads) running")
    let freed = ContinuousClock.now - start
    print("serve-test: 4 stalled downloads gave their slots back after \(freed)")
    #expect(freed <= .seconds(15), "slots freed after \(freed)")
    // A fifth download is given a slot (not 503), and all of its zip.
    let (status, bytes) = try await offThePool { () -> (Int, Int) in
      let client = try RawConnection(port: port, timeout: 60)
      client.send(request.replacingOccurrences(of: "\r\n\r\n", with: "\r\nConnection: close\r\n\r\n"))
      let (head, count) = client.readCountingBody()
      return (head.status, count)
    }
    #expect(status == 200 && bytes > 16 << 20, "\(status), \(bytes) bytes")
    withExtendedLifetime(stalled) {}
    await served.stop()
  }
}

/// The largest value noted, from any thread.
final class PeakValue: @unchecked Sendable {
  private let lock = NSLock()
  private var peak = 0
  var value: Int { lock.withLock { peak } }
  func note(_ value: Int) { lock.withLock { peak = max(peak, value) } }
}
