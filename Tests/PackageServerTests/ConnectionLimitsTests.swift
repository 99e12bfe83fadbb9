import DocumentPackage
import Foundation
import PackageServer
import SystemPackage
import TestSupport
import Testing

/// Issue 38, point 3: connections that keep the server waiting are closed, and however many are open, a real
/// request is answered; point 4: abandoned zip downloads stop and give their memory back.
@Suite("docpkg serve bounds connections and downloads", .serialized)
struct ConnectionLimitsTests {
  /// The request line and `Host` of `GET /api/info`, without the blank line that ends a head.
  static func infoHead(port: Int) -> String {
    "GET \(Served.target("/api/info")) HTTP/1.1\r\nHost: 127.0.0.1:\(port)\r\n"
  }

  /// Reads until the server closes `connection` (or 10 s pass); how long that took.
  static func timeToClose(_ connection: RawConnection) -> Duration {
    let start = ContinuousClock.now
    connection.read()
    return ContinuousClock.now - start
  }

  @Test("a connection that sends nothing, half a head, or nothing after a response is closed after its timeout")
  func timeouts() async throws {
    #expect(PackageServer.Configuration(location: .package("x")).headerTimeout <= .seconds(60))
    #expect(PackageServer.Configuration(location: .package("x")).idleTimeout <= .seconds(60))
    let temp = try TemporaryDirectory()
    let package = try await offThePool { try Fixtures.copy("Notes.mydoc", into: temp) }
    let served = try await Served(package: package) {
      $0.headerTimeout = .seconds(1)
      $0.idleTimeout = .seconds(1)
    }
    let port = served.port
    let (silent, half, idle) = try await offThePool { () -> (Duration, Duration, (Duration, Bool)) in
      let silent = try RawConnection(port: port, timeout: 10)
      let silentTime = Self.timeToClose(silent)
      // A head that is never finished: the timeout counts from the connection, not from the last line.
      let half = try RawConnection(port: port, timeout: 10)
      half.send(Self.infoHead(port: port))
      let halfTime = Self.timeToClose(half)
      #expect(half.received.isEmpty)
      // A whole request, answered; then nothing.
      let idle = try RawConnection(port: port, timeout: 10)
      idle.send(Self.infoHead(port: port) + "\r\n")
      let answered = idle.read { RawReply($0).status == 200 && $0.last == UInt8(ascii: "}") }
      return (silentTime, halfTime, (Self.timeToClose(idle), answered))
    }
    for (what, time) in [("silent", silent), ("half a head", half), ("idle after a response", idle.0)] {
      #expect(time >= .milliseconds(900) && time < .seconds(8), "\(what): closed after \(time)")
    }
    #expect(idle.1)
    #expect(try await served.get("/api/info").status == 200)
    await served.stop()
  }

  @Test("a request beside 600 idle connections is answered within 2 s; at most 512 connections stay open")
  func manyIdleConnections() async throws {
    RawHTTP.allowDescriptors(4096)
    let temp = try TemporaryDirectory()
    let package = try await offThePool { try Fixtures.copy("Notes.mydoc", into: temp) }
    let served = try await Served(package: package)
    let port = served.port
    let (idle, reply, elapsed) = try await offThePool { () -> ([RawConnection], RawReply, Duration) in
      let idle = try (0..<600).map { _ in try RawConnection(port: port, timeout: 10) }
      let start = ContinuousClock.now
      let reply = try RawHTTP.get(Served.target("/api/info"), port: port)
      return (idle, reply, ContinuousClock.now - start)
    }
    #expect(reply.status == 200, "\(reply)")
    #expect(elapsed <= .seconds(2), "answered in \(elapsed)")
    print("serve-test: a request beside 600 idle connections answered in \(elapsed)")
    // The oldest idle connections gave way: 600 + 1 asked, 512 at most kept.
    let server = served.server
    #expect(await eventually { server.openConnections <= 512 }, "\(server.openConnections) open")
    #expect(await eventually { idle.filter(\.isClosedByPeer).count >= 600 - 512 })
    #expect(!idle.last!.isClosedByPeer)
    await served.stop()
  }

