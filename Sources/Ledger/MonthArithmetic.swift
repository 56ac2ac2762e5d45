import BadgeCore

// Calendar-month arithmetic of docs/protocol.md, Ledger rules, all in UTC.
//
// A paid month is a calendar month, not 30 days: a month bought on 10 March ends on 10 April
// at the same time of day. Short months clip the day (31 January + 1 month = 28/29 February),
// which is why every boundary of a run is counted from its anchor (see `monthAfter`):
// stepping from the previous boundary would keep the clipped day for good.

/// `t` moved by `n` calendar months (negative goes back), keeping the time of day and
/// clipping the day of month to the target month's length (31 Jan + 1 → 28/29 Feb).
public func addMonths(_ n: Int, to t: Timestamp) -> Timestamp {
    let date = t.date
    let index = date.year * 12 + (date.month - 1) + n
    let year = index >= 0 ? index / 12 : (index - 11) / 12
    let month = index - year * 12 + 1
    let day = min(date.day, CivilDate.daysIn(year: year, month: month))
    let midnight = Timestamp(CivilDate(year: year, month: month, day: day))
    return Timestamp(seconds: midnight.seconds + Int64(t.secondOfDay), nanoseconds: t.nanoseconds)
}

/// Whole calendar months from `from` to `to`: the largest m with `addMonths(m, from) ≤ to`,
/// never below 0. A month that ends exactly at `to` counts.
public func monthsBetween(from: Timestamp, to: Timestamp) -> Int {
    let a = from.date, b = to.date
    let m = (b.year - a.year) * 12 + (b.month - a.month)
    // addMonths(m, from) falls in `to`'s calendar month, so it is either ≤ to, or m − 1 is.
    let whole = addMonths(m, to: from) <= to ? m : m - 1
    return max(whole, 0)
}

extension LedgerEntry {
    /// Months from the run's anchor to `balanceStartTs`; the start is always a whole number
    /// of anchored months into the run, so this is exact.
    public var monthsFromAnchor: Int {
        monthsBetween(from: balanceAnchorTs, to: balanceStartTs)
    }

    /// The boundary `n` months after `balanceStartTs`, counted from the anchor so that a run
    /// from 31 January goes 28 February, 31 March, 30 April rather than staying on the 28th.
    public func monthAfter(_ n: Int) -> Timestamp {
        addMonths(monthsFromAnchor + n, to: balanceAnchorTs)
    }

    /// The end of the paid coverage, the one user-facing date; lapses and issues leave it unchanged.
    public var paidThrough: Timestamp { monthAfter(balanceMonths) }

    /// Months of the balance that have run out unissued by `t` (a month ending exactly at `t`
    /// counts), between 0 and `balanceMonths`.
    public func elapsedMonths(at t: Timestamp) -> Int {
        let elapsed = monthsBetween(from: balanceAnchorTs, to: t) - monthsFromAnchor
        return min(max(elapsed, 0), balanceMonths)
    }

    /// The effective balance at `t` (what the client shows): months not yet run out, whether
    /// issued later or running now unissued.
    public func usableMonths(at t: Timestamp) -> Int { balanceMonths - elapsedMonths(at: t) }
}
