import Foundation

/// A program running in the background (an example app, `docpkg watch` in a user namespace), its
/// output collected as it comes, so that a test can change files while it runs and wait for what
/// it prints.
public final class RunningProcess: @unchecked Sendable {
  private let process = Process()
  private let lock = NSLock()
  private var out = Data()
  private var err = Data()
  /// When standard output reached each length: read on the pipe's own thread, so the times do not
  /// wait for the test's tasks.
  private var outArrivals: [(at: ContinuousClock.Instant, length: Int)] = []
  /// The pipes not read to their end yet.
  private var pipesOpen = 2

  /// Starts `executable` (a path) with `arguments`.
  ///
  /// Each pipe is read by a thread of its own, in blocking reads until the program closes it,
  /// not with `readabilityHandler`: setting up and tearing down readability handlers in several
  /// tests at once crashes libdispatch's manager thread on Linux (a freed epoll note,
  /// swift-corelibs-libdispatch#949; seen in the watch tests in `_dispatch_event_loop_drain`).
  public init(_ executable: String, _ arguments: [String]) throws {
    process.executableURL = URL(fileURLWithPath: executable)
    process.arguments = arguments
    let stdout = Pipe()
    let stderr = Pipe()
    process.standardOutput = stdout
    process.standardError = stderr
    process.standardInput = FileHandle.nullDevice
    try process.run()
    read(stdout.fileHandleForReading) { [self] data, now in
      out.append(data)
      outArrivals.append((now, out.count))
    }
    read(stderr.fileHandleForReading) { [self] data, _ in err.append(data) }
  }

  /// Hands `add` (under the lock) what `handle` gives, as it comes, with the time it came, on a
  /// thread of its own, until the end.
  private func read(_ handle: FileHandle, _ add: @escaping @Sendable (Data, ContinuousClock.Instant) -> Void) {
    let thread = Thread { [self] in
      while true {
        let data = handle.availableData  // blocks until some data or the end (empty)
        let now = ContinuousClock.now
        guard !data.isEmpty else { break }
        lock.withLock { add(data, now) }
      }
      lock.withLock { pipesOpen -= 1 }
    }
    thread.start()
  }

  /// What it printed on standard output so far.
  public var standardOutput: String { lock.withLock { String(decoding: out, as: UTF8.self) } }
  /// When the program had printed the first line of standard output that contains `text` (when the
  /// test process read it); nil if it has not.
  public func arrival(ofLineContaining text: String) -> ContinuousClock.Instant? {
    lock.withLock {
      var start = 0
      for end in out.indices where out[end] == UInt8(ascii: "\n") {
        let line = String(decoding: out[start..<end], as: UTF8.self)
        start = end + 1
        guard line.contains(text) else { continue }
        return outArrivals.first { $0.length > end }?.at
      }
      return nil
    }
  }

  /// What it printed on standard error so far.
  public var standardError: String { lock.withLock { String(decoding: err, as: UTF8.self) } }
  /// Whether it is still running.
  public var isRunning: Bool { process.isRunning }
  /// Its exit status once it ended (128 + the signal if a signal ended it).
  public var status: Int32 {
    process.terminationReason == .uncaughtSignal ? 128 + process.terminationStatus : process.terminationStatus
  }

  /// Waits until `condition` holds, at most `seconds`; returns whether it held.
  @discardableResult
  public func wait(seconds: Double = 10, until condition: (RunningProcess) -> Bool) async -> Bool {
    await eventually(seconds: seconds) { condition(self) }
  }

  /// Waits until the program ended and all it printed was read, at most `seconds`; returns whether
  /// it did.
  @discardableResult
  public func waitForExit(seconds: Double = 30) async -> Bool {
    await wait(seconds: seconds) { process in !process.isRunning && process.lock.withLock { process.pipesOpen == 0 } }
  }

  /// Ends the program (SIGTERM) if it still runs, and waits for it.
  public func stop() {
    if process.isRunning { process.terminate() }
    process.waitUntilExit()
  }
}
