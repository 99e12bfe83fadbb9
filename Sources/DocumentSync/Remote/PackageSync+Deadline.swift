import DocumentPackage

// The total deadline of one operation (``SyncTimeouts/total``): the operation runs in a child task beside a timer;
// the timer first, the operation is cancelled (it stops at its next object, the package and the remote consistent,
// as for any cancelled task) and the operation fails naming the endpoint and the deadline. An operation started
// inside another (a sync's pull and push) runs within the outer one's deadline, not a new one of its own.

extension PackageSync {
  /// Whether the current task runs inside an operation's deadline already.
  @TaskLocal static var withinOperationDeadline = false

  /// Runs `operation` (named `name` in the error) within ``SyncTimeouts/total`` of this sync's client.
  /// - Throws: ``SyncError`` with code `timeout` naming the endpoint when the deadline passed first; else what
  ///   `operation` throws.
  func withinDeadline<T: Sendable>(
    _ name: String, _ operation: @escaping @Sendable () async throws -> T
  ) async throws -> T {
    try await Self.withinDeadline(client.timeouts.total, of: name, on: client.endpoint, operation)
  }

  /// Runs `operation` (named `name`, on `endpoint`) within `total` (nil: no deadline).
  static func withinDeadline<T: Sendable>(
    _ total: Duration?, of name: String, on endpoint: S3Endpoint, _ operation: @escaping @Sendable () async throws -> T
  ) async throws -> T {
    guard let total, !withinOperationDeadline else { return try await operation() }
    return try await $withinOperationDeadline.withValue(true) {
      try await withThrowingTaskGroup(of: T?.self) { group in
        group.addTask { try await operation() }
        group.addTask {
          try await Task.sleep(for: total)
          return nil
        }
        defer { group.cancelAll() }
        guard let first = try await group.next(), let result = first else {
          throw SyncError(
            .timeout,
            "\(name) did not finish within \(total.inWords) (the total deadline, \(SyncTimeouts.totalVariable)); it was stopped; endpoint",
            key: endpoint.description)
        }
        return result
      }
    }
  }
}
