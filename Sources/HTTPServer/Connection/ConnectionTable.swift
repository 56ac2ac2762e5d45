import Glibc
import Locking

/// What the connection policy and the accept loop have done so far (for `/metrics`).
public struct ConnectionStatistics: Sendable, Hashable {
    /// Connections open now.
    public var open = 0
    /// New connections answered 503 because their address held its share.
    public var refusedAddressFull: UInt64 = 0
    /// New connections answered 503 because the table was full.
    public var refusedTableFull: UInt64 = 0
    /// Idle connections closed to make room for new ones.
    public var evictedIdle: UInt64 = 0
    /// `accept` failures for lack of descriptors (EMFILE: the process; ENFILE: the system).
    public var acceptEMFILE: UInt64 = 0
    public var acceptENFILE: UInt64 = 0
    /// The connection limit in force (the configured one, clamped to the descriptor limit).
    public var maxConnections = 0
}

/// Open connections across loops — the total and per peer address — admitted by a
/// ``ConnectionPolicy``. Addresses are kept only while they have connections open, in memory.
final class ConnectionTable: Sendable {
    private struct State {
        var policy: ConnectionPolicy
        var perAddress: [String: Int] = [:]
        var statistics = ConnectionStatistics()
        /// Monotonic time of the last descriptor shortage.
        var lastShortage: UInt64?
        var shortageReports = OncePerInterval(interval: 10_000_000_000)
    }

    private let state: LockedValueBox<State>

    init(policy: ConnectionPolicy) {
        var initial = State(policy: policy)
        initial.statistics.maxConnections = policy.maxConnections
        state = LockedValueBox(initial)
    }

    /// Lowers the limit to what the descriptors allow (at start, before any accept).
    func clamp(maxConnections: Int) {
        state.withLock { s in
            guard maxConnections < s.policy.maxConnections else { return }
            s.policy = ConnectionPolicy(maxConnections: maxConnections, maxPerAddress: min(s.policy.maxPerAddress, maxConnections),
                                        idleReserve: min(s.policy.idleReserve, maxConnections / 2))
            s.statistics.maxConnections = s.policy.maxConnections
        }
    }

    var policy: ConnectionPolicy { state.withLock { $0.policy } }

    /// The policy's decision for a connection from `address`; a slot is taken unless refused.
    /// Uncapped (a trusted proxy's), only the table's size limits it.
    func admit(_ address: String, capped: Bool = true) -> ConnectionPolicy.Decision {
        state.withLock { s in
            let fromAddress = s.perAddress[address, default: 0]
            let decision = s.policy.decide(open: s.statistics.open, openFromAddress: capped ? fromAddress : 0)
            switch decision {
            case .accept, .acceptAndEvictIdle:
                s.perAddress[address] = fromAddress + 1
                s.statistics.open += 1
            case .refuseAddressFull: s.statistics.refusedAddressFull += 1
            case .refuseTableFull: s.statistics.refusedTableFull += 1
            }
            return decision
        }
    }

    /// The key a trusted proxy's connections are counted under until their client is known:
    /// apart from the proxy's own address, which its requests without forwarding headers use.
    static func proxyKey(_ proxy: IPAddress) -> String { "via " + proxy.limitKey }

    /// Moves one connection's slot from `old` to `new` unless `new` holds its share already
    /// (counted as refused for its address); true when moved.
    func move(from old: String, to new: String) -> Bool {
        state.withLock { s in
            let fromNew = s.perAddress[new, default: 0]
            guard fromNew < s.policy.maxPerAddress else {
                s.statistics.refusedAddressFull += 1
                return false
            }
            s.perAddress[new] = fromNew + 1
            if let n = s.perAddress[old], n > 1 { s.perAddress[old] = n - 1 } else { s.perAddress[old] = nil }
            return true
        }
    }

    /// Frees the slot of a connection from `address`.
    func release(_ address: String) {
        state.withLock { s in
            s.statistics.open -= 1
            if let n = s.perAddress[address], n > 1 { s.perAddress[address] = n - 1 } else { s.perAddress[address] = nil }
        }
    }

    func evicted(_ count: Int) {
        state.withLock { $0.statistics.evictedIdle += UInt64(count) }
    }

    /// Records an accept that failed for lack of descriptors at monotonic time `now`; returns
    /// how many shortages to report now (at most once per 10 s across loops), or nil.
    func descriptorShortage(errno code: Int32, at now: UInt64) -> Int? {
        state.withLock { s in
            if code == ENFILE { s.statistics.acceptENFILE += 1 } else { s.statistics.acceptEMFILE += 1 }
            s.lastShortage = now
            return s.shortageReports.occurred(at: now)
        }
    }

    /// Whether descriptors ran short within `window` nanoseconds before `now`.
    func shortOfDescriptors(now: UInt64, window: UInt64) -> Bool {
        state.withLock { s in s.lastShortage.map { now &- $0 < window } ?? false }
    }

    var statistics: ConnectionStatistics { state.withLock { $0.statistics } }
    var count: Int { state.withLock { $0.statistics.open } }
    /// Connections counted under `address` now (tests).
    func open(from address: String) -> Int { state.withLock { $0.perAddress[address, default: 0] } }
}
