/// Who gets a connection slot (issue 8: one address must not lock everyone else out).
///
/// The table has `maxConnections` slots. One address may hold at most `maxPerAddress` of them.
/// The last `idleReserve` slots are kept for newcomers: once fewer are free, every accept also
/// evicts the oldest idle connections (no request in progress), so a new client from anywhere
/// still finds a slot and is answered. Pure: the table and the loops apply its decisions.
public struct ConnectionPolicy: Sendable, Hashable {
    /// Most connections open at once across all loops.
    public var maxConnections: Int
    /// Most connections open at once from one peer address.
    public var maxPerAddress: Int
    /// Free slots below which idle connections are evicted, oldest first.
    public var idleReserve: Int

    /// What to do with a connection just accepted from an address.
    public enum Decision: Equatable, Sendable {
        /// Take a slot.
        case accept
        /// Take a slot, and evict idle connections: the reserve is being used.
        case acceptAndEvictIdle
        /// Answer 503 and close: the address holds its share.
        case refuseAddressFull
        /// Answer 503 and close, and evict idle connections so that a retry finds a slot.
        case refuseTableFull
    }

    /// `maxPerAddress` defaults to a 40th of the table (at least 1), `idleReserve` to a 50th
    /// (at least 1, at most half).
    public init(maxConnections: Int, maxPerAddress: Int? = nil, idleReserve: Int? = nil) {
        self.maxConnections = max(1, maxConnections)
        self.maxPerAddress = max(1, maxPerAddress ?? self.maxConnections / 40)
        self.idleReserve = min(max(1, idleReserve ?? self.maxConnections / 50), self.maxConnections / 2)
    }

    /// The decision for a new connection while `open` are open, `openFromAddress` of them from its address.
    public func decide(open: Int, openFromAddress: Int) -> Decision {
        if openFromAddress >= maxPerAddress { return .refuseAddressFull }
        if open >= maxConnections { return .refuseTableFull }
        if open >= maxConnections - idleReserve { return .acceptAndEvictIdle }
        return .accept
    }

    /// The `count` oldest of `idle` (an identifier and the time it went idle), oldest first.
    public static func oldestIdle<ID>(_ idle: [(id: ID, since: UInt64)], count: Int) -> [ID] {
        guard count > 0 else { return [] }
        if idle.count <= count { return idle.sorted { $0.since < $1.since }.map(\.id) }
        // Partial selection: keep the `count` oldest seen so far, sorted.
        var kept: [(id: ID, since: UInt64)] = []
        kept.reserveCapacity(count + 1)
        for candidate in idle {
            if kept.count == count, let newest = kept.last, candidate.since >= newest.since { continue }
            let index = kept.firstIndex { $0.since > candidate.since } ?? kept.count
            kept.insert(candidate, at: index)
            if kept.count > count { kept.removeLast() }
        }
        return kept.map(\.id)
    }
}

/// How many connections the descriptor limit allows (issue 8: `max_connections` used to
/// ignore `RLIMIT_NOFILE`). Pure; `DescriptorLimit` applies it.
public enum DescriptorBudget {
    /// The soft limit to ask for: enough for `connections` plus `reserved`, within `hard`.
    public static func wantedSoftLimit(connections: Int, reserved: Int, soft: Int, hard: Int) -> Int {
        min(hard, max(soft, connections + reserved))
    }

    /// `configured`, lowered so that the connections and `reserved` other descriptors (database,
    /// logs, epoll, listeners) fit under `soft`; at least 1.
    public static func maxConnections(configured: Int, reserved: Int, soft: Int) -> Int {
        max(1, min(configured, soft - reserved))
    }
}

/// Reports a repeating condition at most once per interval, with how often it happened since
/// the last report (issue 8: EMFILE used to be silent; it must not flood the log either).
public struct OncePerInterval: Sendable, Hashable {
    /// Nanoseconds between reports.
    public let interval: UInt64
    private var lastReport: UInt64?
    private var suppressed = 0

    public init(interval: UInt64) { self.interval = interval }

    /// Records one occurrence at `now`; returns how many occurrences the report covers (this one
    /// and those suppressed since the last report), or nil when this one is not reported.
    public mutating func occurred(at now: UInt64) -> Int? {
        if let lastReport, now &- lastReport < interval {
            suppressed += 1
            return nil
        }
        lastReport = now
        defer { suppressed = 0 }
        return suppressed + 1
    }
}
