import BadgeCore

/// Why a ledger operation refused to produce a row; each case carries what a log reader needs.
/// These are programming or data errors on the service side, answered `internal`.
public enum LedgerError: Error, Hashable, Sendable, CustomStringConvertible {
    /// A grant or debit of a negative or non-representable number of months (wire: int16).
    case monthsOutOfRange(months: Int)
    /// The resulting balance would not fit the wire's uint16.
    case balanceOverflow(balance: Int, adding: Int)
    /// A debit of more months than the balance holds.
    case insufficientBalance(balance: Int, debiting: Int)
    /// A grant of another badge type onto a balance that still holds months of the old one;
    /// `grant` debits them as `upgrade` first, `grantEntry` alone cannot.
    case otherTypeRemains(held: BadgeType, remaining: Int, granting: BadgeType)
    /// `badge` and `lapse` rows come only from `issue` and `lapse`, never from a plain debit.
    case notAPlainDebit(LedgerDebit)
    /// A row dated before the row it follows; ledger dates never decrease.
    case dateBeforePrevious(date: Timestamp, previous: Timestamp)
    /// A store charge whose billing period starts after the request's time.
    case periodStartAfterNow(periodStart: Timestamp, now: Timestamp)
    /// First funding or a charge pass needs at least one month.
    case nothingGranted

    public var description: String {
        switch self {
        case let .monthsOutOfRange(months): "months out of range: \(months)"
        case let .balanceOverflow(balance, adding): "balance \(balance) + \(adding) exceeds 65535"
        case let .insufficientBalance(balance, debiting): "debit of \(debiting) months exceeds balance \(balance)"
        case let .otherTypeRemains(held, remaining, granting):
            "granting \(granting) onto \(remaining) remaining months of \(held)"
        case let .notAPlainDebit(debit): "\(debit) rows come only from issue/lapse"
        case let .dateBeforePrevious(date, previous): "row at \(date) before previous row at \(previous)"
        case let .periodStartAfterNow(periodStart, now): "billing period starts \(periodStart), after now \(now)"
        case .nothingGranted: "a funding grant of zero months"
        }
    }
}
