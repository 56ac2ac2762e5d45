/// Whether a catalog item is offered: deprecated items are still sent and accepted at
/// invoice creation; disabled ones are omitted and refused (docs/protocol.md, Catalog).
public enum ItemStatus: String, Hashable, Sendable, CaseIterable {
    case active, deprecated, disabled
}

/// The discount an offer states (wire `offerDiscount`).
public enum OfferDiscount: Hashable, Sendable {
    /// Months given free within the offer's duration.
    case freeMonths(Int)
    /// A percentage off `months × monthPrice` (wire tag `discount`).
    case percent(Int)
}

/// A monthly price of a badge type (catalog `prices`).
public struct BadgePrice: Hashable, Sendable {
    public var priceId: String
    public var badgeType: BadgeType
    /// Minor units of `currency` per month.
    public var monthPrice: UInt32
    public var currency: String
    public var status: ItemStatus
    public var createdAt: Timestamp

    public init(priceId: String, badgeType: BadgeType, monthPrice: UInt32, currency: String,
                status: ItemStatus, createdAt: Timestamp) {
        self.priceId = priceId
        self.badgeType = badgeType
        self.monthPrice = monthPrice
        self.currency = currency
        self.status = status
        self.createdAt = createdAt
    }
}

/// A discounted duration (catalog `offers`); no price id applies to any price.
public struct BadgeOffer: Hashable, Sendable {
    public var offerId: String
    public var priceId: String?
    public var months: Int
    public var discount: OfferDiscount
    public var status: ItemStatus
    public var createdAt: Timestamp

    public init(offerId: String, priceId: String?, months: Int, discount: OfferDiscount,
                status: ItemStatus, createdAt: Timestamp) {
        self.offerId = offerId
        self.priceId = priceId
        self.months = months
        self.discount = discount
        self.status = status
        self.createdAt = createdAt
    }
}
