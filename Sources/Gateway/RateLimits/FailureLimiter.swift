/// Counts failures per key and blocks a key that fails too often (issue 8: 6,328 code guesses
/// a second from one key). Pure: time is passed in, in whole seconds.
///
/// A key's window opens at its first failure; `maxFailures` failures within `windowSeconds`
/// block it for `blockSeconds`, during which ``retryAfter(_:now:)`` answers the seconds left.
/// At most `maxKeys` keys are tracked: past that, expired entries are dropped first, then the
/// oldest windows, so memory stays bounded whatever the number of addresses or keys.
public struct FailureLimiter: Sendable, Equatable {
    /// When a key is blocked, and for how long.
    public struct Rule: Sendable, Hashable {
        public var maxFailures: Int
        public var windowSeconds: Int64
        public var blockSeconds: Int64

        public init(maxFailures: Int, windowSeconds: Int64, blockSeconds: Int64) {
            self.maxFailures = max(1, maxFailures)
            self.windowSeconds = max(1, windowSeconds)
            self.blockSeconds = max(1, blockSeconds)
        }
    }

    struct Entry: Sendable, Equatable {
        var windowStart: Int64
        var failures: Int
        var blockedUntil: Int64?
    }

    public let rule: Rule
    public let maxKeys: Int
    private(set) var entries: [String: Entry] = [:]

    public init(rule: Rule, maxKeys: Int = 100_000) {
        self.rule = rule
        self.maxKeys = max(1, maxKeys)
    }

    /// Seconds until `key` may try again (at least 1), or nil when it is not blocked.
    public func retryAfter(_ key: String, now: Int64) -> Int64? {
        guard let until = entries[key]?.blockedUntil, now < until else { return nil }
        return until - now
    }

    /// Records a failure of `key` at `now`; returns the block's seconds when this failure starts one.
    @discardableResult
    public mutating func recordFailure(_ key: String, now: Int64) -> Int64? {
        var entry = entries[key] ?? Entry(windowStart: now, failures: 0, blockedUntil: nil)
        if let until = entry.blockedUntil, now < until { return nil }
        if entry.blockedUntil != nil || now - entry.windowStart >= rule.windowSeconds {
            entry = Entry(windowStart: now, failures: 0, blockedUntil: nil)
        }
        entry.failures += 1
        var started: Int64?
        if entry.failures >= rule.maxFailures {
            entry.blockedUntil = now + rule.blockSeconds
            started = rule.blockSeconds
        }
        if entries[key] == nil && entries.count >= maxKeys { evict(now: now) }
        entries[key] = entry
        return started
    }

    /// Keys tracked now.
    public var trackedKeys: Int { entries.count }

    private mutating func evict(now: Int64) {
        entries = entries.filter { _, e in
            if let until = e.blockedUntil { return now < until }
            return now - e.windowStart < rule.windowSeconds
        }
        guard entries.count >= maxKeys else { return }
        // Still full of live entries: drop the oldest half of the windows (blocks included).
        let keep = entries.sorted { $0.value.windowStart > $1.value.windowStart }.prefix(maxKeys / 2)
        entries = Dictionary(uniqueKeysWithValues: keep.map { ($0.key, $0.value) })
    }
}
