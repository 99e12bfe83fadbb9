/// One directory of a ``TreeFold``: it handles its entries in order, hands out a frame for each
/// subdirectory to walk, takes back that subdirectory's output, and gives its own output last.
protocol TreeFoldFrame {
  /// What every frame of one walk reads and writes (a store's writer, what the walk found).
  associatedtype Context
  /// What a directory gives its parent (a tree hash and a size).
  associatedtype Output

  /// Handles entries up to the next subdirectory to walk and returns its frame; nil once every
  /// entry is handled.
  mutating func nextSubdirectory(_ context: inout Context) throws -> Self?
  /// Takes the output of the subdirectory whose frame ``nextSubdirectory(_:)`` returned last.
  mutating func adopt(_ output: Output, _ context: inout Context) throws
  /// This directory's output, once ``nextSubdirectory(_:)`` returned nil.
  mutating func finish(_ context: inout Context) throws -> Output
}

/// A post-order walk of a tree whose depth the input chooses, with an explicit stack: the one
/// walk that writes a version's tree objects bottom up, whether from a model tree
/// (``ObjectWriter``) or from the package and the pending subtrees on disk (``PendingStateWalk``).
/// Memory grows with the depth (one frame per level), the call stack does not.
enum TreeFold {
  /// Walks from `root` and returns its output.
  static func run<Frame: TreeFoldFrame>(_ root: Frame, _ context: inout Frame.Context) throws -> Frame.Output {
    var stack = [root]
    while true {
      if let child = try stack[stack.count - 1].nextSubdirectory(&context) {
        stack.append(child)
        continue
      }
      var done = stack.removeLast()
      let output = try done.finish(&context)
      if stack.isEmpty { return output }
      try stack[stack.count - 1].adopt(output, &context)
    }
  }
}