  @Test("a request beside 600 event streams is answered within 2 s; at most 32 streams stay open")
  func manyEventStreams() async throws {
    RawHTTP.allowDescriptors(4096)
    let temp = try TemporaryDirectory()
    let package = try await offThePool { try Fixtures.copy("Notes.mydoc", into: temp) }
    let served = try await Served(package: package)
    let port = served.port
    let events = Served.target("/api/events")
    let (streams, reply, elapsed) = try await offThePool { () -> ([RawConnection], RawReply, Duration) in
      // One page after another opens its event stream, each answered before the next connects.
      let streams = try (0..<600).map { _ in
        let stream = try RawConnection(port: port, timeout: 10)
        stream.send("GET \(events) HTTP/1.1\r\nHost: 127.0.0.1:\(port)\r\n\r\n")
        stream.read { String(decoding: $0, as: UTF8.self).contains("event: hello") }
        return stream
      }
      let start = ContinuousClock.now
      let reply = try RawHTTP.get(Served.target("/api/info"), port: port)
      return (streams, reply, ContinuousClock.now - start)
    }
    #expect(reply.status == 200, "\(reply)")
    #expect(elapsed <= .seconds(2), "answered in \(elapsed)")
    print("serve-test: a request beside 600 event streams answered in \(elapsed)")
    let server = served.server
    #expect(server.openEventStreams <= 32, "\(server.openEventStreams) streams open")
    #expect(await eventually { server.openConnections <= 512 }, "\(server.openConnections) open")
    // The newest streams are the ones kept.
    #expect(!streams.last!.isClosedByPeer)
    await served.stop()
  }

  @Test("an event stream ended by a newer one closes its connection at once, not after the idle timeout")
  func evictedStreamCloses() async throws {
    let temp = try TemporaryDirectory()
    let package = try await offThePool { try Fixtures.copy("Notes.mydoc", into: temp) }
    let served = try await Served(package: package) {
      $0.eventStreamLimit = 2
      $0.idleTimeout = .seconds(30)
    }
    let port = served.port
    let events = Served.target("/api/events")
    let (oldest, newest, closedAfter) = try await offThePool { () -> (RawConnection, RawConnection, Duration) in
      let streams = try (0..<3).map { _ in
        let stream = try RawConnection(port: port, timeout: 20)
        stream.send("GET \(events) HTTP/1.1\r\nHost: 127.0.0.1:\(port)\r\n\r\n")
        stream.read { String(decoding: $0, as: UTF8.self).contains("event: hello") }
        return stream
      }
      return (streams[0], streams[2], Self.timeToClose(streams[0]))
    }
    #expect(closedAfter < .seconds(10), "the oldest stream's connection closed after \(closedAfter)")
    #expect(oldest.isClosedByPeer)
    #expect(!newest.isClosedByPeer)
    await served.stop()
  }

  @Test("the first listing of a folder of 4,000 files keeps no other request waiting")
  func largeListingBesideOthers() async throws {
    let temp = try TemporaryDirectory()
    let package = try await offThePool { () -> String in
      let package = try temp.makeDirectory("Many.mydoc")
      let folder = try temp.makeDirectory("Many.mydoc/d")
      for index in 0..<4000 {
        _ = FileManager.default.createFile(atPath: "\(folder)/f\(index).txt", contents: Data("x".utf8))
      }
      try Data("small\n".utf8).write(to: URL(fileURLWithPath: "\(package)/small.txt"))
      return package
    }
    let served = try await Served(package: package)
    let port = served.port
    let listing = try await offThePool { try RawConnection(port: port, timeout: 120) }
    let target = Served.target("/api/children", ["path": "d", "limit": "200"])
    listing.send("GET \(target) HTTP/1.1\r\nHost: 127.0.0.1:\(port)\r\n\r\n")
    // The listing was asked first; the page's other requests are answered while it is made.
    async let listed = offThePool { () -> ContinuousClock.Instant in
      listing.read { RawReply($0).status == 200 && $0.last == UInt8(ascii: "}") }
      return ContinuousClock.now
    }
    async let others = offThePool { () -> (RawReply, RawReply, ContinuousClock.Instant) in
      let info = try RawHTTP.get(Served.target("/api/info"), port: port)
      let preview = try RawHTTP.get(Served.target("/api/preview", ["path": "small.txt"]), port: port)
      return (info, preview, ContinuousClock.now)
    }
    let (listedAt, (info, preview, answeredAt)) = try await (listed, others)
    #expect(info.status == 200 && preview.status == 200, "\(info) \(preview)")
    #expect(RawReply(listing.received).json["total"] as? Int == 4000)
    #expect(answeredAt < listedAt, "the other requests were answered \(answeredAt - listedAt) after the listing")
    print("serve-test: /api/info and a preview answered \(listedAt - answeredAt) before a first listing of 4,000 files")
    await served.stop()
  }

