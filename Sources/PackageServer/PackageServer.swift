import DocumentPackage
import NIOConcurrencyHelpers
import NIOCore
import NIOHTTP1
import NIOPosix
import SystemPackage

/// `docpkg serve`: a package, an archive or a version, shown in the browser — tree, previews, size map, versions,
/// comparisons, live changes, downloads, restore — by a small HTTP/1.1 server on the loopback interface.
///
/// **Why SwiftNIO directly, not Hummingbird.** The server needs a dozen fixed routes, one streamed body (a zip)
/// and one event stream; NIO's HTTP/1 codec (`NIOHTTP1`), which the sync helper already links for
/// async-http-client, does all of that in a few hundred lines here. Measured on this project's 2-core machine, debug
/// builds: this target builds in 12 s; Hummingbird 2.28.1 (traits off) added 81 s to a build of `docpkg-sync` whose
/// other packages were already built (Hummingbird, HummingbirdCore, swift-async-algorithms,
/// swift-service-lifecycle, swift-metrics), against 604 s for the whole clean build — a seventh more, for routing
/// and a service lifecycle this server does not need.
///
/// **Where it runs.** In `docpkg-sync`, the executable that links the network stack, which `docpkg serve` execs
/// as it does for the sync commands: `docpkg`'s other commands stay light.
///
/// **Threads.** NIO's event loops only parse and write HTTP. Each request is answered in a task that waits for
/// its reads on the ``PackageBrowser``'s serial queue (the trees are not thread-safe) or on
/// ``/DocumentPackage/BlockingIO`` (version lists, restore), so neither an event loop nor the cooperative pool
/// blocks on the disk. A preview is made on a thread of a ``PreviewPool``; a zip is packed on a thread of its own
/// into a pipe (``ZipDownload``).
///
/// **Safety** (it is a web server reading files): it listens on 127.0.0.1 only; every request passes
/// ``RequestGuard`` (the URL's random token, the `Host` header against DNS rebinding, fixed routes so no URL path
/// reaches the file system, entry paths without `..`, CSRF and `--allow-restore` for the one request that
/// writes). Entries are looked up in the model, which lists directories and never follows a symbolic link; an
/// archive is read through ``/DocumentArchive/ArchivePackage``, with `unpack`'s policy. Package bytes never run
/// as the page's content: every response has `X-Content-Type-Options: nosniff` and a Content-Security-Policy
/// (scripts from the server only, none inline); text reaches the page as JSON and is shown as text; images are
/// sent only with the type their signature says, in a sandbox, and SVG only as an image.
///
/// **Limits** (no request, file or client can take the server down): a connection must send a whole request
/// within a header timeout and the next within an idle timeout, and one that takes nothing of a response for the
/// idle timeout is closed (``ConnectionDeadline``); at most 512 connections are open, the one waiting longest
/// giving way to a new one (``ConnectionRegistry``); at most 32 event streams are open, the oldest ending when one
/// more opens, so that streams never fill the connections (``EventHub``); the responses all connections hold, not
/// yet taken by their clients, stay within 64 MiB, the connections holding bytes longest being closed beyond
/// (``ConnectionRegistry``); at most 2 previews are made at once, and they hold the browser's queue only to read
/// their bytes, so that cheap requests are answered beside many slow ones (``PreviewPool``); a request whose client
/// goes is cancelled, so that a preview or a comparison being made stops at its next check (every 64 KiB re-indented,
/// every round of a line search) and one still waiting never starts (``HTTPChannelHandler``); a query is decoded
/// once, and refused when malformed (``HTTPRequest/query``); a preview re-indents at most 4 MiB, in time linear in
/// the file (``PrettyPrinter``); at most 4 zip downloads run at once, each stopped when its client goes, even while
/// it plans the zip (``ZipDownload``); a response is sent no faster than its client takes it: a connection's next
/// request is answered once the socket has taken the last answer (so pipelined requests that are never read hold
/// one answer), and an image from `/api/raw` is read a chunk at a time as its client reads (``RawChunks``).
///
/// **Live.** A package on disk is watched by a ``/DocumentPackage/PackageMonitor``, started once the server
/// listens (it lists the whole package first, which the first page need not wait for); each change it reports
/// makes the browser drop its tree (read again at the next request) and is sent to every open page as a
/// server-sent event.
package final class PackageServer: Sendable {
  /// How the server is started.
  package struct Configuration: Sendable {
    /// What to serve.
    package var location: ServedLocation
    /// Other locations the page may compare the served one with (`--compare`): packages, archives, versions.
    package var compared: [ServedLocation] = []
    /// The port; 0 picks a free one.
    package var port: Int = 0
    /// Whether `POST /api/restore` may restore a version (`--allow-restore`).
    package var allowsRestore = false
    /// The URL's token; a random one when `nil`.
    package var token: String?
    /// Downloads the files a version keeps on a remote (a pull's version, ``/DocumentPackage/PackageVersion/remote``)
    /// before the page reads it: `docpkg-sync` sets it, with the environment's credentials. Without it, such a
    /// version's files fail to read with code `onRemote`.
    package var fetchVersionFiles: PackageBrowser.VersionFetcher?
    /// How long a new connection may take to send its first request whole (``ConnectionDeadline``).
    package var headerTimeout: Duration = .seconds(30)
    /// How long a connection may wait between requests, or take nothing of a response, before it is closed.
    package var idleTimeout: Duration = .seconds(30)
    /// The most connections open at once; beyond, the one waiting longest is closed (``ConnectionRegistry``).
    package var connectionLimit = 512
    /// The most zip downloads packed at once; beyond, a download is answered 503 (``ZipDownload``).
    package var downloadLimit = 4
    /// The most bytes of responses all connections together hold, not yet taken by their clients; beyond, the
    /// connections holding bytes longest are closed (``ConnectionRegistry``).
    package var bufferLimit = 64 << 20
    /// The most previews made at once (``PreviewPool``); more wait their turn.
    package var previewLimit = 2
    /// The most event streams open at once; beyond, the oldest ends (``EventHub``).
    package var eventStreamLimit = 32

    package init(
      location: ServedLocation, compared: [ServedLocation] = [], port: Int = 0, allowsRestore: Bool = false,
      token: String? = nil
    ) {
      self.location = location
      self.compared = compared
      self.port = port
      self.allowsRestore = allowsRestore
      self.token = token
    }
  }

  /// The connections open now.
  package var openConnections: Int { connections.count }
  private let connections: ConnectionRegistry
  /// The bytes of responses the connections hold now, not yet taken by their clients.
  package var bufferedBytes: Int { connections.bufferedBytes }
  /// The event streams open now.
  package var openEventStreams: Int { events.count }
  /// The zip downloads running now.
  package var runningDownloads: Int { downloads.running }
  private let downloads: ZipDownload.Slots
  /// The previews being made now (each holding a place of the ``PreviewPool``).
  package var runningPreviews: Int { previews.running }
  private let previews: PreviewPool
  /// The port the server listens on.
  package let port: Int
  /// The token every request must carry.
  package let token: String
  private let channel: any Channel
  private let events: EventHub
  /// The monitor, once it is watching (it lists the whole package first: it starts after the server listens).
  private let monitor: NIOLockedValueBox<PackageMonitor?>
  private let watching: Task<Void, Never>
  private let heartbeat: Task<Void, Never>

  /// The URL to open: `http://127.0.0.1:PORT/?token=TOKEN`.
  package var url: String { "http://127.0.0.1:\(port)/?token=\(token)" }

  /// Opens what `configuration` names, starts watching it (a package on disk) and listens on 127.0.0.1.
  /// - Throws: ``/DocumentPackage/PackageError`` when the location cannot be opened (an archive that `unpack`
  ///   would refuse among them), or NIO's error when the port cannot be bound.
  package init(_ configuration: Configuration) async throws {
    let location = configuration.location
    let compared = configuration.compared
    let fetcher = configuration.fetchVersionFiles
    let browser = try await BlockingIO.run { try PackageBrowser(location, compared: compared, fetcher: fetcher) }
    let events = EventHub(limit: configuration.eventStreamLimit)
    let token = configuration.token ?? ServerToken.random()
    let connections = ConnectionRegistry(limit: configuration.connectionLimit, bufferLimit: configuration.bufferLimit)
    let downloads = ZipDownload.Slots(limit: configuration.downloadLimit)
    let (headerTimeout, idleTimeout) = (
      TimeAmount(configuration.headerTimeout), TimeAmount(configuration.idleTimeout)
    )
    let previews = PreviewPool(width: configuration.previewLimit)
    let router = Router(
      browser: browser, requestGuard: RequestGuard(token: token, allowsWrites: configuration.allowsRestore),
      events: events, isLive: location.isPackageOnDisk, downloads: downloads, previews: previews)
    channel = try await Self.listening(port: configuration.port) {
      try await ServerBootstrap(group: MultiThreadedEventLoopGroup.singleton)
        .serverChannelOption(ChannelOptions.backlog, value: 64)
        .serverChannelOption(ChannelOptions.socketOption(.so_reuseaddr), value: 1)
        .childChannelInitializer { channel in
          guard connections.admit(channel) else {
            return channel.eventLoop.makeFailedFuture(ChannelError.ioOnClosedChannel)
          }
          return channel.eventLoop.makeCompletedFuture {
            try channel.pipeline.syncOperations.configureHTTPServerPipeline(withErrorHandling: true)
            try channel.pipeline.syncOperations.addHandlers(
              ConnectionDeadline(headerTimeout: headerTimeout, idleTimeout: idleTimeout, registry: connections),
              HTTPChannelHandler { request in await router.respond(request) })
          }
        }
        .bind(host: "127.0.0.1", port: configuration.port)
        .get()
    }
    port = channel.localAddress?.port ?? configuration.port
    self.token = token
    self.events = events
    self.connections = connections
    self.downloads = downloads
    self.previews = previews
    // A comment on every event stream now and then: a page that went away is noticed at the next write.
    heartbeat = Task {
      while (try? await Task.sleep(for: .seconds(15))) != nil { events.ping() }
    }
    let monitorBox = NIOLockedValueBox<PackageMonitor?>(nil)
    monitor = monitorBox
    watching = Task {
      guard case .package(let path) = location,
        let monitor = try? await BlockingIO.run({ try PackageMonitor(watching: path) })
      else { return }
      monitorBox.withLockedValue { $0 = monitor }
      if Task.isCancelled { monitor.stop() }
      events.startWatching()
      do {
        for try await event in monitor {
          if event.changes.contains(where: { $0.kind == .packageMoved }) {
            browser.follow(movedTo: FilePath(event.packagePath))
          }
          browser.invalidate()
          events.publish("change", data: event)
        }
      } catch {
        events.publish("error", data: ["error": String(describing: error)])
      }
    }
  }

  /// The channel `bind` opens, or a port that cannot be listened on as one line naming it: `cannot listen on
  /// '127.0.0.1:8080': Address already in use`, not NIO's description of the system call (issue 38).
  private static func listening(port: Int, _ bind: () async throws -> any Channel) async throws -> any Channel {
    do { return try await bind() } catch let error as IOError {
      throw PackageError(.io, "cannot listen on", path: "127.0.0.1:\(port)", errno: Errno(rawValue: error.errnoCode))
    }
  }

  /// Runs until the server's channel closes (``stop()``, or the process ends).
  package func waitUntilClosed() async throws {
    try await channel.closeFuture.get()
  }

  /// Stops listening, ends the event streams and the watching.
  package func stop() async {
    watching.cancel()
    monitor.withLockedValue { $0 }?.stop()
    heartbeat.cancel()
    events.finishAll()
    try? await channel.close()
  }
}

extension TimeAmount {
  /// `duration`, to the nanosecond.
  init(_ duration: Duration) {
    let (seconds, attoseconds) = duration.components
    self = .nanoseconds(seconds * 1_000_000_000 + attoseconds / 1_000_000_000)
  }
}
