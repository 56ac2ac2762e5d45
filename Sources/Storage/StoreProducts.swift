import BadgeCore

/// A store product this service sells: what a verified purchase of it grants.
public struct StoreProduct: Sendable, Hashable {
    public enum Kind: String, Sendable, CaseIterable {
        /// Months granted once, at purchase.
        case oneTime = "one-time"
        /// An auto-renewable subscription: the months of one billing period per charge.
        case subscription
        /// A one-time upgrade SKU at a fixed discounted price: months granted once, at purchase,
        /// only with the proof of an unexpired cheaper badge (purchaseBadge.upgrade).
        case upgrade
    }

    /// `apple` or `google`, as the protocol names the funding.
    public let store: String
    public let productId: String
    /// A Play subscription's base plan: each base plan of one product grants its own months.
    /// Nil for App Store products and Play one-time products.
    public let basePlanId: String?
    public let badgeType: BadgeType
    public let months: Int
    public let kind: Kind

    public init(store: String, productId: String, basePlanId: String? = nil, badgeType: BadgeType, months: Int, kind: Kind) {
        self.store = store
        self.productId = productId
        self.basePlanId = basePlanId
        self.badgeType = badgeType
        self.months = months
        self.kind = kind
    }

    /// The stores a product can belong to.
    public static let stores = ["apple", "google"]
}

/// The store products this deployment prices; a product outside it is product_unavailable.
/// Kept in the database (`badge_store_products`), seeded with the upstream ids by the migration
/// that made the table, shown and changed with `badge-service catalog products | set-product | remove-product`.
public struct StoreProducts: Sendable, Equatable {
    public let products: [StoreProduct]

    public init(_ products: [StoreProduct]) { self.products = products }

    /// The product `id` of `store` with no base plan: an App Store product or a Play one-time product.
    public func product(store: String, id: String) -> StoreProduct? {
        products.first { $0.store == store && $0.productId == id && $0.basePlanId == nil }
    }

    /// A Play subscription's base plan.
    public func plan(store: String, productId: String, basePlanId: String) -> StoreProduct? {
        products.first { $0.store == store && $0.productId == productId && $0.basePlanId == basePlanId }
    }

    /// The products of one store.
    public func of(_ store: String) -> [StoreProduct] { products.filter { $0.store == store } }

    /// The products of the SimpleX apps (upstream product ids). App Store: the one-time badges
    /// grant a month each, the subscriptions a month or a year per charge. Google Play: the same
    /// one-time badges, and one subscription per badge with a monthly and an annual base plan.
    public static let upstream = StoreProducts([
        StoreProduct(store: "apple", productId: "BADGE_SUPPORTER_01", badgeType: .supporter, months: 1, kind: .oneTime),
        StoreProduct(store: "apple", productId: "BADGE_LEGEND_01", badgeType: .legend, months: 1, kind: .oneTime),
        StoreProduct(store: "apple", productId: "SUBSCR_BADGE_SUPPORTER_MONTH_01", badgeType: .supporter, months: 1, kind: .subscription),
        StoreProduct(store: "apple", productId: "SUBSCR_BADGE_SUPPORTER_YEAR_01", badgeType: .supporter, months: 12, kind: .subscription),
        StoreProduct(store: "apple", productId: "SUBSCR_BADGE_LEGEND_MONTH_01", badgeType: .legend, months: 1, kind: .subscription),
        StoreProduct(store: "apple", productId: "SUBSCR_BADGE_LEGEND_YEAR_01", badgeType: .legend, months: 12, kind: .subscription),
        StoreProduct(store: "google", productId: "badge_supporter_01", badgeType: .supporter, months: 1, kind: .oneTime),
        StoreProduct(store: "google", productId: "badge_legend_01", badgeType: .legend, months: 1, kind: .oneTime),
        StoreProduct(store: "google", productId: "subscr_badge_supporter_01", basePlanId: "subscr-badge-supporter-month-02",
                     badgeType: .supporter, months: 1, kind: .subscription),
        StoreProduct(store: "google", productId: "subscr_badge_supporter_01", basePlanId: "subscr-badge-supporter-year-01",
                     badgeType: .supporter, months: 12, kind: .subscription),
        StoreProduct(store: "google", productId: "subscr_badge_legend_01", basePlanId: "subscr-badge-legend-month-01",
                     badgeType: .legend, months: 1, kind: .subscription),
        StoreProduct(store: "google", productId: "subscr_badge_legend_01", basePlanId: "subscr-badge-legend-year-01",
                     badgeType: .legend, months: 12, kind: .subscription),
    ])
}
