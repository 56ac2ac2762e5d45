import BadgeCore

// The client replica check of docs/protocol.md, Ledger rules (the client replica check, upstream `balanceChecked`):
// every row must re-derive from the one before it. The service runs the same check over its
// own rows in tests (and may before writing), so a row that passes here passes on the client.
//
// Two service-side rules go beyond the client's: a plain debit (refund, upgrade, transferOut,
// support) must not add months or move the run (start, anchor, type), and the wire ranges
// (int16 change, uint16 balance) are checked. Both only narrow what passes. The client's
// tolerance for a `createdAt` far ahead of its own clock is a client matter and is not modelled.

/// The first row of a ledger that fails the replica check, and why.
public struct LedgerViolation: Error, Hashable, Sendable, CustomStringConvertible {
    /// Position of the failing row in the checked sequence.
    public var index: Int
    public var entryId: String
    public var reason: Reason

    public init(index: Int, entryId: String, reason: Reason) {
        self.index = index
        self.entryId = entryId
        self.reason = reason
    }

    public enum Reason: Hashable, Sendable {
        /// `changeMonths` outside int16, or `balanceMonths` negative or beyond uint16.
        case outOfRange(changeMonths: Int, balanceMonths: Int)
        /// `balanceMonths` ≠ previous balance + `changeMonths`.
        case balanceMismatch(previous: Int, change: Int, balance: Int)
        /// Dated before the row it follows.
        case createdAtDecreased(previous: Timestamp, createdAt: Timestamp)
        /// `balanceStartTs` earlier than the previous row's, outside a credit of another type.
        case startDecreased(previous: Timestamp, start: Timestamp)
        /// A lapse, badge or credit row differing from its operation re-run at its own
        /// `createdAt`; `expected` is what the re-run gives (nil: it gives no row).
        case notDerivable(expected: LedgerEntry?)
        /// A plain debit that adds months or changes start, anchor or badge type.
        case debitMovesRun
        /// An opening credit with no predecessor that does not restate the purchase's type
        /// with `changeMonths` = `balanceMonths`.
        case openingMismatch(expectedBadgeType: BadgeType)
        /// `wasPausedSince` before the previous row's `createdAt` or after this row's own, or on
        /// a first row (a pause needs a row before it).
        case pauseOutOfOrder(wasPausedSince: Timestamp)
    }

    public var description: String { "ledger row \(index) (\(entryId)): \(reason)" }
}

/// Checks `entries` in order as the client replica does: the first against `previous` (the
/// replica's tip) or, with none, against `emptyEntry(createdAt, purchaseBadgeType)`.
/// Returns the first violation, or nil when every row re-derives.
public func checkLedger(_ entries: [LedgerEntry], after previous: LedgerEntry? = nil,
                        purchaseBadgeType: BadgeType) -> LedgerViolation? {
    var prev = previous
    for (index, entry) in entries.enumerated() {
        if let reason = checkEntry(entry, after: prev, purchaseBadgeType: purchaseBadgeType) {
            return LedgerViolation(index: index, entryId: entry.entryId, reason: reason)
        }
        prev = entry
    }
    return nil
}

/// Checks one row against its predecessor (nil: it is the first row); nil when it passes.
public func checkEntry(_ entry: LedgerEntry, after previous: LedgerEntry?,
                       purchaseBadgeType: BadgeType) -> LedgerViolation.Reason? {
    guard abs(entry.changeMonths) <= LedgerEntry.maxChangeMonths,
          (0...LedgerEntry.maxBalanceMonths).contains(entry.balanceMonths)
    else { return .outOfRange(changeMonths: entry.changeMonths, balanceMonths: entry.balanceMonths) }

    // An opening with nothing before it is an absolute restatement, judged on its own.
    if previous == nil, entry.entryType == .credit(.opening) {
        guard entry.changeMonths == entry.balanceMonths, entry.balanceBadgeType == purchaseBadgeType else {
            return .openingMismatch(expectedBadgeType: purchaseBadgeType)
        }
        return nil
    }
    var prev = previous ?? .emptyEntry(at: entry.createdAt, badgeType: purchaseBadgeType)
    // The row ending a pause derives from its predecessor as the pause left it (docs/protocol.md, Pause).
    if let since = entry.wasPausedSince {
        guard previous != nil, since >= prev.createdAt, since <= entry.createdAt else {
            return .pauseOutOfOrder(wasPausedSince: since)
        }
        prev = prev.resumed(pausedSince: since, at: entry.createdAt)
    }

    guard entry.balanceMonths == prev.balanceMonths + entry.changeMonths else {
        return .balanceMismatch(previous: prev.balanceMonths, change: entry.changeMonths, balance: entry.balanceMonths)
    }
    guard entry.createdAt >= prev.createdAt else {
        return .createdAtDecreased(previous: prev.createdAt, createdAt: entry.createdAt)
    }
    let startsOtherType: Bool
    if case .credit = entry.entryType { startsOtherType = entry.balanceBadgeType != prev.balanceBadgeType }
    else { startsOtherType = false }
    guard entry.balanceStartTs >= prev.balanceStartTs || startsOtherType else {
        return .startDecreased(previous: prev.balanceStartTs, start: entry.balanceStartTs)
    }

    let id = { entry.entryId }
    var expected: LedgerEntry?
    switch entry.entryType {
    case .debit(.lapse):
        expected = prev.lapse(at: entry.createdAt, newId: id)
    case .debit(.badge):
        expected = prev.issue(at: entry.createdAt, newId: id)
    case .debit:
        guard entry.changeMonths <= 0, entry.balanceStartTs == prev.balanceStartTs,
              entry.balanceAnchorTs == prev.balanceAnchorTs, entry.balanceBadgeType == prev.balanceBadgeType
        else { return .debitMovesRun }
        return nil
    case let .credit(credit):
        expected = try? prev.grantEntry(months: entry.changeMonths, credit: credit, at: entry.createdAt,
                                        badgeType: entry.balanceBadgeType, newId: id)
    }
    expected?.wasPausedSince = entry.wasPausedSince
    return expected == entry ? nil : .notDerivable(expected: expected)
}