  /// The resident memory of this process, from `/proc/self/status`.
  static func residentBytes() -> Int {
    let status = (try? String(contentsOfFile: "/proc/self/status", encoding: .utf8)) ?? ""
    let line = status.split(separator: "\n").first { $0.hasPrefix("VmRSS:") } ?? ""
    return (Int(line.split(separator: " ").dropFirst().first ?? "") ?? 0) * 1024
  }

  /// A package holding `big.json`: 2 MiB of JSON (as large as a preview re-indents) whose preview is about 5 MiB.
  static func bigJSON(in temp: TemporaryDirectory) async throws -> String {
    try await offThePool { () -> String in
      let package = try temp.makeDirectory("Big.mydoc")
      let json = "[" + Array(repeating: "1", count: 1 << 20 - 1).joined(separator: ",") + "]"
      try Data(json.utf8).write(to: URL(fileURLWithPath: "\(package)/big.json"))
      return package
    }
  }

  /// `count` clients that ask for the preview of `big.json` and read nothing (their kernel takes little of it).
  static func stalledPreviews(_ count: Int, port: Int) throws -> [RawConnection] {
    let target = Served.target("/api/preview", ["path": "big.json"])
    return try (0..<count).map { _ in
      let client = try RawConnection(port: port, timeout: 60, receiveBuffer: 4096)
      client.send("GET \(target) HTTP/1.1\r\nHost: 127.0.0.1:\(port)\r\n\r\n")
      return client
    }
  }

  @Test("60 clients that ask for large previews and read nothing leave memory bounded")
  func stalledPreviewsMemory() async throws {
    let temp = try TemporaryDirectory()
    let package = try await Self.bigJSON(in: temp)
    // No client is closed for its timeouts here: only for the memory it holds.
    let served = try await Served(package: package) {
      $0.headerTimeout = .seconds(600)
      $0.idleTimeout = .seconds(600)
    }
    let (port, server) = (served.port, served.server)
    // One preview first: what any preview needs once is in the baseline.
    #expect(try await served.get("/api/preview", ["path": "big.json"]).json["pretty"] as? Bool == true)
    let before = Self.residentBytes()
    let (stalled, reply) = try await offThePool { () -> ([RawConnection], RawReply) in
      let stalled = try Self.stalledPreviews(60, port: port)
      // Made after theirs (in the order asked): once it is answered, theirs were made.
      let reply = try RawHTTP.get(Served.target("/api/preview", ["path": "big.json"]), port: port)
      return (stalled, reply)
    }
    #expect(reply.status == 200 && reply.json["pretty"] as? Bool == true, "\(reply.status)")
    let after = Self.residentBytes()
    print(
      "serve-test: RSS \(before >> 20) MiB before 60 stalled previews, \(after >> 20) MiB after; "
        + "\(server.bufferedBytes >> 20) MiB held for their clients")
    #expect(server.bufferedBytes <= 64 << 20, "\(server.bufferedBytes >> 20) MiB held")
    #expect(after - before <= 192 << 20, "RSS grew from \(before >> 20) MiB to \(after >> 20) MiB")
    // The client that stopped reading longest was closed to make room: reading now, it gets part of its answer.
    let first = stalled[0]
    let whole = try await offThePool {
      first.read { received in
        let reply = RawReply(received)
        return reply.header("Content-Length").flatMap { Int($0) } == reply.body.count
      }
    }
    #expect(!whole, "\(first.received.count) bytes received")
    #expect(try await served.get("/api/info").status == 200)
    await served.stop()
  }

  @Test("a request beside 60 large previews is answered within 2 s")
  func cheapBesideSlow() async throws {
    let temp = try TemporaryDirectory()
    let package = try await Self.bigJSON(in: temp)
    let served = try await Served(package: package)
    let port = served.port
    let (stalled, reply, elapsed) = try await offThePool { () -> ([RawConnection], RawReply, Duration) in
      let stalled = try Self.stalledPreviews(60, port: port)
      let start = ContinuousClock.now
      let reply = try RawHTTP.get(Served.target("/api/info"), port: port)
      return (stalled, reply, ContinuousClock.now - start)
    }
    #expect(reply.status == 200, "\(reply)")
    #expect(elapsed <= .seconds(2), "answered in \(elapsed)")
    print("serve-test: a request beside 60 large previews answered in \(elapsed)")
    withExtendedLifetime(stalled) {}
    await served.stop()
  }

