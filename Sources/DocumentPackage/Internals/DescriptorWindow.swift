/// How a walk down a tree with an explicit stack of open directories keeps its descriptors bounded, whatever the
/// tree's depth: only the stack's first level (the walk's root) and its last ``openLevels`` levels stay open. A level
/// above them is closed on the way down, once the walk is that far below it, and opened again, from the first level,
/// on the way back up, when the walk returns to it: one walk from the root every ``openLevels`` levels.
///
/// Each level held one descriptor or two open all the way down, and a restore of 510 levels failed with "Too many
/// open files" under the common limit of 1,024 (outsider attack on issue 35).
enum DescriptorWindow {
  /// How many levels below the first stay open.
  static let openLevels = 64

  /// The level of a stack of `count` levels to close once its last level was pushed (nil: none yet).
  static func levelToClose(count: Int) -> Int? {
    let level = count - 1 - openLevels
    return level >= 1 ? level : nil
  }

  /// Opens again the closed levels of a stack up to `top` (the first level never closes), each through `open`, which
  /// opens a level from the one above it, open by then; closes again (`close`) all but the last ``openLevels``.
  static func reopen<Failure: Error>(
    through top: Int, isClosed: (Int) -> Bool, open: (Int) throws(Failure) -> Void, close: (Int) -> Void
  ) throws(Failure) {
    let keptFrom = max(1, top - openLevels + 1)
    for level in 1...top where isClosed(level) {
      try open(level)
      if level - 1 >= 1 && level - 1 < keptFrom { close(level - 1) }
    }
  }
}
