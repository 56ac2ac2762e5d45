import BadgeCore

/// A purchase: the badge a purchase key holds.
public struct PurchaseRecord: Hashable, Sendable {
    /// Database id, never sent to clients.
    public var id: Int64
    /// The purchase key exactly as the envelope spells it.
    public var purchaseKey: String
    /// The 32-byte master key every credential of this purchase signs.
    public var masterKey: [UInt8]
    /// The type of the badge the purchase was funded for.
    public var badgeType: BadgeType
    public var createdAt: Timestamp
}

/// A month issued as a credential: the period it covers and what was signed.
public struct IssuanceRecord: Hashable, Sendable {
    /// The `badge` ledger row this issuance belongs to (one issuance per such row).
    public var entryId: String
    public var purchaseId: Int64
    public var badgeType: BadgeType
    public var periodStart: Timestamp
    public var periodEnd: Timestamp
    public var expiry: Timestamp
    public var keyIndex: Int
    /// The 80-byte BBS signature.
    public var signature: [UInt8]

    public init(entryId: String, purchaseId: Int64, badgeType: BadgeType, periodStart: Timestamp,
                periodEnd: Timestamp, expiry: Timestamp, keyIndex: Int, signature: [UInt8]) {
        self.entryId = entryId
        self.purchaseId = purchaseId
        self.badgeType = badgeType
        self.periodStart = periodStart
        self.periodEnd = periodEnd
        self.expiry = expiry
        self.keyIndex = keyIndex
        self.signature = signature
    }
}

/// Whether the months a code grants were paid for.
public enum CodePayment: String, Sendable, CaseIterable {
    /// Paid: redeemable.
    case paid
    /// Sold but not yet settled: redemption answers payment_pending.
    case unpaid
    /// Given away by the operator: redeemable.
    case free
}

/// A redemption code. Only the SHA-256 of its canonical form is stored.
public struct CodeRecord: Hashable, Sendable {
    public var hash: [UInt8]
    public var badgeType: BadgeType
    /// 1 ... 255
    public var months: Int
    /// How many purchase keys may redeem it, 1 ... 1000.
    public var maxUses: Int
    public var payment: CodePayment
    public var expiresAt: Timestamp?
    public var revokedAt: Timestamp?
    public var createdAt: Timestamp

    public init(hash: [UInt8], badgeType: BadgeType, months: Int, maxUses: Int, payment: CodePayment,
                expiresAt: Timestamp?, revokedAt: Timestamp? = nil, createdAt: Timestamp) {
        self.hash = hash
        self.badgeType = badgeType
        self.months = months
        self.maxUses = maxUses
        self.payment = payment
        self.expiresAt = expiresAt
        self.revokedAt = revokedAt
        self.createdAt = createdAt
    }
}
