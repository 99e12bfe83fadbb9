import SystemPackage

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

// The process, its environment and its terminal: what the CLI and the unpacker ask the system.
extension Syscalls {
  /// This process's id.
  package static var processID: Int32 { Int32(getpid()) }

  /// The number of processors online (at least 1).
  package static var processorCount: Int { max(1, Int(sysconf(Int32(_SC_NPROCESSORS_ONLN)))) }

  /// The process's file mode creation mask. Read from `/proc/self/status` where Linux has it: `umask`
  /// itself only reads by setting, and another thread creating a file in between would get the
  /// wrong mode. Elsewhere it is set and put back at once.
  package static var processUmask: CInterop.Mode {
    if let fd = try? openFile(FilePath("/proc/self/status"), .readOnly) {
      defer { closeFile(fd) }
      let status = (try? readBytes(fd, at: 0, count: 1 << 14)) ?? []
      let line = String(decoding: status, as: UTF8.self).split(separator: "\n").first { $0.hasPrefix("Umask:") }
      if let line,
        let value = CInterop.Mode(line.dropFirst("Umask:".count).filter { $0 != " " && $0 != "\t" }, radix: 8)
      {
        return value
      }
    }
    let mask = umask(0o022)
    umask(mask)
    return mask
  }

  /// Whether the process runs as root (effective user 0), which creates files with any owner and mode.
  package static var isPrivileged: Bool { geteuid() == 0 }

  /// The current time in whole seconds since 1970.
  package static var currentTime: Int { time(nil) }

  /// Makes SIGINT, SIGTERM and SIGHUP end the process again, whatever the parent left blocked or
  /// ignored (a process started from a thread that blocks signals inherits that mask): for
  /// commands that run until interrupted.
  package static func restoreTerminationSignals() {
    var set = sigset_t()
    sigemptyset(&set)
    for number in [SIGINT, SIGTERM, SIGHUP] {
      sigaddset(&set, number)
      _ = signal(number, SIG_DFL)
    }
    _ = pthread_sigmask(SIG_UNBLOCK, &set, nil)
  }

  /// The value of the environment variable `name`, if set.
  package static func environment(_ name: String) -> String? {
    getenv(name).map { String(cString: $0) }
  }

  /// Runs `body` with a UTF-8 character type (`LC_CTYPE`) on this thread only (`uselocale`), and the
  /// thread's own locale again afterwards: libarchive converts names with the C library's multibyte
  /// functions, and in the "C" locale a non-ASCII name comes back nil. The process's locale, which the
  /// app owns, is never changed.
  package static func withUTF8CharacterType<T>(_ body: () throws -> T) rethrows -> T {
    guard let locale = UTF8Locale.shared.locale else { return try body() }
    let previous = uselocale(locale)
    defer { uselocale(previous) }
    return try body()
  }

  /// Whether `fd` is a terminal.
  package static func isTerminal(_ fd: CInt) -> Bool { isatty(fd) == 1 }

  /// Writes as much of `bytes` to `fd` as one `write` takes; the count, or the `Errno` (EINTR included).
  package static func writeOnce(_ fd: CInt, _ bytes: UnsafeRawBufferPointer) -> Result<Int, Errno> {
    let n = systemWrite(fd, bytes.baseAddress, bytes.count)
    return n < 0 ? .failure(currentErrno) : .success(n)
  }

  /// Ends the process at once with `status` (libc's `exit`).
  package static func exitProcess(_ status: Int32) -> Never { exit(status) }

