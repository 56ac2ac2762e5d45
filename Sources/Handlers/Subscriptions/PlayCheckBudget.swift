import BadgeCore
import Locking
import Storage

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

extension PlayCheckBudget {
    /// The minute a shared count is kept under: minutes of the clock, the same for every instance.
    public static func clockMinute(of now: Timestamp) -> Int64 {
        now.seconds >= 0 ? now.seconds / 60 : (now.seconds - 59) / 60
    }

    /// The seconds left in `now`'s clock minute (1…60), the `retryAfter` of `rate_limited`.
    public static func secondsLeft(inClockMinuteOf now: Timestamp) -> UInt32 {
        UInt32(60 - (now.seconds - clockMinute(of: now) * 60))
    }
}

/// The budget of Play subscription checks of a running service, read with its clock: in memory
/// (``PlayCheckBudget``) for one instance, or counted per clock minute in the database every
/// instance shares (``SharedMinuteCounter``, PostgreSQL).
public final class PlayCheckLimiter: Sendable {
    private let budget: LockedValueBox<PlayCheckBudget>
    private let shared: (any SharedMinuteCounter)?
    private let clock: @Sendable () -> Timestamp

    public init(limit: Int = PlayCheckBudget.checksPerMinute, clock: @escaping @Sendable () -> Timestamp,
                sharedThrough shared: (any SharedMinuteCounter)? = nil) {
        budget = LockedValueBox(PlayCheckBudget(limit: limit))
        self.shared = shared
        self.clock = clock
    }

    /// This budget's limit and clock, counted through `shared` (nil: in memory).
    public func counted(through shared: (any SharedMinuteCounter)?) -> PlayCheckLimiter {
        PlayCheckLimiter(limit: budget.withLock { $0.limit }, clock: clock, sharedThrough: shared)
    }

    /// One check now: nil when it may be made, else the seconds left in the minute.
    public func take() throws -> UInt32? {
        let now = clock()
        guard let shared else { return budget.withLock { $0.take(at: now) } }
        let limit = budget.withLock { $0.limit }
        return try shared.takeOne(minute: PlayCheckBudget.clockMinute(of: now), limit: limit)
            ? nil : PlayCheckBudget.secondsLeft(inClockMinuteOf: now)
    }

    /// Counts a check made whatever is left (an acknowledgement). A shared count the database
    /// could not take is let go: the acknowledgement must not fail for it, and one uncounted
    /// call is all it costs.
    public func count() {
        let now = clock()
        guard let shared else { return budget.withLock { $0.count(at: now) } }
        try? shared.countOne(minute: PlayCheckBudget.clockMinute(of: now))
    }
}
