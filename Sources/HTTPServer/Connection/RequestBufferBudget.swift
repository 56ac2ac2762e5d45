/// The request bytes one event loop may hold in buffers — partial heads, bodies being received,
/// parked pipelined bytes — its share of ``HTTPServerConfiguration/maxBufferedRequestBytes``
/// (issue 8: 9,900 unfinished 64 KiB bodies used to take RSS from 35 to 669 MiB).
///
/// Each connection's state machine reports what it holds after every step; one whose holding
/// grows while the loop is over its share is refused (503, `Retry-After`), which frees it.
/// Touched only on its loop's thread.
package final class RequestBufferBudget {
    /// Bytes this loop may hold.
    package let limit: Int
    /// Bytes held now.
    package private(set) var used = 0
    /// The most held since the last ``resetHighWater()``, to decide when to give memory back.
    package private(set) var highWater = 0

    package init(limit: Int) {
        self.limit = max(0, limit)
    }

    /// A connection's holding moved from `old` to `new` bytes; false when it grew past the limit.
    package func update(from old: Int, to new: Int) -> Bool {
        used += new - old
        if used > highWater { highWater = used }
        return new <= old || used <= limit
    }

    package func resetHighWater() { highWater = used }
}
