/// Which previous states a save keeps as versions (see ``VersionStore``).
public enum VersionPolicy: Hashable, Sendable {
  /// Keep every previous state until removed by hand.
  case keepAll
  /// Keep the last `count` saved versions; older saved versions are pruned after each save.
  /// Unresolved conflict versions are never pruned automatically.
  case keepLast(Int)
  /// Keep nothing: saves do not touch the version store (conflicting saves still store their
  /// side as a conflict version, so that nothing is lost).
  case none

  /// The default: keep the last 10 previous states. "Cannot lose data" favours keeping; 10
  /// versions that differ by one file cost little more than one copy (files are shared).
  public static let `default` = VersionPolicy.keepLast(10)
}
