import BadgeCore
import Storage

/// The catalog a new deployment starts with, upstream's (docs/protocol.md, Catalog): supporter
/// $7 and legend $70 a month, and for each price two offers — 3 months with 1 free, and 12
/// months with 6 free. One month has no offer.
public enum DefaultCatalog {
    public static let supporterPriceId = "2170da16-66e5-481f-9c75-6949e2dd14e1"
    public static let legendPriceId = "6a778279-753e-45db-8acc-0e382c1d054a"
    public static let supporterThreeMonthsOfferId = "29e35444-2f85-43fb-8933-16875e6d3776"
    public static let supporterTwelveMonthsOfferId = "71bd8ad1-15c4-4735-b3d4-b12a670dfb7e"
    public static let legendThreeMonthsOfferId = "88885a0a-c407-4aaa-bf53-90f9de7bdfc0"
    public static let legendTwelveMonthsOfferId = "35ca9daa-4dca-4cc1-af74-631674906cc9"

    public static func prices(at t: Timestamp) -> [BadgePrice] {
        [
            BadgePrice(priceId: supporterPriceId, badgeType: .supporter, monthPrice: 700, currency: "usd", status: .active, createdAt: t),
            BadgePrice(priceId: legendPriceId, badgeType: .legend, monthPrice: 7000, currency: "usd", status: .active, createdAt: t),
        ]
    }

    public static func offers(at t: Timestamp) -> [BadgeOffer] {
        [
            BadgeOffer(offerId: supporterThreeMonthsOfferId, priceId: supporterPriceId, months: 3, discount: .freeMonths(1), status: .active, createdAt: t),
            BadgeOffer(offerId: supporterTwelveMonthsOfferId, priceId: supporterPriceId, months: 12, discount: .freeMonths(6), status: .active, createdAt: t),
            BadgeOffer(offerId: legendThreeMonthsOfferId, priceId: legendPriceId, months: 3, discount: .freeMonths(1), status: .active, createdAt: t),
            BadgeOffer(offerId: legendTwelveMonthsOfferId, priceId: legendPriceId, months: 12, discount: .freeMonths(6), status: .active, createdAt: t),
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
