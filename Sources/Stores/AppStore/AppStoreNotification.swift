import BadgeCore
import JSON

/// A verified App Store Server Notification V2 (stores.md, "App Store Server Notifications V2"):
/// the fields this service reads. The payload and the transaction it carries are each verified
/// with the same chain code as a presented transaction; unknown members are ignored.
public struct AppStoreNotification: Sendable, Equatable {
    /// `REFUND`, `REVOKE`, `DID_RENEW`, …: kept as text, as Apple adds types.
    public let notificationType: String
    public let subtype: String?
    /// The same for every retry of one notification: the deduplication key.
    public let notificationUUID: String
    public let signedDate: Timestamp
    /// `data.environment`; nil for a notification without `data` (a summary, whose
    /// `summary.bundleId` must then be this app's).
    public let environment: AppStoreTransaction.Environment?
    /// `data.signedTransactionInfo`, verified; nil when the notification carries none (`TEST`).
    public let transaction: AppStoreTransaction?
}

extension AppStoreVerifier {
    /// Verifies a notification's `signedPayload`: the payload's chain at its `signedDate` and
    /// its signature, `data.bundleId` equal to the configured one, then the nested
    /// `signedTransactionInfo` as any transaction (its own chain, signature and bundleId). The
    /// environment is only read: what a Sandbox notification does is the handler's choice.
    public func notification(signedPayload text: String) throws(AppStoreRefusal) -> AppStoreNotification {
        let jws = try CompactJWS.split(text)
        try verifySignature(jws, what: "notification")
        let fields = PayloadFields(object: jws.payload, what: "notification")
        let type = try fields.string("notificationType")
        let uuid = try fields.string("notificationUUID")
        guard !uuid.isEmpty else { throw .internal("notification notificationUUID is empty") }
        let signedDate = try fields.time("signedDate")
        guard let dataValue = jws.payload["data"], dataValue != .null else {
            // A summary (or an external purchase token) names its app there instead: any app's
            // genuine notification must not pass for one of this app's.
            var named: String?
            for member in ["summary", "externalPurchaseToken"] where named == nil {
                guard let object = jws.payload[member]?.objectValue else { continue }
                named = try PayloadFields(object: object, what: "notification \(member)").optionalString("bundleId")
            }
            guard named == bundleId else { throw .internal("notification names no bundleId of this app") }
            return AppStoreNotification(notificationType: type, subtype: try fields.optionalString("subtype"),
                                        notificationUUID: uuid, signedDate: signedDate, environment: nil, transaction: nil)
        }
        guard let data = dataValue.objectValue else { throw .internal("notification data is not an object") }
        let dataFields = PayloadFields(object: data, what: "notification data")
        guard try dataFields.string("bundleId") == bundleId else { throw .internal("notification is for another app's bundleId") }
        let environment = try dataFields.known("environment", as: AppStoreTransaction.Environment.self)
        var transaction: AppStoreTransaction?
        if let signed = try dataFields.optionalString("signedTransactionInfo") {
            let inner = try CompactJWS.split(signed)
            try verifySignature(inner, what: "transaction")
            let decoded = try AppStoreTransaction.decode(inner.payload)
            guard decoded.bundleId == bundleId else { throw .internal("notification transaction is for another app's bundleId") }
            guard decoded.environment == environment else {
                throw .internal("notification transaction environment differs from the notification's")
            }
            transaction = decoded
        }
        return AppStoreNotification(notificationType: type, subtype: try fields.optionalString("subtype"), notificationUUID: uuid,
                                    signedDate: signedDate, environment: environment, transaction: transaction)
    }
}
