import Foundation

/// The steps a test kills (or fails) a command at, one run after another: every step, or a seeded sample as the crash
/// sweeps take (Tests/Scripts/crash-test.py): `DOCPKG_CRASH_SAMPLE` the fraction (`make test`'s CRASH_SAMPLE),
/// `DOCPKG_CRASH_SEED` the seed, else a new one each run, which ``description`` names for a failure's message.
/// The first and last step are always taken.
///
///     let sample = KillSample.fromEnvironment
///     for step in sample.steps(1...30, "fsync") { … #expect(…, "fsync #\(step) (\(sample))") }
public struct KillSample: Sendable, CustomStringConvertible {
  /// The share of the steps taken, above 0 and at most 1.
  public let fraction: Double
  /// The seed: the same seed takes the same steps.
  public let seed: UInt64

  public init(fraction: Double, seed: UInt64) {
    self.fraction = min(max(fraction, .leastNonzeroMagnitude), 1)
    self.seed = seed
  }

  /// The sample the environment asks for (all steps when it asks for none).
  public static let fromEnvironment: KillSample = {
    let environment = ProcessInfo.processInfo.environment
    let fraction = environment["DOCPKG_CRASH_SAMPLE"].flatMap(Double.init) ?? 1
    let seed = environment["DOCPKG_CRASH_SEED"].flatMap(UInt64.init) ?? UInt64.random(in: 1..<(1 << 31))
    return KillSample(fraction: fraction, seed: seed)
  }()

  /// The steps of `range` taken for the loop `label` (a system call, a fault: each loop draws its own steps).
  public func steps(_ range: ClosedRange<Int>, _ label: String) -> [Int] {
    guard fraction < 1 else { return Array(range) }
    // FNV-1a of the label, so that the draw does not depend on the process (Swift's hashes are seeded anew).
    let labelHash = label.utf8.reduce(UInt64(0xcbf2_9ce4_8422_2325)) { ($0 ^ UInt64($1)) &* 0x100_0000_01b3 }
    return range.filter { step in
      var generator = SplitMix64(seed: seed ^ labelHash ^ UInt64(bitPattern: Int64(step)) &* 0x9E37_79B9_7F4A_7C15)
      return step == range.lowerBound || step == range.upperBound
        || Double(generator.next() >> 11) / Double(1 << 53) < fraction
    }
  }

  public var description: String {
    fraction < 1 ? "kill points sampled: \(fraction) of them, seed \(seed) (DOCPKG_CRASH_SEED)" : "every kill point"
  }
}
