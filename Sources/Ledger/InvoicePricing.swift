import BadgeCore

/// What an invoice charges for: the badge, its months, and the amounts in minor units of
/// `currency`, with `amount = price − discount − credit` (spec, getBadgeInvoice).
public struct PricedPurchase: Hashable, Sendable {
    public var badgeType: BadgeType
    public var months: Int
    /// `months × monthPrice` of the pinned price.
    public var price: UInt32
    /// What the offer takes off: free months at the month price, or a percentage of `price` (rounded down).
    public var discount: UInt32
    /// The upgrade credit (upgrades are not built, so always 0 today).
    public var credit: UInt32
    public var amount: UInt32
    public var currency: String
    public var priceId: String
    public var offerId: String?
}

/// Why a price and offer cannot be sold; each maps to the protocol error of the same name.
public enum PricingRefusal: Error, Hashable, Sendable {
    /// No such price, or the badge type has no active price (the catalog no longer sells it).
    case productUnavailable
    /// The offer id names no offer.
    case unknownOfferId
    /// The price or the offer is disabled: the client should refresh its catalog.
    case offerDisabled
    /// The offer belongs to another price, or the price to another badge type than asked for.
    case offerMismatch
}

/// Prices a purchase from the catalog as pure rules: `priceId` pins the price the client
/// displayed, `offerId` selects a discounted duration (absent: one month at that price).
/// Deprecated prices and offers are accepted, disabled ones refused.
public func priceInvoice(priceId: String, offerId: String?, badgeType: BadgeType,
                         prices: [BadgePrice], offers: [BadgeOffer]) throws(PricingRefusal) -> PricedPurchase {
    guard let price = prices.first(where: { $0.priceId == priceId }) else { throw .productUnavailable }
    guard price.badgeType == badgeType else { throw .offerMismatch }
    // A type with no active price is no longer sold, whatever price the client pinned.
    guard prices.contains(where: { $0.badgeType == badgeType && $0.status == .active }) else { throw .productUnavailable }
    guard price.status != .disabled else { throw .offerDisabled }

    var months = 1
    var discount: UInt64 = 0
    let monthPrice = UInt64(price.monthPrice)
    if let offerId {
        guard let offer = offers.first(where: { $0.offerId == offerId }) else { throw .unknownOfferId }
        guard offer.status != .disabled else { throw .offerDisabled }
        if let pinned = offer.priceId, pinned != priceId { throw .offerMismatch }
        months = offer.months
        let full = UInt64(months) * monthPrice
        switch offer.discount {
        case .freeMonths(let free): discount = UInt64(min(free, months)) * monthPrice
        case .percent(let percent): discount = full * UInt64(min(percent, 100)) / 100
        }
    }
    let full = UInt64(months) * monthPrice
    // Catalog prices are uint32 and offers at most 255 months, so only an absurd price overflows.
    guard months >= 1, full <= UInt64(UInt32.max) else { throw .productUnavailable }
    return PricedPurchase(badgeType: badgeType, months: months, price: UInt32(full), discount: UInt32(discount), credit: 0,
                          amount: UInt32(full - discount), currency: price.currency, priceId: priceId, offerId: offerId)
}
