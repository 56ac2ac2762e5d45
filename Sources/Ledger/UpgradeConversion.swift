import BadgeCore

// The non-store upgrade (docs/protocol.md, Upgrades): getBadgeInvoice.upgrade prices a new
// purchase net of a credit for the old purchase's unissued months, and the invoice's settlement
// debits those months from the old purchase as `upgrade {toPurchaseKey}`. Between the two the
// old purchase may still issue, so the credit counts only months no issuance can reach before
// the invoice can settle.

/// The months of a purchase an upgrade invoice created at `t` may convert: those held once a
/// pass at `t` resumed (if paused) and lapsed it, less those beginning by `settleBy`, which the
/// old key may still be issued before the invoice settles.
public func convertibleMonths(from tip: LedgerEntry, pausedSince: Timestamp?, at t: Timestamp,
                              settleBy deadline: Timestamp) -> Int {
    let base = LedgerPass(from: tip, at: t, pausedSince: pausedSince, newId: { "" }).last
    var reachable = 0
    while reachable < base.balanceMonths && base.monthAfter(reachable) <= deadline { reachable += 1 }
    return base.balanceMonths - reachable
}

/// The credit, in minor units, for `months` of a purchase whose invoice charged `paid` for
/// `boughtMonths`: their share of what was paid, rounded down.
public func conversionCredit(months: Int, paid: UInt32, boughtMonths: Int) -> UInt32 {
    guard months > 0, boughtMonths > 0 else { return 0 }
    return UInt32(UInt64(paid) * UInt64(min(months, boughtMonths)) / UInt64(boughtMonths))
}

/// What settlement writes on the converted purchase at `t`: a `lapse` of what ran out, then
/// `upgrade {toPurchaseKey}` of the months the invoice credited, or of what is left when fewer
/// remain — written even of none, so the old ledger names the key it converted into. On a
/// purchase paused since `pausedSince` the first row ends the pause (docs/protocol.md, Pause).
public func planUpgradeDebit(from tip: LedgerEntry, months: Int, toPurchaseKey: String, at now: Timestamp,
                             pausedSince: Timestamp?, newId: () -> String) throws(LedgerError) -> [LedgerEntry] {
    let pass = LedgerPass(from: tip, at: now, pausedSince: pausedSince, newId: newId)
    let t = pass.time
    var rows = pass.rows
    let last = pass.last
    rows.append(try last.debit(.upgrade(toPurchaseKey: toPurchaseKey), months: min(max(months, 0), last.balanceMonths),
                               at: t, newId: newId))
    return markingPauseEnd(rows, since: pausedSince)
}
