import BadgeCore

/// One row of a purchase's months ledger, exactly the fields of the schema's `ledgerEntry`.
///
/// The last row is the purchase's state; every row derives from its predecessor
/// (docs/protocol.md, Ledger rules).
public struct LedgerEntry: Hashable, Sendable {
    /// Opaque id, unique per purchase (base64url of 16 random bytes when the service makes it).
    public var entryId: String
    /// Signed change this row made.
    public var changeMonths: Int
    /// Months remaining after this row, never negative.
    public var balanceMonths: Int
    /// Start of the next unissued month.
    public var balanceStartTs: Timestamp
    /// Start of the current run; month boundaries count from it.
    public var balanceAnchorTs: Timestamp
    /// The badge type the balance funds.
    public var balanceBadgeType: BadgeType
    /// Set on the row that ends a pause.
    public var wasPausedSince: Timestamp?
    public var createdAt: Timestamp
    public var entryType: LedgerEntryType

    public init(entryId: String, changeMonths: Int, balanceMonths: Int, balanceStartTs: Timestamp,
                balanceAnchorTs: Timestamp, balanceBadgeType: BadgeType, wasPausedSince: Timestamp? = nil,
                createdAt: Timestamp, entryType: LedgerEntryType) {
        self.entryId = entryId
        self.changeMonths = changeMonths
        self.balanceMonths = balanceMonths
        self.balanceStartTs = balanceStartTs
        self.balanceAnchorTs = balanceAnchorTs
        self.balanceBadgeType = balanceBadgeType
        self.wasPausedSince = wasPausedSince
        self.createdAt = createdAt
        self.entryType = entryType
    }
}

/// Whether a row credits or debits months, and why.
public enum LedgerEntryType: Hashable, Sendable {
    case credit(LedgerCredit)
    case debit(LedgerDebit)
}

/// Reasons months are added (schema `ledgerCredit`).
public enum LedgerCredit: Hashable, Sendable {
    /// A settled invoice; no invoice id for store payments.
    case payment(invoiceId: String?)
    /// A redeemed code; the buyer's invoice is never referenced.
    case code
    /// A store subscription charge.
    case charge(chargeId: String)
    /// An operator's goodwill credit.
    case support
    /// Months moved in from another purchase key.
    case transferIn(fromPurchaseKey: String)
    /// An absolute restatement of the balance.
    case opening
}

/// Reasons months are removed (schema `ledgerDebit`).
public enum LedgerDebit: Hashable, Sendable {
    case refund
    case upgrade(toPurchaseKey: String)
    case transferOut(toPurchaseKey: String)
    case support
    /// A month issued as a credential.
    case badge
    /// Months that ran out unissued.
    case lapse
}