  /// Starts `executable` with `arguments` in a session of its own (`setsid`), its standard
  /// streams on `/dev/null`, and returns without waiting: the process outlives this one (init
  /// reaps it), and no reader of this one's output waits for it.
  package static func spawnDetached(_ executable: FilePath, _ arguments: [String]) throws(Errno) {
    var attributes = posix_spawnattr_t()
    posix_spawnattr_init(&attributes)
    defer { posix_spawnattr_destroy(&attributes) }
    #if os(Linux)
    let setsid: Int16 = 0x80  // POSIX_SPAWN_SETSID, a GNU extension Swift does not import
    #else
    let setsid: Int16 = 0x400
    #endif
    posix_spawnattr_setflags(&attributes, setsid)
    var actions = posix_spawn_file_actions_t()
    posix_spawn_file_actions_init(&actions)
    defer { posix_spawn_file_actions_destroy(&actions) }
    for fd: CInt in 0...2 {
      _ = posix_spawn_file_actions_addopen(&actions, fd, "/dev/null", fd == 0 ? O_RDONLY : O_WRONLY, 0)
    }
    let argv: [UnsafeMutablePointer<CChar>?] = ([executable.string] + arguments).map { strdup($0) } + [nil]
    defer { argv.forEach { free($0) } }
    var pid: pid_t = 0
    let result = executable.withPlatformString { posix_spawn(&pid, $0, &actions, &attributes, argv, environ) }
    if result != 0 { throw Errno(rawValue: result) }
  }

  /// Runs `executable` with `arguments`, its standard streams this process's but its standard output this
  /// process's standard error (what it prints is never mixed into this process's output), and waits for it.
  /// - Returns: Its exit status (128 + the signal's number if a signal ended it).
  package static func runAndWait(_ executable: FilePath, _ arguments: [String]) throws(Errno) -> Int32 {
    let argv: [UnsafeMutablePointer<CChar>?] = ([executable.string] + arguments).map { strdup($0) } + [nil]
    defer { argv.forEach { free($0) } }
    var actions = posix_spawn_file_actions_t()
    posix_spawn_file_actions_init(&actions)
    defer { posix_spawn_file_actions_destroy(&actions) }
    _ = posix_spawn_file_actions_adddup2(&actions, 2, 1)
    var pid: pid_t = 0
    let result = executable.withPlatformString { posix_spawn(&pid, $0, &actions, nil, argv, environ) }
    if result != 0 { throw Errno(rawValue: result) }
    var status: CInt = 0
    while waitpid(pid, &status, 0) < 0 {
      guard errno == EINTR else { throw Errno(rawValue: errno) }
    }
    // WIFEXITED / WEXITSTATUS / WTERMSIG, which Swift does not import (macros).
    let signal = status & 0x7f
    return signal == 0 ? (status >> 8) & 0xff : 128 + signal
  }

  /// `path` with every symbolic link and `.`/`..` resolved (`realpath`), or nil if that fails.
  package static func resolvingLinks(_ path: FilePath) -> FilePath? {
    guard let resolved = path.withPlatformString({ realpath($0, nil) }) else { return nil }
    defer { free(resolved) }
    return FilePath(platformString: resolved)
  }
}

/// libc's `write`, which methods named `write` would otherwise shadow.
private func systemWrite(_ fd: CInt, _ bytes: UnsafeRawPointer?, _ count: Int) -> Int { write(fd, bytes, count) }

/// A mutual-exclusion lock for code that cannot use `Mutex` (macOS 13): a `pthread_mutex_t`
/// that lives as long as the lock.
package final class SystemLock: @unchecked Sendable {
  private let mutex = UnsafeMutablePointer<pthread_mutex_t>.allocate(capacity: 1)

  package init() { pthread_mutex_init(mutex, nil) }

  deinit {
    pthread_mutex_destroy(mutex)
    mutex.deallocate()
  }

  /// Runs `body` holding the lock.
  package func withLock<T>(_ body: () throws -> T) rethrows -> T {
    pthread_mutex_lock(mutex)
    defer { pthread_mutex_unlock(mutex) }
    return try body()
  }
}

/// A UTF-8 `LC_CTYPE` locale object, made once and never freed (it is read-only and shared by threads).
private struct UTF8Locale: @unchecked Sendable {
  let locale: locale_t?

  static let shared: UTF8Locale = {
    // A plain loop: a lazy map's `first` would call newlocale twice and drop one of them.
    for name in ["C.UTF-8", "C.utf8", "en_US.UTF-8"] {
      if let locale = newlocale(LC_CTYPE_MASK, name, nil) { return UTF8Locale(locale: locale) }
    }
    return UTF8Locale(locale: nil)
  }()
}
