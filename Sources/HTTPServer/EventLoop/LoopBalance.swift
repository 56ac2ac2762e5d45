import Locking

/// Which loop a new connection goes to: the one with the fewest, the accepting loop on a tie.
///
/// The loops share one listener, and the kernel wakes whichever waits (EPOLLEXCLUSIVE): a burst
/// of connections (a client opening its pool) may all land on one loop while the other idles.
/// Requests are answered on the loop that reads them, so the accepting loop hands the surplus
/// to the others (issue 17: one loop took all 64 of wrk's connections and the rate fell by half).
final class LoopBalance: Sendable {
    private let counts: LockedValueBox<[Int]>

    init(loops: Int) {
        counts = LockedValueBox(Array(repeating: 0, count: max(1, loops)))
    }

    /// The loop that takes the next connection accepted by loop `accepting`; counted at once.
    func assign(acceptedBy accepting: Int) -> Int {
        counts.withLock { counts in
            var target = accepting
            for (loop, count) in counts.enumerated() where count < counts[target] { target = loop }
            counts[target] += 1
            return target
        }
    }

    /// A connection of `loop` closed, or was never adopted.
    func release(_ loop: Int) {
        counts.withLock { $0[loop] -= 1 }
    }

    /// Connections per loop, by loop index.
    var connections: [Int] { counts.withLock { $0 } }
}
