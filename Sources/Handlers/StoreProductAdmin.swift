import BadgeCore
import Storage

/// Operator changes to the store products (`badge-service catalog set-product | remove-product`):
/// what a verified App Store or Google Play purchase of each product grants. Checked so a typo
/// cannot price a product no store sells or sell one base plan under two products.
public struct StoreProductAdmin: Sendable {
    public let store: any BadgeStore

    public init(store: any BadgeStore) { self.store = store }

    /// Why a change was refused; the message names the option at fault.
    public struct Refusal: Error, Equatable, CustomStringConvertible {
        public let description: String
        init(_ description: String) { self.description = description }
    }

    /// Prices `product`, replacing what the same (store, product, base plan) granted before.
    public func set(_ product: StoreProduct) throws {
        try Self.check(product)
        try store.write { w in
            if let plan = product.basePlanId,
               let other = try w.storeProducts().first(where: {
                   $0.store == product.store && $0.basePlanId == plan && $0.productId != product.productId
               }) {
                throw Refusal("--base-plan \(plan) is already sold under product \(other.productId)")
            }
            try w.setStoreProduct(product)
        }
    }

    /// Stops pricing a product; purchases already credited keep their months.
    public func remove(store storeName: String, productId: String, basePlanId: String?) throws {
        let removed = try store.write { try $0.removeStoreProduct(store: storeName, productId: productId, basePlanId: basePlanId) }
        guard removed else {
            throw Refusal("no \(storeName) product \(productId)\(basePlanId.map { " with base plan \($0)" } ?? "") is priced")
        }
    }

    /// The products as `catalog products` lists them, one line each.
    public static func describe(_ p: StoreProduct) -> String {
        let plan = p.basePlanId.map { "  base plan \($0)" } ?? ""
        return "\(p.store)  \(p.productId)\(plan)  \(p.badgeType)  \(p.months) month\(p.months == 1 ? "" : "s")  \(p.kind.rawValue)"
    }

    static func check(_ p: StoreProduct) throws {
        guard StoreProduct.stores.contains(p.store) else { throw Refusal("--store must be apple or google, not '\(p.store)'") }
        try CatalogAdmin.checkKnown(p.badgeType.rawValue, refuse: { Refusal("--type: \($0)") })
        guard (1...255).contains(p.months) else { throw Refusal("--months must be 1...255") }
        guard isProductId(p.productId, store: p.store) else {
            throw Refusal(p.store == "google"
                ? "--product must be a Play product id: a-z or 0-9, then a-z 0-9 _ . (at most 150 characters)"
                : "--product must be an App Store product id: A-Z a-z 0-9 _ . (at most 150 characters)")
        }
        switch (p.store, p.kind, p.basePlanId) {
        case ("google", .subscription, nil):
            throw Refusal("--base-plan is required for a Google Play subscription: each base plan grants its own months")
        case ("google", .subscription, let plan?):
            guard isBasePlanId(plan) else { throw Refusal("--base-plan must be a-z or 0-9, then a-z 0-9 - (at most 63 characters)") }
        case (_, _, .some):
            throw Refusal("--base-plan applies only to Google Play subscriptions")
        default: break
        }
    }

    /// Play product ids as Play documents them; App Store ids as App Store Connect allows them.
    static func isProductId(_ id: String, store: String) -> Bool {
        let bytes = Array(id.utf8)
        guard let first = bytes.first, bytes.count <= 150 else { return false }
        if store == "google" {
            guard isLowerOrDigit(first) else { return false }
            return bytes.allSatisfy { isLowerOrDigit($0) || $0 == UInt8(ascii: "_") || $0 == UInt8(ascii: ".") }
        }
        return bytes.allSatisfy { isLowerOrDigit($0) || (0x41...0x5A).contains($0) || $0 == UInt8(ascii: "_") || $0 == UInt8(ascii: ".") }
    }

    /// Play base plan ids: a lower-case letter or digit, then letters, digits and hyphens, at most 63.
    static func isBasePlanId(_ id: String) -> Bool {
        let bytes = Array(id.utf8)
        guard let first = bytes.first, bytes.count <= 63, isLowerOrDigit(first) else { return false }
        return bytes.allSatisfy { isLowerOrDigit($0) || $0 == UInt8(ascii: "-") }
    }

    private static func isLowerOrDigit(_ b: UInt8) -> Bool { (0x61...0x7A).contains(b) || (0x30...0x39).contains(b) }
}