  /// A package of 20,000 files of 2 KiB in 100 folders: planning its zip takes seconds in a debug build.
  static func manyFiles(in temp: TemporaryDirectory) async throws -> String {
    try await offThePool { () -> String in
      let package = try temp.makeDirectory("Many.mydoc")
      let block = Data((0..<2048).map { UInt8(truncatingIfNeeded: $0 &* 31) })
      for directory in 0..<100 {
        try temp.makeDirectory("Many.mydoc/d\(directory)")
        for file in 0..<200 {
          try block.write(to: URL(fileURLWithPath: "\(package)/d\(directory)/f\(file).bin"))
        }
      }
      return package
    }
  }

  @Test("a download abandoned before its zip began frees its slot at once")
  func downloadsAbandonedWhilePlanning() async throws {
    let temp = try TemporaryDirectory()
    let package = try await Self.manyFiles(in: temp)
    let served = try await Served(package: package)
    let (port, server) = (served.port, served.server)
    let target = Served.target("/api/download", ["state": "current"])
    // Four clients (every slot) ask for the zip, see its head, and go before a byte of it arrives.
    let statuses = try await offThePool { () -> [Int] in
      let clients = try (0..<4).map { _ in try RawConnection(port: port, timeout: 60) }
      for client in clients { client.send("GET \(target) HTTP/1.1\r\nHost: 127.0.0.1:\(port)\r\n\r\n") }
      return clients.map { client in
        client.read { RawReply($0).status != 0 }
        return RawReply(client.received).status
      }
    }
    #expect(statuses == [200, 200, 200, 200])
    let start = ContinuousClock.now
    #expect(await eventually(seconds: 60) { server.runningDownloads == 0 }, "\(server.runningDownloads) running")
    let freed = ContinuousClock.now - start
    print("serve-test: 4 downloads abandoned while planning freed their slots in \(freed)")
    #expect(freed <= .seconds(3), "slots freed after \(freed)")
    // A fifth client is given a slot (not 503).
    let status = try await offThePool { () -> Int in
      let client = try RawConnection(port: port, timeout: 60)
      client.send("GET \(target) HTTP/1.1\r\nHost: 127.0.0.1:\(port)\r\n\r\n")
      client.read { RawReply($0).status != 0 }
      return RawReply(client.received).status
    }
    #expect(status == 200)
    await served.stop()
  }

  @Test("40 clients that abandon the zip of a 20,000-file package leave memory where it was")
  func abandonedDownloads() async throws {
    let temp = try TemporaryDirectory()
    let package = try await Self.manyFiles(in: temp)
    let served = try await Served(package: package)
    let port = served.port
    let server = served.server
    let target = Served.target("/api/download", ["state": "current"])
    /// `count` clients ask for the zip, each reads a little (the head, or a 503 when four are running), then goes.
    @Sendable func abandon(_ count: Int) throws -> [Int] {
      let clients = try (0..<count).map { _ in try RawConnection(port: port, timeout: 60) }
      for client in clients {
        client.send("GET \(target) HTTP/1.1\r\nHost: 127.0.0.1:\(port)\r\n\r\n")
      }
      return clients.map { client in
        client.read { received in
          let reply = RawReply(received)
          return reply.status == 200 || reply.status != 0 && received.last == UInt8(ascii: "}")
        }
        return RawReply(client.received).status
      }
    }
    // A packer given up on stops at its next entry, while it plans the archive too.
    let drained = { await eventually(seconds: 60) { server.runningDownloads == 0 } }
    // One download abandoned first: what any download needs once (threads, buffers) is in the baseline.
    #expect(try await offThePool { try abandon(1) } == [200])
    #expect(await drained())
    let before = Self.residentBytes()
    let start = ContinuousClock.now
    let statuses = try await offThePool { try abandon(40) }
    #expect(statuses.filter { $0 == 200 }.count == 4, "\(statuses)")
    #expect(statuses.allSatisfy { $0 == 200 || $0 == 503 }, "\(statuses)")
    #expect(await drained(), "\(server.runningDownloads) running")
    let after = Self.residentBytes()
    print(
      "serve-test: RSS \(before >> 20) MiB before 40 abandoned downloads, \(after >> 20) MiB after; "
        + "all stopped \(ContinuousClock.now - start) after they started")
    #expect(after - before <= 64 << 20, "RSS grew from \(before >> 20) MiB to \(after >> 20) MiB")
    #expect(try await served.get("/api/info").status == 200)
    await served.stop()
  }
}
