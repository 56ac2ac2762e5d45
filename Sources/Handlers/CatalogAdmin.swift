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
        try Self.checkKnown(badgeType, refuse: Refusal.invalid)
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
            // One active price per type and currency: the catalog shows clients one price to pay.
            if let active = try w.prices().first(where: {
                $0.status == .active && $0.badgeType == price.badgeType && $0.currency == currency
            }) {
                throw Refusal.invalid("price \(active.priceId) is already active for \(badgeType) in \(currency): add the new one with --replace \(active.priceId)")
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
            // Disabling is final: deprecating a disabled entry would put it back on sale.
            let current = try w.prices().first(where: { $0.priceId == id })?.status
                ?? w.offers().first(where: { $0.offerId == id })?.status
            if current == .disabled && status != .disabled {
                throw Refusal.invalid("\(id) is disabled; a disabled price or offer stays disabled")
            }
            if try w.setPriceStatus(priceId: id, status) { return }
            if try w.setOfferStatus(offerId: id, status) { return }
            throw Refusal.unknownItem(id)
        }
    }

    /// Refuses a badge type the service does not know (a typo would sign credentials of a type
    /// no client displays).
    static func checkKnown<Refused: Error>(_ badgeType: String, refuse: (String) -> Refused) throws {
        guard BadgeType.known.contains(BadgeType(badgeType)) else {
            throw refuse("unknown badge type '\(badgeType)' (known: \(BadgeType.known.map(\.rawValue).joined(separator: ", ")))")
        }
    }
}
