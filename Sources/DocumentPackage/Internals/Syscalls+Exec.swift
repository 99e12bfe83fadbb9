import SystemPackage

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

// Running another program in this process's place: how `docpkg` hands its sync commands to `docpkg-sync`.
extension Syscalls {
  /// The running executable's path, links resolved (Linux: `/proc/self/exe`; elsewhere the
  /// program's first argument resolved), or `nil` if it cannot be found.
  package static func executablePath() -> FilePath? {
    #if os(Linux)
    if let path = try? readLinkPath(at: "/proc/self/exe") { return path }
    #endif
    return CommandLine.arguments.first.flatMap { resolvingLinks(FilePath($0)) }
  }

  /// Replaces this process's program with the executable at `path`, given `arguments` (the first
  /// one is its name) and this process's environment (`execv`). Returns only if that fails.
  /// - Returns: The reason it failed.
  package static func replaceProcess(with path: FilePath, arguments: [String]) -> Errno {
    var pointers: [UnsafeMutablePointer<CChar>?] = arguments.map { strdup($0) }
    pointers.append(nil)
    defer { for pointer in pointers { free(pointer) } }
    let result = path.withPlatformString { execv($0, pointers) }
    return result == -1 ? Errno(rawValue: errno) : .noSuchFileOrDirectory
  }
}
