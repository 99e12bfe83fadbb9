import CSystemShims

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// The signals that ask a command to stop (Ctrl-C's SIGINT, `kill`'s SIGTERM, a closed
/// terminal's SIGHUP), for a command-line tool that wants to clean up before it ends.
///
/// Only an app may call ``handle(_:)``: a library must not change how its host handles signals.
package enum TerminationSignals {
  /// From now on, the first of these signals calls `body` on a thread of its own (not in a
  /// signal handler: the handler only writes to a pipe) instead of ending the process; a second
  /// one ends the process at once, as usual. Does nothing if the handlers cannot be installed.
  package static func handle(_ body: @escaping @Sendable (CInt) -> Void) {
    let readEnd = docpkg_termination_signal_pipe()
    guard readEnd >= 0 else { return }
    #if canImport(Darwin)
    var thread: pthread_t?
    #else
    var thread = pthread_t()
    #endif
    let context = Unmanaged.passRetained(Waiter(fd: readEnd, body: body)).toOpaque()
    let started = pthread_create(
      &thread, nil,
      { context in
        #if canImport(Darwin)
        let waiter = Unmanaged<Waiter>.fromOpaque(context).takeRetainedValue()
        #else
        let waiter = Unmanaged<Waiter>.fromOpaque(context!).takeRetainedValue()
        #endif
        waiter.wait()
        return nil
      }, context)
    if started == 0 {
      #if canImport(Darwin)
      if let thread { pthread_detach(thread) }
      #else
      pthread_detach(thread)
      #endif
    } else {
      Unmanaged<Waiter>.fromOpaque(context).release()
    }
  }

  /// Ends the process by `signalNumber` with its default action, so that the parent sees how it ended.
  package static func endProcess(by signalNumber: CInt) -> Never {
    signal(signalNumber, SIG_DFL)
    raise(signalNumber)
    exit(128 + signalNumber)
  }
}

/// Reads the signal pipe until a signal comes, then calls the body once.
private final class Waiter: Sendable {
  let fd: CInt
  let body: @Sendable (CInt) -> Void

  init(fd: CInt, body: @escaping @Sendable (CInt) -> Void) {
    self.fd = fd
    self.body = body
  }

  func wait() {
    var byte: UInt8 = 0
    while true {
      let n = read(fd, &byte, 1)
      if n == 1 { break }
      if n < 0, errno == EINTR { continue }
      return
    }
    body(CInt(byte))
  }
}
