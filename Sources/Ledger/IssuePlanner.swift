import BadgeCore

// The service passes over a purchase's ledger, as pure planners: given the tip and the time,
// they return the rows to append (in order) and the month to sign, if any. The handler signs
// first and then writes the rows and the issuance in one transaction, only if the tip has not
// moved meanwhile (docs/protocol.md, Ledger rules).

/// One month issued by a pass: what the handler signs and records as the issuance.
public struct IssuedPeriod: Hashable, Sendable {
    /// The `badge` row debiting this month; the issuance refers to it.
    public var entryId: String
    /// The type the balance funds, signed into the credential.
    public var badgeType: BadgeType
    /// The month issued, [start, end): one anchored calendar month.
    public var start: Timestamp
    public var end: Timestamp
    /// The credential's expiry, `credentialExpiry(periodEnd: end)`.
    public var expiry: Timestamp

    public init(entryId: String, badgeType: BadgeType, start: Timestamp, end: Timestamp) {
        self.entryId = entryId
        self.badgeType = badgeType
        self.start = start
        self.end = end
        self.expiry = credentialExpiry(periodEnd: end)
    }

    /// Whether this period still runs at `now`, so its credential is the one to return again.
    public func isCurrent(at now: Timestamp) -> Bool { isPeriodCurrent(periodEnd: end, at: now) }
}

/// Whether a stored issuance with this period end still answers a request at `now`
/// (upstream `getCurrentIssuance`: `period_end > now`).
public func isPeriodCurrent(periodEnd: Timestamp, at now: Timestamp) -> Bool { now < periodEnd }

/// What a pass decided: the rows to append after the tip, and the month to sign, if any.
public struct LedgerPlan: Hashable, Sendable {
    /// Rows to append, in order; empty when nothing changes.
    public var rows: [LedgerEntry]
    /// The month issued by the last row, when the pass issues one.
    public var issued: IssuedPeriod?
    /// The ledger's last row once `rows` are appended (the seed or input tip when none are).
    public var tip: LedgerEntry

    public init(rows: [LedgerEntry], issued: IssuedPeriod?, tip: LedgerEntry) {
        self.rows = rows
        self.issued = issued
        self.tip = tip
    }
}

/// The `issueBadge` pass at `now`: a `lapse` of what ran out, then the month due, if any
/// (0, 1 or 2 rows). Run twice at the same `now`, the second run writes nothing.
///
/// Run this before looking for a cached credential: when it issues nothing, the answer is the
/// latest stored issuance still current at `now` (`isPeriodCurrent`), or none when exhausted.
/// A `now` before the tip's `createdAt` (a clock stepping back) is taken as that `createdAt`,
/// so rows are never dated before the row they follow.
///
/// On a purchase paused since `pausedSince` the pass resumes it: it starts from the tip
/// `resumed(pausedSince:at:)`, and its first row, if any, carries `wasPausedSince`.
public func planIssue(from tip: LedgerEntry, at now: Timestamp, pausedSince: Timestamp? = nil,
                      newId: () -> String) -> LedgerPlan {
    let pass = LedgerPass(from: tip, at: now, pausedSince: pausedSince, newId: newId)
    let t = pass.time
    var rows = pass.rows
    let last = pass.last
    guard let badge = last.issue(at: t, newId: newId) else {
        let marked = markingPauseEnd(rows, since: pausedSince)
        return LedgerPlan(rows: marked, issued: nil, tip: marked.last ?? tip)
    }
    rows.append(badge)
    let period = IssuedPeriod(entryId: badge.entryId, badgeType: last.balanceBadgeType,
                              start: last.balanceStartTs, end: badge.balanceStartTs)
    let marked = markingPauseEnd(rows, since: pausedSince)
    return LedgerPlan(rows: marked, issued: period, tip: marked[marked.count - 1])
}

