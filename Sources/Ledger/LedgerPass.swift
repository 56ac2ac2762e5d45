import BadgeCore

/// The start every pass over a purchase's ledger shares (issuance, ending, an upgrade's debit
/// and conversion): its time, never before the tip's, so dates never decrease; the tip resumed
/// when paused (nothing ran out while paused); then the `lapse` of the months that ran out.
public struct LedgerPass {
    /// When the pass runs: `now`, or the tip's `createdAt` or the pause's start when that is
    /// later (a clock stepped back, or instances whose clocks differ): a row is never dated
    /// before the row it follows, nor before the pause it ends.
    public let time: Timestamp
    /// The rows the pass writes so far: the lapse, if any.
    public let rows: [LedgerEntry]
    /// The entry the pass continues from.
    public let last: LedgerEntry

    public init(from tip: LedgerEntry, at now: Timestamp, pausedSince: Timestamp?, newId: () -> String) {
        let t = max(now, tip.createdAt, pausedSince ?? tip.createdAt)
        time = t
        let resumed = pausedSince.map { tip.resumed(pausedSince: $0, at: t) } ?? tip
        if let lapsed = resumed.lapse(at: t, newId: newId) {
            rows = [lapsed]
            last = lapsed
        } else {
            rows = []
            last = resumed
        }
    }
}
