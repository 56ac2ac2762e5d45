import BadgeCore

// The row-producing operations of docs/protocol.md, Ledger rules, as pure functions of the tip (the
// purchase's last row). Each returns the new row; the caller appends it. Entry ids come from
// `newId`, called once per row actually produced, so tests can use a counter and the service
// base64url of 16 random bytes.
//
// The client re-runs `lapse`, `issue` and `grantEntry` on its replica to check every row it
// receives (see LedgerInvariants.swift), so these functions are the protocol: changing one
// changes what every client accepts.

extension LedgerEntry {
    /// The largest balance the wire carries (`balanceMonths` is uint16).
    public static let maxBalanceMonths = Int(UInt16.max)
    /// The largest single change the wire carries (`changeMonths` is int16).
    public static let maxChangeMonths = Int(Int16.max)

    /// The seed for a purchase with no ledger yet: nothing held, a run starting at `t`.
    /// Never stored; the client re-derives a first row from the same seed.
    public static func emptyEntry(at t: Timestamp, badgeType: BadgeType) -> LedgerEntry {
        LedgerEntry(entryId: "", changeMonths: 0, balanceMonths: 0, balanceStartTs: t, balanceAnchorTs: t,
                    balanceBadgeType: badgeType, createdAt: t, entryType: .credit(.opening))
    }

    /// The `lapse` row debiting the months that ran out unissued by `t`; nil when none did.
    /// The start moves to the boundary after them; the anchor and `paidThrough` stay.
    public func lapse(at t: Timestamp, newId: () -> String) -> LedgerEntry? {
        let k = elapsedMonths(at: t)
        guard k > 0 else { return nil }
        return LedgerEntry(entryId: newId(), changeMonths: -k, balanceMonths: balanceMonths - k,
                           balanceStartTs: monthAfter(k), balanceAnchorTs: balanceAnchorTs,
                           balanceBadgeType: balanceBadgeType, createdAt: t, entryType: .debit(.lapse))
    }

    /// The `badge` row issuing the month starting at `balanceStartTs`; nil when nothing is
    /// held or that month has not begun. Run `lapse` first, or a past month would be issued.
    public func issue(at t: Timestamp, newId: () -> String) -> LedgerEntry? {
        guard balanceMonths > 0, balanceStartTs <= t else { return nil }
        return LedgerEntry(entryId: newId(), changeMonths: -1, balanceMonths: balanceMonths - 1,
                           balanceStartTs: monthAfter(1), balanceAnchorTs: balanceAnchorTs,
                           balanceBadgeType: balanceBadgeType, createdAt: t, entryType: .debit(.badge))
    }

    /// The single credit row of upstream `grantEntry`, extended by the spec for badge types.
    ///
    /// A run restarts at `t` (start = anchor = t) when it has lapsed (`balanceMonths == 0 &&
    /// t > balanceStartTs`) or when `badgeType` differs from the balance's (which must then be
    /// empty: see `grant`). Otherwise the months extend the current run on its start and anchor,
    /// so a top-up while coverage runs keeps the run's month boundaries.
    public func grantEntry(months n: Int, credit: LedgerCredit, at t: Timestamp, badgeType: BadgeType? = nil,
                           newId: () -> String) throws(LedgerError) -> LedgerEntry {
        let type = badgeType ?? balanceBadgeType
        guard (0...Self.maxChangeMonths).contains(n) else { throw .monthsOutOfRange(months: n) }
        guard balanceMonths + n <= Self.maxBalanceMonths else {
            throw .balanceOverflow(balance: balanceMonths, adding: n)
        }
        let otherType = type != balanceBadgeType
        if otherType && balanceMonths > 0 {
            throw .otherTypeRemains(held: balanceBadgeType, remaining: balanceMonths, granting: type)
        }
        // Another type starts its own run even while the old coverage runs (t < balanceStartTs):
        // the store charged the new tier from t, so its months count from t. This is the one row
        // whose balanceStartTs may be earlier than its predecessor's.
        let restarts = otherType || (balanceMonths == 0 && t > balanceStartTs)
        return LedgerEntry(entryId: newId(), changeMonths: n, balanceMonths: balanceMonths + n,
                           balanceStartTs: restarts ? t : balanceStartTs,
                           balanceAnchorTs: restarts ? t : balanceAnchorTs,
                           balanceBadgeType: type, createdAt: t, entryType: .credit(credit))
    }

