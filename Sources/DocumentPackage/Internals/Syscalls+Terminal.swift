import SystemPackage

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

// The controlling terminal, for a secret typed by the user.
extension Syscalls {
  /// Writes `prompt` to the controlling terminal and reads one line from it with echo off (a passphrase), as
  /// `getpass` does (which is obsolete); echo is put back, whatever happens.
  /// - Returns: The line without its newline, or nil when the process has no controlling terminal or its standard
  ///   input is not one (a script: it must give the secret otherwise).
  /// - Throws: `Errno` if the terminal cannot be read or set.
  package static func readSecretLine(prompt: String) throws(Errno) -> String? {
    guard isatty(0) == 1 else { return nil }
    let fd = open("/dev/tty", O_RDWR | O_CLOEXEC | O_NOCTTY)
    guard fd >= 0 else { return nil }
    defer { close(fd) }
    var saved = termios()
    guard tcgetattr(fd, &saved) == 0 else { throw Errno(rawValue: errno) }
    var quiet = saved
    quiet.c_lflag &= ~tcflag_t(ECHO)
    guard tcsetattr(fd, TCSAFLUSH, &quiet) == 0 else { throw Errno(rawValue: errno) }
    defer {
      _ = tcsetattr(fd, TCSAFLUSH, &saved)
      _ = write(fd, "\n", 1)
    }
    _ = prompt.utf8CString.withUnsafeBufferPointer { write(fd, $0.baseAddress, $0.count - 1) }
    var line: [UInt8] = []
    var byte: UInt8 = 0
    while true {
      let count = read(fd, &byte, 1)
      if count < 0 {
        guard errno == EINTR else { throw Errno(rawValue: errno) }
        continue
      }
      if count == 0 || byte == 10 || byte == 13 { break }
      line.append(byte)
      guard line.count <= 4096 else { break }  // a secret, not a file
    }
    return String(decoding: line, as: UTF8.self)
  }
}
