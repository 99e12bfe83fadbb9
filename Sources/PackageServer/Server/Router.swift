import DocumentPackage
import NIOHTTP1
import SystemPackage

/// The server's routes, each a fixed path (nothing is found by URL path): the page and its two assets, and the
/// JSON API the page calls. Every request has passed ``RequestGuard`` first. Reads run on the
/// ``PackageBrowser``'s queue or ``/DocumentPackage/BlockingIO``, never on an event loop or the cooperative pool;
/// previews are made on a ``PreviewPool`` and directories listed on a queue of their own
/// (``PackageBrowser/list(_:)``), so that the browser's queue stays free for the cheap requests.
///
/// | route | answer |
/// | --- | --- |
/// | `GET /` | the page (``PageAssets``), with a fresh CSRF token |
/// | `GET /app.js`, `/app.css` | its script and style |
/// | `GET /api/info` | what is served: name, kind, whether versions, live updates and restore are there; what it may be compared with |
/// | `GET /api/children?path=&sort=name\|size&filter=&offset=&limit=` | a page of a directory (``DirectoryListing``) |
/// | `GET /api/preview?path=&state=&offset=&length=` | a range of a file (``FilePreview``) |
/// | `GET /api/raw?path=&state=` | an image's bytes (PNG, JPEG, GIF, WebP, SVG), sandboxed; nothing else |
/// | `GET /api/sizemap?path=` | a directory's size map (``SizeMap``) |
/// | `GET /api/versions` | the timeline (``VersionTimeline``) |
/// | `GET /api/changes` | what changed in each version from the one before (``VersionChanges``) |
/// | `GET /api/history?path=` | the states in which one entry changed, with patches (``FileHistory``) |
/// | `GET /api/diff?from=&to=` | `PackageDifference` between two states, with text patches (`docpkg diff --json`) |
/// | `GET /api/events` | server-sent events: `change` with the monitor's changes |
/// | `GET /api/download?state=` | the state as a zip, streamed (``ZipDownload``) |
/// | `POST /api/restore?id=` | restores a version (`--allow-restore`, CSRF token) |
///
/// A state is `current` (what was served), a version's id, or `compared-N`: the N-th location given with
/// `--compare` (from 0).
struct Router: Sendable {
  let browser: PackageBrowser
  let requestGuard: RequestGuard
  let events: EventHub
  /// Whether the served location can change (a package on disk): the page then opens the event stream.
  let isLive: Bool
  /// The zip downloads running.
  let downloads: ZipDownload.Slots
  /// Where previews are made.
  let previews: PreviewPool

  static let routes: Set<String> = [
    "/", "/app.js", "/app.css", "/api/info", "/api/children", "/api/preview", "/api/raw", "/api/sizemap",
    "/api/versions", "/api/diff", "/api/events", "/api/download", "/api/restore", "/api/changes", "/api/history",
  ]

  /// The most entries one page of a directory holds.
  static let pageLimit = 2000
  /// The largest image `/api/raw` sends.
  static let imageLimit: Int64 = 32 << 20

  func respond(_ request: HTTPRequest) async -> HTTPResponse {
    if let refusal = requestGuard.refusal(of: request, routes: Self.routes) { return refusal }
    let query = request.query ?? [:]
    let path = query["path"] ?? ""
    do {
      switch request.route {
      case "/": return page()
      case "/app.js":
        return HTTPResponse(
          status: .ok, contentType: "text/javascript; charset=utf-8", body: .bytes(Array(PageAssets.script.utf8)))
      case "/app.css":
        return HTTPResponse(
          status: .ok, contentType: "text/css; charset=utf-8", body: .bytes(Array(PageAssets.style.utf8)))
      case "/api/info": return try await info()
      case "/api/children":
        let order = DirectoryListing.Order(rawValue: query["sort"] ?? "name") ?? .name
        let (filter, offset, limit) = (
          query["filter"] ?? "", number(query["offset"]) ?? 0, min(number(query["limit"]) ?? 500, Self.pageLimit)
        )
        return .json(
          try await browser.list { root in
            try DirectoryListing(of: root, at: path, order: order, filter: filter, offset: offset, limit: limit)
          })
      case "/api/preview":
        let (offset, length) = (Int64(number(query["offset"]) ?? 0), number(query["length"]))
        let treeState = try state(query["state"])
        return try await previews.run { onThread in
          let source = try await browser.read(treeState) { root in
            try FilePreview.Source(of: root, at: path, offset: offset, length: length)
          }
          return try await onThread { isCancelled in
            let preview = try FilePreview(source, isCancelled: isCancelled)
            if isCancelled() { throw CancellationError() }  // nobody to encode it for
            return HTTPResponse.json(preview)
          }
        }
      case "/api/raw": return try await raw(path, state: try state(query["state"]))
      case "/api/sizemap":
        return .json(try await browser.withTotals { root, totals in try SizeMap(of: root, at: path, totals: totals) })
      case "/api/versions":
        let location = browser.location
        let restorable = requestGuard.allowsWrites
        return .json(try await BlockingIO.run { try VersionTimeline(of: location, restorable: restorable) })
      case "/api/changes": return .json(try await versionChanges())
      case "/api/history": return .json(try await history(of: path))
      case "/api/diff": return try await difference(from: try state(query["from"]), to: try state(query["to"]))
      case "/api/events": return eventStream()
      case "/api/download": return try await download(try state(query["state"]))
      case "/api/restore": return try await restore(number(query["id"]))
      default: return .failure(.notFound, "no such page")
      }
    } catch let error as PackageError {
      return .failure(Self.status(of: error), String(describing: error))
    } catch {
      return .failure(.internalServerError, String(describing: error))
    }
  }

