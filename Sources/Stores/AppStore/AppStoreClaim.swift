import JSON

/// The transaction a JWS claims to be, read from its payload before anything is verified, so
/// the purchase can be looked up and the verified transaction compared with it (spec:
/// "claimed by its own id, read from the evidence before verification").
public struct AppStoreClaim: Sendable, Equatable {
    public let transactionId: String
    /// Present for every transaction Apple signs; required for an auto-renewable subscription.
    public let originalTransactionId: String?
    /// Whether the payload names itself an auto-renewable subscription.
    public let isAutoRenewable: Bool

    /// The id a purchase is claimed by: the original transaction id of a subscription, which
    /// every renewal keeps, else the transaction id.
    public var purchaseId: String {
        isAutoRenewable ? (originalTransactionId ?? transactionId) : transactionId
    }

    /// Reads the claim of `jws`: receipt_invalid for a string that is not three base64url parts
    /// or names no transactionId, and for an auto-renewable one that names no originalTransactionId;
    /// internal for either id present but not a string, a mistyped field (a shape this service
    /// does not know, which a change on Apple's side would give every purchase).
    public static func read(_ jws: String) throws(AppStoreRefusal) -> AppStoreClaim {
        try read(CompactJWS.split(jws))
    }

    static func read(_ jws: CompactJWS) throws(AppStoreRefusal) -> AppStoreClaim {
        let fields = PayloadFields(object: jws.payload, what: "transaction")
        guard let transactionId = try fields.optionalString("transactionId"), !transactionId.isEmpty else {
            throw .invalid("payload names no transactionId")
        }
        let isAutoRenewable = jws.payload["type"]?.stringValue == AppStoreTransaction.Kind.autoRenewable.rawValue
        let original = try fields.optionalString("originalTransactionId")
        if isAutoRenewable, original == nil || original!.isEmpty {
            throw .invalid("auto-renewable subscription names no originalTransactionId")
        }
        return AppStoreClaim(transactionId: transactionId, originalTransactionId: original, isAutoRenewable: isAutoRenewable)
    }
}
