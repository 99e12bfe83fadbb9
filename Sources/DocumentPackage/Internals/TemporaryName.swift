/// The one scheme for names of temporary files and folders: `.NAME.docpkg-LABEL-RANDOM`, or
/// `.docpkg-LABEL-RANDOM` when it is not about one name. Hidden (a leading dot), marked as ours
/// (`docpkg-`), saying what it is for (`unpack`, `pack`, `stdin`, `blob`...), and unique with 64
/// random bits (callers still create it with `O_EXCL` and try again on EEXIST).
///
/// The fixed sibling names a save uses (`.NAME.docpkg-tmp`, `-ready`, `-old`: see `SiblingNames`)
/// are not temporary in this sense: recovery must find them again after a crash.
package enum TemporaryName {
  /// A fresh name for `label`, beside `name` if given.
  package static func make(_ label: String, for name: String? = nil) -> String {
    let random = String(UInt64.random(in: 0...UInt64.max), radix: 36)
    return (name.map { ".\($0)" } ?? "") + ".docpkg-\(label)-\(random)"
  }
}