  private func number(_ text: String?) -> Int? { text.flatMap { Int($0) }.map { max(0, $0) } }

  private func state(_ text: String?) throws -> TreeState {
    guard let state = TreeState(text ?? "current") else {
      throw PackageError(
        .invalidArgument, "no such state:", path: text ?? "", context: "(current, a version id or compared-N)")
    }
    return state
  }

  /// The page, with a CSRF token of its own for the requests that change something.
  private func page() -> HTTPResponse {
    let pageToken = ServerToken.random()
    requestGuard.issuePageToken(pageToken)
    let html = PageAssets.html(token: requestGuard.token, pageToken: pageToken)
    return HTTPResponse(status: .ok, contentType: "text/html; charset=utf-8", body: .bytes(Array(html.utf8)))
  }

  private struct Info: Codable {
    var name: String
    var location: String
    var kind: String
    var root: EntrySummary
    var hasVersions: Bool
    var live: Bool
    var restorable: Bool
    var compared: [ComparedInfo]
  }

  /// A location given to compare with.
  private struct ComparedInfo: Codable {
    /// How the page names it as a state: `compared-N`.
    var state: String
    /// The location as the user wrote it.
    var location: String
    /// `package`, `archive` or `version`.
    var kind: String
  }

  private func info() async throws -> HTTPResponse {
    let location = browser.location
    let (root, name) = try await browser.read { root in (EntrySummary(root, path: ""), root.name) }
    return .json(
      Info(
        name: name.isEmpty ? location.displayName : name, location: location.displayName,
        kind: location.kindName, root: root, hasVersions: location.versionedPackage != nil, live: isLive,
        restorable: requestGuard.allowsWrites && location.isPackageOnDisk,
        compared: browser.compared.enumerated().map { index, other in
          ComparedInfo(
            state: TreeState.compared(index).description, location: other.displayName, kind: other.kindName)
        }))
  }

  /// An image's bytes, with its type from its signature (never from its name, nor sniffed by the browser) and a
  /// sandbox policy; other files are refused (their preview is text or hex).
  ///
  /// Sent a chunk at a time (``RawChunks``), each read once the last was taken by the socket, so that a
  /// connection holds one chunk however large the image and however slowly its client reads (issue 38: 100
  /// clients that asked for a 32 MiB image and read nothing took 1.5 GB, and the buffered-bytes cap then closed
  /// clients that were reading).
  private func raw(_ path: String, state: TreeState) async throws -> HTTPResponse {
    let image = try await browser.read(state) { root -> (type: String, size: Int64)? in
      let node = try root.node(at: path)
      guard node.kind == .file, node.size <= Self.imageLimit else { return nil }
      let head = try node.bytes(at: 0, count: 4096)
      guard case (let form, let type?) = FilePreview.form(of: head, name: node.name), form == .image || form == .svg
      else { return nil }
      return (type, node.size)
    }
    guard let image else { return .failure(.unsupportedMediaType, "not an image (or over 32 MiB): \(path)") }
    let chunkSize = try browser.location(of: state).isPackageOnDisk ? RawChunks.fileChunk : RawChunks.sourceChunk
    var response = HTTPResponse(
      status: .ok, contentType: image.type,
      body: .stream(
        RawChunks.body(of: path, in: state, size: image.size, chunkSize: chunkSize, browser: browser),
        length: image.size),
      policy: HTTPResponse.contentPolicy)
    response.headers.add(name: "Content-Disposition", value: "inline")
    return response
  }

  private func difference(from old: TreeState, to new: TreeState) async throws -> HTTPResponse {
    .json(
      try await browser.read(old, new) { oldRoot, newRoot, isCancelled in
        var options = PackageDifference.Options()
        options.includesTextPatches = true
        options.isCancelled = isCancelled
        return try newRoot.difference(from: oldRoot, options: options)
      })
  }

  /// The ids of the versions that can be read (saved or conflict), oldest first.
  private func readableVersions() async throws -> [Int] {
    let location = browser.location
    let timeline = try await BlockingIO.run { try VersionTimeline(of: location, restorable: false) }
    return timeline.versions.filter { $0.state == "saved" || $0.state == "conflict" }.map(\.id)
  }

