import BadgeCore
import JSON

/// Verified renewal info of a subscription (stores.md A3): the fields this service reads.
/// It carries no bundle id; Apple's libraries check only its environment.
public struct AppStoreRenewalInfo: Sendable, Equatable {
    public let originalTransactionId: String
    public let productId: String
    /// The product the next period renews as (a pending downgrade or crossgrade shows here).
    public let autoRenewProductId: String?
    public let autoRenews: Bool
    public let isInBillingRetryPeriod: Bool
    public let environment: AppStoreTransaction.Environment
    public let signedDate: Timestamp

    static func decode(_ payload: JSONObject) throws(AppStoreRefusal) -> AppStoreRenewalInfo {
        let fields = PayloadFields(object: payload, what: "renewal info")
        let environment = try fields.known("environment", as: AppStoreTransaction.Environment.self)
        let autoRenew = try fields.integer("autoRenewStatus")
        guard autoRenew == 0 || autoRenew == 1 else { throw .internal("renewal info autoRenewStatus \(autoRenew) is not 0 or 1") }
        return AppStoreRenewalInfo(
            originalTransactionId: try fields.string("originalTransactionId"),
            productId: try fields.string("productId"),
            autoRenewProductId: try fields.optionalString("autoRenewProductId"),
            autoRenews: autoRenew == 1,
            isInBillingRetryPeriod: try fields.bool("isInBillingRetryPeriod") ?? false,
            environment: environment,
            signedDate: try fields.time("signedDate"))
    }
}
