import BadgeCore
import Storage

/// The catalog a new deployment starts with (docs/protocol.md, Catalog): supporter
/// $7 and legend $70 a month, and two offers for any price — 3 months with 1 free, and
/// 12 months with 6 free. One month has no offer.
public enum DefaultCatalog {
    public static let supporterPriceId = "2170da16-66e5-481f-9c75-6949e2dd14e1"
    public static let legendPriceId = "6a778279-753e-45db-8acc-0e382c1d054a"
    public static let threeMonthsOfferId = "5d1f3a2e-8c4b-4e7a-9b61-3f0c2d8e4a17"
    public static let twelveMonthsOfferId = "b7e2c9d4-1a6f-4c83-a5d0-6e9f2b1c7d38"

    public static func prices(at t: Timestamp) -> [BadgePrice] {
        [
            BadgePrice(priceId: supporterPriceId, badgeType: .supporter, monthPrice: 700, currency: "usd", status: .active, createdAt: t),
            BadgePrice(priceId: legendPriceId, badgeType: .legend, monthPrice: 7000, currency: "usd", status: .active, createdAt: t),
        ]
    }

    public static func offers(at t: Timestamp) -> [BadgeOffer] {
        [
            BadgeOffer(offerId: threeMonthsOfferId, priceId: nil, months: 3, discount: .freeMonths(1), status: .active, createdAt: t),
            BadgeOffer(offerId: twelveMonthsOfferId, priceId: nil, months: 12, discount: .freeMonths(6), status: .active, createdAt: t),
        ]
    }

    /// Seeds the catalog when the database has no price yet; true when it did.
    @discardableResult
    public static func seedIfEmpty(_ store: any BadgeStore, at t: Timestamp) throws -> Bool {
        try store.write { w in
            guard try w.prices().isEmpty else { return false }
            for p in prices(at: t) { try w.insertPrice(p) }
            for o in offers(at: t) { try w.insertOffer(o) }
            return true
        }
    }
}
