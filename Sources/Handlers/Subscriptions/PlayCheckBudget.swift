import BadgeCore
import Locking

/// The purchase path's budget of Play subscription checks (spec, purchaseBadge "Subscriptions"):
/// across all requests at most `limit` a minute, a minute starting at the first check made after
/// the previous one ran out. A pure value: the caller passes the time.
public struct PlayCheckBudget: Sendable, Equatable {
    /// The spec's figure.
    public static let checksPerMinute = 300

    public let limit: Int
    /// When the current minute started; nil before the first check.
    public private(set) var windowStart: Timestamp?
    /// Checks counted in the current minute (may pass `limit` by the acknowledgements counted).
    public private(set) var used = 0

    public init(limit: Int = PlayCheckBudget.checksPerMinute) {
        precondition(limit >= 1, "a budget of no checks would refuse every Play subscription")
        self.limit = limit
    }

    /// Takes one check at `now`: nil when it may be made, otherwise the seconds left in the
    /// minute (1…60), the `retryAfter` of `rate_limited`.
    public mutating func take(at now: Timestamp) -> UInt32? {
        let start = roll(to: now)
        guard used < limit else { return UInt32(clamping: max(1, 60 - (now.seconds - start.seconds))) }
        used += 1
        return nil
    }

    /// Counts a check that is made whatever is left: a subscription being credited is read once
    /// more to acknowledge it, and that call must not fail for want of budget.
    public mutating func count(at now: Timestamp) {
        _ = roll(to: now)
        used += 1
    }

    /// Starts a new minute once the current one is over (or the clock went back); its start.
    private mutating func roll(to now: Timestamp) -> Timestamp {
        if let start = windowStart, now.seconds - start.seconds < 60, now >= start { return start }
        windowStart = now
        used = 0
        return now
    }
}

/// The shared ``PlayCheckBudget`` of a running service, read with its clock.
public final class PlayCheckLimiter: Sendable {
    private let budget: LockedValueBox<PlayCheckBudget>
    private let clock: @Sendable () -> Timestamp

    public init(limit: Int = PlayCheckBudget.checksPerMinute, clock: @escaping @Sendable () -> Timestamp) {
        budget = LockedValueBox(PlayCheckBudget(limit: limit))
        self.clock = clock
    }

    /// One check now: nil when it may be made, else the seconds left in the minute.
    public func take() -> UInt32? {
        let now = clock()
        return budget.withLock { $0.take(at: now) }
    }

    /// Counts a check made whatever is left (an acknowledgement).
    public func count() {
        let now = clock()
        budget.withLock { $0.count(at: now) }
    }
}
