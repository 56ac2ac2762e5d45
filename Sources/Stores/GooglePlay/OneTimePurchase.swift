import BadgeCore

/// A one-time product purchase Play vouched for and this service may credit
/// (`purchases.products.get`, purchaseState purchased, not a test).
public struct PlayOneTimePurchase: Sendable, Hashable {
    public let productID: String
    public let orderID: String?
    public let purchaseTime: Timestamp
    /// A promo code's purchase, credited like a paid one (only this app's developer issues codes).
    public let isPromo: Bool
    /// Acknowledged or consumed already: nothing to acknowledge before crediting.
    public let isAcknowledged: Bool

    /// A license tester's purchase, credited only by a development deployment (`credit_test_purchases`).
    public let isTest: Bool
    /// What the app set with `setObfuscatedAccountId` when it bought, naming the buyer's account.
    public let obfuscatedExternalAccountId: String?

    /// Reads a `ProductPurchase` answer for `claimedProductID` and sorts it into the spec's class:
    /// the purchase when it may be credited, else the refusal. A test purchase is `test_purchase`
    /// unless `creditsTest`.
    public static func judge(_ body: [UInt8], claimedProductID: String, creditsTest: Bool = false) throws(PlayRefusal) -> PlayOneTimePurchase {
        let p = try PlayJSONObject(body, what: "purchases.products.get")
        if let named = try p.string("productId"), named != claimedProductID {
            throw .internal("purchases.products.get names another product")
        }
        guard let state = try p.integer("purchaseState") else { throw .internal("purchases.products.get has no purchaseState") }
        switch state {
        case 0: break
        case 1: throw .invalid("purchaseState canceled")
        case 2: throw .pending("purchaseState pending", retry: .hour)
        default: throw .internal("purchases.products.get purchaseState \(state) is not known")
        }
        var isPromo = false, isTest = false
        switch try p.integer("purchaseType") {
        case nil: break
        case 0:
            guard creditsTest else { throw .test("purchaseType test (a license tester's purchase)") }
            isTest = true
        case 1: isPromo = true
        case let other?: throw .internal("purchases.products.get purchaseType \(other) is neither test nor promo")
        }
        let quantity = try p.integer("quantity") ?? 1
        guard quantity == 1 else { throw .internal("purchases.products.get quantity \(quantity), only 1 is credited") }
        guard let millis = try p.integer("purchaseTimeMillis"), millis > 0 else {
            throw .internal("purchases.products.get has no purchaseTimeMillis")
        }
        let acknowledgement = try p.integer("acknowledgementState") ?? 0
        let consumption = try p.integer("consumptionState") ?? 0
        guard (0...1).contains(acknowledgement) else { throw .internal("acknowledgementState \(acknowledgement) is not known") }
        guard (0...1).contains(consumption) else { throw .internal("consumptionState \(consumption) is not known") }
        return PlayOneTimePurchase(
            productID: claimedProductID, orderID: try p.string("orderId"),
            purchaseTime: Timestamp(seconds: Int64(millis / 1000), nanoseconds: Int32(millis % 1000) * 1_000_000),
            isPromo: isPromo, isAcknowledged: acknowledgement == 1 || consumption == 1, isTest: isTest,
            obfuscatedExternalAccountId: try p.string("obfuscatedExternalAccountId"))
    }
}
