import Locking

/// Counts open connections across loops and enforces `maxConnections`.
final class ConnectionGauge: Sendable {
    private let open = LockedValueBox(0)
    let limit: Int

    init(limit: Int) {
        self.limit = limit
    }

    /// Takes a slot; false when the server is full.
    func tryAcquire() -> Bool {
        open.withLock { open in
            guard open < limit else { return false }
            open += 1
            return true
        }
    }

    func release() {
        open.withLock { $0 -= 1 }
    }

    var count: Int { open.withLock { $0 } }
}