/// First funding of a new purchase (a redeemed code, a first purchase, a transferred
/// subscription): the credit on `emptyEntry(creditAt, badgeType)`, then the `issueBadge` pass
/// at `now`. With `creditAt == now` (codes, one-time payments) this is always two rows,
/// credit then badge; a store charge dated to its earlier period start may add a lapse between.
public func planFirstFunding(months: Int, credit: LedgerCredit, badgeType: BadgeType, creditAt: Timestamp? = nil,
                             now: Timestamp, newId: () -> String) throws(LedgerError) -> LedgerPlan {
    let creditAt = creditAt ?? now
    guard months >= 1 else { throw .nothingGranted }
    guard creditAt <= now else { throw .periodStartAfterNow(periodStart: creditAt, now: now) }
    let seed = LedgerEntry.emptyEntry(at: creditAt, badgeType: badgeType)
    let credited = try seed.grantEntry(months: months, credit: credit, at: creditAt, newId: newId)
    let pass = planIssue(from: credited, at: now, newId: newId)
    return LedgerPlan(rows: [credited] + pass.rows, issued: pass.issued, tip: pass.tip)
}

/// A grant onto an existing ledger at `creditAt`, then the `issueBadge` pass at `now`: rows
/// lapse?, upgrade?, credit, lapse?, badge? (see `LedgerEntry.grant`). On a purchase paused
/// since `pausedSince` the grant ends the pause (its first row carries `wasPausedSince`).
public func planGrantThenIssue(from tip: LedgerEntry, months: Int, credit: LedgerCredit, badgeType: BadgeType,
                               creditAt: Timestamp, purchaseKey: String, now: Timestamp, pausedSince: Timestamp? = nil,
                               newId: () -> String) throws(LedgerError) -> LedgerPlan {
    guard months >= 1 else { throw .nothingGranted }
    guard creditAt <= now else { throw .periodStartAfterNow(periodStart: creditAt, now: now) }
    let granted = try tip.grant(months: months, credit: credit, at: creditAt, badgeType: badgeType,
                                purchaseKey: purchaseKey, pausedSince: pausedSince, newId: newId)
    let pass = planIssue(from: granted[granted.count - 1], at: now, newId: newId)
    return LedgerPlan(rows: granted + pass.rows, issued: pass.issued, tip: pass.tip)
}

/// A store charge granted once coverage has ended (issueBadge, Subscriptions): credited
/// `charge(chargeId)` at `tip.chargeCreditDate(periodStart:)`, another badge type starting its
/// own run, then the month due issued at `now`.
///
/// On a purchase paused since `pausedSince` (a subscription's pause only an earlier version
/// recorded: docs/protocol.md, Pause, rule 9) the grant is the resume: the pause held the charge
/// as it holds months, so it is credited at the resume (`max(now, tip.createdAt)`).
public func planCharge(from tip: LedgerEntry, months: Int, chargeId: String, badgeType: BadgeType,
                       periodStart: Timestamp, purchaseKey: String, now: Timestamp, pausedSince: Timestamp? = nil,
                       newId: () -> String) throws(LedgerError) -> LedgerPlan {
    guard periodStart <= now else { throw .periodStartAfterNow(periodStart: periodStart, now: now) }
    let creditAt = pausedSince == nil ? tip.chargeCreditDate(periodStart: periodStart) : max(now, tip.createdAt)
    return try planGrantThenIssue(from: tip, months: months, credit: .charge(chargeId: chargeId),
                                  badgeType: badgeType, creditAt: creditAt,
                                  purchaseKey: purchaseKey, now: now, pausedSince: pausedSince,
                                  newId: newId)
}

/// Ends a purchase's months at `now`: a `lapse` of those that ran out, then `debit` of all
/// that remain — written only when some remain, except `transferOut`, which the spec writes
/// "even none" so the old ledger names the key its subscription moved to. On a purchase
/// paused since `pausedSince` it ends the pause as `planIssue` does.
public func planEnding(from tip: LedgerEntry, debit: LedgerDebit, at now: Timestamp, pausedSince: Timestamp? = nil,
                       newId: () -> String) throws(LedgerError) -> [LedgerEntry] {
    let pass = LedgerPass(from: tip, at: now, pausedSince: pausedSince, newId: newId)
    let t = pass.time
    var rows = pass.rows
    let last = pass.last
    let writtenWhenEmpty = if case .transferOut = debit { true } else { false }
    if last.balanceMonths > 0 || writtenWhenEmpty {
        rows.append(try last.debit(debit, months: last.balanceMonths, at: t, newId: newId))
    }
    return markingPauseEnd(rows, since: pausedSince)
}
