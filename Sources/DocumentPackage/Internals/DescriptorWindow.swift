/// How a walk down a tree with an explicit stack of open directories keeps its descriptors bounded, whatever the
/// tree's depth: only the stack's first level (the walk's root) and its last ``openLevels`` levels stay open, about
/// ``descriptors`` descriptors whether a level holds one (a removal) or two (a build beside the live directory, a
/// copy beside its source). A level above them is closed on the way down, once the walk is that far below it, and
/// opened again, from the first level, on the way back up, when the walk returns to it: one walk from the root
/// every ``openLevels`` levels.
///
/// Each level held one descriptor or two open all the way down, and a restore of 510 levels failed with "Too many
/// open files" under the common limit of 1,024 (outsider attack on issue 35); a window of 64 levels, two
/// descriptors each, still failed under a limit of 128. Unpacking's cache of open directories holds as many
/// (`Extractor.directory(_:)`).
package struct DescriptorWindow {
  /// About how many descriptors one walk keeps open below its first level: two such walks at once (a build that
  /// carries a folder over from disk) and the process's own fit under a limit of 128.
  package static let descriptors = 32
  /// The window of a walk holding one descriptor per level, and of one holding two.
  static let oneALevel = DescriptorWindow(descriptorsPerLevel: 1)
  static let twoALevel = DescriptorWindow(descriptorsPerLevel: 2)

  /// How many levels below the first stay open.
  let openLevels: Int

  init(descriptorsPerLevel: Int) {
    openLevels = max(1, Self.descriptors / descriptorsPerLevel)
  }

  /// The level of a stack of `count` levels to close once its last level was pushed (nil: none yet).
  func levelToClose(count: Int) -> Int? {
    let level = count - 1 - openLevels
    return level >= 1 ? level : nil
  }

  /// Opens again the closed levels of a stack up to `top` (the first level never closes), each through `open`, which
  /// opens a level from the one above it, open by then; closes again (`close`) all but the last ``openLevels``.
  func reopen<Failure: Error>(
    through top: Int, isClosed: (Int) -> Bool, open: (Int) throws(Failure) -> Void, close: (Int) -> Void
  ) throws(Failure) {
    let keptFrom = max(1, top - openLevels + 1)
    for level in 1...top where isClosed(level) {
      try open(level)
      if level - 1 >= 1 && level - 1 < keptFrom { close(level - 1) }
    }
  }
}
