import BadgeCore

/// A store product this service sells: what a verified purchase of it grants.
public struct StoreProduct: Sendable, Equatable {
    public enum Kind: String, Sendable {
        /// Months granted once, at purchase.
        case oneTime = "one-time"
        /// An auto-renewable subscription: the months of one billing period per charge.
        case subscription
    }

    /// `apple` or `google`, as the protocol names the funding.
    public let store: String
    public let productId: String
    public let badgeType: BadgeType
    public let months: Int
    public let kind: Kind

    public init(store: String, productId: String, badgeType: BadgeType, months: Int, kind: Kind) {
        self.store = store
        self.productId = productId
        self.badgeType = badgeType
        self.months = months
        self.kind = kind
    }
}

/// The store products this deployment prices; a product outside it is product_unavailable.
public struct StoreProducts: Sendable, Equatable {
    public let products: [StoreProduct]

    public init(_ products: [StoreProduct]) { self.products = products }

    public func product(store: String, id: String) -> StoreProduct? {
        products.first { $0.store == store && $0.productId == id }
    }

    /// The App Store products of the SimpleX apps (upstream product ids): the one-time badges
    /// grant a month each; the subscriptions a month or a year per charge.
    public static let upstream = StoreProducts([
        StoreProduct(store: "apple", productId: "BADGE_SUPPORTER_01", badgeType: .supporter, months: 1, kind: .oneTime),
        StoreProduct(store: "apple", productId: "BADGE_LEGEND_01", badgeType: .legend, months: 1, kind: .oneTime),
        StoreProduct(store: "apple", productId: "SUBSCR_BADGE_SUPPORTER_MONTH_01", badgeType: .supporter, months: 1, kind: .subscription),
        StoreProduct(store: "apple", productId: "SUBSCR_BADGE_SUPPORTER_YEAR_01", badgeType: .supporter, months: 12, kind: .subscription),
        StoreProduct(store: "apple", productId: "SUBSCR_BADGE_LEGEND_MONTH_01", badgeType: .legend, months: 1, kind: .subscription),
        StoreProduct(store: "apple", productId: "SUBSCR_BADGE_LEGEND_YEAR_01", badgeType: .legend, months: 12, kind: .subscription),
    ])
}
