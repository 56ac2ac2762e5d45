import BadgeCore

/// What a Play product or subscription base plan grants: a badge type for some months.
public struct PlayGrant: Sendable, Hashable {
    public let badgeType: BadgeType
    public let months: Int
    public init(badgeType: BadgeType, months: Int) {
        self.badgeType = badgeType
        self.months = months
    }
}

/// The Play products this deployment sells: one-time products by id, subscription base plans
/// by (product id, base plan id). Seeded with the ids the SimpleX Chat Android app uses.
public struct PlayProductMap: Sendable, Hashable {
    public var oneTime: [String: PlayGrant]
    /// Subscription product id → base plan id → grant.
    public var subscriptions: [String: [String: PlayGrant]]

    public init(oneTime: [String: PlayGrant], subscriptions: [String: [String: PlayGrant]]) {
        self.oneTime = oneTime
        self.subscriptions = subscriptions
    }

    /// The upstream app's products: a month of supporter or legend one-time; a supporter and a
    /// legend subscription, each with a monthly and an annual base plan.
    public static let upstream = PlayProductMap(
        oneTime: [
            "badge_supporter_01": PlayGrant(badgeType: .supporter, months: 1),
            "badge_legend_01": PlayGrant(badgeType: .legend, months: 1),
        ],
        subscriptions: [
            "subscr_badge_supporter_01": [
                "subscr-badge-supporter-month-02": PlayGrant(badgeType: .supporter, months: 1),
                "subscr-badge-supporter-year-01": PlayGrant(badgeType: .supporter, months: 12),
            ],
            "subscr_badge_legend_01": [
                "subscr-badge-legend-month-01": PlayGrant(badgeType: .legend, months: 1),
                "subscr-badge-legend-year-01": PlayGrant(badgeType: .legend, months: 12),
            ],
        ])

    /// How a subscription charge's (product, base plan) stands in this map.
    public enum PlanMatch: Sendable, Hashable {
        case sold(PlayGrant)
        /// The base plan is sold, but under another product: a mix-up in this map or in Play's answer.
        case soldUnderAnotherProduct(String)
        case notSold
    }

    public func plan(product: String, basePlan: String) -> PlanMatch {
        if let grant = subscriptions[product]?[basePlan] { return .sold(grant) }
        if let other = subscriptions.first(where: { $0.value[basePlan] != nil })?.key { return .soldUnderAnotherProduct(other) }
        return .notSold
    }
}
