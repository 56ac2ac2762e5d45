import BadgeCore

// The pause rules of docs/protocol.md, Pause (pauseBadge; "Issuing on a paused badge resumes
// it"). A pause writes no row of its own: the ledger has no pause entry type. It is a state of
// the purchase that starts with the pass `planPause` makes at the request's time, and the first
// row written after it ends it, carrying `wasPausedSince`. That row is derived from its
// predecessor resumed (`resumed(pausedSince:at:)`), so the client replica re-derives it too.

extension LedgerEntry {
    /// The tip a pause from `since` leaves at `t`, the base the row ending the pause derives from.
    ///
    /// While paused no unissued month is issued or lapsed. When a month would have been due
    /// during the pause (months held and `t` after `balanceStartTs`), the held months start a run
    /// of their own at `t` (start = anchor = `t`), so none of them has run out when the pause
    /// ends. Otherwise the pause changed nothing and the tip stands: a pause that ends inside the
    /// month still issued, or on an empty balance, leaves the boundaries where they were.
    ///
    /// `since` is not part of the rule: the months were frozen from the later of `since` and
    /// `balanceStartTs`, and a month that had begun unissued before the pause is given back
    /// whole, since nothing was issued for it.
    public func resumed(pausedSince since: Timestamp, at t: Timestamp) -> LedgerEntry {
        guard balanceMonths > 0, t > balanceStartTs else { return self }
        var base = self
        base.balanceStartTs = t
        base.balanceAnchorTs = t
        return base
    }
}

/// What `pauseBadge` writes at `now`: a `lapse` of the months that ran out before the pause,
/// if any (so the pause freezes only what was still held), and the time the pause starts,
/// `max(now, tip.createdAt)`, never before the row it follows.
public func planPause(from tip: LedgerEntry, at now: Timestamp, newId: () -> String) -> (rows: [LedgerEntry], since: Timestamp) {
    let t = max(now, tip.createdAt)
    return (tip.lapse(at: t, newId: newId).map { [$0] } ?? [], t)
}

/// Marks the first of `rows` as the one ending a pause from `since` (nothing when not paused
/// or when no row is written).
func markingPauseEnd(_ rows: [LedgerEntry], since: Timestamp?) -> [LedgerEntry] {
    guard let since, !rows.isEmpty else { return rows }
    var marked = rows
    marked[0].wasPausedSince = since
    return marked
}