  /// Each of the newest versions compared with the one before it (the first with an empty package).
  private func versionChanges() async throws -> VersionChanges {
    let ids = try await readableVersions()
    var items: [VersionChanges.Item] = []
    for index in max(0, ids.count - VersionChanges.versionLimit)..<ids.count {
      let (id, previous) = (ids[index], index > 0 ? ids[index - 1] : nil)
      let difference =
        if let previous {
          try await browser.read(.version(previous), .version(id)) { old, new, _ in try new.difference(from: old) }
        } else {
          try await browser.read(.version(id)) { new in
            try new.difference(from: PackageNode(directoryWithChildren: [:]))
          }
        }
      items.append(VersionChanges.item(id: id, previous: previous, difference: difference))
    }
    return VersionChanges(versions: items)
  }

  /// The versions, then the served package, in which the entry at `path` changed.
  private func history(of path: String) async throws -> FileHistory {
    var states = try await readableVersions().map { TreeState.version($0) }
    if browser.location.isPackageOnDisk { states.append(.served) }
    var steps: [FileHistory.Step] = []
    var previous: TreeState?
    for state in states {
      let (name, previousName) = (state.description, previous?.description)
      let step =
        if let previous {
          try await browser.read(previous, state) { old, new, _ in
            try FileHistory.step(at: path, from: old, to: new, state: name, previous: previousName)
          }
        } else {
          try await browser.read(state) { new in
            try FileHistory.step(at: path, from: nil, to: new, state: name, previous: nil)
          }
        }
      if let step { steps.append(step) }
      previous = state
    }
    return FileHistory(path: path, steps: steps)
  }

  private func eventStream() -> HTTPResponse {
    let events = events
    var response = HTTPResponse(
      status: .ok, contentType: "text/event-stream",
      body: .stream { write in
        let (stream, cancel) = events.subscribe()
        defer { cancel() }
        // Subscribed first: if the monitor starts meanwhile, its `live` event follows.
        guard await write(Array("event: hello\ndata: {\"live\":\(events.isWatching)}\n\n".utf8)) else { return false }
        for await record in stream {
          guard await write(Array(record.utf8)) else { return false }
        }
        return true  // the server stops: the stream ends as a stream should
      })
    response.headers.add(name: "X-Accel-Buffering", value: "no")
    // A stream ended by a newer one (``EventHub``) ends its connection too: its page sees the end at once and
    // reconnects, instead of holding a silent connection until the idle timeout (issue 38).
    response.closesConnection = true
    return response
  }

  private func download(_ state: TreeState) async throws -> HTTPResponse {
    guard let slot = downloads.take() else {
      var busy = HTTPResponse.failure(
        .serviceUnavailable, "\(downloads.limit) downloads are running: try again when one has ended")
      busy.headers.add(name: "Retry-After", value: "5")
      return busy
    }
    let location = try browser.location(of: state)
    try await browser.fetchRemoteFiles(of: [state])
    // A tree of the download's own: the packer reads it on a thread of its own while the page goes on reading.
    let tree = try await BlockingIO.run { Handed(try location.open()) }
    var name = tree.value.name.isEmpty ? "package" : tree.value.name
    if case .version(let id) = state { name += "@\(id)" }
    let body = try await ZipDownload.start(tree, slot: slot)
    var response = HTTPResponse(status: .ok, contentType: "application/zip", body: .stream(body))
    response.headers.add(name: "Content-Disposition", value: "attachment; filename=\"\(Self.headerSafe(name)).zip\"")
    return response
  }

  private func restore(_ id: Int?) async throws -> HTTPResponse {
    guard let id else { throw PackageError(.invalidArgument, "no version to restore:", path: "id") }
    guard case .package(let path) = browser.location else {
      return .failure(.forbidden, "only a package on disk can be restored")
    }
    try await browser.fetchRemoteFiles(of: [.version(id)])
    try await BlockingIO.run {
      let file = try PackageFile(at: path, options: [.holdLock])
      defer { file.close() }
      file.versionPolicy = .keepAll  // restoring never prunes what the user may want next
      try file.restoreVersion(id)
    }
    browser.invalidate()
    return .json(["restored": id])
  }

  /// `name` with what cannot stand in a quoted header value replaced by `_`.
  static func headerSafe(_ name: String) -> String {
    String(name.unicodeScalars.map { $0.isASCII && $0.value >= 0x20 && $0 != "\"" && $0 != "\\" ? Character($0) : "_" })
  }

  static func status(of error: PackageError) -> HTTPResponseStatus {
    switch error.code {
    case .noSuchEntry: return .notFound
    case .notADirectory, .notARegularFile, .notASymbolicLink, .invalidName, .invalidArgument: return .badRequest
    case .locked, .conflict: return .conflict
    default: return .internalServerError
    }
  }
}