    /// A grant as the service writes it: a `lapse` of what ran out before `t`, then, for another
    /// badge type, an `upgrade(toPurchaseKey: purchaseKey)` debit of what remains of the old run,
    /// then the credit (`grantEntry`). Returns those rows in order (1 to 3).
    ///
    /// The lapse matters: without it a top-up onto a run whose months ran out unissued would
    /// continue that stale run, and the next lapse would eat the new months.
    ///
    /// On a purchase paused since `pausedSince` the grant ends the pause: the rows derive from
    /// `resumed(pausedSince:at:)` and the first carries `wasPausedSince` (docs/protocol.md, Pause).
    public func grant(months n: Int, credit: LedgerCredit, at t: Timestamp, badgeType: BadgeType? = nil,
                      purchaseKey: String, pausedSince: Timestamp? = nil,
                      newId: () -> String) throws(LedgerError) -> [LedgerEntry] {
        guard t >= createdAt else { throw .dateBeforePrevious(date: t, previous: createdAt) }
        let type = badgeType ?? balanceBadgeType
        var rows: [LedgerEntry] = []
        var tip = pausedSince.map { resumed(pausedSince: $0, at: t) } ?? self
        if let lapsed = tip.lapse(at: t, newId: newId) {
            rows.append(lapsed)
            tip = lapsed
        }
        if type != tip.balanceBadgeType && tip.balanceMonths > 0 {
            let upgrade = try tip.debit(.upgrade(toPurchaseKey: purchaseKey), months: tip.balanceMonths, at: t,
                                        newId: newId)
            rows.append(upgrade)
            tip = upgrade
        }
        rows.append(try tip.grantEntry(months: n, credit: credit, at: t, badgeType: type, newId: newId))
        return markingPauseEnd(rows, since: pausedSince)
    }

    /// A plain debit (`refund`, `upgrade`, `transferOut`, `support`) of `months` at `t`; the run's
    /// start, anchor and type stay. `badge` and `lapse` rows come only from `issue` and `lapse`.
    public func debit(_ reason: LedgerDebit, months: Int, at t: Timestamp,
                      newId: () -> String) throws(LedgerError) -> LedgerEntry {
        switch reason {
        case .badge, .lapse: throw .notAPlainDebit(reason)
        case .refund, .upgrade, .transferOut, .support: break
        }
        guard (0...Self.maxChangeMonths).contains(months) else { throw .monthsOutOfRange(months: months) }
        guard months <= balanceMonths else { throw .insufficientBalance(balance: balanceMonths, debiting: months) }
        guard t >= createdAt else { throw .dateBeforePrevious(date: t, previous: createdAt) }
        return LedgerEntry(entryId: newId(), changeMonths: -months, balanceMonths: balanceMonths - months,
                           balanceStartTs: balanceStartTs, balanceAnchorTs: balanceAnchorTs,
                           balanceBadgeType: balanceBadgeType, createdAt: t, entryType: .debit(reason))
    }

    /// The date of a store charge credit after this row: the store's billing period start, or
    /// this row's `createdAt` when later, so ledger dates never decrease.
    public func chargeCreditDate(periodStart: Timestamp) -> Timestamp {
        max(periodStart, createdAt)
    }

    /// This row restated as an `opening` credit: same id, balance, start, anchor, type and date,
    /// `changeMonths` = `balanceMonths`. Sent alone in place of a history that attaches to nothing.
    public var openingRestatement: LedgerEntry {
        LedgerEntry(entryId: entryId, changeMonths: balanceMonths, balanceMonths: balanceMonths,
                    balanceStartTs: balanceStartTs, balanceAnchorTs: balanceAnchorTs,
                    balanceBadgeType: balanceBadgeType, wasPausedSince: nil, createdAt: createdAt,
                    entryType: .credit(.opening))
    }
}
