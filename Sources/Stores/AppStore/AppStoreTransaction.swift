import BadgeCore
import JSON

/// A verified App Store transaction (stores.md A2): the fields this service reads, decoded
/// strictly. Unknown members are ignored, as Apple adds fields.
public struct AppStoreTransaction: Sendable, Equatable {
    /// The product kinds Apple names in `type`.
    public enum Kind: String, Sendable {
        case autoRenewable = "Auto-Renewable Subscription"
        case nonConsumable = "Non-Consumable"
        case consumable = "Consumable"
        case nonRenewing = "Non-Renewing Subscription"
    }

    /// Where Apple says the transaction happened. Xcode and LocalTesting are never signed by
    /// Apple's PKI, so a verified one is a shape this service does not know.
    public enum Environment: String, Sendable {
        case production = "Production"
        case sandbox = "Sandbox"
    }

    public enum Ownership: String, Sendable {
        case purchased = "PURCHASED"
        case familyShared = "FAMILY_SHARED"
    }

    public let transactionId: String
    public let originalTransactionId: String
    public let webOrderLineItemId: String?
    public let bundleId: String
    public let productId: String
    public let kind: Kind
    public let environment: Environment
    public let ownership: Ownership
    public let quantity: Int
    public let purchaseDate: Timestamp
    public let signedDate: Timestamp
    /// Auto-renewables only: the end of the period this charge pays for.
    public let expiresDate: Timestamp?
    /// Present when Apple refunded or revoked the transaction.
    public let revocationDate: Timestamp?
    /// 1 introductory, 2 promotional, 3 offer code, 4 win-back; any offer bars a charge credit.
    public let offerType: Int?
    public let isUpgraded: Bool
    /// The UUID the app set when it bought (StoreKit's `appAccountToken`), naming the buyer's account.
    public let appAccountToken: String?

    /// Decodes a verified payload; a missing or mistyped field, an unknown `type`,
    /// `environment` or `inAppOwnershipType` is internal.
    static func decode(_ payload: JSONObject) throws(AppStoreRefusal) -> AppStoreTransaction {
        let fields = PayloadFields(object: payload, what: "transaction")
        let environmentText = try fields.string("environment")
        guard let environment = Environment(rawValue: environmentText) else {
            throw .internal("transaction environment '\(environmentText)' is not Production or Sandbox")
        }
        let kind = try fields.known("type", as: Kind.self)
        let expires = try fields.optionalTime("expiresDate")
        if kind == .autoRenewable && expires == nil { throw .internal("subscription transaction has no expiresDate") }
        return AppStoreTransaction(
            transactionId: try fields.string("transactionId"),
            originalTransactionId: try fields.string("originalTransactionId"),
            webOrderLineItemId: try fields.optionalString("webOrderLineItemId"),
            bundleId: try fields.string("bundleId"),
            productId: try fields.string("productId"),
            kind: kind,
            environment: environment,
            ownership: try fields.known("inAppOwnershipType", as: Ownership.self),
            quantity: try fields.integer("quantity"),
            purchaseDate: try fields.time("purchaseDate"),
            signedDate: try fields.time("signedDate"),
            expiresDate: expires,
            revocationDate: try fields.optionalTime("revocationDate"),
            offerType: try fields.optionalInteger("offerType"),
            isUpgraded: try fields.bool("isUpgraded") ?? false,
            appAccountToken: try fields.optionalString("appAccountToken"))
    }
}
