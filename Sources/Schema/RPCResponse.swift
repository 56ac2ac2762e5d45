import JSON
import Ledger
import BadgeCore

/// One RPC response (schema `response`), tagged by `"type"` on the wire.
public enum RPCResponse: Hashable, JSONModel {
    /// `badgeStatement` only for a signed getBadgeCatalog.
    case badgeCatalog(catalog: Catalog, badgeStatement: Statement?)
    case badgeInvoice(invoice: Invoice, badgeType: BadgeType, months: Int)
    /// `credential` nil when nothing can be issued; `receipt` the recovery secret (never for
    /// lifetime badges); `subscription` exactly when a store subscription funds the purchase.
    case badgeCredential(credential: BadgeCredential?, statement: Statement, receipt: String?, subscription: SubscriptionState?)
    /// As built; ``failure(_:message:retryAfter:)`` applies the retryAfter rule.
    case error(code: ErrorCode, message: String?, retryAfter: UInt32?)

    /// An error response following the protocol's rule: `retryAfter` is sent exactly with the
    /// transient codes, `retryAfter` or else the code's default (payment_pending and
    /// provider_unavailable 300 s, rate_limited 60 s); any other code never carries one.
    public static func failure(_ code: ErrorCode, message: String? = nil, retryAfter: UInt32? = nil) -> RPCResponse {
        .error(code: code, message: message, retryAfter: code.isTransient ? (retryAfter ?? code.defaultRetryAfter) : nil)
    }

    /// The wire tag, for logs and metrics.
    public var name: String {
        switch self {
        case .badgeCatalog: "badgeCatalog"
        case .badgeInvoice: "badgeInvoice"
        case .badgeCredential: "badgeCredential"
        case .error: "error"
        }
    }

    /// The error code, when this is an error.
    public var errorCode: ErrorCode? {
        if case .error(let code, _, _) = self { return code }
        return nil
    }

    public init(json: JSONValue, at path: [String]) throws(JSONDecodingError) {
        let o = try JSONObjectReader(json, at: path)
        switch try o.tag() {
        case "badgeCatalog":
            self = .badgeCatalog(catalog: try o.model("catalog"), badgeStatement: try o.optionalModel("badgeStatement"))
        case "badgeInvoice":
            self = .badgeInvoice(invoice: try o.model("invoice"), badgeType: BadgeType(rawValue: try o.string("badgeType")),
                                 months: try o.int("months", in: 0...255))
        case "badgeCredential":
            self = .badgeCredential(credential: try o.optionalModel("credential"), statement: try o.model("statement"),
                                    receipt: try o.optionalString("receipt"),
                                    subscription: try o.optionalEnumeration("subscription"))
        case "error":
            self = .error(code: ErrorCode(rawValue: try o.string("code")), message: try o.optionalString("message"),
                          retryAfter: try o.optionalUInt32("retryAfter"))
        case let tag:
            throw o.unknownTag(tag)
        }
    }

    public var json: JSONValue {
        var w = JSONObjectBuilder(type: name)
        switch self {
        case .badgeCatalog(let catalog, let badgeStatement):
            w.add("catalog", catalog)
            w.add("badgeStatement", badgeStatement)
        case .badgeInvoice(let invoice, let badgeType, let months):
            w.add("invoice", invoice)
            w.add("badgeType", badgeType.rawValue)
            w.add("months", months)
        case .badgeCredential(let credential, let statement, let receipt, let subscription):
            w.add("credential", credential)
            w.add("statement", statement)
            w.add("receipt", receipt)
            w.add("subscription", subscription?.rawValue)
        case .error(let code, let message, let retryAfter):
            w.add("code", code.rawValue)
            w.add("message", message)
            w.add("retryAfter", retryAfter)
        }
        return w.json
    }

    /// The compact JSON body.
    public func encodedBytes() -> [UInt8] { json.serialized() }
}
