import BadgeCore
import Ledger
import Testing

@Suite struct InvoicePricingTests {
    let t = Timestamp(seconds: 1_780_000_000)
    var prices: [BadgePrice] {
        [BadgePrice(priceId: "sup", badgeType: .supporter, monthPrice: 700, currency: "usd", status: .active, createdAt: t),
         BadgePrice(priceId: "sup-old", badgeType: .supporter, monthPrice: 500, currency: "usd", status: .deprecated, createdAt: t),
         BadgePrice(priceId: "sup-eur", badgeType: .supporter, monthPrice: 650, currency: "eur", status: .disabled, createdAt: t),
         BadgePrice(priceId: "inv-old", badgeType: .investor, monthPrice: 9000, currency: "usd", status: .deprecated, createdAt: t),
         BadgePrice(priceId: "leg", badgeType: .legend, monthPrice: 7000, currency: "usd", status: .active, createdAt: t)]
    }
    var offers: [BadgeOffer] {
        [BadgeOffer(offerId: "3for2", priceId: "sup", months: 3, discount: .freeMonths(1), status: .active, createdAt: t),
         BadgeOffer(offerId: "year-15", priceId: nil, months: 12, discount: .percent(15), status: .deprecated, createdAt: t),
         BadgeOffer(offerId: "gone", priceId: nil, months: 6, discount: .percent(10), status: .disabled, createdAt: t),
         BadgeOffer(offerId: "leg-only", priceId: "leg", months: 3, discount: .freeMonths(1), status: .active, createdAt: t),
         BadgeOffer(offerId: "odd", priceId: nil, months: 7, discount: .percent(33), status: .active, createdAt: t)]
    }

    func price(_ priceId: String, _ offerId: String? = nil, _ type: BadgeType = .supporter) throws(PricingRefusal) -> PricedPurchase {
        try priceInvoice(priceId: priceId, offerId: offerId, badgeType: type, prices: prices, offers: offers)
    }

    @Test func noOfferBuysOneMonthAtThePinnedPrice() throws {
        let p = try price("sup")
        #expect(p.months == 1 && p.price == 700 && p.discount == 0 && p.credit == 0 && p.amount == 700)
        #expect(p.currency == "usd" && p.badgeType == .supporter && p.priceId == "sup" && p.offerId == nil)
    }

    @Test func freeMonthsAreTakenOffAtTheMonthPrice() throws {
        let p = try price("sup", "3for2")
        #expect(p.months == 3 && p.price == 2100 && p.discount == 700 && p.amount == 1400)
    }

    @Test func aPercentageIsTakenOffThePriceRoundedDown() throws {
        let p = try price("sup", "odd")
        // 7 × 700 = 4900; 33 % = 1617 exactly; amount = price − discount − credit
        #expect(p.months == 7 && p.price == 4900 && p.discount == 1617 && p.amount == 3283)
        let q = try price("leg", "odd", .legend)
        #expect(q.price == 49000 && q.discount == 16170 && q.amount == q.price - q.discount - q.credit)
    }

    @Test func deprecatedPricesAndOffersAreStillAccepted() throws {
        let old = try price("sup-old", "year-15")
        #expect(old.months == 12 && old.price == 6000 && old.discount == 900 && old.amount == 5100)
    }

    @Test func disabledPricesAndOffersAreRefused() {
        #expect(throws: PricingRefusal.offerDisabled) { try price("sup-eur") }
        #expect(throws: PricingRefusal.offerDisabled) { try price("sup", "gone") }
    }

    @Test func catalogRefusals() {
        #expect(throws: PricingRefusal.productUnavailable) { try price("no-such-price") }
        // a type with no active price is not sold, even at a deprecated price the client pinned
        #expect(throws: PricingRefusal.productUnavailable) { try price("inv-old", nil, .investor) }
        #expect(throws: PricingRefusal.unknownOfferId) { try price("sup", "no-such-offer") }
        // an offer pinned to another price, a price of another badge type
        #expect(throws: PricingRefusal.offerMismatch) { try price("sup", "leg-only") }
        #expect(throws: PricingRefusal.offerMismatch) { try price("leg", nil, .supporter) }
    }

    @Test func amountsNeverOverflowTheWire() {
        let huge = [BadgePrice(priceId: "h", badgeType: .supporter, monthPrice: UInt32.max, currency: "usd", status: .active, createdAt: t)]
        #expect(throws: PricingRefusal.productUnavailable) {
            try priceInvoice(priceId: "h", offerId: "3for2x", badgeType: .supporter, prices: huge,
                             offers: [BadgeOffer(offerId: "3for2x", priceId: nil, months: 3, discount: .freeMonths(1), status: .active, createdAt: t)])
        }
        #expect((try? priceInvoice(priceId: "h", offerId: nil, badgeType: .supporter, prices: huge, offers: []))?.amount == UInt32.max)
    }
}
