/// A small deterministic random number generator (SplitMix64, Steele, Lea and Flood 2014), so a randomized test
/// replays the same cases from the same seed on every machine and every run.
///
///     var generator = SplitMix64(seed: 7)
///     let count = Int.random(in: 0...60, using: &generator)
public struct SplitMix64: RandomNumberGenerator, Sendable {
  /// The generator's whole state: the seed, advanced by a constant at each draw.
  public var state: UInt64

  /// Starts the sequence of `seed`.
  public init(seed: UInt64) { state = seed }

  /// The next 64 random bits.
  public mutating func next() -> UInt64 {
    state &+= 0x9E37_79B9_7F4A_7C15
    var z = state
    z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
    z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
    return z ^ (z >> 31)
  }
}
