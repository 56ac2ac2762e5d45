import Foundation

/// Counts open connections across loops and enforces `maxConnections`.
final class ConnectionGauge: @unchecked Sendable {
    private let lock = NSLock()
    private var open = 0
    let limit: Int

    init(limit: Int) {
        self.limit = limit
    }

    /// Takes a slot; false when the server is full.
    func tryAcquire() -> Bool {
        lock.lock()
        defer { lock.unlock() }
        guard open < limit else { return false }
        open += 1
        return true
    }

    func release() {
        lock.lock()
        open -= 1
        lock.unlock()
    }

    var count: Int {
        lock.lock()
        defer { lock.unlock() }
        return open
    }
}
