import BadgeCore
import JSON

/// Prices and offers (schema `catalog`).
public struct Catalog: Hashable, JSONModel {
    public var prices: [BadgePrice]
    public var offers: [BadgeOffer]

    public init(prices: [BadgePrice], offers: [BadgeOffer]) {
        self.prices = prices
        self.offers = offers
    }

    public init(json: JSONValue, at path: [String]) throws(JSONDecodingError) {
        let o = try JSONObjectReader(json, at: path)
        prices = try o.models("prices")
        offers = try o.models("offers")
    }

    public var json: JSONValue {
        var w = JSONObjectBuilder()
        w.add("prices", prices)
        w.add("offers", offers)
        return w.json
    }
}

/// A monthly price of a badge type (schema `badgePrice`).
extension BadgePrice: JSONModel {
    public init(json: JSONValue, at path: [String]) throws(JSONDecodingError) {
        let o = try JSONObjectReader(json, at: path)
        self.init(priceId: try o.string("priceId"), badgeType: BadgeType(rawValue: try o.string("badgeType")),
                  monthPrice: try o.uint32("monthPrice"), currency: try o.string("currency"),
                  status: try o.enumeration("status"), createdAt: try o.timestamp("createdAt"))
    }

    public var json: JSONValue {
        var w = JSONObjectBuilder()
        w.add("priceId", priceId)
        w.add("badgeType", badgeType.rawValue)
        w.add("monthPrice", monthPrice)
        w.add("currency", currency)
        w.add("status", status.rawValue)
        w.add("createdAt", createdAt)
        return w.json
    }
}

/// A discounted duration (schema `badgeOffer`).
extension BadgeOffer: JSONModel {
    public init(json: JSONValue, at path: [String]) throws(JSONDecodingError) {
        let o = try JSONObjectReader(json, at: path)
        self.init(offerId: try o.string("offerId"), priceId: try o.optionalString("priceId"),
                  months: try o.int("months", in: 0...255), discount: try o.model("discount"),
                  status: try o.enumeration("status"), createdAt: try o.timestamp("createdAt"))
    }

    public var json: JSONValue {
        var w = JSONObjectBuilder()
        w.add("offerId", offerId)
        w.add("priceId", priceId)
        w.add("months", months)
        w.add("discount", discount)
        w.add("status", status.rawValue)
        w.add("createdAt", createdAt)
        return w.json
    }
}

/// An offer's discount (schema `offerDiscount`): free months, or a percentage
/// (wire tag `discount`).
extension OfferDiscount: JSONModel {

    public init(json: JSONValue, at path: [String]) throws(JSONDecodingError) {
        let o = try JSONObjectReader(json, at: path)
        switch try o.tag() {
        case "freeMonths": self = .freeMonths(try o.int("freeMonths", in: 0...255))
        case "discount": self = .percent(try o.int("discount", in: 0...255))
        case let tag: throw o.unknownTag(tag)
        }
    }

    public var json: JSONValue {
        switch self {
        case .freeMonths(let n):
            var w = JSONObjectBuilder(type: "freeMonths")
            w.add("freeMonths", n)
            return w.json
        case .percent(let n):
            var w = JSONObjectBuilder(type: "discount")
            w.add("discount", n)
            return w.json
        }
    }
}
