import BadgeCore

/// What `purchaseBadge` funded by a recovery receipt writes (docs/protocol.md, Funding by
/// receipt): the source purchase's unissued months moved to the signing key.
public struct ReceiptTransferPlan: Hashable, Sendable {
    /// Appended to the source purchase: a `lapse` of what ran out, then `transferOut` of every
    /// month that remains, written even when none does so the source names where it went.
    public var sourceRows: [LedgerEntry]
    /// The months moved.
    public var months: Int
    /// The new purchase's rows: the `transferIn` credit, then the month due when there is one.
    public var destination: LedgerPlan
}

/// The transfer at `now` from the source purchase (`source` its tip, paused since
/// `sourcePausedSince` or not) to a new purchase keyed `toPurchaseKey`.
///
/// The source's rows are those of `planEnding(.transferOut)`, ending a pause as any row does.
/// The new purchase starts a run of its own at `now` (its first row derives from the empty
/// seed, as every first row does), of the source's badge type, and issues its month due then.
public func planReceiptTransfer(from source: LedgerEntry, sourcePausedSince: Timestamp?, fromPurchaseKey: String,
                                toPurchaseKey: String, at now: Timestamp,
                                newId: () -> String) throws(LedgerError) -> ReceiptTransferPlan {
    let out = try planEnding(from: source, debit: .transferOut(toPurchaseKey: toPurchaseKey), at: now,
                             pausedSince: sourcePausedSince, newId: newId)
    let last = out[out.count - 1]  // transferOut is written even of none
    let moved = -last.changeMonths
    let seed = LedgerEntry.emptyEntry(at: now, badgeType: last.balanceBadgeType)
    let credited = try seed.grantEntry(months: moved, credit: .transferIn(fromPurchaseKey: fromPurchaseKey), at: now,
                                       newId: newId)
    let pass = planIssue(from: credited, at: now, newId: newId)
    return ReceiptTransferPlan(sourceRows: out, months: moved,
                               destination: LedgerPlan(rows: [credited] + pass.rows, issued: pass.issued, tip: pass.tip))
}
