import BadgeCore
import Foundation
import Storage

/// Operator changes to the catalog (`badge-service catalog …`). Prices and offers are
/// never deleted: repricing appends a price and deprecates the old one, so a client that
/// pinned the old price can still buy at it (docs/protocol.md, Catalog).
public struct CatalogAdmin: Sendable {
    public let store: any BadgeStore
    public let clock: @Sendable () -> Timestamp

    public init(store: any BadgeStore, clock: @escaping @Sendable () -> Timestamp) {
        self.store = store
        self.clock = clock
    }

    /// Why a catalog change was refused.
    public enum Refusal: Error, Equatable, CustomStringConvertible {
        case invalid(String)
        case unknownItem(String)

        public var description: String {
            switch self {
            case .invalid(let what): return what
            case .unknownItem(let id): return "no price or offer with id \(id)"
            }
        }
    }

    /// Adds a price; with `replacing`, deprecates that price in the same transaction.
    public func addPrice(badgeType: String, monthPrice: Int, currency: String, replacing: String? = nil) throws -> BadgePrice {
        guard Self.isTag(badgeType) else { throw Refusal.invalid("badge type must be 1-32 characters of a-z, 0-9, '-' or '_'") }
        guard (1...Int(UInt32.max)).contains(monthPrice) else { throw Refusal.invalid("month price must be 1...\(UInt32.max) minor units") }
        guard currency.count == 3, currency.allSatisfy({ $0.isASCII && $0.isLowercase }) else {
            throw Refusal.invalid("currency must be a lower-case ISO 4217 code such as usd")
        }
        let price = BadgePrice(priceId: UUID().uuidString.lowercased(), badgeType: BadgeType(badgeType),
                                monthPrice: UInt32(monthPrice), currency: currency, status: .active, createdAt: clock())
        try store.write { w in
            if let old = replacing {
                guard let oldPrice = try w.prices().first(where: { $0.priceId == old }) else { throw Refusal.unknownItem(old) }
                guard oldPrice.badgeType == price.badgeType else {
                    throw Refusal.invalid("price \(old) is for \(oldPrice.badgeType), not \(badgeType)")
                }
                if oldPrice.status == .active { _ = try w.setPriceStatus(priceId: old, .deprecated) }
            }
            try w.insertPrice(price)
        }
        return price
    }

    /// Adds an offer of `months` with a discount, for one price or (no price) any.
    public func addOffer(months: Int, discount: OfferDiscount, priceId: String?) throws -> BadgeOffer {
        guard (1...255).contains(months) else { throw Refusal.invalid("months must be 1...255") }
        switch discount {
        case .freeMonths(let n):
            guard n >= 1 && n < months else { throw Refusal.invalid("free months must be 1...\(months - 1) for \(months) months") }
        case .percent(let p):
            guard (1...99).contains(p) else { throw Refusal.invalid("discount must be 1...99 percent") }
        }
        let offer = BadgeOffer(offerId: UUID().uuidString.lowercased(), priceId: priceId, months: months,
                                discount: discount, status: .active, createdAt: clock())
        try store.write { w in
            if let priceId, try !w.prices().contains(where: { $0.priceId == priceId }) { throw Refusal.unknownItem(priceId) }
            try w.insertOffer(offer)
        }
        return offer
    }

    /// Sets the status of the price or offer with `id`.
    public func setStatus(_ id: String, _ status: ItemStatus) throws {
        try store.write { w in
            if try w.setPriceStatus(priceId: id, status) { return }
            if try w.setOfferStatus(offerId: id, status) { return }
            throw Refusal.unknownItem(id)
        }
    }

    /// A badge type or similar tag an operator may type.
    static func isTag(_ s: String) -> Bool {
        (1...32).contains(s.utf8.count) && s.utf8.allSatisfy { c in
            (c >= 0x61 && c <= 0x7A) || (c >= 0x30 && c <= 0x39) || c == 0x2D || c == 0x5F
        }
    }
}
