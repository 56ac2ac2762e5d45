import BadgeCore

/// The three paths on which a store is asked about a subscription, each at most once an hour
/// (spec: purchaseBadge "Subscriptions", transferBadge, issueBadge "Subscriptions"); the renewal
/// hour is shared with upgradeBadgeSubscription.
public enum SubscriptionCheckPath: String, Sendable, CaseIterable {
    case purchase, transfer, renewal
}

/// A store subscription as this service knows it: which purchase it funds, what the store said
/// last, and when the store was last asked on each path. One per (store, reference); created
/// the first time the store is asked about it, before any purchase holds it.
public struct SubscriptionRecord: Hashable, Sendable {
    public var id: Int64
    /// `apple` or `google`.
    public var store: String
    /// What the store knows the subscription by: the App Store's original transaction id, a Play
    /// purchase token. Renewal checks need it; it is never logged.
    public var reference: String
    /// The purchase it funds now; nil until a charge of it is first credited.
    public var purchaseId: Int64?
    /// The protocol's `subscription` as last read (`renewing`, `cancelled`, `billingRetry`, `ended`).
    public var state: String?
    public var readAt: Timestamp?
    /// The store's latest charge at that read, and whether it was revoked.
    public var latestChargeId: String?
    public var latestChargeRevoked: Bool
    /// The charge the purchase's current coverage was granted for.
    public var grantedChargeId: String?
    /// When the store was last asked on each path, whether or not it answered.
    public var checkedAt: [SubscriptionCheckPath: Timestamp]
    /// The purchase it last moved from (transferBadge), and when.
    public var movedFromPurchaseId: Int64?
    public var movedAt: Timestamp?

    public init(id: Int64, store: String, reference: String, purchaseId: Int64? = nil, state: String? = nil,
                readAt: Timestamp? = nil, latestChargeId: String? = nil, latestChargeRevoked: Bool = false,
                grantedChargeId: String? = nil, checkedAt: [SubscriptionCheckPath: Timestamp] = [:],
                movedFromPurchaseId: Int64? = nil, movedAt: Timestamp? = nil) {
        self.id = id
        self.store = store
        self.reference = reference
        self.purchaseId = purchaseId
        self.state = state
        self.readAt = readAt
        self.latestChargeId = latestChargeId
        self.latestChargeRevoked = latestChargeRevoked
        self.grantedChargeId = grantedChargeId
        self.checkedAt = checkedAt
        self.movedFromPurchaseId = movedFromPurchaseId
        self.movedAt = movedAt
    }
}

/// A charge a store reported that the first-charge rule allowed crediting, kept so a renewal
/// check can grant it once coverage ends, and so no charge is ever granted twice.
public struct SubscriptionChargeRecord: Hashable, Sendable {
    public var subscriptionId: Int64
    public var chargeId: String
    public var productId: String
    public var badgeType: BadgeType
    public var months: Int
    public var periodStart: Timestamp
    public var periodEnd: Timestamp
    public var seenAt: Timestamp
    /// When it was granted (credited `charge {chargeId}`); nil while only recorded.
    public var grantedAt: Timestamp?

    public init(subscriptionId: Int64, chargeId: String, productId: String, badgeType: BadgeType, months: Int,
                periodStart: Timestamp, periodEnd: Timestamp, seenAt: Timestamp, grantedAt: Timestamp? = nil) {
        self.subscriptionId = subscriptionId
        self.chargeId = chargeId
        self.productId = productId
        self.badgeType = badgeType
        self.months = months
        self.periodStart = periodStart
        self.periodEnd = periodEnd
        self.seenAt = seenAt
        self.grantedAt = grantedAt
    }
}

/// A purchase funded by a store subscription: the subscription, and when it moved away to
/// another purchase key (then the purchase answers `subscription = ended` with no credential).
public struct SubscriptionFunding: Hashable, Sendable {
    public var purchaseId: Int64
    public var subscriptionId: Int64
    public var movedAwayAt: Timestamp?

    public init(purchaseId: Int64, subscriptionId: Int64, movedAwayAt: Timestamp? = nil) {
        self.purchaseId = purchaseId
        self.subscriptionId = subscriptionId
        self.movedAwayAt = movedAwayAt
    }
}
