import BadgeCore

/// The months a partial refund takes back: the purchase's paid months in the refunded fraction,
/// rounded down, so the buyer keeps any month not wholly refunded (docs/protocol.md, Refunds
/// and disputes). `refunded` is cumulative over the payment's refunds; 0 when nothing is refunded.
public func monthsRefunded(months: Int, refunded: UInt64, of amount: UInt64) -> Int {
    guard months > 0, amount > 0, refunded > 0 else { return 0 }
    guard refunded < amount else { return months }
    let product = UInt64(months).multipliedFullWidth(by: refunded)
    return Int(amount.dividingFullWidth(product).quotient)
}

/// A debit of at most `months` at `now` (a partial refund): a `lapse` of the months that ran out
/// first, then the debit of no more than remain, written only when some remain. On a purchase
/// paused since `pausedSince` the rows derive from the resumed tip and the first carries
/// `wasPausedSince`; the caller keeps the pause going from the rows' time, as a support credit does.
public func planPartialDebit(from tip: LedgerEntry, debit: LedgerDebit, months: Int, at now: Timestamp,
                             pausedSince: Timestamp? = nil, newId: () -> String) throws(LedgerError) -> [LedgerEntry] {
    let pass = LedgerPass(from: tip, at: now, pausedSince: pausedSince, newId: newId)
    var rows = pass.rows
    let taken = min(max(months, 0), pass.last.balanceMonths)
    if taken > 0 { rows.append(try pass.last.debit(debit, months: taken, at: pass.time, newId: newId)) }
    return markingPauseEnd(rows, since: pausedSince)
}
